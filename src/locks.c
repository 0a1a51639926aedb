// SPDX-License-Identifier: GPL-2.0-or-later
#include "locks.h"

#include <stdlib.h>

#include "util.h"

enum lock_mode { LOCK_NONE, LOCK_READ, LOCK_WRITE };

struct collect {
	const struct program *program;
	unsigned char *mode;		/* per global, in program->globals order */
	const struct used_function **seen;	/* functions already walked into */
	int nseen;
};

static void note(struct collect *c, const struct var *v, enum lock_mode mode)
{
	int i = 0;

	if (!v || !v->global)
		return;
	for (const struct var *g = c->program->globals; g; g = g->next, i++)
		if (g == v) {
			if (mode > c->mode[i])
				c->mode[i] = mode;
			return;
		}
}

static void walk(struct collect *c, const struct node *n);

static void walk_list(struct collect *c, const struct node_list *list)
{
	for (int i = 0; i < list->len; i++)
		walk(c, list->items[i]);
}

static void walk_function(struct collect *c, const struct used_function *f)
{
	for (int i = 0; i < c->nseen; i++)
		if (c->seen[i] == f)
			return;
	c->seen = xrealloc(c->seen, (size_t)(c->nseen + 1) * sizeof(*c->seen));
	c->seen[c->nseen++] = f;
	walk(c, f->function->body);
	if (f->next_overload)
		walk_function(c, f->next_overload);
}

/* The target of an assignment, ++/-- or delete: a variable, or an element of an array
 * (whose keys are read). Statistics fed with <<< are written too: one aggregate is shared
 * by every CPU. */
static void walk_target(struct collect *c, const struct node *target)
{
	if (!target)
		return;
	if (target->kind == N_IDENT) {
		note(c, target->sym, LOCK_WRITE);
	} else if (target->kind == N_INDEX && target->lhs && target->lhs->kind == N_IDENT) {
		note(c, target->lhs->sym, LOCK_WRITE);
		walk_list(c, &target->args);
	} else {
		walk(c, target);
	}
}

static void walk(struct collect *c, const struct node *n)
{
	if (!n)
		return;
	switch (n->kind) {
	case N_IDENT:
		note(c, n->sym, LOCK_READ);
		return;
	case N_ASSIGN:
	case N_PREINC:
	case N_POSTINC:
	case N_DELETE:
		walk_target(c, n->lhs);
		walk(c, n->rhs);
		return;
	case N_FOREACH: {
		const struct foreach *f = n->foreach;

		/* A foreach lists the entries into a buffer of its own, and a sort leaves the
		 * array in its sorted order (maps.h): one CPU at a time. */
		if (f->array->kind == N_IDENT)
			note(c, f->array->sym, LOCK_WRITE);
		else
			walk(c, f->array);
		walk_list(c, &f->slice);
		walk(c, f->limit);
		walk(c, f->body);
		return;
	}
	case N_CALL:
		walk_list(c, &n->args);
		if (n->sym)
			walk_function(c, n->sym);
		return;
	default:
		break;
	}
	for (const struct target_comp *tc = n->comps; tc; tc = tc->next)
		walk(c, tc->index_expr);
	walk(c, n->lhs);
	walk(c, n->rhs);
	walk(c, n->cond);
	walk(c, n->then);
	walk(c, n->els);
	walk(c, n->init);
	walk(c, n->inc);
	walk_list(c, &n->args);
	walk_list(c, &n->body);
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
	walk(&c, body);
	if (entries)
		walk_list(&c, entries);
	plan.uses = xcalloc((size_t)nglobals + 1, sizeof(*plan.uses));
	for (const struct var *g = program->globals; g; g = g->next, i++)
		if (c.mode[i] != LOCK_NONE)
			plan.uses[plan.len++] = (struct lock_use){ g, c.mode[i] == LOCK_WRITE };
	free(c.mode);
	free(c.seen);
	return plan;
}

void lock_plan_free(struct lock_plan *plan)
{
	free(plan->uses);
	plan->uses = NULL;
	plan->len = 0;
}
