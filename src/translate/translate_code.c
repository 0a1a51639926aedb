// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Statements and expressions into C.
 *
 * gen_expr() returns a side-effect-free C expression for a node's value and emits, before it,
 * whatever statements computing it takes (calls, assignments, increments). Operands are
 * evaluated left to right as in stap: when a later operand emits statements, an earlier
 * operand's value is saved in a temporary first, at the place it was computed.
 * A failing operation sets c->last_error; each statement ends with a check that leaves the
 * body (`goto out`) when one is set.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "parse/format.h"
#include "translate/regex_table.h"
#include "translate/shards.h"
#include "resolve/target_vars.h"
#include "translate/translate.h"
#include "translate/translate_code.h"

void emit(struct body *b, const char *fmt, ...)
{
	va_list ap;

	for (int i = 0; i < b->indent; i++)
		sb_addc(b->sink, '\t');
	va_start(ap, fmt);
	sb_vaddf(b->sink, fmt, ap);
	va_end(ap);
	sb_addc(b->sink, '\n');
}

char *var_ref(const struct var *v)
{
	/* A statistics global is a struct holding its tap_stat and what else it keeps. */
	if (v->global && v->type == TYPE_STATS)
		return xasprintf("tap_g_%s.stat", v->c_name);
	return v->global ? xasprintf("tap_g_%s", v->c_name) : xasprintf("l->v_%s", v->name);
}

/* A new temporary: a string's in the body's frame, a number's a C local (a register, most
 * often, where a frame member would be a store and a load on the probe's hot path). */
static char *new_temp(struct body *b, enum type type)
{
	int id = b->ntemps++;

	if (type == TYPE_STRING) {
		sb_addf(&b->fields, "\tchar t%d[MAXSTRINGLEN];\n", id);
		return xasprintf("l->t%d", id);
	}
	sb_addf(&b->c_locals, "\tint64_t lt%d __maybe_unused;\n", id);
	return xasprintf("lt%d", id);
}

/* The jump a runtime error takes: to the try's catch, else out of the body. */
void emit_error_goto(struct body *b, const char *indent)
{
	if (b->catch_label)
		emit(b, "%sgoto catch_%d;", indent, b->catch_label);
	else
		emit(b, "%sgoto out;", indent);
}

static void check_error(struct body *b)
{
	emit(b, "if (unlikely(c->last_error))");
	emit_error_goto(b, "\t");
}

char *body_temp(struct body *b, enum type type)
{
	return new_temp(b, type);
}

void body_check_error(struct body *b)
{
	check_error(b);
}

/* Saves `expr` in a temporary, the saving statement inserted at byte `at` of the sink. */
static char *save_at(struct body *b, size_t at, enum type type, char *expr)
{
	char *temp = new_temp(b, type);
	struct strbuf line = { 0 };

	for (int i = 0; i < b->indent; i++)
		sb_addc(&line, '\t');
	if (type == TYPE_STRING)
		sb_addf(&line, "tap_strcpy(%s, %s);\n", temp, expr);
	else
		sb_addf(&line, "%s = %s;\n", temp, expr);

	struct strbuf *s = b->sink;
	size_t tail = s->len - at;
	char *rest = xstrndup(s->buf + at, tail);

	s->len = at;
	sb_add(s, line.buf);
	sb_addn(s, rest, tail);
	free(rest);
	free(line.buf);
	free(expr);
	return temp;
}

static bool is_literal(const struct node *n)
{
	return n->kind == N_NUMBER || n->kind == N_STRING;
}

/* Whether expr is a function's string value where it left it, in its frame: only another call
 * at that level (one that is not frameless()) writes there. */
static bool is_frame_value(const char *expr)
{
	size_t len = strlen(expr);

	return !strncmp(expr, "c->frames[", 10) && len > 9 &&
	       !strcmp(expr + len - 9, ".retvalue") && !strchr(expr + 10, '(') &&
	       !strchr(expr + 10, '[');
}

/* Whether expr is a temporary made since `first` (by the operand's own code): nothing after
 * it writes to it, so it needs no copy to keep its value. */
static bool is_fresh_temp(const char *expr, int first)
{
	int id, end = 0;

	if (sscanf(expr, "l->t%d%n", &id, &end) == 1 && expr[end] == '\0' && id >= first)
		return true;
	end = 0;
	return sscanf(expr, "lt%d%n", &id, &end) == 1 && expr[end] == '\0' && id >= first;
}

/* Evaluates nodes[0..n) left to right into exprs[]; see the comment at the top. */
void gen_operands(struct body *b, struct node **nodes, int n, char **exprs)
{
	size_t *after = xcalloc((size_t)n + 1, sizeof(*after));
	size_t *before = xcalloc((size_t)n + 1, sizeof(*before));
	int *first_temp = xcalloc((size_t)n + 1, sizeof(*first_temp));
	int *calls_before = xcalloc((size_t)n + 1, sizeof(*calls_before));

	for (int i = 0; i < n; i++) {
		before[i] = b->sink->len;
		first_temp[i] = b->ntemps;
		calls_before[i] = b->framed_calls;
		exprs[i] = gen_expr(b, nodes[i]);
		after[i] = b->sink->len;
	}
	/* From the last, so that an insertion does not move the places still to come. A value
	 * in a callee's frame needs a copy only when a later operand calls at that level
	 * (printf("%s %d", execname(), pid()): pid() is frameless). */
	bool later_emits = false, later_calls = false;

	for (int i = n - 1; i >= 0; i--) {
		bool changes = is_frame_value(exprs[i]) ? later_calls : later_emits;

		if (changes && !is_literal(nodes[i]) && !is_fresh_temp(exprs[i], first_temp[i]))
			exprs[i] = save_at(b, after[i], nodes[i]->type, exprs[i]);
		if (after[i] != before[i])
			later_emits = true;
		if ((i + 1 < n ? calls_before[i + 1] : b->framed_calls) != calls_before[i])
			later_calls = true;
	}
	free(after);
	free(before);
	free(first_temp);
	free(calls_before);
}

