/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pass 1: the helpers of the grammar's actions (parser.y). Everything the parser makes is
 * registered with it, the tree is built, the checks stap makes while it parses are made,
 * and parse errors are reported in stap's words.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "parse/grammar.h"
#include "parse/parser.h"
#include "util.h"

/* ---- Ownership ---- */

static void *own(struct parser *p, void *ptr, void (*free_fn)(void *), bool temporary)
{
	if (p->nowned == p->owned_cap) {
		p->owned_cap = p->owned_cap ? 2 * p->owned_cap : 256;
		p->owned = xrealloc(p->owned, sizeof(*p->owned) * (size_t)p->owned_cap);
	}
	p->owned[p->nowned++] = (struct owned){ ptr, free_fn, temporary };
	return ptr;
}

/* Frees one registered object now. */
static void release(struct parser *p, void *ptr)
{
	for (int i = p->nowned - 1; i >= 0; i--) {
		if (p->owned[i].ptr == ptr) {
			p->owned[i].free_fn(ptr);
			p->owned[i] = p->owned[--p->nowned];
			return;
		}
	}
}

/* Each of these frees what the object itself holds, not the objects it points to: those are
 * registered on their own. */
static void free_node(void *ptr)
{
	struct node *node = ptr;

	free(node->text);
	free(node->raw);
	free(node->suffix);
	free(node->module);
	free(node->module_raw);
	free(node->args.items);
	free(node->body.items);
	free(node);
}

static void free_comp(void *ptr)
{
	struct target_comp *comp = ptr;

	free(comp->field);
	free(comp);
}

static void free_foreach(void *ptr)
{
	struct foreach *fe = ptr;

	free(fe->keys.items);
	free(fe->slice.items);
	free(fe->sort_aggregate);
	free(fe);
}

static void free_component(void *ptr)
{
	struct component *c = ptr;

	free(c->name);
	free(c);
}

static void free_probe(void *ptr)
{
	struct probe *probe = ptr;

	free(probe->aliases.items);
	free(probe->points.items);
	free(probe);
}

static void free_param(void *ptr)
{
	struct param *param = ptr;

	free(param->name);
	free(param);
}

static void free_function(void *ptr)
{
	struct function *f = ptr;

	free(f->name);
	free(f->embedded);
	free(f->pragmas);
	free(f);
}

static void free_global(void *ptr)
{
	struct global *g = ptr;

	free(g->name);
	free(g);
}

static void free_embed(void *ptr)
{
	struct embed *e = ptr;

	free(e->code);
	free(e);
}

static void free_list(void *ptr)
{
	struct node_list *list = ptr;

	free(list->items);
	free(list);
}

static void free_spec(void *ptr)
{
	struct probe_spec *spec = ptr;

	free(spec->aliases.items);
	free(spec->points.items);
	free(spec);
}

static void free_fe_vars(void *ptr)
{
	struct fe_vars *vars = ptr;

	free(vars->keys.items);
	free(vars);
}

void *new_object(struct parser *p, size_t size, void (*free_fn)(void *))
{
	return own(p, xcalloc(1, size), free_fn, false);
}

static void *new_temp(struct parser *p, size_t size, void (*free_fn)(void *))
{
	return own(p, xcalloc(1, size), free_fn, true);
}

/* ---- Tokens in messages ---- */

struct token_desc describe(const struct parser *p, const struct token *tok)
{
	return lexer_describe(p->lx, tok);
}

struct loc token_loc(const struct token *tok)
{
	return tok->kind ? tok->loc : (struct loc){ 0 };
}

void parse_error_tok(struct parser *p, struct token *tok, const char *fmt, ...)
{
	struct token_desc desc = describe(p, tok);
	struct strbuf message = { 0 };
	va_list ap;

	va_start(ap, fmt);
	sb_vaddf(&message, fmt, ap);
	va_end(ap);
	diag_parse_error(&desc, token_loc(tok), "%s", message.buf);
	free(message.buf);
}

