// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * timer.UNIT(N)[.randomize(M)]: a probe run every N units, each period moved by a random
 * -M..+M when randomized. UNIT is s/sec, ms/msec, us/usec, ns/nsec, jiffies or hz (N per
 * second, not randomized). The limits and their messages are stap's.
 *
 * timer.profile.tick: a probe run on every CPU at each tick (runtime/timers.h), for
 * sampling what the CPUs are doing. timer.profile is the library's alias (tapsets/perf.stp),
 * as stap 4.8's: the CPU clock's perf counter, sampled every millisecond.
 */
#include "providers/providers.h"
#include "providers/emit.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "util.h"

#define NSEC_PER_SEC 1000000000LL
/* Any interval: 100 us to a day. */
#define MIN_INTERVAL_NS 100000LL
#define MAX_INTERVAL_NS (86400LL * NSEC_PER_SEC)
#define MAX_JIFFIES 1000000LL

struct unit {
	const char *name;
	int64_t ns;		/* one unit; 0 for jiffies and hz */
};

static const struct unit units[] = {
	{ "s", NSEC_PER_SEC }, { "sec", NSEC_PER_SEC },
	{ "ms", 1000000 }, { "msec", 1000000 },
	{ "us", 1000 }, { "usec", 1000 },
	{ "ns", 1 }, { "nsec", 1 },
	{ "jiffies", 0 }, { "hz", 0 },
};

#define NUNITS (sizeof(units) / sizeof(units[0]))

static const struct unit *find_unit(const char *name)
{
	for (size_t i = 0; i < NUNITS; i++)
		if (!strcmp(units[i].name, name))
			return &units[i];
	return NULL;
}

/* "while resolving probe point" and then stap's unlocated reason. */
static bool refuse(const struct probe_point *point, const char *reason)
{
	provider_resolving(point);
	diag_continue();
	diag_error("semantic error", "%s\n", reason);
	return false;
}

/* N in the unit's range, converted to nanoseconds; false after an error. */
static bool unit_interval(const struct probe_point *point, const struct unit *unit, int64_t n,
			  int64_t *ns)
{
	int64_t lowest = MIN_INTERVAL_NS / unit->ns > 0 ? MIN_INTERVAL_NS / unit->ns : 1;
	int64_t highest = MAX_INTERVAL_NS / unit->ns;

	if (n < lowest || n > highest) {
		char *reason = xasprintf("interval value out of range (%lld, %lld)",
					 (long long)lowest, (long long)highest);

		refuse(point, reason);
		free(reason);
		return false;
	}
	*ns = n * unit->ns;
	return true;
}

static bool hz_interval(const struct probe_point *point, int64_t n, int64_t *ns)
{
	if (n <= 0)
		return refuse(point, "frequency must be greater than 0");
	*ns = NSEC_PER_SEC / n;
	if (*ns < MIN_INTERVAL_NS) {
		char *reason = xasprintf("interval value out of range (%lld, %lld)",
					 MIN_INTERVAL_NS, MAX_INTERVAL_NS);

		refuse(point, reason);
		free(reason);
		return false;
	}
	return true;
}

/* The .randomize(M) component, when there is one; false after an error. */
static bool read_randomize(const struct probe_point *point, const struct component *comp,
			   const struct unit *unit, int64_t n, int64_t *m)
{
	bool jiffies = !strcmp(unit->name, "jiffies");
	struct token_desc bad;

	*m = 0;
	if (!comp)
		return true;
	bad = (struct token_desc){ "identifier", comp->name };
	if (strcmp(comp->name, "randomize") || !component_number(comp, m) || comp->next ||
	    !strcmp(unit->name, "hz")) {
		const struct component *wrong = strcmp(comp->name, "randomize") ||
						!component_number(comp, m) ? comp : comp->next;

		if (wrong)
			bad.text = wrong->name;
		provider_resolving(point);
		diag_continue();
		diag_error_at("semantic error", &bad, wrong ? wrong->loc : comp->loc,
			      "invalid suffix for probe");
		return false;
	}
	if (*m < 0 || *m > n)
		return refuse(point, jiffies ? "invalid randomize for jiffies timer"
					     : "randomization value out of range");
	return true;
}

/* timer.profile.tick (timer.profile alone is the library's alias). */
static bool derive_profile(const struct probe_point *point, const struct component *profile,
			   struct derived_point ***tail)
{
	const struct component *extra = profile->next;

	if (!extra) {
		provider_truncated(point, profile, "tick");
		return false;
	}
	if (!extra->arg && !strcmp(extra->name, "tick"))
		extra = extra->next;
	if (extra) {
		provider_invalid_suffix(point, extra);
		return false;
	}
	add_derived_point(tail, derived_point_new(PROVIDER_PROFILE, point));
	return true;
}

/* The units and profile, in stap's order. */
static const char *const unit_names[] = {
	"hz", "jiffies", "ms", "msec", "ns", "nsec", "profile", "s", "sec", "us", "usec", NULL,
};

static bool derive_timer(const struct probe_point *point, const struct provider_env *env,
			 struct derived_point ***tail)
{
	const char *names[NUNITS + 2] = { 0 };
	const struct component *unit_comp = point->components->next;
	const struct unit *unit = unit_comp ? find_unit(unit_comp->name) : NULL;
	struct derived_point *d;
	int64_t n, interval, m;

