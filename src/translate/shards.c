// SPDX-License-Identifier: GPL-2.0-or-later
#include "translate/shards.h"

#include <stdlib.h>
#include <string.h>

#include "parse/ast_copy.h"
#include "util.h"

/* An assignment of an element, a[k] = v: the last one made wins at the merge. */
static bool is_element_assign(const struct node *n)
{
	return n->kind == N_ASSIGN && n->op == '=' && n->lhs && n->lhs->kind == N_INDEX;
}

/* The global a candidate update changes: a numeric scalar, or an array of numbers that
 * does not wrap. */
static const struct var *update_target(const struct node *update)
{
	const struct node *lhs = update->lhs;
	const struct var *v;

	if (!lhs)
		return NULL;
	if (lhs->kind == N_INDEX)
		lhs = lhs->lhs;
	if (!lhs || lhs->kind != N_IDENT || !lhs->sym)
		return NULL;
	v = lhs->sym;
	if (!v->global || v->type != TYPE_LONG || (v->arity && v->global->wrap))
		return NULL;
	if (v->arity ? update->lhs->kind != N_INDEX : update->lhs->kind != N_IDENT)
		return NULL;
	return v;
}

static const struct node *candidate_update(const struct node *stmt)
{
	const struct node *n = stmt && stmt->kind == N_EXPR_STMT ? stmt->lhs : NULL;

	if (!n)
		return NULL;
	if (n->kind != N_PREINC && n->kind != N_POSTINC && !is_element_assign(n) &&
	    !(n->kind == N_ASSIGN &&
	      (n->op == OP_ASSIGN_BASE + '+' || n->op == OP_ASSIGN_BASE + '-')))
		return NULL;
	return update_target(n) ? n : NULL;
}

const struct node *shard_update(const struct node *stmt)
{
	const struct node *n = candidate_update(stmt);

	return n && update_target(n)->sharded ? n : NULL;
}

const struct var *shard_update_var(const struct node *update)
{
	return update_target(update);
}

bool shard_update_assigns(const struct node *update)
{
	return is_element_assign(update);
}

struct walk {
	const struct program *program;
	int nglobals;
	bool *updates, *others;		/* per global, in program->globals order */
	bool *adds, *assigns;		/* of the updates, over all probes */
	const struct node *update_ident;	/* the global named by the update being walked */
	const struct used_function **seen;
	int nseen;
	bool (*visit)(const struct node *n, void *ctx);	/* what looks at each node */
	bool watching;			/* the probe walked runs while others do */
	bool *watched;			/* per statistics scalar: read while probes run, or
					 * deleted */
};

static int global_index(const struct program *program, const struct var *v)
{
	int i = 0;

	for (const struct var *g = program->globals; g; g = g->next, i++)
		if (g == v)
			return i;
	return -1;
}

static bool visit(const struct node *n, void *ctx);

static void walk_function(struct walk *w, const struct used_function *f)
{
	for (int i = 0; i < w->nseen; i++)
		if (w->seen[i] == f)
			return;
	w->seen = xrealloc(w->seen, (size_t)(w->nseen + 1) * sizeof(*w->seen));
	w->seen[w->nseen++] = f;
	node_any(f->function->body, w->visit, w);
	if (f->next_overload)
		walk_function(w, f->next_overload);
}

static bool visit(const struct node *n, void *ctx)
{
	struct walk *w = ctx;
	const struct node *update = candidate_update(n);
	const struct var *v;
	int i;

	if (update) {
		i = global_index(w->program, update_target(update));
		w->updates[i] = true;
		if (is_element_assign(update))
			w->assigns[i] = true;
		else
			w->adds[i] = true;
		w->update_ident = update->lhs->kind == N_INDEX ? update->lhs->lhs : update->lhs;
	} else if (n->kind == N_IDENT && n != w->update_ident) {
		v = n->sym;
		if (v && v->global && (i = global_index(w->program, v)) >= 0)
			w->others[i] = true;
	} else if (n->kind == N_CALL && n->sym) {
		walk_function(w, n->sym);
	}
	return false;
}

/* What one probe (its body, @entry expressions and condition) does with each global. */
static void walk_probe(struct walk *w, const struct derived_probe *p)
{
	int n = w->nglobals;

	memset(w->updates, 0, (size_t)n * sizeof(*w->updates));
	memset(w->others, 0, (size_t)n * sizeof(*w->others));
	w->nseen = 0;
	node_any(p->body, w->visit, w);
	for (int k = 0; k < p->entries.len; k++)
		node_any(p->entries.items[k], w->visit, w);
}

