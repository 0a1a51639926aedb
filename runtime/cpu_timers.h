/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-CPU hrtimers that follow CPU hotplug, for the points that sample every online CPU
 * (timer.profile.tick: timers.h; the CPU clock's points: perf.h), and the hotplug state
 * that makes them follow it.
 *
 * A provider starts its timers on the CPUs online at its start and adds a dynamic hotplug
 * state (CPUHP_AP_ONLINE_DYN), both under cpus_read_lock(), so that no CPU comes or goes
 * in between. The state's callbacks run on the CPU itself, in its hotplug thread
 * (preemptible, bound to it): `online` when it has come online, `offline` before it goes
 * (before its timers would be migrated to another CPU, at CPUHP_AP_HRTIMERS_DYING). So a CPU
 * that comes online during the session gets its timer, and one that goes offline cancels
 * its own, which therefore never fires on another CPU. At the stop the state is removed
 * first, then every timer cancelled, under the same lock: no callback can start one again.
 * A state is one of the kernel's 30 (6.1) or 40 (6.12) dynamic slots; a module takes at
 * most two (timers.h's, perf.h's); setting it up can fail with -ENOSPC when all are taken.
 */
#ifndef TAP_CPU_TIMERS_H
#define TAP_CPU_TIMERS_H

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/hrtimer.h>

struct tap_cpu_timer {
	struct hrtimer timer;
	ktime_t period;
	bool started;
};

/* Starts t on the calling CPU (interrupts off, or the CPU's hotplug thread), pinned, in hard
 * interrupt context, every `period`. */
static inline void tap_cpu_timer_start(struct tap_cpu_timer *t,
				       enum hrtimer_restart (*fn)(struct hrtimer *),
				       ktime_t period)
{
	if (t->started)
		return;
	hrtimer_init(&t->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	t->timer.function = fn;
	t->period = period;
	hrtimer_start(&t->timer, period, HRTIMER_MODE_REL_PINNED_HARD);
	t->started = true;
}

/* Cancels t if started and waits for its running callback; may sleep. */
static inline void tap_cpu_timer_cancel(struct tap_cpu_timer *t)
{
	if (!t->started)
		return;
	hrtimer_cancel(&t->timer);
	t->started = false;
}

/* The end of a timer's callback: its next period. */
static __always_inline enum hrtimer_restart tap_cpu_timer_forward(struct hrtimer *timer)
{
	struct tap_cpu_timer *t = container_of(timer, struct tap_cpu_timer, timer);

	hrtimer_forward_now(timer, t->period);
	return HRTIMER_RESTART;
}

/* Adds the state (name: "tapster/WHAT", a string that outlives it) into *state; under
 * cpus_read_lock(). */
static inline int tap_hotplug_add(int *state, const char *name,
				  int (*online)(unsigned int cpu),
				  int (*offline)(unsigned int cpu))
{
	int rc = cpuhp_setup_state_nocalls_cpuslocked(CPUHP_AP_ONLINE_DYN, name, online,
						      offline);

	if (rc < 0)
		return rc;
	*state = rc;
	return 0;
}

/* Removes the state in *state, if any; under cpus_read_lock(). */
static inline void tap_hotplug_remove(int *state)
{
	if (*state <= 0)
		return;
	cpuhp_remove_state_nocalls_cpuslocked(*state);
	*state = 0;
}

#endif
