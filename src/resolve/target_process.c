// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * $target expressions in process.syscall and process.syscall.return probes (the task
 * finder's points, providers/process_events.c): $syscall, $arg1..$arg6 (entry only) and
 * $return (return only). The handler keeps the call's words in the context: the number,
 * the six arguments, the return value, read as a tracepoint's arguments are (tap_arg()).
 * The other points of the family have no target symbols.
 */
#include <stdlib.h>
#include <string.h>

#include "cstr.h"
#include "diag.h"
#include "resolve/target_vars.h"
#include "util.h"

bool on_process_events(const struct derived_probe *p)
{
	if (!p)
		return false;
	for (const struct derived_point *d = p->points; d; d = d->next)
		if (d->kind == PROVIDER_PROCESS_EVENT)
			return true;
	return false;
}

/* Whether every point is a process syscall point, of the return or of the entry. */
static bool all_syscall_points(const struct derived_probe *p, bool *entry, bool *ret)
{
	*entry = *ret = false;
	for (const struct derived_point *d = p->points; d; d = d->next) {
		if (d->kind != PROVIDER_PROCESS_EVENT || strncmp(d->function, "syscall", 7))
			return false;
		if (!strcmp(d->function, "syscall"))
			*entry = true;
		else
			*ret = true;
	}
	return true;
}

static bool refuse(struct node *n, bool quiet, const char *reason)
{
	struct token_desc tok = { "identifier", n->text };

	if (!quiet)
		diag_error_at("semantic error", &tok, n->loc, "%s", reason);
	return false;
}

/* $argN's N, or -1 past 1..6 (0 for a name that is no $argN). */
static int arg_number(const char *name)
{
	char *end;
	long n;

	if (strncmp(name, "$arg", 4) || !name[4])
		return 0;
	n = strtol(name + 4, &end, 10);
	return *end ? 0 : n >= 1 && n <= 6 ? (int)n : -1;
}

bool process_target_resolve(struct derived_probe *p, struct node *n, bool quiet)
{
	struct target_access *a;
	bool entry, ret;
	int word, argn = arg_number(n->text);

	if (!all_syscall_points(p, &entry, &ret))
		return refuse(n, quiet, "only \"process(PATH_OR_PID).syscall\" and"
			      " \"process(PATH_OR_PID).syscall.return\" probes support target"
			      " symbols");
	if (argn < 0)
		return refuse(n, quiet, "invalid syscall argument number (1-6)");
	if (argn > 0 && ret)
		return refuse(n, quiet, "only \"process(PATH_OR_PID).syscall\" support $argN or"
			      " $$parms.");
	if (!strcmp(n->text, "$return") && entry)
		return refuse(n, quiet, "only \"process(PATH_OR_PID).syscall.return\" support"
			      " $return.");
	if (argn > 0)
		word = argn;
	else if (!strcmp(n->text, "$syscall"))
		word = 0;
	else if (!strcmp(n->text, "$return"))
		word = 7;
	else
		return refuse(n, quiet, "invalid target symbol for utrace probe, $syscall, $return,"
			      " $argN or $$parms expected");
	if (n->comps || n->address_of)
		return refuse(n, quiet, "tapster cannot dereference a system call's word yet");
	a = xcalloc(1, sizeof(*a));
	a->base = BASE_PARAM;
	a->param = word;
	a->base_size = 8;
	a->base_signed = true;
	a->location = location_literal(n);
	n->sym = a;
	n->type = TYPE_LONG;
	return true;
}