/* Generates `n` into a separate buffer; returns its statements and sets *expr. */
static char *gen_branch(struct body *b, struct node *n, char **expr)
{
	struct strbuf branch = { 0 };
	struct strbuf *saved = b->sink;

	b->sink = &branch;
	b->indent++;
	*expr = gen_expr(b, n);
	b->indent--;
	b->sink = saved;
	return sb_steal(&branch);
}

static char *gen_logical(struct body *b, struct node *n)
{
	bool is_and = n->op == OP_ANDAND;
	char *lhs = gen_expr(b, n->lhs);
	char *rhs;
	char *code = gen_branch(b, n->rhs, &rhs);
	char *result;

	if (!*code) {
		result = xasprintf("tap_truth(tap_truth(%s) %s tap_truth(%s))", lhs,
				   is_and ? "&&" : "||", rhs);
	} else {
		/* The right side's statements run only when it is evaluated. */
		result = new_temp(b, TYPE_LONG);
		emit(b, "%s = tap_truth(%s);", result, lhs);
		emit(b, "if (%s%s) {", is_and ? "" : "!", result);
		sb_add(b->sink, code);
		emit(b, "\t%s = tap_truth(%s);", result, rhs);
		emit(b, "}");
	}
	free(lhs);
	free(rhs);
	free(code);
	return result;
}

static char *gen_ternary(struct body *b, struct node *n)
{
	char *cond = gen_expr(b, n->cond);
	char *then_expr, *else_expr;
	char *then_code = gen_branch(b, n->then, &then_expr);
	char *else_code = gen_branch(b, n->els, &else_expr);
	char *result;

	if (!*then_code && !*else_code) {
		result = xasprintf("(tap_truth(%s) ? %s : %s)", cond, then_expr, else_expr);
	} else {
		char *temp = new_temp(b, n->type);
		const char *fmt = n->type == TYPE_STRING ? "\ttap_strcpy(%s, %s);" : "\t%s = %s;";

		emit(b, "if (tap_truth(%s)) {", cond);
		sb_add(b->sink, then_code);
		emit(b, fmt, temp, then_expr);
		emit(b, "} else {");
		sb_add(b->sink, else_code);
		emit(b, fmt, temp, else_expr);
		emit(b, "}");
		result = temp;
	}
	free(cond);
	free(then_expr);
	free(else_expr);
	free(then_code);
	free(else_code);
	return result;
}

static const char *c_operator(int op)
{
	switch (op) {
	case OP_LE: return "<=";
	case OP_GE: return ">=";
	case OP_EQ: return "==";
	case OP_NE: return "!=";
	default: return NULL;
	}
}

/* The C expression of `lhs op rhs`, both already evaluated; n locates errors. */
static char *binary_expr(struct body *b, const struct node *n, int op, enum type operand_type,
			 const char *lhs, const char *rhs)
{
	const char *cop = c_operator(op);
	char opc[2] = { (char)op, 0 };

	if (op == '.') {
		char *temp = new_temp(b, TYPE_STRING);

		emit(b, "tap_concat(%s, %s, %s);", temp, lhs, rhs);
		return temp;
	}
	if (operand_type == TYPE_STRING)
		return xasprintf("tap_truth(strcmp(%s, %s) %s 0)", lhs, rhs, cop ? cop : opc);
	if (op == '/' || op == '%') {
		/* A division by zero ends the probe before its value is used. */
		char *loc = location_literal(n);
		char *temp = new_temp(b, TYPE_LONG);

		emit(b, "%s = tap_%s(c, %s, %s, %s);", temp, op == '/' ? "div" : "mod", lhs, rhs,
		     loc);
		check_error(b);
		free(loc);
		return temp;
	}
	if (op == OP_SHL || op == OP_SHR || op == OP_USHR)
		return xasprintf("tap_%s(%s, %s)",
				 op == OP_SHL ? "shl" : op == OP_SHR ? "shr" : "ushr", lhs, rhs);
	if (cop || op == '<' || op == '>')
		return xasprintf("tap_truth(tap_compare(%s, %s) %s 0)", lhs, rhs, cop ? cop : opc);
	if (op == '+' || op == '-' || op == '*')
		/* Wrapping arithmetic, done unsigned so that C calls nothing undefined. */
		return xasprintf("((int64_t)((uint64_t)%s %c (uint64_t)%s))", lhs, op, rhs);
	return xasprintf("((int64_t)(%s %c %s))", lhs, op, rhs);
}

