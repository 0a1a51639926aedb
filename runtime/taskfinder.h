/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The task finder: process.begin, .end, .thread.begin, .thread.end, .syscall and
 * .syscall.return, of any process, of the processes running one file (process("PATH"):
 * their executable's inode) or of one process (process(PID)), on the kernel's tracepoints.
 *
 * - begin (a process's main thread) and thread.begin (its other threads) run in the task
 *   itself, from a task work: a new task gets one at sched_process_fork (before it first
 *   runs; it runs the work on its way to user mode), the tasks running at the start get one
 *   from a walk of all tasks (TWA_SIGNAL: a sleeping one is woken to run it, and waits
 *   until the session runs, after the other providers started). A process that
 *   execs a file runs begin again (sched_process_exec), in the new program.
 * - thread.end (a thread but the main one) and end (the last thread) run at
 *   sched_process_exit, in the exiting task. Its executable is gone by then: the processes
 *   that began running a PATH point's file are kept in a small table (tap_tf_seen, 512
 *   processes), which also marks the processes whose end has fired.
 * - syscall and syscall.return run at the raw tracepoints sys_enter and sys_exit.
 * With -c or -x (tap_target_pid), points without PATH or PID see only the target process
 * and its descendants. Kernel threads are never seen.
 *
 * At the stop the tracepoints are detached, and the stop waits for the task works not run
 * yet (a task stopped for the whole session would hold it: not yet handled).
 */
#ifndef TAP_TASKFINDER_H
#define TAP_TASKFINDER_H

#include <linux/binfmts.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/namei.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/task_work.h>
#include <linux/tracepoint.h>
#include <asm/syscall.h>

#include "context.h"
#include "kprobes.h"
#include "tracepoint_lookup.h"
#include "target_task.h"
#include "user_inode.h"

enum { TAP_PE_BEGIN, TAP_PE_END, TAP_PE_THREAD_BEGIN, TAP_PE_THREAD_END, TAP_PE_SYSCALL,
       TAP_PE_SYSCALL_RETURN, TAP_PE_EVENTS };

struct tap_process_event {
	int event;
	const char *path;	/* process("PATH"), or NULL */
	pid_t pid;		/* process(PID), or 0 */
	void (*handler)(struct pt_regs *regs, u64 *words);
	const struct tap_probe_point *pp;
	struct inode *inode;	/* PATH's, held while the session runs */
};

#ifndef TAP_NUM_PROCESS_EVENTS
#define TAP_NUM_PROCESS_EVENTS 0
#endif

#if TAP_NUM_PROCESS_EVENTS > 0
static struct tap_process_event tap_process_events[TAP_NUM_PROCESS_EVENTS];

/* ---- Which task a point sees ---- */

/*
 * Processes the finder keeps a word of, by tgid: those that began running a PATH point's
 * file (points: bit i for entry i), and those whose end has fired (ended). A process's
 * entry is set anew when it begins (fork, exec, the walk), which also retires the entry of
 * an earlier process of its pid. At its end the entry is only marked ended: a thread may
 * report its exit after the process's end (a joined thread wakes its joiner before it
 * reaches sched_process_exit), and threads that exit together can each read signal->live
 * as 0 (the tracepoint comes after every one's decrement): the first claims the end. A
 * free slot is taken first, else an ended one.
 */
#define TAP_TF_SEEN 512
static struct { pid_t tgid; bool ended; u64 points; } tap_tf_seen[TAP_TF_SEEN];
static DEFINE_SPINLOCK(tap_tf_seen_lock);
static bool tap_tf_paths;	/* some point has a PATH */

/* The slot of tgid, else one to take for it (-1: none); under the lock. */
static int tap_tf_slot(pid_t tgid, bool *found)
{
	int j, free_slot = -1, ended_slot = -1;

	for (j = 0; j < TAP_TF_SEEN; j++) {
		if (tap_tf_seen[j].tgid == tgid) {
			*found = true;
			return j;
		}
		if (free_slot < 0 && !tap_tf_seen[j].tgid)
			free_slot = j;
		if (ended_slot < 0 && tap_tf_seen[j].ended)
			ended_slot = j;
	}
	*found = false;
	return free_slot >= 0 ? free_slot : ended_slot;
}

/* A process begins: its points, or (none) its entry retired. */
static void tap_tf_remember(pid_t tgid, u64 points)
{
	unsigned long flags;
	bool found;
	int j;

	spin_lock_irqsave(&tap_tf_seen_lock, flags);
	j = tap_tf_slot(tgid, &found);
	if (j >= 0 && (found || points)) {
		tap_tf_seen[j].tgid = points ? tgid : 0;
		tap_tf_seen[j].points = points;
		tap_tf_seen[j].ended = false;
	}
	spin_unlock_irqrestore(&tap_tf_seen_lock, flags);
}

static bool tap_tf_remembered(pid_t tgid, int i)
{
	unsigned long flags;
	bool found = false;
	int j;

	spin_lock_irqsave(&tap_tf_seen_lock, flags);
	for (j = 0; j < TAP_TF_SEEN && i < 64; j++)
		if (tap_tf_seen[j].tgid == tgid)
			found = tap_tf_seen[j].points & (1ull << i);
	spin_unlock_irqrestore(&tap_tf_seen_lock, flags);
	return found;
}

/* The process's end, claimed once: false when another thread claimed it. */
static bool tap_tf_claim_end(pid_t tgid)
{
	unsigned long flags;
	bool found, claimed;
	int j;

	spin_lock_irqsave(&tap_tf_seen_lock, flags);
	j = tap_tf_slot(tgid, &found);
	claimed = !found || !tap_tf_seen[j].ended;
	if (j >= 0 && claimed) {
		if (!found)
			tap_tf_seen[j].points = 0;
		tap_tf_seen[j].tgid = tgid;
		tap_tf_seen[j].ended = true;
	}
	spin_unlock_irqrestore(&tap_tf_seen_lock, flags);
	return claimed;
}

/* Whether point i sees task t (exiting: by what was remembered of it). */
static bool tap_tf_sees(int i, struct task_struct *t, bool exiting)
{
	const struct tap_process_event *e = &tap_process_events[i];

	if (t->flags & PF_KTHREAD)
		return false;
	if (e->pid)
		return t->tgid == e->pid;
	if (e->path)
		return exiting ? tap_tf_remembered(t->tgid, i) : tap_task_runs(t, e->inode);
	return !tap_target_pid || tap_task_in_target(t);
}

/* Runs the points of `event` that see the current task. */
static void tap_tf_fire(int event, struct pt_regs *regs, u64 *words, bool exiting)
{
	u64 points = 0;
	int i;

	for (i = 0; i < TAP_NUM_PROCESS_EVENTS && i < 64 && event == TAP_PE_BEGIN; i++)
		if (tap_process_events[i].path && tap_tf_sees(i, current, false))
			points |= 1ull << i;
	if (event == TAP_PE_BEGIN && tap_tf_paths)
		tap_tf_remember(current->tgid, points);
	for (i = 0; i < TAP_NUM_PROCESS_EVENTS; i++) {
		if (tap_process_events[i].event != event || !tap_tf_sees(i, current, exiting))
			continue;
		tap_process_events[i].handler(regs, words);
	}
}

static bool tap_tf_has(int event)
{
	int i;

	for (i = 0; i < TAP_NUM_PROCESS_EVENTS; i++)
		if (tap_process_events[i].event == event)
			return true;
	return false;
}

/* ---- begin and thread.begin, from a task work ---- */

struct tap_tf_work {
	struct callback_head cb;
	bool process;		/* the process's main thread: begin, else thread.begin */
};
static atomic_t tap_tf_pending = ATOMIC_INIT(0);
static bool tap_tf_stopping;

static void tap_tf_begin_work(struct callback_head *cb)
{
	struct tap_tf_work *w = container_of(cb, struct tap_tf_work, cb);
	u64 words[8] = { 0 };

	/* Woken by the walk while the other providers start: the session runs probes once
	 * it is running. */
	while (tap_session_state() == TAP_STARTING && !READ_ONCE(tap_tf_stopping))
		msleep(1);
	tap_tf_fire(w->process ? TAP_PE_BEGIN : TAP_PE_THREAD_BEGIN, task_pt_regs(current), words,
		    false);
	kfree(w);
	atomic_dec(&tap_tf_pending);
}

static void tap_tf_queue_begin(struct task_struct *t, bool process, enum task_work_notify_mode mode)
{
	struct tap_tf_work *w;

	if (t->flags & PF_KTHREAD)
		return;
	w = kzalloc(sizeof(*w), GFP_ATOMIC);
	if (!w)
		return;
	w->process = process;
	init_task_work(&w->cb, tap_tf_begin_work);
	atomic_inc(&tap_tf_pending);
	if (task_work_add(t, &w->cb, mode)) {
		atomic_dec(&tap_tf_pending);
		kfree(w);
	}
}

/* ---- The tracepoints ---- */

static void tap_tf_fork(void *data, struct task_struct *parent, struct task_struct *child)
{
	if (child->pid == child->tgid)
		tap_tf_remember(child->tgid, 0);
	tap_tf_queue_begin(child, child->pid == child->tgid, TWA_RESUME);
}

static void tap_tf_exec(void *data, struct task_struct *p, pid_t old_pid,
			struct linux_binprm *bprm)
{
	u64 words[8] = { 0 };

	tap_tf_fire(TAP_PE_BEGIN, task_pt_regs(current), words, false);
}

static void tap_tf_exit(void *data, struct task_struct *p)
{
	u64 words[8] = { 0 };

	if (p->pid != p->tgid)
		tap_tf_fire(TAP_PE_THREAD_END, task_pt_regs(p), words, true);
	if (atomic_read(&p->signal->live) == 0 && tap_tf_claim_end(p->tgid))
		tap_tf_fire(TAP_PE_END, task_pt_regs(p), words, true);
}

static void tap_tf_sys_enter(void *data, struct pt_regs *regs, long id)
{
	u64 words[8] = { id };
	unsigned long args[6];
	int i;

	syscall_get_arguments(current, regs, args);
	for (i = 0; i < 6; i++)
		words[i + 1] = args[i];
	tap_tf_fire(TAP_PE_SYSCALL, regs, words, false);
}

static void tap_tf_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	u64 words[8] = { syscall_get_nr(current, regs) };

	words[7] = ret;
	tap_tf_fire(TAP_PE_SYSCALL_RETURN, regs, words, false);
}

