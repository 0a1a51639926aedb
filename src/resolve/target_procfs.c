// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * $value in procfs probes (src/providers/procfs.c): in a read probe `$value = s` and
 * `$value .= s` set and append to what the reader gets, in a write probe `$value` is what
 * was written. Each becomes a call of the library's __procfs_value_set, _append or _get
 * (tapsets/procfs.stp, runtime/procfs.h), which pass 2 then resolves as any call. The
 * misuses get stap's errors.
 */
#include "resolve/target_vars.h"

#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "util.h"

bool on_procfs(const struct derived_probe *p)
{
	if (!p || !p->points)
		return false;
	for (const struct derived_point *d = p->points; d; d = d->next)
		if (d->kind != PROVIDER_PROCFS_READ && d->kind != PROVIDER_PROCFS_WRITE)
			return false;
	return true;
}

static bool has_point(const struct derived_probe *p, enum provider_kind kind)
{
	for (const struct derived_point *d = p->points; d; d = d->next)
		if (d->kind == kind)
			return true;
	return false;
}

/* $value itself, without components, suffix or '&'; false after an error. */
static bool plain_value(struct node *n, bool quiet)
{
	if (strcmp(n->text, "$value"))
		return target_refuse(n, quiet, false,
				     "invalid target symbol for procfs probe, $value expected");
	if (n->comps) {
		bool field = n->comps->kind == COMP_FIELD;
		struct token_desc tok = { "operator", field ? "->" : "[" };

		if (quiet)
			return false;
		if (field)
			diag_error_at("semantic error", &tok, n->comps->loc,
				      "procfs variable '$value' may not be used as a structure");
		else
			diag_error_at("semantic error", &tok, n->comps->loc,
				      "procfs variable '$value' may not be used as array");
		return false;
	}
	if (n->suffix)
		return target_refuse(n, quiet, true,
				     "procfs variable '$value' may not be pretty-printed");
	if (n->address_of)
		return target_refuse(n, quiet, true, "cannot take address of procfs variable");
	return true;
}

bool procfs_value_read(struct derived_probe *p, struct node *n, bool quiet)
{
	if (!plain_value(n, quiet))
		return false;
	if (has_point(p, PROVIDER_PROCFS_READ))
		return target_refuse(n, quiet, true,
				     "procfs $value variable cannot be read in a procfs read probe");
	target_become_call(n, "$value", "__procfs_value_get", NULL);
	return true;
}

bool procfs_value_assign(struct derived_probe *p, struct node *n)
{
	struct node *target = n->lhs;
	bool append = n->kind == N_ASSIGN && n->op == OP_ASSIGN_BASE + '.';

	if (!plain_value(target, false))
		return false;
	if (has_point(p, PROVIDER_PROCFS_WRITE))
		return target_refuse(target, false, false,
				     "procfs $value variable is read-only in a procfs write probe");
	if (n->kind != N_ASSIGN || (n->op != '=' && !append))
		return target_refuse(target, false, false,
				     "Only the following assign operators are implemented on procfs read"
			      " target variables: '=', '.='");
	target_become_call(n, "$value", append ? "__procfs_value_append" : "__procfs_value_set",
			   n->rhs);
	n->loc = target->loc;
	return true;
}