void parse_error_at(struct parser *p, struct token *tok, const char *fmt, ...)
{
	struct token_desc desc = describe(p, tok);
	struct strbuf message = { 0 };
	va_list ap;

	va_start(ap, fmt);
	sb_vaddf(&message, fmt, ap);
	va_end(ap);
	diag_parse_error_at(&desc, token_loc(tok), "%s", message.buf);
	free(message.buf);
}

/* The token after the one just parsed: the parser's look-ahead if it has read it, else the
 * lexer's next token (which the parser will then read). */
struct token *lookahead_token(struct parser *p, int lookahead)
{
	return lookahead == YYEMPTY ? lexer_peek(p->lx) : lexer_last(p->lx);
}

/* The token handed to the parser `back` tokens before `tok`. */
struct token *handed_before(struct parser *p, struct token *tok, int back)
{
	return lexer_handed(p->lx, tok->index - back);
}

/*
 * After an error: on to the next declaration. stap resumes at the token it choked on when
 * it had only peeked at it, and after it when it had read it: a syntax error reads it (but
 * for a missing statement), a check made in an action only peeks. Returns whether the
 * look-ahead is dropped.
 */
bool resynchronize(struct parser *p, int lookahead)
{
	bool keep = p->keep_error_token;

	p->keep_error_token = true;
	if (p->resume_here) {
		p->resume_here = false;
		return false;
	}
	if (p->gave_up) {
		if (lookahead != YYEMPTY && !lookahead_token(p, lookahead)->kind)
			return false;
		while (lexer_peek(p->lx)->kind)
			lexer_next(p->lx);
		return lookahead != YYEMPTY;
	}
	if (lookahead != YYEMPTY) {
		int kind = lookahead_token(p, lookahead)->kind;

		if (kind == 0 || (keep && (kind == PROBE || kind == GLOBAL || kind == FUNCTION ||
					  kind == PRIVATE || kind == EMBEDDED)))
			return false;
	}
	lexer_skip_to_declaration(p->lx);
	return lookahead != YYEMPTY;
}

/* ---- Building the tree ---- */

struct node *new_node(struct parser *p, enum node_kind kind, struct loc loc)
{
	return own(p, node_new(kind, loc), free_node, false);
}

/* @kregister and @kderef need guru mode outside tapsets; the @u forms do not. */
bool check_guru_op(struct parser *p, struct token *op)
{
	if (op->text[1] != 'k' || p->options->guru || p->source->is_tapset)
		return true;
	parse_error_tok(p, op, "using %s operator not permitted; need stap -g", op->text);
	p->resume_here = true;
	return false;
}

struct node *number_node(struct parser *p, struct token *tok, bool negative)
{
	struct node *node = new_node(p, N_NUMBER, tok->loc);

	node->num = negative ? (int64_t)(0 - (uint64_t)tok->num) : tok->num;
	node->text = negative ? xasprintf("-%s", tok->text) : xstrdup(tok->text);
	return node;
}

struct node *string_node(struct parser *p, struct token *tok)
{
	struct node *node = new_node(p, N_STRING, tok->loc);

	node->text = xstrdup(tok->value);
	node->raw = xstrdup(tok->raw);
	return node;
}

/* Appends `add` (`len` bytes) to *text, which holds *used bytes in *room. */
static void append_grown(char **text, size_t *used, size_t *room, const char *add, size_t len)
{
	if (*used + len + 1 > *room) {
		*room = 2 * (*used + len + 1);
		*text = xrealloc(*text, *room);
	}
	memcpy(*text + *used, add, len + 1);
	*used += len;
}

/* Adjacent literals are joined: "a" "b" is "ab". The joined text grows in place (a long run
 * of literals must not be copied whole for each one). */
struct node *string_append(struct parser *p, struct node *str, struct token *tok)
{
	if (p->joining != str) {
		p->joining = str;
		p->text_len = p->text_room = strlen(str->text);
		p->raw_len = p->raw_room = strlen(str->raw);
	}
	append_grown(&str->text, &p->text_len, &p->text_room, tok->value, strlen(tok->value));
	append_grown(&str->raw, &p->raw_len, &p->raw_room, tok->raw, strlen(tok->raw));
	return str;
}

