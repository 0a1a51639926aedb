/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stap's print formats: "%[flag][width][.precision][l]conversion" with a flag of "-+ #0", width
 * and precision as digits or `*`, conversions d i u o x X p s c b m M %. Parsed once, used by
 * pass 2 (how many arguments of which type) and pass 3 (the pieces the runtime's
 * formatter, runtime/format.h, is given).
 */
#ifndef TAPSTER_FORMAT_H
#define TAPSTER_FORMAT_H

#include <stdbool.h>

#include "parse/ast.h"

enum { FORMAT_STAR = -2, FORMAT_NONE = -1 };

struct format_piece {
	bool is_literal;	/* literal text (with %% already turned into %) */
	char *text;		/* the literal, or the spec as written ("%-5s") */
	char conversion;	/* 'd', 's', ... for a conversion */
	char flags[2];		/* the one flag of "-+ #0", or "" */
	int width;		/* digits, FORMAT_STAR or FORMAT_NONE */
	int precision;		/* digits, FORMAT_STAR or FORMAT_NONE */
};

struct format {
	struct format_piece *pieces;
	int npieces;
	int nargs;		/* arguments the format consumes, `*` ones included */
};

/* Parses `text`; returns false (and sets *error to a static message) when it is invalid. */
bool format_parse(const char *text, struct format *format, const char **error);
void format_free(struct format *format);

/* The type the argument of a conversion has to be. */
enum type format_arg_type(char conversion);

#endif
