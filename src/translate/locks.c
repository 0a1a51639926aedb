// SPDX-License-Identifier: GPL-2.0-or-later
#include "translate/locks.h"

#include <stdlib.h>

#include "parse/ast_copy.h"
#include "translate/shards.h"
#include "util.h"

enum lock_mode { LOCK_NONE, LOCK_READ, LOCK_WRITE };

struct collect {
	const struct program *program;
	unsigned char *mode;		/* per global, in program->globals order */
	bool *added;			/* per global: the body feeds it with <<< */
	const struct node *unlocked_add;	/* the s of the `s <<< v` being walked */
	/* The update of a sharded global being walked, and the global's name in it: they
	 * change only this CPU's part, without the lock (shards.h). */
	const struct node *shard_update, *shard_ident;
	const struct used_function **seen;	/* functions already walked into */
	int nseen;
};

static int global_index(const struct collect *c, const struct var *v)
{
	int i = 0;

	if (!v || !v->global)
		return -1;
	for (const struct var *g = c->program->globals; g; g = g->next, i++)
		if (g == v)
			return i;
	return -1;
}

static void note(struct collect *c, const struct var *v, enum lock_mode mode)
{
	int i = global_index(c, v);

	if (i >= 0 && mode > c->mode[i])
		c->mode[i] = mode;
}

/* The statistics global an @op, a histogram or `in` reads, gathering its parts. */
static const struct var *stats_read(const struct node *n)
{
	const struct node *operand = n->kind == N_IN ? n : n->lhs;

	if (n->kind != N_STATOP && n->kind != N_HIST && n->kind != N_IN)
		return NULL;
	if (operand && (operand->kind == N_INDEX || operand->kind == N_IN))
		operand = operand->lhs;
	if (!operand || operand->kind != N_IDENT || !operand->sym)
		return NULL;
	return ((const struct var *)operand->sym)->type == TYPE_STATS ? operand->sym : NULL;
}

static bool visit(const struct node *n, void *ctx);

static void walk_function(struct collect *c, const struct used_function *f)
{
	for (int i = 0; i < c->nseen; i++)
		if (c->seen[i] == f)
			return;
	c->seen = xrealloc(c->seen, (size_t)(c->nseen + 1) * sizeof(*c->seen));
	c->seen[c->nseen++] = f;
	node_any(f->function->body, visit, c);
	if (f->next_overload)
		walk_function(c, f->next_overload);
}

/* Every global named is read; the changed ones, and the arrays a foreach walks (it lists
 * them into a buffer of its own, and a sort leaves them sorted: maps.h), are written. A
 * mode only goes up, so that the reads node_any then visits in a target change nothing. */
static bool visit(const struct node *n, void *ctx)
{
	struct collect *c = ctx;

	switch (n->kind) {
	case N_EXPR_STMT:
		c->shard_update = shard_update(n);
		if (c->shard_update)
			c->shard_ident = c->shard_update->lhs->kind == N_INDEX ?
					 c->shard_update->lhs->lhs : c->shard_update->lhs;
		break;
	case N_IDENT:
		/* s <<< v needs no lock: s is kept per CPU (an array of statistics too, held
		 * a map at a time: pstat.h). */
		if (n != c->unlocked_add && n != c->shard_ident)
			note(c, n->sym, LOCK_READ);
		break;
	case N_ASSIGN:
	case N_PREINC:
	case N_POSTINC:
	case N_DELETE:
		if (n == c->shard_update)
			break;
		if (n->kind == N_ASSIGN && n->op == OP_STATS_ADD) {
			const struct node *target = node_changed_var(n);
			int i = target ? global_index(c, target->sym) : -1;

			if (i >= 0)
				c->added[i] = true;
			if (i >= 0 && n->lhs->kind == N_IDENT)
				c->unlocked_add = n->lhs;
			/* a[k] <<< v likewise, unless @variance is taken of a: its gathering
			 * needs the parts unchanged between its two rounds (pstat.h). */
			if (i >= 0 && n->lhs->kind == N_INDEX &&
			    !((const struct var *)target->sym)->variance)
				c->unlocked_add = n->lhs->lhs;
		} else if (node_changed_var(n)) {
			note(c, node_changed_var(n)->sym, LOCK_WRITE);
		}
		break;
	case N_STATOP:
	case N_HIST:
	case N_IN:
		note(c, stats_read(n), LOCK_WRITE);
		break;
	case N_FOREACH:
		if (n->foreach->array->kind == N_IDENT)
			note(c, n->foreach->array->sym, LOCK_WRITE);
		break;
	case N_CALL:
		if (n->sym)
			walk_function(c, n->sym);
		break;
	default:
		break;
	}
	return false;
}

struct lock_plan lock_plan_for(const struct program *program, const struct node *body,
			       const struct node_list *entries)
{
	struct collect c = { .program = program };
	struct lock_plan plan = { 0 };
	int nglobals = 0, i = 0;

	for (const struct var *g = program->globals; g; g = g->next)
		nglobals++;
	c.mode = xcalloc((size_t)nglobals + 1, 1);
	c.added = xcalloc((size_t)nglobals + 1, sizeof(*c.added));
	node_any(body, visit, &c);
	for (int k = 0; entries && k < entries->len; k++)
		node_any(entries->items[k], visit, &c);
	plan.uses = xcalloc((size_t)nglobals + 1, sizeof(*plan.uses));
	for (const struct var *g = program->globals; g; g = g->next, i++) {
		/* Any other use of a sharded global merges its parts into it first. */
		if (g->sharded && c.mode[i] != LOCK_NONE)
			c.mode[i] = LOCK_WRITE;
		if (c.mode[i] != LOCK_NONE || c.added[i])
			plan.uses[plan.len++] = (struct lock_use){ g, c.mode[i] != LOCK_NONE,
								   c.mode[i] == LOCK_WRITE,
								   c.mode[i] == LOCK_WRITE ||
								   c.added[i] };
	}
	free(c.mode);
	free(c.added);
	free(c.seen);
	return plan;
}

void lock_plan_free(struct lock_plan *plan)
{
	free(plan->uses);
	plan->uses = NULL;
	plan->len = 0;
}
