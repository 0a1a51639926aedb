// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 2: type inference. Long, string and statistics types flow through assignments,
 * operators, calls, returns, array keys and values, in stap's order (probes first), until
 * nothing changes; a last round reports the mismatches in stap's words (the functions'
 * first, and without -v only the most complex kind, as stap: report_mismatch()), then the
 * variables and calls left without a type.
 */
#include <stdlib.h>
#include <string.h>

#include "parse/ast_copy.h"
#include "diag.h"
#include "resolve/elaborate.h"
#include "parse/format.h"
#include "util.h"


static enum type infer(struct elab *e, struct node *n);


/*
 * The kinds of type mismatch, by how much stap says of them: an operand of another type than
 * its place asks ("type mismatch: expected long but found string"), and a use of a variable,
 * parameter, array index or function value against the type it was first given ("type
 * mismatch (string)", then where that type was "first inferred"). Without -v, stap's
 * reporting round shows only the mismatches as complex as the most complex one of the round
 * before: `f("s")` of a function whose parameter is a long says the parameter's, not the
 * literal's; with -v every one.
 */
enum mismatch_level { MISMATCH_OPERAND = 1, MISMATCH_DECLARED = 2 };

/* Notes a mismatch of `level`; whether to report it. */
static bool report_mismatch(struct elab *e, enum mismatch_level level)
{
	if ((int)level > e->mismatch_level)
		e->mismatch_level = (int)level;
	return e->report && (!diag_suppressing() || (int)level >= e->shown_level);
}

static void type_error(struct elab *e, struct node *n, enum type expected, enum type found)
{
	struct token_desc tok = node_token(n);

	if (!report_mismatch(e, MISMATCH_OPERAND))
		return;
	diag_error_at("semantic error", &tok, n->loc, "type mismatch: expected %s but found %s",
		      type_name(expected), type_name(found));
}

/* Where a type was first given: the token, its place and the type. */
struct first_type {
	struct token_desc tok;
	struct loc loc;
	enum type type;
};

/* stap's "[index N ]type mismatch (FOUND)" at `at`, then, for the first such mismatch only
 * (as stap, -v shows), "type [of index N ]was first inferred here (TYPE)" at `first` (index
 * -1: none). One format for every kind: stap counts them as one ("similar"). */
static void declared_type_error(struct elab *e, const struct token_desc *tok, struct loc at,
				int index, enum type found, const struct first_type *first)
{
	char *of_index = index < 0 ? xstrdup("") : xasprintf("index %d ", index);
	char *of_index_of = index < 0 ? xstrdup("") : xasprintf("of index %d ", index);

	diag_error_at("semantic error", tok, at, "%stype mismatch (%s)", of_index,
		      type_name(found));
	if (!e->origin_said) {
		e->origin_said = true;
		diag_continue();
		diag_error_at("semantic error", &first->tok, first->loc,
			      "type %swas first inferred here (%s)", of_index_of,
			      type_name(first->type));
	}
	free(of_index);
	free(of_index_of);
}

/* A node's token, where it is and its type, as the place a type was first given. */
static struct first_type first_at(const struct node *n, enum type type)
{
	return (struct first_type){ node_token(n), n->loc, type };
}

static bool first_report(struct elab *e, const struct node *n);

/* A variable used as `wanted` whose type was inferred otherwise. */
static void var_type_error(struct elab *e, struct node *n, enum type wanted)
{
	struct node *name = n->kind == N_INDEX ? n->lhs : n;
	struct var *v = name->sym;
	struct token_desc tok = { "identifier", name->text };

	if (v->global && v->global->init && !v->type_loc.source) {
		/* Typed by its initializer: stap's plain form. */
		if (report_mismatch(e, MISMATCH_OPERAND))
			diag_error_at("semantic error", &tok, name->loc,
				      "type mismatch: expected %s but found %s",
				      type_name(wanted), type_name(v->type));
		return;
	}
	if (!report_mismatch(e, MISMATCH_DECLARED))
		return;
	if (v->type_arg) {
		/* stap words a parameter like an array's index. */
		struct first_type first = first_at(v->type_arg, v->type);

		if (first_report(e, name))
			declared_type_error(e, &tok, name->loc, v->param_index, wanted, &first);
		return;
	}
	struct first_type first = { tok, v->type_loc.source ? v->type_loc : v->loc, v->type };

	declared_type_error(e, &tok, name->loc, -1, wanted, &first);
}