/* s =~ "re" / s !~ "re": the match is a statement of its own, as it sets the context's
 * last match (for matched()); the pattern is compiled into the module's table. */
static char *gen_regex_match(struct body *b, struct node *n)
{
	char *str = gen_expr(b, n->lhs);
	char *matched = new_temp(b, TYPE_LONG);
	int pattern = regex_table_use(b->regexes, n->rhs->raw);
	char *result;

	emit(b, "%s = tap_regex_match(&c->regex, &tap_regex_%d, %s);", matched, pattern, str);
	result = n->op == OP_NOMATCH ? xasprintf("tap_not(%s)", matched) : xstrdup(matched);
	free(str);
	free(matched);
	return result;
}

static char *gen_binary(struct body *b, struct node *n)
{
	struct node *operands[2] = { n->lhs, n->rhs };
	char *e[2];
	char *result;

	if (n->op == OP_ANDAND || n->op == OP_OROR)
		return gen_logical(b, n);
	if (n->op == OP_MATCH || n->op == OP_NOMATCH)
		return gen_regex_match(b, n);
	gen_operands(b, operands, 2, e);
	result = binary_expr(b, n, n->op, n->lhs->type, e[0], e[1]);
	free(e[0]);
	free(e[1]);
	return result;
}

static char *gen_unary(struct body *b, struct node *n)
{
	char *operand = gen_expr(b, n->lhs);
	char *result;

	switch (n->op) {
	case '-': result = xasprintf("((int64_t)(0 - (uint64_t)%s))", operand); break;
	case '!': result = xasprintf("tap_not(%s)", operand); break;
	case '~': result = xasprintf("(~%s)", operand); break;
	default: result = xstrdup(operand); break;
	}
	free(operand);
	return result;
}

/* ---- Arrays ---- */

char *map_ref(const struct var *array)
{
	return xasprintf("&tap_m_%s", array->c_name);
}

/* A statistics global: its parts are per CPU (runtime/pstat.h). */
bool per_cpu_stats(const struct var *v)
{
	return v->global && v->type == TYPE_STATS;
}

/* The keys of an array use as a compound literal of union tap_key. */
char *keys_literal(const struct var *array, char **exprs, int n)
{
	struct strbuf sb = { 0 };

	sb_add(&sb, "(const union tap_key[]){ ");
	for (int i = 0; i < n; i++)
		sb_addf(&sb, "{ .%c = %s }, ", array->key_types[i] == TYPE_STRING ? 's' : 'l',
			exprs[i]);
	sb_add(&sb, "}");
	return sb_steal(&sb);
}

/* The `*` keys of an array slice as a mask, bit i for key i; 0 when there are none. */
unsigned wild_mask(const struct node_list *keys)
{
	unsigned mask = 0;

	for (int i = 0; i < keys->len; i++)
		if (keys->items[i]->kind == N_STAR)
			mask |= 1u << i;
	return mask;
}

static char *new_pointer_temp(struct body *b)
{
	int id = b->ntemps++;

	sb_addf(&b->fields, "	void *t%d;\n", id);
	return xasprintf("l->t%d", id);
}

/* Evaluates the keys of `index` and then `extra` (an assigned value, or NULL), left to
 * right; returns the keys' literal and sets *extra_expr. */
char *gen_keys(struct body *b, struct node *index, struct node *extra, char **extra_expr)
{
	int n = index->args.len;
	struct node **nodes = xcalloc((size_t)n + 2, sizeof(*nodes));
	char **exprs = xcalloc((size_t)n + 2, sizeof(*exprs));
	char *keys;

	memcpy(nodes, index->args.items, sizeof(*nodes) * (size_t)n);
	if (extra)
		nodes[n] = extra;
	gen_operands(b, nodes, n + (extra != NULL), exprs);
	keys = keys_literal(index->lhs->sym, exprs, n);
	if (extra_expr)
		*extra_expr = extra ? exprs[n] : NULL;
	for (int i = 0; i < n; i++)
		free(exprs[i]);
	free(exprs);
	free(nodes);
	return keys;
}

/* The storage of a[keys], made if need be: an lvalue, "(*(int64_t *)p)" or "((char *)p)". */
static char *index_slot(struct body *b, struct node *index, const char *keys)
{
	struct var *array = index->lhs->sym;
	char *map = map_ref(array);
	char *slot = new_pointer_temp(b);
	char *loc = location_literal(index->lhs);
	char *lvalue;

	emit(b, "%s = tap_map_slot_desc(c, %s, &tap_md_%s, %s, %s);", slot, map, array->c_name,
	     keys, loc);
	emit(b, "if (unlikely(!%s))", slot);
	emit_error_goto(b, "	");
	lvalue = array->type == TYPE_STRING ? xasprintf("((char *)%s)", slot) :
		 array->type == TYPE_STATS ? xasprintf("(*(struct tap_stat *)%s)", slot) :
					     xasprintf("(*(int64_t *)%s)", slot);
	free(map);
	free(slot);
	free(loc);
	return lvalue;
}

