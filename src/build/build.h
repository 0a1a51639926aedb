/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Pass 4: the generated C built into a kernel module with kbuild. */
#ifndef TAPSTER_BUILD_H
#define TAPSTER_BUILD_H

#include "session.h"

/* Builds <tmpdir>/<name>.c against the target's kbuild tree; returns the .ko's path
 * (malloc'd) or NULL after printing why. */
char *build_module(const struct session *session, const char *name);

#endif
