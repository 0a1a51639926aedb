// SPDX-License-Identifier: GPL-2.0-or-later
/* The source lines of kernel functions for the module (klines.h). */
#define _GNU_SOURCE
#include "target/klines.h"

#include <dwarf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cstr.h"
#include "util.h"

struct kline_row {
	uint32_t offset, line, file;
};

struct kline_tables {
	char **files;
	size_t nfiles;
	struct kline_row *rows;
	size_t nrows;
};

static uint32_t file_index(struct kline_tables *t, const char *name)
{
	for (size_t i = 0; i < t->nfiles; i++)
		if (!strcmp(t->files[i], name))
			return (uint32_t)i;
	t->files = xrealloc(t->files, sizeof(*t->files) * (t->nfiles + 1));
	t->files[t->nfiles] = xstrdup(name);
	return (uint32_t)t->nfiles++;
}

/* The innermost function (not inlined) of the compilation unit cu that holds addr. */
static bool subprogram_at(Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die *die)
{
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes(cu, addr, &scopes);
	bool found = false;

	for (int i = 0; i < n && !found; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
			*die = scopes[i];
			found = true;
		}
	free(scopes);
	return found;
}

/* [*low, *high): the range of die that holds start, up to its end. */
static bool range_holding(Dwarf_Die *die, Dwarf_Addr start, Dwarf_Addr *low, Dwarf_Addr *high)
{
	Dwarf_Addr base, begin, end;
	ptrdiff_t offset = 0;

	while ((offset = dwarf_ranges(die, offset, &base, &begin, &end)) > 0)
		if (start >= begin && start < end) {
			*low = start;
			*high = end;
			return true;
		}
	return false;
}

/* [*low, *high): the part of the function that holds its start: from its DIE, else (a
 * DIE without code there, as an abstract instance) from the function the compilation
 * unit has there. */
static bool function_extent(Dwarf *dwarf, const struct kline_function *f, Dwarf_Die *cu,
			    Dwarf_Addr *low, Dwarf_Addr *high)
{
	Dwarf_Die die;

	if (!dwarf_addrdie(dwarf, f->start, cu))
		return false;
	if (f->die && dwarf_offdie(dwarf, f->die, &die) &&
	    range_holding(&die, f->start, low, high))
		return true;
	return subprogram_at(cu, f->start, &die) && range_holding(&die, f->start, low, high);
}

/* The rows of one function: each address of its line table in [low, high), once. */
static void add_function_rows(struct kline_tables *t, Dwarf_Die *cu, Dwarf_Addr low,
			      Dwarf_Addr high)
{
	Dwarf_Lines *lines;
	size_t nlines;
	Dwarf_Addr last = (Dwarf_Addr)-1;

	if (dwarf_getsrclines(cu, &lines, &nlines))
		return;
	/* The addresses in order: the table's sequences are sorted by libdw. */
	for (size_t i = 0; i < nlines; i++) {
		Dwarf_Line *row = dwarf_onesrcline(lines, i), *at;
		Dwarf_Addr addr;
		bool end;
		int line;
		const char *file;

		if (!row || dwarf_lineaddr(row, &addr) || addr < low || addr >= high ||
		    addr == last || dwarf_lineendsequence(row, &end) || end)
			continue;
		last = addr;
		at = dwarf_getsrc_die(cu, addr);
		if (!at || dwarf_lineno(at, &line) || line <= 0)
			continue;
		file = dwarf_linesrc(at, NULL, NULL);
		if (!file)
			continue;
		t->rows = xrealloc(t->rows, sizeof(*t->rows) * (t->nrows + 1));
		t->rows[t->nrows++] = (struct kline_row){ (uint32_t)(addr - low), (uint32_t)line,
							  file_index(t, file) };
	}
}

static int compare_rows(const void *a, const void *b)
{
	const struct kline_row *x = a, *y = b;

	return (x->offset > y->offset) - (x->offset < y->offset);
}

/* Leaves out each row whose line and file are its predecessor's (the lookup takes the
 * last row at or before an offset, so they change nothing); the number kept. */
static size_t drop_repeats(struct kline_row *rows, size_t n)
{
	size_t kept = 0;

	for (size_t i = 0; i < n; i++)
		if (!kept || rows[i].line != rows[kept - 1].line ||
		    rows[i].file != rows[kept - 1].file)
			rows[kept++] = rows[i];
	return kept;
}

static void write_string(FILE *out, const char *text)
{
	char *literal = c_string_literal(text);

	fprintf(out, "\t%s,\n", literal);
	free(literal);
}

size_t klines_write(FILE *out, Dwarf *dwarf, const struct kline_function *functions,
		    size_t count)
{
	struct kline_tables t = { 0 };
	size_t *first = xcalloc(count + 1, sizeof(*first));
	size_t written = 0;

	for (size_t i = 0; i < count; i++) {
		Dwarf_Die cu;
		Dwarf_Addr low, high;
		bool seen = false;

		first[i] = t.nrows;
		for (size_t j = 0; j < i; j++)
			seen = seen || !strcmp(functions[j].symbol, functions[i].symbol);
		if (seen || !function_extent(dwarf, &functions[i], &cu, &low, &high))
			continue;
		add_function_rows(&t, &cu, low, high);
		qsort(t.rows + first[i], t.nrows - first[i], sizeof(*t.rows), compare_rows);
		t.nrows = first[i] + drop_repeats(t.rows + first[i], t.nrows - first[i]);
	}
	first[count] = t.nrows;
	fputs("#define TAP_KERNEL_LINES 1\n#include \"klines.h\"\n\n", out);
	fputs("const char *const tap_kline_files[] = {\n", out);
	for (size_t i = 0; i < t.nfiles; i++)
		write_string(out, t.files[i]);
	fputs("\tNULL\n};\n\nconst struct tap_kline_row tap_kline_rows[] = {\n", out);
	for (size_t i = 0; i < t.nrows; i++)
		fprintf(out, "\t{ %" PRIu32 ", %" PRIu32 ", %" PRIu32 " },\n", t.rows[i].offset,
			t.rows[i].line, t.rows[i].file);
	fputs("\t{ 0, 0, 0 }\n};\n\nconst struct tap_kline_function tap_kline_functions[] = {\n",
	      out);
	for (size_t i = 0; i < count; i++) {
		char *name;

		if (first[i + 1] == first[i])
			continue;
		name = c_string_literal(functions[i].symbol);
		fprintf(out, "\t{ %s, %zu, %zu },\n", name, first[i], first[i + 1] - first[i]);
		free(name);
		written++;
	}
	fprintf(out, "\t{ NULL, 0, 0 }\n};\n\nconst unsigned int tap_num_kline_functions = %zu;\n\n",
		written);
	for (size_t i = 0; i < t.nfiles; i++)
		free(t.files[i]);
	free(t.files);
	written = t.nrows;
	free(t.rows);
	free(first);
	return written;
}