/* The value of a string literal used as a plain string (a type, a module name). */
char *take_string(struct parser *p, struct node *str)
{
	char *text = str->text;

	str->text = NULL;
	release(p, str);
	return text;
}

struct node *unary(struct parser *p, struct token *op, int code, struct node *lhs)
{
	struct node *node = new_node(p, N_UNARY, op->loc);

	node->op = code;
	node->lhs = lhs;
	return node;
}

static int binary_op(int kind)
{
	switch (kind) {
	case SHL: return OP_SHL;
	case SHR: return OP_SHR;
	case USHR: return OP_USHR;
	case LE: return OP_LE;
	case GE: return OP_GE;
	case EQ: return OP_EQ;
	case NE: return OP_NE;
	}
	return kind;
}

/* Left-associative chains (a + b + c ...) grow the tree, not the parser's stack: the depth
 * of binary operators is bounded here, whatever mix of them makes it, so that nothing
 * recursing over the tree runs out of stack. */
#define MAX_CHAIN 10000

static int binary_depth(const struct node *n)
{
	return n && n->kind == N_BINARY ? n->depth : 0;
}

struct node *binary(struct parser *p, struct token *op, int code, struct node *lhs,
		    struct node *rhs)
{
	int depth = 1 + (binary_depth(lhs) > binary_depth(rhs) ? binary_depth(lhs)
								: binary_depth(rhs));
	struct node *node;

	if (depth > MAX_CHAIN)
		return NULL;
	node = new_node(p, N_BINARY, op->loc);
	node->depth = depth;

	node->op = binary_op(code);
	node->lhs = lhs;
	node->rhs = rhs;
	return node;
}

struct node_list *list_new(struct parser *p)
{
	return new_temp(p, sizeof(struct node_list), free_list);
}

struct node_list *list_push(struct node_list *list, struct node *node)
{
	node_list_push(list, node);
	return list;
}

void list_move(struct node_list *to, struct node_list *from)
{
	free(to->items);
	*to = *from;
	*from = (struct node_list){ 0 };
}

struct node *call_node(struct parser *p, enum node_kind kind, struct token *name,
		       struct node_list *args)
{
	struct node *node = new_node(p, kind, name->loc);

	node->text = xstrdup(name->text);
	list_move(&node->args, args);
	return node;
}

struct node *target_node(struct parser *p, struct token *tok)
{
	struct node *node = new_node(p, N_TARGET, tok->loc);
	size_t lead = strspn(tok->text, "$");
	const char *dollar = strchr(tok->text + lead, '$');

	/* $var$ and $var$$ pretty-print the variable. */
	if (dollar && strspn(dollar, "$") == strlen(dollar)) {
		node->text = xstrndup(tok->text, (size_t)(dollar - tok->text));
		node->suffix = xstrdup(dollar);
	} else {
		node->text = xstrdup(tok->text);
	}
	return node;
}

/* The token before the innermost `(` still open at `tok`: the function or @operator. */
struct token *enclosing_operator(struct parser *p, struct token *tok)
{
	int depth = 0;

	while ((tok = handed_before(p, tok, 1))) {
		if (tok->kind == ')') {
			depth++;
		} else if (tok->kind == '(' && depth-- == 0) {
			struct token *op = handed_before(p, tok, 1);

			return op ? op : tok;
		}
	}
	return lexer_last(p->lx);
}

/* The last token handed to the parser that is at `loc`. */
struct token *handed_at(struct parser *p, struct loc loc)
{
	struct token *last = lexer_last(p->lx);

	for (int i = last ? last->index : -1; i >= 0; i--) {
		struct token *tok = lexer_handed(p->lx, i);

		if (tok->loc.line == loc.line && tok->loc.col == loc.col &&
		    tok->loc.source == loc.source && tok->loc.expansion == loc.expansion)
			return tok;
	}
	return NULL;
}

static void free_comps(void *ptr)
{
	struct comps *comps = ptr;

	free(comps->suffix);
	free(comps);
}

struct comps *comps_new(struct parser *p)
{
	struct comps *comps = new_temp(p, sizeof(*comps), free_comps);

	comps->tail = &comps->head;
	return comps;
}

