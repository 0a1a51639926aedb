/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timer.ms(N) and the other interval probes: one hrtimer each, not bound to a CPU, its
 * callback running the probe body in interrupt context. A jiffies interval is given as
 * -N (the translator does not know HZ); a randomized one moves each period by a uniform
 * -M..+M.
 *
 * The generated module defines tap_timers[TAP_NUM_TIMERS].
 *
 * timer.profile.tick: one hrtimer per online CPU, pinned to it, in hard interrupt context,
 * firing every tick (TICK_NSEC); each expiry runs every profile probe in turn, with the
 * registers of what it interrupted. A CPU that comes online during the session starts its
 * timer, one that goes offline cancels its own (a hotplug state: cpu_timers.h), so no CPU
 * fires for another. The generated module defines tap_profile_probes[TAP_NUM_PROFILE].
 */
#ifndef TAP_TIMERS_H
#define TAP_TIMERS_H

#include <linux/hrtimer.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/smp.h>
#include <asm/irq_regs.h>

#include "context.h"
#include "cpu_timers.h"
#include "kprobes.h"

struct tap_timer {
	struct hrtimer timer;
	s64 interval;		/* ns, or -jiffies */
	s64 randomize;		/* ns, or -jiffies */
	const struct tap_probe_point *pp;
	void (*body)(struct tap_context *c);
	bool started;
};

#ifndef TAP_NUM_TIMERS
#define TAP_NUM_TIMERS 0
#endif
#ifndef TAP_NUM_PROFILE
#define TAP_NUM_PROFILE 0
#endif

#if TAP_NUM_TIMERS > 0
static struct tap_timer tap_timers[TAP_NUM_TIMERS];	/* the generated module's */
#else
static struct tap_timer *const tap_timers __maybe_unused;
#endif

static s64 tap_timer_ns(s64 value)
{
	return value < 0 ? (s64)jiffies_to_nsecs((unsigned long)-value) : value;
}

/* The next period: the interval, moved by -randomize..+randomize. */
static ktime_t tap_timer_period(const struct tap_timer *t)
{
	s64 period = tap_timer_ns(t->interval);
	s64 spread = tap_timer_ns(t->randomize);

	if (spread)
		period += (s64)(get_random_u32() % (u32)(2 * spread + 1)) - spread;
	return ns_to_ktime(max_t(s64, period, 1));
}

static enum hrtimer_restart tap_timer_fn(struct hrtimer *timer)
{
	struct tap_timer *t = container_of(timer, struct tap_timer, timer);

	tap_context_run(t->pp, NULL, t->body);
	if (tap_session_state() >= TAP_STOPPING)
		return HRTIMER_NORESTART;
	hrtimer_forward_now(timer, tap_timer_period(t));
	return HRTIMER_RESTART;
}

static __maybe_unused void tap_start_timers(struct tap_timer *timers, int count)
{
	int i;

	for (i = 0; i < count; i++) {
		hrtimer_init(&timers[i].timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
		timers[i].timer.function = tap_timer_fn;
		hrtimer_start(&timers[i].timer, tap_timer_period(&timers[i]), HRTIMER_MODE_REL);
		timers[i].started = true;
	}
}

/* Cancels the timers and waits for running callbacks; may sleep. */
static __maybe_unused void tap_stop_timers(struct tap_timer *timers, int count)
{
	int i;

	for (i = 0; i < count; i++) {
		if (!timers[i].started)
			continue;
		hrtimer_cancel(&timers[i].timer);
		timers[i].started = false;
	}
}

#if TAP_NUM_PROFILE > 0
static DEFINE_PER_CPU(struct tap_cpu_timer, tap_profile_cpus);
static int tap_profile_hotplug;		/* the hotplug state, 0 when none */
/* Defined (constant) by the generated module after its probe bodies: the compiler sees its
 * entries, so the loop below calls each body directly, without an indirect call. */
static const struct tap_been_probe tap_profile_probes[TAP_NUM_PROFILE];

static enum hrtimer_restart tap_profile_fn(struct hrtimer *timer)
{
	struct pt_regs *regs = get_irq_regs();
	int i;

	for (i = 0; i < TAP_NUM_PROFILE; i++) {
		struct tap_context *c = tap_context_enter(tap_profile_probes[i].pp, regs,
							  TAP_RUNNING);

		if (!c)
			continue;
		tap_profile_probes[i].body(c);
		tap_context_exit(c);
	}
	if (tap_session_state() >= TAP_STOPPING)
		return HRTIMER_NORESTART;
	return tap_cpu_timer_forward(timer);
}

/* Runs on each CPU, interrupts off: starts its timer there. */
static void tap_profile_start_cpu(void *unused)
{
	tap_cpu_timer_start(this_cpu_ptr(&tap_profile_cpus), tap_profile_fn,
			    ns_to_ktime(TICK_NSEC));
}

/* The hotplug callbacks, on the CPU itself. */
static int tap_profile_cpu_online(unsigned int cpu)
{
	tap_cpu_timer_start(per_cpu_ptr(&tap_profile_cpus, cpu), tap_profile_fn,
			    ns_to_ktime(TICK_NSEC));
	return 0;
}

static int tap_profile_cpu_offline(unsigned int cpu)
{
	tap_cpu_timer_cancel(per_cpu_ptr(&tap_profile_cpus, cpu));
	return 0;
}

static __maybe_unused int tap_start_profile_timers(void)
{
	int rc = 0;

	cpus_read_lock();
	on_each_cpu(tap_profile_start_cpu, NULL, 1);
	if (!tap_profile_hotplug)
		rc = tap_hotplug_add(&tap_profile_hotplug, "tapster/profile:online",
				     tap_profile_cpu_online, tap_profile_cpu_offline);
	cpus_read_unlock();
	if (rc)
		tap_report_registration_error(tap_profile_probes[0].pp, rc);
	return rc;
}

/* Cancels the timers and waits for running callbacks; may sleep. */
static __maybe_unused void tap_stop_profile_timers(void)
{
	int cpu;

	cpus_read_lock();
	tap_hotplug_remove(&tap_profile_hotplug);
	for_each_possible_cpu(cpu)
		tap_cpu_timer_cancel(per_cpu_ptr(&tap_profile_cpus, cpu));
	cpus_read_unlock();
}
#endif


/* ---- The provider's parts in the session (providers.h) ---- */

static int tap_timers_start(void)
{
	if (TAP_NUM_TIMERS)
		tap_start_timers(tap_timers, TAP_NUM_TIMERS);
	return 0;
}

static void tap_timers_stop(void)
{
	if (TAP_NUM_TIMERS)
		tap_stop_timers(tap_timers, TAP_NUM_TIMERS);
}

static int tap_profile_start(void)
{
#if TAP_NUM_PROFILE > 0
	return tap_start_profile_timers();
#else
	return 0;
#endif
}

static void tap_profile_stop(void)
{
#if TAP_NUM_PROFILE > 0
	tap_stop_profile_timers();
#endif
}

#endif