/* A return value of another type than the first one. */
static void return_type_error(struct elab *e, const struct node *n, enum type found,
			      const struct used_function *f)
{
	struct token_desc tok = node_token(n);
	struct first_type first = first_at(f->ret_first, f->ret);

	if (report_mismatch(e, MISMATCH_DECLARED))
		declared_type_error(e, &tok, n->loc, -1, found, &first);
}

/* The variable a node stands for: x, or the array of a[k] (whose value it is). */
static struct var *var_of(const struct node *n)
{
	if (n->kind == N_IDENT)
		return n->sym;
	if (n->kind == N_INDEX && n->lhs->kind == N_IDENT)
		return n->lhs->sym;
	return NULL;
}

static bool is_var(const struct node *n)
{
	return var_of(n) != NULL;
}

static bool is_value_return(const struct node *n, void *ctx)
{
	(void)ctx;
	return n->kind == N_RETURN && n->lhs;
}

/* A call of a function that returns no value (an embedded-C function with no declared
 * type, a script function without `return EXPR`): as stap, it takes the type its use asks
 * for (`if (f())`: long, `f() . "x"`: string), and its value is 0 or "". */
static bool takes_type_from_use(const struct node *n)
{
	struct used_function *f = n->kind == N_CALL ? n->sym : NULL;

	if (!f || f->ret_first || (f->ret != TYPE_UNKNOWN && f->ret != TYPE_VOID))
		return false;
	if (f->ret == TYPE_VOID)
		return true;
	if (f->value_returns == RETURNS_UNKNOWN)
		f->value_returns = node_any(f->function->body, is_value_return, NULL) ?
				   RETURNS_VALUE : RETURNS_NO_VALUE;
	return f->value_returns == RETURNS_NO_VALUE;
}

/* Infers n's type and makes it `want`: an untyped variable or function takes it on. */
static void expect(struct elab *e, struct node *n, enum type want)
{
	enum type have = infer(e, n);

	if (want == TYPE_UNKNOWN || have == want)
		return;
	if ((have == TYPE_UNKNOWN || have == TYPE_VOID) && takes_type_from_use(n)) {
		((struct used_function *)n->sym)->ret = want;
		e->changed = true;
		return;
	}
	if (have == TYPE_UNKNOWN) {
		if (is_var(n)) {
			var_of(n)->type = want;
			var_of(n)->type_loc = n->kind == N_INDEX ? n->lhs->loc : n->loc;
			e->changed = true;
		}
		/* Otherwise a function's type comes from its returns. */
		return;
	}
	if (is_var(n))
		var_type_error(e, n, want);
	else if (n->kind == N_CALL && n->sym && ((struct used_function *)n->sym)->ret_first)
		return_type_error(e, n, want, n->sym);
	else
		type_error(e, n, want, have);
}

/* Both sides of `a = b`, `a == b`, `c ? a : b` have one type. */
static enum type unify(struct elab *e, struct node *a, struct node *b)
{
	enum type ta = infer(e, a), tb = infer(e, b);

	/* A call of a function without a value takes the other side's type. */
	if (ta == TYPE_VOID && takes_type_from_use(a))
		ta = TYPE_UNKNOWN;
	if (tb == TYPE_VOID && takes_type_from_use(b))
		tb = TYPE_UNKNOWN;

