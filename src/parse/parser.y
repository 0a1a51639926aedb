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
 *
 * The grammar and its short actions are here; the helpers the actions call are in actions.c,
 * the wording of syntax errors in syntax.c (grammar.h declares both).
 */

%code requires {
#include "parse/lexer.h"

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
#include "parse/grammar.h"
#include "util.h"

static int yylex(YYSTYPE *lval, YYLTYPE *lloc, struct parser *p);
static void yyerror(YYLTYPE *lloc, struct parser *p, const char *message);

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
	/* A script body with the marks of embedded C before it, an empty %{ %} holding
	 * only its comment tags (the library's "privileged" ones): judged by them as
	 * embedded C is. */
	| name type_opt '(' params_opt ')' priority_opt EMBEDDED block
		{
			check_embedded(p, $7, false, LOOKAHEAD);
			$$ = function_new(p, $1, $2, $4, $8, $7);
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
	| '(' expr ')'			{ $$ = $2; $$->open_paren = $1->loc; }
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

/* ---- Syntax errors: what syntax.c words them from ---- */

_Static_assert(YYNTOKENS <= GRAMMAR_MAX_TOKENS, "a syntax_context holds every token");

const struct grammar_symbols grammar_symbols = {
	.eof = YYSYMBOL_YYEOF, .empty = YYSYMBOL_YYEMPTY, .any_token = YYSYMBOL_any_token,
	.const_kw = YYSYMBOL_const_kw, .foreach_vars = YYSYMBOL_foreach_vars,
	.global_name = YYSYMBOL_global_name, .hist = YYSYMBOL_hist, .in_keys = YYSYMBOL_in_keys,
	.literal_arg = YYSYMBOL_literal_arg, .name = YYSYMBOL_name, .params = YYSYMBOL_params,
	.point_mark = YYSYMBOL_point_mark, .return_kw = YYSYMBOL_return_kw,
	.type_opt = YYSYMBOL_type_opt,
};

int grammar_symbol(int token)
{
	return YYTRANSLATE(token);
}

const char *grammar_symbol_name(int symbol)
{
	return yysymbol_name((yysymbol_kind_t)symbol);
}

static int yyreport_syntax_error(const yypcontext_t *ctx, struct parser *p)
{
	struct syntax_context context;
	yysymbol_kind_t tokens[YYNTOKENS];

	context.nexpected = yypcontext_expected_tokens(ctx, tokens, YYNTOKENS);
	for (int i = 0; i < context.nexpected; i++)
		context.expected[i] = tokens[i];
	context.nstack = 0;
	for (const yy_state_t *s = ctx->yyssp; *s != 0 && context.nstack < GRAMMAR_STACK_VIEW; s--)
		context.stack[context.nstack++] = YY_ACCESSING_SYMBOL(*s);
	report_syntax_error(p, &context);
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
