// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 2 of pretty-printed target variables: `$x$`, `$x$$`, `@cast(...)$`, and $$parms,
 * $$locals, $$vars, $$return (each with an optional $ or $$), rewritten into one sprintf of
 * the values read as ordinary $target expressions, which target_vars.c then resolves.
 */
#define _GNU_SOURCE
#include "resolve/target_vars.h"

#include <stdlib.h>
#include <string.h>

#include "parse/ast_copy.h"
#include "cstr.h"
#include "target/dwtypes.h"
#include "resolve/target_scope.h"
#include "util.h"

static struct node *target_node(const char *name, struct loc loc)
{
	struct node *t = node_new(N_TARGET, loc);

	t->text = xasprintf("$%s", name);
	return t;
}

/*
 * Pretty printing ($x$, $x$$, $$parms$ ...), as stap 4.8 prints (checked in the VM): a
 * struct "{.a=1, .b=0xffff..., <union>={...}, .c={...}}" (one level with $, every level with
 * $$), integers and enums in decimal, chars as '%#c', char arrays and char pointers as a
 * quoted string, other pointers as %#x, arrays of other types "[...]". A pointer to a struct
 * at the top is followed; a pointer to an integer at the top is its value in decimal. It all
 * becomes one sprintf of the fields read as $target expressions; stap's string limit cuts it
 * (MAXSTRINGLEN - 1), so fields are only added while the text is shorter than that.
 */
/* stap's MAXSTRINGLEN: a pretty-printed value is cut to one less. */
#define PRETTY_STRING_MAX 512

struct pretty {
	const struct ktypes *kt;
	struct strbuf format;
	struct node_list args;
	struct loc loc;
};

/* A copy of the $target `base` with `field` (NULL: none) appended to its components. */
static struct node *field_node(const struct node *base, const char *field)
{
	struct node *copy = node_copy(base);
	struct target_comp **tail = &copy->comps;

	free(copy->suffix);
	copy->suffix = NULL;
	while (*tail)
		tail = &(*tail)->next;
	if (field) {
		*tail = xcalloc(1, sizeof(**tail));
		(*tail)->kind = COMP_FIELD;
		(*tail)->field = xstrdup(field);
		(*tail)->loc = base->loc;
	}
	return copy;
}

/* `n` as the base of a pretty-printed value: not a target read of its own for -p2
 * (synth_functions.c), its copies neither; $x$'s values are marked as its reads after. */
static struct node *pretty_field(struct node *n)
{
	n->synth_seq = -1;
	return n;
}

static bool is_char(const struct ktypes *kt, ktype_id id)
{
	ktype_id s = ktypes_strip(kt, id);
	char *name;
	bool result;

	if (ktypes_kind(kt, s) != KT_INT || ktypes_size(kt, s) != 1)
		return false;
	name = ktypes_name(kt, s);
	result = strstr(name, "char") != NULL;
	free(name);
	return result;
}

static void pretty_arg(struct pretty *pp, const char *conversion, struct node *arg)
{
	sb_add(&pp->format, conversion);
	node_list_push(&pp->args, arg);
}

static void pretty_string_at(struct pretty *pp, struct node *address)
{
	struct node *call = node_new(N_CALL, pp->loc);

	call->text = xstrdup("__tap_pretty_string");
	node_list_push(&call->args, address);
	pretty_arg(pp, "%s", call);
}

static void pretty_value(struct pretty *pp, struct node *value, ktype_id type, int depth,
			 bool top);

/* `value` stays the caller's. */
static void pretty_members(struct pretty *pp, const struct node *value, ktype_id type, int depth)
{
	int count = ktypes_nmembers(pp->kt, type);

	sb_addc(&pp->format, '{');
	for (int i = 0; i < count && pp->format.len < PRETTY_STRING_MAX; i++) {
		struct kmember m;
		enum ktype_kind kind;

		ktypes_member_at(pp->kt, type, i, &m);
		if (i)
			sb_add(&pp->format, ", ");
		if (*m.name) {
			sb_addf(&pp->format, ".%s=", m.name);
			pretty_value(pp, field_node(value, m.name), m.type, depth - 1, false);
			continue;
		}
		/* An anonymous member: its fields are reached by name through the outer. */
		kind = ktypes_kind(pp->kt, ktypes_strip(pp->kt, m.type));
		sb_add(&pp->format, kind == KT_UNION ? "<union>=" : "<class>=");
		if (depth > 1)
			pretty_members(pp, value, ktypes_strip(pp->kt, m.type), depth - 1);
		else
			sb_add(&pp->format, "{...}");
	}
	sb_addc(&pp->format, '}');
}

