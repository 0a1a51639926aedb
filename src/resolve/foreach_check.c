// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 2: an array may not change while a foreach walks it. As in stap, writing an element
 * of the array being iterated (=, op=, ++, --, <<<, delete of an element) is an error, and
 * so is calling a function whose own body writes such an element; deleting the whole array
 * is allowed, and a function is not followed into the functions it calls.
 */
#include <stdbool.h>

#include "parse/ast_copy.h"
#include "diag.h"
#include "resolve/elaborate.h"
#include "resolve/program.h"

/* The array an element write names (an assignment, ++/--, <<< or delete of a[...]); NULL
 * for anything else, a delete of the whole array included. */
static const struct node *written_array(const struct node *n)
{
	return n->lhs && n->lhs->kind == N_INDEX ? node_changed_var(n) : NULL;
}

static bool writes_var(const struct node *n, void *var)
{
	const struct node *array = written_array(n);

	return array && array->sym == var;
}

struct iteration {
	const struct var *array;	/* the array a foreach walks */
};

static bool report_mutation(const struct node *n, void *ctx)
{
	const struct iteration *it = ctx;
	const struct node *array = written_array(n);

	if (array && array->sym == it->array) {
		struct token_desc tok = { "identifier", array->text };

		diag_error_at("semantic error", &tok, array->loc,
			      "variable '%s' modified during 'foreach' iteration", array->text);
	} else if (n->kind == N_CALL && n->sym) {
		const struct used_function *f = n->sym;

		if (f->function->body &&
		    node_any(f->function->body, writes_var, (void *)it->array)) {
			struct token_desc tok = { "identifier", n->text };

			diag_error_at("semantic error", &tok, n->loc,
				      "function call modifies var '%s' during 'foreach' iteration",
				      it->array->name);
		}
	}
	return false;
}

static bool check_foreach(const struct node *n, void *ctx)
{
	(void)ctx;
	if (n->kind != N_FOREACH || n->foreach->array->kind != N_IDENT || !n->foreach->array->sym)
		return false;
	struct iteration it = { n->foreach->array->sym };

	node_any(n->foreach->body, report_mutation, &it);
	return false;
}

void check_foreach_mutations(const struct program *program)
{
	for (const struct derived_probe *p = program->probes; p; p = p->next)
		node_any(p->body, check_foreach, NULL);
	for (const struct used_function *f = program->functions; f; f = f->next)
		node_any(f->function->body, check_foreach, NULL);
}