	if (ta == TYPE_UNKNOWN && tb != TYPE_UNKNOWN)
		expect(e, a, tb);
	else if (tb == TYPE_UNKNOWN && ta != TYPE_UNKNOWN)
		expect(e, b, ta);
	else if (ta != tb && is_var(a))
		var_type_error(e, a, tb);
	else if (ta != tb && is_var(b))
		var_type_error(e, b, ta);
	else if (ta != tb)
		type_error(e, b, ta, tb);
	return infer(e, a);
}

static bool is_comparison(int op)
{
	return op == '<' || op == '>' || op == OP_LE || op == OP_GE || op == OP_EQ || op == OP_NE;
}

static enum type infer_binary(struct elab *e, struct node *n)
{
	if (n->op == '.') {
		expect(e, n->lhs, TYPE_STRING);
		expect(e, n->rhs, TYPE_STRING);
		return TYPE_STRING;
	}
	if (n->op == OP_MATCH || n->op == OP_NOMATCH) {
		expect(e, n->lhs, TYPE_STRING);
		return TYPE_LONG;
	}
	if (is_comparison(n->op)) {
		unify(e, n->lhs, n->rhs);
		return TYPE_LONG;
	}
	expect(e, n->lhs, TYPE_LONG);
	expect(e, n->rhs, TYPE_LONG);
	return TYPE_LONG;
}

static bool is_target(const struct node *n)
{
	return n->kind == N_TARGET || n->kind == N_CAST || n->kind == N_ATVAR;
}

static void infer_keys(struct elab *e, struct var *v, struct node_list *keys);

static enum type infer_assign(struct elab *e, struct node *n)
{
	if (n->op == OP_STATS_ADD) {
		expect(e, n->lhs, TYPE_STATS);
		expect(e, n->rhs, TYPE_LONG);
		return TYPE_LONG;
	}
	if (n->op == '=' && is_target(n->lhs)) {
		/* A $target, @cast or @var written (guru mode): stap names the value's type as
		 * the expected one and the target's, long, as found. */
		enum type have = infer(e, n->rhs);

		if (have != TYPE_UNKNOWN && have != TYPE_LONG)
			type_error(e, n->rhs, have, TYPE_LONG);
		else if (have == TYPE_UNKNOWN)
			expect(e, n->rhs, TYPE_LONG);
		return TYPE_LONG;
	}
	if (n->op == '=' && n->lhs->kind == N_INDEX && is_var(n->lhs)) {
		/* An element: stap meets its value with the array's before its keys. */
		enum type t = unify(e, n->lhs->lhs, n->rhs);

		infer_keys(e, var_of(n->lhs), &n->lhs->args);
		n->lhs->type = t;
		return t;
	}
	if (n->op == '=')
		return unify(e, n->lhs, n->rhs);
	if (n->op == OP_ASSIGN_BASE + '.') {
		expect(e, n->lhs, TYPE_STRING);
		expect(e, n->rhs, TYPE_STRING);
		return TYPE_STRING;
	}
	expect(e, n->lhs, TYPE_LONG);
	expect(e, n->rhs, TYPE_LONG);
	return TYPE_LONG;
}

/* Whether `n` has not had an error reported yet (a node is inferred more than once). */
static bool first_report(struct elab *e, const struct node *n)
{
	for (int i = 0; i < e->nreported; i++)
		if (e->reported[i] == n)
			return false;
	e->reported = xrealloc(e->reported, (size_t)(e->nreported + 1) * sizeof(*e->reported));
	e->reported[e->nreported++] = n;
	return true;
}

/* The keys of an array use: each takes on, or must have, the array's key type; stap's
 * "index 0 type mismatch (string)" and "type of index 0 was first inferred here (long)". */