static void pretty_value(struct pretty *pp, struct node *value, ktype_id type, int depth,
			 bool top)
{
	ktype_id s = ktypes_strip(pp->kt, type);
	enum ktype_kind kind = ktypes_kind(pp->kt, s);
	ktype_id target = ktypes_strip(pp->kt, ktypes_target(pp->kt, s));
	enum ktype_kind target_kind = ktypes_kind(pp->kt, target);

	if (kind == KT_STRUCT || kind == KT_UNION) {
		if (depth > 0)
			pretty_members(pp, value, s, depth);
		else
			sb_add(&pp->format, "{...}");
		node_free(value);
	} else if (kind == KT_PTR && top && (target_kind == KT_STRUCT || target_kind == KT_UNION)) {
		pretty_members(pp, value, target, depth);
		node_free(value);
	} else if ((kind == KT_PTR || (kind == KT_ARRAY && depth > 0)) &&
		   is_char(pp->kt, target)) {
		/* A char array past the depth is "[...]" like any array; a pointer isn't. */
		pretty_string_at(pp, value);
	} else if (kind == KT_ARRAY && depth > 0) {
		/* stap shows the first element only: "[33, ...]". */
		struct node *first = field_node(value, NULL);
		struct target_comp **tail = &first->comps;

		while (*tail)
			tail = &(*tail)->next;
		*tail = xcalloc(1, sizeof(**tail));
		(*tail)->kind = COMP_INDEX_NUM;
		(*tail)->loc = value->loc;
		sb_addc(&pp->format, '[');
		pretty_value(pp, first, ktypes_target(pp->kt, s), depth - 1, false);
		sb_add(&pp->format, ktypes_array_len(pp->kt, s) > 1 ? ", ...]" : "]");
		node_free(value);
	} else if (kind == KT_ARRAY) {
		sb_add(&pp->format, "[...]");
		node_free(value);
	} else if (kind == KT_PTR) {
		pretty_arg(pp, top && target_kind == KT_INT ? "%d" : "%#x", value);
	} else if (is_char(pp->kt, s)) {
		pretty_arg(pp, "'%#c'", value);
	} else if (kind == KT_INT || kind == KT_ENUM) {
		pretty_arg(pp, !ktypes_is_signed(pp->kt, s) && ktypes_size(pp->kt, s) == 8 ?
			   "%u" : "%d", value);
	} else {
		sb_add(&pp->format, "?");
		node_free(value);
	}
}

/* `n` becomes sprintf(format, values...), or the string "" when there are no values. */
static void become_sprintf(struct node *n, struct pretty *pp)
{
	n->kind = pp->args.len ? N_PRINT : N_STRING;
	free(n->text);
	free(n->suffix);
	n->suffix = NULL;
	n->comps = NULL;
	n->lhs = NULL;
	if (pp->args.len) {
		n->text = xstrdup("sprintf");
		node_list_push(&n->args, node_string(pp->format.buf, n->loc));
		for (int i = 0; i < pp->args.len; i++)
			node_list_push(&n->args, pp->args.items[i]);
		free(pp->args.items);
	} else {
		/* No values: the text is all there is (it holds no '%'). */
		n->text = xstrdup(pp->format.buf ? pp->format.buf : "");
		n->raw = xstrdup(n->text);
	}
	free(pp->format.buf);
}

/* The target reads of `n`, not listed by -p2 (synth_functions.c). */
static void unlisted(struct node *n)
{
	if (!n)
		return;
	if (n->kind == N_TARGET || n->kind == N_ATVAR || n->kind == N_CAST)
		n->synth_seq = -1;
	unlisted(n->lhs);
	unlisted(n->rhs);
	for (int i = 0; i < n->args.len; i++)
		unlisted(n->args.items[i]);
}

