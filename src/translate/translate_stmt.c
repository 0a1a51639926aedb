// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Statements into C: blocks, try/catch, if, loops, foreach, delete, return, next, and
 * stap's MAXACTION accounting. Expressions are translate_code.c's (gen_expr()); a failing
 * operation sets c->last_error, and each statement ends with the check that leaves the body.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "translate/shards.h"
#include "translate/translate_code.h"

/* The node whose token starts a statement: an expression statement's is its expression's
 * first token, as stap locates it. */
static const struct node *statement_token(const struct node *n)
{
	return n && n->kind == N_EXPR_STMT ? node_first_leaf(n->lhs) : n;
}

/*
 * stap's MAXACTION accounting, at translate time: statements add to a pending count, which
 * is taken from the hit's budget (and checked, located at `at`) at the end of each basic
 * block (`update`) or once ten are pending. A probe or function body's last pending actions
 * are not charged. As stap: an expression statement or a delete costs one; an if, a return,
 * next, break and continue one, charged at once; a loop one to start and one an iteration;
 * catching an error one.
 */
static void record_actions(struct body *b, int actions, const struct node *at, bool update)
{
	b->pending_actions += actions;
	if ((update && b->pending_actions > 0) || b->pending_actions >= 10) {
		char *loc = location_literal(statement_token(at));

		emit(b, "c->actions_remaining -= %d;", b->pending_actions);
		b->charged_actions = true;
		emit(b, "if (unlikely(c->actions_remaining <= 0)) {");
		emit(b, "\ttap_set_error(c, \"MAXACTION exceeded\", %s);", loc);
		emit_error_goto(b, "\t");
		emit(b, "}");
		free(loc);
		b->pending_actions = 0;
	}
}

/* ---- Statements ---- */

static void gen_block(struct body *b, struct node *n)
{
	for (int i = 0; i < n->body.len; i++)
		gen_stmt(b, n->body.items[i]);
}

/* try { A } catch (msg) { B }: an error in A (or in what it calls) lands at catch_N with
 * its message in c->last_error; B runs with msg holding it, and the error is gone, its
 * location too (a later error is reported where it happens). abort()'s request goes on out. */
static void gen_try(struct body *b, struct node *n)
{
	int label = ++b->nlabels, saved = b->catch_label;

	record_actions(b, 0, n, true);
	b->catch_label = label;
	gen_stmt(b, n->then);
	record_actions(b, 0, n->then, true);
	b->catch_label = saved;
	emit(b, "goto try_end_%d;", label);
	emit(b, "catch_%d: __attribute__((unused));", label);
	/* abort() ends the probe hit whatever try blocks it is in. */
	emit(b, "if (unlikely(c->last_error == tap_abort_request))");
	emit_error_goto(b, "\t");
	if (n->sym) {
		char *msg = var_ref(n->sym);

		emit(b, "tap_strcpy(%s, c->last_error);", msg);
		free(msg);
	}
	emit(b, "c->last_error = NULL;");
	emit(b, "c->error_location = NULL;");
	record_actions(b, 1, n, true);
	gen_stmt(b, n->els);
	record_actions(b, 0, n->els, true);
	emit(b, "try_end_%d: __attribute__((unused));", label);
}

static void gen_if(struct body *b, struct node *n)
{
	record_actions(b, 1, n, true);
	char *cond = gen_expr(b, n->cond);

	emit(b, "if (tap_truth(%s)) {", cond);
	b->indent++;
	gen_stmt(b, n->then);
	record_actions(b, 0, n->then, true);
	b->indent--;
	if (n->els) {
		emit(b, "} else {");
		b->indent++;
		gen_stmt(b, n->els);
		record_actions(b, 0, n->els, true);
		b->indent--;
	}
	emit(b, "}");
	free(cond);
}

/* A loop's body, inside the loop's brace: break and continue jump to the loop's labels,
 * and the body's pending actions (plus `actions`, an iteration's cost) are charged at its
 * end. Leaves the brace open, after the continue label. */
