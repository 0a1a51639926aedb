/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-task slots: what a call keeps from its entry to its return, for the task in it. The
 * @entry values of a uprobe .return (uprobes.h, one slot per call, keyed by the stack
 * pointer at the entry: recursion and longjmp) and the instances of the syscall dispatch's
 * returns (sysdispatch.h, one per task: key 0) are such slots.
 *
 * A table is `1 << bits` records of `size` bytes, each a struct tap_task_slot and its
 * owner's data, looked through from a hash of (task, key) on, wrapping around (open
 * addressing). A claim takes the first free slot from there (or the task's own slot of that
 * key that nobody returns through, when it comes first: a call that never came back); a take
 * finds it again, in the common case one slot from where it starts. Slots are freed in any
 * order (the returns of other tasks), so a free slot does not end a search: `reach` does,
 * the farthest from its start any slot was ever taken, which only grows. A take that misses
 * (a call begun before the session) so reads up to `reach`, not the whole table. A table's
 * geometry is constant (a generated one's const: the compiler folds it into the inlined
 * look-ups).
 *
 * Slots of a task that leaves its calls without returning are freed by a watch
 * (tap_task_slots_watch()): at sched_process_exit, in the exiting task, and with `at_exec`
 * at sched_process_exec too (the old program's calls never return); the task is only
 * compared with the slots' pointers.
 */
#ifndef TAP_TASK_SLOTS_H
#define TAP_TASK_SLOTS_H

#include <linux/atomic.h>
#include <linux/binfmts.h>
#include <linux/hash.h>
#include <linux/sched.h>
#include <linux/tracepoint.h>

#include "tracepoint_lookup.h"

struct tap_task_slot {
	struct task_struct *task;	/* whose call; NULL: free */
	unsigned long key;		/* which of its calls */
	bool running;			/* its return is using it */
};

struct tap_task_slots {
	void *records;		/* 1 << bits records of `size` bytes, a tap_task_slot first */
	size_t size;
	unsigned int bits;
	bool keyed;		/* several slots per task, by key (else key 0: one) */
	atomic_t *reach;	/* the farthest from its start a slot was taken (from 0) */
};

/* A table of the `n` (a power of two) records of `array`, its reach the atomic_t `reach`. */
#define TAP_TASK_SLOTS_INIT(array, n, by_key, reach_var)                                  \
	{ .records = (array), .size = sizeof((array)[0]), .bits = ilog2(n), .keyed = (by_key), \
	  .reach = &(reach_var) }

static __always_inline struct tap_task_slot *tap_task_slot_at(const struct tap_task_slots *t,
							      unsigned int i)
{
	return (struct tap_task_slot *)((char *)t->records +
					(i & ((1U << t->bits) - 1)) * t->size);
}

static __always_inline unsigned int tap_task_slot_start(const struct tap_task_slots *t,
							struct task_struct *task,
							unsigned long key)
{
	return hash_long((unsigned long)task ^ key, t->bits);
}

/* Makes the table's reach at least `d`. */
static __always_inline void tap_task_slots_widen(const struct tap_task_slots *t, unsigned int d)
{
	int reach = atomic_read(t->reach);

	while (reach < (int)d) {
		int was = atomic_cmpxchg(t->reach, reach, d);

		if (was == reach)
			break;
		reach = was;
	}
}

/*
 * A slot for the current task's call `key`, or NULL when all are taken: the first from its
 * start that is free or the task's own of that key that nobody returns through (a call that
 * never came back; one past a free slot stays until the task exits: a take finds the newer
 * one first).
 */
static __always_inline struct tap_task_slot *tap_task_slot_claim(const struct tap_task_slots *t,
								       unsigned long key)
{
	unsigned int start = tap_task_slot_start(t, current, key), d;

	for (d = 0; d < 1U << t->bits; d++) {
		struct tap_task_slot *s = tap_task_slot_at(t, start + d);
		struct task_struct *task = READ_ONCE(s->task);

		if (!task && !cmpxchg(&s->task, NULL, current)) {
			s->key = key;
			if (d)
				tap_task_slots_widen(t, d);
			return s;
		}
		if (task == current && s->key == key && !s->running)
			return s;
	}
	return NULL;
}

/* The current task's slot of call `key` (now its return's), or NULL. */
static __always_inline struct tap_task_slot *tap_task_slot_take(const struct tap_task_slots *t,
								      unsigned long key)
{
	unsigned int start = tap_task_slot_start(t, current, key), d;

	for (d = 0;; d++) {
		struct tap_task_slot *s = tap_task_slot_at(t, start + d);

		if (READ_ONCE(s->task) == current && s->key == key && !s->running) {
			s->running = true;
			return s;
		}
		if (d >= atomic_read(t->reach))	/* read past the first slot only */
			return NULL;
	}
}

static __always_inline void tap_task_slot_release(struct tap_task_slot *s)
{
	if (!s)
		return;
	s->running = false;
	s->key = 0;
	smp_store_release(&s->task, NULL);
}

/* Frees the slots of `task` (one that will never return through them). */
static void tap_task_slots_forget(const struct tap_task_slots *t, struct task_struct *task)
{
	unsigned int start = t->keyed ? 0 : tap_task_slot_start(t, task, 0);
	unsigned int n = t->keyed ? 1U << t->bits : atomic_read(t->reach) + 1, d;

	for (d = 0; d < n; d++) {
		struct tap_task_slot *s = tap_task_slot_at(t, start + d);

		if (READ_ONCE(s->task) == task)
			tap_task_slot_release(s);
	}
}

/* Tables whose tasks' slots are freed as the tasks exit (and exec, with at_exec). */
struct tap_task_slots_watch {
	const struct tap_task_slots **tables;
	int ntables;
	bool at_exec;
	struct tap_kernel_hook hooks[2];	/* exit, exec: while attached */
};

static void tap_task_slots_exit(void *data, struct task_struct *task)
{
	struct tap_task_slots_watch *w = data;
	int i;

	for (i = 0; i < w->ntables; i++)
		tap_task_slots_forget(w->tables[i], task);
}

static void tap_task_slots_exec(void *data, struct task_struct *task, pid_t old_pid,
				struct linux_binprm *bprm)
{
	tap_task_slots_exit(data, task);
}

/* Detaches the watch; the caller waits for its handlers (tracepoint_synchronize_unregister()
 * or an RCU grace period) before it frees the tables. */
static void tap_task_slots_unwatch(struct tap_task_slots_watch *w)
{
	tap_kernel_hooks_detach(w->hooks, ARRAY_SIZE(w->hooks));
}

/* Attaches the watch of w->tables; 0 or an error (then nothing is attached). */
static int tap_task_slots_watch(struct tap_task_slots_watch *w)
{
	int rc;

	w->hooks[0] = (struct tap_kernel_hook){ "sched_process_exit", tap_task_slots_exit, w };
	w->hooks[1] = (struct tap_kernel_hook){ "sched_process_exec", tap_task_slots_exec, w };
	rc = tap_kernel_hook_attach(&w->hooks[0]);
	if (rc || !w->at_exec)
		return rc;
	rc = tap_kernel_hook_attach(&w->hooks[1]);
	if (rc) {
		tap_task_slots_unwatch(w);
		tracepoint_synchronize_unregister();
	}
	return rc;
}

#endif /* TAP_TASK_SLOTS_H */
