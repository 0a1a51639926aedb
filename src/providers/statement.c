// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kernel.statement(ADDR).absolute and kprobe.statement(ADDR).absolute: a kprobe at the
 * kernel address ADDR, taken as it is. Only guru mode (-g) allows them, as in stap: nothing
 * checks that ADDR is the start of an instruction. kernel.statement("f@file:N") needs DWARF
 * (dwarf_function.c).
 */
#include "providers/dwarf_points.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "util.h"

/* The point as pp() shows it: the address in hex, kernel.statement(0xffffffff81234560). */
static char *point_text(const struct probe_point *point, uint64_t address)
{
	struct strbuf sb = { 0 };

	sb_addf(&sb, "%s.statement(0x%" PRIx64 ").absolute", point->components->name, address);
	add_marks(&sb, point);
	return sb_steal(&sb);
}

/* Without -g: stap's error, at the probe. */
static bool refuse_unprivileged(const struct probe_point *point, const struct provider_env *env)
{
	struct token_desc probe_keyword = { "keyword", NULL };

	struct token_desc first = { "identifier", point->components->name };

	/* stap reports this once for kernel.statement and once for kprobe.statement (they are
	 * raised at two places of its translator); diag tells places apart by format. */
	if (strcmp(point->components->name, "kprobe")) {
		provider_resolving(point);
		diag_continue();
		diag_error_at("semantic error", &probe_keyword, env->probe_loc,
			      "absolute statement probe in unprivileged script; need stap -g");
	} else {
		diag_error_at("semantic error", &first, point->components->loc, "%s",
			      "while resolving probe point");
		diag_continue();
		diag_error_at("semantic error", &probe_keyword, env->probe_loc,
			      "absolute statement probe in unprivileged script; need %s", "stap -g");
	}
	return false;
}

bool derive_statement(const struct probe_point *point, const struct component *stmt,
		      const struct provider_env *env, struct derived_point ***tail)
{
	bool is_kprobe = !strcmp(point->components->name, "kprobe");
	const struct component *absolute = stmt->next;
	struct derived_point *d;
	int64_t address;

	if (component_string(stmt)) {
		const struct debuginfo *di = env && env->debuginfo ? env->debuginfo(env->ctx) : NULL;

		if (di)
			return derive_dwarf_statement(point, stmt, env, di, tail);
		dwarf_missing(point, env);
		return false;
	}
	component_number(stmt, &address);
	if (!absolute && is_kprobe) {
		provider_truncated(point, stmt, "absolute");
		return false;
	}
	if (!absolute) {
		struct token_desc tok = component_token(stmt);

		diag_error_at("semantic error", &tok, stmt->loc,
			      "tapster cannot resolve kernel.statement(ADDR) points without"
			      " .absolute yet");
		return false;
	}
	if (absolute->arg || strcmp(absolute->name, "absolute")) {
		provider_invalid_suffix(point, absolute);
		return false;
	}
	if (absolute->next) {
		provider_invalid_suffix(point, absolute->next);
		return false;
	}
	if (!env || !env->guru)
		return refuse_unprivileged(point, env);
	d = derived_point_new(PROVIDER_KPROBE, point);
	free(d->pp);
	d->pp = point_text(point, (uint64_t)address);
	d->address = (uint64_t)address;
	free(d->comment);
	d->comment = is_kprobe ? xstrdup(" /*  name = */") :
				 xasprintf(" /* pc=+0x%" PRIx64 " */", (uint64_t)address);
	add_derived_point(tail, d);
	return true;
}
