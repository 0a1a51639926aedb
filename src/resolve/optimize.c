// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 2's optimizer, run on the resolved program twice: before types are inferred
 * (optimize()) and after (optimize_typed()).
 *
 * Unless -u, stap's elisions, repeated until nothing changes:
 *
 *   - an assignment (=, <<<) to a local that nothing reads becomes its right-hand side
 *     ("Eliding assignment to 'x'");
 *   - an expression statement without side effects goes ("Eliding side-effect-free
 *     expression");
 *   - empty blocks, branches and loops go, and a block of one statement becomes it;
 *   - functions no probe calls any more, and variables nothing names any more, go.
 *
 * Before types, arithmetic on numbers is folded too. What depends on a constant condition
 * waits for types, as in stap, so that code which never runs still types the variables it
 * names (`if (0) x = "s"` makes x a string): an if, while or for on a constant is reduced
 * to what runs, `0 && x`, `1 || x` and a ternary on a constant are folded, and a probe left
 * with an empty body goes ("Probe 'begin' has been elided"). With -u only these folds are
 * made, and the reduction of an expression statement to its parts (discard()).
 *
 * As in stap, the elisions of the first round before types are reported, the ones they
 * make possible later are not; a local read and never assigned is reported in that round.
 */
#include "resolve/optimize.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "util.h"

struct optimizer {
	struct program *program;
	bool in_function;	/* judging a function: its own locals are no side effect */
	bool types_known;	/* after type inference: constant conditions are folded */
	/* Functions without a value whose calls were elided as statements: stap names them
	 * "side-effect-free function" once, after the statements. */
	struct used_function **pointless;
	int npointless;
	bool elide;		/* not -u */
	int round;
	bool changed;
	bool judge_functions;	/* calls to pure functions have no effect (not after types) */
};

/* ---- Walking the tree through its child slots ---- */

typedef void (*slot_fn)(struct optimizer *o, struct node **slot);

static void walk_slot(struct optimizer *o, struct node **slot, slot_fn fn);

static void walk_list(struct optimizer *o, struct node_list *list, slot_fn fn)
{
	for (int i = 0; i < list->len; i++)
		walk_slot(o, &list->items[i], fn);
}

static void walk_comps(struct optimizer *o, struct target_comp *c, slot_fn fn)
{
	for (; c; c = c->next)
		if (c->kind == COMP_INDEX_EXPR)
			walk_slot(o, &c->index_expr, fn);
}

/* Children first, then `fn` on the slot itself, which may replace the node. */
static void walk_slot(struct optimizer *o, struct node **slot, slot_fn fn)
{
	struct node *n = *slot;

	if (!n)
		return;
	walk_slot(o, &n->lhs, fn);
	walk_slot(o, &n->rhs, fn);
	walk_slot(o, &n->cond, fn);
	walk_slot(o, &n->init, fn);
	walk_slot(o, &n->inc, fn);
	walk_slot(o, &n->then, fn);
	walk_slot(o, &n->els, fn);
	walk_list(o, &n->args, fn);
	walk_list(o, &n->body, fn);
	walk_comps(o, n->comps, fn);
	if (n->foreach) {
		struct foreach *f = n->foreach;

		walk_list(o, &f->keys, fn);
		walk_slot(o, &f->value, fn);
		walk_slot(o, &f->array, fn);
		walk_list(o, &f->slice, fn);
		walk_slot(o, &f->limit, fn);
		walk_slot(o, &f->body, fn);
	}
	fn(o, slot);
}

static void walk_program(struct optimizer *o, slot_fn fn)
{
	for (struct derived_probe *p = o->program->probes; p; p = p->next)
		walk_slot(o, &p->body, fn);
	for (struct used_function *f = o->program->functions; f; f = f->next)
		if (f->function->body)
			walk_slot(o, &f->function->body, fn);
}

/* ---- Uses of variables ---- */

static void note_use(struct node *n, bool read, bool write)
{
	struct var *v = n && n->kind == N_IDENT ? n->sym : NULL;

	if (!v)
		return;
	v->nreads += read;
	v->nwrites += write;
}

/* `x = ...` and `x <<< ...` write x; `x += ...`, `++x` read and write it. An element
 * `a[k] = ...` counts as a write of a. */
static void count_target(struct node *target, bool also_read)
{
	if (target && target->kind == N_INDEX)
		target = target->lhs;
	note_use(target, also_read, true);
}

static void count_node(struct optimizer *o, struct node **slot)
{
	struct node *n = *slot;

	(void)o;
	switch (n->kind) {
	case N_IDENT:
		note_use(n, true, false);
		break;
	case N_ASSIGN:
		count_target(n->lhs, n->op != '=' && n->op != OP_STATS_ADD);
		break;
	case N_PREINC:
	case N_POSTINC:
		count_target(n->lhs, true);
		break;
	case N_DELETE:
		count_target(n->lhs, false);
		break;
	case N_FOREACH:
		for (int i = 0; i < n->foreach->keys.len; i++)
			note_use(n->foreach->keys.items[i], false, true);
		note_use(n->foreach->value, false, true);
		/* A foreach that sorts writes its array too, as stap counts it (no
		 * never-assigned warning: last_100_frees' `foreach (... in bt @max+)`). */
		if (n->foreach->sort_direction)
			note_use(n->foreach->array, false, true);
		break;
	case N_TRY:
		/* catch (msg) assigns msg. */
		if (n->sym)
			((struct var *)n->sym)->nwrites++;
		break;
	default:
		break;
	}
}

/* The walk counted the targets above as reads too (they are N_IDENT children); take
 * those back. */
static void uncount_targets(struct optimizer *o, struct node **slot)
{
	struct node *n = *slot, *target = NULL;

	(void)o;
	/* (stap counts `delete x` as a read of x too.) */
	if (n->kind == N_ASSIGN || n->kind == N_PREINC || n->kind == N_POSTINC)
		target = n->lhs;
	if (target && target->kind == N_INDEX)
		target = target->lhs;
	if (target && target->kind == N_IDENT && target->sym)
		((struct var *)target->sym)->nreads--;
	if (n->kind == N_FOREACH) {
		for (int i = 0; i < n->foreach->keys.len; i++)
			((struct var *)n->foreach->keys.items[i]->sym)->nreads--;
		if (n->foreach->value)
			((struct var *)n->foreach->value->sym)->nreads--;
	}
}

static void clear_scope(struct scope *scope)
{
	for (struct var *v = scope->vars; v; v = v->next)
		v->nreads = v->nwrites = 0;
}

static void count_perf_read(struct derived_probe *p, const char *counter)
{
	char *name = xasprintf("__perf_read_%s", counter);

	for (struct var *v = p->scope.vars; v; v = v->next)
		if (v->nreads && !strcmp(v->name, name))
			v->nwrites++;
	free(name);
}

static void count_uses(struct optimizer *o)
{
	for (struct var *v = o->program->globals; v; v = v->next)
		v->nreads = v->nwrites = 0;
	for (struct derived_probe *p = o->program->probes; p; p = p->next)
		clear_scope(&p->scope);
	for (struct used_function *f = o->program->functions; f; f = f->next)
		clear_scope(&f->scope);
	walk_program(o, count_node);
	walk_program(o, uncount_targets);
	/* A return probe's @entry values are computed at the entry, even those whose use
	 * in the body was elided: what they read stays. */
	for (struct derived_probe *p = o->program->probes; p; p = p->next)
		for (int i = 0; i < p->entries.len; i++)
			walk_slot(o, &p->entries.items[i], count_node);
	/* The locals of @perf are set by the handler (target_perf.c). */
	for (struct derived_probe *p = o->program->probes; p; p = p->next)
		for (int i = 0; i < p->nperf_reads; i++)
			count_perf_read(p, p->perf_reads[i]);
}

/* ---- Side effects ---- */

static bool function_has_effects(struct optimizer *o, struct used_function *f);

static bool is_local(const struct node *n)
{
	const struct var *v = n && n->kind == N_IDENT ? n->sym : NULL;

	return v && !v->global;
}

/* Whether evaluating `n` changes anything: a variable, or, judging a function, anything
 * but its locals. */
static bool effect_test(const struct node *n, void *ctx)
{
	struct optimizer *o = ctx;

	switch (n->kind) {
	case N_ASSIGN:
	case N_PREINC:
	case N_POSTINC:
		return !o->in_function || !is_local(n->lhs);
	case N_PRINT:
		return n->text[0] != 's';	/* sprintf and its kin only make a string */
	case N_CALL:
		if (!n->sym)
			return true;
		for (struct used_function *f = n->sym; f; f = f->next_overload)
			if (function_has_effects(o, f))
				return true;
		return false;
	case N_EMBEDDED_EXPR:
		return !strstr(n->text, "/* pure */");
	case N_NEXT:
		/* In a function, `next` runs its next definition: nothing changes. */
		return !o->in_function;
	case N_TRY:
		/* Judging a function: its catch variable is one of its locals, and what the try
		 * block and the catch block do is judged with them (stap's user_string_n_quoted(),
		 * say, has no effect). */
		return !o->in_function;
	case N_DELETE:
	case N_EMBEDDED_STMT:
		return true;
	default:
		return false;
	}
}

static bool has_effects(struct optimizer *o, const struct node *n)
{
	return n && node_any(n, effect_test, o);
}

/* An assignment to a local of the caller's is no side effect of the function, but a
 * `return` is what it is for: neither counts. */
static bool function_has_effects(struct optimizer *o, struct used_function *f)
{
	if (!o->judge_functions)
		return true;
	if (f->purity == PURITY_UNKNOWN) {
		f->purity = PURITY_JUDGING;
		if (f->function->body) {
			bool saved = o->in_function;

			o->in_function = true;
			f->purity = has_effects(o, f->function->body) ? PURITY_EFFECTS : PURITY_PURE;
			o->in_function = saved;
		} else {
			f->purity = function_has_pragma(f->function, "pure") ? PURITY_PURE :
									       PURITY_EFFECTS;
		}
	}
	return f->purity != PURITY_PURE;	/* recursion: assume the worst */
}

/* ---- Constant folding ---- */

static bool is_number(const struct node *n)
{
	return n && n->kind == N_NUMBER;
}

static bool is_string(const struct node *n)
{
	return n && n->kind == N_STRING;
}

static struct node *number_like(const struct node *n, int64_t value)
{
	char *text = xasprintf("%" PRId64, value);
	struct node *number = node_number(value, text, n->loc);

	free(text);
	return number;
}

/* Folds `a op b` of two numbers; false when it can't be folded (a division by zero stays,
 * for the runtime to report). */
static bool fold_numbers(int op, int64_t a, int64_t b, int64_t *out)
{
	uint64_t ua = (uint64_t)a, ub = (uint64_t)b;

	switch (op) {
	case '+': *out = (int64_t)(ua + ub); return true;
	case '-': *out = (int64_t)(ua - ub); return true;
	case '*': *out = (int64_t)(ua * ub); return true;
	case '/':
	case '%':
		if (b == 0)
			return false;
		if (b == -1)
			*out = op == '/' ? (int64_t)(0 - ua) : 0;
		else
			*out = op == '/' ? a / b : a % b;
		return true;
	case '&': *out = a & b; return true;
	case '|': *out = a | b; return true;
	case '^': *out = a ^ b; return true;
	case OP_SHL:
	case OP_SHR: {
		/* stap's: the count clamped to 0..64, then taken as x86 takes it (mod 64). */
		int count = (int)(b < 0 ? 0 : b > 64 ? 64 : b) & 63;

		*out = op == OP_SHL ? (int64_t)(ua << count) : a >> count;
		return true;
	}
	case '<': *out = a < b; return true;
	case '>': *out = a > b; return true;
	case OP_LE: *out = a <= b; return true;
	case OP_GE: *out = a >= b; return true;
	case OP_EQ: *out = a == b; return true;
	case OP_NE: *out = a != b; return true;
	case OP_ANDAND: *out = a && b; return true;
	case OP_OROR: *out = a || b; return true;
	default: return false;
	}
}

static bool fold_strings(int op, const char *a, const char *b, int64_t *out)
{
	int cmp = strcmp(a, b);

	switch (op) {
	case '<': *out = cmp < 0; return true;
	case '>': *out = cmp > 0; return true;
	case OP_LE: *out = cmp <= 0; return true;
	case OP_GE: *out = cmp >= 0; return true;
	case OP_EQ: *out = cmp == 0; return true;
	case OP_NE: *out = cmp != 0; return true;
	default: return false;
	}
}

/* `x + 0`, `x * 1`, `0 * x` (x without side effects) and the like: the operand that stays,
 * or NULL. */
static struct node *identity_operand(struct optimizer *o, struct node *n)
{
	struct node *a = n->lhs, *b = n->rhs;

	if (is_number(b) && ((b->num == 0 && (n->op == '+' || n->op == '-' || n->op == '|' ||
					       n->op == '^' || n->op == OP_SHL ||
					       n->op == OP_SHR)) ||
			     (b->num == 1 && (n->op == '*' || n->op == '/'))))
		return a;
	if (is_number(a) && ((a->num == 0 && (n->op == '+' || n->op == '|' || n->op == '^')) ||
			     (a->num == 1 && n->op == '*')))
		return b;
	if (is_number(b) && b->num == 0 && (n->op == '*' || n->op == '&') && !has_effects(o, a))
		return b;
	if (is_number(a) && a->num == 0 && (n->op == '*' || n->op == '&') && !has_effects(o, b))
		return a;
	return NULL;
}

static struct node *fold_binary(struct optimizer *o, struct node *n)
{
	int64_t value;

	/* 0 && x and 1 || x: x is never evaluated (x typed first). */
	if (o->types_known && is_number(n->lhs) && ((n->op == OP_ANDAND && !n->lhs->num) ||
				  (n->op == OP_OROR && n->lhs->num)))
		return number_like(n, n->op == OP_OROR);

	/* stap's folding knows no >>> (which it translates between other operands). */
	if (is_number(n->lhs) && is_number(n->rhs) && n->op == OP_USHR) {
		diag_error("semantic error", "unsupported binary operator >>>\n");
		return number_like(n, 0);
	}
	if (is_number(n->lhs) && is_number(n->rhs) &&
	    fold_numbers(n->op, n->lhs->num, n->rhs->num, &value))
		return number_like(n, value);
	if (is_string(n->lhs) && is_string(n->rhs)) {
		if (n->op == '.') {
			char *joined = xasprintf("%s%s", n->lhs->text, n->rhs->text);
			struct node *s = node_string(joined, n->lhs->loc);

			free(joined);
			return s;
		}
		if (fold_strings(n->op, n->lhs->text, n->rhs->text, &value))
			return number_like(n, value);
	}
	return identity_operand(o, n);
}

static bool fold_unary_value(int op, int64_t v, int64_t *out)
{
	switch (op) {
	case '-': *out = (int64_t)(0 - (uint64_t)v); return true;
	case '+': *out = v; return true;
	case '!': *out = !v; return true;
	case '~': *out = ~v; return true;
	default: return false;
	}
}

static struct node *fold_unary(struct node *n)
{
	int64_t value;

	return fold_unary_value(n->op, n->lhs->num, &value) ? number_like(n, value) : NULL;
}

bool optimize_constant_value(const struct node *n, int64_t *value)
{
	int64_t a, b;

	if (!n)
		return false;
	if (n->kind == N_NUMBER) {
		*value = n->num;
		return true;
	}
	if (n->kind == N_UNARY)
		return optimize_constant_value(n->lhs, &a) && fold_unary_value(n->op, a, value);
	if (n->kind == N_BINARY && optimize_constant_value(n->lhs, &a)) {
		if ((n->op == OP_ANDAND && !a) || (n->op == OP_OROR && a)) {
			*value = n->op == OP_OROR;
			return true;
		}
		return optimize_constant_value(n->rhs, &b) && n->op != OP_USHR &&
		       fold_numbers(n->op, a, b, value);
	}
	return false;
}

static void fold_node(struct optimizer *o, struct node **slot)
{
	struct node *n = *slot, *folded = NULL;

	switch (n->kind) {
	case N_BINARY:
		folded = fold_binary(o, n);
		break;
	case N_UNARY:
		if (is_number(n->lhs))
			folded = fold_unary(n);
		break;
	case N_TERNARY:
		/* Only once types are known: stap rejects `1 ? 2 : "s"`. */
		if (o->types_known && is_number(n->cond))
			folded = n->cond->num ? n->then : n->els;
		break;
	default:
		break;
	}
	if (folded && folded != n) {
		*slot = folded;
		o->changed = true;
	}
}

/* ---- Statements ---- */

/* A statement made empty here (op 1 marks it: no ';' of the script). */
static struct node *null_stmt(const struct node *like)
{
	struct node *n = node_new(N_NULL, like->loc);

	n->op = 1;
	return n;
}

static bool is_empty(const struct node *s)
{
	return !s || s->kind == N_NULL || (s->kind == N_BLOCK && s->body.len == 0);
}

static struct node *expr_stmt(struct node *expr)
{
	struct node *s = node_new(N_EXPR_STMT, expr->loc);

	s->lhs = expr;
	return s;
}

/* if, for and while on a constant condition: the statement that runs, or NULL. */
static struct node *reduce_constant_control(struct node *n)
{
	switch (n->kind) {
	case N_IF:
		if (!is_number(n->cond))
			return NULL;
		if (n->cond->num)
			return n->then;
		return n->els ? n->els : null_stmt(n);
	case N_WHILE:
		return is_number(n->cond) && !n->cond->num ? null_stmt(n) : NULL;
	case N_FOR:
		if (!is_number(n->cond) || n->cond->num)
			return NULL;
		return n->init ? expr_stmt(n->init) : null_stmt(n);
	default:
		return NULL;
	}
}

/* Without -u: empty branches and loops, and blocks of one statement. */
static struct node *reduce_empty(struct optimizer *o, struct node *n)
{
	switch (n->kind) {
	case N_IF:
		if (is_empty(n->then) && is_empty(n->els))
			return has_effects(o, n->cond) ? expr_stmt(n->cond) : null_stmt(n);
		if (is_empty(n->then)) {
			struct node *not = node_new(N_UNARY, n->cond->loc);

			not->op = '!';
			not->lhs = n->cond;
			n->cond = not;
			n->then = n->els;
			n->els = NULL;
			return n;
		}
		if (n->els && is_empty(n->els)) {
			n->els = NULL;
			return n;
		}
		return NULL;
	case N_WHILE:
	case N_FOR:
		if (is_empty(n->then) && !has_effects(o, n->cond) && !has_effects(o, n->inc))
			return n->kind == N_FOR && n->init ? expr_stmt(n->init) : null_stmt(n);
		return NULL;
	case N_FOREACH:
		return is_empty(n->foreach->body) && !n->foreach->limit ? null_stmt(n) : NULL;
	case N_TRY:
		/* Nothing to fail: no catch either. */
		return is_empty(n->then) ? null_stmt(n) : NULL;
	default:
		return NULL;
	}
}

/* stap's -vvv note for a statement it drops: "Eliding side-effect-free null statement
 * operator ';' at FILE:L:C". */
static void note_dropped(const struct node *n)
{
	const char *what = n->kind == N_NULL ? "null statement operator ';'" :
			   "empty block operator '{'";

	if (diag_verbosity() >= 3 && n->loc.source && !(n->kind == N_NULL && n->op))
		fprintf(stderr, "Eliding side-effect-free %s at %s:%d:%d\n", what,
			n->loc.source->name, n->loc.line, n->loc.col);
}

/* Drops the empty statements of a block. */
static void drop_empty(struct node *block)
{
	int kept = 0;

	for (int i = 0; i < block->body.len; i++)
		if (!is_empty(block->body.items[i]))
			block->body.items[kept++] = block->body.items[i];
		else
			note_dropped(block->body.items[i]);
	block->body.len = kept;
}

/* Reducing a constant condition makes another round worth it; dropping what is empty
 * does not (as in stap: `x = 1; if (x) {}` keeps the assignment). */
static void reduce_statement(struct optimizer *o, struct node **slot)
{
	struct node *n = *slot, *reduced = o->types_known ? reduce_constant_control(n) : NULL;

	if (reduced) {
		*slot = reduced;
		o->changed = true;
		return;
	}
	if (!o->elide)
		return;
	if (n->kind == N_BLOCK) {
		drop_empty(n);
		if (n->body.len == 1) {
			/* stap notes it at -vvv, without "WARNING". */
			if (diag_verbosity() >= 3 && n->loc.source)
				fprintf(stderr, "Eliding side-effect-free singleton block operator '{'"
					" at %s:%d:%d\n", n->loc.source->name, n->loc.line,
					n->loc.col);
			*slot = n->body.items[0];
		}
	} else if ((reduced = reduce_empty(o, n))) {
		*slot = reduced;
	}
}

/* ---- Elisions ---- */

/* Whether stap reports this round's elisions: the first round before types (what folding
 * a constant condition makes possible after types is elided quietly). */
static bool reporting_round(const struct optimizer *o)
{
	return o->round == 0 && !o->types_known;
}

/* Whether `loc` is in a tapset: stap warns of elisions in the user's script only (an alias's
 * variables that the probe does not read are elided quietly). */
static bool in_tapset(struct loc loc)
{
	return loc.source && loc.source->is_tapset;
}

static void elide_assignment(struct optimizer *o, struct node **slot)
{
	struct node *n = *slot;
	struct var *v;

	if (n->kind != N_ASSIGN || (n->op != '=' && n->op != OP_STATS_ADD) || !is_local(n->lhs))
		return;
	v = n->lhs->sym;
	if (v->nreads)
		return;
	if (reporting_round(o) && !in_tapset(n->loc)) {
		struct token_desc tok = { "operator", op_text(n->op) };

		diag_warning_at(&tok, n->loc, "Eliding assignment to '%s'", v->name);
	}
	*slot = n->rhs;
	o->changed = true;
}

/* A `return value`, or a `next` (the value may come from another definition). */
static bool is_value_return(const struct node *n, void *ctx)
{
	(void)ctx;
	return (n->kind == N_RETURN && n->lhs) || n->kind == N_NEXT;
}

/* A call statement of a function that returns nothing and does nothing. */
static void note_pointless_call(struct optimizer *o, const struct node *expr)
{
	struct used_function *f = expr->kind == N_CALL ? expr->sym : NULL;

	if (!f || !f->function->body || node_any(f->function->body, is_value_return, NULL))
		return;
	for (int i = 0; i < o->npointless; i++)
		if (o->pointless[i] == f)
			return;
	o->pointless = xrealloc(o->pointless, sizeof(*o->pointless) * (size_t)(o->npointless + 1));
	o->pointless[o->npointless++] = f;
}

static int compare_c_names(const void *a, const void *b)
{
	return strcmp((*(struct used_function *const *)a)->c_name,
		      (*(struct used_function *const *)b)->c_name);
}

/* In the order stap keeps its functions: by their names in the generated C. */
static void warn_pointless_functions(struct optimizer *o)
{
	if (o->npointless)
		qsort(o->pointless, (size_t)o->npointless, sizeof(*o->pointless),
		      compare_c_names);
	for (int i = 0; i < o->npointless; i++) {
		const struct function *f = o->pointless[i]->function;
		struct token_desc tok = { "identifier", f->name };

		diag_warning_at(&tok, f->loc, "side-effect-free function '%s'", f->name);
	}
	free(o->pointless);
	o->pointless = NULL;
	o->npointless = 0;
}

static void name_first_token(struct optimizer *o, struct node **slot);

/*
 * A statement made of an expression whose value nothing uses, reduced as stap reduces it,
 * before types and also with -u: `a && b` to `if (a) b`, `a || b` to `if (!a) b`,
 * `a ? b : c` to an if, another operator to its operands as statements. So the parts are
 * typed as statements of their own: `0 && (x = "s")` makes x a string, and `(x = "s") + 1`
 * is no type mismatch. Unless -u, the parts without effect go, quietly. NULL when nothing
 * is left.
 *
 * It ends by construction: each statement made holds a proper part of `e` (or the `!` of
 * one, for `||`, which is still smaller than `e`), and a statement is reduced only while
 * its expression is_divisible(), so no round undoes or repeats another's work. `&x` is no
 * operator to take apart (its operand is no value of its own): it stays whole.
 */
static bool is_divisible(const struct node *e)
{
	switch (e->kind) {
	case N_BINARY:
	case N_TERNARY:
		return true;
	case N_UNARY:
		return e->op != '&';
	default:
		return false;
	}
}

static struct node *discard(struct optimizer *o, struct node *e)
{
	struct node *reduced, *then, *els;

	if (o->elide && !has_effects(o, e))
		return NULL;
	if (!is_divisible(e)) {
		reduced = expr_stmt(e);
		name_first_token(o, &reduced);
		return reduced;
	}
	switch (e->kind) {
	case N_BINARY:
		if (e->op == OP_ANDAND || e->op == OP_OROR) {
			then = discard(o, e->rhs);
			if (!then)
				return discard(o, e->lhs);
			reduced = node_new(N_IF, e->loc);
			reduced->cond = e->lhs;
			if (e->op == OP_OROR) {
				reduced->cond = node_new(N_UNARY, e->lhs->loc);
				reduced->cond->op = '!';
				reduced->cond->lhs = e->lhs;
			}
			reduced->then = then;
			return reduced;
		}
		then = discard(o, e->lhs);
		els = discard(o, e->rhs);
		if (!then || !els)
			return then ? then : els;
		reduced = node_new(N_BLOCK, e->loc);
		node_list_push(&reduced->body, then);
		node_list_push(&reduced->body, els);
		return reduced;
	case N_UNARY:
		return discard(o, e->lhs);
	default:	/* N_TERNARY */
		then = discard(o, e->then);
		els = discard(o, e->els);
		if (!then && !els)
			return discard(o, e->cond);
		reduced = node_new(N_IF, e->loc);
		reduced->cond = e->cond;
		reduced->then = then ? then : null_stmt(e);
		reduced->els = els;
		return reduced;
	}
}

static void discard_statement(struct optimizer *o, struct node **slot)
{
	struct node *n = *slot, *reduced;

	if (n->kind != N_EXPR_STMT || !n->lhs || !is_divisible(n->lhs))
		return;
	reduced = discard(o, n->lhs);
	*slot = reduced ? reduced : null_stmt(n);
	o->changed = true;
}

static void elide_pure_statement(struct optimizer *o, struct node **slot)
{
	struct node *n = *slot;

	if (n->kind != N_EXPR_STMT)
		return;
	if (has_effects(o, n->lhs)) {
		discard_statement(o, slot);
		return;
	}
	if (reporting_round(o))
		note_pointless_call(o, n->lhs);
	if (reporting_round(o) && !in_tapset(n->loc)) {
		struct token_desc tok = { n->raw, n->text };

		diag_warning_at(&tok, n->loc, "Eliding side-effect-free expression ");
	}
	*slot = null_stmt(n);
	o->changed = true;
}

static void elide_and_reduce(struct optimizer *o, struct node **slot)
{
	elide_pure_statement(o, slot);
	reduce_statement(o, slot);
}

static void name_first_token(struct optimizer *o, struct node **slot)
{
	struct node *n = *slot;
	struct token_desc tok;

	(void)o;
	if (n->kind != N_EXPR_STMT || n->raw)
		return;
	tok = node_first_token(n->lhs, &n->loc);
	free(n->text);
	n->raw = xstrdup(tok.what);
	n->text = xstrdup(tok.text);
}

/* The name stap gives a probe in "Probe '...' has been elided": the first component. */
static char *point_name(const char *pp)
{
	size_t len = strcspn(pp, ".(?!");

	return xasprintf("%.*s", (int)len, pp);
}

static void warn_elided_probe(const struct derived_probe *p)
{
	for (const struct derived_point *d = p->points; d; d = d->next) {
		char *name = point_name(d->pp);
		struct token_desc tok = { p->via_alias ? "identifier" : "keyword",
					  p->via_alias ? p->alias_name : NULL };

		diag_warning_at(&tok, p->via_alias ? p->alias_loc : p->probe->loc,
				"Probe '%s' has been elided", name);
		free(name);
	}
}

static void elide_empty_probes(struct optimizer *o)
{
	struct derived_probe **link = &o->program->probes;

	while (*link) {
		struct derived_probe *p = *link;

		if (is_empty(p->body)) {
			warn_elided_probe(p);
			*link = p->next;
			o->changed = true;
		} else {
			link = &p->next;
		}
	}
}

/* ---- What is left ---- */

static bool mark_call(const struct node *n, void *ctx)
{
	struct optimizer *o = ctx;

	for (struct used_function *f = n->kind == N_CALL ? n->sym : NULL; f;
	     f = f->next_overload) {
		if (f->reachable)
			continue;
		f->reachable = true;
		if (f->function->body)
			node_any(f->function->body, mark_call, o);
	}
	return false;
}

static void drop_unreachable_functions(struct optimizer *o)
{
	struct used_function **link = &o->program->functions;

	for (struct used_function *f = o->program->functions; f; f = f->next)
		f->reachable = false;
	for (struct derived_probe *p = o->program->probes; p; p = p->next) {
		node_any(p->body, mark_call, o);
		for (int i = 0; i < p->entries.len; i++)
			node_any(p->entries.items[i], mark_call, o);	/* see count_uses() */
	}
	while (*link) {
		if ((*link)->reachable) {
			link = &(*link)->next;
		} else {
			const struct function *f = (*link)->function;

			if (diag_verbosity() >= 3) {
				struct token_desc tok = { "identifier", f->name };

				diag_warning_at(&tok, f->loc, "Eliding unused function '%s'", f->name);
			}
			*link = (*link)->next;
			o->program->nfunctions--;
		}
	}
}

static void drop_unused_vars(struct var **link, int *count, bool keep_params)
{
	while (*link) {
		struct var *v = *link;

		if (v->nreads || v->nwrites || (keep_params && v->is_param)) {
			link = &v->next;
		} else {
			if (diag_verbosity() >= 3) {
				struct token_desc tok = { "identifier", v->name };

				diag_warning_at(&tok, v->loc, "Eliding unused variable '%s'", v->name);
			}
			*link = v->next;
			(*count)--;
		}
	}
}

/* At the start of a round, as stap: what a round's last reductions leave unused stays
 * (the loop variable of an emptied foreach, then of unknown type). */
static void drop_unused(struct optimizer *o)
{
	drop_unreachable_functions(o);
	count_uses(o);
	drop_unused_vars(&o->program->globals, &o->program->nglobals, false);
	for (struct derived_probe *p = o->program->probes; p; p = p->next)
		drop_unused_vars(&p->scope.vars, &p->scope.nvars, true);
	for (struct used_function *f = o->program->functions; f; f = f->next)
		drop_unused_vars(&f->scope.vars, &f->scope.nvars, true);
}

/* ---- Never-assigned variables ---- */

/* A local read and never assigned: stap suggests the other variables of its probe or
 * function (a function's parameters among them) and the globals. */
static void warn_never_assigned_locals(struct scope *scope, const struct var *globals)
{
	for (struct var *v = scope->vars; v; v = v->next) {
		if (v->is_param || v->global || !v->nreads || v->nwrites)
			continue;
		const char **names = NULL;
		size_t count = 0;

		for (int pass = 0; pass < 2; pass++)
			for (const struct var *w = pass ? globals : scope->vars; w; w = w->next) {
				if (w == v)
					continue;
				ARRAY_PUSH(names, count, w->name);
			}
		char *similar = similar_names(v->name, names, count);
		struct token_desc tok = { "identifier", v->name };

		diag_warning_at(&tok, v->loc, "never-assigned local variable '%s'%s", v->name,
				similar);
		free(similar);
		free(names);
	}
}

/* A global nothing assigns and nothing initializes: stap suggests the globals, itself
 * among them. */
static void warn_never_assigned_globals(struct optimizer *o)
{
	const char **names = NULL;
	size_t count = 0;

	for (struct var *v = o->program->globals; v; v = v->next) {
		ARRAY_PUSH(names, count, v->name);
	}
	for (struct var *v = o->program->globals; v; v = v->next) {
		if (!v->nreads || v->nwrites || v->global->init)
			continue;
		char *similar = similar_names(v->name, names, count);
		struct token_desc tok = { "identifier", v->name };

		diag_warning_at(&tok, v->global->loc, "never-assigned global variable '%s'%s",
				v->name, similar);
		free(similar);
	}
	free(names);
}

static void warn_never_assigned(struct optimizer *o)
{
	for (struct derived_probe *p = o->program->probes; p; p = p->next)
		warn_never_assigned_locals(&p->scope, o->program->globals);
	for (struct used_function *f = o->program->functions; f; f = f->next)
		warn_never_assigned_locals(&f->scope, o->program->globals);
	warn_never_assigned_globals(o);
}

/* ---- The pass ---- */

static void renumber_probes(struct program *program)
{
	int index = 0;

	for (struct derived_probe *p = program->probes; p; p = p->next)
		p->index = index++;
	program->nprobes = index;
}

static void run_round(struct optimizer *o)
{
	walk_program(o, fold_node);
	drop_unused(o);
	if (reporting_round(o))
		warn_never_assigned(o);
	for (struct derived_probe *p = o->program->probes; p; p = p->next)
		walk_slot(o, &p->body, elide_assignment);
	for (struct used_function *f = o->program->functions; f; f = f->next)
		if (f->function->body)
			walk_slot(o, &f->function->body, elide_assignment);
	/* One walk, as stap's: a block is reduced once its statements are. */
	walk_program(o, elide_and_reduce);
	warn_pointless_functions(o);
}

/* Rounds until one changes nothing. */
static void run_rounds(struct optimizer *o)
{
	for (o->round = 0; o->round < 100; o->round++) {
		o->changed = false;
		run_round(o);
		if (!o->changed)
			break;
	}
}

/* The constant conditions folded (if, loops, &&, ||, ?:): whether any was. */
static bool fold_conditions(struct optimizer *o)
{
	o->changed = false;
	walk_program(o, fold_node);
	walk_program(o, reduce_statement);
	return o->changed;
}

void optimize_typed(struct program *program, bool elide)
{
	struct optimizer o = { .program = program, .elide = elide, .types_known = true,
			       .judge_functions = elide };

	if (!elide) {
		fold_conditions(&o);
		return;
	}
	/* As stap: the elisions again only when a folding made some possible (`x = 1;
	 * while (x) {}` keeps its assignment). */
	if (fold_conditions(&o))
		run_rounds(&o);
	o.changed = false;
	elide_empty_probes(&o);
	if (o.changed)
		drop_unused(&o);
	renumber_probes(program);
}

void optimize(struct program *program, bool elide)
{
	struct optimizer o = { .program = program, .elide = elide, .judge_functions = true };

	if (elide) {
		walk_program(&o, name_first_token);
		run_rounds(&o);
	} else {
		walk_program(&o, discard_statement);
	}
	renumber_probes(program);
}