static void infer_keys(struct elab *e, struct var *v, struct node_list *keys)
{
	for (int i = 0; v && i < keys->len && i < v->arity; i++) {
		struct node *key = keys->items[i];
		enum type t = key->kind == N_STAR ? TYPE_UNKNOWN : infer(e, key);

		if (v->key_types[i] == TYPE_UNKNOWN && t != TYPE_UNKNOWN) {
			v->key_types[i] = t;
			v->key_first[i] = key;
			e->changed = true;
		} else if (t == TYPE_UNKNOWN && key->kind != N_STAR) {
			expect(e, key, v->key_types[i]);
		} else if (t != v->key_types[i] && key->kind != N_STAR &&
			   report_mismatch(e, MISMATCH_DECLARED) && first_report(e, key)) {
			struct token_desc tok = node_token(key);
			/* stap names the array's value type there, not the index's. */
			struct first_type first = first_at(v->key_first[i], v->type);

			/* As an operand first (with -v only), then against the first index. */
			type_error(e, key, v->key_types[i], t);
			declared_type_error(e, &tok, key->loc, i, t, &first);
		}
	}
}

/* a[k...]: the array's value; @hist_log(s)[bucket]: a count. */
static enum type infer_index(struct elab *e, struct node *n)
{
	struct var *v = var_of(n);

	if (!v) {
		infer(e, n->lhs);
		for (int i = 0; i < n->args.len; i++)
			expect(e, n->args.items[i], TYPE_LONG);
		return TYPE_LONG;
	}
	infer_keys(e, v, &n->args);
	return v->type;
}

/* foreach: the key variables take the array's key types, the value variable its value
 * type; sorting on an aggregate (@sum-) needs statistics. */
static void infer_foreach(struct elab *e, struct foreach *f)
{
	struct var *array = f->array->kind == N_IDENT ? f->array->sym : NULL;

	if (!array) {
		/* foreach ([i] in @hist_log(s)): a bucket's number and its count. */
		infer(e, f->array);
		if (f->array->kind == N_HIST && f->keys.len == 1)
			expect(e, f->keys.items[0], TYPE_LONG);
		if (f->array->kind == N_HIST && f->value)
			expect(e, f->value, TYPE_LONG);
	} else {
		for (int i = 0; i < f->keys.len && i < array->arity; i++) {
			struct node *key = f->keys.items[i];

			if (array->key_types[i] != TYPE_UNKNOWN)
				expect(e, key, array->key_types[i]);
			else
				infer_keys(e, array, &(struct node_list){ &key, 1, 1 });
		}
		if (f->sort_aggregate)
			expect(e, f->array, TYPE_STATS);
		infer_keys(e, array, &f->slice);
	}
	if (f->limit)
		expect(e, f->limit, TYPE_LONG);
	infer(e, f->body);
	/* The value variable meets the array's type after the body, as in stap. */
	if (array && f->value)
		unify(e, f->value, f->array);
}

/* The overloads a call may run share its arguments' types and its return type. */
static void infer_overloads(struct elab *e, struct used_function *f)
{
	for (struct used_function *g = f->next_overload; g; g = g->next_overload) {
		struct var *p = f->scope.vars, *q = g->scope.vars;

		for (; p && q && p->is_param && q->is_param; p = p->next, q = q->next) {
			if (q->type == TYPE_UNKNOWN && p->type != TYPE_UNKNOWN) {
				q->type = p->type;
				e->changed = true;
			}
		}
		if (f->ret == TYPE_UNKNOWN && g->ret != TYPE_UNKNOWN) {
			f->ret = g->ret;
			e->changed = true;
		} else if (g->ret == TYPE_UNKNOWN && f->ret != TYPE_UNKNOWN) {
			g->ret = f->ret;
			e->changed = true;
		}
	}
}

/* An argument (no variable) for a parameter typed by an earlier call's: stap says that it is
 * not of the type expected, then that the parameter, as an index, was first typed there. */
static void expect_param(struct elab *e, struct node *arg, const struct var *param, int index)
{
	enum type t = infer(e, arg);
	struct token_desc tok = node_token(arg);
	struct first_type first = first_at(param->type_arg, param->type);

	if (t == TYPE_UNKNOWN || t == param->type) {
		expect(e, arg, param->type);
		return;
	}
	type_error(e, arg, param->type, t);
	if (report_mismatch(e, MISMATCH_DECLARED))
		declared_type_error(e, &tok, arg->loc, index, t, &first);
}

