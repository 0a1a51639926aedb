// SPDX-License-Identifier: GPL-2.0-or-later
#include "locks.h"

#include <stdlib.h>

#include "ast_copy.h"
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
	case N_IDENT:
		note(c, n->sym, LOCK_READ);
		break;
	case N_ASSIGN:
	case N_PREINC:
	case N_POSTINC:
	case N_DELETE:
		/* Statistics fed with <<< too: one aggregate serves every CPU. */
		if (node_changed_var(n))
			note(c, node_changed_var(n)->sym, LOCK_WRITE);
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
	node_any(body, visit, &c);
	for (int k = 0; entries && k < entries->len; k++)
		node_any(entries->items[k], visit, &c);
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
