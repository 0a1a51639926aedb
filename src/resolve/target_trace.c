// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * $target expressions in kernel.trace probes: `$child->pid` names the tracepoint's argument
 * `child` (the handler keeps the arguments in the context: tap_arg() reads them there);
 * $$parms and $$vars list them all, $$name is the tracepoint's name.
 */
#include <stdlib.h>
#include <string.h>

#include "cstr.h"
#include "diag.h"
#include "resolve/target_vars.h"
#include "target/tracepoints.h"
#include "util.h"

bool on_tracepoints(const struct derived_probe *p)
{
	if (!p || !p->points)
		return false;
	for (const struct derived_point *d = p->points; d; d = d->next)
		if (d->kind != PROVIDER_TRACEPOINT)
			return false;
	return true;
}

const struct tracepoint *point_tracepoint(const struct provider_env *env,
					  const struct derived_point *d)
{
	const struct tracepoints *t = env && env->tracepoints ? env->tracepoints(env->ctx) : NULL;

	if (t && *d->module)
		return tracepoints_find_module(t, d->module, d->function);
	return t ? tracepoints_find(t, d->function) : NULL;
}

static int arg_index(const struct tracepoint *tp, const char *name)
{
	for (int i = 0; i < tp->nargs; i++)
		if (!strcmp(tp->arg_names[i], name))
			return i;
	return -1;
}

/* stap's error for a name the tracepoint does not have, with the names it has. */
static bool no_such_arg(const struct tracepoint *tp, struct node *n, bool quiet)
{
	struct token_desc tok = { "identifier", n->text };
	struct strbuf names = { 0 };

	if (quiet)
		return false;
	/* stap lists them last first. */
	for (int i = tp->nargs - 1; i >= 0; i--)
		sb_addf(&names, "$%s, ", tp->arg_names[i]);
	sb_add(&names, "$$name, $$vars, $$parms");
	diag_error_at("semantic error", &tok, n->loc,
		      "unable to find tracepoint variable '%s' (alternatives: %s)", n->text,
		      names.buf);
	/* stap goes on to type the expression and reports it twice more as untyped. */
	for (int i = 0; i < 2; i++)
		diag_error_at("semantic error", &tok, n->loc, "unresolved type ");
	free(names.buf);
	return false;
}

/* The argument `name` of one tracepoint, read from its place in the handler's arguments;
 * NULL after stap's error (unless `quiet`). */
static struct target_access *arg_access(const struct tracepoint *tp, struct node *n, bool quiet)
{
	int index = arg_index(tp, n->text + 1);
	ktype_id type;
	struct target_access *a;

	if (index < 0) {
		no_such_arg(tp, n, quiet);
		return NULL;
	}
	if (!tp->kt)
		return NULL;
	type = tp->arg_types[index];
	a = xcalloc(1, sizeof(*a));
	a->base = BASE_PARAM;
	a->param = index;
	a->base_size = ktypes_size(tp->kt, ktypes_strip(tp->kt, type));
	a->base_signed = ktypes_is_signed(tp->kt, ktypes_strip(tp->kt, type));
	if (!target_walk(tp->kt, n, quiet, a, type)) {
		free(a->steps);
		free(a);
		return NULL;
	}
	a->location = location_literal(n);
	return a;
}

static bool same_place(const struct target_access *a, const struct target_access *b)
{
	return a->param == b->param && a->type == b->type && a->types == b->types;
}

/*
 * The argument `name` of each tracepoint of `p`. Where it is in the same place with the
 * same type in all (types of the same kernel or module), one access; else one per point,
 * chosen by the point that fired (net_dev_start_xmit's and net_dev_xmit's $skb).
 */
bool trace_target_resolve(const struct provider_env *env, struct derived_probe *p,
			  struct node *n, bool quiet)
{
	struct target_access **all = NULL, *first;
	int nall = 0;
	bool differ = false;

