/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf.type(T).config(C).sample(N): a kernel perf counter of the event on every online CPU
 * (perf_event_create_kernel_counter()), a CPU that comes online during the session
 * included (tap_perf_renew(), below), whose overflow, every N events, runs the probe
 * body with the registers of what it interrupted. The handler may run in NMI context (a
 * hardware event), in interrupt context (cpu_clock's hrtimer) or with preemption off in a
 * task (page faults, context switches): it only takes this CPU's context, as every probe
 * handler does, and a hit that finds it taken is skipped.
 *
 * An event the kernel refuses (a hardware one where there is no PMU) is stap's
 * registration error, which ends the session. The counters are released at the stop;
 * releasing one takes it off its CPU, after which its handler no longer runs.
 *
 * .process("PATH") points count in the tasks that run PATH instead: an event per task
 * (each thread of such a process), made in the task, by a task work, when it execs PATH,
 * when a task running PATH forks or clones (the new task, before it first runs), and at
 * the start for the tasks already running it (tap_perf_tasks[], at most TAP_PERF_TASKS
 * at a time; a dead task's slot is reused). A .counter("NAME") point (sample 0) has no
 * overflow: @perf("NAME") in a uprobe's probe reads its value in the current task
 * (tap_perf_read(), before the handler takes the context: reading may sleep). An event
 * the kernel refuses for a task is stap's warning "perf probe '...' is not supported by
 * this kernel (RC).", once a point, and the session goes on; @perf of such a counter is
 * 0, with stap's error line.
 *
 * A CPU-wide point of the CPU clock with a sample (type 1, config 0: timer.profile,
 * perf.sw.cpu_clock) is not a perf event but what that event is made of, without the
 * event's bookkeeping the probe never reads (its count read again from the clock, the
 * sample's data, the interrupt's throttle accounting: a quarter more per hit than the
 * timer alone): an hrtimer per CPU, pinned, in hard interrupt context, every N ns (10 us at
 * the least, as the event's), whose callback is the point's generated handler
 * (tap_perf_clock_PP(), `clock`): it runs the probe with the registers of what it
 * interrupted and gives the timer its next period with tap_perf_clock_forward(). A CPU
 * that comes online starts its timer, one that goes offline cancels it (a hotplug state:
 * cpu_timers.h); the timers are cancelled at the stop, as the events are released.
 *
 * The generated module defines tap_perfs[TAP_NUM_PERF].
 */
#ifndef TAP_PERF_H
#define TAP_PERF_H

#include <linux/cpu.h>
#include <linux/binfmts.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <linux/tracepoint.h>
#include <asm/irq_regs.h>

#include "context.h"
#include "cpu_timers.h"
#include "kprobes.h"
#include "tracepoint_lookup.h"
#include "user_inode.h"

struct tap_perf {
	u32 type;
	u64 config;
	u64 sample;
	const struct tap_probe_point *pp;
	void (*body)(struct tap_context *c);
	/* A CPU clock point's: its timers' callback (the generated handler), else NULL. */
	enum hrtimer_restart (*clock)(struct hrtimer *timer);
	const char *path;	/* .process("PATH"): counted in the tasks running it; NULL: every CPU */
	const char *counter;	/* .counter("NAME"), or NULL */
	struct perf_event **events;	/* every CPU: one per possible CPU, NULL where none */
	struct tap_cpu_timer __percpu *clocks;	/* a CPU clock point's timers, or NULL */
	struct inode *inode;	/* PATH's, held while the session runs */
	bool refused;		/* the kernel refused a task's event: warned */
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

static struct perf_event *tap_perf_event(struct tap_perf *p, int cpu, struct task_struct *task)
{
	struct perf_event_attr attr = {
		.type = p->type,
		.size = sizeof(attr),
		.config = p->config,
		.sample_period = p->sample,
	};

	return perf_event_create_kernel_counter(&attr, cpu, task,
						p->sample ? tap_perf_overflow : NULL, p);
}

/* The end of a CPU clock point's handler: the timer set a period on. */
static __always_inline enum hrtimer_restart tap_perf_clock_forward(struct hrtimer *timer)
{
	return tap_cpu_timer_forward(timer);
}

static ktime_t tap_perf_clock_period(const struct tap_perf *p)
{
	return ns_to_ktime(max_t(u64, 10000, p->sample));
}

/* Runs on each CPU, interrupts off: starts p's timer there. */
static void tap_perf_clock_start_cpu(void *info)
{
	struct tap_perf *p = info;

	tap_cpu_timer_start(this_cpu_ptr(p->clocks), p->clock, tap_perf_clock_period(p));
}

/* Under cpus_read_lock(). */
static int tap_perf_clock_create(struct tap_perf *p)
{
	p->clocks = alloc_percpu(struct tap_cpu_timer);
	if (!p->clocks)
		return -ENOMEM;
	on_each_cpu(tap_perf_clock_start_cpu, p, 1);
	return 0;
}

/* Under cpus_read_lock(), the hotplug state removed: cancels p's timers and waits for
 * running callbacks; may sleep. */
static void tap_perf_clock_cancel(struct tap_perf *p)
{
	int cpu;

	if (!p->clocks)
		return;
	for_each_possible_cpu(cpu)
		tap_cpu_timer_cancel(per_cpu_ptr(p->clocks, cpu));
}

/*
 * A CPU-wide event is made on each CPU online at the start, and on a CPU that comes online
 * later by tap_perf_renew_work (its hotplug callback cannot: making or releasing a software
 * event takes cpus_read_lock(), which the hotplug operation holds for writing). An event
 * whose CPU went offline is turned off by the kernel and stays so when the CPU comes back:
 * the work releases it and makes a new one. tap_perf_cpus_lock orders the work and the
 * start; the stop cancels the work once the hotplug state is gone.
 */
static DEFINE_MUTEX(tap_perf_cpus_lock);
static struct cpumask tap_perf_renew_cpus;	/* online again: their events to make anew */
static int tap_perf_hotplug;			/* the hotplug state, 0 when none */

/* Makes p's event on cpu (again); under tap_perf_cpus_lock. A CPU gone offline meanwhile
 * (-ENODEV) gets its event when it comes back. */
static int tap_perf_event_renew(struct tap_perf *p, int cpu)
{
	struct perf_event *event;

	if (p->events[cpu]) {
		perf_event_release_kernel(p->events[cpu]);
		p->events[cpu] = NULL;
	}
	event = tap_perf_event(p, cpu, NULL);
	if (IS_ERR(event))
		return PTR_ERR(event) == -ENODEV ? 0 : PTR_ERR(event);
	p->events[cpu] = event;
	return 0;
}

/* The events of the CPUs that came online since the start; one the kernel refuses leaves
 * its CPU uncounted (the session runs on). */
static void tap_perf_renew(struct work_struct *work)
{
	int cpu, i;

	mutex_lock(&tap_perf_cpus_lock);
	for_each_possible_cpu(cpu) {
		if (!cpumask_test_and_clear_cpu(cpu, &tap_perf_renew_cpus))
			continue;
		for (i = 0; i < TAP_NUM_PERF; i++)
			if (tap_perfs[i].events)
				tap_perf_event_renew(&tap_perfs[i], cpu);
	}
	mutex_unlock(&tap_perf_cpus_lock);
}
static DECLARE_WORK(tap_perf_renew_work, tap_perf_renew);

/* The hotplug callbacks, on the CPU itself (cpu_timers.h). */
static int tap_perf_cpu_online(unsigned int cpu)
{
	bool events = false;
	int i;

	for (i = 0; i < TAP_NUM_PERF; i++) {
		struct tap_perf *p = &tap_perfs[i];

		if (p->clocks)
			tap_cpu_timer_start(per_cpu_ptr(p->clocks, cpu), p->clock,
					    tap_perf_clock_period(p));
		if (p->events)
			events = true;
	}
	if (events) {
		cpumask_set_cpu(cpu, &tap_perf_renew_cpus);
		schedule_work(&tap_perf_renew_work);
	}
	return 0;
}

static int tap_perf_cpu_offline(unsigned int cpu)
{
	int i;

	for (i = 0; i < TAP_NUM_PERF; i++)
		if (tap_perfs[i].clocks)
			tap_cpu_timer_cancel(per_cpu_ptr(tap_perfs[i].clocks, cpu));
	return 0;
}

/* Releases p's events and frees its timers (cancelled). */
static void tap_perf_release(struct tap_perf *p)
{
	int cpu;

	free_percpu(p->clocks);
	p->clocks = NULL;
	if (!p->events)
		return;
	for_each_possible_cpu(cpu)
		if (p->events[cpu])
			perf_event_release_kernel(p->events[cpu]);
	kfree(p->events);
	p->events = NULL;
}

static bool tap_perf_cpu_wide(void)
{
	int i;

	for (i = 0; i < TAP_NUM_PERF; i++)
		if (tap_perfs[i].clocks || tap_perfs[i].events)
			return true;
	return false;
}

/* A CPU-wide point's array of events, or its timers started on the CPUs online (under
 * cpus_read_lock()). */
static int tap_perf_create(struct tap_perf *p)
{
	if (p->clock)
		return tap_perf_clock_create(p);
	p->events = kcalloc(nr_cpu_ids, sizeof(*p->events), GFP_KERNEL);
	return p->events ? 0 : -ENOMEM;
}

/* Makes the events of the CPUs online; the first the kernel refuses is the error. */
static int tap_perf_create_events(struct tap_perf **refused)
{
	int cpu, i, rc = 0;

	mutex_lock(&tap_perf_cpus_lock);
	for (i = 0; i < TAP_NUM_PERF && !rc; i++) {
		if (!tap_perfs[i].events)
			continue;
		for_each_online_cpu(cpu) {
			rc = tap_perf_event_renew(&tap_perfs[i], cpu);
			if (rc) {
				*refused = &tap_perfs[i];
				break;
			}
		}
	}
	mutex_unlock(&tap_perf_cpus_lock);
	return rc;
}

/* ---- .process("PATH"): an event per task ---- */

#define TAP_PERF_TASKS 256
static struct tap_perf_task {
	struct tap_perf *p;
	struct task_struct *task;	/* held */
	struct perf_event *event;
} tap_perf_tasks[TAP_PERF_TASKS];
static DEFINE_MUTEX(tap_perf_tasks_lock);
static bool tap_perf_finding;		/* some point has a PATH */
static bool tap_perf_stopping;
static atomic_t tap_perf_pending = ATOMIC_INIT(0);

static void tap_perf_drop(struct tap_perf_task *s)
{
	perf_event_release_kernel(s->event);
	put_task_struct(s->task);
	s->p = NULL;
	s->task = NULL;
	s->event = NULL;
}

/* A slot for p's event of task t, else NULL (it has one, or none is free); under the lock. */
static struct tap_perf_task *tap_perf_slot(struct tap_perf *p, struct task_struct *t)
{
	struct tap_perf_task *free_slot = NULL, *dead_slot = NULL;
	int j;

	for (j = 0; j < TAP_PERF_TASKS; j++) {
		struct tap_perf_task *s = &tap_perf_tasks[j];

		if (s->p == p && s->task == t)
			return NULL;
		if (!s->p && !free_slot)
			free_slot = s;
		if (s->p && s->task->exit_state && !dead_slot)
			dead_slot = s;
	}
	if (!free_slot && dead_slot) {
		tap_perf_drop(dead_slot);
		free_slot = dead_slot;
	}
	return free_slot;
}

/* Gives task t the events of the points whose PATH it runs; may sleep. */
static void tap_perf_attach(struct task_struct *t)
{
	int i;

	mutex_lock(&tap_perf_tasks_lock);
	for (i = 0; i < TAP_NUM_PERF && !READ_ONCE(tap_perf_stopping); i++) {
		struct tap_perf *p = &tap_perfs[i];
		struct tap_perf_task *s;
		struct perf_event *event;

		if (!p->inode || !tap_task_runs(t, p->inode))
			continue;
		s = tap_perf_slot(p, t);
		if (!s)
			continue;
		event = tap_perf_event(p, -1, t);
		if (IS_ERR(event)) {
			if (!p->refused)
				tap_runtime_message("WARNING: perf probe '%s' is not supported by this"
					     " kernel (%ld).\n", p->pp->pp, PTR_ERR(event));
			p->refused = true;
			continue;
		}
		get_task_struct(t);
		s->p = p;
		s->task = t;
		s->event = event;
	}
	mutex_unlock(&tap_perf_tasks_lock);
}

static bool tap_perf_wanted(struct task_struct *t)
{
	int i;

	if (t->flags & PF_KTHREAD)
		return false;
	for (i = 0; i < TAP_NUM_PERF; i++)
		if (tap_perfs[i].inode && tap_task_runs(t, tap_perfs[i].inode))
			return true;
	return false;
}

static void tap_perf_attach_work(struct callback_head *cb)
{
	if (!READ_ONCE(tap_perf_stopping))
		tap_perf_attach(current);
	kfree(cb);
	atomic_dec(&tap_perf_pending);
}

static void tap_perf_queue(struct task_struct *t)
{
	struct callback_head *cb;

	if (READ_ONCE(tap_perf_stopping) || !tap_perf_wanted(t))
		return;
	cb = kzalloc(sizeof(*cb), GFP_ATOMIC);
	if (!cb)
		return;
	init_task_work(cb, tap_perf_attach_work);
	atomic_inc(&tap_perf_pending);
	if (task_work_add(t, cb, TWA_RESUME)) {
		atomic_dec(&tap_perf_pending);
		kfree(cb);
	}
}

static void tap_perf_fork(void *data, struct task_struct *parent, struct task_struct *child)
{
	tap_perf_queue(child);
}

static void tap_perf_exec(void *data, struct task_struct *p, pid_t old_pid,
			  struct linux_binprm *bprm)
{
	tap_perf_queue(current);
}

static struct tap_kernel_hook tap_perf_hooks[] = {
	{ "sched_process_fork", tap_perf_fork },
	{ "sched_process_exec", tap_perf_exec },
};

/* The tasks running a PATH at the start: taken under RCU, given their events after. */
static void tap_perf_walk(void)
{
	struct task_struct *g, *t, **found;
	int n = 0, i;

	found = kcalloc(TAP_PERF_TASKS, sizeof(*found), GFP_KERNEL);
	if (!found)
		return;
	rcu_read_lock();
	for_each_process_thread(g, t) {
		if (n < TAP_PERF_TASKS && !(t->flags & PF_EXITING) && tap_perf_wanted(t)) {
			get_task_struct(t);
			found[n++] = t;
		}
	}
	rcu_read_unlock();
	for (i = 0; i < n; i++) {
		tap_perf_attach(found[i]);
		put_task_struct(found[i]);
	}
	kfree(found);
}

static int tap_perf_find_start(void)
{
	int i, rc;

	tap_perf_stopping = false;
	for (i = 0; i < TAP_NUM_PERF; i++) {
		struct tap_perf *p = &tap_perfs[i];

		if (!p->path)
			continue;
		tap_perf_finding = true;
		p->inode = tap_user_inode(p->path, &rc);
		if (rc == -ENOMEM)
			return rc;	/* not there: it sees no task, as stap's */
	}
	if (!tap_perf_finding)
		return 0;
	for (i = 0; i < ARRAY_SIZE(tap_perf_hooks); i++) {
		rc = tap_kernel_hook_attach(&tap_perf_hooks[i]);
		if (rc)
			return rc;
	}
	tap_perf_walk();
	return 0;
}

static void tap_perf_find_stop(void)
{
	int i;

	WRITE_ONCE(tap_perf_stopping, true);
	if (tap_kernel_hooks_detach(tap_perf_hooks, ARRAY_SIZE(tap_perf_hooks)))
		tracepoint_synchronize_unregister();
	while (atomic_read(&tap_perf_pending) > 0)
		msleep(10);
	mutex_lock(&tap_perf_tasks_lock);
	for (i = 0; i < TAP_PERF_TASKS; i++)
		if (tap_perf_tasks[i].p)
			tap_perf_drop(&tap_perf_tasks[i]);
	mutex_unlock(&tap_perf_tasks_lock);
	for (i = 0; i < TAP_NUM_PERF; i++) {
		if (tap_perfs[i].inode)
			iput(tap_perfs[i].inode);
		tap_perfs[i].inode = NULL;
	}
}

/*
 * @perf("NAME"): the value of counter NAME in the current task, 0 where it has none; a
 * counter the kernel refused is stap's error line. From a uprobe's handler, before it
 * takes the context (it may sleep).
 */
static s64 tap_perf_read(const char *name)
{
	struct tap_perf *refused = NULL;
	s64 value = 0;
	u64 enabled, running;
	int j;

	mutex_lock(&tap_perf_tasks_lock);
	for (j = 0; j < TAP_PERF_TASKS; j++) {
		struct tap_perf_task *s = &tap_perf_tasks[j];

		if (s->p && s->task == current && !strcmp(s->p->counter ?: "", name)) {
			value = perf_event_read_value(s->event, &enabled, &running);
			break;
		}
	}
	mutex_unlock(&tap_perf_tasks_lock);
	if (j < TAP_PERF_TASKS)
		return value;
	for (j = 0; j < TAP_NUM_PERF; j++)
		if (tap_perfs[j].counter && !strcmp(tap_perfs[j].counter, name) &&
		    tap_perfs[j].refused)
			refused = &tap_perfs[j];
	if (refused)
		tap_runtime_message("ERROR: _stp_perf_read - probe '%s' is not supported by this kernel\n",
			     refused->pp->pp);
	return 0;
}
#endif

/* ---- The provider's parts in the session (providers.h) ---- */

static void tap_perf_stop(void)
{
#if TAP_NUM_PERF > 0
	int i;

	tap_perf_find_stop();
	cpus_read_lock();
	tap_hotplug_remove(&tap_perf_hotplug);
	for (i = 0; i < TAP_NUM_PERF; i++)
		tap_perf_clock_cancel(&tap_perfs[i]);
	cpus_read_unlock();
	cancel_work_sync(&tap_perf_renew_work);
	for (i = 0; i < TAP_NUM_PERF; i++)
		tap_perf_release(&tap_perfs[i]);
#endif
}

/* A counter the kernel refuses on any CPU is the registration error of its point; the
 * caller stops what was started. The CPU-wide points' timers are started and the hotplug
 * state added under one cpus_read_lock(); their events are made after it (making one may
 * take that lock), the state added: a CPU that comes online meanwhile is in
 * tap_perf_renew_cpus. */
static int tap_perf_start(void)
{
#if TAP_NUM_PERF > 0
	struct tap_perf *refused = NULL;
	int i, rc = 0;

	cpus_read_lock();
	for (i = 0; i < TAP_NUM_PERF && !rc; i++) {
		if (tap_perfs[i].path || tap_perfs[i].counter)
			continue;
		rc = tap_perf_create(&tap_perfs[i]);
		if (rc)
			refused = &tap_perfs[i];
	}
	if (!rc && tap_perf_cpu_wide() && !tap_perf_hotplug) {
		rc = tap_hotplug_add(&tap_perf_hotplug, "tapster/perf:online",
				     tap_perf_cpu_online, tap_perf_cpu_offline);
		if (rc)
			refused = &tap_perfs[0];
	}
	cpus_read_unlock();
	if (!rc)
		rc = tap_perf_create_events(&refused);
	if (rc) {
		tap_report_registration_error(refused->pp, rc);
		return rc;
	}
	return tap_perf_find_start();
#else
	return 0;
#endif
}

#endif
