// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The module's regular expressions (see regex_table.h): each pattern compiled once
 * (regex.h), then written as C for the runtime's matcher.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "translate/regex_table.h"
#include "util.h"

int regex_table_use(struct regex_table *table, const char *pattern)
{
	char *message = NULL;
	int position;

	for (int i = 0; i < table->len; i++)
		if (!strcmp(table->patterns[i], pattern))
			return i;
	table->patterns = xrealloc(table->patterns, (size_t)(table->len + 1) * sizeof(char *));
	table->programs = xrealloc(table->programs,
				   (size_t)(table->len + 1) * sizeof(struct regex_program *));
	table->patterns[table->len] = xstrdup(pattern);
	table->programs[table->len] = regex_compile(pattern, &message, &position);
	free(message);
	return table->len++;
}

void regex_write_sizes(const struct regex_table *table, FILE *out)
{
	int insns = 0, groups = 0;

	if (!table->len)
		return;
	for (int i = 0; i < table->len; i++) {
		const struct regex_program *r = table->programs[i];

		if (r && r->ninsns > insns)
			insns = r->ninsns;
		if (r && r->ngroups > groups)
			groups = r->ngroups;
	}
	fprintf(out, "#define TAP_REGEX_MAX_INSNS %d\n#define TAP_REGEX_MAX_TAGS %d\n\n", insns,
		2 * groups);
}

static const char *const opcode_names[] = {
	[REGEX_BYTE] = "TAP_RX_BYTE", [REGEX_CLASS] = "TAP_RX_CLASS",
	[REGEX_SPLIT] = "TAP_RX_SPLIT", [REGEX_JUMP] = "TAP_RX_JUMP",
	[REGEX_SAVE] = "TAP_RX_SAVE", [REGEX_BOL] = "TAP_RX_BOL", [REGEX_MATCH] = "TAP_RX_MATCH",
};

/* The pattern in a C comment: no comment end in it, nothing but printable ASCII. */
static void write_comment(FILE *out, const char *pattern)
{
	fputs("/* ", out);
	for (const char *s = pattern; *s; s++) {
		if (*s == '*' && s[1] == '/')
			fputs("* ", out);
		else
			fputc(*s >= ' ' && *s < 127 ? *s : '?', out);
	}
	fputs(" */\n", out);
}

static void write_program(FILE *out, int index, const struct regex_program *r)
{
	fprintf(out, "static const struct tap_rx_insn tap_regex_%d_insns[] = {\n", index);
	for (int i = 0; i < r->ninsns; i++) {
		const struct regex_insn *in = &r->insns[i];

		fprintf(out, "\t{ %s, %d, %d, %d },\n", opcode_names[in->op], in->arg, in->x, in->y);
	}
	fputs("};\n", out);
	if (r->nclasses) {
		fprintf(out, "static const u8 tap_regex_%d_classes[][TAP_RX_CLASS_BYTES] = {\n",
			index);
		for (int i = 0; i < r->nclasses; i++) {
			fputs("\t{", out);
			for (int j = 0; j < REGEX_CLASS_BYTES; j++)
				fprintf(out, "%s0x%02x", j ? ", " : " ", r->classes[i][j]);
			fputs(" },\n", out);
		}
		fputs("};\n", out);
	}
	fprintf(out, "static const struct tap_regex tap_regex_%d = {\n"
		"\t.insns = tap_regex_%d_insns,\n", index, index);
	if (r->nclasses)
		fprintf(out, "\t.classes = tap_regex_%d_classes,\n", index);
	fprintf(out, "\t.ninsns = %d,\n\t.ntags = %d,\n};\n\n", r->ninsns, 2 * r->ngroups);
}

void regex_write_programs(const struct regex_table *table, FILE *out)
{
	for (int i = 0; i < table->len; i++) {
		if (!table->programs[i])
			continue;
		write_comment(out, table->patterns[i]);
		write_program(out, i, table->programs[i]);
	}
}

void regex_table_free(struct regex_table *table)
{
	for (int i = 0; i < table->len; i++) {
		free(table->patterns[i]);
		regex_free(table->programs[i]);
	}
	free(table->patterns);
	free(table->programs);
	memset(table, 0, sizeof(*table));
}