static enum type infer_call(struct elab *e, struct node *n)
{
	struct used_function *f = n->sym;
	struct var *param = f ? f->scope.vars : NULL;

	if (f)
		infer_overloads(e, f);
	const struct param *declared = f ? f->function->params : NULL;

	for (int i = 0; i < n->args.len; i++, param = param ? param->next : NULL,
	     declared = declared ? declared->next : NULL) {
		struct node *arg = n->args.items[i];

		if (param && param->type == TYPE_UNKNOWN) {
			enum type t = infer(e, arg);

			if (t != TYPE_UNKNOWN) {
				param->type = t;
				param->type_arg = arg;
				param->param_index = i;
				e->changed = true;
			}
		} else if (declared && declared->type != TYPE_UNKNOWN) {
			enum type t = infer(e, arg);

			/* Against a declared type stap names the two the other way round. */
			if (t != TYPE_UNKNOWN && t != declared->type)
				type_error(e, arg, t, declared->type);
			else if (t == TYPE_UNKNOWN)
				expect(e, arg, declared->type);
		} else if (param && param->type_arg && !is_var(arg)) {
			expect_param(e, arg, param, i);
		} else {
			expect(e, arg, param ? param->type : TYPE_UNKNOWN);
		}
	}
	return f ? f->ret : TYPE_UNKNOWN;
}

/* stap checks a literal argument of a formatted print twice and reports the second
 * mismatch as a suppressed duplicate. */
static void expect_print_arg(struct elab *e, struct node *arg, enum type want)
{
	int errors = diag_error_count();

	expect(e, arg, want);
	if (diag_error_count() > errors && (arg->kind == N_STRING || arg->kind == N_NUMBER))
		diag_count_suppressed();
}

static enum type infer_print(struct elab *e, struct node *n)
{
	bool formatted = !strcmp(n->text, "printf") || !strcmp(n->text, "sprintf");
	bool to_string = n->text[0] == 's';
	struct format format;
	const char *error;

	if (formatted && n->args.len > 0 && n->args.items[0]->kind == N_STRING &&
	    format_parse(n->args.items[0]->text, &format, &error)) {
		int arg = 1;

		for (int i = 0; i < format.npieces && arg < n->args.len; i++) {
			struct format_piece *p = &format.pieces[i];

			if (p->is_literal)
				continue;
			if (p->width == FORMAT_STAR)
				expect_print_arg(e, n->args.items[arg++], TYPE_LONG);
			if (p->precision == FORMAT_STAR && arg < n->args.len)
				expect_print_arg(e, n->args.items[arg++], TYPE_LONG);
			if (arg < n->args.len)
				expect_print_arg(e, n->args.items[arg++], format_arg_type(p->conversion));
		}
		format_free(&format);
	} else {
		for (int i = 0; i < n->args.len; i++)
			infer(e, n->args.items[i]);
	}
	return to_string ? TYPE_STRING : TYPE_LONG;
}

static void infer_list(struct elab *e, struct node_list *list)
{
	for (int i = 0; i < list->len; i++)
		infer(e, list->items[i]);
}

/*
 * An expression whose value a statement discards. stap first reduces such a statement to
 * the parts whose value it could use (`a && b` to `if (a) b`, `a ? b : c` to an if, an
 * operator to its operands as statements), so an untyped function called there stays
 * untyped (exit:unknown), and the operator's own types are not checked (`exit() + "a"`).
 */

/* What walk_discarded() meets in a discarded expression: the conditions stap keeps (the
 * left of && and ||, a ?:'s condition) and the parts whose value it discards (what is not
 * an operator it reduces: an operand, a branch, a `&` expression); `whole`, when set, says
 * whether to take an expression as one such part without reducing it. */
