/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The syntax tree of a stap script: what pass 1 produces and every later pass reads.
 *
 * Expressions and statements share one node type (as in chibicc): `kind` says what the node
 * is and which of the named child slots it uses. Top-level declarations (probes, aliases,
 * functions, globals, embedded C) have their own structs. Pass 2 fills the annotation fields
 * at the end of each struct; pass 1 leaves them zero.
 */
#ifndef TAPSTER_AST_H
#define TAPSTER_AST_H

#include <stdbool.h>
#include <stdint.h>

#include "diag.h"

/* Value types, as pass 2 infers them. */
enum type {
	TYPE_UNKNOWN = 0,
	TYPE_LONG,
	TYPE_STRING,
	TYPE_STATS,	/* a statistics aggregate, fed with <<< */
	TYPE_VOID,	/* a function that returns nothing */
};

const char *type_name(enum type type);	/* "long", "string", "stats", "unknown", "void" */

enum node_kind {
	/* Expressions. */
	N_NUMBER,	/* num; text = the literal as written */
	N_STRING,	/* text = the value, escapes decoded, adjacent literals joined */
	N_IDENT,	/* text = name: a local, global or probe-alias variable */
	N_TARGET,	/* $name or $$vars...: text = "$name"; comps = ->field / [i]; suffix */
	N_CALL,		/* text = function name; args */
	N_PRINT,	/* print family: text = "printf", "println", "sprintf", ...; args */
	N_INDEX,	/* lhs = array (N_IDENT) or histogram; args = keys ("*" slices are N_STAR) */
	N_STAR,		/* the `*` of an array slice */
	N_UNARY,	/* op in '-' '+' '!' '~' '&' (address of); lhs */
	N_PREINC,	/* op is OP_INC or OP_DEC; lhs */
	N_POSTINC,	/* op is OP_INC or OP_DEC; lhs */
	N_BINARY,	/* op: arithmetic, bit, shift, comparison, logical, '.', regex; lhs, rhs */
	N_ASSIGN,	/* op: '=' or a compound operator or OP_STATS_ADD (<<<); lhs, rhs */
	N_TERNARY,	/* cond ? then : els */
	N_IN,		/* args = keys; lhs = array */
	N_STATOP,	/* @count(x) ...: text = "count", "sum", ...; lhs */
	N_HIST,		/* @hist_linear(s, lo, hi, step) / @hist_log(s): text; lhs; args = bounds */
	N_ENTRY,	/* @entry(expr): lhs */
	N_DEFINED,	/* @defined(expr): lhs */
	N_PROBEWRITE,	/* @probewrite(var): lhs */
	N_CAST,		/* @cast(expr, "type"[, "module"]): lhs; text = type; module; comps;
			 * text NULL: an autocast, `expr->field` / `(expr)[i]` on a value
			 * that is not a $target (printed "(expr)->field") */
	N_ATVAR,	/* @var("name"[, "module"]): text; module; comps */
	N_EMBEDDED_EXPR, /* %{ code %} used as an expression: text = code */
	N_REGISTER,	/* @kregister(N) / @uregister(N): text = "@kregister"/"@uregister"; num */
	N_DEREF,	/* @kderef(SIZE, ADDR) / @uderef(...): text = "@kderef"/"@uderef";
			 * num = SIZE (as a 32-bit unsigned value); lhs = ADDR */
	N_PERF,		/* @perf("NAME"): text = "@perf"; lhs = the N_STRING NAME */

	/* Statements. */
	N_BLOCK,	/* body = statement list */
	N_NULL,		/* a lone ';' */
	N_EXPR_STMT,	/* lhs = the expression */
	N_IF,		/* cond, then, els (may be NULL) */
	N_WHILE,	/* cond, then = body */
	N_FOR,		/* init, cond, inc (each may be NULL), then = body */
	N_FOREACH,	/* see struct foreach below */
	N_BREAK,
	N_CONTINUE,
	N_NEXT,		/* num 1: the one pass 2 puts in a conditional probe's guard */
	N_RETURN,	/* lhs = value or NULL */
	N_DELETE,	/* lhs = what is deleted */
	N_TRY,		/* then = try block, els = catch block; text = catch variable or NULL,
			 * lhs = an N_IDENT naming it there (pass 2 leaves its sym NULL) */
	N_EMBEDDED_STMT, /* %{ code %} as a statement (guru mode): text = code */
};

/* Operators of N_UNARY/N_BINARY/N_ASSIGN/N_PREINC/N_POSTINC. Single-character operators are
 * their character; the others follow. */