static void free_item(void *ptr)
{
	struct comp_item *item = ptr;

	free(item->suffix);
	free(item);
}

static struct comp_item *new_item(struct parser *p, struct token *tok)
{
	struct comp_item *item = new_temp(p, sizeof(*item), free_item);

	item->tok = tok;
	return item;
}

bool comps_add(struct parser *p, struct comps *comps, struct comp_item *item)
{
	if (item->comp && comps->suffix) {
		parse_error_tok(p, item->tok,
				"-> and [ are not accepted for a pretty-printing variable");
		return false;
	}
	if (item->comp) {
		*comps->tail = item->comp;
		comps->tail = &item->comp->next;
	}
	if (item->suffix) {
		free(comps->suffix);
		comps->suffix = item->suffix;
		item->suffix = NULL;
	}
	return true;
}

/* Where a name ends in $ or $$ (past its first character), the length without them. */
static size_t without_suffix(const char *name)
{
	size_t lead = strspn(name, "$");
	const char *dollar = strchr(name + lead, '$');

	if (dollar && dollar > name && strspn(dollar, "$") == strlen(dollar))
		return (size_t)(dollar - name);
	return strlen(name);
}

struct comp_item *comp_field(struct parser *p, struct token *arrow, struct token *name)
{
	struct comp_item *item = new_item(p, arrow);
	struct target_comp *comp = new_object(p, sizeof(*comp), free_comp);
	size_t len = without_suffix(name->text);

	comp->kind = COMP_FIELD;
	comp->field = xstrndup(name->text, len);
	comp->loc = arrow->loc;
	item->comp = comp;
	if (name->text[len])
		item->suffix = xstrdup(name->text + len);
	return item;
}

struct comp_item *comp_index(struct parser *p, struct token *open, struct node *index)
{
	struct comp_item *item = new_item(p, open);
	struct target_comp *comp = new_object(p, sizeof(*comp), free_comp);

	comp->loc = open->loc;
	if (index->kind == N_NUMBER) {
		comp->kind = COMP_INDEX_NUM;
		comp->index = index->num;
		release(p, index);
	} else {
		comp->kind = COMP_INDEX_EXPR;
		comp->index_expr = index;
	}
	item->comp = comp;
	return item;
}

struct comp_item *comp_suffix(struct parser *p, struct token *first, struct token *dollars)
{
	struct comp_item *item = new_item(p, first);

	item->suffix = xstrdup(dollars->text);
	return item;
}

static bool is_target_like(const struct node *node)
{
	return node->kind == N_TARGET || node->kind == N_CAST || node->kind == N_ATVAR;
}

/* ->field, [i] and $ after a value: part of a $target, @cast or @var, or else an autocast
 * of the value (an N_CAST without a type). */
struct node *with_comps(struct parser *p, struct node *value, struct comps *comps,
			bool parenthesized)
{
	struct node *node = value;
	struct target_comp **tail;

	if (!is_target_like(value) || parenthesized) {
		node = new_node(p, N_CAST, value->loc);
		node->lhs = value;
	} else if (value->suffix && comps->head) {
		parse_error_tok(p, handed_at(p, comps->head->loc),
				"-> and [ are not accepted for a pretty-printing variable");
		return NULL;
	}
	for (tail = &node->comps; *tail; tail = &(*tail)->next)
		;
	*tail = comps->head;
	if (comps->suffix) {
		free(node->suffix);
		node->suffix = comps->suffix;
		comps->suffix = NULL;
	}
	return node;
}

struct fe_var *fe_var_new(struct parser *p, struct token *name, struct token *mark)
{
	struct fe_var *var = new_temp(p, sizeof(*var), free);

	var->var = new_node(p, N_IDENT, name->loc);
	var->var->text = xstrdup(name->text);
	var->mark = mark;
	var->sort = !mark ? 0 : mark->kind == '+' ? 1 : -1;
	return var;
}

struct fe_vars *fe_vars_new(struct parser *p)
{
	return new_temp(p, sizeof(struct fe_vars), free_fe_vars);
}