struct discarded_visit {
	bool (*whole)(const struct node *n, void *ctx);
	void (*condition)(struct node *n, void *ctx);
	void (*part)(struct node *n, void *ctx);
	void *ctx;
};

/* The one reduction of a discarded expression, for inference and for the type checks. */
static void walk_discarded(struct node *n, const struct discarded_visit *v)
{
	if (!n)
		return;
	if (v->whole && v->whole(n, v->ctx)) {
		v->part(n, v->ctx);
		return;
	}
	switch (n->kind) {
	case N_BINARY:
		if (n->op != OP_ANDAND && n->op != OP_OROR)
			walk_discarded(n->lhs, v);
		else if (v->condition)
			v->condition(n->lhs, v->ctx);
		walk_discarded(n->rhs, v);
		return;
	case N_UNARY:
		if (n->op == '&')
			break;
		walk_discarded(n->lhs, v);
		return;
	case N_TERNARY:
		if (v->condition)
			v->condition(n->cond, v->ctx);
		walk_discarded(n->then, v);
		walk_discarded(n->els, v);
		return;
	default:
		break;
	}
	v->part(n, v->ctx);
}

static bool is_untyped_call(const struct node *n, void *ctx)
{
	(void)ctx;
	return n->kind == N_CALL && takes_type_from_use(n);
}

/* Without such a call, what stap keeps has the types the whole expression has. */
static bool has_no_untyped_call(const struct node *n, void *ctx)
{
	(void)ctx;
	return !node_any(n, is_untyped_call, NULL);
}

static void infer_condition(struct node *n, void *e)
{
	expect(e, n, TYPE_LONG);
}

static void infer_part(struct node *n, void *e)
{
	infer(e, n);
}

static void infer_discarded(struct elab *e, struct node *n)
{
	const struct discarded_visit visit = {
		has_no_untyped_call, infer_condition, infer_part, e,
	};

	walk_discarded(n, &visit);
}