/* stap makes a function of a pretty-printed $x$ and one of each value it reads
 * (synth_functions.c): `n`, the sprintf, and its values are marked so. An @cast(p)$
 * evaluates p once: the copies of p in its values but the first are not listed. */
static void mark_pretty_reads(struct node *n, bool *operand_seen)
{
	if (n->kind == N_TARGET || n->kind == N_CAST) {
		n->synth_pretty = 2;
		n->synth_seq = 0;
		if (n->kind == N_CAST && *operand_seen)
			unlisted(n->lhs);
		*operand_seen = true;
		return;
	}
	for (int i = 0; i < n->args.len; i++)
		mark_pretty_reads(n->args.items[i], operand_seen);
}

/* `n` becomes the sprintf of the pretty-printed `value` (of `type`, taken), or the string
 * when it reads nothing. stap makes a function of it and of each value it reads
 * (synth_functions.c): marked so. */
static void become_pretty(struct node *n, const struct ktypes *kt, struct node *value,
			  ktype_id type, int depth)
{
	struct pretty pp = { .kt = kt, .loc = n->loc };

	sb_add(&pp.format, "");
	pretty_value(&pp, pretty_field(value), type, depth, true);
	become_sprintf(n, &pp);
	if (n->kind == N_PRINT) {
		bool operand_seen = false;

		for (int i = 1; i < n->args.len; i++)
			mark_pretty_reads(n->args.items[i], &operand_seen);
		n->synth_pretty = 1;
	}
}

bool target_expand_pretty(const struct provider_env *env, struct derived_probe *p,
			  struct node *n)
{
	const struct ktypes *kt;
	ktype_id type;

	if (n->kind == N_TARGET && (!target_probe_on_functions(p) || !env || !env->types))
		return target_unresolved(n, false);
	if (n->kind == N_CAST) {
		type = target_cast_type(env, p, n, &kt);
	} else {
		kt = target_point_types(env, p->points, n, false);
		type = kt ? target_type_of(kt, p, n) : 0;
	}
	if (!type)
		return false;
	become_pretty(n, kt, field_node(n, NULL), type, !strcmp(n->suffix, "$$") ? 32 : 1);
	return true;
}

/* A pretty-printed variable of $$parms$, $$locals$, $$vars$ or $$return$ (`sub`, a string:
 * "?" where it is not available) in `pp`: stap makes a function of each as of a $x$, so it
 * is a sprintf of its own (and "?" a function too). */
static void pretty_sub(struct pretty *pp, struct node *sub)
{
	if (sub->kind == N_STRING && !sub->synth_pretty) {
		sb_add(&pp->format, sub->text);
		node_free(sub);
	} else {
		pretty_arg(pp, "%s", sub);
	}
}

/* The value of $NAME (of `type`) in $$parms/$$locals/$$vars: with `depth` ($$vars$) the value
 * itself, else a struct or union "{...}", an array "[...]" (stap's forms), the rest %#x. */
static void pretty_named(struct pretty *pp, const char *name, ktype_id type, struct loc loc,
			 int depth)
{
	enum ktype_kind kind = ktypes_kind(pp->kt, ktypes_strip(pp->kt, type));

	if (depth) {
		struct node *sub = node_new(N_STRING, loc);

		become_pretty(sub, pp->kt, target_node(name, loc), type, depth);
		pretty_sub(pp, sub);
	} else if (kind == KT_STRUCT || kind == KT_UNION)
		sb_add(&pp->format, "{...}");
	else if (kind == KT_ARRAY)
		sb_add(&pp->format, "[...]");
	else
		pretty_arg(pp, "%#x", target_node(name, loc));
}

/* One "name=value" of $$locals/$$vars from DWARF: "name=?" where the variable has no
 * location at `pc`, a struct or union "{...}" and an array "[...]" (stap's forms), the
 * value itself with `depth` ($$vars$). */
static void pretty_dwarf_var(struct pretty *pp, Dwarf_Die *fn, struct dwvar *v, Dwarf_Addr pc,
			     struct node *n, bool after, int depth)
{
	ktype_id type = dwtypes_var_type(&v->die);

