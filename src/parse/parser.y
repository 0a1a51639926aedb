/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pass 1: the grammar of the stap language.
 *
 * The grammar follows the precedence levels of stap's own recursive-descent parser, so that
 * every script parses to the same tree. Statements need no separator, and where a token could
 * continue the current construct or start the next one, the parser continues (shift wins),
 * just as stap's parser is greedy.
 *
 * Errors are reported in stap's words. A syntax error is described from the tokens the
 * parser could have accepted (with LAC they are exact) and, where the same set arises in
 * different constructs, from the construct being parsed (read off the state stack). Checks
 * that stap makes while parsing (printf formats, `return` outside functions, ...) are made
 * in the actions. After an error, parsing resumes at the next declaration, as in stap.
 */

%code requires {
#include <stdbool.h>
#include <stdint.h>

#include "parse/ast.h"
#include "parse/parse.h"

/* A token as the lexer makes it. */
struct token {
	int kind;		/* a token kind of the grammar, 0 at the end of the source */
	char *text;		/* as written; for a STRING what is between the quotes */
	char *raw;		/* STRING: the value with its escapes as written */
	char *value;		/* STRING: the decoded value; EMBEDDED: the code */
	int64_t num;		/* NUMBER */
	bool bad_number;	/* NUMBER: not a valid number, or out of range */
	bool glued;		/* nothing (no space, no comment) between it and the last token */
	char *error;		/* JUNK: what is wrong */
	const char *what;	/* JUNK: how messages name it ("junk", "operator") */
	struct loc loc;
	struct token *piece;	/* COMPONENT: the first token of the name, for messages */
	char *desc;		/* STRING: the text as messages show it */
	bool reported;		/* JUNK: its error is printed already */
	int index;		/* its place among the tokens handed to the parser */
	struct token *next_alloc;
};

/* The scanner (lexer.l). */
struct scanner;
struct scanner *scanner_new(const struct source *source, const char *text, long len);
void scanner_free(struct scanner *s);
void scanner_next(struct scanner *s, struct token *tok);
void scanner_continue_comment(struct scanner *s, const struct scanner *arg);

/* The token layer on top of it (lexer.l). */
struct lexer;
struct lexer *lexer_new(struct source *source, const struct parse_options *options);
void lexer_free(struct lexer *lx);
struct token *lexer_next(struct lexer *lx);
struct token *lexer_peek(struct lexer *lx);
void lexer_unget(struct lexer *lx, struct token *tok);
struct token *lexer_handed(struct lexer *lx, int index);
struct token *lexer_last(struct lexer *lx);
void lexer_skip_to_declaration(struct lexer *lx);
bool lexer_in_function(const struct lexer *lx);
bool lexer_any_token(const struct lexer *lx);
void lexer_skip_leading_errors(struct lexer *lx);
bool lexer_library_failed(const struct lexer *lx);
struct expansion *lexer_take_expansions(struct lexer *lx);
struct token_desc lexer_describe(const struct lexer *lx, const struct token *tok);

struct parser;
struct fe_var;
struct comps;
struct comp_item;
struct point_set;
struct probe_spec;
}

