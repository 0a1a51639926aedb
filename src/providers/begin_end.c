// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * begin, end, error (each with an optional priority N) and never: begin probes run once at
 * the start of the session, end probes at its end, error probes at its end instead of end
 * probes when it had errors; lower priorities first. never probes are checked and compiled
 * but never run.
 */
#include "providers/providers.h"
#include "providers/emit.h"

#include <stdint.h>
#include <stdlib.h>

static bool derive_been(const struct probe_point *point, struct derived_point ***tail,
			enum provider_kind kind)
{
	const struct component *comp = point->components;
	struct derived_point *d;
	int64_t priority = 0;

	if (comp->next) {
		provider_invalid_suffix(point, comp->next);
		return false;
	}
	if (comp->arg && !component_number(comp, &priority)) {
		provider_mismatch(point, comp, NULL);
		return false;
	}
	d = derived_point_new(kind, point);
	d->priority = priority;
	**tail = d;
	*tail = &d->next;
	return true;
}

static bool derive_begin(const struct probe_point *point, const struct provider_env *env,
			 struct derived_point ***tail)
{
	(void)env;
	return derive_been(point, tail, PROVIDER_BEGIN);
}

static bool derive_end(const struct probe_point *point, const struct provider_env *env,
		       struct derived_point ***tail)
{
	(void)env;
	return derive_been(point, tail, PROVIDER_END);
}

static bool derive_error(const struct probe_point *point, const struct provider_env *env,
			 struct derived_point ***tail)
{
	(void)env;
	return derive_been(point, tail, PROVIDER_ERROR);
}

static bool derive_never(const struct probe_point *point, const struct provider_env *env,
			 struct derived_point ***tail)
{
	(void)env;
	if (point->components->arg) {
		provider_mismatch(point, point->components, NULL);
		return false;
	}
	return derive_been(point, tail, PROVIDER_NEVER);
}

static const struct probe_type begin_types[] = {
	{ "begin", true },
	{ "begin(number)", true },
	{ NULL, false },
};

const struct provider provider_begin = {
	.name = "begin", .derive = derive_begin, .types = begin_types,
};

static const struct probe_type end_types[] = {
	{ "end", true },
	{ "end(number)", true },
	{ NULL, false },
};

const struct provider provider_end = {
	.name = "end", .derive = derive_end, .types = end_types,
};

static const struct probe_type error_types[] = {
	{ "error", true },
	{ "error(number)", true },
	{ NULL, false },
};

const struct provider provider_error = {
	.name = "error", .derive = derive_error, .types = error_types,
};

static const struct probe_type never_types[] = {
	{ "never", true },
	{ NULL, false },
};

const struct provider provider_never = {
	.name = "never", .derive = derive_never, .types = never_types,
};

/* ---- Pass 3: the runtime's tables of probes run once (runtime/module.h) ---- */

static const struct {
	enum provider_kind kind;
	const char *table;	/* tap_NAME_probes */
	const char *macro;	/* TAP_NUM_NAME */
} been_tables[3] = {
	{ PROVIDER_BEGIN, "begin", "BEGIN" },
	{ PROVIDER_END, "end", "END" },
	{ PROVIDER_ERROR, "error", "ERROR" },
};

struct been_state {
	struct strbuf tables[3];	/* by been_tables' order */
	int counts[3];
};

static void been_point(struct emit_ctx *ctx, struct been_state *s, int table,
		       const struct derived_probe *p, const struct derived_point *d)
{
	int pp = ctx->descriptor(ctx, p, d);

	sb_addf(&s->tables[table], "\t{ .pp = &tap_pp_%d, .body = probe_%d },\n", pp, p->index);
	s->counts[table]++;
}

/* The lowest priority above `above` (all when !*any) of the points of `kind`. */
static int64_t next_priority(const struct program *program, enum provider_kind kind,
			     int64_t above, bool *any)
{
	int64_t next = INT64_MAX;
	bool first = !*any;

	*any = false;
	for (const struct derived_probe *p = program->probes; p; p = p->next)
		for (const struct derived_point *d = p->points; d; d = d->next)
			if (d->kind == kind && (first || d->priority > above) &&
			    (!*any || d->priority <= next)) {
				next = d->priority;
				*any = true;
			}
	return next;
}

/* begin, end and error probes run by priority, in source order among equals. */
static void collect_been(struct emit_ctx *ctx, struct been_state *s, int table)
{
	enum provider_kind kind = been_tables[table].kind;
	bool any = false;

	for (int64_t prio = next_priority(ctx->program, kind, 0, &any); any;
	     prio = next_priority(ctx->program, kind, prio, &any))
		for (const struct derived_probe *p = ctx->program->probes; p; p = p->next)
			for (const struct derived_point *d = p->points; d; d = d->next)
				if (d->kind == kind && d->priority == prio)
					been_point(ctx, s, table, p, d);
}

static void been_module_end(struct emit_ctx *ctx, void *state)
{
	for (int t = 0; t < 3; t++)
		collect_been(ctx, state, t);
}

static void been_write_counts(const void *state, FILE *out)
{
	const struct been_state *s = state;

	for (int t = 0; t < 3; t++)
		fprintf(out, "#define TAP_NUM_%s %d\n", been_tables[t].macro, s->counts[t]);
}

static void been_write_tables(const void *state, FILE *out)
{
	const struct been_state *s = state;

	for (int t = 0; t < 3; t++)
		fprintf(out, "static const struct tap_been_probe tap_%s_probes[] = {\n%s\t{ NULL },\n};\n\n",
			been_tables[t].table, s->tables[t].buf ? s->tables[t].buf : "");
}

static void been_release(void *state)
{
	struct been_state *s = state;

	for (int t = 0; t < 3; t++)
		free(s->tables[t].buf);
}

static const char *been_type_name(const struct derived_point *d)
{
	(void)d;
	return "begin_end";
}

const struct point_emitter emitter_been = {
	.kinds = 1u << PROVIDER_BEGIN | 1u << PROVIDER_END | 1u << PROVIDER_ERROR,
	.type_name = been_type_name,
	.state_size = sizeof(struct been_state),
	.module_end = been_module_end,
	.write_counts = been_write_counts,
	.write_tables = been_write_tables,
	.release = been_release,
};
