// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * print, printf, sprintf and their kin into C: a call's format and values become the
 * conversion table of runtime/format.h, and, where every piece allows it, code that writes
 * the output straight into the print buffer, the table kept as the fallback.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "parse/format.h"
#include "translate/translate.h"

/* ---- Printing: pieces for runtime/format.h ---- */

/* The characters of a 64-bit integer in decimal, its sign included (format.h's too). */
#define TAP_LONG_DIGITS_MAX 20
/* The most values of a printf with a fast path (runtime/format.h's TAP_FMT_FAST_ARGS_MAX):
 * its fallback, tap_print_format_values(), takes them as arguments. */
#define PRINT_FAST_ARGS_MAX 32

/* Emits each line of text, indented. */
static void emit_lines(struct body *b, char *text)
{
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
		emit(b, "%s", line);
}

/*
 * What a print-family call hands the runtime: its pieces and their arguments. A printf whose
 * pieces are only literal text, plain %s and plain %d (no flag, width or precision) has a
 * fast path too: its pieces written straight into the print buffer (runtime/format.h,
 * tap_print_reserve()), with tap_print_format() as its fallback for output longer than one
 * printf's block.
 */
struct print_call {
	struct strbuf specs;	/* struct tap_fmt_spec initializers */
	struct strbuf args;	/* union tap_fmt_arg initializers */
	struct strbuf values;	/* each argument, evaluated once into a local aN */
	struct strbuf lengths;	/* the fast path: strnlen() of each %s */
	struct strbuf fast;	/* ... and its statements */
	struct strbuf bound;	/* ... and the bytes it may write: " + nN" terms */
	struct strbuf locals;	/* ... and its fallback's arguments: ", aN" each */
	size_t fixed_bytes;	/* ... the literals' bytes and 20 per %d */
	bool fast_ok;		/* every piece has a fast form */
	int nargs;
	int nspecs;
	char *fault_location;	/* of the last %m or %M: where a read fault is reported */
};

static void add_literal_piece(struct print_call *pc, const char *text)
{
	char *literal = c_string_literal(text);

	sb_addf(&pc->specs, "\t{ .text = %s },\n", literal);
	pc->nspecs++;
	if (*text) {
		sb_addf(&pc->fast, "p = tap_print_put(p, %s, %zu);\n", literal, strlen(text));
		pc->fixed_bytes += strlen(text);
	}
	free(literal);
}

/* Returns the local the argument is kept in. */
static int add_arg(struct print_call *pc, bool is_string, const char *expr)
{
	int id = pc->nargs++;

	sb_addf(&pc->values, "%sa%d = %s;\n", is_string ? "const char *" : "int64_t ", id, expr);
	sb_addf(&pc->args, "{ .%c = a%d }, ", is_string ? 's' : 'l', id);
	sb_addf(&pc->locals, ", a%d", id);
	return id;
}

/* The fast form of a conversion whose value is the local aN, if it has one. */
static void add_fast_conversion(struct print_call *pc, const struct format_piece *p, int arg)
{
	bool plain = !p->flags[0] && p->width == FORMAT_NONE && p->precision == FORMAT_NONE;

	if (plain && p->conversion == 's') {
		sb_addf(&pc->lengths, "size_t n%d = tap_strnlen(a%d, TAP_FMT_PRINT_MAX);\n", arg, arg);
		sb_addf(&pc->bound, " + n%d", arg);
		sb_addf(&pc->fast, "p = tap_print_put(p, a%d, n%d);\n", arg, arg);
	} else if (plain && (p->conversion == 'd' || p->conversion == 'i')) {
		pc->fixed_bytes += TAP_LONG_DIGITS_MAX;
		sb_addf(&pc->fast, "p = tap_print_put_long(p, a%d);\n", arg);
	} else {
		pc->fast_ok = false;
	}
}

/* The runtime's flags (enum tap_fmt_flag) of a conversion. */
static int conversion_flags(const struct format_piece *p)
{
	int flags = 0;

	switch (p->flags[0]) {
	case '0': flags = 1; break;
	case '+': flags = 4; break;
	case ' ': flags = 8; break;
	case '-': flags = 16; break;
	case '#': flags = 32; break;
	default: break;
	}
	if (p->conversion == 'd' || p->conversion == 'i')
		flags |= 2;
	if (p->conversion == 'X')
		flags |= 64;
	if (p->conversion == 'p')
		flags |= 32;
	return flags;
}

static void add_conversion(struct print_call *pc, const struct format_piece *p, int flags,
			   const char *location)
{
	sb_addf(&pc->specs, "\t{ NULL, '%c', %d, %d, %d, %s },\n", p->conversion, flags,
		p->width, p->precision, location ? location : "NULL");
	pc->nspecs++;
}

/* printf and sprintf: the format's pieces; each conversion takes its `*` width and
 * precision and its value from exprs, in order. */
