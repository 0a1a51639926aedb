// SPDX-License-Identifier: GPL-2.0-or-later
#include "parse/format.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static void push_piece(struct format *format, struct format_piece piece)
{
	format->pieces = xrealloc(format->pieces,
				  sizeof(*format->pieces) * (size_t)(format->npieces + 1));
	format->pieces[format->npieces++] = piece;
}

static void push_literal(struct format *format, struct strbuf *literal)
{
	if (!literal->len)
		return;
	push_piece(format, (struct format_piece){ .is_literal = true, .text = sb_steal(literal) });
}

/* Reads digits or `*` at *p; returns the number, FORMAT_STAR or FORMAT_NONE. */
static int read_count(const char **p)
{
	int value = 0;

	if (**p == '*') {
		(*p)++;
		return FORMAT_STAR;
	}
	if (!isdigit((unsigned char)**p))
		return FORMAT_NONE;
	while (isdigit((unsigned char)**p)) {
		if (value < 100000)
			value = value * 10 + (**p - '0');
		(*p)++;
	}
	return value;
}

/* Parses one "%..." spec at *p (just after the %): as stap reads it, one flag of "-+ #0",
 * a width, a precision, an `l` that changes nothing, and the conversion. */
static bool parse_spec(const char **p, const char *start, struct format *format)
{
	struct format_piece piece = { 0 };

	if (**p && strchr("-+ #0", **p))
		piece.flags[0] = *(*p)++;
	piece.width = read_count(p);
	piece.precision = FORMAT_NONE;
	if (**p == '.') {
		(*p)++;
		piece.precision = read_count(p);
		if (piece.precision == FORMAT_NONE)
			piece.precision = 0;
	}
	if (**p == 'l')
		(*p)++;
	if (!**p || !strchr("diuoxXpscbmM", **p))
		return false;
	piece.conversion = **p;
	(*p)++;
	piece.text = xstrndup(start, (size_t)(*p - start));
	format->nargs += 1 + (piece.width == FORMAT_STAR) + (piece.precision == FORMAT_STAR);
	push_piece(format, piece);
	return true;
}

bool format_parse(const char *text, struct format *format, const char **error)
{
	struct strbuf literal = { 0 };
	const char *p = text;

	memset(format, 0, sizeof(*format));
	while (*p) {
		if (*p != '%') {
			sb_addc(&literal, *p++);
			continue;
		}
		const char *start = p++;

		if (*p == '%') {
			sb_addc(&literal, '%');
			p++;
			continue;
		}
		push_literal(format, &literal);
		if (!strcmp(p, "l"))
			break;	/* a trailing "%l" is nothing, as in stap */
		if (!parse_spec(&p, start, format)) {
			*error = "invalid or missing conversion specifier";
			free(literal.buf);
			format_free(format);
			return false;
		}
	}
	push_literal(format, &literal);
	return true;
}

void format_free(struct format *format)
{
	for (int i = 0; i < format->npieces; i++)
		free(format->pieces[i].text);
	free(format->pieces);
	memset(format, 0, sizeof(*format));
}

enum type format_arg_type(char conversion)
{
	return conversion == 's' ? TYPE_STRING : TYPE_LONG;
}
