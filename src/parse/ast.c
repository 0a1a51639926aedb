// SPDX-License-Identifier: GPL-2.0-or-later
/* The syntax tree: constructors, list helpers, names of types and operators, freeing. */
#include "parse/ast.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

const char *type_name(enum type type)
{
	switch (type) {
	case TYPE_LONG: return "long";
	case TYPE_STRING: return "string";
	case TYPE_STATS: return "stats";
	case TYPE_VOID: return "void";
	case TYPE_UNKNOWN: break;
	}
	return "unknown";
}

static const char *multi_char_op_text(int op)
{
	switch (op) {
	case OP_INC: return "++";
	case OP_DEC: return "--";
	case OP_SHL: return "<<";
	case OP_SHR: return ">>";
	case OP_USHR: return ">>>";
	case OP_LE: return "<=";
	case OP_GE: return ">=";
	case OP_EQ: return "==";
	case OP_NE: return "!=";
	case OP_ANDAND: return "&&";
	case OP_OROR: return "||";
	case OP_MATCH: return "=~";
	case OP_NOMATCH: return "!~";
	case OP_STATS_ADD: return "<<<";
	}
	return "?";
}

/* The texts live in static buffers, one per operator: callers may keep the pointer. */
const char *op_text(int op)
{
	static char single[256][2];
	static char compound[OP_ASSIGN_BASE][4];

	if (op >= OP_ASSIGN_BASE && op < 2 * OP_ASSIGN_BASE) {
		int base = op - OP_ASSIGN_BASE;
		char *text = compound[base];

		if (!text[0]) {
			const char *b = base < 256 ? (single[base][0] = (char)base, single[base])
						   : multi_char_op_text(base);
			int n = 0;

			for (; b[n] && n < 2; n++)
				text[n] = b[n];
			text[n] = '=';
		}
		return text;
	}
	if (op > 0 && op < 256) {
		single[op][0] = (char)op;
		return single[op];
	}
	return multi_char_op_text(op);
}

void node_list_push(struct node_list *list, struct node *node)
{
	if (list->len == list->cap) {
		list->cap = list->cap ? list->cap * 2 : 4;
		list->items = xrealloc(list->items, sizeof(*list->items) * (size_t)list->cap);
	}
	list->items[list->len++] = node;
}

void probe_point_list_push(struct probe_point_list *list, struct probe_point *point)
{
	if (list->len == list->cap) {
		list->cap = list->cap ? list->cap * 2 : 4;
		list->items = xrealloc(list->items, sizeof(*list->items) * (size_t)list->cap);
	}
	list->items[list->len++] = point;
}

struct node *node_new(enum node_kind kind, struct loc loc)
{
	struct node *node = xcalloc(1, sizeof(*node));

	node->kind = kind;
	node->loc = loc;
	return node;
}

struct node *node_number(int64_t value, const char *text, struct loc loc)
{
	struct node *node = node_new(N_NUMBER, loc);

	node->num = value;
	node->text = xstrdup(text);
	return node;
}

struct node *node_string(const char *value, struct loc loc)
{
	struct node *node = node_new(N_STRING, loc);

	node->text = xstrdup(value);
	return node;
}

struct node *node_binary(int op, struct node *lhs, struct node *rhs, struct loc loc)
{
	struct node *node = node_new(N_BINARY, loc);

	node->op = op;
	node->lhs = lhs;
	node->rhs = rhs;
	return node;
}

/* ---- Freeing ---- */

static void node_list_free(struct node_list *list)
{
	for (int i = 0; i < list->len; i++)
		node_free(list->items[i]);
	free(list->items);
}

static void comps_free(struct target_comp *comp)
{
	while (comp) {
		struct target_comp *next = comp->next;

		free(comp->field);
		node_free(comp->index_expr);
		free(comp);
		comp = next;
	}
}

static void foreach_free(struct foreach *fe)
{
	if (!fe)
		return;
	node_list_free(&fe->keys);
	node_free(fe->value);
	node_free(fe->array);
	node_list_free(&fe->slice);
	free(fe->sort_aggregate);
	node_free(fe->limit);
	node_free(fe->body);
	free(fe);
}

