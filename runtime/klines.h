/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The source lines of the kernel functions the script probes, from the kernel's DWARF (the
 * translator's src/target/klines.c writes the tables after this header): an address is
 * found by its symbol and the offset in it (sprint_symbol: KASLR moves nothing here), then
 * the row of the last address at or before that offset.
 */
#ifndef TAP_KLINES_H
#define TAP_KLINES_H

#include <linux/kallsyms.h>

struct tap_kline_row {
	u32 offset;	/* from the function's symbol */
	u32 line;
	u32 file;	/* in tap_kline_files */
};

struct tap_kline_function {
	const char *symbol;
	u32 first;	/* its rows in tap_kline_rows, sorted by offset */
	u32 count;
};

extern const char *const tap_kline_files[];
extern const struct tap_kline_row tap_kline_rows[];
extern const struct tap_kline_function tap_kline_functions[];
extern const unsigned int tap_num_kline_functions;

/* The file and line of a kernel address; false when its function has no table here. */
static bool tap_kline_lookup(unsigned long addr, const char **file, unsigned int *line)
{
	char sym[KSYM_SYMBOL_LEN];
	const struct tap_kline_function *f = NULL;
	unsigned long offset;
	char *plus;
	unsigned int i, low, high;

	sprint_symbol(sym, addr);
	plus = strchr(sym, '+');
	if (!plus || strchr(sym, ' '))		/* no symbol, or a module's */
		return false;
	*plus = '\0';
	offset = simple_strtoul(plus + 1, NULL, 16);
	for (i = 0; i < tap_num_kline_functions && !f; i++)
		if (!strcmp(tap_kline_functions[i].symbol, sym))
			f = &tap_kline_functions[i];
	if (!f || offset < tap_kline_rows[f->first].offset)
		return false;
	low = f->first;
	high = f->first + f->count;
	while (high - low > 1) {
		unsigned int mid = low + (high - low) / 2;

		if (tap_kline_rows[mid].offset <= offset)
			low = mid;
		else
			high = mid;
	}
	*file = tap_kline_files[tap_kline_rows[low].file];
	*line = tap_kline_rows[low].line;
	return true;
}

#endif