	for (const struct derived_point *d = p->points; d; d = d->next) {
		const struct tracepoint *tp = point_tracepoint(env, d);
		struct target_access *a = tp ? arg_access(tp, n, quiet) : NULL;

		if (!a) {
			target_free_accesses(all, nall, -1);
			return false;
		}
		all = xrealloc(all, (size_t)(nall + 1) * sizeof(*all));
		all[nall++] = a;
		differ |= !same_place(all[0], a);
	}
	if (!nall)
		return false;
	first = all[0];
	if (differ)
		first = target_accesses_per_point(all, nall, n);
	else
		target_free_accesses(all, nall, 0);
	n->sym = first;
	n->type = TYPE_LONG;
	return true;
}

static struct node *arg_node(const char *name, struct loc loc)
{
	struct node *t = node_new(N_TARGET, loc);

	t->text = xasprintf("$%s", name);
	return t;
}

static void make_string(struct node *n, const char *text)
{
	n->kind = N_STRING;
	free(n->text);
	n->text = xstrdup(text);
	n->raw = xstrdup(text);
}

/* $$parms: sprintf("parent=%#x child=%#x", $parent, $child). */
static void expand_parms(struct node *n, const struct tracepoint *tp)
{
	struct strbuf format = { 0 };

	if (!tp->nargs) {
		make_string(n, "");
		return;
	}
	n->kind = N_PRINT;
	free(n->text);
	n->text = xstrdup("sprintf");
	for (int i = 0; i < tp->nargs; i++)
		sb_addf(&format, "%s%s=%%#x", i ? " " : "", tp->arg_names[i]);
	node_list_push(&n->args, node_string(format.buf, n->loc));
	for (int i = 0; i < tp->nargs; i++)
		node_list_push(&n->args, arg_node(tp->arg_names[i], n->loc));
	free(format.buf);
}

static bool same_arg_names(const struct tracepoint *a, const struct tracepoint *b)
{
	if (a->nargs != b->nargs)
		return false;
	for (int i = 0; i < a->nargs; i++)
		if (strcmp(a->arg_names[i], b->arg_names[i]))
			return false;
	return true;
}

bool trace_expand_vars(const struct provider_env *env, struct derived_probe *p, struct node *n)
{
	const struct tracepoint *tp = point_tracepoint(env, p->points);
	struct token_desc tok = { "identifier", n->text };

	if (!tp)
		return false;
	if (n->suffix) {
		diag_error_at("semantic error", &tok, n->loc,
			      "tapster cannot pretty-print %s%s yet", n->text, n->suffix);
		return false;
	}
	for (const struct derived_point *d = p->points->next; d; d = d->next) {
		const struct tracepoint *other = point_tracepoint(env, d);

		if (!other || (strcmp(n->text, "$$name") ? !same_arg_names(tp, other) :
							   strcmp(d->function, tp->name))) {
			diag_error_at("semantic error", &tok, n->loc,
				      "tapster cannot expand %s over tracepoints where it differs"
				      " (%s and %s) yet", n->text, tp->name, d->function);
			return false;
		}
	}
	if (!strcmp(n->text, "$$name"))
		make_string(n, tp->name);
	else if (!strcmp(n->text, "$$parms") || !strcmp(n->text, "$$vars"))
		expand_parms(n, tp);
	else if (!strcmp(n->text, "$$locals") || !strcmp(n->text, "$$return"))
		make_string(n, "");
	else
		return no_such_arg(tp, n, false);
	return true;
}

char *trace_list_args(const struct provider_env *env, const struct derived_point *d)
{
	const struct tracepoint *tp = point_tracepoint(env, d);
	struct strbuf sb = { 0 };

	sb_add(&sb, "");
	for (int i = 0; tp && i < tp->nargs; i++) {
		char *type = ktypes_name(tp->kt, tp->arg_types[i]);

		sb_addf(&sb, " $%s:%s", tp->arg_names[i], type);
		free(type);
	}
	return sb_steal(&sb);
}