/* a[keys] read: 0 or "" when there is no such entry. */
static char *gen_index(struct body *b, struct node *n)
{
	struct var *array = n->lhs->sym;
	char *keys = gen_keys(b, n, NULL, NULL);
	char *map = map_ref(array);
	char *result;

	if (array->type == TYPE_STRING) {
		result = new_temp(b, TYPE_STRING);
		emit(b, "tap_strcpy(%s, tap_map_get_string(%s, %s));", result, map, keys);
	} else {
		result = xasprintf("tap_map_get_long_desc(%s, &tap_md_%s, %s)", map,
				   array->c_name, keys);
	}
	free(keys);
	free(map);
	return result;
}

/* The statistics global an operand names: s, or the array of a[k]. */
struct var *stat_var(const struct node *operand)
{
	return operand->kind == N_INDEX ? operand->lhs->sym : operand->sym;
}

/* A `struct tap_stat *` to read the aggregate `operand` (s or a[k]) through, its CPUs'
 * parts gathered: an empty one, extras included, for an entry not in its array. */
char *stat_pointer(struct body *b, struct node *operand)
{
	if (operand->kind == N_INDEX) {
		char *keys = gen_keys(b, operand, NULL, NULL);
		char *slot = new_pointer_temp(b);
		char *result = xasprintf("((struct tap_stat *)%s)", slot);

		emit(b, "%s = tap_pmap_gather_key(c, tap_pm_%s, %s);", slot,
		     ((struct var *)operand->lhs->sym)->c_name, keys);
		free(keys);
		free(slot);
		return result;
	} else if (per_cpu_stats(operand->sym)) {
		const char *name = ((struct var *)operand->sym)->c_name;

		emit(b, "tap_pstat_gather(c, &tap_g_%s.stat, &tap_ps_%s);", name, name);
		return xasprintf("(&tap_g_%s.stat)", name);
	} else {
		char *ref = var_ref(operand->sym);
		char *result = xasprintf("(&%s)", ref);

		free(ref);
		return result;
	}
}

/* The buckets of the aggregate at `stat`, and its histogram's layout. */
char *hist_buckets_expr(const struct var *v, const char *stat)
{
	return xasprintf("tap_stat_buckets_of(%s, %s)", stat, v->variance ? "true" : "false");
}

static char *hist_layout(const struct var *v)
{
	return xasprintf("&tap_h_%s", v->c_name);
}

/* @variance(s) or @variance(a[k]): see runtime/histogram.h. */
static char *variance_expr(const struct var *v, const char *stat, const char *loc)
{
	if (v->arity)
		return xasprintf("tap_entry_variance(c, %s, tap_stat_variance_of(%s), %d, %s, %s)",
				 stat, stat, (int)v->variance_shift,
				 v->hist != HIST_NONE ? "true" : "false", loc);
	return xasprintf("tap_variance(c, %s, tap_stat_variance_of(%s), %d, %s)", stat, stat,
			 (int)v->variance_shift, loc);
}

/* @count(s), @sum, @min, @max, @avg, @variance of an aggregate or of an array's one; an
 * empty one's @min, @max, @avg and @variance are an error. */
static char *gen_statop(struct body *b, struct node *n)
{
	static const struct { const char *name; char op; } ops[] = {
		{ "count", 'c' }, { "sum", 's' }, { "min", 'n' }, { "max", 'x' }, { "avg", 'a' },
	};
	char op = 'c';
	char *stat, *result = new_temp(b, TYPE_LONG);
	char *loc = location_literal(n);

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(ops[i].name, n->text))
			op = ops[i].op;
	stat = stat_pointer(b, n->lhs);
	if (!strcmp(n->text, "variance")) {
		char *value = variance_expr(stat_var(n->lhs), stat, loc);

		emit(b, "%s = %s;", result, value);
		free(value);
	} else {
		emit(b, "%s = tap_stat_op(c, %s, '%c', %s);", result, stat, op, loc);
	}
	check_error(b);
	free(stat);
	free(loc);
	return result;
}

/* @hist_log(s)[i], @hist_linear(a[k], ...)[i]: the count of bucket i. */
static char *gen_hist_index(struct body *b, struct node *n)
{
	struct node *hist = n->lhs;
	struct var *v = stat_var(hist->lhs);
	char *stat = stat_pointer(b, hist->lhs);
	char *index = gen_expr(b, n->args.items[0]);
	char *buckets = hist_buckets_expr(v, stat), *layout = hist_layout(v);
	char *loc = location_literal(hist);
	char *result = new_temp(b, TYPE_LONG);

	emit(b, "%s = tap_hist_bucket(c, %s, %s, %s, %s, %s);", result, stat, buckets, layout,
	     index, loc);
	check_error(b);
	free(stat);
	free(index);
	free(buckets);
	free(layout);
	free(loc);
	return result;
}

/* print(@hist_log(s)) and println(): the histogram drawn in the output; sprint() and
 * sprintln(): into a string. */
char *gen_hist_print(struct body *b, struct node *n)
{
	struct node *hist = n->args.items[0];
	struct var *v = stat_var(hist->lhs);
	char *stat = stat_pointer(b, hist->lhs);
	char *buckets = hist_buckets_expr(v, stat), *layout = hist_layout(v);
	char *loc = location_literal(n);
	char *result = n->text[0] == 's' ? new_temp(b, TYPE_STRING) : NULL;

	emit(b, "tap_hist_print(c, %s, %s, %s, %s, %s);", result ? result : "NULL", stat, buckets,
	     layout, loc);
	check_error(b);
	free(stat);
	free(buckets);
	free(layout);
	free(loc);
	return result ? result : xstrdup("0");
}

