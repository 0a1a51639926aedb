// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 2: resolution, and the pass as a whole.
 *
 * Has each probe's points derived through the providers and the aliases (derive.c),
 * resolves every identifier to a local, parameter or global and every call to a script or
 * library function (pulling in only what is used), then has the optimizer (optimize.c) and
 * type inference (infer.c) run on the result.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "parse/ast_copy.h"
#include "providers/providers.h"
#include "resolve/autoprint.h"
#include "diag.h"
#include "resolve/elaborate.h"
#include "resolve/regex.h"
#include "parse/format.h"
#include "resolve/optimize.h"
#include "resolve/program.h"
#include "resolve/target_vars.h"
#include "util.h"


/* ---- Symbols ---- */

static struct var *scope_find(struct scope *scope, const char *name)
{
	for (struct var *v = scope->vars; v; v = v->next)
		if (!strcmp(v->name, name))
			return v;
	return NULL;
}

static struct var *scope_add(struct scope *scope, const char *name, struct loc loc)
{
	struct var **tail = &scope->vars;

	while (*tail)
		tail = &(*tail)->next;
	*tail = xcalloc(1, sizeof(**tail));
	(*tail)->name = xstrdup(name);
	(*tail)->loc = loc;
	scope->nvars++;
	return *tail;
}

/* A private global or function is seen only from the file that declares it (from NULL:
 * the end probes that print globals, which see them all). */
static bool visible(bool is_private, struct loc declared, const struct source *from)
{
	return !is_private || !from || declared.source == from;
}

static struct global *find_global_in(struct file *file, const char *name,
				     const struct source *from)
{
	for (struct global *g = file->globals; g; g = g->next)
		if (!strcmp(g->name, name) && visible(g->is_private, g->loc, from))
			return g;
	return NULL;
}

/* stap's name of a private symbol: __private_, the file's path with every character
 * other than a letter or digit made '_', '_' and the name. */
static char *private_name(const struct source *file, const char *name)
{
	char *path = xstrdup(file ? file->name : "");

	for (char *c = path; *c; c++)
		if (!isalnum((unsigned char)*c))
			*c = '_';
	char *mangled = xasprintf("__private_%s_%s", path, name);

	free(path);
	return mangled;
}

/* The user's globals first, then the library's, as seen from the file `from`. */
struct var *find_global(struct elab *e, const char *name, const struct source *from)
{
	struct global *g = find_global_in(e->program->user, name, from);

	for (struct file *f = e->program->tapsets; !g && f; f = f->next)
		g = find_global_in(f, name, from);
	if (!g)
		return NULL;
	for (struct var *v = e->program->globals; v; v = v->next)
		if (v->global == g)
			return v;

	struct var *v = xcalloc(1, sizeof(*v));

	v->name = xstrdup(g->name);
	v->c_name = g->is_private ? private_name(g->loc.source, g->name) : xstrdup(g->name);
	v->global = g;
	v->loc = g->loc;
	v->probes_before = e->program->nprobes;
	if (g->init)
		v->type = g->init->kind == N_STRING ? TYPE_STRING : TYPE_LONG;
	*e->globals_tail = v;
	e->globals_tail = &v->next;
	e->program->nglobals++;
	return v;
}

static struct function *find_function_in(struct file *file, const char *name, int arity,
					 const struct source *from)
{
	for (struct function *f = file->functions; f; f = f->next)
		if (!strcmp(f->name, name) && f->nparams == arity &&
		    visible(f->is_private, f->loc, from))
			return f;
	return NULL;
}


/* Calls `visit` on every function definition, the script's first, in the order stap reads
 * them; stops when it returns true. */
static struct function *each_function(struct elab *e,
				      bool (*visit)(struct function *f, void *ctx), void *ctx)
{
	for (struct function *f = e->program->user->functions; f; f = f->next)
		if (visit(f, ctx))
			return f;
	for (struct file *file = e->program->tapsets; file; file = file->next)
		for (struct function *f = file->functions; f; f = f->next)
			if (visit(f, ctx))
				return f;
	return NULL;
}

struct overload_search {
	const struct function *of;
	bool passed;		/* `of` was seen */
	int index;		/* definitions of its name before it */
};

static bool count_overloads(struct function *f, void *ctx)
{
	struct overload_search *s = ctx;

	if (f == s->of)
		return true;
	s->index += !strcmp(f->name, s->of->name);
	return false;
}

static bool after_same_arity(struct function *f, void *ctx)
{
	struct overload_search *s = ctx;

	if (f == s->of) {
		s->passed = true;
		return false;
	}
	return s->passed && f->nparams == s->of->nparams && !strcmp(f->name, s->of->name);
}

static bool is_next(const struct node *n, void *ctx)
{
	(void)ctx;
	return n->kind == N_NEXT;
}

/* stap's function overloading: a `next` in a function runs the next definition of its
 * name and arity. */
static void link_overloads(struct elab *e, struct used_function *u)
{
	struct overload_search s = { .of = u->function };
	struct function *next;

	each_function(e, count_overloads, &s);
	u->overload = s.index;
	char *base = u->function->is_private ?
		     private_name(u->function->loc.source, u->function->name) :
		     xasprintf("__global_%s", u->function->name);

	u->c_name = xasprintf("%s__overload_%d", base, u->overload);
	free(base);
	if (!u->function->body || !node_any(u->function->body, is_next, NULL))
		return;
	s.passed = false;
	next = each_function(e, after_same_arity, &s);
	if (next)
		u->next_overload = use_function(e, next);
}

