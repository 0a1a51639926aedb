/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The target kernel: which one it is and where pass 5 runs (the host's kernel, the one -r
 * names, or the bundled VM's), and the callbacks through which pass 1's conditions and
 * pass 2's providers ask about it (its release and .config, function symbols, types,
 * tracepoints, debuginfo, modules), each loaded when first asked.
 */
#ifndef TAPSTER_TARGET_H
#define TAPSTER_TARGET_H

#include <stdbool.h>

#include "parse/parse.h"
#include "resolve/program.h"
#include "session.h"

/* Decides the target once; false when that failed (the reason was printed). */
bool ensure_target(struct session *s);

/* Pass 1's view of the target (%( kernel_v / CONFIG_ conditions): its release and .config. */
struct parse_target target_for_parse(struct session *s);

/* Pass 2's view of the target, for the providers and $target expressions. */
struct provider_env target_for_providers(struct session *s);

#endif
