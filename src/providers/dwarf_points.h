/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel.function and kernel.statement points that need DWARF (dwarf_function.c). */
#ifndef TAPSTER_DWARF_POINTS_H
#define TAPSTER_DWARF_POINTS_H

#include "providers/providers.h"

struct debuginfo;

/* What a function point's suffix asks for: every site, the out-of-line copies (.call),
 * the inlined instances (.inline), the exported copies (.exported), a return probe, the
 * callees (.callees(depth), or .callee("pattern") at depth 1), the labels (.label("L"):
 * a user-space file's). */
struct dw_function_query {
	enum { DW_ALL, DW_CALL, DW_INLINE, DW_EXPORTED, DW_RETURN, DW_CALLEES, DW_LABEL } which;
	int64_t maxactive;
	int64_t depth;
	const char *callee;	/* NULL: any */
	const char *label;	/* DW_LABEL: a glob */
	/* DW_CALLEES of .callee("g").call or .return: that component (shown after the
	 * callee's point and its origin), and whether it is .return; NULL, false otherwise. */
	const struct component *callee_suffix;
	bool callee_return;
};

/* kernel.function(SPEC) resolved against the DWARF of `di`; false after an error. */
bool derive_dwarf_function(const struct probe_point *point, const struct component *func,
			   const struct dw_function_query *q, const struct provider_env *env,
			   const struct debuginfo *di, struct derived_point ***tail);
/* kernel.statement(SPEC), SPEC a string. */
bool derive_dwarf_statement(const struct probe_point *point, const struct component *stmt,
			    const struct provider_env *env, const struct debuginfo *di,
			    struct derived_point ***tail);

/* A user-space file whose DWARF gives process("PATH") points. */
struct dwtypes;
struct dw_user_file {
	const char *path;	/* the host's */
	const char *target;	/* the target's: the uprobe's file, pp()'s */
	const char *exe;	/* the process's file (the target's), as the origin names it */
	const char *library;	/* the .library component as shown, or NULL */
	bool dynamic;		/* ET_DYN: -p2 shows pc=.dynamic+PC, else .absolute+OFFSET */
	struct dwtypes *dt;	/* its DWARF, or NULL */
};

/* process(...)[.library("LIB")].function(SPEC) (q: DW_ALL, DW_CALL, DW_INLINE, DW_RETURN,
 * DW_CALLEES, DW_LABEL) from the DWARF of `file`: SPEC's sites as for the kernel, uprobes at
 * their pcs (past the prologue as --prologue-searching says), at their inlined callees'
 * entries or at their labels; how many points. Nothing is said when none fits
 * (the caller's "no match"). */
size_t derive_dwarf_user_function(const struct probe_point *point, const struct component *func,
				  const struct dw_function_query *q,
				  const struct provider_env *env, const struct dw_user_file *file,
				  struct derived_point ***tail);
/* process(...)[.library("LIB")].statement(SPEC): how many points; none after stap's "no
 * line records" error, or silently (the caller's "no match"). */
size_t derive_dwarf_user_statement(const struct probe_point *point, const struct component *stmt,
				   const struct provider_env *env,
				   const struct dw_user_file *file, struct derived_point ***tail);

/* stap's error for a point that needs the DWARF the target lacks: "missing x86_64
 * kernel/module debuginfo [man warning::debuginfo] under 'BUILD'". */
void dwarf_missing(const struct probe_point *point, const struct provider_env *env);

#endif
