// SPDX-License-Identifier: GPL-2.0-or-later
/* -L's target variables of a point, as stap lists them (" $file:struct file*" ...). */
#define _GNU_SOURCE
#include "resolve/target_vars.h"

#include <stdlib.h>

#include "resolve/target_scope.h"
#include "util.h"

/* "char const[17] const" -> "char const[] const", as stap's -L names arrays. */
static void drop_array_lengths(char *type)
{
	char *out = type;

	for (const char *in = type; *in; in++) {
		*out++ = *in;
		if (*in == '[')
			while (in[1] >= '0' && in[1] <= '9')
				in++;
	}
	*out = '\0';
}

/* -L's locals: those with a location at the probe, as stap lists them. */
static void list_dwarf_locals(const struct ktypes *kt, ktype_id proto, struct strbuf *sb)
{
	Dwarf_Die fn;
	Dwarf_Addr pc = 0;
	struct dwvar *vars;
	size_t count = target_dwarf_scope(kt, proto, &fn, &pc, &vars);

	for (size_t i = 0; i < count; i++) {
		char *type;

		if (vars[i].is_param || !target_local_readable(kt, &fn, &vars[i], pc))
			continue;
		type = ktypes_name(kt, dwtypes_var_type(&vars[i].die));
		drop_array_lengths(type);
		sb_addf(sb, " $%s:%s", vars[i].name, type);
		free(type);
	}
	free(vars);
}

char *target_list_point_vars(const struct ktypes *kt, const struct derived_point *d)
{
	struct dwtypes *dt = ktypes_dwarf(kt);
	Dwarf_Die scope, frame;
	struct dwvar *vars;
	size_t count;
	struct strbuf sb = { 0 };

	if (!target_in_function_body(kt, d))
		return NULL;
	count = target_point_vars(dt, d, &scope, &frame, &vars);
	sb_add(&sb, "");
	for (size_t i = 0; i < count; i++) {
		struct dwexpr *expr;
		char *detail, *type;
		enum dwloc loc = dwtypes_var_location(dt, &frame, &vars[i].die, d->pc, &expr,
						      &detail);

		dwexpr_free(expr);
		free(detail);
		/* stap lists what has a location there, even one it can't translate. */
		if (loc == DWLOC_NONE)
			continue;
		type = ktypes_name(kt, dwtypes_var_type(&vars[i].die));
		drop_array_lengths(type);
		sb_addf(&sb, " $%s:%s", vars[i].name, type);
		free(type);
	}
	free(vars);
	return sb_steal(&sb);
}

char *target_list_params(const struct ktypes *kt, const char *function, bool is_return)
{
	ktype_id proto = ktypes_function(kt, function);
	struct strbuf sb = { 0 };

	if (!proto)
		return NULL;
	sb_add(&sb, "");
	if (is_return && ktypes_return_type(kt, proto)) {
		char *type = ktypes_name(kt, ktypes_return_type(kt, proto));

		sb_addf(&sb, " $return:%s", type);
		free(type);
	}
	for (int i = 0; i < ktypes_nparams(kt, proto); i++) {
		char *type = ktypes_name(kt, ktypes_param_type(kt, proto, i));

		sb_addf(&sb, " $%s:%s", ktypes_param_name(kt, proto, i), type);
		free(type);
	}
	if (ktypes_dwarf(kt))
		list_dwarf_locals(kt, proto, &sb);
	return sb_steal(&sb);
}
