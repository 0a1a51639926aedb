/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Probe points that need the kernel's DWARF: the sites of its functions (each concrete
 * out-of-line copy and each inlined instance, with the file and line of the function's
 * declaration) and the addresses of a function's source lines. kernel.function("f@file:N"),
 * kernel.function("f").inline and kernel.statement("f@file:N") are derived from them.
 *
 * A site's pc is a link-time address of the debuginfo's vmlinux; a probe is placed at the
 * symbol that holds it (from the vmlinux's ELF symbol table) plus the distance, which
 * kprobes resolves by name in the running kernel (KASLR moves the whole image).
 */
#ifndef TAPSTER_DWPOINTS_H
#define TAPSTER_DWPOINTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>
#include <gelf.h>

struct debuginfo;
struct dwpoints;

struct dw_site {
	const char *name;	/* the function's name */
	const char *file;	/* its declaration's file, "fs/read_write.c" */
	int line;		/* its declaration's line */
	uint64_t pc;		/* entry: low pc, or an inlined instance's entry pc */
	uint64_t die;		/* the DIE of the concrete subprogram or inlined_subroutine */
	bool is_inline;		/* an inlined instance */
	unsigned cu;		/* the number of its compilation unit, from 0 */
};

/* The index of the kernel's functions, built on first use (a walk over every DIE that may
 * hold a function: about a second) and cached in $TAPSTER_DIR/dwindex for later runs;
 * NULL when the debuginfo can't be read. */
const struct dwpoints *dwpoints_of(const struct debuginfo *di);

/* The same, but only when it is built already or cached (no walk); NULL otherwise. */
const struct dwpoints *dwpoints_cached(const struct debuginfo *di);

/* The same index of a user-space file's DWARF and ELF symbol table (process points), built
 * on first use and kept for the run (not cached); NULL when it can't be laid out. */
const struct dwpoints *dwpoints_of_file(Dwarf *dwarf, Elf *elf);

/* The sites whose function name matches `pattern` (a glob, or with `literal` the name
 * itself), in DIE order. The array is the caller's; its strings are the index's. */
struct dw_site *dwpoints_sites_named(const struct dwpoints *dp, const char *pattern,
				     bool literal, size_t *count);

/* The DIE of the out-of-line function `name`: the one at the address the symbol table
 * gives the name, else the first in DIE order; for a name the DWARF doesn't have, the
 * function at its symbol's address (an alias); false if there is none. */
bool dwpoints_function_die(const struct dwpoints *dp, const char *name, uint64_t *die);

/* The function symbol of the vmlinux that holds `pc`: its name and start; false if none.
 * *unique says whether no other function symbol has that name (kprobes find the first
 * one by name). */
bool dwpoints_symbol(const struct dwpoints *dp, uint64_t pc, const char **name,
		     uint64_t *start, bool *unique);
/* The nearest function symbol below `address` whose name no other symbol has, to place a
 * probe in a function whose name is not unique (kprobes take symbol + offset past the
 * symbol's end: they find the function that holds the sum). */
bool dwpoints_unique_symbol_below(const struct dwpoints *dp, uint64_t address,
				  const char **name, uint64_t *start);
/* The address of `name` (e.g. _stext) in the symbol table (the first of that name), or 0. */
uint64_t dwpoints_symbol_address(const struct dwpoints *dp, const char *name);

/* Whether an out-of-line function of the DWARF starts at `pc`. */
bool dwpoints_is_function_entry(const struct dwpoints *dp, uint64_t pc);

/* The instances inlined directly in the function or inlined instance `die` (through its
 * lexical blocks, not through other instances) that have one range (a low pc: stap 4.8
 * takes only those as callees), in DIE order. The array is the caller's. */
struct dw_site *dwpoints_inlined_in(const struct dwpoints *dp, uint64_t die, size_t *count);

/* The labels of the function or inlined instance `die` that have code (through its lexical
 * blocks, not through the instances inlined in it), in DIE order: their names, declaration
 * lines and addresses. The array is the caller's; the names are the DWARF's. */
struct dw_label {
	const char *name;
	int line;
	uint64_t pc;
};
struct dw_label *dwpoints_labels_in(const struct dwpoints *dp, uint64_t die, size_t *count);

/* The out-of-line calls DWARF 4 records in the function or inlined instance `die` (gcc's
 * DW_TAG_GNU_call_site, through its lexical blocks, not through the instances inlined in
 * it), in DIE order: the callee's name, its DIE (the call site's abstract origin) and the
 * return address, the call's low pc. DWARF 5's DW_TAG_call_site is not read, as stap 4.8
 * does not read it. The array is the caller's; the names are the DWARF's. */
struct dw_call {
	const char *name;
	uint64_t callee;
	uint64_t return_pc;
};
struct dw_call *dwpoints_calls_in(const struct dwpoints *dp, uint64_t die, size_t *count);

/* Whether `site` (its DIE's ranges) has code at `pc`. */
bool dwpoints_site_has(const struct dwpoints *dp, const struct dw_site *site, uint64_t pc);

/* The source lines of `site` (an out-of-line function or an inlined instance) that have
 * code in it, in its declaration's file, each with the lowest address in it that has the
 * line, in line order. With `from_entry`, stap's "*": only the lines from the one at the
 * site's entry on, in the order of the file's lines, up to the first that has no code in
 * the site. The array is the caller's. */
struct dw_line {
	int line;
	uint64_t pc;
};
struct dw_line_cache;
struct dw_line *dwpoints_lines(const struct dwpoints *dp, struct dw_line_cache **cache,
			       const struct dw_site *site, bool from_entry, size_t *count);
/* `cache` keeps a unit's line records between the calls for its sites; *cache NULL at
 * first, freed by this. */
void dwpoints_line_cache_free(struct dw_line_cache *cache);

#endif