/* The kernel's tracepoints the task finder hooks, and the events that need each (a bit
 * each), in the same order. */
static struct tap_kernel_hook tap_tf_hooks[] = {
	{ "sched_process_fork", tap_tf_fork },
	{ "sched_process_exec", tap_tf_exec },
	{ "sched_process_exit", tap_tf_exit },
	{ "sys_enter", tap_tf_sys_enter },
	{ "sys_exit", tap_tf_sys_exit },
};

static const int tap_tf_hook_events[] = {
	/* a PATH's end needs its begin: the process is remembered then */
	1 << TAP_PE_BEGIN | 1 << TAP_PE_THREAD_BEGIN | 1 << TAP_PE_END | 1 << TAP_PE_THREAD_END,
	1 << TAP_PE_BEGIN | 1 << TAP_PE_END | 1 << TAP_PE_THREAD_END,
	1 << TAP_PE_END | 1 << TAP_PE_THREAD_END,
	1 << TAP_PE_SYSCALL,
	1 << TAP_PE_SYSCALL_RETURN,
};

static int tap_tf_lookup(struct tap_process_event *e)
{
	int rc;

	e->inode = tap_user_inode(e->path, &rc);
	/* Not there: it sees no process, as stap's. */
	return rc == -ENOMEM ? rc : 0;
}

