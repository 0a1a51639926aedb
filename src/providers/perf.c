// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * perf.type(T).config(C)[.sample(N)]: a perf event of type T and config C (the kernel's
 * struct perf_event_attr), counted on every CPU, the probe run every N events (stap's
 * default: 1000000). perf.type(T).config(C).process["PATH"] counts in the processes that
 * run PATH (without one, the -c command), .counter("NAME") only counts, for @perf("NAME")
 * (no probe body runs); -p2 shows their period as stap does, 0 for a counter. The tapset's
 * perf.hw.*, perf.sw.* and perf.hw_cache.* (tapsets/perf.stp) name the usual events.
 * runtime/perf.h runs them: the system-wide points on every CPU, the .process ones in the
 * tasks running PATH; @perf("NAME") reads a counter (src/resolve/target_perf.c). A counter
 * without .process counts in the file of the probe that reads it.
 */
#include "providers/providers.h"
#include "providers/emit.h"

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "util.h"

#define PERF_DEFAULT_SAMPLE 1000000
/* The software event of the CPU clock (linux/perf_event.h: PERF_TYPE_SOFTWARE,
 * PERF_COUNT_SW_CPU_CLOCK): timer.profile's. */
#define PERF_TYPE_SOFTWARE 1
#define PERF_COUNT_SW_CPU_CLOCK 0

/* What perf.type(T).config(C) may be followed by. */
struct perf_suffix {
	int64_t sample;
	char *process;	/* absolute, or as written when not found; NULL for none */
	const char *counter;
};

static bool perf_error(const struct probe_point *point, const char *reason)
{
	provider_refuse(point, reason);
	return false;
}

/* .sample(N): N > 0, else stap's error at the number. */
static bool read_sample(const struct probe_point *point, const struct component *comp,
			int64_t *sample)
{
	char *text;

	if (!component_number(comp, sample))
		return false;
	if (*sample > 0)
		return true;
	text = xasprintf("%" PRId64, *sample < 0 ? -*sample : *sample);
	provider_resolving(point);
	diag_continue();
	diag_error_at("semantic error", &(struct token_desc){ "number", text }, comp->arg->loc,
		      "invalid perf sample period %" PRId64, *sample);
	free(text);
	return false;
}

/* .process("PATH") or .process (the -c command's program). */
static bool read_process(const struct probe_point *point, const struct component *comp,
			 const struct provider_env *env, char **process)
{
	const char *written = component_string(comp);
	char path[PATH_MAX], *command = NULL;

	if (!written) {
		if (!env->command)
			return perf_error(point, "unspecified process probe is invalid without a"
					  " -c COMMAND [man stapprobes]");
		command = xasprintf("%.*s", (int)strcspn(env->command, " \t"), env->command);
		written = command;
	}
	*process = xstrdup(find_executable(written, path) ? path : written);
	free(command);
	return true;
}

static bool read_counter(const struct probe_point *point, const struct component *comp,
			 const char **counter)
{
	*counter = component_string(comp);
	if (!**counter)
		return perf_error(point, "missing perf probe counter component name");
	if (strpbrk(*counter, "*?["))
		return perf_error(point, "wildcard not allowed with perf probe counter component");
	return true;
}

static bool is_named(const struct component *comp, const char *name, bool string_arg)
{
	return comp && !strcmp(comp->name, name) &&
	       (string_arg ? !comp->arg || comp->arg->kind == N_STRING : !comp->arg);
}

/*
 * The counters derived so far, by name and where their .counter is written: a name once
 * (stap's "duplicate counter name", at the component after config(C)); the same point
 * derived again (through an alias used twice, a wildcard) is not another counter.
 */
static struct counter_seen { char *name; struct loc loc; } *counters_seen;
static size_t ncounters_seen;

static bool same_loc(struct loc a, struct loc b)
{
	return a.source == b.source && a.line == b.line && a.col == b.col &&
	       a.expansion == b.expansion;
}