enum op {
	OP_INC = 256,	/* ++ */
	OP_DEC,		/* -- */
	OP_SHL,		/* << */
	OP_SHR,		/* >> */
	OP_LE,		/* <= */
	OP_GE,		/* >= */
	OP_EQ,		/* == */
	OP_NE,		/* != */
	OP_ANDAND,	/* && */
	OP_OROR,	/* || */
	OP_MATCH,	/* =~ */
	OP_NOMATCH,	/* !~ */
	OP_STATS_ADD,	/* <<< */
	OP_USHR,	/* >>> (unsigned shift right) */
	/* Compound assignment: the binary operator it applies, plus OP_ASSIGN_BASE. */
	OP_ASSIGN_BASE = 1024,
};

const char *op_text(int op);	/* "+", "<=", "+=", "<<<", ... as written in a script */

struct node;
/* How stap names the token of a node in a message: number '1', identifier 'x', operator '+'. */
struct token_desc node_token(const struct node *n);
/* The node of an expression's first token (a binary expression's left operand's, ...):
 * where stap locates a statement made of it. */
const struct node *node_first_leaf(const struct node *n);
/* An expression's first token as written: its first leaf's, or the '(' that opens it (as
 * `(a) + 1`), and where it is. */
struct token_desc node_first_token(const struct node *n, struct loc *loc);
/* The variable an assignment (<<< too), ++, -- or delete changes, itself or the array of an
 * element: its N_IDENT; NULL for any other node. */
const struct node *node_changed_var(const struct node *n);

/* A `->field` or `[index]` after a $target, @cast or @var. */
struct target_comp {
	enum { COMP_FIELD, COMP_INDEX_NUM, COMP_INDEX_EXPR } kind;
	char *field;			/* COMP_FIELD */
	int64_t index;			/* COMP_INDEX_NUM */
	struct node *index_expr;	/* COMP_INDEX_EXPR */
	struct loc loc;
	struct target_comp *next;
};

struct node_list {
	struct node **items;
	int len, cap;
};

void node_list_push(struct node_list *list, struct node *node);

/* foreach ([k1, k2] in arr[- or +] limit N) / foreach (v = [k] in arr ...). */
struct foreach {
	struct node_list keys;	/* N_IDENT loop variables */
	struct node *value;	/* N_IDENT for `v = [...] in`, or NULL */
	struct node *array;	/* N_IDENT, or N_HIST for foreach over histogram buckets */
	struct node_list slice;	/* arr[*, 5] slice keys, empty when none */
	int sort_column;	/* 0: none; 1..n: key n; -1: the value */
	int sort_direction;	/* +1 ascending, -1 descending, 0 none */
	char *sort_aggregate;	/* "count", "sum", ... for @sum- style, else NULL */
	struct node *limit;	/* or NULL */
	struct node *body;
};

struct node {
	enum node_kind kind;
	struct loc loc;		/* where the node's first token (or its operator) is */
	int op;			/* enum op, or an operator character */
	char *text;		/* per kind, see enum node_kind */
	char *raw;		/* N_STRING: the value with its escapes as written ("\\x41"),
				 * which is how -p1 prints it; N_CALL: the name its errors give,
				 * when not `text` (procfs probes' $value, target_procfs.c) */
	int64_t num;
	struct node *lhs, *rhs;
	struct node *cond, *then, *els;
	struct node *init, *inc;
	struct node_list args;	/* call arguments, index keys, bounds */
	struct node_list body;	/* N_BLOCK statements */
	struct target_comp *comps; /* N_TARGET, N_CAST, N_ATVAR */
	char *suffix;		/* N_TARGET: "$" or "$$" pretty-printing suffix, or NULL */
	char *module;		/* N_CAST, N_ATVAR: module argument or NULL */
	char *module_raw;	/* ... as written (escapes kept), for -p1; `raw` holds the
				 * type or name as written */
	struct foreach *foreach; /* N_FOREACH */

	struct loc open_paren;	/* where the outermost '(' written around it is; line 0 when
				 * it has none */
	int depth;		/* N_BINARY: levels of binary operators it holds (pass 1 bounds
				 * it, so that nothing recursing over a tree runs out of stack) */

	/* Pass 2 annotations. */
	enum type type;
	void *sym;		/* resolved variable or function */
	bool address_of;	/* N_TARGET, N_CAST: the operand of '&', whose value is the
				 * address of what it names */
	int entry_slot;		/* N_ENTRY: index of the saved value in the return probe */
	/* N_TARGET, N_CAST, N_ATVAR: 1 + its place among the probe body's target reads and
	 * writes of its kind, which stap makes functions of and -p2 lists
	 * (synth_functions.c); 0 before they are counted, -1 for one -p2 does not list (a
	 * value of $$vars$, a copy of a pretty-printed @cast's operand). */
	int synth_seq;
	/* 1: the sprintf a pretty-printed $x$ became; 2: a value it reads (then synth_seq
	 * counts it as such); 0 otherwise. */
	signed char synth_pretty;
	/* What pass 2 resolved here and then dropped, which stap numbers all the same, in
	 * its order: @defined's operand when it is defined (the node is then its 1), the
	 * folded conditions that held such a @defined. Shared by copies of the node: never
	 * changed in place, never freed. */
	struct node_list synth_dropped;
};

