// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 2 of $target expressions and @cast: from `$file->f_path.dentry->d_name.name` and
 * the probed function's BTF to a base (an argument, the return value, @cast's address) and
 * steps (add an offset, read a pointer, index), ending in a read of an integer, pointer,
 * enum or bitfield, or in an address (an array or struct, for kernel_string and @cast; what
 * `&` is applied to).
 */
#define _GNU_SOURCE
#include "resolve/target_vars.h"

#include <dwarf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cstr.h"
#include "diag.h"
#include "target/dwtypes.h"
#include "target/kmodules.h"
#include "target/tracepoints.h"
#include "resolve/target_scope.h"
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

/* Whether `d` is a process("PATH").function point (a uprobe or a uretprobe). */
static bool is_uprobe_point(const struct derived_point *d)
{
	return d->kind == PROVIDER_UPROBE || d->kind == PROVIDER_URETPROBE;
}

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

/* Resolving the target of a write: stap reports no "unresolved type" after its error. */
static bool resolving_write;

void target_resolving_write(bool on)
{
	resolving_write = on;
}

void target_report_untyped(const struct token_desc *tok, struct loc loc)
{
	if (resolving_write)
		return;
	for (int i = 0; i < 2; i++)
		diag_error_at("semantic error", tok, loc, "unresolved type ");
}

bool target_refuse(struct node *n, bool quiet, bool untyped, const char *message)
{
	char *name = n->suffix && !n->comps ? xasprintf("%s%s", n->text, n->suffix)
					    : xstrdup(n->text);
	struct token_desc tok = { "identifier", name };

	if (!quiet) {
		diag_error_at("semantic error", &tok, n->loc, message, 0);
		if (untyped)
			target_report_untyped(&tok, n->loc);
	}
	free(name);
	return false;
}

/* n becomes a call of the library's `function` (with `arg`, if any), named `raw` in errors. */
void target_become_call(struct node *n, const char *raw, const char *function, struct node *arg)
{
	n->kind = N_CALL;
	n->raw = xstrdup(raw);
	n->text = xstrdup(function);
	n->comps = NULL;
	n->lhs = n->rhs = NULL;
	n->args = (struct node_list){ 0 };
	if (arg)
		node_list_push(&n->args, arg);
}

/* "a, b, c": `names` nearest to `wanted` first, at most `limit` (0: all), each after
 * `prefix`. */