static void format_pieces(struct print_call *pc, struct node *n, char **exprs)
{
	struct format format;
	const char *error;
	int arg = 1;

	format_parse(n->args.items[0]->text, &format, &error);
	for (int i = 0; i < format.npieces; i++) {
		struct format_piece *p = &format.pieces[i];
		char *location = NULL;

		if (p->is_literal) {
			add_literal_piece(pc, p->text);
			continue;
		}
		if (p->width == FORMAT_STAR)
			add_arg(pc, false, exprs[arg++]);
		if (strchr("mM", p->conversion)) {
			/* A too large size is reported at its argument, or at the call. */
			location = location_literal(p->precision == FORMAT_STAR ?
						    n->args.items[arg] : n);
			free(pc->fault_location);
			pc->fault_location = xstrdup(location);
		}
		if (p->precision == FORMAT_STAR)
			add_arg(pc, false, exprs[arg++]);
		add_conversion(pc, p, conversion_flags(p), location);
		add_fast_conversion(pc, p, add_arg(pc, p->conversion == 's', exprs[arg++]));
		free(location);
	}
	format_free(&format);
}

/* print, println, printd, printdln and their s- forms: each value as %s or %d, with the
 * delimiter between them and a newline after them when asked. */
static void value_pieces(struct print_call *pc, struct node *n, char **exprs)
{
	const char *name = n->text[0] == 's' ? n->text + 1 : n->text;
	bool delimited = !strcmp(name, "printd") || !strcmp(name, "printdln");
	struct format_piece number = { .conversion = 'd', .width = -1, .precision = -1 };
	struct format_piece string = { .conversion = 's', .width = -1, .precision = -1 };

	for (int i = delimited; i < n->args.len; i++) {
		bool is_string = n->args.items[i]->type == TYPE_STRING;
		struct format_piece *p = is_string ? &string : &number;

		if (delimited && i > 1)
			add_literal_piece(pc, n->args.items[0]->text);
		add_conversion(pc, p, conversion_flags(p), NULL);
		add_fast_conversion(pc, p, add_arg(pc, is_string, exprs[i]));
	}
	if (strstr(name, "ln"))
		add_literal_piece(pc, "\n");
}

char *gen_print(struct body *b, struct node *n)
{
	if (n->args.len == 1 && n->args.items[0]->kind == N_HIST)
		return gen_hist_print(b, n);

	char **exprs = xcalloc((size_t)n->args.len + 1, sizeof(*exprs));
	struct print_call pc = { .fast_ok = true };
	int id = ++b->nlabels;
	char *result = NULL;

	gen_operands(b, n->args.items, n->args.len, exprs);
	sb_add(&pc.specs, "");
	sb_add(&pc.args, "");
	sb_add(&pc.values, "");
	sb_add(&pc.lengths, "");
	sb_add(&pc.fast, "");
	sb_add(&pc.bound, "");
	sb_add(&pc.locals, "");
	if (!strcmp(n->text, "printf") || !strcmp(n->text, "sprintf"))
		format_pieces(&pc, n, exprs);
	else
		value_pieces(&pc, n, exprs);
	bool to_string = n->text[0] == 's';
	char *fault_location = pc.fault_location ? pc.fault_location : "NULL";

	if (pc.nargs > PRINT_FAST_ARGS_MAX)
		pc.fast_ok = false;
	if (to_string)
		result = body_temp(b, TYPE_STRING);
	emit(b, "{");
	b->indent++;
	emit(b, "static const struct tap_fmt_spec fmt%d[] = {", id);
	emit_lines(b, pc.specs.buf);
	emit(b, "};");
	emit_lines(b, pc.values.buf);
	if (to_string) {
		emit(b, "tap_sprint_format(c, %s, fmt%d, %d, (const union tap_fmt_arg[]){ %s}, %s);",
		     result, id, pc.nspecs, pc.args.buf, fault_location);
	} else if (pc.fast_ok) {
		emit_lines(b, pc.lengths.buf);
		emit(b, "char *p = tap_print_reserve(c, %zu%s);", pc.fixed_bytes, pc.bound.buf);
		emit(b, "if (likely(p)) {");
		b->indent++;
		emit_lines(b, pc.fast.buf);
		emit(b, "tap_print_commit(c, p);");
		b->indent--;
		emit(b, "} else {");
		emit(b, "\ttap_print_format_values(c, fmt%d, %d%s);", id, pc.nspecs,
		     pc.locals.buf);
		emit(b, "}");
	} else {
		emit(b, "tap_print_format(c, fmt%d, %d, (const union tap_fmt_arg[]){ %s}, %s);",
		     id, pc.nspecs, pc.args.buf, fault_location);
	}
	b->indent--;
	emit(b, "}");
	if (pc.fault_location)
		body_check_error(b);
	for (int i = 0; i < n->args.len; i++)
		free(exprs[i]);
	free(exprs);
	free(pc.specs.buf);
	free(pc.args.buf);
	free(pc.values.buf);
	free(pc.lengths.buf);
	free(pc.fast.buf);
	free(pc.bound.buf);
	free(pc.locals.buf);
	free(pc.fault_location);
	return result ? result : xstrdup("0");
}