static struct used_function *find_function(struct elab *e, const char *name, int arity,
					    const struct source *from)
{
	struct function *f = find_function_in(e->program->user, name, arity, from);

	for (struct file *file = e->program->tapsets; !f && file; file = file->next)
		f = find_function_in(file, name, arity, from);
	return f ? use_function(e, f) : NULL;
}

/* The first function called `name` seen from `from`, whatever its arity, or NULL. */
static struct function *function_named(struct elab *e, const char *name,
				       const struct source *from)
{
	for (struct function *f = e->program->user->functions; f; f = f->next)
		if (!strcmp(f->name, name) && visible(f->is_private, f->loc, from))
			return f;
	for (struct file *file = e->program->tapsets; file; file = file->next)
		for (struct function *f = file->functions; f; f = f->next)
			if (!strcmp(f->name, name) && visible(f->is_private, f->loc, from))
				return f;
	return NULL;
}

/* ---- Resolution ---- */

static void resolve_list(struct elab *e, struct node_list *list)
{
	for (int i = 0; i < list->len; i++)
		resolve_node(e, list->items[i]);
}

static void unsupported(struct node *n, const char *what)
{
	struct token_desc tok = { "operator", n->text ? n->text : op_text(n->op) };

	diag_error_at("semantic error", &tok, n->loc, "tapster does not support %s yet", what);
}

static bool resolve_target(struct elab *e, struct node *n, bool quiet);
static bool resolve_cast(struct elab *e, struct node *n, bool quiet);

/* The $target, @cast or @var an assignment or ++/-- writes (through `&`, as stap reports
 * it), or NULL. */
static struct node *written_target(const struct node *n)
{
	struct node *lhs = n->lhs;

	if (n->kind != N_PREINC && n->kind != N_POSTINC && n->kind != N_ASSIGN)
		return NULL;
	if (lhs && lhs->kind == N_UNARY && lhs->op == '&')
		lhs = lhs->lhs;
	if (lhs && (lhs->kind == N_TARGET || lhs->kind == N_CAST || lhs->kind == N_ATVAR))
		return lhs;
	return NULL;
}

static bool refuse_write_at(struct node *target, const char *message)
{
	bool is_cast = target->kind == N_CAST && target->text;
	bool is_var = target->kind == N_ATVAR;
	char *owned = target->kind == N_TARGET && target->suffix && !target->comps ?
		xasprintf("%s%s", target->text, target->suffix) : NULL;
	struct token_desc tok = is_cast ? (struct token_desc){ "operator", "@cast" } :
				is_var	? (struct token_desc){ "operator", "@var" } :
				owned	? (struct token_desc){ "identifier", owned } :
					  node_token(target);

	diag_error_at("semantic error", &tok, target->loc, "%s", message);
	free(owned);
	return false;
}

/* What stap refuses before it resolves a written target, in its order; false after its
 * error. */
static bool write_permitted(struct elab *e, struct node *n, struct node *target)
{
	if (!e->env || !e->env->guru)
		return refuse_write_at(target, target->kind == N_CAST ?
				       "write to @cast context variable not permitted; need stap -g" :
				       target->kind == N_ATVAR ?
				       "write to @var variable not permitted; need stap -g" :
				       "write to target variable not permitted; need stap -g");
	if (target->kind == N_TARGET && target->text[1] == '$')
		return refuse_write_at(target, "cannot write to context variable");
	if (target->suffix)
		return refuse_write_at(target, "cannot write to pretty-printed variable");
	if (target->kind == N_TARGET && e->probe && e->probe->is_return &&
	    strcmp(target->text, "$return"))
		return refuse_write_at(target,
				       "write to target variable not permitted in .return probes");
	if (n->kind != N_ASSIGN || n->op != '=') {
		struct token_desc tok = node_token(n);

		diag_error_at("semantic error", &tok, n->loc, "Only the following assign operator"
			      " is implemented on target variables:  =");
		return false;
	}
	if (n->lhs != target)
		return refuse_write_at(target, "cannot write to member address");
	return true;
}

/*
 * A write to a $target, @cast or @var: guru mode only, as in stap, which takes `=` alone;
 * resolved as a read, then checked that it can be stored (target_check_write); pass 3
 * stores it (gen_target_write).
 */
static void resolve_target_write(struct elab *e, struct node *n, struct node *target)
{
	bool resolved;

	if (!write_permitted(e, n, target))
		return;
	target_resolving_write(true);
	if (target->kind == N_TARGET)
		resolved = resolve_target(e, target, false);
	else if (target->kind == N_CAST)
		resolved = resolve_cast(e, target, false);
	else
		resolved = target_resolve_atvar(e->env, e->probe, target, false);
	target_resolving_write(false);
	if (resolved && target->sym)
		target_check_write(e->probe, target);
	resolve_node(e, n->rhs);
}

/* The pattern of `=~` / `!~` compiles, or stap's error about it, located at the literal. */
static void check_regex(const struct node *pattern)
{
	struct token_desc tok = { "string", pattern->raw };
	struct regex_program *program;
	char *message = NULL;
	int position;

	program = regex_compile(pattern->raw, &message, &position);
	if (program) {
		regex_free(program);
		return;
	}
	if (position >= 0)
		diag_error_at("semantic error", &tok, pattern->loc,
			      "regex compilation error (at position %d): %s", position, message);
	else
		diag_error_at("semantic error", &tok, pattern->loc, "regex compilation error: %s",
			      message);
	free(message);
}

/* A global declared with a size (`global a[N]`) or wrapping (`global a%`) used as a scalar:
 * stap's error at the declaration, once, in place of any other about its arity. */