	sb_addf(&pp->format, "%s%s=", after ? " " : "", v->name);
	if (!target_local_readable(pp->kt, fn, v, pc) && depth) {
		struct node *sub = node_string("?", n->loc);

		sub->synth_pretty = 1;
		pretty_sub(pp, sub);
	} else if (!target_local_readable(pp->kt, fn, v, pc))
		sb_add(&pp->format, "?");
	else
		pretty_named(pp, v->name, type, n->loc, depth);
}

/* $$locals' part: "name=0x..." for each local visible at the probe, "name=?" where it has
 * no location there, a struct or union "{...}" and an array "[...]" (stap's forms). */
static void add_dwarf_locals(struct pretty *pp, ktype_id proto, struct node *n, bool after,
			     int depth)
{
	Dwarf_Die fn;
	Dwarf_Addr pc = 0;
	struct dwvar *vars;
	size_t count = target_dwarf_scope(pp->kt, proto, &fn, &pc, &vars);

	for (size_t i = 0; i < count; i++) {
		if (vars[i].is_param)
			continue;
		pretty_dwarf_var(pp, &fn, &vars[i], pc, n, after, depth);
		after = true;
	}
	free(vars);
}

/* $$vars, $$parms, $$locals at a point inside a function: what is visible at its pc, each
 * "name=?" where it has no location there. */
static bool expand_point_vars(struct pretty *pp, const struct derived_point *d, struct node *n,
			      bool want_params, bool want_locals, int depth)
{
	struct dwtypes *dt = ktypes_dwarf(pp->kt);
	Dwarf_Die scope, frame;
	struct dwvar *vars;
	size_t count = target_point_vars(dt, d, &scope, &frame, &vars);
	bool after = false;

	for (size_t i = 0; i < count; i++) {
		if (vars[i].is_param ? !want_params : !want_locals)
			continue;
		pretty_dwarf_var(pp, &frame, &vars[i], d->pc, n, after, depth);
		after = true;
	}
	free(vars);
	return true;
}

bool target_expand_vars(const struct provider_env *env, struct derived_probe *p,
			struct node *n)
{
	const struct ktypes *kt;
	struct pretty pp = { 0 };
	bool want_return = !strcmp(n->text, "$$return");
	bool want_params = !strcmp(n->text, "$$parms") || !strcmp(n->text, "$$vars");
	bool want_locals = !strcmp(n->text, "$$locals") || !strcmp(n->text, "$$vars");
	int depth = !n->suffix ? 0 : !strcmp(n->suffix, "$$") ? 32 : 1;

	if (on_tracepoints(p))
		return trace_expand_vars(env, p, n);
	if (on_marks(p))
		return mark_expand_vars(p, n);
	if (on_plt(p))
		return plt_expand_vars(p, n);
	if (!target_probe_on_functions(p) || !env || !env->types)
		return target_unresolved(n, false);
	kt = target_point_types(env, p->points, n, false);
	if (!kt)
		return false;
	/* stap looks "$return" up as a local (of the point inside a function), and fails. */
	if (want_return && (target_in_function_body(kt, p->points) || !p->is_return))
		return target_no_return_local(kt, p, n);
	if (target_in_function_body(kt, p->points)) {
		pp.kt = kt;
		pp.loc = n->loc;
		sb_add(&pp.format, "");
		expand_point_vars(&pp, p->points, n, want_params, want_locals, depth);
		become_sprintf(n, &pp);
		return true;
	}
	ktype_id proto = ktypes_function(kt, p->points->function);

	pp.kt = kt;
	pp.loc = n->loc;
	sb_add(&pp.format, "");
	/* BTF knows no locals: $$locals is "", $$vars is $$parms. */
	for (int i = 0; want_params && i < ktypes_nparams(kt, proto); i++) {
		const char *name = ktypes_param_name(kt, proto, i);

		sb_addf(&pp.format, "%s%s=", i ? " " : "", name);
		pretty_named(&pp, name, ktypes_param_type(kt, proto, i), n->loc, depth);
	}
	if (want_locals && ktypes_dwarf(kt))
		add_dwarf_locals(&pp, proto, n, want_params && ktypes_nparams(kt, proto), depth);
	if (want_return && p->is_return && ktypes_return_type(kt, proto)) {
		sb_add(&pp.format, "return=");
		pretty_named(&pp, "return", ktypes_return_type(kt, proto), n->loc, depth);
	}
	become_sprintf(n, &pp);
	return true;
}
