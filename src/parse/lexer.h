/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Pass 1: the lexer as the parser reads it. The scanner and the token layer are in lexer.l,
 * the preprocessor between them in preprocess.c. */
#ifndef TAPSTER_PARSE_LEXER_H
#define TAPSTER_PARSE_LEXER_H

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
/* Whether a token kind is a keyword: probe, if, string, ... */
bool token_is_keyword(int kind);

#endif