static bool note_counter(const struct probe_point *point, const struct component *first,
			 const struct component *comp)
{
	for (size_t i = 0; i < ncounters_seen; i++) {
		if (strcmp(counters_seen[i].name, comp->arg->text))
			continue;
		if (same_loc(counters_seen[i].loc, comp->loc))
			return true;
		provider_error_at(point, first, "duplicate counter name");
		return false;
	}
	counters_seen = xrealloc(counters_seen, (ncounters_seen + 1) * sizeof(*counters_seen));
	counters_seen[ncounters_seen++] = (struct counter_seen){ xstrdup(comp->arg->text),
								 comp->loc };
	return true;
}

static void forget_counters(void)
{
	for (size_t i = 0; i < ncounters_seen; i++)
		free(counters_seen[i].name);
	free(counters_seen);
	counters_seen = NULL;
	ncounters_seen = 0;
}

/* What follows config(C): .sample(N), or [.process[("PATH")]][.counter("NAME")]. */
static bool read_suffix(const struct probe_point *point, const struct component *comp,
			const struct provider_env *env, struct perf_suffix *s)
{
	const struct component *first = comp;

	s->sample = PERF_DEFAULT_SAMPLE;
	if (comp && !strcmp(comp->name, "sample") && comp->arg && comp->arg->kind == N_NUMBER) {
		if (!read_sample(point, comp, &s->sample))
			return false;
		comp = comp->next;
	} else {
		if (is_named(comp, "process", true)) {
			/* stap takes nothing after a bare .process */
			if (!comp->arg && comp->next) {
				provider_invalid_suffix(point, comp);
				return false;
			}
			if (!read_process(point, comp, env, &s->process))
				return false;
			comp = comp->next;
		}
		if (comp && !strcmp(comp->name, "counter") && component_string(comp)) {
			if (!read_counter(point, comp, &s->counter) ||
			    !note_counter(point, first, comp))
				return false;
			s->sample = 0;
			comp = comp->next;
		}
	}
	if (comp) {
		provider_invalid_suffix(point, comp);
		return false;
	}
	return true;
}

/* perf.type(T).config(C).sample(N)[.process("PATH")][.counter("NAME")], and the marks. */
static char *perf_point_text(const struct derived_point *d, const struct probe_point *point)
{
	struct strbuf sb = { 0 };

	sb_addf(&sb, "perf.type(%" PRId64 ").config(%" PRId64 ").sample(%" PRId64 ")",
		d->perf_type, d->perf_config, d->perf_sample);
	if (d->perf_process)
		sb_addf(&sb, ".process(\"%s\")", d->perf_process);
	if (d->perf_counter)
		sb_addf(&sb, ".counter(\"%s\")", d->perf_counter);
	add_marks(&sb, point);
	return sb_steal(&sb);
}

static bool derive_perf(const struct probe_point *point, const struct provider_env *env,
			struct derived_point ***tail)
{
	static const char *const first_names[] = { "hw", "hw_cache", "sw", "type", NULL };
	static const char *const config_names[] = { "config", NULL };
	const struct component *type = point->components->next, *config;
	struct perf_suffix s = { 0 };
	struct derived_point *d;
	int64_t type_n, config_n;

	if (point->components->arg) {
		provider_mismatch(point, point->components, NULL);
		return false;
	}
	if (!type) {
		provider_truncated(point, point->components, "hw hw_cache sw type(number)");
		return false;
	}
	if (strcmp(type->name, "type") || !component_number(type, &type_n)) {
		provider_mismatch(point, type, first_names);
		return false;
	}
	config = type->next;
	if (!config) {
		provider_truncated(point, type, "config(number)");
		return false;
	}
	if (strcmp(config->name, "config") || !component_number(config, &config_n)) {
		provider_mismatch(point, config, config_names);
		return false;
	}
	if (!read_suffix(point, config->next, env, &s)) {
		free(s.process);
		return false;
	}
	d = derived_point_new(PROVIDER_PERF, point);
	d->perf_type = type_n;
	d->perf_config = config_n;
	d->perf_sample = s.sample;
	d->perf_process = s.process;
	d->perf_counter = s.counter ? xstrdup(s.counter) : NULL;
	free(d->pp);
	d->pp = perf_point_text(d, point);
	add_derived_point(tail, d);
	return true;
}