static bool mark_condition_global(const struct node *n, void *ctx)
{
	(void)ctx;
	if (n->kind == N_IDENT && n->sym && ((struct var *)n->sym)->global)
		((struct var *)n->sym)->sharded = false;
	return false;
}

void shards_decide(struct program *program)
{
	int n = 0;

	for (struct var *g = program->globals; g; g = g->next)
		n++;
	bool *updated = xcalloc((size_t)n + 1, sizeof(bool));
	bool *mixed = xcalloc((size_t)n + 1, sizeof(bool));
	struct walk w = { .program = program, .nglobals = n, .visit = visit,
			  .updates = xcalloc((size_t)n + 1, sizeof(bool)),
			  .others = xcalloc((size_t)n + 1, sizeof(bool)),
			  .adds = xcalloc((size_t)n + 1, sizeof(bool)),
			  .assigns = xcalloc((size_t)n + 1, sizeof(bool)) };

	for (const struct derived_probe *p = program->probes; p; p = p->next) {
		walk_probe(&w, p);
		for (int i = 0; i < n; i++) {
			updated[i] |= w.updates[i];
			mixed[i] |= w.updates[i] && w.others[i];
		}
	}
	int i = 0;

	/* Adds and assignments of one array in shards could not be put back in their order. */
	for (struct var *g = program->globals; g; g = g->next, i++) {
		g->sharded = updated[i] && !mixed[i] && !(w.adds[i] && w.assigns[i]);
		g->shard_assigns = g->sharded && w.assigns[i];
	}
	for (const struct derived_probe *p = program->probes; p; p = p->next)
		node_any(p->cond, mark_condition_global, NULL);
	free(updated);
	free(mixed);
	free(w.updates);
	free(w.others);
	free(w.adds);
	free(w.assigns);
	free(w.seen);
}

/* A statistics scalar named by node `n`, or NULL. */
static const struct var *stat_scalar(const struct node *n)
{
	const struct var *v = n && n->kind == N_IDENT ? n->sym : NULL;

	return v && v->global && v->type == TYPE_STATS && !v->arity ? v : NULL;
}

static bool visit_stats(const struct node *n, void *ctx)
{
	struct walk *w = ctx;
	const struct var *v;

	if (n->kind == N_ASSIGN && n->op == OP_STATS_ADD && stat_scalar(n->lhs)) {
		w->update_ident = n->lhs;
	} else if (n->kind == N_DELETE && (v = stat_scalar(n->lhs))) {
		w->watched[global_index(w->program, v)] = true;
	} else if ((v = stat_scalar(n)) && n != w->update_ident) {
		if (w->watching)
			w->watched[global_index(w->program, v)] = true;
	} else if (n->kind == N_CALL && n->sym) {
		walk_function(w, n->sym);
	}
	return false;
}

/* A probe of begin, end and error points alone: it runs while no other probe does
 * (the begin probes before the others are armed, the end and error probes after they are
 * gone). */
static bool runs_alone(const struct derived_probe *p)
{
	for (const struct derived_point *d = p->points; d; d = d->next)
		if (!provider_is_session(d->kind))
			return false;
	return true;
}

void pstats_decide(struct program *program)
{
	int n = 0, i = 0;

	for (struct var *g = program->globals; g; g = g->next)
		n++;
	struct walk w = { .program = program, .nglobals = n, .visit = visit_stats,
			  .updates = xcalloc((size_t)n + 1, sizeof(bool)),
			  .others = xcalloc((size_t)n + 1, sizeof(bool)),
			  .watched = xcalloc((size_t)n + 1, sizeof(bool)) };

	for (const struct derived_probe *p = program->probes; p; p = p->next) {
		w.watching = !runs_alone(p);
		walk_probe(&w, p);
		node_any(p->cond, visit_stats, &w);
	}
	for (struct var *g = program->globals; g; g = g->next, i++)
		g->pstat_unwatched = stat_scalar(&(struct node){ .kind = N_IDENT, .sym = g }) &&
				     !w.watched[i];
	free(w.updates);
	free(w.others);
	free(w.watched);
	free(w.seen);
}
