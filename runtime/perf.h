/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf.type(T).config(C).sample(N): a kernel perf counter of the event on every online CPU
 * (perf_event_create_kernel_counter()), whose overflow, every N events, runs the probe
 * body with the registers of what it interrupted. The handler may run in NMI context (a
 * hardware event), in interrupt context (cpu_clock's hrtimer) or with preemption off in a
 * task (page faults, context switches): it only takes this CPU's context, as every probe
 * handler does, and a hit that finds it taken is skipped.
 *
 * An event the kernel refuses (a hardware one where there is no PMU) is stap's
 * registration error, which ends the session. The counters are released at the stop;
 * releasing one takes it off its CPU, after which its handler no longer runs.
 *
 * The generated module defines tap_perfs[TAP_NUM_PERF].
 */
#ifndef TAP_PERF_H
#define TAP_PERF_H

#include <linux/cpu.h>
#include <linux/err.h>
#include <linux/perf_event.h>
#include <linux/slab.h>

#include "context.h"
#include "kprobes.h"

struct tap_perf {
	u32 type;
	u64 config;
	u64 sample;
	const struct tap_probe_point *pp;
	void (*body)(struct tap_context *c);
	struct perf_event **events;	/* one per possible CPU, NULL where none */
};

#ifndef TAP_NUM_PERF
#define TAP_NUM_PERF 0
#endif

#if TAP_NUM_PERF > 0
static struct tap_perf tap_perfs[TAP_NUM_PERF];	/* the generated module's */

static void tap_perf_overflow(struct perf_event *event, struct perf_sample_data *data,
			      struct pt_regs *regs)
{
	struct tap_perf *p = event->overflow_handler_context;

	tap_context_run(p->pp, regs, p->body);
}

static void tap_perf_release(struct tap_perf *p)
{
	int cpu;

	if (!p->events)
		return;
	for_each_possible_cpu(cpu)
		if (p->events[cpu])
			perf_event_release_kernel(p->events[cpu]);
	kfree(p->events);
	p->events = NULL;
}

static int tap_perf_create(struct tap_perf *p)
{
	struct perf_event_attr attr = {
		.type = p->type,
		.size = sizeof(attr),
		.config = p->config,
		.sample_period = p->sample,
	};
	int cpu, rc = 0;

	p->events = kcalloc(nr_cpu_ids, sizeof(*p->events), GFP_KERNEL);
	if (!p->events)
		return -ENOMEM;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct perf_event *event = perf_event_create_kernel_counter(&attr, cpu, NULL,
									    tap_perf_overflow, p);

		if (IS_ERR(event)) {
			rc = PTR_ERR(event);
			break;
		}
		p->events[cpu] = event;
	}
	cpus_read_unlock();
	return rc;
}
#endif

/* ---- The provider's parts in the session (providers.h) ---- */

static void tap_perf_stop(void)
{
#if TAP_NUM_PERF > 0
	int i;

	for (i = 0; i < TAP_NUM_PERF; i++)
		tap_perf_release(&tap_perfs[i]);
#endif
}

/* A counter the kernel refuses on any CPU is the registration error of its point; the
 * caller stops what was started. */
static int tap_perf_start(void)
{
#if TAP_NUM_PERF > 0
	int i, rc;

	for (i = 0; i < TAP_NUM_PERF; i++) {
		rc = tap_perf_create(&tap_perfs[i]);
		if (rc) {
			tap_report_registration_error(tap_perfs[i].pp, rc);
			return rc;
		}
	}
#endif
	return 0;
}

#endif
