/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pass 3: the elaborated program as the C source of a kernel module.
 *
 * translate.c lays the module out (frames, functions, probe handlers, probe tables);
 * translate_code.c turns expressions into C, translate_stmt.c statements. This header is
 * their shared state; no other pass includes it.
 */
#ifndef TAPSTER_TRANSLATE_H
#define TAPSTER_TRANSLATE_H

#include <stdio.h>

#include "cstr.h"
#include "resolve/program.h"
#include "util.h"

struct session;
struct regex_table;

/* Writes the module's C source to `out`; returns the number of errors. */
int translate(struct session *session, struct program *program, FILE *out);

/* The body being generated: a probe handler, a probe's entry handler, or a function. */
struct body {
	struct strbuf code;		/* statements so far */
	struct strbuf *sink;		/* where emit() writes: &code or a branch's buffer */
	struct strbuf fields;		/* temporaries to add to the frame struct */
	struct strbuf c_locals;		/* numeric temporaries: C locals of the function */
	int ntemps;
	int framed_calls;		/* calls so far that use the callees' frame level */
	int nlabels;
	int pending_actions;		/* statements not yet taken from MAXACTION */
	bool charged_actions;		/* it takes from MAXACTION somewhere */
	int indent;
	int break_label, continue_label;	/* of the innermost loop, 0 outside loops */
	int catch_label;		/* where a runtime error goes: catch_N in a try, 0: out */
	int condition;			/* a conditional kprobe probe's number, else 0 */
	struct derived_probe *probe;	/* NULL in functions */
	bool in_entry_handler;		/* evaluating @entry expressions at function entry */
	struct used_function *function;	/* NULL in probes */
	char *locks;			/* the table of the locks a probe body holds (its
					 * globals'), or NULL when it uses none */
	int nlocks;
	char *merges;			/* the merges of its sharded globals' parts, after the
					 * locks */
	bool writes_conditions;		/* it may write a global of a kprobe condition */
	struct regex_table *regexes;	/* the module's patterns (regex_table.h) */
	/* The globals that conditions of kprobe probes read: a write to one is noted in the
	 * context, and the probe asks the runtime to look at the conditions again. */
	const struct var *const *condition_globals;
	int ncondition_globals;
};

void emit(struct body *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Whether C code names `word` as an identifier. */
bool names_identifier(const char *code, const char *word);
/* An embedded-C function that never names its context (CONTEXT, or c itself), STAP_ERROR
 * nor a memory macro of runtime/loc2c.h (kread ...) cannot set an error: its call needs no
 * check after it. */
bool cannot_fail(const struct used_function *f);
/* A function that cannot fail, of numbers only (its parameters and value): its frame is
 * the caller's C local, given as `l`, not a level of the context's frames. */
bool frameless(const struct used_function *f);

/* A C expression of the node's value: int64_t for longs, const char * for strings. */
char *gen_expr(struct body *b, struct node *n);
void gen_stmt(struct body *b, struct node *n);
/* Evaluates nodes[0..n) left to right into exprs[] (translate_code.c's top comment). */
void gen_operands(struct body *b, struct node **nodes, int n, char **exprs);
/* print and its kin (translate_print.c); a histogram's drawing (translate_code.c). */
char *gen_print(struct body *b, struct node *n);
char *gen_hist_print(struct body *b, struct node *n);

/* A new temporary of the body's frame (its C name), and the check after an operation
 * that may fail: to the catch of a try, else out of the body. */
char *body_temp(struct body *b, enum type type);
void body_check_error(struct body *b);

/* Names in the generated C. */
char *var_ref(const struct var *v);	/* l->v_x or tap_g_x */

#endif