bool check_sort(struct parser *p, struct token *mark)
{
	if (!p->foreach_sorts++)
		return true;
	parse_error_tok(p, mark, "multiple sort directives");
	return false;
}

void fe_vars_add(struct fe_vars *vars, struct fe_var *var)
{
	node_list_push(&vars->keys, var->var);
	if (!var->sort)
		return;
	vars->sort_column = vars->keys.len;
	vars->sort_direction = var->sort;
}

/* The + or - (or @sum+) after the array of a foreach sorts on the value. */
struct fe_var *fe_sort(struct parser *p, struct token *mark, struct token *aggregate)
{
	struct fe_var *sort = new_temp(p, sizeof(*sort), free);

	sort->sort = mark->kind == '+' ? 1 : -1;
	sort->mark = mark;
	sort->aggregate = aggregate;
	return sort;
}

struct node *foreach_node(struct parser *p, struct token *kw, struct fe_vars *vars,
			  struct node *array, struct node_list *slice,
			  struct fe_var *sort, struct node *limit)
{
	struct node *node = new_node(p, N_FOREACH, kw->loc);
	struct foreach *fe = new_object(p, sizeof(*fe), free_foreach);

	node->foreach = fe;
	list_move(&fe->keys, &vars->keys);
	fe->value = vars->value;
	fe->array = array;
	if (slice)
		list_move(&fe->slice, slice);
	fe->sort_column = vars->sort_column;
	fe->sort_direction = vars->sort_direction;
	if (sort) {
		fe->sort_column = -1;
		fe->sort_direction = sort->sort;
		if (sort->aggregate)
			fe->sort_aggregate = xstrdup(sort->aggregate->text + 1);
	}
	fe->limit = limit;
	return node;
}

struct component *component_new(struct parser *p, struct token *name, struct node *arg)
{
	struct component *c = new_object(p, sizeof(*c), free_component);

	c->name = xstrdup(name->text);
	c->arg = arg;
	c->loc = name->loc;
	return c;
}

struct probe_point *point_new(struct parser *p, struct component *components)
{
	struct probe_point *point = new_object(p, sizeof(*point), free);

	point->components = components;
	point->loc = components->loc;
	return point;
}

static void free_point_set(void *ptr)
{
	struct point_set *set = ptr;

	free(set->points.items);
	free(set);
}

struct point_set *point_set_new(struct parser *p, struct probe_point *point)
{
	struct point_set *set = new_temp(p, sizeof(*set), free_point_set);

	if (point)
		probe_point_list_push(&set->points, point);
	return set;
}

void points_append(struct probe_point_list *to, struct point_set *set)
{
	for (int i = 0; i < set->points.len; i++)
		probe_point_list_push(to, set->points.items[i]);
	set->points.len = 0;
}

/* A copy of an expression, registered like the original. */
static struct node *copy_tree(struct parser *p, const struct node *node)
{
	struct node *copy;
	struct target_comp **tail;

	if (!node)
		return NULL;
	copy = new_node(p, node->kind, node->loc);
	copy->op = node->op;
	copy->num = node->num;
	copy->text = node->text ? xstrdup(node->text) : NULL;
	copy->raw = node->raw ? xstrdup(node->raw) : NULL;
	copy->suffix = node->suffix ? xstrdup(node->suffix) : NULL;
	copy->module = node->module ? xstrdup(node->module) : NULL;
	copy->lhs = copy_tree(p, node->lhs);
	copy->rhs = copy_tree(p, node->rhs);
	copy->cond = copy_tree(p, node->cond);
	copy->then = copy_tree(p, node->then);
	copy->els = copy_tree(p, node->els);
	copy->init = copy_tree(p, node->init);
	copy->inc = copy_tree(p, node->inc);
	for (int i = 0; i < node->args.len; i++)
		node_list_push(&copy->args, copy_tree(p, node->args.items[i]));
	for (int i = 0; i < node->body.len; i++)
		node_list_push(&copy->body, copy_tree(p, node->body.items[i]));
	tail = &copy->comps;
	for (const struct target_comp *c = node->comps; c; c = c->next) {
		struct target_comp *cc = new_object(p, sizeof(*cc), free_comp);

		cc->kind = c->kind;
		cc->field = c->field ? xstrdup(c->field) : NULL;
		cc->index = c->index;
		cc->index_expr = copy_tree(p, c->index_expr);
		cc->loc = c->loc;
		*tail = cc;
		tail = &cc->next;
	}
	return copy;
}