/* `i in @hist_log(s)`: whether i is one of the histogram's bucket numbers, those foreach
 * visits (0 to its buckets - 1), as stap's. */
static char *gen_in_hist(struct body *b, struct node *n)
{
	struct var *v = stat_var(n->lhs->lhs);
	char *index = gen_expr(b, n->args.items[0]);
	char *result = new_temp(b, TYPE_LONG);

	emit(b, "%s = %s >= 0 && %s < tap_h_%s.buckets;", result, index, index, v->c_name);
	free(index);
	return result;
}

static char *gen_in(struct body *b, struct node *n)
{
	if (n->lhs->kind == N_HIST)
		return gen_in_hist(b, n);

	char **exprs = xcalloc((size_t)n->args.len + 1, sizeof(*exprs));
	char *keys, *map = map_ref(n->lhs->sym), *result;

	gen_operands(b, n->args.items, n->args.len, exprs);
	keys = keys_literal(n->lhs->sym, exprs, n->args.len);
	if (per_cpu_stats(n->lhs->sym))
		result = xasprintf("tap_truth(tap_pmap_any(tap_pm_%s, %s, %#x))",
				   ((struct var *)n->lhs->sym)->c_name, keys, wild_mask(&n->args));
	else if (wild_mask(&n->args))
		result = xasprintf("tap_truth(tap_map_slice_any(%s, %s, %#x))", map, keys,
				   wild_mask(&n->args));
	else
		result = xasprintf("tap_truth(tap_map_find(%s, %s) != NULL)", map, keys);
	for (int i = 0; i < n->args.len; i++)
		free(exprs[i]);
	free(exprs);
	free(keys);
	free(map);
	return result;
}

/* The lvalue an assignment or ++/-- writes: a variable, or an array's entry. The keys are
 * evaluated first, then `value` (sets *value_expr). */
static char *gen_lvalue(struct body *b, struct node *lhs, struct node *value, char **value_expr)
{
	char *keys, *slot;

	if (lhs->kind != N_INDEX) {
		char *ref = var_ref(lhs->sym);

		if (value_expr)
			*value_expr = value ? gen_expr(b, value) : NULL;
		return ref;
	}
	keys = gen_keys(b, lhs, value, value_expr);
	slot = index_slot(b, lhs, keys);
	free(keys);
	return slot;
}

/* After a write of `target`: note it when a condition reads that global. */
void note_condition_write(struct body *b, const struct node *target)
{
	if (target && target->kind == N_INDEX)
		target = target->lhs;
	for (int i = 0; target && target->kind == N_IDENT && i < b->ncondition_globals; i++) {
		if (b->condition_globals[i] == target->sym) {
			emit(b, "c->conditions_changed = 1;");
			return;
		}
	}
}

/* x++, x--, ++x, --x; `value_used` false: a statement of its own, whose x++ needs no copy
 * of the old value. */
char *gen_incdec(struct body *b, struct node *n, bool value_used)
{
	char *ref = gen_lvalue(b, n->lhs, NULL, NULL);
	const char *op = n->op == OP_INC ? "+" : "-";
	char *result;

	if (n->kind == N_POSTINC && value_used) {
		result = new_temp(b, TYPE_LONG);
		emit(b, "%s = %s;", result, ref);
		emit(b, "%s = (int64_t)((uint64_t)%s %s 1);", ref, ref, op);
	} else {
		emit(b, "%s = (int64_t)((uint64_t)%s %s 1);", ref, ref, op);
		result = xstrdup(ref);
	}
	free(ref);
	return result;
}

/* s <<< value: counted, and kept for @variance and the histogram when the global has
 * them. */
static void gen_stat_add(struct body *b, const struct var *v, const char *ref,
			 const char *value)
{
	char *stat = xasprintf("&%s", ref);
	char *buckets = hist_buckets_expr(v, stat);

	emit(b, "tap_stat_add(%s, %s);", stat, value);
	if (v->variance)
		emit(b, "tap_variance_add(%s, tap_stat_variance_of(%s), %s, %d);", stat, stat, value,
		     (int)v->variance_shift);
	if (v->hist == HIST_LOG)
		emit(b, "tap_hist_log_add(%s, %s);", buckets, value);
	else if (v->hist == HIST_LINEAR)
		emit(b, "tap_hist_linear_add(%s, &tap_h_%s, %s);", buckets, v->c_name, value);
	free(stat);
	free(buckets);
}

/* s <<< value into this CPU's part of a statistics global (runtime/pstat.h): the value
 * computed first, then added between tap_pstat_begin_add() and tap_pstat_end_add(), with
 * nothing that may leave the probe in between. */
static char *gen_stat_add_part(struct body *b, struct node *n)
{
	const struct var *v = n->lhs->sym;
	const char *unwatched = v->pstat_unwatched ? "_unwatched" : "";
	char *value = gen_expr(b, n->rhs);
	char *saved = new_temp(b, TYPE_LONG);

	emit(b, "%s = %s;", saved, value);
	/* The part in a C local, not a frame slot: a register on the hot path. */
	emit(b, "{");
	b->indent++;
	emit(b, "struct tap_stat *part = tap_pstat_begin_add%s(&tap_ps_%s);", unwatched,
	     v->c_name);
	gen_stat_add(b, v, "(*part)", saved);
	emit(b, "tap_pstat_end_add%s(part);", unwatched);
	b->indent--;
	emit(b, "}");
	free(value);
	return saved;
}