static const struct probe_type perf_types[] = {
	{ "perf.type(number).config(number)", false },
	{ "perf.type(number).config(number).sample(number)", false },
	{ NULL, false },
};

const struct provider provider_perf = {
	.name = "perf", .derive = derive_perf, .types = perf_types, .forget = forget_counters,
};

/* ---- Pass 3: runtime/perf.h's table ---- */

/* The file a counter without .process counts in: that of the first probe on
 * process("PATH").function points reading it (target_perf.c), else NULL (never read). */
static const char *counter_reader_file(const struct program *program, const char *counter)
{
	for (const struct derived_probe *p = program->probes; p; p = p->next)
		for (int i = 0; i < p->nperf_reads; i++)
			if (!strcmp(p->perf_reads[i], counter) && p->points)
				return p->points->symbol;
	return NULL;
}

/* A point that samples the CPU clock on every CPU: runtime/perf.h runs it on hrtimers of its
 * own, whose callback is its handler here (the body called directly, the context taken as
 * the body needs), not on a perf event. */
static bool perf_clock_point(const struct derived_point *d)
{
	return d->perf_type == PERF_TYPE_SOFTWARE && d->perf_config == PERF_COUNT_SW_CPU_CLOCK &&
	       d->perf_sample > 0 && !d->perf_process && !d->perf_counter;
}

/* The hrtimer callback of CPU clock point `pp`, tap_perf_clock_PP(). */
static void perf_clock_handler(struct emit_ctx *ctx, const struct derived_probe *p, int pp)
{
	char *descriptor = xasprintf("&tap_pp_%d", pp);

	sb_addf(ctx->points, "static enum hrtimer_restart tap_perf_clock_%d(struct hrtimer *timer)\n"
		"{\n", pp);
	emit_handler(ctx, p->index, &(struct handler_text){
		descriptor, "", false, "", "", "\treturn tap_perf_clock_forward(timer);\n}\n\n",
		false, "get_irq_regs()" });
	free(descriptor);
}

static void perf_point(struct emit_ctx *ctx, void *state, const struct derived_probe *p,
		       const struct derived_point *d, int pp)
{
	struct emit_one_table *s = state;
	const char *file = d->perf_process;
	char *path, *counter, *clock;

	if (!file && d->perf_counter)
		file = counter_reader_file(ctx->program, d->perf_counter);
	path = file ? ctx->c_string(file) : xstrdup("NULL");
	counter = d->perf_counter ? ctx->c_string(d->perf_counter) : xstrdup("NULL");
	clock = perf_clock_point(d) ? xasprintf("tap_perf_clock_%d", pp) : xstrdup("NULL");
	if (perf_clock_point(d))
		perf_clock_handler(ctx, p, pp);
	sb_addf(&s->entries, "\t{ .type = (u32)%" PRId64 ", .config = (u64)%" PRId64 ", .sample = %"
		PRId64 "ULL, .pp = &tap_pp_%d, .body = probe_%d, .clock = %s, .path = %s,"
		" .counter = %s },\n", d->perf_type, d->perf_config, d->perf_sample, pp, p->index,
		clock, path, counter);
	s->count++;
	free(path);
	free(counter);
	free(clock);
}

static const char *perf_type_name(const struct derived_point *d)
{
	(void)d;
	return "perf_event";
}

const struct point_emitter emitter_perf = {
	.kinds = 1u << PROVIDER_PERF,
	.type_name = perf_type_name,
	.state_size = sizeof(struct emit_one_table),
	.runtime_header = "perf.h",
	.point = perf_point,
	.count_macro = "TAP_NUM_PERF",
	.table_decl = "static struct tap_perf tap_perfs",
};