static void gen_loop_body(struct body *b, struct node *body, int label, int actions)
{
	int saved_break = b->break_label, saved_continue = b->continue_label;

	b->break_label = label;
	b->continue_label = label;
	gen_stmt(b, body);
	record_actions(b, actions, body, true);
	b->break_label = saved_break;
	b->continue_label = saved_continue;
	b->indent--;
	emit(b, "continue_%d: __attribute__((unused));", label);
}

/* Each iteration costs MAXACTION budget, as in stap, so that no loop runs forever. */

/* while and for: for (;;) { cond; body; continue_label: inc; } break_label: */
static void gen_loop(struct body *b, struct node *n)
{
	int label = ++b->nlabels;

	if (n->init && n->init->kind >= N_BLOCK) {
		gen_stmt(b, n->init);
	} else if (n->init) {
		/* The initializer is an expression, as the increment is. */
		char *init = gen_expr(b, n->init);

		free(init);
		body_check_error(b);
		record_actions(b, 1, n->init, false);	/* stap's init is a statement */
	}
	record_actions(b, 1, n, true);
	emit(b, "for (;;) {");
	b->indent++;
	record_actions(b, 1, n, false);
	if (n->cond) {
		char *cond = gen_expr(b, n->cond);

		emit(b, "if (!tap_truth(%s))", cond);
		emit(b, "\tbreak;");
		free(cond);
	}
	gen_loop_body(b, n->then, label, 0);
	b->indent++;
	if (n->inc) {
		char *inc = gen_expr(b, n->inc);

		free(inc);
		body_check_error(b);
	}
	b->indent--;
	emit(b, "}");
	emit(b, "break_%d: __attribute__((unused));", label);
}

/* delete of a statistics global: from every CPU's part, and from the gathered aggregate. */
static void gen_delete_stats(struct body *b, struct node *what, const struct var *v)
{
	const char *name = v->c_name;

	if (what->kind == N_INDEX) {
		char *keys = gen_keys(b, what, NULL, NULL);

		emit(b, "tap_pmap_delete(&tap_m_%s, tap_pm_%s, %s, %#x);", name, name, keys,
		     wild_mask(&what->args));
		free(keys);
	} else if (v->arity) {
		emit(b, "tap_pmap_delete(&tap_m_%s, tap_pm_%s, NULL, 0);", name, name);
	} else {
		emit(b, "tap_pstat_clear(&tap_g_%s.stat, &tap_ps_%s);", name, name);
	}
}

/* delete a[k], delete a[k, *] (a slice), delete a, delete x. */
static void gen_delete(struct body *b, struct node *n)
{
	struct node *what = n->lhs;
	struct var *v = what->kind == N_INDEX ? what->lhs->sym : what->sym;
	char *map;

	if (per_cpu_stats(v)) {
		gen_delete_stats(b, what, v);
		return;
	}
	map = map_ref(v);
	if (what->kind == N_INDEX) {
		char *keys = gen_keys(b, what, NULL, NULL);

		if (wild_mask(&what->args))
			emit(b, "tap_map_slice_delete(%s, %s, %#x);", map, keys,
			     wild_mask(&what->args));
		else
			emit(b, "tap_map_delete(%s, %s);", map, keys);
		free(keys);
	} else if (v->arity) {
		emit(b, "tap_map_clear(%s);", map);
	} else {
		char *ref = var_ref(v);

		if (v->type == TYPE_STATS)
			emit(b, "memset(&%s, 0, sizeof(%s));", ref, ref);
		else
			emit(b, v->type == TYPE_STRING ? "%s[0] = '\\0';" : "%s = 0;", ref);
		free(ref);
	}
	free(map);
}

/* How the runtime names the aggregate an array of aggregates sorts by. */
static char aggregate_letter(const char *aggregate)
{
	if (!aggregate)
		return 'c';
	if (!strcmp(aggregate, "sum"))
		return 's';
	if (!strcmp(aggregate, "min"))
		return 'n';
	if (!strcmp(aggregate, "max"))
		return 'x';
	if (!strcmp(aggregate, "variance"))
		return 'v';
	return !strcmp(aggregate, "avg") ? 'a' : 'c';
}