static bool scalar_use_misuses_decl(struct var *v)
{
	struct token_desc tok = { "identifier", v->name };

	if (!v->global->max_entries && !v->global->wrap)
		return false;
	if (v->decl_misused)
		return true;
	v->decl_misused = true;
	diag_error_at("semantic error", &tok, v->global->loc, v->global->max_entries ?
		      "inconsistent arity" : "wrapping not supported for scalars");
	return true;
}

/* A global used with `nkeys` keys (0: as a scalar): the same number at every use. */
static void note_arity(struct var *v, int nkeys, const struct node *use)
{
	struct token_desc tok = { "identifier", v->name };

	if (!nkeys && scalar_use_misuses_decl(v))
		return;
	if (!v->arity_known) {
		v->arity_known = true;
		v->arity_loc = use->loc;
		return;
	}
	if (nkeys == v->arity)
		return;
	diag_error_at("semantic error", &tok, use->loc, "inconsistent arity (%d vs %d)", v->arity,
		      nkeys);
	diag_continue();
	diag_error_at("semantic error", &tok, v->arity_loc, "arity %d first inferred here",
		      v->arity);
}

static void resolve_ident(struct elab *e, struct node *n)
{
	struct var *v = scope_find(e->scope, n->text);

	if (!v)
		v = find_global(e, n->text, e->printing_globals ? NULL : n->loc.source);
	if (!v)
		v = scope_add(e->scope, n->text, n->loc);
	else if (v->global)
		note_arity(v, 0, n);
	n->sym = v;
}

/* The public functions of stap 4.8's library, sorted (data/stap-names/functions
 * and helpers, which scripts/stap-names makes). */
static const char *const stap_library_functions[] = {
#include "resolve/stap_functions.inc"
};

static int compare_to_name(const void *key, const void *elem)
{
	return strcmp(key, *(const char *const *)elem);
}

/* Whether stap's library has a public function `name` (tapster's own helpers, `__sc_*`, and
 * what stap keeps private are not among them). */
static bool stap_library_has(const char *name)
{
	return bsearch(name, stap_library_functions,
		       sizeof(stap_library_functions) / sizeof(stap_library_functions[0]),
		       sizeof(stap_library_functions[0]), compare_to_name) != NULL;
}

/* "unresolved function foo (similar: ...)", from stap's candidates: the script's functions
 * resolved so far (called before this call, in the order stap resolves), and the library's
 * public functions, of tapster's own library those that stap's has too. */
static void unresolved_function(struct elab *e, const struct node *n,
				const struct token_desc *tok)
{
	const char **names = NULL;
	size_t count = 0;
	char *similar;

	for (const struct used_function *u = e->program->functions; u; u = u->next)
		if (u->function->loc.source == e->program->user->source)
			ARRAY_PUSH(names, count, u->function->name);
	for (struct file *file = e->program->tapsets; file; file = file->next)
		for (struct function *f = file->functions; f; f = f->next)
			if (!f->is_private && (!file->own_library || stap_library_has(f->name)))
				ARRAY_PUSH(names, count, f->name);
	similar = similar_names(n->text, names, count);
	diag_error_at("semantic error", tok, n->loc, "unresolved function %s%s", n->text,
		      similar);
	free(similar);
	free(names);
}

/* stap's error for an array no global declares. As stap's, a repeat of it is suppressed
 * as similar only where the same construct raised it: a foreach's has a format of its own
 * (diag compares the formats' addresses), so a foreach over an undeclared array and an
 * index into it are both reported. */
static const char undeclared_array[] =
	"unresolved arity-%d global array %s, missing global declaration?";
static const char undeclared_foreach_array[] =
	"unresolved arity-%d global array %s, missing global declaration?";

/* The array of a[k...], k in a, foreach (... in a): a global (stap has no local arrays),
 * or a histogram being indexed; `undeclared` is the error's format when there is none. */
static void resolve_array_as(struct elab *e, struct node *array, int nkeys,
			     const char *undeclared)
{
	struct var *v;

	if (array->kind != N_IDENT) {
		resolve_node(e, array);
		return;
	}
	v = scope_find(e->scope, array->text) ? NULL : find_global(e, array->text, array->loc.source);
	if (!v) {
		struct token_desc tok = { "identifier", array->text };

		diag_error_at("semantic error", &tok, array->loc, undeclared, nkeys, array->text);
		return;
	}
	if (nkeys > MAX_ARRAY_KEYS) {
		struct token_desc tok = { "identifier", array->text };

		diag_error_at("semantic error", &tok, array->loc,
			      "too many keys (%d): tapster's arrays take at most %d", nkeys,
			      MAX_ARRAY_KEYS);
		return;
	}
	if (!v->arity_known && nkeys > 0) {
		v->arity = nkeys;
		v->global->is_array = true;
	}
	note_arity(v, nkeys, array);
	array->sym = v;
}

static void resolve_array(struct elab *e, struct node *array, int nkeys)
{
	resolve_array_as(e, array, nkeys, undeclared_array);
}

static void resolve_foreach(struct elab *e, struct foreach *f)
{
	resolve_list(e, &f->keys);
	resolve_node(e, f->value);
	resolve_list(e, &f->slice);
	resolve_array_as(e, f->array, f->keys.len, undeclared_foreach_array);
	resolve_node(e, f->limit);
	resolve_node(e, f->body);
}

/* An embedded-C function marked guru (the set_kernel_* writes): -g only, as in stap. */
static bool needs_guru(const struct function *f)
{
	return f->embedded && strstr(f->embedded, "/* guru */");
}

/* --privilege=stapusr: the library's embedded C runs only where it is marked
 * unprivileged (or myproc-unprivileged), as in stap. */
static bool marked_unprivileged(const char *code)
{
	return strstr(code, "unprivileged */") != NULL;
}

