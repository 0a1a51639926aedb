/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the parser of pass 1: its state, the helpers of the grammar's actions (actions.c:
 * the tree built, the checks stap makes while it parses, parse errors), and the wording of
 * syntax errors (syntax.c), which parser.y hands what it needs of bison's tables.
 */
#ifndef TAPSTER_PARSE_GRAMMAR_H
#define TAPSTER_PARSE_GRAMMAR_H

#include <stdbool.h>
#include <stddef.h>

#include "parse/parser.h"

/* Everything the parser allocates is registered: when the parse fails it is all freed;
 * when it succeeds the tree keeps it and only the temporaries are freed. */
struct owned {
	void *ptr;
	void (*free_fn)(void *ptr);
	bool temporary;
};

struct parser {
	struct lexer *lx;
	const struct parse_options *options;
	struct source *source;
	struct file *file;
	bool keep_error_token;		/* resume at the token of the last syntax error */
	bool gave_up;			/* no resuming after the last syntax error */
	bool resume_here;		/* resuming at the next token, as a declaration */
	struct probe_spec *spec;	/* of the probe being read */
	int foreach_sorts;		/* sort marks in the foreach being read */
	struct owned *owned;
	int nowned, owned_cap;
	/* Where the file's lists end, so that adding is not a walk from their heads. */
	struct probe **probes_tail;
	struct function **functions_tail;
	struct embed **embeds_tail;
	/* The string literal being joined with the ones next to it: its lengths, its room. */
	struct node *joining;
	size_t text_len, raw_len, text_room, raw_room;
};

/* A foreach loop variable with its sort mark, or the sort of the array. */
struct fe_var {
	struct node *var;
	int sort;			/* +1, -1 or 0 */
	struct token *mark;		/* the + or - */
	struct token *aggregate;	/* @sum in `arr @sum+` */
};

/* foreach ([keys] ...) and foreach (value = [keys] ...) before the `in`. */
struct fe_vars {
	struct node_list keys;
	struct node *value;
	int sort_column;		/* as in struct foreach */
	int sort_direction;
};

/* The ->field, [index] and $ suffixes of a value. */
struct comps {
	struct target_comp *head, **tail;
	char *suffix;			/* $ or $$ */
};

/* One of them. */
struct comp_item {
	struct target_comp *comp;	/* or NULL for... */
	char *suffix;			/* ... a $ or $$ */
	struct token *tok;		/* its first token */
};

/* The probe points a point with {a,b} groups expands to. */
struct point_set {
	struct probe_point_list points;
};

/* What follows `probe`, before the body. */
struct probe_spec {
	enum probe_kind kind;
	struct probe_point_list aliases;
	struct probe_point_list points;
};

/* Tree building. */
struct node *new_node(struct parser *p, enum node_kind kind, struct loc loc);
struct node *number_node(struct parser *p, struct token *tok, bool negative);
bool check_guru_op(struct parser *p, struct token *op);
struct node *string_node(struct parser *p, struct token *tok);
struct node *string_append(struct parser *p, struct node *str, struct token *tok);
char *take_string(struct parser *p, struct node *str);
struct node *unary(struct parser *p, struct token *op, int code, struct node *lhs);
struct node *binary(struct parser *p, struct token *op, int code, struct node *lhs,
		    struct node *rhs);
struct node *call_node(struct parser *p, enum node_kind kind, struct token *name,
		       struct node_list *args);
struct node_list *list_new(struct parser *p);
struct node_list *list_push(struct node_list *list, struct node *node);
void list_move(struct node_list *to, struct node_list *from);
struct comps *comps_new(struct parser *p);
bool comps_add(struct parser *p, struct comps *comps, struct comp_item *item);
struct comp_item *comp_field(struct parser *p, struct token *arrow, struct token *name);
struct comp_item *comp_index(struct parser *p, struct token *open, struct node *index);
struct comp_item *comp_suffix(struct parser *p, struct token *first, struct token *dollars);
struct node *with_comps(struct parser *p, struct node *value, struct comps *comps,
			bool parenthesized);