/* x++, x += v and the like, as a statement, of a sharded global (translate/shards.h,
 * runtime/shards.h): this CPU's part changed, without the global's lock. */
void gen_shard_update(struct body *b, const struct node *u)
{
	const struct var *v = shard_update_var(u);
	bool minus = u->kind == N_ASSIGN ? u->op == OP_ASSIGN_BASE + '-' : u->op == OP_DEC;
	struct node *value = u->kind == N_ASSIGN ? u->rhs : NULL;
	char *delta = NULL, *keys, *loc;

	if (!v->arity) {
		delta = value ? gen_expr(b, value) : xstrdup("1");
		emit(b, "this_cpu_%s(tap_ss_%s->added, %s);", minus ? "sub" : "add", v->c_name,
		     delta);
		free(delta);
		return;
	}
	keys = gen_keys(b, u->lhs, value, &delta);
	loc = location_literal(u->lhs->lhs);
	emit(b, "{");
	b->indent++;
	emit(b, "struct tap_smap_hold hold;");
	emit(b, "int64_t *part = tap_smap_slot_desc(c, &tap_sm_%s, &tap_md_%s, %s, &hold, %s);",
	     v->c_name, v->c_name, keys, loc);
	emit(b, "if (unlikely(tap_smap_failed(&hold, part)))");
	emit_error_goto(b, "\t");
	if (shard_update_assigns(u)) {
		/* a[k] = v: the value, and the stamp that orders the assignment at the merge. */
		emit(b, "*part = %s;", delta);
		emit(b, "tap_smap_assigned(&tap_sm_%s, &hold, part);", v->c_name);
	} else {
		emit(b, "*part = (int64_t)((uint64_t)*part %c (uint64_t)(%s));", minus ? '-' : '+',
		     delta ? delta : "1");
	}
	emit(b, "tap_smap_done(&tap_sm_%s, &hold);", v->c_name);
	b->indent--;
	emit(b, "}");
	free(delta);
	free(keys);
	free(loc);
}

/* a[keys] <<< value into a map of this CPU (runtime/pstat.h): the keys and the value
 * computed first, then the map held for the add alone. */
static char *gen_stat_add_array(struct body *b, struct node *n)
{
	const struct var *v = n->lhs->lhs->sym;
	char *value = NULL;
	char *keys = gen_keys(b, n->lhs, n->rhs, &value);
	char *saved = new_temp(b, TYPE_LONG);
	char *loc = location_literal(n->lhs->lhs);

	emit(b, "%s = %s;", saved, value);
	emit(b, "{");
	b->indent++;
	emit(b, "struct tap_pmap_part *held;");
	emit(b, "struct tap_stat *part = tap_pmap_slot_desc(c, tap_pm_%s, &tap_md_%s, %s, &held, %s);",
	     v->c_name, v->c_name, keys, loc);
	emit(b, "if (unlikely(!part))");
	emit_error_goto(b, "\t");
	gen_stat_add(b, v, "(*part)", saved);
	emit(b, "tap_pmap_done(held);");
	b->indent--;
	emit(b, "}");
	free(value);
	free(keys);
	free(loc);
	return saved;
}

static char *gen_assign(struct body *b, struct node *n)
{
	char *value, *ref;

	if (n->op == OP_STATS_ADD && n->lhs->kind == N_IDENT && per_cpu_stats(n->lhs->sym))
		return gen_stat_add_part(b, n);
	if (n->op == OP_STATS_ADD && n->lhs->kind == N_INDEX && per_cpu_stats(n->lhs->lhs->sym))
		return gen_stat_add_array(b, n);
	if (n->lhs->kind == N_TARGET || n->lhs->kind == N_CAST || n->lhs->kind == N_ATVAR)
		return gen_target_write(b, n->lhs, n->rhs);
	ref = gen_lvalue(b, n->lhs, n->rhs, &value);

	if (n->op == OP_STATS_ADD) {
		gen_stat_add(b, stat_var(n->lhs), ref, value);
		free(ref);
		return value;
	}
	if (n->op == '=') {
		if (n->type == TYPE_STRING)
			emit(b, "tap_strcpy(%s, %s);", ref, value);
		else
			emit(b, "%s = %s;", ref, value);
	} else if (n->op == OP_ASSIGN_BASE + '.') {
		emit(b, "tap_concat(%s, %s, %s);", ref, ref, value);
	} else {
		/* a op= b is a = a op b, with the operator's own rules. */
		char *combined = binary_expr(b, n, n->op - OP_ASSIGN_BASE, TYPE_LONG, ref, value);

		emit(b, "%s = %s;", ref, combined);
		free(combined);
	}
	free(value);
	return ref;
}

/* The frame of a function called from `b`: a probe body runs at nesting level 0, so its
 * callees' frame is frames[1], a constant; a function's callee is one level below it. */
static const char *callee_frame(const struct body *b)
{
	return b->function ? "c->frames[c->nesting + 1]" : "c->frames[1]";
}