/* Sets a foreach variable from an entry's key (column 1..n) or value (column 0). */
static void set_from_entry(struct body *b, struct node *target, const char *map,
			   const char *entry, int column, bool is_string)
{
	char *ref = var_ref(target->sym);
	char *slot = column ? xasprintf("tap_map_key_slot(%s, %s, %d)", map, entry, column - 1)
			    : xasprintf("tap_map_value(%s, %s)", map, entry);

	if (is_string)
		emit(b, "tap_strcpy(%s, %s);", ref, slot);
	else
		emit(b, "%s = *(int64_t *)%s;", ref, slot);
	free(ref);
	free(slot);
}

/* The keys of a foreach's slice, evaluated once before the loop: a literal of union
 * tap_key, its `*` keys 0. */
static char *slice_keys(struct body *b, struct foreach *f)
{
	struct var *array = f->array->sym;
	char **temps = xcalloc((size_t)f->slice.len + 1, sizeof(*temps));
	char *keys;

	for (int k = 0; k < f->slice.len; k++) {
		struct node *key = f->slice.items[k];
		char *value;

		if (key->kind == N_STAR) {
			temps[k] = xstrdup("0");
			continue;
		}
		value = gen_expr(b, key);
		temps[k] = body_temp(b, array->key_types[k]);
		emit(b, array->key_types[k] == TYPE_STRING ? "tap_strcpy(%s, %s);" : "%s = %s;",
		     temps[k], value);
		free(value);
	}
	keys = keys_literal(array, temps, f->slice.len);
	for (int k = 0; k < f->slice.len; k++)
		free(temps[k]);
	free(temps);
	return keys;
}

/*
 * foreach ([i] in @hist_log(s) limit N) body, foreach (v = [i] in ...): every bucket of the
 * histogram in order, i its number and v its count; stap does not sort them.
 */
static void gen_foreach_hist(struct body *b, struct node *n)
{
	struct foreach *f = n->foreach;
	struct node *hist = f->array;
	struct var *v = stat_var(hist->lhs);
	char *stat = stat_pointer(b, hist->lhs);
	char *buckets = hist_buckets_expr(v, stat);
	char *i = body_temp(b, TYPE_LONG);
	char *limit = f->limit ? gen_expr(b, f->limit) : NULL;
	int label = ++b->nlabels;

	record_actions(b, 1, n, true);
	emit(b, "for (%s = 0; %s < tap_h_%s.buckets; %s++) {", i, i, v->c_name, i);
	b->indent++;
	if (limit) {
		emit(b, "if (%s >= %s)", i, limit);
		emit(b, "	break;");
	}
	if (f->keys.len) {
		char *key = var_ref(f->keys.items[0]->sym);

		emit(b, "%s = %s;", key, i);
		free(key);
	}
	if (f->value) {
		char *value = var_ref(f->value->sym);

		emit(b, "%s = %s[%s];", value, buckets, i);
		free(value);
	}
	gen_loop_body(b, f->body, label, 1);	/* stap: an iteration of buckets costs one */
	emit(b, "}");
	emit(b, "break_%d: __attribute__((unused));", label);
	free(stat);
	free(buckets);
	free(i);
	free(limit);
}

/*
 * foreach ([k1, k2] in a [sort] limit N) body: the entries listed (sorted when asked) into a
 * buffer of the array's capacity, then the body for each, its keys and value in the loop
 * variables. The buffer is static: a probe walking an array holds its write lock (locks.c).
 */