struct node *target_node(struct parser *p, struct token *tok);
struct fe_var *fe_var_new(struct parser *p, struct token *name, struct token *mark);
struct fe_vars *fe_vars_new(struct parser *p);
bool check_sort(struct parser *p, struct token *mark);
void fe_vars_add(struct fe_vars *vars, struct fe_var *var);
struct fe_var *fe_sort(struct parser *p, struct token *mark, struct token *aggregate);
struct node *foreach_node(struct parser *p, struct token *kw, struct fe_vars *vars,
			  struct node *array, struct node_list *slice,
			  struct fe_var *sort, struct node *limit);
struct component *component_new(struct parser *p, struct token *name, struct node *arg);
struct probe_point *point_new(struct parser *p, struct component *components);
struct point_set *point_set_new(struct parser *p, struct probe_point *point);
void points_append(struct probe_point_list *to, struct point_set *set);
struct point_set *join_points(struct parser *p, struct point_set *left,
			      struct point_set *right);
struct point_set *finish_points(struct parser *p, struct point_set *set,
				struct token *mark, struct node *cond);
struct probe_spec *spec_new(struct parser *p);
bool spec_add_alias(struct parser *p, struct probe_spec *spec, struct point_set *set,
		    struct token *op, enum probe_kind kind);
void add_probe(struct parser *p, struct token *kw, struct probe_spec *spec,
	       struct node *body, struct node *epilogue);
struct global *global_new(struct parser *p, struct token *name);
struct param *param_new(struct parser *p, struct token *name, enum type type);
bool params_add(struct param *list, struct param *param);
struct function *function_new(struct parser *p, struct token *name, enum type ret,
			      struct param *params, struct node *body,
			      struct token *embedded);
void add_function(struct parser *p, struct function *f, bool is_private);
void add_embed(struct parser *p, struct token *tok);

/* Checks stap makes while it parses. */
bool check_literal(struct parser *p, struct token *tok);
bool check_embedded(struct parser *p, struct token *tok, bool expression, int lookahead);
bool check_format(struct parser *p, struct node *format, int lookahead);
bool check_hist_use(struct parser *p, struct node *hist, int lookahead);
bool check_array_size(struct parser *p, struct node *size);

/* Errors. */
void parse_error_tok(struct parser *p, struct token *tok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void parse_error_at(struct parser *p, struct token *tok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
struct token *lookahead_token(struct parser *p, int lookahead);
struct token *handed_at(struct parser *p, struct loc loc);
struct token *enclosing_operator(struct parser *p, struct token *tok);
bool resynchronize(struct parser *p, int lookahead);
void release_tree(struct parser *p, struct node *node);
void *new_object(struct parser *p, size_t size, void (*free_fn)(void *));
struct token_desc describe(const struct parser *p, const struct token *tok);
struct loc token_loc(const struct token *tok);
struct token *handed_before(struct parser *p, struct token *tok, int back);

/* ---- Syntax errors ---- */

#define GRAMMAR_MAX_TOKENS 128	/* at least bison's YYNTOKENS */
#define GRAMMAR_STACK_VIEW 64	/* how far down the stack a syntax error looks */

/* A syntax error as the parser met it, in the grammar's symbol numbers (bison's
 * yysymbol_kind_t): the tokens it could have accepted, and the symbols on its stack. */
struct syntax_context {
	int expected[GRAMMAR_MAX_TOKENS];
	int nexpected;
	int stack[GRAMMAR_STACK_VIEW];	/* top first */
	int nstack;
};

/* The numbers of the symbols syntax errors are worded from (parser.y). */
struct grammar_symbols {
	int eof, empty;
	int any_token, const_kw, foreach_vars, global_name, hist, in_keys, literal_arg, name,
	    params, point_mark, return_kw, type_opt;
};
extern const struct grammar_symbols grammar_symbols;
/* The symbol of a token kind, and a symbol's name in the grammar (parser.y). */
int grammar_symbol(int token);
const char *grammar_symbol_name(int symbol);

/* Reports a syntax error in stap's words (syntax.c). */
void report_syntax_error(struct parser *p, const struct syntax_context *ctx);

#endif