bool names_identifier(const char *code, const char *word)
{
	size_t len = strlen(word);

	for (const char *p = strstr(code, word); p; p = strstr(p + 1, word)) {
		bool starts = p == code || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
		bool ends = !(isalnum((unsigned char)p[len]) || p[len] == '_');

		if (starts && ends)
			return true;
	}
	return false;
}

bool cannot_fail(const struct used_function *f)
{
	static const char *const raisers[] = {
		"CONTEXT", "c", "STAP_ERROR", "kread", "uread", "kwrite", "uwrite",
		"kderef_buffer", "DEREF_FAULT", "STORE_DEREF_FAULT",
	};
	const char *code = f->function->embedded;

	if (f->function->body || !code)
		return false;
	for (size_t i = 0; i < sizeof(raisers) / sizeof(raisers[0]); i++)
		if (names_identifier(code, raisers[i]))
			return false;
	return true;
}

bool frameless(const struct used_function *f)
{
	if (!cannot_fail(f) || (f->ret != TYPE_LONG && f->ret != TYPE_VOID))
		return false;
	for (const struct var *p = f->scope.vars; p && p->is_param; p = p->next)
		if (p->type != TYPE_LONG)
			return false;
	return true;
}

/* The call of a frameless() function: its frame a C local (registers, once inlined). */
static void call_frameless(struct body *b, const struct used_function *f, char **args,
			   const char *result)
{
	const char *name = f->c_name;
	int i = 0;

	emit(b, "{");
	b->indent++;
	emit(b, "struct frame_function_%s callee = { 0 };", name);
	for (struct var *p = f->scope.vars; p && p->is_param; p = p->next, i++)
		emit(b, "callee.v_%s = %s;", p->name, args[i]);
	emit(b, "function_%s(c, &callee);", name);
	if (result)
		emit(b, "%s = callee.retvalue;", result);
	b->indent--;
	emit(b, "}");
}

/* Runs one definition of a function on the evaluated `args`; its value into `result`. */
static void call_definition(struct body *b, const struct used_function *f, char **args,
			    const char *result, const char *loc)
{
	const char *name = f->c_name, *frame = callee_frame(b);
	int i = 0;

	if (frameless(f)) {
		call_frameless(b, f, args, result);
		return;
	}
	for (struct var *p = f->scope.vars; p && p->is_param; p = p->next, i++) {
		if (p->type == TYPE_STRING)
			emit(b, "tap_strcpy(%s.function_%s.v_%s, %s);", frame, name, p->name,
			     args[i]);
		else
			emit(b, "%s.function_%s.v_%s = %s;", frame, name, p->name, args[i]);
	}
	b->framed_calls++;
	emit(b, b->function ? "c->nesting++;" : "c->nesting = 1;");
	emit(b, "function_%s(c);", name);
	emit(b, b->function ? "c->nesting--;" : "c->nesting = 0;");
	/* An error an embedded function raises (error()) is located at the call. */
	if (!cannot_fail(f)) {
		emit(b, "if (unlikely(c->last_error)) {");
		emit(b, "\tif (!c->error_location)");
		emit(b, "\t\tc->error_location = %s;", loc);
		emit_error_goto(b, "\t");
		emit(b, "}");
	}
	if (!result)
		return;
	if (f->ret == TYPE_STRING)
		emit(b, "tap_strcpy(%s, %s.function_%s.retvalue);", result, frame, name);
	else
		emit(b, "%s = %s.function_%s.retvalue;", result, frame, name);
}

/* String arguments that are still a callee's value in its frame are copied to temporaries:
 * the call's own frame, at the same level, overlaps them. */
static void copy_frame_strings(struct body *b, struct node **nodes, int n, char **exprs)
{
	for (int i = 0; i < n; i++) {
		if (nodes[i]->type != TYPE_STRING || !strstr(exprs[i], "c->frames["))
			continue;
		char *temp = new_temp(b, TYPE_STRING);

		emit(b, "tap_strcpy(%s, %s);", temp, exprs[i]);
		free(exprs[i]);
		exprs[i] = temp;
	}
}

/* A call runs the function's first definition of its arity, and each next one while the
 * one before ended with `next`. */
static char *gen_call(struct body *b, struct node *n)
{
	struct used_function *f = n->sym;
	char **args = xcalloc((size_t)n->args.len + 1, sizeof(*args));
	char *loc = location_literal(n);
	char *result = NULL, *in_frame = NULL;
	int depth = 0;

	gen_operands(b, n->args.items, n->args.len, args);
	copy_frame_strings(b, n->args.items, n->args.len, args);
	/* stap names the function's definition, not the call. */
	struct node decl = { .kind = N_CALL, .loc = f->function->loc, .text = f->function->name };
	char *decl_loc = location_literal(&decl);

	emit(b, b->function ? "if (unlikely(c->nesting >= MAXNESTING)) {"
			    : "if (unlikely(MAXNESTING < 1)) {");
	emit(b, "\ttap_set_error(c, \"MAXNESTING exceeded\", %s);", decl_loc);
	emit_error_goto(b, "\t");
	emit(b, "}");
	free(decl_loc);
	/* A string value stays in the callee's frame until the next call at its level (which
	 * gen_operands() and copy_frame_strings() take care of): no copy. With overloads, each
	 * definition has its own frame, so the value is copied where they all put it. */
	if (f->ret == TYPE_STRING && !f->next_overload)
		in_frame = xasprintf("%s.function_%s.retvalue", callee_frame(b), f->c_name);
	else if (f->ret == TYPE_LONG || f->ret == TYPE_STRING)
		result = new_temp(b, f->ret);
	call_definition(b, f, args, result, loc);
	for (const struct used_function *g = f->next_overload; g; g = g->next_overload, depth++) {
		emit(b, "if (c->function_next) {");
		b->indent++;
		emit(b, "c->function_next = 0;");
		call_definition(b, g, args, result, loc);
	}
	for (; depth > 0; depth--) {
		b->indent--;
		emit(b, "}");
	}
	/* A `next` in the last definition has no definition to run. */
	if (f->function->body)
		emit(b, "c->function_next = 0;");
	for (int i = 0; i < n->args.len; i++)
		free(args[i]);
	free(args);
	free(loc);
	return in_frame ? in_frame : result ? result : xstrdup("0");
}

