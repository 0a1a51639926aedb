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
	const struct target_comp *comp;	/* the component being followed, NULL at the base */
	bool allow_composite;	/* a struct's address is the value (pretty printing) */
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
	if (w->comp) {
		/* stap reports a component's error at its operator. */
		struct token_desc op = { "operator", w->comp->kind == COMP_FIELD ? "->" : "[" };

		diag_error_at("semantic error", &op, w->comp->loc, "%s", message.buf);
	} else {
		diag_error_at("semantic error", &w->tok, w->n->loc, "%s", message.buf);
	}
	free(message.buf);
	return false;
}

/* What stap reports after a $target or @cast fails: the expression and the call holding it
 * have no type (the second is suppressed as similar). */
static void report_untyped(const struct token_desc *tok, struct loc loc)
{
	for (int i = 0; i < 2; i++)
		diag_error_at("semantic error", tok, loc, "unresolved type ");
}

/* Levenshtein distance, for ordering alternatives nearest first. */
static size_t edit_distance(const char *x, const char *y)
{
	size_t ny = strlen(y);
	size_t *row = xcalloc(ny + 1, sizeof(*row));
	size_t result;

	for (size_t j = 0; j <= ny; j++)
		row[j] = j;
	for (size_t i = 1; x[i - 1]; i++) {
		size_t diagonal = row[0];

		row[0] = i;
		for (size_t j = 1; j <= ny; j++) {
			size_t above = row[j];
			size_t best = diagonal + (x[i - 1] != y[j - 1]);

			if (above + 1 < best)
				best = above + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diagonal = above;
		}
	}
	result = row[ny];
	free(row);
	return result;
}

struct alternative {
	const char *name;
	size_t distance;
};