static void gen_foreach(struct body *b, struct node *n)
{
	struct foreach *f = n->foreach;
	struct var *array = f->array->sym;
	char *map = map_ref(array);
	char *count = body_temp(b, TYPE_LONG), *i = body_temp(b, TYPE_LONG);
	char *slice = f->slice.len ? slice_keys(b, f) : NULL;
	char *limit = f->limit ? gen_expr(b, f->limit) : NULL;
	int label = ++b->nlabels;
	int column = f->sort_column < 0 ? 0 : f->sort_column;
	char *entry;

	emit(b, "{");
	b->indent++;
	if (array->global->max_entries)
		emit(b, "static struct tap_map_entry *entries[%lld];",
		     (long long)array->global->max_entries);
	else
		emit(b, "static struct tap_map_entry *entries[MAXMAPENTRIES];");
	if (per_cpu_stats(array)) {
		char *loc = location_literal(n);

		emit(b, "if (unlikely(!tap_pmap_gather(c, %s, tap_pm_%s, %s)))", map,
		     array->c_name, loc);
		emit_error_goto(b, "	");
		free(loc);
	}
	emit(b, "%s = tap_map_list(%s, entries, %d, %d, '%c');", count, map, column,
	     f->sort_column ? f->sort_direction : 0, aggregate_letter(f->sort_aggregate));
	record_actions(b, 1, n, true);
	emit(b, "for (%s = 0; %s < %s; %s++) {", i, i, count, i);
	b->indent++;
	record_actions(b, 1, n, false);
	if (limit) {
		emit(b, "if (%s >= %s)", i, limit);
		emit(b, "	break;");
	}
	entry = xasprintf("entries[%s]", i);
	for (int k = 0; k < f->keys.len; k++)
		set_from_entry(b, f->keys.items[k], map, entry, k + 1,
			       array->key_types[k] == TYPE_STRING);
	/* As in stap, the limit counts every entry and the keys are set before the slice
	 * skips an entry. */
	if (slice) {
		emit(b, "if (!tap_map_entry_matches(%s, %s, %s, %#x))", map, entry, slice,
		     wild_mask(&f->slice));
		emit(b, "	goto continue_%d;", label);
	}
	if (f->value)
		set_from_entry(b, f->value, map, entry, 0, array->type == TYPE_STRING);
	gen_loop_body(b, f->body, label, 0);
	emit(b, "}");
	b->indent--;
	emit(b, "}");
	emit(b, "break_%d: __attribute__((unused));", label);
	free(entry);
	free(slice);
	free(map);
	free(count);
	free(i);
	free(limit);
}

static void gen_return(struct body *b, struct node *n)
{
	if (n->lhs && b->function) {
		char *value = gen_expr(b, n->lhs);

		if (n->lhs->type == TYPE_STRING)
			emit(b, "tap_strcpy(l->retvalue, %s);", value);
		else
			emit(b, "l->retvalue = %s;", value);
		free(value);
	}
	record_actions(b, 1, n, true);
	emit(b, "goto out;");
}

void gen_stmt(struct body *b, struct node *n)
{
	if (!n)
		return;
	switch (n->kind) {
	case N_BLOCK: gen_block(b, n); return;
	case N_NULL: return;
	case N_IF: gen_if(b, n); return;
	case N_WHILE:
	case N_FOR: gen_loop(b, n); return;
	case N_BREAK:
		record_actions(b, 1, n, true);
		emit(b, "goto break_%d;", b->break_label);
		return;
	case N_CONTINUE:
		record_actions(b, 1, n, true);
		emit(b, "goto continue_%d;", b->continue_label);
		return;
	case N_NEXT:
		record_actions(b, 1, n, true);
		/* In a function: run the next definition of it (the caller looks). */
		if (b->function)
			emit(b, "c->function_next = 1;");
		/* A conditional probe's guard: the condition is false, the kprobe may go. */
		if (n->num == 1 && b->condition)
			emit(b, "tap_condition_false(%d);", b->condition);
		emit(b, "goto out;");
		return;
	case N_RETURN: gen_return(b, n); return;
	case N_TRY: gen_try(b, n); return;
	case N_DELETE:
		gen_delete(b, n);
		note_condition_write(b, n->lhs);
		record_actions(b, 1, n, false);
		return;
	case N_FOREACH:
		if (n->foreach->array->kind == N_HIST)
			gen_foreach_hist(b, n);
		else
			gen_foreach(b, n);
		return;
	case N_EMBEDDED_STMT:
		gen_embedded_stmt(b, n);
		record_actions(b, 1, n, false);
		return;
	case N_EXPR_STMT: {
		char *value;

		if (shard_update(n)) {
			gen_shard_update(b, shard_update(n));
			body_check_error(b);
			record_actions(b, 1, n, false);
			return;
		}
		if (n->lhs->kind == N_POSTINC) {
			value = gen_incdec(b, n->lhs, false);
			note_condition_write(b, n->lhs->lhs);
		} else {
			value = gen_expr(b, n->lhs);
		}

		free(value);
		body_check_error(b);
		record_actions(b, 1, n, false);
		return;
	}
	default: return;	/* pass 3 refused every other kind */
	}
}
