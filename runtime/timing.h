/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * -t (a build with STP_TIMING): each probe point's hits and the cycles (get_cycles()) they
 * took, from entering the context to leaving it, kept per CPU in the context (a hit owns
 * its CPU's, so no atomics) and reported when the session ends, as stap's probe hit report:
 *
 *   ----- probe hit report:
 *   PP, (FILE:LINE:COL), hits: N, cycles: MINmin/AVGavg/MAXmax, variance: V, from: ..., index: I
 *   ----- refresh report:
 *
 * one line for each point that was hit, in the order of the program's points. The
 * translator writes tap_timing_points[] (what each line names, context.h) and
 * TAP_NUM_TIMING_POINTS.
 * Without STP_TIMING none of this is built, and a hit costs nothing more.
 */
#ifndef TAP_TIMING_H
#define TAP_TIMING_H

#ifdef STP_TIMING

#include "context.h"
#include "histogram.h"
#include "maps.h"
#include "print.h"
#include "pstat.h"

static void tap_timing_record(struct tap_context *c)
{
	struct tap_timing_part *part = &c->timing[c->pp->index];
	int64_t cycles = (int64_t)(get_cycles() - c->timing_start);

	tap_stat_add(&part->stat, cycles);
	tap_variance_add(&part->stat, &part->variance, cycles, 0);
}

/* The hits of point i on every CPU, gathered into `all` (its layout: a variance, no shift). */
static void tap_timing_gather(int i, struct tap_timing_part *all)
{
	static const struct tap_stat_layout layout = { .variance = true };
	struct tap_gather g;
	int cpu;

	tap_gather_start(&g, &all->stat, &layout);
	for_each_possible_cpu(cpu)
		tap_gather_add(&g, &tap_contexts[cpu]->timing[i].stat);
	if (tap_gather_spreads(&g))
		for_each_possible_cpu(cpu)
			tap_gather_spread(&g, &tap_contexts[cpu]->timing[i].stat);
	tap_gather_finish(&g);
}

static void tap_timing_line(struct tap_context *c, int i)
{
	const struct tap_timing_point *p = &tap_timing_points[i];
	struct tap_timing_part all;
	int n;

	tap_timing_gather(i, &all);
	if (!all.stat.count)
		return;
	n = scnprintf(c->message, sizeof(c->message),
		      "%s, (%s), hits: %lld, cycles: %lldmin/%lldavg/%lldmax, variance: %lld,%s, index: %d\n",
		      p->pp, p->location, (long long)all.stat.count, (long long)all.stat.min,
		      (long long)div64_s64(all.stat.sum, all.stat.count),
		      (long long)all.stat.max,
		      (long long)tap_unscaled_variance(all.variance.variance_s, 0),
		      p->derivation, i);
	tap_print_text(c, c->message, n);
}

/* At the end of the session, once no probe runs: on the script's standard output. */
static void __maybe_unused tap_report_timing(struct tap_context *c)
{
	static const char head[] = "----- probe hit report: \n";
	static const char refresh[] = "----- refresh report:\n";
	int i;

	tap_print_text(c, head, sizeof(head) - 1);
	for (i = 0; i < TAP_NUM_TIMING_POINTS; i++)
		tap_timing_line(c, i);
	tap_print_text(c, refresh, sizeof(refresh) - 1);
}

#endif
#endif
