/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel.function and kernel.statement points that need DWARF (dwarf_function.c). */
#ifndef TAPSTER_DWARF_POINTS_H
#define TAPSTER_DWARF_POINTS_H

#include "providers/providers.h"

struct debuginfo;

/* What a function point's suffix asks for: every site, the out-of-line copies (.call),
 * the inlined instances (.inline), the exported copies (.exported), a return probe, the
 * callees (.callees(depth), or .callee("pattern") at depth 1). */
struct dw_function_query {
	enum { DW_ALL, DW_CALL, DW_INLINE, DW_EXPORTED, DW_RETURN, DW_CALLEES } which;
	int64_t maxactive;
	int64_t depth;
	const char *callee;	/* NULL: any */
};

/* kernel.function(SPEC) resolved against the DWARF of `di`; false after an error. */
bool derive_dwarf_function(const struct probe_point *point, const struct component *func,
			   const struct dw_function_query *q, const struct provider_env *env,
			   const struct debuginfo *di, struct derived_point ***tail);
/* kernel.statement(SPEC), SPEC a string. */
bool derive_dwarf_statement(const struct probe_point *point, const struct component *stmt,
			    const struct provider_env *env, const struct debuginfo *di,
			    struct derived_point ***tail);

/* stap's error for a point that needs the DWARF the target lacks: "missing x86_64
 * kernel/module debuginfo [man warning::debuginfo] under 'BUILD'". */
void dwarf_missing(const struct probe_point *point, const struct provider_env *env);

#endif
