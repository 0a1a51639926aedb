/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The providers' runtime parts, as the session sees them: each header (kprobes.h,
 * tracepoints.h, timers.h) gives functions that start and stop its probes, and module.h
 * goes through this list, knowing no kind of probe. Included by module.h, after the
 * generated tables. begin, end and error probes are not here: the session runs them
 * (been.h). A hook may be NULL.
 */
#ifndef TAP_PROVIDERS_H
#define TAP_PROVIDERS_H

#include "context.h"
#include "hwbkpt.h"
#include "kprobes.h"
#include "netfilter.h"
#include "perf.h"
#include "procfs.h"
#include "taskfinder.h"
#include "timers.h"
#include "tracepoints.h"
#include "uprobes.h"

struct tap_provider {
	int (*start)(void);		/* registers its probes; may sleep */
	void (*stop)(void);		/* unregisters them, all or what start did; may sleep */
	void (*report)(struct tap_context *c);	/* its lines in the closing report */
	bool (*poll)(void);		/* the session's poll: its deferred work; true if any */
	void (*quiesce)(void);		/* at unload, once nothing can queue its work */
	void (*progress)(int *done, int *total);	/* adds its points started so far and
							 * its points, while start runs */
};

/* Started in this order, stopped in the reverse one. */
static const struct tap_provider tap_providers[] = {
	/* before the kprobes: it takes the syscall points it serves from them */
	{ .start = tap_sysd_start, .stop = tap_sysd_stop },
	{ .start = tap_kernel_probes_start, .stop = tap_kernel_probes_stop,
	  .report = tap_kernel_probes_report, .poll = tap_conditions_poll,
	  .quiesce = tap_kernel_probes_quiesce, .progress = tap_kernel_probes_progress },
	{ .start = tap_tracepoints_start, .stop = tap_tracepoints_stop },
	{ .start = tap_timers_start, .stop = tap_timers_stop },
	{ .start = tap_profile_start, .stop = tap_profile_stop },
	{ .start = tap_uprobes_start, .stop = tap_uprobes_stop },
	{ .start = tap_perf_start, .stop = tap_perf_stop },
	{ .start = tap_procfs_start, .stop = tap_procfs_stop },
	{ .start = tap_netfilter_start, .stop = tap_netfilter_stop },
	{ .start = tap_process_events_start, .stop = tap_process_events_stop },
	{ .start = tap_hwbkpt_start, .stop = tap_hwbkpt_stop },
};

#define TAP_NUM_PROVIDERS ((int)ARRAY_SIZE(tap_providers))

static void tap_providers_stop(void)
{
	int i;

	for (i = TAP_NUM_PROVIDERS - 1; i >= 0; i--)
		tap_providers[i].stop();
}

/* On an error, what was started is stopped again. */
static int tap_providers_start(void)
{
	int i, rc = 0;

	for (i = 0; i < TAP_NUM_PROVIDERS && !rc; i++)
		rc = tap_providers[i].start();
	if (rc)
		tap_providers_stop();
	return rc;
}

static void tap_providers_report(struct tap_context *c)
{
	int i;

	for (i = 0; i < TAP_NUM_PROVIDERS; i++)
		if (tap_providers[i].report)
			tap_providers[i].report(c);
}

/* From the session's poll, never probe context; true when there was something to do. */
static bool tap_providers_poll(void)
{
	bool busy = false;
	int i;

	for (i = 0; i < TAP_NUM_PROVIDERS; i++)
		if (tap_providers[i].poll && tap_providers[i].poll())
			busy = true;
	return busy;
}

/* The points started so far and all of them, for ctl (any time, without a lock). */
static void tap_providers_progress(int *done, int *total)
{
	int i;

	*done = 0;
	*total = 0;
	for (i = 0; i < TAP_NUM_PROVIDERS; i++)
		if (tap_providers[i].progress)
			tap_providers[i].progress(done, total);
}

static void tap_providers_quiesce(void)
{
	int i;

	for (i = 0; i < TAP_NUM_PROVIDERS; i++)
		if (tap_providers[i].quiesce)
			tap_providers[i].quiesce();
}

#endif
