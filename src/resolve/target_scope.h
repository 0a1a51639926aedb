/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The variables the kernel's DWARF has at a probe (target_scope.c). */
#ifndef TAPSTER_TARGET_SCOPE_H
#define TAPSTER_TARGET_SCOPE_H

#include <stdbool.h>
#include <stddef.h>

#include "resolve/program.h"
#include "target/dwtypes.h"
#include "target/ktypes.h"

/* The DIE of the probed function `proto`, its probe pc and the variables visible there
 * (malloc'd, their count returned; 0 without DWARF). */
size_t target_dwarf_scope(const struct ktypes *kt, ktype_id proto, Dwarf_Die *fn,
			 Dwarf_Addr *pc, struct dwvar **vars);
/* Whether the DWARF location of the parameter `name` of the function `function` (of `kt`) at
 * its probe pc is relative to the frame base (-O0 code), where tapster reads the parameter
 * by the calling convention: stap's read of it has a frame base local (-p2's _fb_N). */
bool target_param_uses_frame_base(const struct ktypes *kt, const char *function,
				  const char *name);
/* Whether `d` is a DWARF point inside a function (a statement, an inlined instance): its
 * variables, parameters too, come from their locations at its pc. */
bool target_in_function_body(const struct ktypes *kt, const struct derived_point *d);
/* The variables visible at the point `d`: `scope` is the function or inlined instance that
 * holds it, `frame` the out-of-line function whose frame base applies. */
size_t target_point_vars(struct dwtypes *dt, const struct derived_point *d, Dwarf_Die *scope,
			 Dwarf_Die *frame, struct dwvar **vars);
/* Whether the local `v` has a location at `pc` that tapster can read. */
bool target_local_readable(const struct ktypes *kt, Dwarf_Die *fn, struct dwvar *v,
			   Dwarf_Addr pc);

#endif