static enum type infer(struct elab *e, struct node *n)
{
	if (!n)
		return TYPE_UNKNOWN;
	switch (n->kind) {
	case N_NUMBER: n->type = TYPE_LONG; break;
	case N_STRING: n->type = TYPE_STRING; break;
	case N_IDENT: n->type = n->sym ? ((struct var *)n->sym)->type : TYPE_UNKNOWN; break;
	case N_TARGET: n->type = TYPE_LONG; break;
	case N_ATVAR: n->type = TYPE_LONG; break;
	case N_CAST:
		expect(e, n->lhs, TYPE_LONG);
		n->type = TYPE_LONG;
		break;
	case N_CALL: n->type = infer_call(e, n); break;
	case N_PRINT: n->type = infer_print(e, n); break;
	case N_ENTRY: n->type = infer(e, n->lhs); break;
	case N_UNARY:
	case N_PREINC:
	case N_POSTINC:
		expect(e, n->lhs, TYPE_LONG);
		n->type = TYPE_LONG;
		break;
	case N_BINARY:
		n->type = n->op == OP_ANDAND || n->op == OP_OROR ? TYPE_LONG : infer_binary(e, n);
		if (n->op == OP_ANDAND || n->op == OP_OROR) {
			expect(e, n->lhs, TYPE_LONG);
			expect(e, n->rhs, TYPE_LONG);
		}
		break;
	case N_ASSIGN: n->type = infer_assign(e, n); break;
	case N_TERNARY:
		expect(e, n->cond, TYPE_LONG);
		n->type = unify(e, n->then, n->els);
		break;
	case N_EXPR_STMT: infer_discarded(e, n->lhs); break;
	case N_RETURN:
		if (e->function && n->lhs) {
			enum type t = infer(e, n->lhs);

			struct used_function *f = e->function;

			if (f->ret == TYPE_UNKNOWN && t != TYPE_UNKNOWN) {
				f->ret = t;
				f->ret_first = n->lhs;
				e->changed = true;
			} else if (t == f->ret && !f->ret_first) {
				f->ret_first = n->lhs;
			} else if (t != TYPE_UNKNOWN && f->ret != TYPE_UNKNOWN && t != f->ret &&
				   f->function->ret != TYPE_UNKNOWN) {
				/* Against the declared type: named the other way round. */
				type_error(e, n->lhs, t, f->ret);
			} else if (t != TYPE_UNKNOWN && f->ret != TYPE_UNKNOWN && t != f->ret &&
				   f->ret_first && !is_var(n->lhs)) {
				/* As an operand first, then against the first return. */
				type_error(e, n->lhs, f->ret, t);
				return_type_error(e, n->lhs, t, f);
			} else {
				expect(e, n->lhs, f->ret);
			}
		}
		break;
	case N_TRY:
		infer(e, n->then);
		if (n->sym) {
			struct var *v = n->sym;

			if (v->type == TYPE_UNKNOWN) {
				v->type = TYPE_STRING;
				v->type_loc = n->lhs->loc;
				e->changed = true;
			} else if (v->type != TYPE_STRING) {
				struct node name = { .kind = N_IDENT, .loc = n->lhs->loc, .text = n->text,
						     .sym = v };

				var_type_error(e, &name, TYPE_STRING);
			}
		}
		infer(e, n->els);
		break;
	case N_IF:
	case N_WHILE:
	case N_FOR:
		infer(e, n->init);
		if (n->cond)
			expect(e, n->cond, TYPE_LONG);
		infer(e, n->inc);
		infer(e, n->then);
		infer(e, n->els);
		break;
	case N_BLOCK: infer_list(e, &n->body); break;
	case N_INDEX: n->type = infer_index(e, n); break;
	case N_IN:
		infer_keys(e, var_of(n->lhs), &n->args);
		n->type = TYPE_LONG;
		break;
	case N_DELETE:
		if (n->lhs && n->lhs->kind == N_INDEX)
			infer_keys(e, var_of(n->lhs), &n->lhs->args);
		break;
	case N_FOREACH: infer_foreach(e, n->foreach); break;
	case N_STATOP:
		expect(e, n->lhs, TYPE_STATS);
		n->type = TYPE_LONG;
		break;
	case N_EMBEDDED_EXPR:
		/* A long, unless the code says it is a string, as in stap. */
		n->type = strstr(n->text, "/* string */") ? TYPE_STRING : TYPE_LONG;
		break;
	case N_HIST:
		expect(e, n->lhs, TYPE_STATS);
		for (int i = 0; i < n->args.len; i++)
			expect(e, n->args.items[i], TYPE_LONG);
		break;
	default: break;
	}
	return n->type;
}

static void infer_probes(struct elab *e)
{
	for (struct derived_probe *p = e->program->probes; p; p = p->next) {
		infer(e, p->body);
		if (p->cond)
			infer(e, p->cond);
	}
}

static void infer_functions(struct elab *e)
{
	for (struct used_function *f = e->program->functions; f; f = f->next) {
		e->function = f;
		infer(e, f->function->body);
	}
	e->function = NULL;
}

/* One sweep of inference over every function and probe body. Probes first, as stap: a
 * parameter takes its type from a call before its uses. stap reports the mismatches of the
 * functions first. */
static void infer_bodies(struct elab *e)
{
	if (e->report)
		infer_functions(e);
	infer_probes(e);
	if (!e->report)
		infer_functions(e);
}

/* Sweeps until no type changes, then once more to report the mismatches left. */
void infer_program(struct elab *e)
{
	for (int round = 0; round < 50; round++) {
		e->changed = false;
		e->mismatch_level = 0;
		infer_bodies(e);
		if (!e->changed)
			break;
	}
	e->shown_level = e->mismatch_level;
	e->report = true;
	infer_bodies(e);
}

/* stap reports a variable of unknown type at every use, three times over (its type
 * resolution looks again twice), then once more for the variable: one message shows, the
 * others count as suppressed. */