/* A function stapusr may not call: embedded C, or a script body with marks before it (the
 * library's script versions of functions stap writes in C), without the unprivileged mark.
 * A script function without marks is allowed when all it calls is. */
static bool needs_privilege(const struct function *f)
{
	return (f->embedded || f->marked) && !function_has_pragma(f, "unprivileged") &&
	       !function_has_pragma(f, "myproc-unprivileged");
}

static bool refuse_privileged_expr(const struct node *n, void *ctx)
{
	struct token_desc tok = { "embedded-code", NULL };

	(void)ctx;
	if (n->kind == N_EMBEDDED_EXPR && !marked_unprivileged(n->text))
		diag_error_at("semantic error", &tok, n->loc,
			      "embedded expression may not be used when --privilege=stapusr is"
			      " specified");
	return false;
}

static void check_unprivileged(const struct program *program)
{
	for (const struct used_function *f = program->functions; f; f = f->next) {
		const struct function *fn = f->function;
		struct token_desc tok = { "identifier", fn->name };

		if (needs_privilege(fn))
			diag_error_at("semantic error", &tok, fn->loc,
				      "function may not be used when --privilege=stapusr is"
				      " specified");
		node_any(fn->body, refuse_privileged_expr, NULL);
	}
	for (const struct derived_probe *p = program->probes; p; p = p->next)
		node_any(p->body, refuse_privileged_expr, NULL);
}

static void resolve_call(struct elab *e, struct node *n)
{
	struct used_function *f;

	resolve_list(e, &n->args);
	f = find_function(e, n->text, n->args.len, n->loc.source);
	if (!f) {
		struct token_desc tok = { "identifier", n->text };
		struct function *other = function_named(e, n->text, n->loc.source);

		if (other)
			diag_error_at_also("semantic error", &tok, n->loc, &tok, other->loc,
					   "arity mismatch found (function '%s' takes %d args)",
					   n->text, other->nparams);
		else
			unresolved_function(e, n, &tok);
		return;
	}
	/* As stap, only the user's own calls: a tapset function may call a guru one (the
	 * set_*_arg functions, set_user_string_arg) and be called without -g. Under
	 * stapusr, check_unprivileged() refuses it first, as stap does. */
	if (needs_guru(f->function) && !(n->loc.source && n->loc.source->is_tapset) &&
	    (!e->env || (!e->env->guru && !e->env->unprivileged))) {
		struct token_desc tok = { "identifier", n->text };

		diag_error_at("semantic error", &tok, n->loc,
			      "function may not be used unless -g is specified");
	}
	n->sym = f;
}

static bool is_defined_op(const struct node *n, void *ctx)
{
	(void)ctx;
	return n->kind == N_DEFINED;
}

/* Whether `cond` is folded while the probe is derived, before its branches are resolved:
 * stap does so with a @defined in it, and with any constant in a probe on functions. */
static bool folds_early(const struct elab *e, const struct node *cond)
{
	return node_any(cond, is_defined_op, NULL) ||
	       (e->probe && target_probe_on_functions(e->probe));
}

/* The folded condition `cond` kept in `n`, before what `n` dropped already: stap numbered
 * the target reads of its @defined (synth_functions.c). */
static void keep_dropped(struct node *n, struct node *cond)
{
	struct node_list kept = { 0 };

	if (!cond->synth_dropped.len)
		return;
	node_list_push(&kept, cond);
	for (int i = 0; i < n->synth_dropped.len; i++)
		node_list_push(&kept, n->synth_dropped.items[i]);
	n->synth_dropped = kept;	/* a new list: the old one may be a copy's too */
}

/* `n` becomes the branch `live` (resolved), or an empty statement; its folded condition
 * `cond` is kept as dropped. */
static void become_branch(struct elab *e, struct node *n, struct node *live, struct node *cond)
{
	if (live) {
		*n = *live;
		resolve_node(e, n);
		keep_dropped(n, cond);
		return;
	}
	struct loc loc = n->loc;

	memset(n, 0, sizeof(*n));
	n->kind = N_NULL;
	n->op = 1;	/* made here: no ';' of the script */
	n->loc = loc;
	keep_dropped(n, cond);
}

/*
 * if, ?:, && and || on a condition that is a constant once @defined is decided: as stap,
 * only what runs is resolved, so the other branch may name a $var the point lacks
 * (`@defined($x) ? $x : -1`). false when `n` is left to the usual resolution.
 */
static bool resolve_constant_branch(struct elab *e, struct node *n)
{
	struct node *cond = n->kind == N_BINARY ? n->lhs : n->cond;
	int64_t value;

	if (!folds_early(e, cond))
		return false;
	resolve_node(e, cond);
	if (!optimize_constant_value(cond, &value)) {
		resolve_node(e, n->kind == N_BINARY ? n->rhs : n->then);
		resolve_node(e, n->els);
		return true;
	}
	if (n->kind != N_BINARY) {
		become_branch(e, n, value ? n->then : n->els, cond);
		return true;
	}
	if ((n->op == OP_ANDAND && !value) || (n->op == OP_OROR && value)) {
		n->kind = N_NUMBER;
		n->num = n->op == OP_OROR;
		n->text = xstrdup(n->num ? "1" : "0");
		n->lhs = n->rhs = NULL;
		keep_dropped(n, cond);
		return true;
	}
	resolve_node(e, n->rhs);
	return true;
}

static void resolve_entry(struct elab *e, struct node *n);