%code {
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "util.h"

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

static int yylex(YYSTYPE *lval, YYLTYPE *lloc, struct parser *p);
static void yyerror(YYLTYPE *lloc, struct parser *p, const char *message);

/* Tree building (see the helpers after the grammar). */
static struct node *new_node(struct parser *p, enum node_kind kind, struct loc loc);
static struct node *number_node(struct parser *p, struct token *tok, bool negative);
static bool check_guru_op(struct parser *p, struct token *op);
static struct node *string_node(struct parser *p, struct token *tok);
static struct node *string_append(struct parser *p, struct node *str, struct token *tok);
static char *take_string(struct parser *p, struct node *str);
static struct node *unary(struct parser *p, struct token *op, int code, struct node *lhs);
static struct node *binary(struct parser *p, struct token *op, int code, struct node *lhs,
			   struct node *rhs);
static struct node *call_node(struct parser *p, enum node_kind kind, struct token *name,
			      struct node_list *args);
static struct node_list *list_new(struct parser *p);
static struct node_list *list_push(struct node_list *list, struct node *node);
static void list_move(struct node_list *to, struct node_list *from);
static struct comps *comps_new(struct parser *p);
static bool comps_add(struct parser *p, struct comps *comps, struct comp_item *item);
static struct comp_item *comp_field(struct parser *p, struct token *arrow, struct token *name);
static struct comp_item *comp_index(struct parser *p, struct token *open, struct node *index);
static struct comp_item *comp_suffix(struct parser *p, struct token *first, struct token *dollars);
static struct node *with_comps(struct parser *p, struct node *value, struct comps *comps,
			       bool parenthesized);
static struct node *target_node(struct parser *p, struct token *tok);
static struct fe_var *fe_var_new(struct parser *p, struct token *name, struct token *mark);
static struct fe_vars *fe_vars_new(struct parser *p);
static bool check_sort(struct parser *p, struct token *mark);
static void fe_vars_add(struct fe_vars *vars, struct fe_var *var);
static struct fe_var *fe_sort(struct parser *p, struct token *mark, struct token *aggregate);
static struct node *foreach_node(struct parser *p, struct token *kw, struct fe_vars *vars,
				 struct node *array, struct node_list *slice,
				 struct fe_var *sort, struct node *limit);
static struct component *component_new(struct parser *p, struct token *name, struct node *arg);
static struct probe_point *point_new(struct parser *p, struct component *components);
static struct point_set *point_set_new(struct parser *p, struct probe_point *point);
static void points_append(struct probe_point_list *to, struct point_set *set);
static struct point_set *join_points(struct parser *p, struct point_set *left,
				     struct point_set *right);
static struct point_set *finish_points(struct parser *p, struct point_set *set,
				       struct token *mark, struct node *cond);
static struct probe_spec *spec_new(struct parser *p);
static bool spec_add_alias(struct parser *p, struct probe_spec *spec, struct point_set *set,
			   struct token *op, enum probe_kind kind);
static void add_probe(struct parser *p, struct token *kw, struct probe_spec *spec,
		      struct node *body, struct node *epilogue);
static struct global *global_new(struct parser *p, struct token *name);
static struct param *param_new(struct parser *p, struct token *name, enum type type);
static bool params_add(struct param *list, struct param *param);
static struct function *function_new(struct parser *p, struct token *name, enum type ret,
				     struct param *params, struct node *body,
				     struct token *embedded);
static void add_function(struct parser *p, struct function *f, bool is_private);
static void add_embed(struct parser *p, struct token *tok);

/* Checks stap makes while it parses. */
static bool check_literal(struct parser *p, struct token *tok);
static bool check_embedded(struct parser *p, struct token *tok, bool expression, int lookahead);
static bool check_format(struct parser *p, struct node *format, int lookahead);
static bool check_hist_use(struct parser *p, struct node *hist, int lookahead);
static bool check_array_size(struct parser *p, struct node *size);

/* Errors. */
static void parse_error_tok(struct parser *p, struct token *tok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void parse_error_at(struct parser *p, struct token *tok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static struct token *lookahead_token(struct parser *p, int lookahead);
static struct token *handed_at(struct parser *p, struct loc loc);
static struct token *enclosing_operator(struct parser *p, struct token *tok);
static bool resynchronize(struct parser *p, int lookahead);
static void release_tree(struct parser *p, struct node *node);

#define LOOKAHEAD (yychar)
}

%define api.pure full
%define parse.error custom
%define parse.lac full
%define lr.default-reduction consistent
%locations
%param {struct parser *p}

%union {
	struct token *tok;
	struct node *node;
	struct node_list *list;
	struct comps *comps;
	struct comp_item *item;
	struct component *component;
	struct point_set *points;
	struct probe_spec *spec;
	struct global *global;
	struct param *param;
	struct function *function;
	struct fe_var *fevar;
	struct fe_vars *fevars;
	enum type type;
	int code;
}

/* Words and literals. */
%token <tok> IDENT NUMBER STRING TARGET DOLLARS EMBEDDED COMPONENT
%token <tok> PRINT PRINTLN PRINTF PRINTD
/* $1, @1, $#, @#: replaced by the lexer before the parser sees them. */
%token <tok> ARG_DOLLAR ARG_AT ARG_COUNT
/* Keywords. */
%token <tok> PROBE GLOBAL FUNCTION PRIVATE IF ELSE FOR FOREACH IN LIMIT RETURN DELETE WHILE
%token <tok> BREAK CONTINUE NEXT STRING_KW LONG_KW TRY CATCH
/* @operators. */
%token <tok> AT_CAST AT_VAR AT_DEFINED AT_ENTRY AT_PROBEWRITE AT_STAT AT_HIST_LINEAR
%token <tok> AT_HIST_LOG AT_CONST AT_REGISTER AT_DEREF AT_PERF AT_UNKNOWN
/* Operators of more than one character. */
%token <tok> INC DEC SHL SHR USHR LE GE EQ NE ANDAND OROR MATCH NOMATCH ARROW STATS_ADD
%token <tok> ADD_ASSIGN SUB_ASSIGN MUL_ASSIGN DIV_ASSIGN MOD_ASSIGN SHL_ASSIGN SHR_ASSIGN
%token <tok> AND_ASSIGN XOR_ASSIGN OR_ASSIGN CAT_ASSIGN
/* Preprocessor operators %( %? %: %). */
%token <tok> PP_IF PP_THEN PP_ELSE PP_END
/* What no rule accepts: a malformed token, a character that is no operator. */
%token <tok> JUNK OTHER
%token <tok> '+' '-' '*' '/' '%' '<' '>' '=' '!' '~' '&' '|' '^' '?' ':' '.' ',' ';'
%token <tok> '(' ')' '[' ']' '{' '}'

%type <node> block statement_list statement if_statement expr_opt return_statement
%type <node> expr ternary logical_or logical_and bit_or bit_xor bit_and array_in comparison
%type <node> compare_chain shift concat additive multiplicative unary crement dwarf
%type <node> amp_operand value primary call print_call hist string_list literal_arg
%type <node> signed_number index_key in_key in_array foreach_array limit_opt format_string
%type <node> delimiter cast_module stat_rest epilogue_opt
%type <list> args args_opt index_keys in_keys print_args printd_rest slice_opt
%type <comps> comps
%type <item> comp
%type <tok> field_name assign_op compare_op shift_op additive_op multiplicative_op
%type <tok> prefix_op point_mark sort_mark printd_sep catch_var stat_comma
%type <tok> return_kw name array_name const_kw guru_op deref_op
%type <component> component
%type <points> point segments segment alternatives
%type <spec> probe_spec alias_names point_list
%type <global> global_name
%type <param> params params_opt param
%type <function> function_decl
%type <type> type_opt
%type <fevar> foreach_var foreach_sort
%type <fevars> foreach_vars foreach_keys foreach_key_list
%type <code> semi_opt

/* Statements run on without separators: an expression followed by what could continue it
 * is continued, the dangling else goes with the innermost if, and so on. Each of these
 * conflicts is resolved by shifting, which is stap's greedy reading. */
%expect 114

%%

file:
	  %empty
	| file declaration
	| file error			{ if (resynchronize(p, LOOKAHEAD)) yyclearin; yyerrok; }
	;

declaration:
	  PROBE probe_spec block epilogue_opt	{ add_probe(p, $1, $2, $3, $4); }
	| GLOBAL global_list semi_opt
	| FUNCTION function_decl	{ add_function(p, $2, false); }
	| PRIVATE GLOBAL global_list semi_opt
	| PRIVATE global_list semi_opt
	| PRIVATE FUNCTION function_decl	{ add_function(p, $3, true); }
	| EMBEDDED			{ add_embed(p, $1); }
	;

/* ---- Probes ---- */

probe_spec:
	  point_list			{ p->spec = $1; }
	| alias_names point_list
		{
			$$ = $1;
			$$->points = $2->points;
			$2->points = (struct probe_point_list){ 0 };
			p->spec = $$;
		}
	;

/* probe a = p { prologue }, { epilogue }: an alias made with `=` may have both. */
epilogue_opt:
	  %empty			{ $$ = NULL; }
	| epilogue_comma block		{ $$ = $2; }
	;

epilogue_comma:
	  ','
		{
			if (!p->spec->aliases.len) {
				parse_error_tok(p, $1, "expected 'probe', 'global', 'private', "
						"'function', or '%%{'");
				YYERROR;
			}
			if (p->spec->kind != PROBE_ALIAS) {
				parse_error_tok(p, $1, "Combined prologue and epilogue cannot be "
						"defined with '+='");
				YYERROR;
			}
		}
	;

alias_names:
	  point '='
		{
			$$ = spec_new(p);
			if (!spec_add_alias(p, $$, $1, $2, PROBE_ALIAS))
				YYERROR;
		}
	| point ADD_ASSIGN
		{
			$$ = spec_new(p);
			if (!spec_add_alias(p, $$, $1, $2, PROBE_ALIAS_EPILOGUE))
				YYERROR;
		}
	| alias_names point '='
		{
			$$ = $1;
			if (!spec_add_alias(p, $$, $2, $3, PROBE_ALIAS))
				YYERROR;
		}
	| alias_names point ADD_ASSIGN
		{
			$$ = $1;
			if (!spec_add_alias(p, $$, $2, $3, PROBE_ALIAS_EPILOGUE))
				YYERROR;
		}
	;

point_list:
	  point			{ $$ = spec_new(p); points_append(&$$->points, $1); }
	| point_list ',' point	{ $$ = $1; points_append(&$$->points, $3); }
	;

/* A probe point; with {a,b} groups, the several points it expands to. */
point:
	  segments point_mark			{ $$ = finish_points(p, $1, $2, NULL); }
	| segments point_mark IF '(' expr ')'	{ $$ = finish_points(p, $1, $2, $5); }
	;

segments:
	  segment
	| segments '.' segment		{ $$ = join_points(p, $1, $3); }
	;

segment:
	  component			{ $$ = point_set_new(p, point_new(p, $1)); }
	| '{' alternatives '}'		{ $$ = $2; }
	;

alternatives:
	  point
	| alternatives ',' point	{ $$ = $1; points_append(&$$->points, $3); }
	;

point_mark:
	  %empty		{ $$ = NULL; }
	| '?'
	| '!'
	;

component:
	  COMPONENT				{ $$ = component_new(p, $1, NULL); }
	| COMPONENT '(' literal_arg ')'		{ $$ = component_new(p, $1, $3); }
	;

literal_arg:
	  signed_number
	| string_list
	;

signed_number:
	  NUMBER		{ if (!check_literal(p, $1)) YYERROR; $$ = number_node(p, $1, false); }
	| '-' NUMBER		{ if (!check_literal(p, $2)) YYERROR; $$ = number_node(p, $2, true); }
	;

/* Adjacent string literals are one string. */
string_list:
	  STRING		{ $$ = string_node(p, $1); p->joining = NULL; }
	| string_list STRING	{ $$ = string_append(p, $1, $2); }
	;

/* ---- Globals ---- */

/* Each global is declared as soon as its name is read, so that a second declaration is
 * caught there. The private ones are declared after `private` (two symbols down). */
global_list:
	  global_var
	| global_list ',' global_var
	;

global_var:
	  global_name
	| global_name '=' literal_arg		{ $1->init = $3; }
	| global_name '[' signed_number ']'
		{
			if (!check_array_size(p, $3))
				YYERROR;
			$1->is_array = true;
			$1->max_entries = $3->num;
			release_tree(p, $3);
		}
	| global_name '%'
		{
			$1->is_array = true;
			$1->wrap = true;
		}
	| global_name '%' '[' signed_number ']'
		{
			if (!check_array_size(p, $4))
				YYERROR;
			$1->is_array = true;
			$1->wrap = true;
			$1->max_entries = $4->num;
			release_tree(p, $4);
		}
	| global_name '[' signed_number ']' '='
		{ parse_error_tok(p, $5, "only scalar globals can be initialized"); YYERROR; }
	| global_name '%' '[' signed_number ']' '='
		{ parse_error_tok(p, $6, "only scalar globals can be initialized"); YYERROR; }
	| global_name '%' '=' literal_arg
		{
			/* stap lets this one be initialized. */
			$1->is_array = true;
			$1->wrap = true;
			$1->init = $4;
		}
	;

global_name:
	  name
		{
			$$ = global_new(p, $1);
			if (!$$)
				YYERROR;
		}
	;

/* stap takes an @word after `in` for the name of an array. */
array_name:
	  IDENT | AT_CAST | AT_VAR | AT_DEFINED | AT_ENTRY | AT_PROBEWRITE | AT_STAT | AT_CONST
	| AT_REGISTER | AT_DEREF | AT_PERF | AT_UNKNOWN
	;

/* Where a name is declared, $names are names too. */
name:
	  IDENT | TARGET | DOLLARS | PRINT | PRINTLN | PRINTF | PRINTD
	;

/* ---- Functions ---- */

function_decl:
	  name type_opt '(' params_opt ')' priority_opt block
		{ $$ = function_new(p, $1, $2, $4, $7, NULL); }
	| name type_opt '(' params_opt ')' priority_opt EMBEDDED
		{
			check_embedded(p, $7, false, LOOKAHEAD);
			$$ = function_new(p, $1, $2, $4, NULL, $7);
		}
	;

/* function f() : 2 { }: the priority among overloads, which the tree does not keep. */
priority_opt:
	  %empty
	| ':' literal_arg
		{
			if ($2->kind != N_NUMBER) {
				parse_error_tok(p, lookahead_token(p, LOOKAHEAD), "expected literal number");
				YYERROR;
			}
			if ($2->num <= 0) {
				parse_error_tok(p, handed_at(p, $2->loc), "specified priority must be > 0");
				YYERROR;
			}
			release_tree(p, $2);
		}
	;

type_opt:
	  %empty		{ $$ = TYPE_UNKNOWN; }
	| ':' LONG_KW		{ $$ = TYPE_LONG; }
	| ':' STRING_KW		{ $$ = TYPE_STRING; }
	;

params_opt:
	  %empty		{ $$ = NULL; }
	| params
	| params ','
	;

params:
	  param
	| params ',' param	{ if (!params_add($1, $3)) YYERROR; $$ = $1; }
	;

param:
	  name type_opt		{ $$ = param_new(p, $1, $2); }
	;

/* ---- Statements ---- */

block:
	  '{' statement_list '}'	{ $$ = $2; $$->loc = $1->loc; }
	;

statement_list:
	  %empty			{ $$ = new_node(p, N_BLOCK, (struct loc){ 0 }); }
	| statement_list statement	{ node_list_push(&$1->body, $2); $$ = $1; }
	;

semi_opt:
	  %empty		{ $$ = 0; }
	| ';'			{ $$ = 1; }
	;

statement:
	  block
	| ';'			{ $$ = new_node(p, N_NULL, $1->loc); }
	| if_statement
	| WHILE '(' expr ')' statement
		{
			$$ = new_node(p, N_WHILE, $1->loc);
			$$->cond = $3;
			$$->then = $5;
		}
	| FOR '(' expr_opt ';' expr_opt ';' expr_opt ')' statement
		{
			$$ = new_node(p, N_FOR, $1->loc);
			$$->init = $3;
			$$->cond = $5;
			$$->inc = $7;
			$$->then = $9;
		}
	| FOREACH '(' foreach_start foreach_vars IN foreach_array slice_opt foreach_sort limit_opt ')'
	  statement
		{
			$$ = foreach_node(p, $1, $4, $6, $7, $8, $9);
			$$->foreach->body = $11;
		}
	| BREAK semi_opt	{ $$ = new_node(p, N_BREAK, $1->loc); }
	| CONTINUE semi_opt	{ $$ = new_node(p, N_CONTINUE, $1->loc); }
	| NEXT semi_opt		{ $$ = new_node(p, N_NEXT, $1->loc); }
	| return_statement
	| DELETE expr semi_opt
		{
			$$ = new_node(p, N_DELETE, $1->loc);
			$$->lhs = $2;
		}
	| TRY block CATCH catch_var block
		{
			$$ = new_node(p, N_TRY, $1->loc);
			$$->then = $2;
			$$->els = $5;
			if ($4) {
				$$->text = xstrdup($4->text);
				/* Where the catch variable is named, for messages about it. */
				$$->lhs = new_node(p, N_IDENT, $4->loc);
				$$->lhs->text = xstrdup($4->text);
			}
		}
	| expr semi_opt
		{
			if ($1->kind == N_EMBEDDED_EXPR) {
				$$ = $1;
				$$->kind = N_EMBEDDED_STMT;
			} else {
				$$ = new_node(p, N_EXPR_STMT, $1->loc);
				$$->lhs = $1;
			}
		}
	;

if_statement:
	  IF '(' expr ')' statement
		{
			$$ = new_node(p, N_IF, $1->loc);
			$$->cond = $3;
			$$->then = $5;
		}
	| IF '(' expr ')' statement ELSE statement
		{
			$$ = new_node(p, N_IF, $1->loc);
			$$->cond = $3;
			$$->then = $5;
			$$->els = $7;
		}
	;

return_kw:
	  RETURN
		{
			if (!lexer_in_function(p->lx)) {
				parse_error_tok(p, $1, "found 'return' not in function context");
				YYERROR;
			}
			$$ = $1;
		}
	;

return_statement:
	  return_kw ';'		{ $$ = new_node(p, N_RETURN, $1->loc); }
	| return_kw
		{
			/* stap takes a value unless `;` or `}` follows. */
			if (LOOKAHEAD != '}') {
				struct token *tok = lookahead_token(p, LOOKAHEAD);

				parse_error_tok(p, tok, tok->kind ? "expected literal string or number"
								  : "expected value");
				YYERROR;
			}
			$$ = new_node(p, N_RETURN, $1->loc);
		}
	| return_kw expr semi_opt
		{
			$$ = new_node(p, N_RETURN, $1->loc);
			$$->lhs = $2;
		}
	;

expr_opt:
	  %empty		{ $$ = NULL; }
	| expr
	;

catch_var:
	  %empty		{ $$ = NULL; }
	| '(' name ')'		{ $$ = $2; }
	;

foreach_vars:
	  foreach_keys
	| foreach_var '=' foreach_keys
		{
			$$ = $3;
			$$->value = $1->var;
			if ($1->sort) {
				$$->sort_column = -1;
				$$->sort_direction = $1->sort;
			}
		}
	;

foreach_keys:
	  foreach_var			{ $$ = fe_vars_new(p); fe_vars_add($$, $1); }
	| '[' foreach_key_list ']'	{ $$ = $2; }
	;

foreach_key_list:
	  foreach_var			{ $$ = fe_vars_new(p); fe_vars_add($$, $1); }
	| foreach_key_list ',' foreach_var
		{
			$$ = $1;
			fe_vars_add($$, $3);
		}
	;

foreach_var:
	  name sort_mark	{ $$ = fe_var_new(p, $1, $2); }
	| name			{ $$ = fe_var_new(p, $1, NULL); }
	;

/* A foreach sorts on one thing only; the second mark is refused as it comes. */
sort_mark:
	  '+'			{ if (!check_sort(p, $1)) YYERROR; }
	| '-'			{ if (!check_sort(p, $1)) YYERROR; }
	;

foreach_start:
	  %empty		{ p->foreach_sorts = 0; }
	;

foreach_array:
	  array_name
		{
			$$ = new_node(p, N_IDENT, $1->loc);
			$$->text = xstrdup($1->text);
		}
	| TARGET		{ $$ = target_node(p, $1); }
	| DOLLARS		{ $$ = target_node(p, $1); }
	| hist
	;

foreach_sort:
	  %empty		{ $$ = NULL; }
	| sort_mark		{ $$ = fe_sort(p, $1, NULL); }
	| AT_STAT sort_mark	{ $$ = fe_sort(p, $2, $1); }
	;

slice_opt:
	  %empty		{ $$ = NULL; }
	| '[' index_keys ']'	{ $$ = $2; }
	;

limit_opt:
	  %empty		{ $$ = NULL; }
	| LIMIT expr		{ $$ = $2; }
	;

/* ---- Expressions, loosest first ---- */

expr:
	  ternary
	| ternary assign_op expr
		{
			$$ = binary(p, $2, $2->kind, $1, $3);
			$$->kind = N_ASSIGN;
			switch ($2->kind) {
			case '=': $$->op = '='; break;
			case STATS_ADD: $$->op = OP_STATS_ADD; break;
			case ADD_ASSIGN: $$->op = OP_ASSIGN_BASE + '+'; break;
			case SUB_ASSIGN: $$->op = OP_ASSIGN_BASE + '-'; break;
			case MUL_ASSIGN: $$->op = OP_ASSIGN_BASE + '*'; break;
			case DIV_ASSIGN: $$->op = OP_ASSIGN_BASE + '/'; break;
			case MOD_ASSIGN: $$->op = OP_ASSIGN_BASE + '%'; break;
			case SHL_ASSIGN: $$->op = OP_ASSIGN_BASE + OP_SHL; break;
			case SHR_ASSIGN: $$->op = OP_ASSIGN_BASE + OP_SHR; break;
			case AND_ASSIGN: $$->op = OP_ASSIGN_BASE + '&'; break;
			case XOR_ASSIGN: $$->op = OP_ASSIGN_BASE + '^'; break;
			case OR_ASSIGN: $$->op = OP_ASSIGN_BASE + '|'; break;
			case CAT_ASSIGN: $$->op = OP_ASSIGN_BASE + '.'; break;
			}
		}
	;

assign_op:
	  '=' | ADD_ASSIGN | SUB_ASSIGN | MUL_ASSIGN | DIV_ASSIGN | MOD_ASSIGN | SHL_ASSIGN
	| SHR_ASSIGN | AND_ASSIGN | XOR_ASSIGN | OR_ASSIGN | CAT_ASSIGN | STATS_ADD
	;

ternary:
	  logical_or
	| logical_or '?' expr ':' ternary
		{
			$$ = new_node(p, N_TERNARY, $2->loc);
			$$->cond = $1;
			$$->then = $3;
			$$->els = $5;
		}
	;

logical_or:
	  logical_and
	| logical_or OROR logical_and	{ $$ = binary(p, $2, OP_OROR, $1, $3); if (!$$) YYNOMEM; }
	;

logical_and:
	  bit_or
	| logical_and ANDAND bit_or	{ $$ = binary(p, $2, OP_ANDAND, $1, $3); if (!$$) YYNOMEM; }
	;

bit_or:
	  bit_xor
	| bit_or '|' bit_xor		{ $$ = binary(p, $2, '|', $1, $3); if (!$$) YYNOMEM; }
	;

bit_xor:
	  bit_and
	| bit_xor '^' bit_and		{ $$ = binary(p, $2, '^', $1, $3); if (!$$) YYNOMEM; }
	;

bit_and:
	  array_in
	| bit_and '&' array_in		{ $$ = binary(p, $2, '&', $1, $3); if (!$$) YYNOMEM; }
	;

array_in:
	  comparison
	| comparison IN in_array
		{
			$$ = new_node(p, N_IN, $2->loc);
			node_list_push(&$$->args, $1);
			$$->lhs = $3;
		}
	| '[' in_keys ']' IN in_array
		{
			$$ = new_node(p, N_IN, $4->loc);
			list_move(&$$->args, $2);
			$$->lhs = $5;
		}
	| '[' in_keys ']'
		{
			if ($2->len != 1 || $2->items[0]->kind == N_STAR) {
				struct token *tok = lookahead_token(p, LOOKAHEAD);

				parse_error_tok(p, tok, $2->len != 1 ?
						"unexpected comma-separated expression list" :
						"expected literal string or number");
				YYERROR;
			}
			$$ = $2->items[0];
			$2->len = 0;
		}
	;

/* The keys of [k1, k2] in a are comparisons, not whole expressions. */
in_keys:
	  in_key			{ $$ = list_push(list_new(p), $1); }
	| in_keys ',' in_key		{ $$ = list_push($1, $3); }
	;

in_key:
	  comparison
	| '*'			{ $$ = new_node(p, N_STAR, $1->loc); }
	;

in_array:
	  array_name
		{
			$$ = new_node(p, N_IDENT, $1->loc);
			$$->text = xstrdup($1->text);
		}
	| TARGET		{ $$ = target_node(p, $1); }
	| DOLLARS		{ $$ = target_node(p, $1); }
	| hist
	;

comparison:
	  compare_chain
	| shift MATCH string_list	{ $$ = binary(p, $2, OP_MATCH, $1, $3); }
	| shift NOMATCH string_list	{ $$ = binary(p, $2, OP_NOMATCH, $1, $3); }
	;

compare_chain:
	  shift
	| compare_chain compare_op shift	{ $$ = binary(p, $2, $2->kind, $1, $3); if (!$$) YYNOMEM; }
	;

compare_op:
	  '<' | '>' | LE | GE | EQ | NE
	;

shift:
	  concat
	| shift shift_op concat		{ $$ = binary(p, $2, $2->kind, $1, $3); if (!$$) YYNOMEM; }
	;

shift_op:
	  SHL | SHR | USHR
	;

concat:
	  additive
	| concat '.' additive		{ $$ = binary(p, $2, '.', $1, $3); if (!$$) YYNOMEM; }
	;

additive:
	  multiplicative
	| additive additive_op multiplicative	{ $$ = binary(p, $2, $2->kind, $1, $3); if (!$$) YYNOMEM; }
	;

additive_op:
	  '+' | '-'
	;

multiplicative:
	  unary
	| multiplicative multiplicative_op unary	{ $$ = binary(p, $2, $2->kind, $1, $3); if (!$$) YYNOMEM; }
	;

multiplicative_op:
	  '*' | '/' | '%'
	;

unary:
	  crement
	| prefix_op unary		{ $$ = unary(p, $1, $1->kind, $2); }
	| INC amp_operand
		{
			$$ = unary(p, $1, OP_INC, $2);
			$$->kind = N_PREINC;
		}
	| DEC amp_operand
		{
			$$ = unary(p, $1, OP_DEC, $2);
			$$->kind = N_PREINC;
		}
	;

prefix_op:
	  '+' | '-' | '!' | '~'
	;

crement:
	  dwarf
	| dwarf INC
		{
			$$ = unary(p, $2, OP_INC, $1);
			$$->kind = N_POSTINC;
		}
	| dwarf DEC
		{
			$$ = unary(p, $2, OP_DEC, $1);
			$$->kind = N_POSTINC;
		}
	;

dwarf:
	  value
	| '&' amp_operand		{ $$ = unary(p, $1, '&', $2); }
	;

amp_operand:
	  value
	| '-' NUMBER
		{
			if (!check_literal(p, $2))
				YYERROR;
			$$ = number_node(p, $2, true);
		}
	;

value:
	  primary
	| primary comps			{ $$ = with_comps(p, $1, $2, false); if (!$$) YYERROR; }
	| '(' expr ')' comps		{ $$ = with_comps(p, $2, $4, true); if (!$$) YYERROR; }
	;

comps:
	  comp				{ $$ = comps_new(p); if (!comps_add(p, $$, $1)) YYERROR; }
	| comps comp			{ $$ = $1; if (!comps_add(p, $$, $2)) YYERROR; }
	;

comp:
	  ARROW field_name		{ $$ = comp_field(p, $1, $2); }
	| '[' expr ']'			{ $$ = comp_index(p, $1, $2); }
	| DOLLARS			{ $$ = comp_suffix(p, $1, $1); }
	| ARROW DOLLARS			{ $$ = comp_suffix(p, $1, $2); }
	;

field_name:
	  IDENT | TARGET | PRINT | PRINTLN | PRINTF | PRINTD | PROBE | GLOBAL | FUNCTION | PRIVATE | IF
	| ELSE | FOR | FOREACH | IN | LIMIT | RETURN | DELETE | WHILE | BREAK | CONTINUE | NEXT
	| STRING_KW | LONG_KW | TRY | CATCH
	;

primary:
	  NUMBER
		{
			if (!check_literal(p, $1))
				YYERROR;
			$$ = number_node(p, $1, false);
		}
	| string_list
	| '(' expr ')'			{ $$ = $2; }
	| IDENT
		{
			$$ = new_node(p, N_IDENT, $1->loc);
			$$->text = xstrdup($1->text);
		}
	| IDENT '[' index_keys ']'
		{
			struct node *array = new_node(p, N_IDENT, $1->loc);

			array->text = xstrdup($1->text);
			$$ = new_node(p, N_INDEX, $1->loc);
			$$->lhs = array;
			list_move(&$$->args, $3);
		}
	| call
	| print_call
	| TARGET			{ $$ = target_node(p, $1); }
	| DOLLARS			{ $$ = target_node(p, $1); }
	| AT_CAST '(' expr ',' string_list cast_module ')'
		{
			$$ = new_node(p, N_CAST, $1->loc);
			$$->lhs = $3;
			$$->raw = xstrdup($5->raw);
			$$->text = take_string(p, $5);
			$$->module_raw = $6 ? xstrdup($6->raw) : NULL;
			$$->module = $6 ? take_string(p, $6) : NULL;
		}
	| AT_VAR '(' string_list cast_module ')'
		{
			$$ = new_node(p, N_ATVAR, $1->loc);
			$$->raw = xstrdup($3->raw);
			$$->text = take_string(p, $3);
			$$->module_raw = $4 ? xstrdup($4->raw) : NULL;
			$$->module = $4 ? take_string(p, $4) : NULL;
		}
	| AT_DEFINED '(' expr ')'	{ $$ = unary(p, $1, 0, $3); $$->kind = N_DEFINED; }
	| AT_ENTRY '(' expr ')'		{ $$ = unary(p, $1, 0, $3); $$->kind = N_ENTRY; }
	| AT_PROBEWRITE '(' IDENT ')'
		{
			struct node *var = new_node(p, N_IDENT, $3->loc);

			var->text = xstrdup($3->text);
			$$ = unary(p, $1, 0, var);
			$$->kind = N_PROBEWRITE;
		}
	| AT_PROBEWRITE '(' TARGET ')'
		{
			$$ = unary(p, $1, 0, target_node(p, $3));
			$$->kind = N_PROBEWRITE;
		}
	| AT_PROBEWRITE '(' DOLLARS ')'
		{
			$$ = unary(p, $1, 0, target_node(p, $3));
			$$->kind = N_PROBEWRITE;
		}
	| AT_STAT '(' expr stat_rest
		{
			$$ = unary(p, $1, 0, $3);
			$$->kind = N_STATOP;
			$$->text = xstrdup($1->text + 1);
			if ($4)
				node_list_push(&$$->args, $4);
		}
	| hist '[' index_keys ']'
		{
			$$ = new_node(p, N_INDEX, $1->loc);
			$$->lhs = $1;
			list_move(&$$->args, $3);
		}
	| hist
		{
			if (!check_hist_use(p, $1, LOOKAHEAD))
				YYERROR;
			$$ = $1;
		}
	| const_kw '(' string_list ')'
		{
			if (!$3->text[0]) {
				parse_error_tok(p, $4, "expected non-empty string");
				YYERROR;
			}
			/* stap makes it embedded C that may be used anywhere. */
			$$ = new_node(p, N_EMBEDDED_EXPR, $1->loc);
			$$->text = xasprintf("/* pure */ /* unprivileged */ /* stable */ %s", $3->text);
			release_tree(p, $3);
		}
	| guru_op '(' signed_number ')'
		{
			/* @kregister(N), @uregister(N): stap keeps the register number as a
			 * 32-bit unsigned int. */
			$$ = new_node(p, N_REGISTER, $1->loc);
			$$->text = xstrdup($1->text);
			$$->num = (int64_t)(uint32_t)$3->num;
			release_tree(p, $3);
		}
	| deref_op '(' signed_number ',' expr ')'
		{
			/* @kderef(SIZE, ADDR), @uderef(SIZE, ADDR): SIZE kept as above. */
			$$ = new_node(p, N_DEREF, $1->loc);
			$$->text = xstrdup($1->text);
			$$->num = (int64_t)(uint32_t)$3->num;
			$$->lhs = $5;
			release_tree(p, $3);
		}
	| AT_PERF '(' string_list ')'
		{
			if (!$3->text[0]) {
				parse_error_tok(p, $4, "expected non-empty string");
				YYERROR;
			}
			$$ = unary(p, $1, 0, $3);
			$$->kind = N_PERF;
			$$->text = xstrdup($1->text);
		}
	| EMBEDDED
		{
			if (!check_embedded(p, $1, true, LOOKAHEAD)) {
				yyclearin;
				YYERROR;
			}
			$$ = new_node(p, N_EMBEDDED_EXPR, $1->loc);
			$$->text = xstrdup($1->value);
		}
	;

/* @const("NAME"): the value of a C macro, for guru mode and tapsets only. stap goes on
 * after the error at the token after @const, as if a declaration could start there. */
const_kw:
	  AT_CONST
		{
			if (!p->options->guru && !p->source->is_tapset) {
				parse_error_tok(p, $1, "using @const operator not permitted; need stap -g");
				p->resume_here = true;
				YYERROR;
			}
			$$ = $1;
		}
	;

/* @kregister and @kderef are for guru mode and tapsets only (@uregister and @uderef for
 * anyone); stap goes on after the error as it does for @const. */
guru_op:
	  AT_REGISTER
		{
			if (!check_guru_op(p, $1))
				YYERROR;
			$$ = $1;
		}
	;

deref_op:
	  AT_DEREF
		{
			if (!check_guru_op(p, $1))
				YYERROR;
			$$ = $1;
		}
	;

/* After the operand of @count(...) and the like, stap reads on to the `)` and skips whatever
 * else it finds, but for a comma and the parameter of @variance. */
stat_rest:
	  ')'				{ $$ = NULL; }
	| stat_comma signed_number stat_end	{ $$ = $2; }
	| any_token stat_rest		{ $$ = $2; }
	;

stat_end:
	  ')'
	| stat_extra
	| any_token stat_end
	;

stat_comma:
	  ','
		{
			if (strcmp(enclosing_operator(p, $1)->text, "@variance")) {
				parse_error_at(p, $1, "not more than 1 parameter allowed");
				YYERROR;
			}
			$$ = $1;
		}
	;

stat_extra:
	  ','		{ parse_error_at(p, $1, "not more than 2 parameters allowed"); YYERROR; }
	;

/* Every token but `)`, `,` and what the lexer could not read. */
any_token:
	  IDENT | NUMBER | STRING | TARGET | DOLLARS | EMBEDDED | COMPONENT | PRINT | PRINTLN
	| PRINTF | PRINTD | ARG_DOLLAR | ARG_AT | ARG_COUNT | PROBE | GLOBAL | FUNCTION | PRIVATE
	| IF | ELSE | FOR | FOREACH | IN | LIMIT | RETURN | DELETE | WHILE | BREAK | CONTINUE
	| NEXT | STRING_KW | LONG_KW | TRY | CATCH | AT_CAST | AT_VAR | AT_DEFINED | AT_ENTRY
	| AT_PROBEWRITE | AT_STAT | AT_HIST_LINEAR | AT_HIST_LOG | AT_CONST | AT_REGISTER | AT_DEREF
	| AT_PERF | AT_UNKNOWN | INC
	| DEC | SHL
	| SHR | USHR | LE | GE | EQ | NE | ANDAND | OROR | MATCH | NOMATCH | ARROW | STATS_ADD
	| ADD_ASSIGN | SUB_ASSIGN | MUL_ASSIGN | DIV_ASSIGN | MOD_ASSIGN | SHL_ASSIGN | SHR_ASSIGN
	| AND_ASSIGN | XOR_ASSIGN | OR_ASSIGN | CAT_ASSIGN | PP_IF | PP_THEN | PP_ELSE | PP_END
	| OTHER | '+' | '-' | '*' | '/' | '%' | '<' | '>' | '=' | '!' | '~' | '&' | '|' | '^'
	| '?' | ':' | '.' | ';' | '(' | '[' | ']' | '{' | '}'
	;

cast_module:
	  %empty		{ $$ = NULL; }
	| ',' string_list	{ $$ = $2; }
	;

hist:
	  AT_HIST_LINEAR '(' expr ',' signed_number ',' signed_number ',' signed_number ')'
		{
			$$ = unary(p, $1, 0, $3);
			$$->kind = N_HIST;
			$$->text = xstrdup("hist_linear");
			node_list_push(&$$->args, $5);
			node_list_push(&$$->args, $7);
			node_list_push(&$$->args, $9);
		}
	| AT_HIST_LOG '(' expr ')'
		{
			$$ = unary(p, $1, 0, $3);
			$$->kind = N_HIST;
			$$->text = xstrdup("hist_log");
		}
	;

call:
	  IDENT '(' args_opt ')'	{ $$ = call_node(p, N_CALL, $1, $3); }
	;

args_opt:
	  %empty		{ $$ = list_new(p); }
	| args
	;

args:
	  expr			{ $$ = list_push(list_new(p), $1); }
	| args ',' expr		{ $$ = list_push($1, $3); }
	;

index_keys:
	  index_key			{ $$ = list_push(list_new(p), $1); }
	| index_keys ',' index_key	{ $$ = list_push($1, $3); }
	;

index_key:
	  expr
	| '*'			{ $$ = new_node(p, N_STAR, $1->loc); }
	;

print_call:
	  PRINT '(' hist ')'		{ $$ = call_node(p, N_PRINT, $1, list_push(list_new(p), $3)); }
	| PRINTLN '(' hist ')'		{ $$ = call_node(p, N_PRINT, $1, list_push(list_new(p), $3)); }
	| PRINT '(' print_args ')'	{ $$ = call_node(p, N_PRINT, $1, $3); }
	| PRINTLN '(' ')'		{ $$ = call_node(p, N_PRINT, $1, list_new(p)); }
	| PRINTLN '(' print_args ')'	{ $$ = call_node(p, N_PRINT, $1, $3); }
	| PRINTF '(' format_string ')'
		{ $$ = call_node(p, N_PRINT, $1, list_push(list_new(p), $3)); }
	| PRINTF '(' format_string ',' print_args ')'
		{
			struct node_list *args = list_push(list_new(p), $3);

			for (int i = 0; i < $5->len; i++)
				list_push(args, $5->items[i]);
			$5->len = 0;
			$$ = call_node(p, N_PRINT, $1, args);
		}
	| PRINTD '(' delimiter printd_sep expr printd_sep printd_rest ')'
		{
			struct node_list *args = list_push(list_new(p), $3);

			list_push(args, $5);
			for (int i = 0; i < $7->len; i++)
				list_push(args, $7->items[i]);
			$7->len = 0;
			$$ = call_node(p, N_PRINT, $1, args);
		}
	;

print_args:
	  expr				{ $$ = list_push(list_new(p), $1); }
	| print_args ',' expr		{ $$ = list_push($1, $3); }
	;

/* stap reads printd(",", x) as if the `)` were a comma, and wants another value. */
printd_sep:
	  ','
	| ')'
	;

printd_rest:
	  expr				{ $$ = list_push(list_new(p), $1); }
	| printd_rest ',' expr		{ $$ = list_push($1, $3); }
	;

format_string:
	  string_list		{ if (!check_format(p, $1, LOOKAHEAD)) YYERROR; $$ = $1; }
	;

delimiter:
	  string_list
	;

%%

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

static void *new_object(struct parser *p, size_t size, void (*free_fn)(void *))
{
	return own(p, xcalloc(1, size), free_fn, false);
}

static void *new_temp(struct parser *p, size_t size, void (*free_fn)(void *))
{
	return own(p, xcalloc(1, size), free_fn, true);
}

/* ---- Tokens in messages ---- */

static bool is_keyword(int kind)
{
	switch (kind) {
	case PROBE: case GLOBAL: case FUNCTION: case PRIVATE: case IF: case ELSE: case FOR:
	case FOREACH: case IN: case LIMIT: case RETURN: case DELETE: case WHILE: case BREAK:
	case CONTINUE: case NEXT: case STRING_KW: case LONG_KW: case TRY: case CATCH:
		return true;
	}
	return false;
}

static struct token_desc describe(const struct parser *p, const struct token *tok)
{
	return lexer_describe(p->lx, tok);
}

static struct loc token_loc(const struct token *tok)
{
	return tok->kind ? tok->loc : (struct loc){ 0 };
}

static void parse_error_tok(struct parser *p, struct token *tok, const char *fmt, ...)
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

static void parse_error_at(struct parser *p, struct token *tok, const char *fmt, ...)
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
static struct token *lookahead_token(struct parser *p, int lookahead)
{
	return lookahead == YYEMPTY ? lexer_peek(p->lx) : lexer_last(p->lx);
}

/* The token handed to the parser `back` tokens before `tok`. */
static struct token *handed_before(struct parser *p, struct token *tok, int back)
{
	return lexer_handed(p->lx, tok->index - back);
}

/*
 * After an error: on to the next declaration. stap resumes at the token it choked on when
 * it had only peeked at it, and after it when it had read it: a syntax error reads it (but
 * for a missing statement), a check made in an action only peeks. Returns whether the
 * look-ahead is dropped.
 */
static bool resynchronize(struct parser *p, int lookahead)
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

static struct node *new_node(struct parser *p, enum node_kind kind, struct loc loc)
{
	return own(p, node_new(kind, loc), free_node, false);
}

/* @kregister and @kderef need guru mode outside tapsets; the @u forms do not. */
static bool check_guru_op(struct parser *p, struct token *op)
{
	if (op->text[1] != 'k' || p->options->guru || p->source->is_tapset)
		return true;
	parse_error_tok(p, op, "using %s operator not permitted; need stap -g", op->text);
	p->resume_here = true;
	return false;
}

static struct node *number_node(struct parser *p, struct token *tok, bool negative)
{
	struct node *node = new_node(p, N_NUMBER, tok->loc);

	node->num = negative ? (int64_t)(0 - (uint64_t)tok->num) : tok->num;
	node->text = negative ? xasprintf("-%s", tok->text) : xstrdup(tok->text);
	return node;
}

static struct node *string_node(struct parser *p, struct token *tok)
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
static struct node *string_append(struct parser *p, struct node *str, struct token *tok)
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
static char *take_string(struct parser *p, struct node *str)
{
	char *text = str->text;

	str->text = NULL;
	release(p, str);
	return text;
}

static struct node *unary(struct parser *p, struct token *op, int code, struct node *lhs)
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

static struct node *binary(struct parser *p, struct token *op, int code, struct node *lhs,
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

static struct node_list *list_new(struct parser *p)
{
	return new_temp(p, sizeof(struct node_list), free_list);
}

static struct node_list *list_push(struct node_list *list, struct node *node)
{
	node_list_push(list, node);
	return list;
}

static void list_move(struct node_list *to, struct node_list *from)
{
	free(to->items);
	*to = *from;
	*from = (struct node_list){ 0 };
}

static struct node *call_node(struct parser *p, enum node_kind kind, struct token *name,
			      struct node_list *args)
{
	struct node *node = new_node(p, kind, name->loc);

	node->text = xstrdup(name->text);
	list_move(&node->args, args);
	return node;
}

static struct node *target_node(struct parser *p, struct token *tok)
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
static struct token *enclosing_operator(struct parser *p, struct token *tok)
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
static struct token *handed_at(struct parser *p, struct loc loc)
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

static struct comps *comps_new(struct parser *p)
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

static bool comps_add(struct parser *p, struct comps *comps, struct comp_item *item)
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

static struct comp_item *comp_field(struct parser *p, struct token *arrow, struct token *name)
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

static struct comp_item *comp_index(struct parser *p, struct token *open, struct node *index)
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

static struct comp_item *comp_suffix(struct parser *p, struct token *first, struct token *dollars)
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
static struct node *with_comps(struct parser *p, struct node *value, struct comps *comps,
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

static struct fe_var *fe_var_new(struct parser *p, struct token *name, struct token *mark)
{
	struct fe_var *var = new_temp(p, sizeof(*var), free);

	var->var = new_node(p, N_IDENT, name->loc);
	var->var->text = xstrdup(name->text);
	var->mark = mark;
	var->sort = !mark ? 0 : mark->kind == '+' ? 1 : -1;
	return var;
}

static struct fe_vars *fe_vars_new(struct parser *p)
{
	return new_temp(p, sizeof(struct fe_vars), free_fe_vars);
}

static bool check_sort(struct parser *p, struct token *mark)
{
	if (!p->foreach_sorts++)
		return true;
	parse_error_tok(p, mark, "multiple sort directives");
	return false;
}

static void fe_vars_add(struct fe_vars *vars, struct fe_var *var)
{
	node_list_push(&vars->keys, var->var);
	if (!var->sort)
		return;
	vars->sort_column = vars->keys.len;
	vars->sort_direction = var->sort;
}

/* The + or - (or @sum+) after the array of a foreach sorts on the value. */
static struct fe_var *fe_sort(struct parser *p, struct token *mark, struct token *aggregate)
{
	struct fe_var *sort = new_temp(p, sizeof(*sort), free);

	sort->sort = mark->kind == '+' ? 1 : -1;
	sort->mark = mark;
	sort->aggregate = aggregate;
	return sort;
}

static struct node *foreach_node(struct parser *p, struct token *kw, struct fe_vars *vars,
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

static struct component *component_new(struct parser *p, struct token *name, struct node *arg)
{
	struct component *c = new_object(p, sizeof(*c), free_component);

	c->name = xstrdup(name->text);
	c->arg = arg;
	c->loc = name->loc;
	return c;
}

static struct probe_point *point_new(struct parser *p, struct component *components)
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

static struct point_set *point_set_new(struct parser *p, struct probe_point *point)
{
	struct point_set *set = new_temp(p, sizeof(*set), free_point_set);

	if (point)
		probe_point_list_push(&set->points, point);
	return set;
}

static void points_append(struct probe_point_list *to, struct point_set *set)
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
static void release_tree(struct parser *p, struct node *node)
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
static struct point_set *join_points(struct parser *p, struct point_set *left,
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
static struct point_set *finish_points(struct parser *p, struct point_set *set,
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

static struct probe_spec *spec_new(struct parser *p)
{
	return new_temp(p, sizeof(struct probe_spec), free_spec);
}

static bool spec_add_alias(struct parser *p, struct probe_spec *spec, struct point_set *set,
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

static void add_probe(struct parser *p, struct token *kw, struct probe_spec *spec,
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
static struct global *global_new(struct parser *p, struct token *name)
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

static struct param *param_new(struct parser *p, struct token *name, enum type type)
{
	struct param *param = new_object(p, sizeof(*param), free_param);

	param->name = xstrdup(name->text);
	param->type = type;
	param->loc = name->loc;
	return param;
}

static bool params_add(struct param *list, struct param *param)
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

/* The tags stap recognizes in the comments of an embedded-C function. */
static char *pragmas_of(const char *code)
{
	static const char *const tags[] = {
		"pure", "stable", "unprivileged", "myproc-unprivileged", "guru", "unmangled",
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

static struct function *function_new(struct parser *p, struct token *name, enum type ret,
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
		f->embedded = xstrdup(embedded->value);
		f->pragmas = pragmas_of(embedded->value);
	}
	f->loc = name->loc;
	return f;
}

static void add_function(struct parser *p, struct function *f, bool is_private)
{
	struct function **tail = p->functions_tail ? p->functions_tail : &p->file->functions;

	f->is_private = is_private;
	while (*tail)
		tail = &(*tail)->next;
	*tail = f;
	p->functions_tail = &f->next;
}

/* Embedded C where it is not allowed is an error, but stap reads on as if it were. */
static void add_embed(struct parser *p, struct token *tok)
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

static bool check_literal(struct parser *p, struct token *tok)
{
	if (!tok->bad_number)
		return true;
	parse_error_tok(p, tok, "number invalid or out of range");
	return false;
}

/* Embedded C is for tapsets and guru mode. Used as an expression, the code is read again as
 * a declaration after the error, as stap does. */
static bool check_embedded(struct parser *p, struct token *tok, bool expression, int lookahead)
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

static bool check_format(struct parser *p, struct node *format, int lookahead)
{
	const char *error = format_error(format->raw);

	if (!error)
		return true;
	parse_error_tok(p, lookahead_token(p, lookahead), "%s", error);
	return false;
}

/* A histogram is printed whole, or indexed: print(@hist_log(s)), @hist_log(s)[i]. */
static bool check_hist_use(struct parser *p, struct node *hist, int lookahead)
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
static bool check_array_size(struct parser *p, struct node *size)
{
	struct token end = { 0 };

	if (size->num >= 1 && size->num <= 2147483647)
		return true;
	parse_error_tok(p, &end, "array size out of range");
	return false;
}

/* ---- The parser's view of the lexer ---- */

static int yylex(YYSTYPE *lval, YYLTYPE *lloc, struct parser *p)
{
	struct token *tok = lexer_next(p->lx);

	lval->tok = tok;
	lloc->first_line = lloc->last_line = tok->loc.line;
	lloc->first_column = lloc->last_column = tok->loc.col;
	return tok->kind;
}

static void yyerror(YYLTYPE *lloc, struct parser *p, const char *message)
{
	struct token *tok = lookahead_token(p, 0);

	(void)lloc;
	parse_error_tok(p, tok, "%s", message);
}

/* ---- Syntax errors in stap's words ---- */

/* What the parser was in the middle of, read off its state stack. */
struct stack_view {
	yysymbol_kind_t syms[64];	/* the symbols on the stack, top first */
	int n;
};

static void view_stack(const yypcontext_t *ctx, struct stack_view *view)
{
	view->n = 0;
	for (const yy_state_t *s = ctx->yyssp; *s != 0 && view->n < 64; s--)
		view->syms[view->n++] = YY_ACCESSING_SYMBOL(*s);
}

static yysymbol_kind_t sym(int token)
{
	return YYTRANSLATE(token);
}

/* The symbol below the innermost unclosed `open` on the stack, or YYSYMBOL_YYEMPTY. */
static yysymbol_kind_t opened_by(const struct stack_view *view, int open, int close)
{
	int depth = 0;

	for (int i = 0; i < view->n; i++) {
		if (view->syms[i] == sym(close)) {
			depth++;
		} else if (view->syms[i] == sym(open)) {
			if (depth-- == 0)
				return i + 1 < view->n ? view->syms[i + 1] : YYSYMBOL_YYEOF;
		}
	}
	return YYSYMBOL_YYEMPTY;
}

static bool on_stack(const struct stack_view *view, int token)
{
	for (int i = 0; i < view->n; i++)
		if (view->syms[i] == sym(token))
			return true;
	return false;
}

/* The tokens that can continue a complete expression: they don't count in what stap says
 * it expected, since its parser only looks for what has to come next. */
static const int continuations[] = {
	'+', '-', '*', '/', '%', '<', '>', '=', '&', '|', '^', '?', '.', '[', '(',
	INC, DEC, SHL, SHR, USHR, LE, GE, EQ, NE, ANDAND, OROR, MATCH, NOMATCH, ARROW,
	STATS_ADD, ADD_ASSIGN, SUB_ASSIGN, MUL_ASSIGN, DIV_ASSIGN, MOD_ASSIGN, SHL_ASSIGN,
	SHR_ASSIGN, AND_ASSIGN, XOR_ASSIGN, OR_ASSIGN, CAT_ASSIGN, IN, DOLLARS, STRING,
};

struct expected {
	bool set[YYNTOKENS];
	int count;
};

static bool expects(const struct expected *e, int token)
{
	return e->set[sym(token)];
}

/* Exactly these tokens (0-terminated) are expected. */
static bool expects_only(const struct expected *e, const int *tokens)
{
	int n = 0;

	for (; tokens[n]; n++)
		if (!expects(e, tokens[n]))
			return false;
	return n == e->count;
}

#define ONLY(e, ...) expects_only((e), (const int[]){ __VA_ARGS__, 0 })

static void drop_continuations(struct expected *e)
{
	/* More adjacent strings could continue a string literal. */
	if (expects(e, STRING) && e->count > 1) {
		e->set[sym(STRING)] = false;
		e->count--;
	}
	if (!expects(e, '?'))
		return;
	for (size_t i = 0; i < sizeof(continuations) / sizeof(continuations[0]); i++) {
		if (e->set[sym(continuations[i])]) {
			e->set[sym(continuations[i])] = false;
			e->count--;
		}
	}
}

/* A syntax error and how to word it. */
struct verdict {
	const char *message;
	const char *site;		/* see diag_parse_error_site() */
	bool at_label;			/* "at:" rather than "saw:" */
	struct token *shown;		/* the token shown, the look-ahead by default */
};

/* Where an expression or a statement was expected. */
static bool top_is(const struct stack_view *view, int depth, yysymbol_kind_t symbol);

static bool operand_expected(const struct expected *e, const struct stack_view *view,
			     struct token *look, struct verdict *v)
{
	if (!expects(e, NUMBER))
		return false;
	if (look->kind == AT_UNKNOWN && expects(e, IDENT)) {
		v->message = xasprintf("unknown operator %s", look->text);
		return true;
	}
	if (ONLY(e, NUMBER, '-')) {
		v->message = look->kind ? "expected number" : "unexpected end-of-file";
		return true;
	}
	if (ONLY(e, NUMBER)) {
		/* After a minus: a global's initializer and a probe point's argument are
		 * literals, the rest numbers. */
		bool literal = top_is(view, 1, sym('=')) || top_is(view, 1, sym('&')) ||
			       top_is(view, 1, sym(INC)) || top_is(view, 1, sym(DEC)) ||
			       (top_is(view, 1, sym('(')) && top_is(view, 2, sym(COMPONENT)));

		v->message = !look->kind ? "unexpected end-of-file" :
			     literal ? "expected literal string or number" : "expected number";
		return true;
	}
	if (ONLY(e, NUMBER, '-', STRING)) {
		v->message = look->kind ? "expected literal string or number"
					: "unexpected end-of-file";
		return true;
	}
	if (expects(e, IF) && (!look->kind || is_keyword(look->kind) ||
				 (look->kind == OTHER && look->what)))
		v->message = "expected statement";
	else
		v->message = look->kind ? "expected literal string or number" : "expected value";
	return true;
}

/* After a probe point. */
static bool point_expected(const struct expected *e, struct token *look, struct verdict *v)
{
	if (!expects(e, ',') || (!expects(e, '{') && !expects(e, '}')))
		return false;
	/* In a {a,b} group. */
	if (!expects(e, '{') &&
	    (look->kind == '=' || look->kind == ADD_ASSIGN || look->kind == '{')) {
		v->message = "expected '}'";
		return true;
	}
	if (look->kind == '}' ||
	    ((look->kind == '=' || look->kind == ADD_ASSIGN) && !expects(e, '=')))
		v->message = "expected probe point specifier";
	else
		v->message = "expected one of ', { } = +='";
	return true;
}

/* One or two tokens that had to come next, worded for the construct. */
static const char *closing_expected(const struct expected *e, const struct stack_view *view)
{
	yysymbol_kind_t call = opened_by(view, '(', ')');
	yysymbol_kind_t index = opened_by(view, '[', ']');

	if (ONLY(e, ')', ',')) {
		if (call == sym(IDENT))
			return "expected one of ') ,'";
		if (call == sym(PRINT) || call == sym(PRINTLN) || call == sym(PRINTF) ||
		    call == sym(PRINTD))
			return "expected one of ', )'";
		if (call == sym(AT_STAT))
			return "unexpected end-of-file";
		if (call == sym(AT_CAST) || call == sym(AT_VAR))
			return "expected ')'";
		return "expected ',' or ')'";
	}
	if (ONLY(e, ')', ',', ':'))
		return "expected ',' or ')'";
	if (ONLY(e, ']', ',')) {
		/* An index, or a list of keys: [k1, k2] in a, foreach ([k1, k2] ...), a[*, k] */
		if (index == sym(IDENT) || index == YYSYMBOL_hist)
			return "expected one of '] ,'";
		return "expected ',' or ']'";
	}
	if (ONLY(e, ')'))
		return "expected ')'";
	if (ONLY(e, ']'))
		return "expected ']'";
	if (ONLY(e, ';'))
		return "expected ';'";
	if (ONLY(e, ':'))
		return "expected ':'";
	if (ONLY(e, ','))
		return "expected ','";
	if (ONLY(e, IN))
		return "expected 'in'";
	if (ONLY(e, '('))
		return "expected '('";
	if (ONLY(e, '{') || ONLY(e, '{', EMBEDDED) || ONLY(e, '{', EMBEDDED, ':'))
		return "expected '{'";
	if (ONLY(e, '{', '('))
		return "expected '{'";
	if (ONLY(e, '(', ':'))
		return "expected '('";
	if (ONLY(e, CATCH))
		return "expected 'catch'";
	if (ONLY(e, STRING_KW, LONG_KW))
		return "expected 'string' or 'long'";
	if (ONLY(e, STRING))
		return on_stack(view, AT_CAST) || on_stack(view, AT_VAR) ||
		       top_is(view, 1, YYSYMBOL_const_kw) ?
			"expected string" : "expected literal string";
	if (expects(e, GLOBAL) && expects(e, FUNCTION) && expects(e, IDENT))
		return "expected 'function' or identifier";
	if (ONLY(e, '+', '-'))
		return "expected sort directive";
	if (expects(e, AT_HIST_LOG) && expects(e, AT_UNKNOWN))
		return "expected identifier or statistical operation";
	if (expects(e, COMPONENT))
		return "expected identifier or '*' or '{'";
	if (expects(e, IDENT) && expects(e, CATCH))
		return "expected identifier or keyword";
	if (expects(e, IDENT))
		return "expected identifier";
	if (expects(e, ')') && expects(e, LIMIT))
		return "expected ')'";
	return NULL;
}

static bool top_is(const struct stack_view *view, int depth, yysymbol_kind_t symbol)
{
	return depth < view->n && view->syms[depth] == symbol;
}

/*
 * At the end of the file, stap names the last token rather than the end when it read the
 * next token right after that one, without peeking: after a keyword or an operator that
 * must be followed by something in particular.
 */
static bool end_shows_previous(const struct stack_view *view, const struct token *prev)
{
	static const int tokens[] = {
		PROBE, IF, FOR, WHILE, FOREACH, TRY, IN, ARROW, MATCH, NOMATCH, AT_CAST, AT_VAR,
		AT_DEFINED, AT_ENTRY, AT_PROBEWRITE, AT_STAT, AT_HIST_LINEAR, AT_HIST_LOG, PRINT,
		PRINTLN, PRINTF, PRINTD,
	};

	if (top_is(view, 0, sym(IF)) && top_is(view, 1, YYSYMBOL_point_mark))
		return false;
	if (top_is(view, 0, sym(IN)) && top_is(view, 1, YYSYMBOL_foreach_vars))
		return false;
	for (size_t i = 0; i < sizeof(tokens) / sizeof(tokens[0]); i++)
		if (top_is(view, 0, sym(tokens[i])))
			return true;
	if (top_is(view, 0, YYSYMBOL_name))
		return top_is(view, 1, sym(FUNCTION)) || top_is(view, 2, YYSYMBOL_type_opt) ||
		       top_is(view, 2, YYSYMBOL_params) || top_is(view, 2, sym(CATCH));
	if (top_is(view, 0, YYSYMBOL_literal_arg))
		return prev && prev->kind == NUMBER && top_is(view, 2, sym(COMPONENT));
	if (top_is(view, 0, sym('=')))
		return top_is(view, 1, YYSYMBOL_global_name);
	return false;
}

/* The initializer and the increment of a for loop. */
static bool in_for_clause(const struct stack_view *view)
{
	return (top_is(view, 0, sym('(')) && top_is(view, 1, sym(FOR))) ||
	       (top_is(view, 0, sym(';')) && top_is(view, 2, sym(';')) &&
		top_is(view, 5, sym(FOR)));
}

/* In the `if (...)` of a probe point. */
static bool in_point_condition(const struct stack_view *view)
{
	for (int i = 0; i + 1 < view->n; i++)
		if (view->syms[i] == sym(IF) && view->syms[i + 1] == YYSYMBOL_point_mark)
			return true;
	return false;
}

/* Whether stap had only peeked at the token it did not expect (and so resumes at it). */
static bool peeked(const char *message, const struct stack_view *view)
{
	static const char *const peeking[] = {
		"expected statement", "expected one of ', { } = +='", "expected ',' or ']'",
		"expected sort directive",
	};

	for (size_t i = 0; i < sizeof(peeking) / sizeof(peeking[0]); i++)
		if (!strcmp(message, peeking[i]))
			return true;
	return in_point_condition(view) &&
	       (!strcmp(message, "expected '('") || !strcmp(message, "expected ')'"));
}

/* What stap says when the file ends where `message` was expected. */
static const char *at_end(const char *message, const struct stack_view *view)
{
	static const char *const kept[] = {
		"expected value", "expected statement", "expected one of ', { } = +='",
		"expected ',' or ']'", "expected sort directive",
		"unexpected comma-separated expression list",
	};
	bool in_condition = in_point_condition(view);
	if (!strcmp(message, "expected value") && in_for_clause(view))
		return "expression statement expected";
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		if (!strcmp(message, kept[i]))
			return message;
	if (in_condition && (!strcmp(message, "expected '('") || !strcmp(message, "expected ')'")))
		return message;
	return "unexpected end-of-file";
}

/* Whether the [...] that ends just before `look` has more than one element. */
static bool bare_list_has_commas(struct parser *p, struct token *look)
{
	int depth = 0;

	for (struct token *tok = handed_before(p, look, 2); tok; tok = handed_before(p, tok, 1)) {
		if (tok->kind == ']' || tok->kind == ')')
			depth++;
		else if ((tok->kind == '[' || tok->kind == '(') && depth-- == 0)
			return false;
		else if (tok->kind == ',' && depth == 0)
			return true;
	}
	return false;
}

static void judge(struct parser *p, const yypcontext_t *ctx, struct verdict *v)
{
	struct token *look = lexer_last(p->lx);
	yysymbol_kind_t tokens[YYNTOKENS];
	struct expected e = { 0 };
	struct stack_view view;
	int n = yypcontext_expected_tokens(ctx, tokens, YYNTOKENS);

	v->shown = look;
	if (look->kind == JUNK && look->reported) {
		v->message = NULL;
		return;
	}
	if (look->kind == JUNK) {
		v->message = look->error;
		v->at_label = true;
		return;
	}
	for (int i = 0; i < n; i++)
		e.set[tokens[i]] = true;
	e.count = n;
	view_stack(ctx, &view);
	if (top_is(&view, 0, sym(']')) && top_is(&view, 1, YYSYMBOL_in_keys) &&
	    !expects(&e, '/') && bare_list_has_commas(p, look)) {
		/* [k1, k2] without the `in` that has to follow. */
		v->message = "unexpected comma-separated expression list";
		return;
	}
	if (expects(&e, OTHER)) {
		/* Only the end stops stap skipping what follows @count(x. */
		v->message = "unexpected end-of-file";
		if (top_is(&view, 0, YYSYMBOL_any_token))
			v->shown = handed_before(p, look, 1);
		return;
	}
	if (top_is(&view, 0, YYSYMBOL_return_kw)) {
		/* stap reads a value after `return` unless `;` or `}` follows. */
		v->message = look->kind ? "expected literal string or number" : "expected value";
		return;
	}
	if (top_is(&view, 0, YYSYMBOL_hist) && !top_is(&view, 1, sym(IN))) {
		if (top_is(&view, 1, sym('(')) &&
		    (top_is(&view, 2, sym(PRINT)) || top_is(&view, 2, sym(PRINTLN)))) {
			v->message = "expected ')'";
		} else {
			/* Not a value unless indexed. */
			v->message = "base histogram operator where expression expected";
			v->at_label = true;
			v->shown = enclosing_operator(p, handed_before(p, look, 1));
		}
		return;
	}
	if (expects(&e, PROBE) && expects(&e, 0)) {
		v->message = "expected 'probe', 'global', 'private', 'function', or '%{'";
		return;
	}
	if (operand_expected(&e, &view, look, v))
		return;
	if (point_expected(&e, look, v))
		return;
	drop_continuations(&e);
	if (expects(&e, IDENT) && expects(&e, CATCH)) {
		v->message = "expected identifier or keyword";
		return;
	}
	if (expects(&e, IN) && !expects(&e, '?')) {
		v->message = "expected 'in'";
		return;
	}
	if (expects(&e, ']') && expects(&e, ',') && expects(&e, '+')) {
		v->message = "expected ',' or ']'";
		return;
	}
	if (expects_only(&e, (const int[]){ ')', '+', '-', AT_STAT, LIMIT, '[', 0 }) ||
	    expects_only(&e, (const int[]){ ')', '+', '-', AT_STAT, LIMIT, 0 })) {
		v->message = look->kind >= AT_CAST && look->kind <= AT_UNKNOWN ?
			     "expected statistical operation" : "expected ')'";
		return;
	}
	v->message = closing_expected(&e, &view);
	if (!v->message)
		v->message = "syntax error";
}

/* The nearest of `tokens` (0-terminated) down the stack, or 0. */
static int nearest(const struct stack_view *view, const int *tokens)
{
	for (int i = 0; i < view->n; i++)
		for (int j = 0; tokens[j]; j++)
			if (view->syms[i] == sym(tokens[j]))
				return tokens[j];
	return 0;
}

#define NEAREST(view, ...) nearest((view), (const int[]){ __VA_ARGS__, 0 })

/* Where in stap's parser the error would come from, for telling repeated errors apart. */
static const char *site_of(const char *message, const struct stack_view *view)
{
	if (!strcmp(message, "expected '('")) {
		int kind = NEAREST(view, IF, WHILE, FOR, FOREACH, FUNCTION);

		return kind == IF ? "if" : kind == WHILE ? "while" : kind == FOR ? "for" :
		       kind == FOREACH ? "foreach" : kind == FUNCTION ? "function" : "@op";
	}
	if (!strcmp(message, "expected ')'")) {
		yysymbol_kind_t below = opened_by(view, '(', ')');

		if (below == sym(IF) || below == sym(WHILE) || below == sym(FOR) ||
		    below == sym(FOREACH) || below == sym(CATCH) || below == sym(AT_HIST_LOG) ||
		    below == sym(COMPONENT))
			return yysymbol_name(below);
		if (below == sym(AT_CAST) || below == sym(AT_VAR))
			return "cast";
		return "paren";
	}
	if (!strcmp(message, "expected ';'"))
		return top_is(view, 1, sym('(')) ? "for-init" : "for-cond";
	if (!strcmp(message, "expected identifier")) {
		int kind = NEAREST(view, GLOBAL, PRIVATE, FUNCTION, FOREACH, CATCH, AT_PROBEWRITE, '(');

		if (kind == '(')
			kind = NEAREST(view, GLOBAL, PRIVATE, FUNCTION, FOREACH, CATCH, AT_PROBEWRITE);
		else if (kind == FUNCTION)
			return "function";
		return kind == PRIVATE ? "global" : kind == FUNCTION ? "param" :
		       kind ? yysymbol_name(sym(kind)) : NULL;
	}
	if (!strcmp(message, "expected 'string' or 'long'"))
		return NEAREST(view, '(', FUNCTION) == '(' ? "param" : "function";
	return NULL;
}

static int yyreport_syntax_error(const yypcontext_t *ctx, struct parser *p)
{
	struct verdict v = { 0 };

	struct stack_view view;

	judge(p, ctx, &v);
	if (!v.message) {
		p->keep_error_token = true;
		return 0;
	}
	view_stack(ctx, &view);
	if (!v.shown->kind) {
		v.message = at_end(v.message, &view);
		if (!strcmp(v.message, "unexpected end-of-file") &&
		    end_shows_previous(&view, handed_before(p, v.shown, 1)))
			v.shown = handed_before(p, v.shown, 1);
	}
	p->keep_error_token = peeked(v.message, &view);
	/* stap gives up at this error, even where it is no end of file (@count(s }). */
	p->gave_up = !strcmp(v.message, "unexpected end-of-file");
	{
		struct token_desc desc = describe(p, v.shown);

		diag_parse_error_site(site_of(v.message, &view), v.at_label ? "at:" : "saw:",
				      &desc, token_loc(v.shown), "%s", v.message);
	}
	if (!strncmp(v.message, "unknown operator ", 17))
		free((char *)v.message);
	return 0;
}

/* ---- Pass 1 ---- */

struct file *parse_source(struct source *source, const struct parse_options *options)
{
	struct parser p = { .options = options, .source = source, .keep_error_token = true };
	int errors = diag_error_count();
	int status;

	p.lx = lexer_new(source, options);
	p.file = new_object(&p, sizeof(*p.file), free);
	p.file->source = source;
	lexer_skip_leading_errors(p.lx);
	if (!lexer_peek(p.lx)->kind && !source->is_tapset) {
		/* Not a parse error: stap says so and fails. */
		fprintf(stderr, "Input file '%s' is empty%s.\n", source->name,
			lexer_any_token(p.lx) ? " after preprocessing" : "");
		source->found_empty = true;
		status = 1;
	} else {
		status = yyparse(&p);
	}
	bool ok = status == 0 && diag_error_count() == errors &&
		  (source->is_tapset || !lexer_library_failed(p.lx));

	for (int i = 0; i < p.nowned; i++)
		if (!ok || p.owned[i].temporary)
			p.owned[i].free_fn(p.owned[i].ptr);
	free(p.owned);
	if (ok)
		p.file->expansions = lexer_take_expansions(p.lx);
	lexer_free(p.lx);
	return ok ? p.file : NULL;
}
