// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -p1: the parsed tree in stap's canonical form. Every operand of an operator is in
 * parentheses, so the output parses back to the same tree.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse/parse.h"

static void print_list(FILE *out, const struct node_list *list)
{
	for (int i = 0; i < list->len; i++) {
		if (i)
			fputs(", ", out);
		print_expr(out, list->items[i]);
	}
}

static void print_parenthesized(FILE *out, const struct node *expr)
{
	fputc('(', out);
	print_expr(out, expr);
	fputc(')', out);
}

/* A string the parser decoded; a tree made by other passes may have no `raw` text. */
static void print_string(FILE *out, const struct node *str)
{
	const char *s = str->raw;

	if (s) {
		fprintf(out, "\"%s\"", s);
		return;
	}
	fputc('"', out);
	for (s = str->text; *s; s++) {
		switch (*s) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\t': fputs("\\t", out); break;
		default: fputc(*s, out); break;
		}
	}
	fputc('"', out);
}

/* stap shows the format of printf and sprintf as it parsed it, with every backslash doubled
 * but that of an escaped quote: printf("%d\\n", x). */
static void print_format(FILE *out, const struct node *format)
{
	fputc('"', out);
	for (const char *s = format->raw; *s; s++) {
		if (s[0] == '\\' && s[1] == '"') {
			fputs("\\\"", out);
			s++;
		} else if (s[0] == '\\') {
			fputs("\\\\", out);
		} else {
			fputc(*s, out);
		}
	}
	fputc('"', out);
}

/* Whether the first argument of a print function is its format or delimiter, which stap
 * shows as print_format() does. */