static bool report_unresolved_use(const struct node *n, void *ctx)
{
	const struct var *v = n->kind == N_IDENT ? n->sym : NULL;

	(void)ctx;
	if (v && v->type == TYPE_UNKNOWN) {
		struct token_desc tok = { "identifier", v->name };

		for (int i = 0; i < 3; i++)
			diag_error_at("semantic error", &tok, n->loc, "unresolved type ");
	}
	return false;
}

static void report_unresolved_vars(const struct var *vars)
{
	for (const struct var *v = vars; v; v = v->next) {
		struct token_desc tok = { "identifier", v->name };

		if (v->type == TYPE_UNKNOWN)
			diag_error_at("semantic error", &tok, v->loc, "unresolved type ");
	}
}

/* A call whose value is used, of a function that returns none that stap could type (a
 * `next` with no definition after it): stap reports it twice. */
struct statement_calls {
	const struct node **items;
	int len;
};

/* A part whose value a statement discards that is a call: it may be of a function that
 * returns nothing (infer_discarded()). */
static void collect_discarded_call(struct node *n, void *ctx)
{
	struct statement_calls *calls = ctx;

	if (n->kind != N_CALL)
		return;
	calls->items = xrealloc(calls->items, (size_t)(calls->len + 1) * sizeof(*calls->items));
	calls->items[calls->len++] = n;
}

/* The calls whose value a statement discards, as walk_discarded() reduces it. */
static bool collect_statement_call(const struct node *n, void *ctx)
{
	const struct discarded_visit visit = { NULL, NULL, collect_discarded_call, ctx };

	/* Only read: the walk takes the tree as inference, which types it, does. */
	if (n->kind == N_EXPR_STMT)
		walk_discarded((struct node *)n->lhs, &visit);
	return false;
}

static bool report_unresolved_call(const struct node *n, void *ctx)
{
	const struct statement_calls *calls = ctx;
	const struct used_function *f = n->kind == N_CALL ? n->sym : NULL;

	if (!f || f->ret != TYPE_UNKNOWN)
		return false;
	for (int i = 0; i < calls->len; i++)
		if (calls->items[i] == n)
			return false;
	struct token_desc tok = { "identifier", n->text };

	for (int i = 0; i < 2; i++)
		diag_error_at("semantic error", &tok, n->loc, "unresolved type ");
	return false;
}

/* An argument of print/println (sprint...) without a format that is a call of a function
 * that returns no value and that nothing typed: stap's "unresolved type" at the call (the
 * first such argument twice, as stap reports it). */
static bool report_untyped_print_arg(const struct node *n, void *ctx)
{
	bool reported = false;

	(void)ctx;
	if (n->kind != N_PRINT || strchr(n->text, 'f'))
		return false;
	for (int i = 0; i < n->args.len; i++) {
		const struct node *arg = n->args.items[i];
		const struct used_function *f = arg->kind == N_CALL ? arg->sym : NULL;

		if (!f || f->ret != TYPE_VOID || !takes_type_from_use(arg))
			continue;
		struct token_desc tok = { "identifier", arg->text };

		for (int k = reported ? 1 : 0; k < 2; k++)
			diag_error_at("semantic error", &tok, arg->loc, "unresolved type ");
		reported = true;
	}
	return false;
}

static void check_body_types(struct node *body, const struct var *vars)
{
	struct statement_calls calls = { 0 };

	if (body) {
		node_any(body, report_unresolved_use, NULL);
		node_any(body, collect_statement_call, &calls);
		node_any(body, report_unresolved_call, &calls);
		node_any(body, report_untyped_print_arg, NULL);
	}
	report_unresolved_vars(vars);
	free(calls.items);
}

void check_types(struct elab *e)
{
	for (struct derived_probe *p = e->program->probes; p; p = p->next)
		check_body_types(p->body, p->scope.vars);
	for (struct used_function *f = e->program->functions; f; f = f->next)
		check_body_types(f->function->body, f->scope.vars);
	report_unresolved_vars(e->program->globals);
}

