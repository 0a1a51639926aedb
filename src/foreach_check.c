// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stap's pass-2 rule for foreach: the array iterated must not change in the loop's body,
 * neither by the body itself (an element assigned, incremented, fed with <<<, or deleted,
 * one or a slice) nor by a function it calls that does so itself (stap looks no deeper
 * than that). Deleting the whole array is allowed, as in stap.
 */
#include "foreach_check.h"

#include <stdlib.h>

#include "diag.h"
#include "util.h"

/* The global array an element write or element delete changes, or NULL. */
static const struct var *element_written(const struct node *n)
{
	const struct node *target = NULL;

	switch (n->kind) {
	case N_ASSIGN:
	case N_PREINC:
	case N_POSTINC:
	case N_DELETE:
		target = n->lhs;
		break;
	default:
		return NULL;
	}
	if (!target || target->kind != N_INDEX || !target->lhs || target->lhs->kind != N_IDENT)
		return NULL;
	return target->lhs->sym;
}

struct walk {
	const struct var **iterated;	/* the arrays of the enclosing foreach loops */
	int depth;
};

/* Whether the tree n writes an element of array itself (calls in it are not followed). */
static bool tree_writes(const struct node *n, const struct var *array)
{
	if (!n)
		return false;
	if (element_written(n) == array)
		return true;
	if (n->kind == N_FOREACH) {
		const struct foreach *f = n->foreach;

		for (int i = 0; i < f->slice.len; i++)
			if (tree_writes(f->slice.items[i], array))
				return true;
		return tree_writes(f->limit, array) || tree_writes(f->body, array);
	}
	if (tree_writes(n->lhs, array) || tree_writes(n->rhs, array) ||
	    tree_writes(n->cond, array) || tree_writes(n->then, array) ||
	    tree_writes(n->els, array) || tree_writes(n->init, array) ||
	    tree_writes(n->inc, array))
		return true;
	for (int i = 0; i < n->args.len; i++)
		if (tree_writes(n->args.items[i], array))
			return true;
	for (int i = 0; i < n->body.len; i++)
		if (tree_writes(n->body.items[i], array))
			return true;
	return false;
}

static void check_node(struct walk *w, const struct node *n);

static void check_list(struct walk *w, const struct node_list *list)
{
	for (int i = 0; i < list->len; i++)
		check_node(w, list->items[i]);
}

static void report_write(struct walk *w, const struct node *n)
{
	const struct var *written = element_written(n);

	for (int i = 0; written && i < w->depth; i++) {
		if (w->iterated[i] == written) {
			struct token_desc tok = { "identifier", n->lhs->lhs->text };

			diag_error_at("semantic error", &tok, n->lhs->lhs->loc,
				      "variable '%s' modified during 'foreach' iteration",
				      written->name);
			return;
		}
	}
	for (int i = 0; n->kind == N_CALL && n->sym && i < w->depth; i++) {
		const struct used_function *f = n->sym;

		if (tree_writes(f->function->body, w->iterated[i])) {
			struct token_desc tok = { "identifier", n->text };

			diag_error_at("semantic error", &tok, n->loc,
				      "function call modifies var '%s' during 'foreach' iteration",
				      w->iterated[i]->name);
			return;
		}
	}
}

static void check_node(struct walk *w, const struct node *n)
{
	if (!n)
		return;
	if (w->depth)
		report_write(w, n);
	if (n->kind == N_FOREACH) {
		const struct foreach *f = n->foreach;

		check_list(w, &f->slice);
		check_node(w, f->limit);
		w->iterated = xrealloc(w->iterated, sizeof(*w->iterated) * (size_t)(w->depth + 1));
		w->iterated[w->depth++] = f->array->kind == N_IDENT ? f->array->sym : NULL;
		check_node(w, f->body);
		w->depth--;
		return;
	}
	check_node(w, n->lhs);
	check_node(w, n->rhs);
	check_node(w, n->cond);
	check_node(w, n->then);
	check_node(w, n->els);
	check_node(w, n->init);
	check_node(w, n->inc);
	check_list(w, &n->args);
	check_list(w, &n->body);
}

void check_foreach_writes(const struct program *program)
{
	struct walk w = { 0 };

	for (const struct derived_probe *p = program->probes; p; p = p->next)
		check_node(&w, p->body);
	for (const struct used_function *f = program->functions; f; f = f->next)
		check_node(&w, f->function->body);
	free(w.iterated);
}