/* Frees an expression now (it is not part of the tree). */
void release_tree(struct parser *p, struct node *node)
{
	if (!node)
		return;
	release_tree(p, node->lhs);
	release_tree(p, node->rhs);
	release_tree(p, node->cond);
	release_tree(p, node->then);
	release_tree(p, node->els);
	release_tree(p, node->init);
	release_tree(p, node->inc);
	for (int i = 0; i < node->args.len; i++)
		release_tree(p, node->args.items[i]);
	for (int i = 0; i < node->body.len; i++)
		release_tree(p, node->body.items[i]);
	for (struct target_comp *c = node->comps, *next; c; c = next) {
		next = c->next;
		release_tree(p, c->index_expr);
		release(p, c);
	}
	release(p, node);
}

static struct component *copy_components(struct parser *p, const struct component *c,
					 struct component *rest)
{
	struct component *copy;

	if (!c)
		return rest;
	copy = new_object(p, sizeof(*copy), free_component);
	copy->name = xstrdup(c->name);
	copy->arg = copy_tree(p, c->arg);
	copy->loc = c->loc;
	copy->next = copy_components(p, c->next, rest);
	return copy;
}

static void release_point(struct parser *p, struct probe_point *point)
{
	for (struct component *c = point->components, *next; c; c = next) {
		next = c->next;
		release_tree(p, c->arg);
		release(p, c);
	}
	release_tree(p, point->cond);
	release(p, point);
}

/* left.right: every point of `left` followed by every point of `right`. */
struct point_set *join_points(struct parser *p, struct point_set *left,
			      struct point_set *right)
{
	struct point_set *joined = point_set_new(p, NULL);

	for (int i = 0; i < left->points.len; i++) {
		for (int j = 0; j < right->points.len; j++) {
			const struct probe_point *l = left->points.items[i];
			const struct probe_point *r = right->points.items[j];
			struct component *tail = copy_components(p, r->components, NULL);
			struct probe_point *point = point_new(p, copy_components(p, l->components,
										tail));

			point->optional = l->optional || r->optional;
			point->sufficient = l->sufficient || r->sufficient;
			point->cond = copy_tree(p, l->cond ? l->cond : r->cond);
			probe_point_list_push(&joined->points, point);
		}
	}
	for (int i = 0; i < left->points.len; i++)
		release_point(p, left->points.items[i]);
	for (int i = 0; i < right->points.len; i++)
		release_point(p, right->points.items[i]);
	left->points.len = right->points.len = 0;
	return joined;
}

/* The `?`, `!` and `if (...)` after a point apply to all it expands to. */
struct point_set *finish_points(struct parser *p, struct point_set *set,
				struct token *mark, struct node *cond)
{
	bool used = false;

	for (int i = 0; i < set->points.len; i++) {
		struct probe_point *point = set->points.items[i];

		point->optional |= mark && mark->kind == '?';
		point->sufficient |= mark && mark->kind == '!';
		if (cond && !point->cond) {
			point->cond = used ? copy_tree(p, cond) : cond;
			used = true;
		}
	}
	if (cond && !used)
		release_tree(p, cond);
	return set;
}

struct probe_spec *spec_new(struct parser *p)
{
	return new_temp(p, sizeof(struct probe_spec), free_spec);
}

bool spec_add_alias(struct parser *p, struct probe_spec *spec, struct point_set *set,
		    struct token *op, enum probe_kind kind)
{
	struct probe_point *point;

	if (set->points.len != 1) {
		parse_error_tok(p, op, "expected probe point specifier");
		return false;
	}
	point = set->points.items[0];
	set->points.len = 0;
	if (point->optional || point->sufficient) {
		parse_error_at(p, handed_at(p, point->loc),
			       "probe point alias name cannot be optional nor sufficient");
		return false;
	}
	probe_point_list_push(&spec->aliases, point);
	/* One `+=` among the names makes the alias an epilogue, as in stap. */
	if (spec->kind != PROBE_ALIAS_EPILOGUE)
		spec->kind = kind;
	return true;
}