/* One source text: the user script, a -e one-liner ("<input>") or a tapset file. */
struct source {
	char *name;		/* as shown in messages: "seed.stp", "<input>", a tapset path */
	char *text;		/* NUL-terminated contents */
	long len;
	bool is_tapset;
	bool found_empty;	/* pass 1 said "Input file '...' is empty", which stap says
				 * instead of counting the parse errors */
};

/* probe point component: name, or name("literal") / name(number). */
struct component {
	char *name;		/* may contain * or ** wildcards */
	struct node *arg;	/* N_STRING or N_NUMBER, or NULL */
	struct loc loc;
	struct component *next;
};

struct probe_point {
	struct component *components;
	bool optional;		/* trailing ? */
	bool sufficient;	/* trailing ! */
	struct node *cond;	/* `if (expr)`, or NULL */
	struct loc loc;
};

struct probe_point_list {
	struct probe_point **items;
	int len, cap;
};

void probe_point_list_push(struct probe_point_list *list, struct probe_point *point);

enum probe_kind {
	PROBE_PLAIN,		/* probe p1, p2 { } */
	PROBE_ALIAS,		/* probe a = p1, p2 { }   (prologue) */
	PROBE_ALIAS_EPILOGUE,	/* probe a += p1 { } */
	PROBE_ALIAS_SUBTRACT,	/* probe a -= p1 { } */
};

struct probe {
	enum probe_kind kind;
	struct probe_point_list aliases;	/* the names an alias defines (kind != PROBE_PLAIN) */
	struct probe_point_list points;		/* what is probed */
	struct node *body;			/* N_BLOCK */
	struct loc loc;				/* the `probe` keyword */
	/* probe a = p { prologue }, { epilogue }: the block run after the body of a probe on
	 * the alias (N_BLOCK), or NULL. -p1 does not show it, as in stap. */
	struct node *epilogue;
	bool is_private;
	struct probe *next;
};

struct param {
	char *name;
	enum type type;		/* as declared with :long / :string, else TYPE_UNKNOWN */
	struct loc loc;
	struct param *next;
};

struct function {
	char *name;
	enum type ret;		/* as declared with name:long, else TYPE_UNKNOWN */
	struct param *params;
	int nparams;
	struct node *body;	/* N_BLOCK for a script body, or NULL ... */
	char *embedded;		/* ... the %{ C %} body */
	char *pragmas;		/* the comment tags of the embedded body or marks, or NULL */
	struct loc loc;		/* the function's name */
	bool is_private;
	bool marked;		/* a script body with embedded C's marks before it (tapsets) */
	struct function *next;
};

/* The most keys an array takes (runtime/maps.h's TAP_MAX_KEYS is the same). */
#define MAX_ARRAY_KEYS 32

struct global {
	char *name;
	struct node *init;	/* N_NUMBER or N_STRING initializer, or NULL */
	bool is_array;		/* declared with [N] or used as an array (pass 2) */
	int64_t max_entries;	/* global a[N]; 0 when not given */
	bool wrap;		/* global a%[N] or a% */
	bool is_private;
	struct loc loc;
	struct global *next;

	/* Pass 2 annotations. */
	enum type type;
	enum type key_types[MAX_ARRAY_KEYS];
	int nkeys;
	bool used;
};

struct embed {
	char *code;		/* top-level %{ ... %} */
	struct loc loc;
	struct embed *next;
};

/* Everything one source file declares, in source order within each list. */
struct file {
	struct source *source;
	bool own_library;		/* a file of tapster's own library (session.h) */
	struct probe *probes;		/* plain probes and aliases, in order */
	struct function *functions;
	struct global *globals;
	struct embed *embeds;
	struct file *next;
	/* The macro invocations the locations in this file's tree may point to (struct loc's
	 * `expansion`), owned by the file. */
	struct expansion *expansions;
};

/* Constructors and helpers (ast.c). */
struct node *node_new(enum node_kind kind, struct loc loc);
struct node *node_number(int64_t value, const char *text, struct loc loc);
struct node *node_string(const char *value, struct loc loc);
struct node *node_binary(int op, struct node *lhs, struct node *rhs, struct loc loc);

/* Whether the embedded-C function `f` has the tag `tag` (pure, pragma:regparm ...). */
bool function_has_pragma(const struct function *f, const char *tag);

/* Frees a node with everything below it; file_free() frees a list of files (not their
 * sources). */
void node_free(struct node *node);
void file_free(struct file *file);

#endif
