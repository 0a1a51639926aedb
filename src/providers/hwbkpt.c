// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kernel.data(ADDR)[.length(N)].write|.rw and kernel.data("SYMBOL").write|.rw: a hardware
 * watchpoint on a kernel address (runtime/hwbkpt.h), reached from the kernel provider
 * (kernel.c) by its `data` component. As stap 4.8's: the SYMBOL is looked up when the
 * module starts (pass 2 takes any name), N is taken as written and mapped to a length the
 * CPU watches at the start (1, 2, 4, else 8), pp() is the point with its length,
 * `kernel.data(0x10).length(1).write`, and -p2 and -l show the point as written with its
 * address in hex, even through an alias. No target variables.
 */
#include "providers/providers.h"
#include "providers/emit.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* The accesses a point watches, in stap's order. */
static const char *const access_names[] = { "rw", "write", NULL };
static const char *const access_or_length[] = { "length", "rw", "write", NULL };

/* The point's text: its `data` argument, .length(N) as `length_text` has it (NULL:
 * none), the access and its marks. */
static char *hwbkpt_text(const struct derived_point *d, const struct probe_point *point,
			 const char *length_text)
{
	struct strbuf sb = { 0 };

	if (d->hwbkpt_symbol && *d->hwbkpt_symbol)
		sb_addf(&sb, "kernel.data(\"%s\")", d->hwbkpt_symbol);
	else if (d->address)
		sb_addf(&sb, "kernel.data(0x%" PRIx64 ")", d->address);
	else
		sb_add(&sb, "kernel");
	if (length_text)
		sb_addf(&sb, ".length(%s)", length_text);
	sb_add(&sb, d->hwbkpt_rw ? ".rw" : ".write");
	add_marks(&sb, point);
	return sb_steal(&sb);
}

static void derive_access(const struct probe_point *point, const struct component *data,
			  const struct component *length, bool rw,
			  struct derived_point ***tail)
{
	struct derived_point *d = derived_point_new(PROVIDER_HWBKPT, point);
	char *length_text = NULL, *pp_length;
	int64_t n = 1;

	if (length) {
		component_number(length, &n);
		length_text = xasprintf("%" PRId64, n);
	}
	d->hwbkpt_rw = rw;
	d->hwbkpt_length = n;
	if (component_string(data))
		d->hwbkpt_symbol = xstrdup(component_string(data));
	else
		component_number(data, (int64_t *)&d->address);
	/* stap shows the length as its runtime keeps it, an unsigned int. */
	pp_length = xasprintf("%" PRIu32, (uint32_t)n);
	free(d->pp);
	d->pp = hwbkpt_text(d, point, pp_length);
	/* Address 0 or "" (the runtime's lookup of "", which fails): stap's text has no
	 * data(...), and its origin is the point as written. */
	if (d->address || (d->hwbkpt_symbol && *d->hwbkpt_symbol)) {
		free(d->origin);
		d->origin = hwbkpt_text(d, point, length_text);
	}
	free(pp_length);
	free(length_text);
	add_derived_point(tail, d);
}

/* The access component: write or rw, or a wildcard matching them (each a point). */
static bool derive_accesses(const struct probe_point *point, const struct component *data,
			    const struct component *length, const struct component *access,
			    struct derived_point ***tail)
{
	bool matched = false;

	if (!access->arg)
		for (int i = 0; access_names[i]; i++)
			if (!fnmatch(access->name, access_names[i], 0)) {
				derive_access(point, data, length, !strcmp(access_names[i], "rw"),
					      tail);
				matched = true;
			}
	if (!matched) {
		provider_mismatch(point, access, length || component_string(data) ?
				  access_names : access_or_length);
		return false;
	}
	if (access->next) {
		provider_invalid_suffix(point, access->next);
		return false;
	}
	return true;
}

bool derive_kernel_data(const struct probe_point *point, const struct component *data,
			struct derived_point ***tail)
{
	const struct component *next = data->next, *length = NULL;
	int64_t n;

	if (!next) {
		provider_truncated(point, data, component_string(data) ? "rw write" :
				   "length(number) rw write");
		return false;
	}
	if (!component_string(data) && !strcmp(next->name, "length") &&
	    component_number(next, &n)) {
		length = next;
		next = next->next;
		if (!next) {
			provider_truncated(point, length, "rw write");
			return false;
		}
	}
	return derive_accesses(point, data, length, next, tail);
}

/* ---- Pass 3: runtime/hwbkpt.h's table ---- */

static void hwbkpt_point(struct emit_ctx *ctx, void *state, const struct derived_probe *p,
			 const struct derived_point *d, int pp)
{
	struct emit_one_table *s = state;
	char *symbol = ctx->c_string(d->hwbkpt_symbol ? d->hwbkpt_symbol : "");

	sb_addf(&s->entries, "\t{ .address = 0x%" PRIx64 "UL, .symbol = %s, .length = %" PRIu32
		"U, .rw = %d, .pp = &tap_pp_%d, .body = probe_%d },\n", d->address, symbol,
		(uint32_t)d->hwbkpt_length, d->hwbkpt_rw, pp, p->index);
	free(symbol);
	s->count++;
}

static const char *hwbkpt_type_name(const struct derived_point *d)
{
	(void)d;
	return "hardware_data_breakpoint";
}

const struct point_emitter emitter_hwbkpt = {
	.kinds = 1u << PROVIDER_HWBKPT,
	.type_name = hwbkpt_type_name,
	.state_size = sizeof(struct emit_one_table),
	.runtime_header = "hwbkpt.h",
	.point = hwbkpt_point,
	.count_macro = "TAP_NUM_HWBKPT",
	.table_decl = "static struct tap_hwbkpt tap_hwbkpts",
};