/* $name in a return probe is its value at the function's entry: @entry($name). */
static void resolve_as_entry(struct elab *e, struct node *n)
{
	struct node *inner = xmalloc(sizeof(*inner));

	*inner = *n;
	n->kind = N_ENTRY;
	n->synth_seq = -1;	/* stap saves it apart from @entry's: not one of those (-p2) */
	n->synth_pretty = 0;
	n->text = NULL;
	n->comps = NULL;
	n->suffix = NULL;
	/* The inner has what an expanded $x$ or $$parms became (one sprintf of its values). */
	n->args = (struct node_list){ 0 };
	n->synth_dropped = (struct node_list){ 0 };
	n->lhs = inner;
	resolve_entry(e, n);
}

static void resolve_comps(struct elab *e, struct target_comp *comps)
{
	for (struct target_comp *c = comps; c; c = c->next)
		resolve_node(e, c->index_expr);
}

/* $file->f_path$ as stap shows it in its @entry warning: "$file->f_path->$". */
static char *entry_text(const struct node *n)
{
	struct strbuf sb = { 0 };

	sb_add(&sb, n->text);
	for (const struct target_comp *c = n->comps; c; c = c->next) {
		if (c->kind == COMP_FIELD)
			sb_addf(&sb, "->%s", c->field);
		else if (c->kind == COMP_INDEX_NUM)
			sb_addf(&sb, "[%" PRId64 "]", c->index);
		else
			sb_add(&sb, "[...]");
	}
	if (n->suffix)
		sb_addf(&sb, "->%s", n->suffix);
	return sb_steal(&sb);
}

/* stap's warning for a $var in a return probe, outside @entry, which captures it there. */
static void warn_entry(const struct node *n)
{
	char *shown = entry_text(n);
	char *token = xasprintf("%s%s", n->text, n->suffix && !n->comps ? n->suffix : "");
	struct token_desc tok = { "identifier", token };

	diag_warning_at(&tok, n->loc, "confusing usage, value is captured as @entry(%s) in"
			" .return probe [man stapprobes] RETURN PROBES", shown);
	free(token);
	free(shown);
}

/* $var, $var->field..., $$parms, $var$ (target_vars.c); `quiet` for @defined. */
static bool resolve_target(struct elab *e, struct node *n, bool quiet)
{
	/* @defined only asks whether it resolves, which the entry's parameters also do. A
	 * PLT entry's $$name is its symbol, the same at the return (stap says nothing). */
	bool as_entry = e->probe && e->probe->is_return && !e->in_entry && !quiet &&
			strcmp(n->text, "$return") && strcmp(n->text, "$$return") &&
			!(on_plt(e->probe) && !strcmp(n->text, "$$name"));

	if (on_procfs(e->probe)) {
		if (!procfs_value_read(e->probe, n, quiet))
			return false;
		resolve_node(e, n);
		return true;
	}
	if (on_netfilter(e->probe)) {
		if (!netfilter_var_read(e->env, e->probe, n, quiet))
			return false;
		resolve_node(e, n);
		return true;
	}
	if (n->suffix && quiet)
		return false;
	if (as_entry && !quiet)
		warn_entry(n);
	if (n->text[1] == '$' || n->suffix) {
		resolve_comps(e, n->comps);
		if (!(n->text[1] == '$' ? target_expand_vars(e->env, e->probe, n) :
		      target_expand_pretty(e->env, e->probe, n)))
			return false;
		if (as_entry)
			resolve_as_entry(e, n);
		else
			resolve_node(e, n);
		return true;
	}
	if (as_entry) {
		resolve_as_entry(e, n);
		return true;
	}
	resolve_comps(e, n->comps);
	return target_resolve(e->env, e->probe, n, quiet);
}

/*
 * --skip-badvars: a $var that does not resolve reads 0, with stap's warning (a $var that
 * resolves is as without the option).
 */
static void resolve_target_or_zero(struct elab *e, struct node *n)
{
	struct token_desc tok = { "identifier", n->text };
	bool resolved;

	diag_quiet_begin();
	resolved = resolve_target(e, n, false);
	if (diag_quiet_end() == 0 && resolved)
		return;
	diag_warning_at(&tok, n->loc, "Bad $context variable being substituted with literal 0");
	n->kind = N_NUMBER;
	n->num = 0;
	n->text = xstrdup("0");
	n->comps = NULL;
	n->suffix = NULL;
	resolve_node(e, n);
}

/* ---- Autocasts: value->field where value carries a type ---- */

static const struct node *autocast_source(struct elab *e, const struct node *v, int depth);

/* An assignment `var = value` in the probe's body whose value has a type. */
struct typed_assignment {
	struct elab *e;
	const void *var;
	int depth;
	const struct node *source;
};

static bool typed_assignment(const struct node *n, void *ctx)
{
	struct typed_assignment *t = ctx;

	if (n->kind != N_ASSIGN || n->op != '=' || !n->lhs || n->lhs->kind != N_IDENT ||
	    n->lhs->sym != t->var)
		return false;
	t->source = autocast_source(t->e, n->rhs, t->depth + 1);
	return t->source != NULL;
}

/* The resolved $target, @cast or @var whose type the value `v` has, as stap follows it: the
 * value itself, the branch of a ?: (the one a constant condition takes), a local of the
 * probe assigned one (the first such assignment); NULL when none. */