void add_probe(struct parser *p, struct token *kw, struct probe_spec *spec,
	       struct node *body, struct node *epilogue)
{
	struct probe *probe = new_object(p, sizeof(*probe), free_probe);
	struct probe **tail = p->probes_tail ? p->probes_tail : &p->file->probes;

	probe->kind = spec->aliases.len ? spec->kind : PROBE_PLAIN;
	probe->aliases = spec->aliases;
	probe->points = spec->points;
	spec->aliases = spec->points = (struct probe_point_list){ 0 };
	probe->body = body;
	probe->epilogue = epilogue;
	probe->loc = kw->loc;
	while (*tail)
		tail = &(*tail)->next;
	*tail = probe;
	p->probes_tail = &probe->next;
}

/* Declares a global; false when it was declared before. A declaration is private when the
 * last keyword of the declarations is `private`. */
struct global *global_new(struct parser *p, struct token *name)
{
	struct global **tail = &p->file->globals;
	struct global *g;
	struct token *kw = name;
	bool is_private;

	while (kw->kind != GLOBAL && kw->kind != PRIVATE)
		kw = handed_before(p, kw, 1);
	is_private = kw->kind == PRIVATE ||
		     (handed_before(p, kw, 1) && handed_before(p, kw, 1)->kind == PRIVATE);
	for (; *tail; tail = &(*tail)->next) {
		if (strcmp((*tail)->name, name->text))
			continue;
		parse_error_tok(p, name, (*tail)->is_private == is_private ?
				"duplicate global name" :
				"global versus private variable declaration conflict");
		return NULL;
	}
	g = new_object(p, sizeof(*g), free_global);
	g->name = xstrdup(name->text);
	g->loc = name->loc;
	g->is_private = is_private;
	*tail = g;
	return g;
}

struct param *param_new(struct parser *p, struct token *name, enum type type)
{
	struct param *param = new_object(p, sizeof(*param), free_param);

	param->name = xstrdup(name->text);
	param->type = type;
	param->loc = name->loc;
	return param;
}

bool params_add(struct param *list, struct param *param)
{
	struct param *last = list;

	for (struct param *a = list; a; a = a->next) {
		if (!strcmp(a->name, param->name)) {
			struct token_desc desc = { "identifier", param->name };

			diag_parse_error(&desc, param->loc, "duplicate parameter names");
			return false;
		}
		last = a;
	}
	last->next = param;
	return true;
}

/* The tags stap recognizes in the comments of an embedded-C function, and tapster's
 * "privileged" (which only says that "unprivileged" is missing on purpose). */
static char *pragmas_of(const char *code)
{
	static const char *const tags[] = {
		"pure", "stable", "unprivileged", "myproc-unprivileged", "guru", "unmangled",
		"privileged",
	};
	struct strbuf sb = { 0 };

	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		char *comment = xasprintf("/* %s */", tags[i]);

		if (strstr(code, comment))
			sb_addf(&sb, "%s%s", sb.len ? " " : "", tags[i]);
		free(comment);
	}
	for (const char *s = code; (s = strstr(s, "/* pragma:")); s += 3) {
		const char *start = s + 3;
		const char *end = strstr(start, " */");

		if (end)
			sb_addf(&sb, "%s%.*s", sb.len ? " " : "", (int)(end - start), start);
	}
	return sb.len ? sb_steal(&sb) : NULL;
}

struct function *function_new(struct parser *p, struct token *name, enum type ret,
			      struct param *params, struct node *body,
			      struct token *embedded)
{
	struct function *f = new_object(p, sizeof(*f), free_function);

	f->name = xstrdup(name->text);
	f->ret = ret;
	f->params = params;
	for (struct param *a = params; a; a = a->next)
		f->nparams++;
	f->body = body;
	if (embedded) {
		f->pragmas = pragmas_of(embedded->value);
		if (body)
			f->marked = true;
		else
			f->embedded = xstrdup(embedded->value);
	}
	f->loc = name->loc;
	return f;
}