void node_free(struct node *node)
{
	if (!node)
		return;
	free(node->text);
	free(node->raw);
	free(node->suffix);
	free(node->module);
	free(node->module_raw);
	node_free(node->lhs);
	node_free(node->rhs);
	node_free(node->cond);
	node_free(node->then);
	node_free(node->els);
	node_free(node->init);
	node_free(node->inc);
	node_list_free(&node->args);
	node_list_free(&node->body);
	comps_free(node->comps);
	foreach_free(node->foreach);
	free(node);
}

static void point_free(struct probe_point *point)
{
	struct component *c = point->components;

	while (c) {
		struct component *next = c->next;

		free(c->name);
		node_free(c->arg);
		free(c);
		c = next;
	}
	node_free(point->cond);
	free(point);
}

static void point_list_free(struct probe_point_list *list)
{
	for (int i = 0; i < list->len; i++)
		point_free(list->items[i]);
	free(list->items);
}

void file_free(struct file *file)
{
	while (file) {
		struct file *next_file = file->next;

		for (struct probe *p = file->probes, *next; p; p = next) {
			next = p->next;
			point_list_free(&p->aliases);
			point_list_free(&p->points);
			node_free(p->body);
			node_free(p->epilogue);
			free(p);
		}
		for (struct function *f = file->functions, *next; f; f = next) {
			next = f->next;
			for (struct param *a = f->params, *next_param; a; a = next_param) {
				next_param = a->next;
				free(a->name);
				free(a);
			}
			free(f->name);
			node_free(f->body);
			free(f->embedded);
			free(f->pragmas);
			free(f);
		}
		for (struct global *g = file->globals, *next; g; g = next) {
			next = g->next;
			free(g->name);
			node_free(g->init);
			free(g);
		}
		for (struct embed *e = file->embeds, *next; e; e = next) {
			next = e->next;
			free(e->code);
			free(e);
		}
		expansion_free_list(file->expansions);
		free(file);
		file = next_file;
	}
}

/* The N_IDENT an assignment, ++/--, <<< or delete changes: x, or the array of a[k]. */
const struct node *node_changed_var(const struct node *n)
{
	const struct node *target;

	if (n->kind != N_ASSIGN && n->kind != N_PREINC && n->kind != N_POSTINC &&
	    n->kind != N_DELETE)
		return NULL;
	target = n->lhs;
	if (target && target->kind == N_INDEX)
		target = target->lhs;
	return target && target->kind == N_IDENT ? target : NULL;
}

/* The operand an expression's first token belongs to, or NULL when that token is its own. */
static const struct node *first_operand(const struct node *n)
{
	switch (n->kind) {
	case N_BINARY:
	case N_ASSIGN:
	case N_POSTINC:
	case N_INDEX:
		return n->lhs;
	case N_TERNARY:
		return n->cond;
	default:
		return NULL;
	}
}

const struct node *node_first_leaf(const struct node *n)
{
	while (n && first_operand(n))
		n = first_operand(n);
	return n;
}

struct token_desc node_first_token(const struct node *n, struct loc *loc)
{
	for (const struct node *part = n; part; part = first_operand(part))
		if (part->open_paren.line) {
			*loc = part->open_paren;
			return (struct token_desc){ "operator", "(" };
		}
	n = node_first_leaf(n);
	*loc = n->loc;
	return node_token(n);
}

struct token_desc node_token(const struct node *n)
{
	switch (n->kind) {
	case N_NUMBER: return (struct token_desc){ "number", n->text };
	case N_STRING: return (struct token_desc){ "string", n->text };
	case N_CALL: return (struct token_desc){ "identifier", n->raw ? n->raw : n->text };
	case N_IDENT:
	case N_TARGET:
	case N_PRINT: return (struct token_desc){ "identifier", n->text };
	default: return (struct token_desc){ "operator", op_text(n->op) };
	}
}

bool function_has_pragma(const struct function *f, const char *tag)
{
	size_t len = strlen(tag);
	const char *pragmas = f->pragmas;

	for (const char *s = pragmas; s && (s = strstr(s, tag)); s += len)
		if ((s == pragmas || s[-1] == ' ') && (s[len] == ' ' || !s[len]))
			return true;
	return false;
}