static const struct node *autocast_source(struct elab *e, const struct node *v, int depth)
{
	const struct var *var;

	if (!v || depth > 8)
		return NULL;
	switch (v->kind) {
	case N_TARGET:
	case N_CAST:
	case N_ATVAR:
		return v->sym ? v : NULL;
	case N_UNARY:
		/* &$x->y, &@cast(...)->y: the address of what it names. */
		return v->op == '&' && v->lhs && v->lhs->address_of && v->lhs->sym ? v->lhs : NULL;
	case N_TERNARY:
		if (v->cond && v->cond->kind == N_NUMBER)
			return autocast_source(e, v->cond->num ? v->then : v->els, depth + 1);
		{
			const struct node *then = autocast_source(e, v->then, depth + 1);

			return then ? then : autocast_source(e, v->els, depth + 1);
		}
	case N_IDENT:
		var = v->sym;
		if (var && !var->global && !var->is_param && e->probe && e->probe->body) {
			struct typed_assignment t = { e, var, depth, NULL };

			node_any(e->probe->body, typed_assignment, &t);
			return t.source;
		}
		return NULL;
	default:
		return NULL;
	}
}

static bool resolve_autocast(struct elab *e, struct node *n, bool quiet)
{
	const struct node *source;
	const struct ktypes *kt;
	ktype_id type;
	bool user;

	resolve_node(e, n->lhs);
	resolve_comps(e, n->comps);
	source = autocast_source(e, n->lhs, 0);
	if (!n->suffix && source && target_autocast_type(source, &kt, &type, &user))
		return target_resolve_autocast(n, kt, type, user, quiet);
	if (!quiet) {
		struct token_desc tok = { "operator", "->" };

		diag_error_at("semantic error", &tok, n->comps ? n->comps->loc : n->loc,
			      "unknown type in dereference");
		target_report_untyped(&tok, n->comps ? n->comps->loc : n->loc);
	}
	return false;
}

static bool resolve_cast(struct elab *e, struct node *n, bool quiet)
{
	if (!n->text)
		return resolve_autocast(e, n, quiet);
	if (n->suffix) {
		if (quiet || !target_expand_pretty(e->env, e->probe, n))
			return false;
		resolve_node(e, n);
		return true;
	}
	resolve_node(e, n->lhs);
	resolve_comps(e, n->comps);
	return target_resolve_cast(e->env, e->probe, n, quiet);
}

/* The operand of `&$x->y` or `&@cast(p, "T")->y`, marked to resolve to its address; else
 * `n` itself. */
static struct node *address_operand(struct node *n)
{
	if (n->kind != N_UNARY || n->op != '&' ||
	    (n->lhs->kind != N_TARGET && n->lhs->kind != N_CAST))
		return n;
	n->lhs->address_of = true;
	return n->lhs;
}

/* @defined(expr): 1 when the $target or @cast expression resolves, else 0, decided here. */
static void resolve_defined(struct elab *e, struct node *n)
{
	struct node *expr = address_operand(n->lhs);
	bool defined = true;

	if (expr->kind == N_TARGET)
		defined = resolve_target(e, expr, true);
	else if (expr->kind == N_CAST)
		defined = resolve_cast(e, expr, true);
	else if (expr->kind == N_ATVAR)
		defined = target_resolve_atvar(e->env, e->probe, expr, true);
	else
		resolve_node(e, expr);
	n->kind = N_NUMBER;
	n->num = defined;
	n->text = xstrdup(defined ? "1" : "0");
	if (defined)
		node_list_push(&n->synth_dropped, n->lhs);
	n->lhs = NULL;
}

static void resolve_entry(struct elab *e, struct node *n)
{
	if (!e->probe || !e->probe->is_return) {
		struct token_desc tok = { "operator", "@entry" };

		/* stap words this one as an internal error of the probe's processing. */
		if (e->probe)
			diag_error("semantic error", "while processing probe %s\n",
				   e->probe->points->origin);
		else
			diag_error("semantic error", "while processing function %s\n",
				   e->resolving_function ? e->resolving_function->name : "");
		diag_continue();
		diag_error_at("semantic error", &tok, n->loc,
			      "internal error: @entry is only valid in .return probes");
		return;
	}
	bool saved_in_entry = e->in_entry;

	e->in_entry = true;
	resolve_node(e, n->lhs);
	e->in_entry = saved_in_entry;
	n->entry_slot = e->probe->entries.len;
	node_list_push(&e->probe->entries, n);
}

static void check_print_format(struct node *n)
{
	struct format format;
	const char *error;
	bool formatted = !strcmp(n->text, "printf") || !strcmp(n->text, "sprintf");

	if (!formatted)
		return;
	if (n->args.len == 0 || n->args.items[0]->kind != N_STRING)
		return;	/* pass 1 refuses these */
	if (!format_parse(n->args.items[0]->text, &format, &error))
		return;	/* so does it these */
	if (format.nargs != n->args.len - 1) {
		struct token_desc tok = { "identifier", n->text };

		diag_error_at("semantic error", &tok, n->loc,
			      "Wrong number of args to formatted print operator");
	}
	format_free(&format);
}

