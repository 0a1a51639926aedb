// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the kernel's DWARF says is visible at a probe: the probed function's variables at its
 * probe pc, or a statement's or inlined instance's at its own pc. Shared by the resolution
 * of $target expressions (target_vars.c) and -L's listing of them (target_list.c).
 */
#include "resolve/target_scope.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

/* The probed function's DIE, its probe pc and the variables visible there. */
size_t target_dwarf_scope(const struct ktypes *kt, ktype_id proto, Dwarf_Die *fn,
			 Dwarf_Addr *pc, struct dwvar **vars)
{
	struct dwtypes *dt = ktypes_dwarf(kt);

	*vars = NULL;
	if (!dt || !dwtypes_die(dt, proto, fn))
		return 0;
	*pc = dwtypes_probe_pc(dt, fn);
	return dwtypes_scope_vars(dt, fn, *pc, vars);
}

bool target_param_uses_frame_base(const struct ktypes *kt, const char *function,
				  const char *name)
{
	ktype_id proto = kt && ktypes_dwarf(kt) ? ktypes_function(kt, function) : 0;
	Dwarf_Die fn;
	Dwarf_Addr pc = 0;
	struct dwvar *vars;
	size_t count = proto ? target_dwarf_scope(kt, proto, &fn, &pc, &vars) : 0;
	bool uses = false;

	for (size_t i = 0; i < count; i++)
		if (vars[i].is_param && !strcmp(vars[i].name, name))
			uses = dwtypes_var_uses_frame_base(&vars[i].die, pc);
	if (proto)
		free(vars);
	return uses;
}

/* Whether `d` is a DWARF point inside a function (a statement, an inlined instance): its
 * variables, parameters too, come from their locations at its pc. */
bool target_in_function_body(const struct ktypes *kt, const struct derived_point *d)
{
	return d->mid_function && d->scope_die && !*d->module && ktypes_dwarf(kt);
}

/* The DIE of the function or inlined instance that holds the point `d` (`scope`) and of the
 * out-of-line function whose frame it runs in (`frame`: its frame base applies). */
static bool point_scope(struct dwtypes *dt, const struct derived_point *d, Dwarf_Die *scope,
			Dwarf_Die *frame)
{
	Dwarf_Die *scopes = NULL;
	int n;

	if (!dwarf_offdie(dwtypes_dwarf(dt), d->scope_die, scope))
		return false;
	*frame = *scope;
	if (dwarf_tag(scope) == DW_TAG_subprogram)
		return true;
	if ((n = dwarf_getscopes_die(scope, &scopes)) <= 0)
		return false;
	for (int i = n - 1; i >= 0; i--)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
			*frame = scopes[i];
			break;
		}
	free(scopes);
	return dwarf_tag(frame) == DW_TAG_subprogram;
}

/* The variables visible at the point `d`, with its scope and frame (see point_scope). */
size_t target_point_vars(struct dwtypes *dt, const struct derived_point *d, Dwarf_Die *scope,
			 Dwarf_Die *frame, struct dwvar **vars)
{
	*vars = NULL;
	if (!point_scope(dt, d, scope, frame))
		return 0;
	/* As stap: an inlined instance's own variables, not its blocks' (pc 0 is in none). */
	return dwtypes_scope_vars(dt, scope,
				  dwarf_tag(scope) == DW_TAG_inlined_subroutine ? 0 : d->pc, vars);
}

/* Whether the local `v` has a location at `pc` that tapster can read. */
bool target_local_readable(const struct ktypes *kt, Dwarf_Die *fn, struct dwvar *v,
			   Dwarf_Addr pc)
{
	struct dwexpr *expr;
	char *detail;
	enum dwloc loc = dwtypes_var_location(ktypes_dwarf(kt), fn, &v->die, pc, &expr, &detail);

	dwexpr_free(expr);
	free(detail);
	return loc == DWLOC_ADDRESS || loc == DWLOC_VALUE;
}