	(void)env;
	for (size_t i = 0; i < NUNITS; i++)
		names[i] = units[i].name;
	names[NUNITS] = "profile";
	if (!point->components->arg && unit_comp && !unit_comp->arg &&
	    !strcmp(unit_comp->name, "profile"))
		return derive_profile(point, unit_comp, tail);
	/* A wildcard names each unit it fits, and profile (timer.*(100), timer.prof*, -l). */
	if (!point->components->arg && unit_comp && strpbrk(unit_comp->name, "*?["))
		return provider_derive_each(point, unit_comp, unit_names, derive_timer, env, tail);
	if (!point->components->arg && !unit_comp) {
		provider_truncated(point, point->components,
				   "hz(number) jiffies(number) ms(number) msec(number) ns(number)"
				   " nsec(number) profile s(number) sec(number) us(number) usec(number)");
		return false;
	}
	if (point->components->arg || !unit || !component_number(unit_comp, &n)) {
		provider_mismatch(point, unit_comp ? unit_comp : point->components, names);
		return false;
	}
	if (!strcmp(unit->name, "jiffies")) {
		if (n < 1 || n > MAX_JIFFIES)
			return refuse(point, "invalid interval for jiffies timer");
		interval = -n;	/* jiffies: converted by the runtime, which knows HZ */
	} else if (!strcmp(unit->name, "hz")) {
		if (!hz_interval(point, n, &interval))
			return false;
	} else if (!unit_interval(point, unit, n, &interval)) {
		return false;
	}
	if (!read_randomize(point, unit_comp->next, unit, n, &m))
		return false;
	d = derived_point_new(PROVIDER_TIMER, point);
	d->interval_ns = interval;
	d->randomize_ns = unit->ns ? m * unit->ns : -m;
	**tail = d;
	*tail = &d->next;
	return true;
}

static const struct probe_type timer_types[] = {
	{ "timer.hz(number)", true },
	{ "timer.profile.tick", false },
	{ "timer.jiffies(number)", true },
	{ "timer.jiffies(number).randomize(number)", true },
	{ "timer.ms(number)", true },
	{ "timer.ms(number).randomize(number)", true },
	{ "timer.msec(number)", true },
	{ "timer.msec(number).randomize(number)", true },
	{ "timer.ns(number)", true },
	{ "timer.ns(number).randomize(number)", true },
	{ "timer.nsec(number)", true },
	{ "timer.nsec(number).randomize(number)", true },
	{ "timer.s(number)", true },
	{ "timer.s(number).randomize(number)", true },
	{ "timer.sec(number)", true },
	{ "timer.sec(number).randomize(number)", true },
	{ "timer.us(number)", true },
	{ "timer.us(number).randomize(number)", true },
	{ "timer.usec(number)", true },
	{ "timer.usec(number).randomize(number)", true },
	{ NULL, false },
};

const struct provider provider_timer = {
	.name = "timer", .derive = derive_timer, .types = timer_types,
};

/* ---- Pass 3: runtime/timers.h's tables ---- */

struct timers_state {
	struct strbuf timers, profile;
	int ntimers, nprofile;
};

static void timers_point(struct emit_ctx *ctx, void *state, const struct derived_probe *p,
			 const struct derived_point *d, int pp)
{
	struct timers_state *s = state;

	(void)ctx;
	if (d->kind == PROVIDER_PROFILE) {
		sb_addf(&s->profile, "\t{ .pp = &tap_pp_%d, .body = probe_%d },\n", pp, p->index);
		s->nprofile++;
		return;
	}
	sb_addf(&s->timers, "\t{ .interval = %lldLL, .randomize = %lldLL, .pp = &tap_pp_%d,"
		" .body = probe_%d },\n", (long long)d->interval_ns, (long long)d->randomize_ns,
		pp, p->index);
	s->ntimers++;
}

static void timers_write_counts(const void *state, FILE *out)
{
	const struct timers_state *s = state;

	fprintf(out, "#define TAP_NUM_TIMERS %d\n#define TAP_NUM_PROFILE %d\n", s->ntimers,
		s->nprofile);
}

static void timers_write_tables(const void *state, FILE *out)
{
	const struct timers_state *s = state;

	emit_table(out, "static struct tap_timer tap_timers", s->ntimers, &s->timers);
	emit_table(out, "static const struct tap_been_probe tap_profile_probes", s->nprofile,
		   &s->profile);
}

static void timers_release(void *state)
{
	struct timers_state *s = state;

	free(s->timers.buf);
	free(s->profile.buf);
}

/* Every interval runs from an hrtimer (runtime/timers.h), timer.profile's too. */
static const char *timers_type_name(const struct derived_point *d)
{
	return d->kind == PROVIDER_PROFILE ? "profile_timer" : "hrtimer";
}

const struct point_emitter emitter_timers = {
	.kinds = 1u << PROVIDER_TIMER | 1u << PROVIDER_PROFILE,
	.type_name = timers_type_name,
	.state_size = sizeof(struct timers_state),
	.runtime_header = "timers.h",
	.point = timers_point,
	.write_counts = timers_write_counts,
	.write_tables = timers_write_tables,
	.release = timers_release,
};