static char *alternatives(const char *wanted, const char **names, int count, int limit,
			  const char *prefix)
{
	struct strbuf sb = { 0 };

	count = (int)sort_nearest(wanted, names, (size_t)count);
	sb_add(&sb, "");
	for (int i = 0; i < count && (!limit || i < limit); i++)
		sb_addf(&sb, "%s%s%s", i ? ", " : "", prefix, names[i]);
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

/* Whether the value being walked is a struct or union `s` passed in a register (a small
 * struct parameter, kuid_t): its members are bits of the value, as stap reads them. */
static bool held_in_register(const struct walk *w, ktype_id s)
{
	uint32_t size = ktypes_size(w->kt, s);

	if (w->a->nsteps || w->a->base == BASE_VALUE)
		return false;
	/* An argument of 9 to 16 bytes comes in two words (argument_word()). */
	return size <= 8 || (size <= 16 && w->a->base == BASE_PARAM);
}

/* The member `m` of a struct held in a register: its bits of the value; of an argument in
 * two words, the bits of the word it is in. */
static bool register_member(struct walk *w, const struct kmember *m)
{
	uint32_t bits = m->bit_size ? m->bit_size :
			8 * ktypes_size(w->kt, ktypes_strip(w->kt, m->type));
	uint32_t offset = w->a->bit_offset + m->bit_offset;

	if (offset >= 64 && w->a->base == BASE_PARAM) {
		w->a->param++;
		offset -= 64;
	}
	if (offset + bits > 64)
		return fail(w, "tapster cannot read member '%s' across two registers", m->name);
	w->a->bit_offset = offset;
	w->a->bit_size = bits;
	w->a->base_size = 8;
	w->type = m->type;
	return true;
}

static bool field_step(struct walk *w, const struct target_comp *comp)
{
	ktype_id s = ktypes_strip(w->kt, w->type);
	ktype_id outer;
	struct kmember m;
	bool in_register = false;

	if (ktypes_kind(w->kt, s) == KT_PTR && is_composite(w->kt, ktypes_target(w->kt, s))) {
		if (w->a->lvalue)
			add_step(w->a, STEP_LOAD, 0, NULL, 0);
		outer = ktypes_strip(w->kt, ktypes_target(w->kt, s));
	} else if (is_composite(w->kt, s) && (w->a->lvalue || held_in_register(w, s))) {
		outer = s;
		in_register = !w->a->lvalue;
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
	if (in_register)
		return register_member(w, &m);
	add_step(w->a, STEP_OFFSET, m.bit_offset / 8, NULL, 0);
	w->a->lvalue = true;
	w->a->bit_offset = m.bit_size ? m.bit_offset % 8 : 0;
	w->a->bit_size = m.bit_size;
	w->type = m.type;
	return true;
}

/* @cast(p, "T")[i]: @cast's address is a pointer to T, indexed as such (the T after it). */
static bool indexes_cast_address(const struct walk *w, const struct target_comp *comp)
{
	return w->a->base == BASE_VALUE && comp == w->n->comps;
}

static bool index_step(struct walk *w, const struct target_comp *comp)
{
	ktype_id s = ktypes_strip(w->kt, w->type);
	enum ktype_kind kind = ktypes_kind(w->kt, s);
	bool cast_address = indexes_cast_address(w, comp);
	ktype_id elem = cast_address ? w->type : ktypes_target(w->kt, s);
	uint32_t scale = ktypes_size(w->kt, elem);

	if (!(kind == KT_ARRAY && w->a->lvalue) && kind != KT_PTR && !cast_address) {
		char *access = comp->kind == COMP_INDEX_NUM ?
			xasprintf("[%" PRId64 "]", comp->index) : xstrdup("[...]");
		bool ok = fail_vs(w, access, s);

		free(access);
		return ok;
	}
	if (!scale)
		return fail(w, "cannot index a value of incomplete type");
	if (kind == KT_PTR && w->a->lvalue && !cast_address)
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

/* `&$x->y`, `&@cast(p, "T")->y`: the address the access ends at, not read; stap's error for
 * what has none (a register, a bitfield), which it reports at the base ($x, @cast). */
static bool finish_address(struct walk *w)
{
	struct target_access *a = w->a;

	w->comp = NULL;
	if (!a->lvalue)
		return fail(w, "cannot take address of object in register");
	if (a->bit_size)
		return fail(w, "cannot take the address of a bit field");
	a->address_of = true;
	a->size = 8;
	a->is_signed = false;
	return true;
}

/* What the expression's value is once its components are followed. */
static bool finish(struct walk *w)
{
	ktype_id s = ktypes_strip(w->kt, w->type);
	enum ktype_kind kind = ktypes_kind(w->kt, s);
	struct target_access *a = w->a;

	a->type = w->type;
	a->types = w->kt;
	if (w->n->address_of)
		return finish_address(w);
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

bool target_walk(const struct ktypes *kt, struct node *n, bool quiet, struct target_access *a,
		 ktype_id type)
{
	struct walk w = { .kt = kt, .n = n, .tok = { "identifier", n->text }, .quiet = quiet,
			  .a = a, .type = type };

	return walk_comps(&w, n->comps);
}

static bool same_access(const struct target_access *x, const struct target_access *y)
{
	if (x->base != y->base || x->param != y->param || x->nsteps != y->nsteps ||
	    x->lvalue != y->lvalue || x->size != y->size || x->is_signed != y->is_signed ||
	    x->bit_offset != y->bit_offset || x->bit_size != y->bit_size ||
	    x->address_of != y->address_of || x->base_size != y->base_size ||
	    (x->base == BASE_EXPR && strcmp(x->expr, y->expr)))
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
static bool no_such_dwarf_local(struct walk *w, ktype_id proto, const struct derived_point *d,
				const char *name);
static const char *scope_file(Dwarf_Die *scope, bool user);

static bool no_such_local(struct walk *w, ktype_id proto, const struct derived_point *d,
			  const char *name)
{
	int count = ktypes_nparams(w->kt, proto);

	if (ktypes_dwarf(w->kt))
		return no_such_dwarf_local(w, proto, d, name);
	const char **names = xcalloc((size_t)count + 1, sizeof(*names));
	char *alts;

	for (int i = 0; i < count; i++)
		names[i] = ktypes_param_name(w->kt, proto, i);
	alts = alternatives(name, names, count, 5, "$");
	fail(w, "unable to find local '%s', [man error::dwarf] in %s, in %s"
	     " (alternatives: %s))", name, *d->module ? d->module : "kernel", d->function, alts);
	free(alts);
	free(names);
	return false;
}

/* ---- Locals from DWARF ---- */

/* The module stap names in its errors at point `d`: the kernel, a module, a user file. */
static const char *point_module(const struct derived_point *d)
{
	if (is_uprobe_point(d))
		return d->symbol;
	return *d->module ? d->module : "kernel";
}

/* stap's error with its DWARF facts: the function's DIE, its entry, its file; the
 * alternatives are its parameters and the locals visible at the probe. */
static bool no_such_dwarf_local(struct walk *w, ktype_id proto, const struct derived_point *d,
				const char *name)
{
	Dwarf_Die fn;
	Dwarf_Addr pc = 0, entry = 0;
	struct dwvar *vars;
	size_t count = target_dwarf_scope(w->kt, proto, &fn, &pc, &vars);
	const char **names = xcalloc(count + 1, sizeof(*names));
	const char *file;
	char *alts;

	for (size_t i = 0; i < count; i++)
		names[i] = vars[i].name;
	alts = alternatives(name, names, (int)count, 5, "$");
	dwarf_lowpc(&fn, &entry);
	/* A user-space function's file as stap names it: its compilation unit's. */
	file = is_uprobe_point(d) ? scope_file(&fn, true) : dwarf_decl_file(&fn);
	fail(w, "unable to find local '%s', [man error::dwarf] dieoffset %#llx in %s, near pc"
	     " %#llx in %s %s (alternatives: %s))", name,
	     (unsigned long long)dwarf_dieoffset(&fn), point_module(d),
	     (unsigned long long)entry, d->function, file ? file : "", alts);
	free(alts);
	free(names);
	free(vars);
	return false;
}

/* stap's error for a variable without a location at the probe's pc. */
static bool not_accessible(struct walk *w, const struct dwvar *v, Dwarf_Die *fn,
			   Dwarf_Addr pc, const char *ranges)
{
	struct dwtypes *dt = ktypes_dwarf(w->kt);
	char *where = dwtypes_pc_source(dt, pc);
	struct strbuf details = { 0 };
	Dwarf_Die var = v->die;
	char *inlined_by = dwtypes_inline_chain(fn, pc);

	sb_addf(&details, "        dieoffset: %#llx from %s\n",
		(unsigned long long)dwarf_dieoffset(&var), ktypes_source(w->kt));
	sb_addf(&details, "        function: %s at %s%s\n", dwarf_diename(fn),
		where ? where : "?", inlined_by);
	free(inlined_by);
	if (*ranges)
		sb_addf(&details, "        alternative locations: %s\n", ranges);
	if (!w->quiet)
		diag_next_details(details.buf);
	free(details.buf);
	free(where);
	return fail(w, "not accessible at this address (pc: %#llx) [man error::dwarf]",
		    (unsigned long long)pc);
}

static bool base_from_location(struct walk *w, const struct dwvar *v, Dwarf_Die *scope,
			       Dwarf_Die *frame, Dwarf_Addr pc);

/* The base of the local `name` (not a parameter) from its DWARF location at the probe. */
static bool dwarf_local(struct walk *w, const struct derived_point *d, ktype_id proto,
			const char *name)
{
	Dwarf_Die fn;
	Dwarf_Addr pc = 0;
	struct dwvar *vars;
	size_t count = target_dwarf_scope(w->kt, proto, &fn, &pc, &vars);
	const struct dwvar *v = NULL;
	bool ok;

	for (size_t i = 0; i < count; i++)
		if (!vars[i].is_param && !strcmp(vars[i].name, name))
			v = &vars[i];
	if (!v) {
		free(vars);
		return no_such_local(w, proto, d, name);
	}
	ok = base_from_location(w, v, &fn, &fn, pc);
	free(vars);
	return ok;
}

/* The base of the variable `v` of `scope` from its location at `pc` (its frame base is
 * `frame`'s). */
static bool base_from_location(struct walk *w, const struct dwvar *v, Dwarf_Die *scope,
			       Dwarf_Die *frame, Dwarf_Addr pc)
{
	const char *name = v->name;
	struct dwexpr *expr;
	enum dwloc loc;
	char *detail;
	bool ok = true;

	loc = dwtypes_var_location(ktypes_dwarf(w->kt), frame, (Dwarf_Die *)&v->die, pc, &expr,
				   &detail);
	w->type = dwtypes_var_type((Dwarf_Die *)&v->die);
	if (loc == DWLOC_NONE) {
		ok = not_accessible(w, v, scope, pc, detail);
	} else if (loc == DWLOC_UNSUPPORTED) {
		ok = fail(w, "tapster cannot translate the location of '%s' at pc %#llx: %s"
			  " [man error::dwarf]", name, (unsigned long long)pc, detail);
	} else {
		w->a->base = BASE_EXPR;
		w->a->expr = target_location_c(expr, w->a->user);
		w->a->frame_base = dwtypes_var_uses_frame_base((Dwarf_Die *)&v->die, pc);
		w->a->lvalue = loc == DWLOC_ADDRESS;
		if (!w->a->lvalue)
			w->a->reg = target_location_register(expr);
		w->a->base_size = ktypes_size(w->kt, w->type);
		w->a->base_signed = ktypes_is_signed(w->kt, w->type);
		if (!w->a->lvalue && (w->a->base_size > 8 || !w->a->base_size))
			ok = fail(w, "tapster cannot read '%s' of type passed by value", name);
	}
	dwexpr_free(expr);
	free(detail);
	return ok;
}

/* The file stap names in "near pc ... in FUNC FILE": a kernel function's declaration file,
 * an inlined instance's or (`user`) a user-space function's compilation unit. */
static const char *scope_file(Dwarf_Die *scope, bool user)
{
	Dwarf_Die cu;

	if (dwarf_tag(scope) == DW_TAG_subprogram && !user)
		return dwarf_decl_file(scope);
	return dwarf_diecu(scope, &cu, NULL, NULL) ? dwarf_diename(&cu) : NULL;
}

/* `$name` at a point inside a function: a parameter or local from its DWARF location. */
static bool dwarf_point_var(struct walk *w, const struct derived_point *d, const char *name)
{
	struct dwtypes *dt = ktypes_dwarf(w->kt);
	Dwarf_Die scope, frame;
	struct dwvar *vars;
	size_t count = target_point_vars(dt, d, &scope, &frame, &vars);
	const struct dwvar *v = NULL;
	bool ok;

	for (size_t i = 0; i < count; i++)
		if (!strcmp(vars[i].name, name))
			v = &vars[i];
	if (!v) {
		const char **names = xcalloc(count + 1, sizeof(*names));
		const char *file = scope_file(&scope, is_uprobe_point(d));
		char *alts;

		for (size_t i = 0; i < count; i++)
			names[i] = vars[i].name;
		alts = alternatives(name, names, (int)count, 5, "$");
		fail(w, "unable to find local '%s', [man error::dwarf] dieoffset %#llx in %s,"
		     " near pc %#llx in %s %s (alternatives: %s))", name,
		     (unsigned long long)d->scope_die, point_module(d), (unsigned long long)d->pc,
		     d->function, file ? file : "", alts);
		free(alts);
		free(names);
		free(vars);
		return false;
	}
	ok = base_from_location(w, v, &scope, &frame, d->pc);
	free(vars);
	return ok;
}

/*
 * The argument word where parameter `index` of `proto` starts: the x86_64 calling
 * convention gives a struct of 9 to 16 bytes passed by value (sockptr_t) two registers,
 * so each later parameter is a word further on.
 */
static int argument_word(const struct ktypes *kt, ktype_id proto, int index)
{
	int word = 0;

	for (int i = 0; i < index; i++) {
		size_t size = ktypes_size(kt, ktypes_param_type(kt, proto, i));

		word += size > 8 && size <= 16 ? 2 : 1;
	}
	return word;
}

/* The base of `$name` in the function `function`: an argument or the return value. */
static bool find_base(struct walk *w, const struct derived_point *d)
{
	const char *function = d->function;
	bool is_return = d->kind == PROVIDER_KRETPROBE || d->kind == PROVIDER_URETPROBE;
	ktype_id proto = ktypes_function(w->kt, function);
	const char *name = w->n->text + 1;
	int count;

	if (target_in_function_body(w->kt, d))
		return dwarf_point_var(w, d, name);
	if (d->mid_function)
		return fail(w, "tapster cannot read '%s' inside a function without its DWARF", name);
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
		if (w->a->param < 0 && ktypes_dwarf(w->kt))
			return dwarf_local(w, d, proto, name);
		if (w->a->param < 0)
			return no_such_local(w, proto, d, name);
		w->type = ktypes_param_type(w->kt, proto, w->a->param);
		w->a->param = argument_word(w->kt, proto, w->a->param);
	}
	w->a->base_size = ktypes_size(w->kt, w->type);
	w->a->base_signed = ktypes_is_signed(w->kt, w->type);
	if (w->a->base == BASE_PARAM && is_composite(w->kt, ktypes_strip(w->kt, w->type)) &&
	    w->a->base_size <= 16)
		return true;	/* its members are read from its words */
	if (w->a->base_size > 8 || !w->a->base_size)
		return fail(w, "tapster cannot read '%s' of type passed by value", name);
	return true;
}

static struct target_access *resolve_at(const struct ktypes *kt, struct node *n, bool quiet,
					const struct derived_point *d)
{
	struct target_access *a = xcalloc(1, sizeof(*a));
	struct walk w = { kt, n, { "identifier", n->text }, quiet, a, 0, NULL, false };

	a->user = is_uprobe_point(d);	/* the process's memory */
	if (find_base(&w, d) && walk_comps(&w, n->comps))
		return a;
	free(a->steps);
	free(a);
	return NULL;
}

/* The identifier stap names in errors: "$x$" when the suffix is on the name itself. */
static const char *token_text(struct node *n, char **owned)
{
	*owned = NULL;
	if (n->kind == N_TARGET && n->suffix && !n->comps)
		return *owned = xasprintf("%s%s", n->text, n->suffix);
	return n->text;
}

bool target_unresolved(struct node *n, bool quiet)
{
	char *owned;
	struct token_desc tok = { "identifier", token_text(n, &owned) };

	if (!quiet) {
		diag_error_at("semantic error", &tok, n->loc,
			      "unresolved target-symbol expression");
		/* stap goes on to type the expression and reports it twice more as untyped. */
		for (int i = 0; i < 2 && !resolving_write; i++)
			diag_error_at("semantic error", &tok, n->loc, "unresolved type ");
	}
	free(owned);
	return false;
}

/* Whether every point of the probe is on a kernel function (their types are known). */
static bool on_kernel_functions(const struct derived_probe *p)
{
	if (!p || !p->points)
		return false;
	for (const struct derived_point *d = p->points; d; d = d->next)
		if ((d->kind != PROVIDER_KPROBE && d->kind != PROVIDER_KRETPROBE) ||
		    !*d->function || *d->module || d->address || (d->mid_function && !d->scope_die))
			return false;
	return true;
}

/* Whether every point of the probe is on a function of the kernel or of a module, as a
 * kernel.function or module().function point: stap's kprobe.* family has no target
 * variables, not even $return (man stapprobes, DWARFLESS). */
static bool on_functions(const struct derived_probe *p)
{
	if (!p || !p->points)
		return false;
	for (const struct derived_point *d = p->points; d; d = d->next)
		if ((d->kind != PROVIDER_KPROBE && d->kind != PROVIDER_KRETPROBE &&
		     !is_uprobe_point(d)) ||
		    !*d->function || d->address || target_point_is_kprobe(d) ||
		    (d->mid_function && !d->scope_die))
			return false;
	return true;
}

bool target_point_is_kprobe(const struct derived_point *d)
{
	return !strncmp(d->pp, "kprobe.", 7);
}

/* The types of the kernel or of `module` ("" or "kernel": the kernel); NULL with *error
 * set (a module's), or with nothing set after the kernel's error was printed. */
static const struct ktypes *types_of(const struct provider_env *env, const char *module,
				     const char **error)
{
	*error = NULL;
	if (!env)
		return NULL;
	if (!*module || !strcmp(module, "kernel"))
		return env->types ? env->types(env->ctx) : NULL;
	if (!env->module_types) {
		*error = "modules' types are not known here";
		return NULL;
	}
	return env->module_types(env->ctx, module, error);
}

/* The DWARF types of the file of the process("PATH").function point `d`, or NULL. */
static const struct ktypes *user_types_of(const struct provider_env *env,
					  const struct derived_point *d)
{
	if (!env || !env->user_types || !d->user_file)
		return NULL;
	return env->user_types(env->ctx, d->user_file);
}

/* stap's error for a $target in a process("PATH").function probe whose file has no DWARF. */
static void no_user_scope(const struct derived_point *d, struct node *n, bool quiet)
{
	char *owned;
	struct token_desc tok = { "identifier", token_text(n, &owned) };

	if (!quiet) {
		diag_error_at("semantic error", &tok, n->loc,
			      "debuginfo scope not found for module '%s', cannot resolve"
			      " context variable [man error::dwarf]", d->symbol);
		target_report_untyped(&tok, n->loc);
	}
	free(owned);
}

/* The types of the function of point `d`; NULL after reporting why at `n`. */
const struct ktypes *target_point_types(const struct provider_env *env,
					const struct derived_point *d, struct node *n, bool quiet)
{
	const char *error;
	const struct ktypes *kt;
	char *owned;
	struct token_desc tok;

	if (is_uprobe_point(d)) {
		if (!(kt = user_types_of(env, d)))
			no_user_scope(d, n, quiet);
		return kt;
	}
	kt = types_of(env, d->module, &error);
	tok = (struct token_desc){ "identifier", token_text(n, &owned) };
	if (!kt && error && !quiet) {
		diag_error_at("semantic error", &tok, n->loc,
			      "tapster has no type information for module '%s': %s", d->module,
			      error);
		target_report_untyped(&tok, n->loc);
	}
	free(owned);
	return kt;
}

bool target_probe_on_functions(const struct derived_probe *p)
{
	return on_functions(p);
}

/* Whether every point of the probe is the return of a module's function (no types). */
static bool on_module_returns(const struct derived_probe *p)
{
	if (!p || !p->points || !p->is_return)
		return false;
	for (const struct derived_point *d = p->points; d; d = d->next)
		if (d->kind != PROVIDER_KRETPROBE || !*d->module || target_point_is_kprobe(d))
			return false;
	return true;
}

/* Whether the types of the functions of every point of `p` are known. */
static bool functions_typed(const struct provider_env *env, const struct derived_probe *p)
{
	const struct ktypes *kt;
	const char *error;

	for (const struct derived_point *d = p->points; d; d = d->next)
		if (!(kt = types_of(env, d->module, &error)) || !ktypes_function(kt, d->function))
			return false;
	return true;
}

void target_free_accesses(struct target_access **all, int n, int keep)
{
	for (int i = 0; i < n; i++) {
		if (i == keep)
			continue;
		free(all[i]->steps);
		free(all[i]->expr);
		free(all[i]);
	}
	free(all);
}

struct target_access *target_accesses_per_point(struct target_access **all, int n,
						const struct node *target)
{
	struct target_access *each = xcalloc(1, sizeof(*each));

	each->base = BASE_PER_POINT;
	each->per_point = all;
	each->npoints = n;
	for (int i = 0; i < n; i++)
		all[i]->location = location_literal(target);
	each->location = location_literal(target);
	return each;
}

bool on_uprobes(const struct derived_probe *p)
{
	if (!p || !p->points)
		return false;
	for (const struct derived_point *d = p->points; d; d = d->next)
		if (d->kind != PROVIDER_UPROBE && d->kind != PROVIDER_URETPROBE)
			return false;
	return true;
}

/* `n`, a $return whose type is not known, as the whole return register. */
static bool resolve_return_register(struct node *n)
{
	struct target_access *a = xcalloc(1, sizeof(*a));

	a->base = BASE_RETURN;
	a->base_size = 8;
	a->location = location_literal(n);
	n->sym = a;
	n->type = TYPE_LONG;
	return true;
}

/* Whether the file of every point of `p` has DWARF (process("PATH").function points). */
static bool uprobes_typed(const struct provider_env *env, const struct derived_probe *p)
{
	for (const struct derived_point *d = p->points; d; d = d->next)
		if (!user_types_of(env, d))
			return false;
	return true;
}

/* On process("PATH").function points of a file without DWARF, placed by the symbol table,
 * only the return value of .return is known: the whole return register. */
static bool uprobe_resolve(const struct derived_probe *p, struct node *n, bool quiet)
{
	if (strcmp(n->text, "$return") || n->comps || !p->is_return || n->address_of) {
		no_user_scope(p->points, n, quiet);
		return false;
	}
	return resolve_return_register(n);
}

bool target_resolve(const struct provider_env *env, struct derived_probe *p, struct node *n,
		    bool quiet)
{
	const struct ktypes *kt;
	struct target_access *first = NULL;

	if (on_tracepoints(p))
		return trace_target_resolve(env, p, n, quiet);
	if (on_process_events(p))
		return process_target_resolve(p, n, quiet);
	if (on_plt(p))
		return plt_target_resolve(p, n, quiet);
	if (on_uprobes(p) && !uprobes_typed(env, p))
		return uprobe_resolve(p, n, quiet);
	if (on_marks(p))
		return mark_target_resolve(p, n, quiet);
	if (!strcmp(n->text, "$return") && !n->comps && on_module_returns(p) &&
	    !functions_typed(env, p) && !n->address_of) {
		/* The module's types (or its function's) are not known. */
		return resolve_return_register(n);
	}
	if (!on_functions(p) || !env || !env->types)
		return target_unresolved(n, quiet);
	struct target_access **all = NULL;
	int nall = 0;
	bool differ = false;

	for (const struct derived_point *d = p->points; d; d = d->next) {
		struct target_access *a;

		kt = target_point_types(env, d, n, quiet);
		if (!kt)
			return false;
		a = resolve_at(kt, n, quiet, d);

		if (!a) {
			struct token_desc tok = { "identifier", n->text };

			if (!quiet)
				target_report_untyped(&tok, n->loc);
			target_free_accesses(all, nall, -1);
			return false;
		}
		all = xrealloc(all, (size_t)(nall + 1) * sizeof(*all));
		all[nall++] = a;
		if (!first) {
			first = a;
			continue;
		}
		if ((d->mid_function || p->points->mid_function) && !same_access(first, a)) {
			/* DWARF points, each with its own location: chosen as the point fires. */
			differ = true;
			continue;
		}
		if (!same_access(first, a) && first->base == a->base && first->param == a->param &&
		    !first->nsteps && !a->nsteps) {
			/* A plain $return or $param of different widths: each point's own (an int
			 * function's -22 is -22, as stap's function per point reads it). */
			differ = true;
		} else if (!same_access(first, a)) {
			struct token_desc tok = { "identifier", n->text };

			if (!quiet)
				diag_error_at("semantic error", &tok, n->loc,
					      "tapster cannot read '%s' in functions where it"
					      " differs (%s and %s) yet", n->text,
					      p->points->function, d->function);
			target_free_accesses(all, nall, -1);
			return false;
		}
	}
	if (differ) {
		first = target_accesses_per_point(all, nall, n);
	} else {
		target_free_accesses(all, nall, 0);
		first->location = location_literal(n);
	}
	n->sym = first;
	n->type = TYPE_LONG;
	return true;
}

/* The module a probe's @cast looks in when it names none: the probed module in a
 * module("m").function probe, else the kernel. */
static const char *default_cast_module(const struct derived_probe *p)
{
	const struct derived_point *d = p ? p->points : NULL;

	if (d && (d->kind == PROVIDER_KPROBE || d->kind == PROVIDER_KRETPROBE) && *d->module &&
	    !target_point_is_kprobe(d))
		return d->module;
	if (d && is_uprobe_point(d) && d->user_file)
		return d->user_file;	/* the probed file's */
	return "kernel";
}

/* The module an element of @cast's module list names: "kernel" for "kernel" and
 * "kernel<linux/fs.h>" (whose types are the headers'), NAME for NAME and NAME.ko, a module's
 * file for its path (/path/NAME.ko); NULL for a user header ("<sys/time.h>"). Malloc'd. */
static char *cast_module_name(const char *element, size_t len)
{
	const char *header = memchr(element, '<', len);
	char *name = xstrndup(element, header ? (size_t)(header - element) : len);

	if (!*name || (!strchr(name, '/') && strstr(name, ".ko"))) {
		char *module = *name ? kmodule_name_of_file(name) : NULL;

		free(name);
		return module;
	}
	for (char *p = name; !strchr(name, '/') && *p; p++)
		if (*p == '-')
			*p = '_';	/* the kernel's name of nls-utf8 is nls_utf8 */
	return name;
}

/* Whether @cast's module `module` names a user-space file (a path, not a kernel
 * module's .ko). */
static bool is_user_file(const char *module)
{
	size_t len = strlen(module);

	return strchr(module, '/') && !(len > 3 && !strcmp(module + len - 3, ".ko")) &&
	       !strstr(module, ".ko.");
}

/* The type `name` in the first of `modules` (a ':' list) that has it, with *kt set to
 * those types and *user to whether they are a user header's; 0 when none has it. */
static ktype_id find_cast_type(const struct provider_env *env, const char *modules,
			       const char *name, const struct ktypes **kt, bool *user)
{
	*user = false;
	for (const char *m = modules; *m;) {
		const char *end = strchrnul(m, ':');
		char *module = cast_module_name(m, (size_t)(end - m));
		const char *header = memchr(m, '<', (size_t)(end - m));
		const char *error;
		ktype_id type = 0;
		/* A program's or library's DWARF: its types describe the process's memory. */
		const struct ktypes *user_kt = module && is_user_file(module) && env &&
					       env->user_types ?
					       env->user_types(env->ctx, module) : NULL;

		if (header && (!module || !strcmp(module, "kernel")) && env && env->header_types) {
			char *headers = xstrndup(header, (size_t)(end - header));

			*kt = env->header_types(env->ctx, headers, module != NULL);
			free(headers);
		} else if (user_kt) {
			*kt = user_kt;
		} else {
			*kt = module ? types_of(env, module, &error) : NULL;
		}
		if (*kt)
			type = ktypes_find(*kt, name);
		if (type)
			*user = (header && !module) || user_kt;
		free(module);
		if (type)
			return type;
		m = *end ? end + 1 : end;
	}
	return 0;
}

/* stap's error for a type that none of @cast's modules has: reported twice (the second
 * suppressed as similar), naming the modules as given ('' when none was). */
static void cast_type_not_found(struct walk *w, struct node *n, const struct derived_probe *p)
{
	/* Without a module, a process("PATH").function probe's is its file. */
	const char *shown = n->module ? n->module :
			    on_uprobes(p) && p->points->user_file ? p->points->symbol : "";

	for (int i = 0; i < 2; i++)
		diag_error_at("semantic error", &w->tok, n->loc,
			      "type definition '%s' not found in '%s'", n->text, shown);
	target_report_untyped(&w->tok, n->loc);
}

/* @cast(value, ...)->comps or an autocast's value->comps: the components followed from the
 * type `type` (of `kt`) at the address `n->lhs`; errors name `tok`. */
static bool walk_cast(struct node *n, const struct ktypes *kt, ktype_id type, bool user,
		      struct token_desc tok, bool quiet)
{
	struct target_access *a = xcalloc(1, sizeof(*a));
	struct walk w = { kt, n, tok, quiet, a, type, NULL, false };

	a->base = BASE_VALUE;
	a->value = n->lhs;
	a->lvalue = true;
	a->user = user;
	if (!walk_comps(&w, n->comps)) {
		if (!quiet)
			target_report_untyped(&w.tok, n->loc);
		free(a->steps);
		free(a);
		return false;
	}
	char *where = xasprintf("%s '%s' at %s:%d:%d", tok.what, tok.text,
				n->loc.source ? n->loc.source->name : "", n->loc.line, n->loc.col);

	a->location = c_string_literal(where);
	free(where);
	n->sym = a;
	n->type = TYPE_LONG;
	return true;
}

bool target_resolve_cast(const struct provider_env *env, struct derived_probe *p,
			 struct node *n, bool quiet)
{
	const struct ktypes *kt = NULL;
	struct walk w = { NULL, n, { "operator", "@cast" }, quiet, NULL, 0, NULL, false };
	bool user;
	ktype_id type = find_cast_type(env, n->module ? n->module : default_cast_module(p),
				       n->text, &kt, &user);

	if (!type) {
		if (!quiet)
			cast_type_not_found(&w, n, p);
		return false;
	}
	return walk_cast(n, kt, type, user, w.tok, quiet);
}

bool target_autocast_type(const struct node *n, const struct ktypes **kt, ktype_id *type,
			  bool *user)
{
	const struct target_access *a = n->sym;
	ktype_id s;

	if (a && a->base == BASE_PER_POINT)
		a = a->npoints ? a->per_point[0] : NULL;
	if (!a || !a->types || !a->type)
		return false;
	*kt = a->types;
	*user = a->user;
	s = ktypes_strip(a->types, a->type);
	if (a->address_of) {
		*type = a->type;
		return is_composite(a->types, s);
	}
	*type = ktypes_kind(a->types, s) == KT_PTR ? ktypes_target(a->types, s) : 0;
	return *type != 0;
}

bool target_resolve_autocast(struct node *n, const struct ktypes *kt, ktype_id type,
			     bool user, bool quiet)
{
	struct token_desc tok = { "operator", n->comps->kind == COMP_FIELD ? "->" : "[" };

	n->loc = n->comps->loc;
	return walk_cast(n, kt, type, user, tok, quiet);
}

/* The type `$name` plus `n`'s components has in the probe's first function; 0 (after
 * stap's error) when it doesn't resolve. */
ktype_id target_type_of(const struct ktypes *kt, struct derived_probe *p, struct node *n)
{
	struct target_access *a = xcalloc(1, sizeof(*a));
	char *owned;
	struct walk w = { kt, n, { "identifier", token_text(n, &owned) }, false, a, 0, NULL,
			  true };
	ktype_id type = 0;

	if (find_base(&w, p->points) &&
	    walk_comps(&w, n->comps))
		type = w.type;
	else
		target_report_untyped(&w.tok, n->loc);
	free(owned);
	free(a->steps);
	free(a);
	return type;
}

/* The type @cast(addr, "type")->comps names, with *kt set to the types it is in; 0 (after
 * stap's error) when it doesn't. */
ktype_id target_cast_type(const struct provider_env *env, struct derived_probe *p,
			 struct node *n, const struct ktypes **kt)
{
	struct target_access *a = xcalloc(1, sizeof(*a));
	struct walk w = { NULL, n, { "operator", "@cast" }, false, a, 0, NULL, true };
	ktype_id type = 0;
	bool user;

	a->lvalue = true;
	w.type = find_cast_type(env, n->module ? n->module : default_cast_module(p), n->text, kt,
				&user);
	w.kt = *kt;
	if (!w.type)
		cast_type_not_found(&w, n, p);
	else if (walk_comps(&w, n->comps))
		type = w.type;
	else
		target_report_untyped(&w.tok, n->loc);
	free(a->steps);
	free(a);
	return type;
}

bool target_no_return_local(const struct ktypes *kt, struct derived_probe *p, struct node *n)
{
	char *owned;
	struct walk w = { kt, n, { "identifier", token_text(n, &owned) }, false, NULL, 0, NULL,
			  false };

	if (target_in_function_body(kt, p->points))
		dwarf_point_var(&w, p->points, "$return");
	else
		no_such_local(&w, ktypes_function(kt, p->points->function), p->points, "$return");
	target_report_untyped(&w.tok, n->loc);
	free(owned);
	return false;
}

/*
 * @var("name"[, "module"]): stap needs the kernel's DWARF for it. Without a module and
 * outside a kernel function (a begin probe, "name@file"), stap 4.8 itself can't place it
 * ("unresolved @var() expression", checked with the debuginfo installed); tapster says so
 * too. In the kernel, a global's type would come from BTF, but a 6.1 kernel's BTF
 * describes only per-CPU variables, and the VM kit's symbol table has no data symbols.
 */
/* @var("name[@file]") from the kernel's DWARF: its address, then its components. */
static bool resolve_dwarf_atvar(const struct ktypes *kt, struct node *n, bool quiet,
				const char *module, bool user)
{
	struct walk w = { kt, n, { "operator", "@var" }, quiet, NULL, 0, NULL, false };
	char *name = xstrdup(n->text), *file = strchr(name, '@'), *where;
	struct dwexpr *expr = NULL;
	struct target_access *a;
	Dwarf_Die var;
	Dwarf_Addr addr = 0;
	bool found;

	if (file)
		*file++ = '\0';
	found = dwtypes_global(ktypes_dwarf(kt), name, file, &var, &addr);
	if (found && addr)
		expr = dwtypes_address(ktypes_dwarf(kt), addr);
	if (!expr) {
		/* stap: a user-space global without an address (optimised out) is not found. */
		if ((!found || user) && file)
			fail(&w, "unable to find global '%s' in %s, in %s", name, module, file);
		else if (!found || user)
			fail(&w, "unable to find global '%s' in %s", name, module);
		else
			fail(&w, "tapster cannot place %s global '%s': it has no address",
			     user ? "user" : "kernel", name);
		if (!quiet)
			target_report_untyped(&w.tok, n->loc);
		free(name);
		return false;
	}
	free(name);
	a = xcalloc(1, sizeof(*a));
	a->base = BASE_EXPR;
	a->user = user;
	a->expr = target_location_c(expr, user);
	a->lvalue = true;
	dwexpr_free(expr);
	w.a = a;
	w.type = dwtypes_var_type(&var);
	if (!walk_comps(&w, n->comps)) {
		if (!quiet)
			target_report_untyped(&w.tok, n->loc);
		free(a->steps);
		free(a->expr);
		free(a);
		return false;
	}
	where = xasprintf("operator '@var' at %s:%d:%d", n->loc.source ? n->loc.source->name : "",
			  n->loc.line, n->loc.col);
	a->location = c_string_literal(where);
	free(where);
	n->sym = a;
	n->type = TYPE_LONG;
	return true;
}

/*
 * @var("name[@file]"[, "PATH"]) in a process("PATH").function probe, from PATH's DWARF (the
 * probed file's when no PATH is named): its link-time address moved by the load bias the
 * uprobe's handler finds (each point of the probe is in the same file).
 */
static bool user_atvar(const struct provider_env *env, struct derived_probe *p,
		       struct node *n, bool quiet)
{
	const struct ktypes *kt = user_types_of(env, p->points);

	for (const struct derived_point *d = p->points; d; d = d->next)
		if (strcmp(d->symbol, p->points->symbol))
			return target_refuse(n, quiet, true, "tapster cannot read @var in a probe"
					     " on the functions of several files");
	if (!kt) {
		no_user_scope(p->points, n, quiet);
		return false;
	}
	return resolve_dwarf_atvar(kt, n, quiet, p->points->symbol, true);
}

bool target_resolve_atvar(const struct provider_env *env, struct derived_probe *p,
			  struct node *n, bool quiet)
{
	struct token_desc tok = { "operator", "@var" };
	bool in_kernel = (n->module && !strcmp(n->module, "kernel")) ||
			 (!n->module && on_kernel_functions(p));
	const struct ktypes *kt = in_kernel && env && env->types ? env->types(env->ctx) : NULL;

	if (kt && ktypes_dwarf(kt))
		return resolve_dwarf_atvar(kt, n, quiet, "kernel", false);
	if (on_uprobes(p) && (!n->module || !strcmp(n->module, p->points->symbol)))
		return user_atvar(env, p, n, quiet);
	if (quiet)
		return false;
	if (n->module && strcmp(n->module, "kernel")) {
		/* A user-space module's globals are not read (yet): what stap says when the
		 * file has no DWARF for it. Reported twice, the second suppressed. */
		for (int i = 0; i < 2; i++)
			diag_error_at("semantic error", &tok, n->loc,
				      "unable to find global '%s' in %s", n->text, n->module);
	} else if (!in_kernel || strchr(n->text, '@')) {
		/* Reported twice, the second suppressed as similar. */
		for (int i = 0; i < 2; i++)
			diag_error_at("semantic error", &tok, n->loc, "unresolved @var() expression");
	} else {
		diag_error_at("semantic error", &tok, n->loc,
			      "tapster cannot read kernel global '%s': the kernel's BTF has no"
			      " type for it", n->text);
	}
	target_report_untyped(&tok, n->loc);
	return false;
}

/* ---- Writes (guru mode) ---- */

/* The token stap reports a write's error at: the $name, @cast or @var. */
static struct token_desc write_token(struct node *n)
{
	if (n->kind == N_CAST)
		return (struct token_desc){ "operator", "@cast" };
	if (n->kind == N_ATVAR)
		return (struct token_desc){ "operator", "@var" };
	return (struct token_desc){ "identifier", n->text };
}

static bool refuse_write(struct node *n, const char *message)
{
	struct token_desc tok = write_token(n);

	diag_error_at("semantic error", &tok, n->loc, "%s", message);
	return false;
}

/* Whether the access `a` (one point's) names something a store can change. */
static bool access_writable(struct node *n, const struct target_access *a)
{
	if (a->base == BASE_PER_POINT) {
		for (int i = 0; i < a->npoints; i++)
			if (!access_writable(n, a->per_point[i]))
				return false;
		return true;
	}
	if (a->address_of)
		return refuse_write(n, "cannot write to array address");
	if (!a->lvalue && a->bit_size)
		return refuse_write(n, "tapster cannot write a member of a structure held in a"
				    " register");
	if (a->lvalue || a->base == BASE_PARAM || a->base == BASE_RETURN)
		return true;
	if (a->base == BASE_EXPR && a->reg)
		return true;
	return refuse_write(n, "tapster cannot write a variable whose value is computed at this"
			    " address [man error::dwarf]");
}

bool target_check_write(struct derived_probe *p, struct node *n)
{
	const struct target_access *a = n->sym;

	if (!a)
		return false;
	if (n->kind == N_TARGET && on_tracepoints(p) && !a->lvalue) {
		char *message = xasprintf("write to tracepoint variable '%s' not permitted; need"
					  " stap -g", n->text);

		refuse_write(n, message);
		free(message);
		return false;
	}
	if (n->kind == N_TARGET && on_process_events(p))
		return refuse_write(n, "tapster cannot write the target variables of this probe");
	return access_writable(n, a);
}
