/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The source lines of kernel functions, from the kernel's DWARF, as C tables for the module
 * (runtime/klines.h: symfile(), symline(), print_backtrace_fileline()). */
#ifndef TAPSTER_KLINES_H
#define TAPSTER_KLINES_H

#include <elfutils/libdw.h>
#include <stdint.h>
#include <stdio.h>

/* A kernel function whose lines the module gets: its symbol (as kallsyms names it), its
 * link-time start in the debuginfo's vmlinux and its DIE there (0: the one at start). */
struct kline_function {
	const char *symbol;
	uint64_t start;
	uint64_t die;
};

/*
 * Writes the C of the line tables of the functions (by symbol; the same symbol twice is
 * written once) for runtime/klines.h: the file names, the rows (offset from the symbol's
 * start, line, file), the functions; each address of a function's body once, with the line
 * libdw gives it (dwarf_getsrc_die). Returns the number of rows written.
 */
size_t klines_write(FILE *out, Dwarf *dwarf, const struct kline_function *functions,
		    size_t count);

#endif