void add_function(struct parser *p, struct function *f, bool is_private)
{
	struct function **tail = p->functions_tail ? p->functions_tail : &p->file->functions;

	f->is_private = is_private;
	while (*tail)
		tail = &(*tail)->next;
	*tail = f;
	p->functions_tail = &f->next;
}

/* Embedded C where it is not allowed is an error, but stap reads on as if it were. */
void add_embed(struct parser *p, struct token *tok)
{
	struct embed *e;
	struct embed **tail = p->embeds_tail ? p->embeds_tail : &p->file->embeds;

	check_embedded(p, tok, false, YYEMPTY);
	e = new_object(p, sizeof(*e), free_embed);
	e->code = xstrdup(tok->value);
	e->loc = tok->loc;
	while (*tail)
		tail = &(*tail)->next;
	*tail = e;
	p->embeds_tail = &e->next;
}

/* ---- Checks made while parsing ---- */

bool check_literal(struct parser *p, struct token *tok)
{
	if (!tok->bad_number)
		return true;
	parse_error_tok(p, tok, "number invalid or out of range");
	return false;
}

/* Embedded C is for tapsets and guru mode. Used as an expression, the code is read again as
 * a declaration after the error, as stap does. */
bool check_embedded(struct parser *p, struct token *tok, bool expression, int lookahead)
{
	if (p->options->guru || p->source->is_tapset)
		return true;
	parse_error_tok(p, tok, expression ?
			"embedded expression code in unprivileged script; need stap -g" :
			"embedded code in unprivileged script; need stap -g");
	if (expression) {
		if (lookahead != YYEMPTY)
			lexer_unget(p->lx, lookahead_token(p, lookahead));
		lexer_unget(p->lx, tok);
	}
	return false;
}

/* A print format as stap checks it in pass 1, on the literal as written: after %, one flag
 * of "-+ #0", a width and a precision (digits or *), an `l`, and a conversion. */
static const char *format_error(const char *f)
{
	while (*f) {
		bool any = false;

		if (*f++ != '%')
			continue;
		if (*f == '%') {
			f++;
			continue;
		}
		if (!*f)
			return "invalid or missing conversion specifier";
		if (strchr("-+ #0", *f) && *f)
			f++, any = true;
		if (*f == '*')
			f++, any = true;
		else
			while (*f >= '0' && *f <= '9')
				f++, any = true;
		if (*f == '.') {
			f++;
			if (*f == '*')
				f++, any = true;
			else
				while (*f >= '0' && *f <= '9')
					f++, any = true;
		}
		if (*f == 'l')
			f++;
		if (!*f)
			return any ? "trailing incomplete print format conversion" : NULL;
		if (!strchr("diouxXpscbmM", *f))
			return "invalid or missing conversion specifier";
		f++;
	}
	return NULL;
}

bool check_format(struct parser *p, struct node *format, int lookahead)
{
	const char *error = format_error(format->raw);

	if (!error)
		return true;
	parse_error_tok(p, lookahead_token(p, lookahead), "%s", error);
	return false;
}

/* A histogram is printed whole, or indexed: print(@hist_log(s)), @hist_log(s)[i]. */
bool check_hist_use(struct parser *p, struct node *hist, int lookahead)
{
	struct token *tok = handed_at(p, hist->loc);

	if (tok) {
		struct token *open = handed_before(p, tok, 1);
		struct token *print = handed_before(p, tok, 2);

		if (open && print && open->kind == '(' &&
		    (print->kind == PRINT || print->kind == PRINTLN)) {
			parse_error_tok(p, lookahead_token(p, lookahead), "expected ')'");
			return false;
		}
		parse_error_at(p, tok, "base histogram operator where expression expected");
	}
	return false;
}

/* stap names no token in this error, which shows as the end of the file. */
bool check_array_size(struct parser *p, struct node *size)
{
	struct token end = { 0 };

	if (size->num >= 1 && size->num <= 2147483647)
		return true;
	parse_error_tok(p, &end, "array size out of range");
	return false;
}
