// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 2 of $target expressions and @cast: from `$file->f_path.dentry->d_name.name` and
 * the probed function's BTF to a base (an argument, the return value, @cast's address) and
 * steps (add an offset, read a pointer, index), ending in a read of an integer, pointer,
 * enum or bitfield, or in an address (an array or struct, for kernel_string and @cast).
 */
#include "target_vars.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "tracepoints.h"
#include "translate.h"
#include "util.h"

/* Where a resolution is and how it reports. */
struct walk {
	const struct ktypes *kt;
	struct node *n;
	struct token_desc tok;
	bool quiet;
	struct target_access *a;
	ktype_id type;		/* of the value so far */
};

static bool fail(struct walk *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(struct walk *w, const char *fmt, ...)
{
	va_list ap;
	struct strbuf message = { 0 };

	if (w->quiet)
		return false;
	va_start(ap, fmt);
	sb_vaddf(&message, fmt, ap);
	va_end(ap);
	diag_error_at("semantic error", &w->tok, w->n->loc, "%s", message.buf);
	free(message.buf);
	return false;
}

static void add_step(struct target_access *a, int kind, int64_t offset, struct node *index,
		     uint32_t scale)
{
	if (kind == STEP_OFFSET && a->nsteps && a->steps[a->nsteps - 1].kind == STEP_OFFSET) {
		a->steps[a->nsteps - 1].offset += offset;
		return;
	}
	a->steps = xrealloc(a->steps, (size_t)(a->nsteps + 1) * sizeof(*a->steps));
	a->steps[a->nsteps++] = (struct target_step){ kind, offset, index, scale };
}

/* The names of a struct's members, " a b c", anonymous members' flattened. */
static void add_member_names(const struct ktypes *kt, ktype_id id, struct strbuf *sb,
			     int depth)
{
	int count = ktypes_nmembers(kt, id);

	for (int i = 0; i < count && depth < 8; i++) {
		struct kmember m;

		ktypes_member_at(kt, id, i, &m);
		if (*m.name)
			sb_addf(sb, " %s", m.name);
		else
			add_member_names(kt, m.type, sb, depth + 1);
	}
}

static bool is_composite(const struct ktypes *kt, ktype_id id)
{
	enum ktype_kind kind = ktypes_kind(kt, ktypes_strip(kt, id));

	return kind == KT_STRUCT || kind == KT_UNION;
}

static bool field_step(struct walk *w, const struct target_comp *comp)
{
	ktype_id s = ktypes_strip(w->kt, w->type);
	ktype_id outer;
	struct kmember m;

	if (ktypes_kind(w->kt, s) == KT_PTR && is_composite(w->kt, ktypes_target(w->kt, s))) {
		if (w->a->lvalue)
			add_step(w->a, STEP_LOAD, 0, NULL, 0);
		outer = ktypes_strip(w->kt, ktypes_target(w->kt, s));
	} else if (w->a->lvalue && is_composite(w->kt, s)) {
		outer = s;
	} else {
		char *name = ktypes_name(w->kt, w->type);
		bool ok = fail(w, "invalid access '->%s' vs '%s'", comp->field, name);

		free(name);
		return ok;
	}
	if (!ktypes_member(w->kt, outer, comp->field, &m)) {
		struct strbuf names = { 0 };
		char *type = ktypes_name(w->kt, outer);

		add_member_names(w->kt, outer, &names, 0);
		fail(w, "unable to find member '%s' for %s (alternatives:%s)", comp->field, type,
		     names.buf ? names.buf : "");
		free(type);
		free(names.buf);
		return false;
	}
	add_step(w->a, STEP_OFFSET, m.bit_offset / 8, NULL, 0);
	w->a->lvalue = true;
	w->a->bit_offset = m.bit_size ? m.bit_offset % 8 : 0;
	w->a->bit_size = m.bit_size;
	w->type = m.type;
	return true;
}

static bool index_step(struct walk *w, const struct target_comp *comp)
{
	ktype_id s = ktypes_strip(w->kt, w->type);
	enum ktype_kind kind = ktypes_kind(w->kt, s);
	ktype_id elem = ktypes_target(w->kt, s);
	uint32_t scale = ktypes_size(w->kt, elem);

	if (!(kind == KT_ARRAY && w->a->lvalue) && kind != KT_PTR) {
		char *name = ktypes_name(w->kt, w->type);
		bool ok = comp->kind == COMP_INDEX_NUM ?
			fail(w, "invalid access '[%" PRId64 "]' vs '%s'", comp->index, name) :
			fail(w, "invalid access '[...]' vs '%s'", name);

		free(name);
		return ok;
	}
	if (!scale)
		return fail(w, "cannot index a value of incomplete type");
	if (kind == KT_PTR && w->a->lvalue)
		add_step(w->a, STEP_LOAD, 0, NULL, 0);
	if (comp->kind == COMP_INDEX_NUM)
		add_step(w->a, STEP_OFFSET, comp->index * (int64_t)scale, NULL, 0);
	else
		add_step(w->a, STEP_INDEX, 0, comp->index_expr, scale);
	w->a->lvalue = true;
	w->a->bit_size = 0;
	w->type = elem;
	return true;
}

/* What the expression's value is once its components are followed. */
static bool finish(struct walk *w)
{
	ktype_id s = ktypes_strip(w->kt, w->type);
	enum ktype_kind kind = ktypes_kind(w->kt, s);
	struct target_access *a = w->a;

	a->type = w->type;
	a->size = ktypes_size(w->kt, s);
	a->is_signed = ktypes_is_signed(w->kt, s);
	if (kind == KT_INT || kind == KT_ENUM || kind == KT_PTR) {
		if (a->size > 8)
			return fail(w, "tapster cannot read a %u-byte integer yet", a->size);
		return true;
	}
	if ((kind == KT_ARRAY || kind == KT_STRUCT || kind == KT_UNION) && a->lvalue) {
		a->address_of = true;
		return true;
	}
	char *name = ktypes_name(w->kt, w->type);
	bool ok = kind == KT_STRUCT || kind == KT_UNION ?
		fail(w, "'%s' is being accessed instead of a member", name) :
		fail(w, "cannot use a value of type '%s' as a number", name);

	free(name);
	return ok;
}

static bool walk_comps(struct walk *w, const struct target_comp *comps)
{
	for (const struct target_comp *c = comps; c; c = c->next)
		if (!(c->kind == COMP_FIELD ? field_step(w, c) : index_step(w, c)))
			return false;
	return finish(w);
}

bool target_walk(const struct ktypes *kt, struct node *n, bool quiet, struct target_access *a,
		 ktype_id type)
{
	struct walk w = { kt, n, { "identifier", n->text }, quiet, a, type };

	return walk_comps(&w, n->comps);
}

static bool same_access(const struct target_access *x, const struct target_access *y)
{
	if (x->base != y->base || x->param != y->param || x->nsteps != y->nsteps ||
	    x->lvalue != y->lvalue || x->size != y->size || x->is_signed != y->is_signed ||
	    x->bit_offset != y->bit_offset || x->bit_size != y->bit_size ||
	    x->address_of != y->address_of || x->base_size != y->base_size)
		return false;
	for (int i = 0; i < x->nsteps; i++)
		if (x->steps[i].kind != y->steps[i].kind ||
		    x->steps[i].offset != y->steps[i].offset ||
		    x->steps[i].scale != y->steps[i].scale)
			return false;
	return true;
}

/* The base of `$name` in the function `function`: an argument or the return value. */
static bool find_base(struct walk *w, const char *function, bool is_return)
{
	ktype_id proto = ktypes_function(w->kt, function);
	const char *name = w->n->text + 1;
	int count;

	if (!proto)
		return fail(w, "tapster has no type information for function '%s'", function);
	if (!strcmp(name, "return") && is_return) {
		w->a->base = BASE_RETURN;
		w->type = ktypes_return_type(w->kt, proto);
		if (!w->type)
			return fail(w, "function '%s' returns nothing: no $return", function);
	} else {
		count = ktypes_nparams(w->kt, proto);
		w->a->base = BASE_PARAM;
		w->a->param = -1;
		for (int i = 0; i < count; i++)
			if (!strcmp(ktypes_param_name(w->kt, proto, i), name))
				w->a->param = i;
		if (w->a->param < 0) {
			struct strbuf names = { 0 };

			for (int i = 0; i < count; i++)
				sb_addf(&names, "%s$%s", i ? " " : "",
					ktypes_param_name(w->kt, proto, i));
			fail(w, "unable to find local '%s' in %s (alternatives: %s)", name,
			     function, names.buf ? names.buf : "");
			free(names.buf);
			return false;
		}
		w->type = ktypes_param_type(w->kt, proto, w->a->param);
	}
	w->a->base_size = ktypes_size(w->kt, w->type);
	w->a->base_signed = ktypes_is_signed(w->kt, w->type);
	if (w->a->base_size > 8 || !w->a->base_size)
		return fail(w, "tapster cannot read '%s' of type passed by value", name);
	return true;
}

static struct target_access *resolve_at(const struct ktypes *kt, struct node *n, bool quiet,
					const struct derived_point *d)
{
	struct target_access *a = xcalloc(1, sizeof(*a));
	struct walk w = { kt, n, { "identifier", n->text }, quiet, a, 0 };

	if (find_base(&w, d->function, d->kind == PROVIDER_KRETPROBE) && walk_comps(&w, n->comps))
		return a;
	free(a->steps);
	free(a);
	return NULL;
}

static bool unresolved(struct node *n, bool quiet)
{
	struct token_desc tok = { "identifier", n->text };

	if (quiet)
		return false;
	diag_error_at("semantic error", &tok, n->loc, "unresolved target-symbol expression");
	/* stap goes on to type the expression and reports it twice more as untyped. */
	for (int i = 0; i < 2; i++)
		diag_error_at("semantic error", &tok, n->loc, "unresolved type ");
	return false;
}

/* Whether every point of the probe is on a kernel function (their types are known). */
static bool on_kernel_functions(const struct derived_probe *p)
{
	if (!p || !p->points)
		return false;
	for (const struct derived_point *d = p->points; d; d = d->next)
		if ((d->kind != PROVIDER_KPROBE && d->kind != PROVIDER_KRETPROBE) ||
		    !*d->function || *d->module || d->address)
			return false;
	return true;
}

/* $return of a function whose types are not known (a module's): the whole register, as a
 * long. */
static bool untyped_return(struct derived_probe *p, struct node *n)
{
	struct target_access *a;

	if (strcmp(n->text, "$return") || n->comps || n->suffix || !p || !p->is_return ||
	    !p->points)
		return false;
	for (const struct derived_point *d = p->points; d; d = d->next)
		if (d->kind != PROVIDER_KRETPROBE)
			return false;
	a = xcalloc(1, sizeof(*a));
	a->base = BASE_RETURN;
	a->base_size = 8;
	a->location = location_literal(n);
	n->sym = a;
	n->type = TYPE_LONG;
	return true;
}

bool target_resolve(const struct provider_env *env, struct derived_probe *p, struct node *n,
		    bool quiet)
{
	const struct ktypes *kt;
	struct target_access *first = NULL;

	if (on_tracepoints(p))
		return trace_target_resolve(env, p, n, quiet);
	if (!on_kernel_functions(p) && untyped_return(p, n))
		return true;
	if (!on_kernel_functions(p) || !env || !env->types ||
	    (!strcmp(n->text, "$return") && !p->is_return))
		return unresolved(n, quiet);
	kt = env->types(env->ctx);
	if (!kt)
		return false;
	for (const struct derived_point *d = p->points; d; d = d->next) {
		struct target_access *a = resolve_at(kt, n, quiet, d);

		if (!a)
			return false;
		if (!first) {
			first = a;
			continue;
		}
		if (!same_access(first, a) && first->base == a->base && first->param == a->param &&
		    !first->nsteps && !a->nsteps) {
			/* A plain $return or $param of different widths: the whole register. */
			first->base_size = 8;
			first->base_signed = false;
		} else if (!same_access(first, a)) {
			struct token_desc tok = { "identifier", n->text };

			if (!quiet)
				diag_error_at("semantic error", &tok, n->loc,
					      "tapster cannot read '%s' in functions where it"
					      " differs (%s and %s) yet", n->text,
					      p->points->function, d->function);
			return false;
		}
		free(a->steps);
		free(a);
	}
	first->location = location_literal(n);
	n->sym = first;
	n->type = TYPE_LONG;
	return true;
}

bool target_resolve_cast(const struct provider_env *env, struct node *n, bool quiet)
{
	const struct ktypes *kt = env && env->types ? env->types(env->ctx) : NULL;
	struct target_access *a;
	struct walk w = { kt, n, { "operator", "@cast" }, quiet, NULL, 0 };

	if (!kt)
		return false;
	if (n->module && strcmp(n->module, "kernel")) {
		if (!quiet)
			diag_error_at("semantic error", &w.tok, n->loc,
				      "tapster knows only the kernel's types, not module '%s'",
				      n->module);
		return false;
	}
	w.type = ktypes_find(kt, n->text);
	if (!w.type) {
		if (!quiet)
			diag_error_at("semantic error", &w.tok, n->loc,
				      "type definition '%s' not found in '%s'", n->text,
				      n->module ? n->module : "kernel");
		return false;
	}
	a = xcalloc(1, sizeof(*a));
	a->base = BASE_VALUE;
	a->value = n->lhs;
	a->lvalue = true;
	w.a = a;
	if (!walk_comps(&w, n->comps)) {
		free(a->steps);
		free(a);
		return false;
	}
	char *where = xasprintf("operator '@cast' at %s:%d:%d",
				n->loc.source ? n->loc.source->name : "", n->loc.line, n->loc.col);

	a->location = c_string_literal(where);
	free(where);
	n->sym = a;
	n->type = TYPE_LONG;
	return true;
}

static struct node *target_node(const char *name, struct loc loc)
{
	struct node *t = node_new(N_TARGET, loc);

	t->text = xasprintf("$%s", name);
	return t;
}

bool target_expand_vars(const struct provider_env *env, struct derived_probe *p,
			struct node *n)
{
	const struct ktypes *kt;
	struct strbuf format = { 0 };
	bool want_return = !strcmp(n->text, "$$return");
	bool want_params = !strcmp(n->text, "$$parms") || !strcmp(n->text, "$$vars");

	if (on_tracepoints(p))
		return trace_expand_vars(env, p, n);
	if (!on_kernel_functions(p) || !env || !env->types)
		return unresolved(n, false);
	kt = env->types(env->ctx);
	if (!kt)
		return false;
	if (n->suffix) {
		struct token_desc tok = { "identifier", n->text };

		diag_error_at("semantic error", &tok, n->loc,
			      "tapster cannot pretty-print %s%s yet", n->text, n->suffix);
		return false;
	}
	ktype_id proto = ktypes_function(kt, p->points->function);
	struct node_list args = { 0 };

	if (want_params) {
		for (int i = 0; i < ktypes_nparams(kt, proto); i++) {
			const char *name = ktypes_param_name(kt, proto, i);

			sb_addf(&format, "%s%s=%%#x", i ? " " : "", name);
			node_list_push(&args, target_node(name, n->loc));
		}
	}
	if (want_return && p->is_return && ktypes_return_type(kt, proto)) {
		sb_add(&format, "return=%#x");
		node_list_push(&args, target_node("return", n->loc));
	}
	n->kind = args.len ? N_PRINT : N_STRING;
	free(n->text);
	if (args.len) {
		n->text = xstrdup("sprintf");
		node_list_push(&n->args, node_string(format.buf, n->loc));
		for (int i = 0; i < args.len; i++)
			node_list_push(&n->args, args.items[i]);
		free(args.items);
	} else {
		n->text = xstrdup("");
		n->raw = xstrdup("");
	}
	free(format.buf);
	return true;
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
	return sb_steal(&sb);
}
