// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Deep copies of syntax trees, and a walk over every node of one. Pass 2 annotates the nodes of a body it resolves (types,
 * symbols), so a body that runs in several probes (a probe alias's prologue, a user body
 * reached through several aliases) is resolved as one copy per probe.
 */
#include "parse/ast_copy.h"

#include <string.h>

#include "util.h"

static char *copy_text(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void copy_list(struct node_list *to, const struct node_list *from)
{
	*to = (struct node_list){ 0 };
	for (int i = 0; i < from->len; i++)
		node_list_push(to, node_copy(from->items[i]));
}

static struct target_comp *copy_comps(const struct target_comp *c)
{
	struct target_comp *first = NULL, **tail = &first;

	for (; c; c = c->next) {
		struct target_comp *copy = xmalloc(sizeof(*copy));

		*copy = *c;
		copy->field = copy_text(c->field);
		copy->index_expr = node_copy(c->index_expr);
		copy->next = NULL;
		*tail = copy;
		tail = &copy->next;
	}
	return first;
}

static struct foreach *copy_foreach(const struct foreach *f)
{
	struct foreach *copy;

	if (!f)
		return NULL;
	copy = xmalloc(sizeof(*copy));
	*copy = *f;
	copy_list(&copy->keys, &f->keys);
	copy->value = node_copy(f->value);
	copy->array = node_copy(f->array);
	copy_list(&copy->slice, &f->slice);
	copy->sort_aggregate = copy_text(f->sort_aggregate);
	copy->limit = node_copy(f->limit);
	copy->body = node_copy(f->body);
	return copy;
}

struct node *node_copy(const struct node *n)
{
	struct node *copy;

	if (!n)
		return NULL;
	copy = xmalloc(sizeof(*copy));
	*copy = *n;
	copy->text = copy_text(n->text);
	copy->raw = copy_text(n->raw);
	copy->suffix = copy_text(n->suffix);
	copy->module = copy_text(n->module);
	copy->module_raw = copy_text(n->module_raw);
	copy->lhs = node_copy(n->lhs);
	copy->rhs = node_copy(n->rhs);
	copy->cond = node_copy(n->cond);
	copy->then = node_copy(n->then);
	copy->els = node_copy(n->els);
	copy->init = node_copy(n->init);
	copy->inc = node_copy(n->inc);
	copy_list(&copy->args, &n->args);
	copy_list(&copy->body, &n->body);
	copy->comps = copy_comps(n->comps);
	copy->foreach = copy_foreach(n->foreach);
	/* Pass 2's annotations belong to the original. */
	copy->sym = NULL;
	copy->entry_slot = 0;
	return copy;
}

static bool list_any(const struct node_list *list,
		     bool (*test)(const struct node *n, void *ctx), void *ctx)
{
	for (int i = 0; i < list->len; i++)
		if (node_any(list->items[i], test, ctx))
			return true;
	return false;
}

bool node_any(const struct node *n, bool (*test)(const struct node *n, void *ctx), void *ctx)
{
	const struct foreach *f;

	if (!n)
		return false;
	if (test(n, ctx))
		return true;
	for (const struct target_comp *c = n->comps; c; c = c->next)
		if (node_any(c->index_expr, test, ctx))
			return true;
	f = n->foreach;
	if (f && (list_any(&f->keys, test, ctx) || node_any(f->value, test, ctx) ||
		  node_any(f->array, test, ctx) || list_any(&f->slice, test, ctx) ||
		  node_any(f->limit, test, ctx) || node_any(f->body, test, ctx)))
		return true;
	return node_any(n->lhs, test, ctx) || node_any(n->rhs, test, ctx) ||
	       node_any(n->cond, test, ctx) || node_any(n->then, test, ctx) ||
	       node_any(n->els, test, ctx) || node_any(n->init, test, ctx) ||
	       node_any(n->inc, test, ctx) || list_any(&n->args, test, ctx) ||
	       list_any(&n->body, test, ctx);
}