static void tap_tf_walk(void)
{
	struct task_struct *g, *t;
	if (!tap_tf_has(TAP_PE_BEGIN) && !tap_tf_has(TAP_PE_THREAD_BEGIN) &&
	    !tap_tf_has(TAP_PE_END) && !tap_tf_has(TAP_PE_THREAD_END))
		return;
	rcu_read_lock();
	for_each_process_thread(g, t)
		if (t->mm && !(t->flags & (PF_KTHREAD | PF_EXITING)))
			tap_tf_queue_begin(t, t->pid == t->tgid, TWA_SIGNAL);
	rcu_read_unlock();
}

static void tap_process_events_stop(void)
{
	int i;

	WRITE_ONCE(tap_tf_stopping, true);
	if (tap_kernel_hooks_detach(tap_tf_hooks, ARRAY_SIZE(tap_tf_hooks)))
		tracepoint_synchronize_unregister();
	while (atomic_read(&tap_tf_pending) > 0)
		msleep(10);
	for (i = 0; i < TAP_NUM_PROCESS_EVENTS; i++) {
		if (tap_process_events[i].inode)
			iput(tap_process_events[i].inode);
		tap_process_events[i].inode = NULL;
	}
}

/* The first point of the events `events` (bits): the one a refused tracepoint fails. */
static const struct tap_process_event *tap_tf_needing(int events)
{
	int i;

	for (i = 0; i < TAP_NUM_PROCESS_EVENTS; i++)
		if (events & (1 << tap_process_events[i].event))
			return &tap_process_events[i];
	return &tap_process_events[0];
}

static int tap_process_events_start(void)
{
	int i, events = 0, rc;

	tap_tf_stopping = false;
	for (i = 0; i < TAP_NUM_PROCESS_EVENTS; i++) {
		events |= 1 << tap_process_events[i].event;
		tap_tf_paths |= tap_process_events[i].path != NULL;
		if (tap_process_events[i].path && (rc = tap_tf_lookup(&tap_process_events[i])))
			return rc;
	}
	BUILD_BUG_ON(ARRAY_SIZE(tap_tf_hooks) != ARRAY_SIZE(tap_tf_hook_events));
	for (i = 0; i < ARRAY_SIZE(tap_tf_hooks); i++) {
		if (!(tap_tf_hook_events[i] & events))
			continue;
		rc = tap_kernel_hook_attach(&tap_tf_hooks[i]);
		if (rc) {
			tap_report_registration_error(tap_tf_needing(tap_tf_hook_events[i])->pp, rc);
			return rc;
		}
	}
	tap_tf_walk();
	return 0;
}
#else
static int tap_process_events_start(void)
{
	return 0;
}

static void tap_process_events_stop(void)
{
}
#endif

#endif
