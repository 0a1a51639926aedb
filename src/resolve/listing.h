/* SPDX-License-Identifier: GPL-2.0-or-later */
/* -l/-L: what pass 2 lists in place of the program (listing.c). */
#ifndef TAPSTER_LISTING_H
#define TAPSTER_LISTING_H

#include <stdbool.h>

struct file;
struct provider_env;

/* Elaborates the script "probe PATTERN {}" (`user`) against the whole library, with its
 * messages silenced, and prints the probe points it derives, sorted, once each; with
 * `with_vars` (-L), each with its variables and their types. Returns 1, printing nothing,
 * when it does not elaborate (no point matches: stap says nothing either), else 0. */
int list_probe_points(struct file *user, struct file *library,
		      const struct provider_env *env, bool with_vars);

/* --dump-probe-aliases: every public alias of the library (named without a leading '_'),
 * one line "NAME = POINT, POINT" each ("+=" for an epilogue alias), sorted, once each. */
int dump_probe_aliases(const struct file *library);

/* --dump-functions: every public function of the library (named without a leading '_'),
 * "NAME:TYPE (PARAM:TYPE, ...)" with the types inferred from the bodies ("unknown" where
 * none is), in the order of their names in the generated C (as stap). */
int dump_functions(struct file *library, const struct provider_env *env);

#endif