static bool has_format(const char *name)
{
	static const char *const names[] = {
		"printf", "sprintf", "printd", "printdln", "sprintd", "sprintdln",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

static void print_print(FILE *out, const struct node *expr)
{
	const struct node *first = expr->args.len ? expr->args.items[0] : NULL;

	if (!has_format(expr->text))
		first = NULL;
	if (!first || first->kind != N_STRING || !first->raw) {
		fprintf(out, "%s(", expr->text);
		print_list(out, &expr->args);
		fputc(')', out);
		return;
	}
	fprintf(out, "%s(", expr->text);
	print_format(out, first);
	for (int i = 1; i < expr->args.len; i++) {
		fputs(", ", out);
		print_expr(out, expr->args.items[i]);
	}
	fputc(')', out);
}

static void print_quoted(FILE *out, const char *text)
{
	struct node str = { .kind = N_STRING, .text = (char *)text };

	print_string(out, &str);
}

/* ->field, [index] and the pretty-printing $ of targets, @cast, @var and autocasts. */
static void print_comps(FILE *out, const struct node *expr)
{
	for (const struct target_comp *c = expr->comps; c; c = c->next) {
		switch (c->kind) {
		case COMP_FIELD:
			fprintf(out, "->%s", c->field);
			break;
		case COMP_INDEX_NUM:
			fprintf(out, "[%" PRId64 "]", c->index);
			break;
		case COMP_INDEX_EXPR:
			fputc('[', out);
			print_expr(out, c->index_expr);
			fputc(']', out);
			break;
		}
	}
	if (expr->suffix)
		fprintf(out, "->%s", expr->suffix);
}

/* A string of @cast or @var as written (its `raw` text), or from its value. */
static void print_escaped(FILE *out, const char *raw, const char *value)
{
	struct node str = { .kind = N_STRING, .raw = (char *)raw };

	if (raw)
		print_format(out, &str);
	else
		print_quoted(out, value);
}

/* The `"name"[, "module"])` tail of @cast and @var. stap shows the type of @cast and the
 * modules as it shows formats, and the name of @var as written with its quotes unescaped. */
static void print_name_and_module(FILE *out, const struct node *expr)
{
	if (expr->kind == N_ATVAR && expr->raw) {
		fputc('"', out);
		for (const char *s = expr->raw; *s; s++)
			if (s[0] != '\\' || s[1] != '"')
				fputc(*s, out);
		fputc('"', out);
	} else {
		print_escaped(out, expr->raw, expr->text);
	}
	if (expr->module) {
		fputs(", ", out);
		print_escaped(out, expr->module_raw, expr->module);
	}
	fputc(')', out);
}

static void print_cast(FILE *out, const struct node *expr)
{
	if (!expr->text) {
		print_parenthesized(out, expr->lhs);
	} else {
		fputs("@cast(", out);
		print_expr(out, expr->lhs);
		fputs(", ", out);
		print_name_and_module(out, expr);
	}
	print_comps(out, expr);
}

static void print_atvar(FILE *out, const struct node *expr)
{
	fputs("@var(", out);
	print_name_and_module(out, expr);
	print_comps(out, expr);
}

static void print_unary(FILE *out, const struct node *expr)
{
	const struct node *operand = expr->lhs;

	fputs(op_text(expr->op), out);
	/* The address of a target shows as part of it: &$p->field. */
	if (expr->op == '&' && (operand->kind == N_TARGET || operand->kind == N_CAST ||
				operand->kind == N_ATVAR))
		print_expr(out, operand);
	else
		print_parenthesized(out, operand);
}

static void print_binary(FILE *out, const struct node *expr)
{
	print_parenthesized(out, expr->lhs);
	fprintf(out, " %s ", op_text(expr->op));
	/* A regular expression is a literal and shows as one. */
	if (expr->op == OP_MATCH || expr->op == OP_NOMATCH)
		print_expr(out, expr->rhs);
	else
		print_parenthesized(out, expr->rhs);
}

static void print_index(FILE *out, const struct node *expr)
{
	if (expr->lhs->kind == N_IDENT || expr->lhs->kind == N_HIST)
		print_expr(out, expr->lhs);
	else
		print_parenthesized(out, expr->lhs);
	fputc('[', out);
	print_list(out, &expr->args);
	fputc(']', out);
}

static void print_stat(FILE *out, const struct node *expr)
{
	fprintf(out, "@%s(", expr->text);
	print_expr(out, expr->lhs);
	if (expr->args.len) {
		fputs(", ", out);
		print_list(out, &expr->args);
	}
	fputc(')', out);
}

static void print_at_operator(FILE *out, const char *name, const struct node *expr)
{
	fprintf(out, "@%s(", name);
	print_expr(out, expr->lhs);
	fputc(')', out);
}

static char *(*namer)(const struct node *n);

void print_set_namer(char *(*name)(const struct node *n))
{
	namer = name;
}

/* An identifier or a called function's name: as written, or as the namer says. */
static void print_name(FILE *out, const struct node *expr)
{
	char *name = namer ? namer(expr) : NULL;

	fputs(name ? name : expr->text, out);
	free(name);
}

void print_expr(FILE *out, const struct node *expr)
{
	switch (expr->kind) {
	case N_NUMBER:
		fprintf(out, "%" PRId64, expr->num);
		break;
	case N_STRING:
		print_string(out, expr);
		break;
	case N_IDENT:
		print_name(out, expr);
		break;
	case N_TARGET:
		fputs(expr->text, out);
		print_comps(out, expr);
		break;
	case N_CALL:
		print_name(out, expr);
		fputc('(', out);
		print_list(out, &expr->args);
		fputc(')', out);
		break;
	case N_PRINT:
		print_print(out, expr);
		break;
	case N_INDEX:
		print_index(out, expr);
		break;
	case N_STAR:
		fputc('*', out);
		break;
	case N_UNARY:
	case N_PREINC:
		print_unary(out, expr);
		break;
	case N_POSTINC:
		print_parenthesized(out, expr->lhs);
		fputs(op_text(expr->op), out);
		break;
	case N_BINARY:
	case N_ASSIGN:
		print_binary(out, expr);
		break;
	case N_TERNARY:
		print_parenthesized(out, expr->cond);
		fputc('?', out);
		print_parenthesized(out, expr->then);
		fputc(':', out);
		print_parenthesized(out, expr->els);
		break;
	case N_IN:
		fputc('[', out);
		print_list(out, &expr->args);
		fputs("] in ", out);
		print_expr(out, expr->lhs);
		break;
	case N_STATOP:
		print_stat(out, expr);
		break;
	case N_HIST:
		fprintf(out, "@%s(", expr->text);
		print_expr(out, expr->lhs);
		for (int i = 0; i < expr->args.len; i++) {
			fputs(", ", out);
			print_expr(out, expr->args.items[i]);
		}
		fputc(')', out);
		break;
	case N_ENTRY:
		print_at_operator(out, "entry", expr);
		break;
	case N_DEFINED:
		print_at_operator(out, "defined", expr);
		break;
	case N_PROBEWRITE:
		print_at_operator(out, "probewrite", expr);
		break;
	case N_CAST:
		print_cast(out, expr);
		break;
	case N_ATVAR:
		print_atvar(out, expr);
		break;
	case N_REGISTER:
		fprintf(out, "%s(%" PRId64 ")", expr->text, expr->num);
		break;
	case N_DEREF:
		fprintf(out, "%s(%" PRId64 ", ", expr->text, expr->num);
		print_expr(out, expr->lhs);
		fputc(')', out);
		break;
	case N_PERF:
		fputs("@perf(", out);
		print_expr(out, expr->lhs);
		fputc(')', out);
		break;
	case N_EMBEDDED_EXPR:
	case N_EMBEDDED_STMT:
		fprintf(out, "%%{ %s %%}", expr->text);
		break;
	default:
		print_stmt(out, expr);
		break;
	}
}

static void print_block(FILE *out, const struct node *block)
{
	fputs("{\n", out);
	for (int i = 0; i < block->body.len; i++) {
		print_stmt(out, block->body.items[i]);
		fputs(";\n", out);
	}
	fputc('}', out);
}

static void print_for(FILE *out, const struct node *init, const struct node *cond,
		      const struct node *inc, const struct node *body)
{
	fputs("for (", out);
	if (init)
		print_expr(out, init);
	fputs("; ", out);
	if (cond)
		print_expr(out, cond);
	else
		fputc('1', out);
	fputs("; ", out);
	if (inc)
		print_expr(out, inc);
	fputs(") ", out);
	print_stmt(out, body);
}

static void print_sort_mark(FILE *out, int direction)
{
	fputc(direction > 0 ? '+' : '-', out);
}

static void print_foreach(FILE *out, const struct foreach *fe)
{
	fputs("foreach (", out);
	if (fe->value) {
		print_expr(out, fe->value);
		fputs(" = ", out);
	}
	fputc('[', out);
	for (int i = 0; i < fe->keys.len; i++) {
		if (i)
			fputs(", ", out);
		print_expr(out, fe->keys.items[i]);
		if (fe->sort_column == i + 1)
			print_sort_mark(out, fe->sort_direction);
	}
	fputs("] in ", out);
	print_expr(out, fe->array);
	if (fe->slice.len) {
		fputc('[', out);
		print_list(out, &fe->slice);
		fputc(']', out);
	}
	if (fe->sort_column < 0) {
		/* stap names every aggregate but @variance, which it prints as no aggregate. */
		if (fe->sort_aggregate && strcmp(fe->sort_aggregate, "variance"))
			fprintf(out, " @%s", fe->sort_aggregate);
		print_sort_mark(out, fe->sort_direction);
	}
	if (fe->limit) {
		fputs(" limit ", out);
		print_expr(out, fe->limit);
	}
	fputs(") ", out);
	print_stmt(out, fe->body);
}

static void print_try(FILE *out, const struct node *stmt)
{
	fputs("try {\n", out);
	print_stmt(out, stmt->then);
	fputs("\n} catch", out);
	if (stmt->text)
		fprintf(out, " (%s)", stmt->text);
	fputs(" {\n", out);
	print_stmt(out, stmt->els);
	fputs("\n}\n", out);
}

/* A statement without the ";\n" its block puts after it. */
void print_stmt(FILE *out, const struct node *stmt)
{
	switch (stmt->kind) {
	case N_BLOCK:
		print_block(out, stmt);
		break;
	case N_NULL:
		fputc(';', out);
		break;
	case N_EXPR_STMT:
		print_expr(out, stmt->lhs);
		break;
	case N_IF:
		fputs("if (", out);
		print_expr(out, stmt->cond);
		fputs(") ", out);
		print_stmt(out, stmt->then);
		fputc('\n', out);
		if (stmt->els) {
			fputs("else ", out);
			print_stmt(out, stmt->els);
			fputc('\n', out);
		}
		break;
	case N_WHILE:
		print_for(out, NULL, stmt->cond, NULL, stmt->then);
		break;
	case N_FOR:
		print_for(out, stmt->init, stmt->cond, stmt->inc, stmt->then);
		break;
	case N_FOREACH:
		print_foreach(out, stmt->foreach);
		break;
	case N_BREAK:
		fputs("break", out);
		break;
	case N_CONTINUE:
		fputs("continue", out);
		break;
	case N_NEXT:
		fputs("next", out);
		break;
	case N_RETURN:
		fputs("return", out);
		if (stmt->lhs) {
			fputc(' ', out);
			print_expr(out, stmt->lhs);
		}
		break;
	case N_DELETE:
		/* stap shows a whole array deleted by its name as written, even in -p2. */
		fputs("delete ", out);
		if (stmt->lhs->kind == N_IDENT)
			fputs(stmt->lhs->text, out);
		else
			print_expr(out, stmt->lhs);
		break;
	case N_TRY:
		print_try(out, stmt);
		break;
	default:
		print_expr(out, stmt);
		break;
	}
}

static void print_literal(FILE *out, const struct node *literal)
{
	print_expr(out, literal);
}

void print_probe_point(FILE *out, const struct probe_point *point)
{
	for (const struct component *c = point->components; c; c = c->next) {
		if (c != point->components)
			fputc('.', out);
		fputs(c->name, out);
		if (c->arg) {
			fputc('(', out);
			print_literal(out, c->arg);
			fputc(')', out);
		}
	}
	if (point->optional)
		fputc('?', out);
	if (point->sufficient)
		fputc('!', out);
	if (point->cond) {
		fputs(" if (", out);
		print_expr(out, point->cond);
		fputc(')', out);
	}
}

static void print_points(FILE *out, const struct probe_point_list *points, const char *sep)
{
	for (int i = 0; i < points->len; i++) {
		if (i)
			fputs(sep, out);
		print_probe_point(out, points->items[i]);
	}
}

static void print_probe(FILE *out, const struct probe *probe)
{
	fputs("probe ", out);
	if (probe->kind == PROBE_PLAIN) {
		print_points(out, &probe->points, ",");
	} else {
		/* stap shows the kind of the alias after its last name only. */
		for (int i = 0; i < probe->aliases.len; i++) {
			bool last = i + 1 == probe->aliases.len;

			print_probe_point(out, probe->aliases.items[i]);
			fputs(!last ? " = " : probe->kind == PROBE_ALIAS_EPILOGUE ? " += " :
			      probe->kind == PROBE_ALIAS_SUBTRACT ? " -= " : " = ", out);
		}
		print_points(out, &probe->points, ", ");
	}
	print_stmt(out, probe->body);
	fputc('\n', out);
}

static void print_global(FILE *out, const struct global *g)
{
	fprintf(out, "global %s", g->name);
	if (g->wrap)
		fputc('%', out);
	if (g->max_entries)
		fprintf(out, "[%" PRId64 "]", g->max_entries);
	if (g->init) {
		fputs(" = ", out);
		print_literal(out, g->init);
	}
	fputc('\n', out);
}

static void print_function(FILE *out, const struct function *f)
{
	fprintf(out, "function %s (", f->name);
	for (const struct param *a = f->params; a; a = a->next)
		fprintf(out, "%s%s", a == f->params ? "" : ", ", a->name);
	fputs(")\n", out);
	if (f->body)
		print_stmt(out, f->body);
	else
		fprintf(out, "%%{%s%%}", f->embedded);
	fputc('\n', out);
}

void print_file(FILE *out, const struct file *file)
{
	fprintf(out, "# file %s\n", file->source->name);
	for (const struct embed *e = file->embeds; e; e = e->next)
		fprintf(out, "%%{%s%%}", e->code);
	for (const struct global *g = file->globals; g; g = g->next)
		print_global(out, g);
	for (const struct probe *p = file->probes; p; p = p->next)
		if (p->kind != PROBE_PLAIN)
			print_probe(out, p);
	for (const struct probe *p = file->probes; p; p = p->next)
		if (p->kind == PROBE_PLAIN)
			print_probe(out, p);
	for (const struct function *f = file->functions; f; f = f->next)
		print_function(out, f);
}