void resolve_node(struct elab *e, struct node *n)
{
	if (!n)
		return;
	switch (n->kind) {
	case N_NUMBER:
	case N_STRING:
	case N_NULL:
	case N_BREAK:
	case N_CONTINUE:
	case N_NEXT:
		return;
	case N_IDENT:
		resolve_ident(e, n);
		return;
	case N_TARGET:
		if (e->env->skip_badvars)
			resolve_target_or_zero(e, n);
		else
			resolve_target(e, n, false);
		return;
	case N_CAST:
		resolve_cast(e, n, false);
		return;
	case N_DEFINED:
		resolve_defined(e, n);
		return;
	case N_CALL:
		resolve_call(e, n);
		return;
	case N_PRINT:
		resolve_list(e, &n->args);
		check_print_format(n);
		return;
	case N_ENTRY:
		resolve_entry(e, n);
		return;
	case N_ASSIGN:
	case N_UNARY:
	case N_PREINC:
	case N_POSTINC:
	case N_BINARY:
	case N_EXPR_STMT:
	case N_RETURN:
		if (written_target(n)) {
			if (n->lhs->kind == N_TARGET && on_procfs(e->probe)) {
				if (procfs_value_assign(e->probe, n))
					resolve_node(e, n);
				return;
			}
			if (n->lhs->kind == N_TARGET && on_netfilter(e->probe)) {
				if (netfilter_var_assign(e->env, e->probe, n))
					resolve_node(e, n);
				return;
			}
			resolve_target_write(e, n, written_target(n));
			return;
		}
		if ((n->kind == N_PREINC || n->kind == N_POSTINC || n->kind == N_ASSIGN) &&
		    n->lhs && n->lhs->kind != N_IDENT && n->lhs->kind != N_INDEX) {
			unsupported(n, "assignment to this kind of value");
			return;
		}
		if (n->kind == N_BINARY && (n->op == OP_MATCH || n->op == OP_NOMATCH))
			check_regex(n->rhs);
		if (n->kind == N_BINARY && (n->op == OP_ANDAND || n->op == OP_OROR) &&
		    resolve_constant_branch(e, n))
			return;
		address_operand(n);
		resolve_node(e, n->lhs);
		resolve_node(e, n->rhs);
		return;
	case N_TERNARY:
	case N_IF:
	case N_WHILE:
	case N_FOR:
		if ((n->kind == N_TERNARY || n->kind == N_IF) && resolve_constant_branch(e, n))
			return;
		resolve_node(e, n->init);
		resolve_node(e, n->cond);
		resolve_node(e, n->inc);
		resolve_node(e, n->then);
		resolve_node(e, n->els);
		return;
	case N_BLOCK:
		resolve_list(e, &n->body);
		return;
	case N_INDEX:
	case N_IN:
		resolve_list(e, &n->args);
		resolve_array(e, n->lhs, n->args.len);
		return;
	case N_DELETE:
		if (n->lhs && n->lhs->kind == N_INDEX) {
			resolve_list(e, &n->lhs->args);
			resolve_array(e, n->lhs->lhs, n->lhs->args.len);
		} else if (n->lhs && n->lhs->kind == N_IDENT) {
			/* A whole array or a scalar: whatever its arity. */
			struct var *v = scope_find(e->scope, n->lhs->text);

			if (!v)
				v = find_global(e, n->lhs->text, n->lhs->loc.source);
			if (!v || v->is_param) {
				/* As stap: a scalar must be a local already, not a parameter. */
				struct token_desc tok = { "identifier", n->lhs->text };

				diag_error_at("semantic error", &tok, n->lhs->loc,
					      "unresolved array in delete statement");
				return;
			}
			n->lhs->sym = v;
		} else if (n->lhs) {
			struct token_desc tok = node_token(n->lhs);

			diag_error_at("semantic error", &tok, n->lhs->loc,
				      "invalid operand of delete expression");
		}
		return;
	case N_FOREACH:
		resolve_foreach(e, n->foreach);
		return;
	case N_STAR:
		return;
	case N_STATOP:
	case N_HIST:
		resolve_node(e, n->lhs);
		resolve_list(e, &n->args);
		return;
	case N_TRY:
		resolve_node(e, n->then);
		if (n->text) {
			/* catch (msg): a string local holding the error's message. */
			struct var *v = scope_find(e->scope, n->text);

			if (!v)
				v = scope_add(e->scope, n->text, n->lhs->loc);
			n->sym = v;
		}
		resolve_node(e, n->els);
		return;
	case N_ATVAR:
		target_resolve_atvar(e->env, e->probe, n, false);
		return;
	case N_PROBEWRITE:
		unsupported(n, "this target-variable operator");
		return;
	case N_REGISTER:
	case N_DEREF: {
		/* stap 4.8 has neither for the probes it can resolve here. */
		struct token_desc tok = { "operator", n->text };

		diag_error_at("semantic error", &tok, n->loc, "invalid operator");
		resolve_node(e, n->lhs);
		return;
	}
	case N_PERF:
		/* In a process("PATH").function probe, the probe's local __perf_read_NAME. */
		if (e->probe && !e->function &&
		    perf_read_resolve(e->program, e->probe, n) && n->kind == N_IDENT)
			resolve_node(e, n);
		return;
	case N_EMBEDDED_EXPR:
	case N_EMBEDDED_STMT:
		return;	/* guru mode's (the parser refuses it otherwise) */
	}
}

struct used_function *use_function(struct elab *e, struct function *f)
{
	struct used_function **tail = &e->program->functions;

	for (; *tail; tail = &(*tail)->next)
		if ((*tail)->function == f)
			return *tail;

	struct used_function *u = xcalloc(1, sizeof(*u));

	u->function = f;
	u->ret = f->ret;
	*tail = u;
	e->program->nfunctions++;
	for (struct param *p = f->params; p; p = p->next) {
		struct var *v = scope_add(&u->scope, p->name, p->loc);

		v->is_param = true;
		v->type = p->type;
	}
	if (f->body) {
		struct scope *saved_scope = e->scope;
		struct derived_probe *saved_probe = e->probe;

		const struct function *saved_function = e->resolving_function;

		e->scope = &u->scope;
		e->probe = NULL;
		e->resolving_function = f;
		resolve_node(e, f->body);
		e->resolving_function = saved_function;
		e->scope = saved_scope;
		e->probe = saved_probe;
	} else if (u->ret == TYPE_UNKNOWN) {
		u->ret = TYPE_VOID;	/* an embedded-C function with no declared type */
	}
	link_overloads(e, u);
	return u;
}

