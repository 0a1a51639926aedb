// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Floor of the benchmark's case (e):
 *   global n
 *   probe timer.profile { n++ }
 * by hand. timer.profile is stap's sample of every CPU every millisecond of its clock (a perf
 * event of the CPU clock, tapsets/perf.stp); what that event does beyond a timer (its count,
 * the sample's data, throttle accounting) the job does not need: a pinned hrtimer per CPU in
 * hard interrupt context, as the event's, firing every millisecond, adding one to this CPU's
 * counter.
 */
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/smp.h>

#include "floor_common.h"

static DEFINE_PER_CPU(struct hrtimer, floor_timers);
static DEFINE_PER_CPU(u64, floor_count);

static enum hrtimer_restart floor_tick(struct hrtimer *timer)
{
	this_cpu_inc(floor_count);
	hrtimer_forward_now(timer, ns_to_ktime(NSEC_PER_MSEC));
	return HRTIMER_RESTART;
}

static void floor_start_cpu(void *unused)
{
	struct hrtimer *timer = this_cpu_ptr(&floor_timers);

	hrtimer_init(timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	timer->function = floor_tick;
	hrtimer_start(timer, ns_to_ktime(NSEC_PER_MSEC), HRTIMER_MODE_REL_PINNED_HARD);
}

static int __init floor_init(void)
{
	on_each_cpu(floor_start_cpu, NULL, 1);
	return 0;
}

static void __exit floor_exit(void)
{
	u64 total = 0;
	int cpu;

	for_each_online_cpu(cpu)
		hrtimer_cancel(per_cpu_ptr(&floor_timers, cpu));
	for_each_possible_cpu(cpu)
		total += per_cpu(floor_count, cpu);
	pr_info("floor_e: hits %llu\n", total);
}

module_init(floor_init);
module_exit(floor_exit);
MODULE_LICENSE("GPL");
