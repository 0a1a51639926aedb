/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the lexer of pass 1: the state its layers share. The scanner and the token layer
 * are in lexer.l, the preprocessor (arguments, macros, conditionals) in preprocess.c; the
 * parser sees the lexer through parser.h only.
 */
#ifndef TAPSTER_PARSE_PREPROCESS_H
#define TAPSTER_PARSE_PREPROCESS_H

#include <stdbool.h>

#include "parse/parser.h"

/* Where the layer is in a probe point list, which it lexes differently: a component name is
 * every identifier, keyword, `*` and $name written together ("kernel", "sys_*", "a**b"). */
enum point_state {
	POINT_OFF,	/* not in a probe point list */
	POINT_NAME,	/* a component name comes next */
	POINT_AFTER,	/* after a component name */
	POINT_ARGS,	/* inside a component's (argument) */
	POINT_COND,	/* inside the `if (...)` of a probe point */
};

struct macro;
struct activation;
struct macro_library;
struct pp_frame;

struct lexer {
	struct source *source;
	const struct parse_options *options;
	struct token *all;		/* every token made, freed by lexer_free() */
	char *eof_what;			/* "<input> EOF" */

	/* The scanner and the argument substitution. */
	struct scanner *main;
	bool at_end;			/* the scanner has reached the end ... */
	struct loc end_loc;		/* ... there */
	bool any_token;			/* the source has a token, if only of %( %) */
	struct scanner *arg;		/* the $N argument being substituted */
	struct token *arg_site;		/* and its $N token */
	bool arg_first;

	/* The macros. */
	struct macro **macros;		/* defined in this file, by @define */
	int nmacros;
	const struct macro_library *library;	/* of the .stpm files, or NULL */
	bool library_file;		/* this is a .stpm file */
	struct activation *expanding;	/* the innermost macro being expanded, or NULL */
	struct macro *all_macros;	/* every macro and argument made, for freeing */
	struct activation *all_activations;
	struct expansion *expansions;	/* the invocations tokens were expanded from */

	/* The conditionals. */
	struct pp_frame *pp_stack;	/* the conditionals open, innermost last */
	int pp_depth, pp_cap;
	int quiet;			/* skipping a branch: errors are not reported */
	struct token *last_out;		/* the last token passed on to the parser */

	/* Cooking. */
	struct token *raw_back;		/* a token read ahead while joining a name */
	enum point_state point;
	int cond_depth;			/* parentheses open in the `if (...)` of a point */
	int brace_depth;		/* {a,b}.c groups of probe points */
	bool in_function;		/* since the last `function` (and no `probe`) */
	int prev_kind;			/* of the last token cooked */

	/* The parser's side. */
	struct token **queue;		/* tokens read ahead or put back, next first */
	int nqueue, queue_cap;
	struct token **handed;		/* the tokens lexer_next() returned, in order */
	int nhanded, handed_cap;
};

/* A new token, freed with the lexer (lexer.l). */
struct token *new_token(struct lexer *lx);

/* The preprocessor (preprocess.c). */
/* The tokens of the script with its arguments substituted, macros expanded and
 * conditionals resolved. */
struct token *pp_next(struct lexer *lx);
/* The macros of the .stpm files of `options`, read on first use; NULL when there are none. */
const struct macro_library *macro_library_for(const struct parse_options *options);
void free_macros(struct macro *m);
void free_activations(struct activation *act);

/* An error of the preprocessor, which it has reported: the parser rejects it unsaid. */
static inline bool is_reported(const struct token *tok)
{
	return tok->kind == JUNK && tok->reported;
}

#endif