/* ---- The pass ---- */

static int compare_functions(const void *a, const void *b)
{
	const struct used_function *fa = *(struct used_function *const *)a;
	const struct used_function *fb = *(struct used_function *const *)b;

	/* stap lists them by their names in the generated C. */
	return strcmp(fa->c_name, fb->c_name);
}

static void sort_functions(struct program *program)
{
	struct used_function **all = xcalloc((size_t)program->nfunctions + 1, sizeof(*all));
	int n = 0;

	for (struct used_function *f = program->functions; f; f = f->next)
		all[n++] = f;
	qsort(all, (size_t)n, sizeof(*all), compare_functions);
	for (int i = 0; i < n; i++)
		all[i]->next = i + 1 < n ? all[i + 1] : NULL;
	program->functions = n ? all[0] : NULL;
	free(all);
}

/* ---- The library files' plain probes ---- */

void note_alias_source(struct elab *e, const struct source *source)
{
	for (int i = 0; i < e->nalias_sources; i++)
		if (e->alias_sources[i] == source)
			return;
	e->alias_sources = xrealloc(e->alias_sources,
				    sizeof(*e->alias_sources) * (size_t)(e->nalias_sources + 1));
	e->alias_sources[e->nalias_sources++] = source;
}

static bool has_plain_probe(const struct file *file)
{
	for (const struct probe *p = file->probes; p; p = p->next)
		if (p->kind == PROBE_PLAIN)
			return true;
	return false;
}

/* Whether the program uses one of the library file's functions, globals or aliases. */
static bool library_file_used(const struct elab *e, const struct file *file)
{
	for (const struct used_function *f = e->program->functions; f; f = f->next)
		if (f->function->loc.source == file->source)
			return true;
	for (const struct var *v = e->program->globals; v; v = v->next)
		if (v->global && v->global->loc.source == file->source)
			return true;
	for (int i = 0; i < e->nalias_sources; i++)
		if (e->alias_sources[i] == file->source)
			return true;
	return false;
}

/* As stap: the plain probes of a library file are part of the program when the program
 * uses the file (through the user's probes, or another library file's), derived after the
 * user's, in the library's order, each file once; what they use may pull in more files. */
static void derive_library_probes(struct elab *e, struct derived_probe ***tail)
{
	int nfiles = 0;

	for (const struct file *f = e->program->tapsets; f; f = f->next)
		nfiles++;
	bool *derived = xcalloc((size_t)nfiles + 1, sizeof(*derived));
	bool progress = true;

	while (progress) {
		int i = 0;

		progress = false;
		for (struct file *f = e->program->tapsets; f; f = f->next, i++) {
			if (derived[i] || !has_plain_probe(f) || !library_file_used(e, f))
				continue;
			derived[i] = true;
			progress = true;
			for (struct probe *p = f->probes; p; p = p->next)
				if (p->kind == PROBE_PLAIN)
					derive_probe(e, p, tail);
		}
	}
	free(derived);
}

int elaborate(struct file *user, struct file *tapsets, const struct provider_env *env,
	      bool optimize_program, struct program *program)
{
	struct elab e = { .program = program, .env = env };
	struct derived_probe **tail = &program->probes;

	memset(program, 0, sizeof(*program));
	program->user = user;
	program->tapsets = tapsets;
	e.globals_tail = &program->globals;
	collect_aliases(&e);
	int before = diag_error_count();

	for (struct probe *p = user->probes; p; p = p->next)
		if (p->kind == PROBE_PLAIN)
			derive_probe(&e, p, &tail);
	if (diag_error_count() == before)
		derive_library_probes(&e, &tail);
	if (diag_error_count() == before)
		providers_check(program);
	if (diag_error_count() == before && env->unprivileged)
		check_unprivileged(program);
	for (struct embed *em = user->embeds; em; em = em->next)
		program->nembeds++;
	program->embeds = user->embeds;
	if (diag_error_count() == before && env->printing_pass2)
		synth_functions_number(program, env);
	if (diag_error_count() == before && program->probes)
		optimize(program, optimize_program);
	if (diag_error_count() == before)
		infer_program(&e);
	/* Constant conditions fold once the code they drop has typed its variables. */
	if (diag_error_count() == before)
		optimize_typed(program, optimize_program);
	if (diag_error_count() == before && !program->probes)
		diag_error("semantic error", "no probes found\n");
	/* The globals printed at the end: written and, once elided statements are gone, never
	 * read (as stap chooses them). */
	int nprinted = 0;
	const struct var **printed = diag_error_count() == before ?
				     autoprint_select(program, &nprinted) : NULL;
	if (diag_error_count() == before) {
		/* stap prints the globals written and never read when the session ends. */
		struct probe *printers = autoprint_probes(printed, nprinted);

		/* The optimizer may have dropped the last probe: find the end again. */
		for (tail = &program->probes; *tail; tail = &(*tail)->next)
			;
		e.printing_globals = true;
		for (struct probe *p = printers; p; p = p->next)
			derive_probe(&e, p, &tail);
		if (env->monitor) {
			printers = autoprint_monitor_probe(program);
			for (struct probe *p = printers; p; p = p->next)
				derive_probe(&e, p, &tail);
		}
		e.printing_globals = false;
		if (printers)
			infer_program(&e);
		add_condition_probe(&e, &tail);
	}
	free(printed);
	if (diag_error_count() == before)
		check_types(&e);
	if (diag_error_count() == before)
		check_foreach_mutations(program);
	if (diag_error_count() == before)
		check_stat_uses(&e);
	sort_functions(program);
	free(e.alias_sources);
	providers_forget();
	return diag_error_count() - before;
}