static int by_distance(const void *pa, const void *pb)
{
	const struct alternative *a = pa, *b = pb;
	size_t la = strlen(a->name), lb = strlen(b->name);

	if (a->distance != b->distance)
		return a->distance < b->distance ? -1 : 1;
	if (la != lb)
		return la < lb ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* "a, b, c": `names` nearest to `wanted` first, at most `limit` (0: all), each after
 * `prefix`. */
static char *alternatives(const char *wanted, const char **names, int count, int limit,
			  const char *prefix)
{
	struct alternative *alts = xcalloc((size_t)count + 1, sizeof(*alts));
	struct strbuf sb = { 0 };

	for (int i = 0; i < count; i++)
		alts[i] = (struct alternative){ names[i], edit_distance(wanted, names[i]) };
	qsort(alts, (size_t)count, sizeof(*alts), by_distance);
	sb_add(&sb, "");
	for (int i = 0; i < count && (!limit || i < limit); i++)
		sb_addf(&sb, "%s%s%s", i ? ", " : "", prefix, alts[i].name);
	free(alts);
	return sb_steal(&sb);
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

/* The names of a struct's members, anonymous members' flattened, added to `names`. */
static void add_member_names(const struct ktypes *kt, ktype_id id, const char ***names,
			     int *count, int depth)
{
	int nmembers = ktypes_nmembers(kt, id);

	for (int i = 0; i < nmembers && depth < 8; i++) {
		struct kmember m;

		ktypes_member_at(kt, id, i, &m);
		if (*m.name) {
			*names = xrealloc(*names, sizeof(**names) * (size_t)(*count + 1));
			(*names)[(*count)++] = m.name;
		} else {
			add_member_names(kt, m.type, names, count, depth + 1);
		}
	}
}

/* The type stap names in "vs. TYPE": without typedefs and qualifiers. */
static bool fail_vs(struct walk *w, const char *access, ktype_id type)
{
	char *name = ktypes_name(w->kt, ktypes_strip(w->kt, type));
	bool ok = fail(w, "invalid access '%s' vs. %s", access, name);

	free(name);
	return ok;
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
		char *access = xasprintf("->%s", comp->field);
		bool ok = ktypes_kind(w->kt, s) == KT_ARRAY ?
			fail(w, "invalid access '%s' for array type", access) :
			fail_vs(w, access, ktypes_kind(w->kt, s) == KT_PTR ?
				ktypes_target(w->kt, s) : s);

		free(access);
		return ok;
	}
	if (!ktypes_member(w->kt, outer, comp->field, &m)) {
		const char **names = NULL;
		int count = 0;
		char *type = ktypes_name(w->kt, outer);
		char *alts;

		add_member_names(w->kt, outer, &names, &count, 0);
		alts = alternatives(comp->field, names, count, 0, "");
		fail(w, "unable to find member '%s' for %s (alternatives: %s)", comp->field, type,
		     alts);
		free(alts);
		free(type);
		free(names);
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
		char *access = comp->kind == COMP_INDEX_NUM ?
			xasprintf("[%" PRId64 "]", comp->index) : xstrdup("[...]");
		bool ok = fail_vs(w, access, s);

		free(access);
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
	if (kind == KT_ARRAY && a->lvalue) {
		a->address_of = true;
		return true;
	}
	if ((kind == KT_STRUCT || kind == KT_UNION) && a->lvalue && w->allow_composite) {
		a->address_of = true;
		return true;
	}
	char *name = ktypes_name(w->kt, s);
	bool ok;

	if (kind == KT_STRUCT || kind == KT_UNION) {
		const char **names = NULL;
		int count = 0;

		add_member_names(w->kt, s, &names, &count, 0);
		ok = fail(w, "'%s' is being accessed instead of a member such as '->%s'", name,
			  count ? names[0] : "");
		free(names);
	} else {
		ok = fail(w, "cannot use a value of type '%s' as a number", name);
	}
	free(name);
	return ok;
}

static bool walk_comps(struct walk *w, const struct target_comp *comps)
{
	for (const struct target_comp *c = comps; c; c = c->next) {
		w->comp = c;
		if (!(c->kind == COMP_FIELD ? field_step(w, c) : index_step(w, c)))
			return false;
	}
	return finish(w);
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

/*
 * stap's error for a name that is no parameter (nor local) of the function, its DWARF facts
 * (the DIE's offset, the pc, the source file) left out: BTF has none of them.
 */
static bool no_such_local(struct walk *w, ktype_id proto, const char *function,
			  const char *name)
{
	int count = ktypes_nparams(w->kt, proto);
	const char **names = xcalloc((size_t)count + 1, sizeof(*names));
	char *alts;

	for (int i = 0; i < count; i++)
		names[i] = ktypes_param_name(w->kt, proto, i);
	alts = alternatives(name, names, count, 5, "$");
	fail(w, "unable to find local '%s', [man error::dwarf] in kernel, in %s"
	     " (alternatives: %s))", name, function, alts);
	free(alts);
	free(names);
	return false;
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
		if (w->a->param < 0)
			return no_such_local(w, proto, function, name);
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
	struct walk w = { kt, n, { "identifier", n->text }, quiet, a, 0, NULL, false };

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

bool target_resolve(const struct provider_env *env, struct derived_probe *p, struct node *n,
		    bool quiet)
{
	const struct ktypes *kt;
	struct target_access *first = NULL;

	if (!on_kernel_functions(p) || !env || !env->types)
		return unresolved(n, quiet);
	kt = env->types(env->ctx);
	if (!kt)
		return false;
	for (const struct derived_point *d = p->points; d; d = d->next) {
		struct target_access *a = resolve_at(kt, n, quiet, d);

		if (!a) {
			struct token_desc tok = { "identifier", n->text };

			if (!quiet)
				report_untyped(&tok, n->loc);
			return false;
		}
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
	struct walk w = { kt, n, { "operator", "@cast" }, quiet, NULL, 0, NULL, false };

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
		/* stap reports it twice (the second suppressed as similar), and names the
		 * module as given: '' when there is none. */
		for (int i = 0; !quiet && i < 2; i++)
			diag_error_at("semantic error", &w.tok, n->loc,
				      "type definition '%s' not found in '%s'", n->text,
				      n->module ? n->module : "");
		if (!quiet)
			report_untyped(&w.tok, n->loc);
		return false;
	}
	a = xcalloc(1, sizeof(*a));
	a->base = BASE_VALUE;
	a->value = n->lhs;
	a->lvalue = true;
	w.a = a;
	if (!walk_comps(&w, n->comps)) {
		if (!quiet)
			report_untyped(&w.tok, n->loc);
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