static char *gen_entry(struct body *b, struct node *n)
{
	if (b->in_entry_handler)
		return gen_expr(b, n->lhs);
	return xasprintf("e->entry%d", n->entry_slot);
}

static char *gen_embedded_expr(struct body *b, const struct node *n);

/* %{ code %} as a statement (guru mode): as in stap, an expression whose value is dropped. */
void gen_embedded_stmt(struct body *b, const struct node *n)
{
	char *value = gen_embedded_expr(b, n);

	emit(b, "(void)%s;", value);
	free(value);
}

/* Around %{ %} in a script function: STAP_ARG_NAME for each of its parameters, as stap
 * gives them (`%{ S_ISDIR(STAP_ARG_mode) %}`); `undo`: their #undef after it. */
static void embedded_arg_names(struct body *b, bool undo)
{
	if (!b->function)
		return;
	for (struct var *p = b->function->scope.vars; p && p->is_param; p = p->next) {
		char *ref = undo ? NULL : var_ref(p);

		if (undo)
			sb_addf(b->sink, "#undef STAP_ARG_%s\n", p->name);
		else
			sb_addf(b->sink, "#define STAP_ARG_%s (%s)\n", p->name, ref);
		free(ref);
	}
}

/* %{ expr %} as a value (guru mode): a long, or a string copied into a temporary; the
 * code sees the probe's context as CONTEXT, a script function's parameters as STAP_ARG_*.
 * A fault of its kread() ... (runtime/loc2c.h) jumps to its own deref_fault, with the error
 * set: the value is 0 or "" and the probe stops there, at the code's place. */
static char *gen_embedded_expr(struct body *b, const struct node *n)
{
	char *result = new_temp(b, n->type == TYPE_STRING ? TYPE_STRING : TYPE_LONG);
	char *loc = location_literal(n);

	emit(b, n->type == TYPE_STRING ? "%s[0] = '\\0';" : "%s = 0;", result);
	emit(b, "({ __label__ deref_fault;");
	embedded_arg_names(b, false);
	if (n->type == TYPE_STRING)
		sb_addf(b->sink, "#define CONTEXT c\ntap_strcpy(%s, (%s));\n#undef CONTEXT\n",
			result, n->text);
	else
		sb_addf(b->sink, "#define CONTEXT c\n%s = (int64_t)(%s);\n#undef CONTEXT\n",
			result, n->text);
	embedded_arg_names(b, true);
	emit(b, "if (0) { deref_fault: __attribute__((unused)); } });");
	emit(b, "if (unlikely(c->last_error)) {");
	emit(b, "\tif (!c->error_location)");
	emit(b, "\t\tc->error_location = %s;", loc);
	emit_error_goto(b, "\t");
	emit(b, "}");
	free(loc);
	return result;
}

char *gen_expr(struct body *b, struct node *n)
{
	switch (n->kind) {
	case N_NUMBER:
		return n->num == INT64_MIN ? xstrdup("((int64_t)(-9223372036854775807LL - 1))")
					   : xasprintf("((int64_t)%" PRId64 "LL)", n->num);
	case N_STRING: return c_string_literal(n->text);
	case N_IDENT: return var_ref(n->sym);
	case N_TARGET:
	case N_CAST:
	case N_ATVAR: return gen_target(b, n);
	case N_BINARY: return gen_binary(b, n);
	case N_UNARY: return gen_unary(b, n);
	case N_PREINC:
	case N_POSTINC:
	case N_ASSIGN: {
		char *value = n->kind == N_ASSIGN ? gen_assign(b, n) : gen_incdec(b, n, true);

		note_condition_write(b, n->lhs);
		return value;
	}
	case N_TERNARY: return gen_ternary(b, n);
	case N_CALL: return gen_call(b, n);
	case N_PRINT: return gen_print(b, n);
	case N_ENTRY: return gen_entry(b, n);
	case N_INDEX: return n->lhs->kind == N_HIST ? gen_hist_index(b, n) : gen_index(b, n);
	case N_IN: return gen_in(b, n);
	case N_STATOP: return gen_statop(b, n);
	case N_EMBEDDED_EXPR: return gen_embedded_expr(b, n);
	default: return xstrdup("0");	/* pass 3 refused every other kind */
	}
}
