/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * uprobes: process("PATH").function("f") and its .return, on the user-space function at
 * `offset` in the file PATH, in every process that runs it (process(PID)'s, and a bare
 * process's with -c or -x, in that process: tap_uprobe_sees()). The file's inode is looked up
 * when the session starts (under the -c command's root, if the loader gives one) and held
 * until it ends.
 *
 * The generated module defines, for each point, a handler that enters the context and runs
 * the probe body, and the table tap_uprobes[TAP_NUM_UPROBES] that tap_uprobes_start()
 * registers. A handler runs in the probed task, preemptible (it may sleep): the context
 * needs preemption off, which the handler takes around it.
 *
 * The API changed in 6.12 (runtime/compat.h's TAP_HAVE_UPROBE_UNREGISTER_NOSYNC):
 * uprobe_register() takes a reference counter's offset and gives the struct uprobe, which
 * uprobe_unregister_nosync() then takes, followed by one uprobe_unregister_sync() for all;
 * before, uprobe_register_refctr() took the counter (an SDT semaphore, process.mark).
 */
#ifndef TAP_UPROBES_H
#define TAP_UPROBES_H

#include <linux/err.h>
#include <linux/fs.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/uprobes.h>

#include "context.h"
#include "kprobes.h"
#include "tracepoint_lookup.h"
#include "target_task.h"
#include "task_slots.h"
#include "user_inode.h"

struct tap_uprobe {
	struct uprobe_consumer uc;
	const struct tap_probe_point *pp;
	const char *path;	/* the file, absolute */
	loff_t offset;		/* the function's place in it */
	loff_t ref_ctr_offset;	/* an SDT marker's semaphore's place in it, 0 for none:
				 * the kernel increments it in each process that maps the
				 * file while the uprobe is registered */
	pid_t pid;		/* the process it fires in: process(PID)'s (its threads, not
				 * its children), TAP_UPROBE_TARGET for a point without PATH
				 * or PID (the -c/-x target's tree), 0 for any */
	const struct tap_task_slots *uentries;	/* a .return's @entry slots, or NULL */
	struct inode *inode;	/* held while registered */
#ifdef TAP_HAVE_UPROBE_UNREGISTER_NOSYNC
	struct uprobe *uprobe;
#endif
};

#ifndef TAP_NUM_UPROBES
#define TAP_NUM_UPROBES 0
#endif

#if TAP_NUM_UPROBES > 0
static struct tap_uprobe tap_uprobes[TAP_NUM_UPROBES];	/* the generated module's */
#else
static struct tap_uprobe *const tap_uprobes __maybe_unused;
#endif

#define TAP_UPROBE_TARGET (-1)

/*
 * Whether the point of consumer uc fires in the current task: the generated handler of a
 * point limited to a process asks first. The kernel's uprobe is the file's, hit by every
 * process that runs it: process(PID) costs a compare of the task's tgid; a bare point's
 * target is compared first, its descendants found up the task's parents.
 */
static __always_inline bool tap_uprobe_sees(struct uprobe_consumer *uc)
{
	pid_t pid = container_of(uc, struct tap_uprobe, uc)->pid;

	if (pid >= 0)
		return !pid || current->tgid == pid;
	return !tap_target_pid || current->tgid == tap_target_pid ||
	       tap_task_in_target(current);
}

/*
 * .callee("g") of a call DWARF 4 records (DW_TAG_GNU_call_site): whether the frames up from
 * the point return to pcs[0..n-1] (link-time addresses of the file, innermost first, moved
 * by the load bias), as stap's _caller_match() conditions. The first return address: at a
 * function's entry the word at the stack pointer; at a uretprobe the instruction pointer
 * (the kernel has set it back to the return address); past a prologue or in an inlined
 * instance the word above the frame pointer. The next ones up the chain of frame pointers
 * (tapsets/backtrace.stp's walk: code built with them). A fault is no match.
 */
enum tap_ucaller_from { TAP_UCALLER_ENTRY, TAP_UCALLER_RETURN, TAP_UCALLER_FRAME };

static bool __maybe_unused tap_ucallers_match(struct pt_regs *regs, unsigned long bias,
					      enum tap_ucaller_from from,
					      const unsigned long *pcs, unsigned int n)
{
	unsigned long fp = regs->bp, ret = instruction_pointer(regs), frame[2];
	unsigned int i;

	if (from == TAP_UCALLER_ENTRY &&
	    copy_from_user_nofault(&ret, (const void __user *)regs->sp, sizeof(ret)))
		return false;
	for (i = 0; i < n; i++) {
		if (i || from == TAP_UCALLER_FRAME) {
			if (copy_from_user_nofault(frame, (const void __user *)fp, sizeof(frame)))
				return false;
			fp = frame[0];
			ret = frame[1];
		}
		if (ret - bias != pcs[i])
			return false;
	}
	return true;
}

/*
 * @entry values of a .return (a uretprobe): the consumer's entry handler evaluates them into
 * a slot of the point's own table (task_slots.h, keyed by the stack pointer at the entry);
 * the return handler takes the slot of the task's call whose entry stack pointer is 8 below
 * its own (the return address popped), runs the body with it and frees it. A call that finds
 * the table full keeps its values in a scratch record no return matches (its return probe
 * does not run); a slot whose call never returned (longjmp) is taken again by the next call
 * at the same stack pointer of the same task; those of a task that exits or execs inside its
 * calls are freed then (tap_uentry_watch).
 */
#define TAP_UENTRY_BITS 8
#define TAP_UENTRY_SLOTS (1 << TAP_UENTRY_BITS)

static struct tap_task_slots_watch tap_uentry_watch = { .at_exec = true };

/* Watches the @entry tables of the points that have one. */
static int tap_uentry_watch_start(void)
{
	const struct tap_uprobe *first = NULL;
	int i, n = 0, rc;

	for (i = 0; i < TAP_NUM_UPROBES; i++)
		if (tap_uprobes[i].uentries) {
			first = first ? first : &tap_uprobes[i];
			n++;
		}
	if (!n)
		return 0;
	tap_uentry_watch.tables = kcalloc(n, sizeof(*tap_uentry_watch.tables), GFP_KERNEL);
	if (!tap_uentry_watch.tables)
		return -ENOMEM;
	for (i = 0; i < TAP_NUM_UPROBES; i++)
		if (tap_uprobes[i].uentries)
			tap_uentry_watch.tables[tap_uentry_watch.ntables++] = tap_uprobes[i].uentries;
	rc = tap_task_slots_watch(&tap_uentry_watch);
	if (rc) {
		tap_report_registration_error(first->pp, rc);
		kfree(tap_uentry_watch.tables);
		tap_uentry_watch.tables = NULL;
		tap_uentry_watch.ntables = 0;
	}
	return rc;
}

static void tap_uentry_watch_stop(void)
{
	if (!tap_uentry_watch.tables)
		return;
	tap_task_slots_unwatch(&tap_uentry_watch);
	tracepoint_synchronize_unregister();
	kfree(tap_uentry_watch.tables);
	tap_uentry_watch.tables = NULL;
	tap_uentry_watch.ntables = 0;
}

/* On the file's inode as its processes map it (user_inode.h). */
static int tap_uprobe_register(struct tap_uprobe *u)
{
	int rc;

	u->inode = tap_user_inode(u->path, &rc);
	if (!u->inode)
		return rc;
#ifdef TAP_HAVE_UPROBE_UNREGISTER_NOSYNC
	u->uprobe = uprobe_register(u->inode, u->offset, u->ref_ctr_offset, &u->uc);
	rc = IS_ERR(u->uprobe) ? PTR_ERR(u->uprobe) : 0;
	if (rc)
		u->uprobe = NULL;
#else
	rc = uprobe_register_refctr(u->inode, u->offset, u->ref_ctr_offset, &u->uc);
#endif
	if (rc) {
		iput(u->inode);
		u->inode = NULL;
	}
	return rc;
}

/* Unregisters every uprobe registered (all, or those a failed start got to); on 6.12 one
 * uprobe_unregister_sync() waits for the handlers of them all. */
static void tap_uprobes_stop(void)
{
	int i;

	for (i = 0; i < TAP_NUM_UPROBES; i++) {
		struct tap_uprobe *u = &tap_uprobes[i];

		if (!u->inode)
			continue;
#ifdef TAP_HAVE_UPROBE_UNREGISTER_NOSYNC
		uprobe_unregister_nosync(u->uprobe, &u->uc);
		u->uprobe = NULL;
#else
		uprobe_unregister(u->inode, u->offset, &u->uc);
#endif
	}
#ifdef TAP_HAVE_UPROBE_UNREGISTER_NOSYNC
	if (TAP_NUM_UPROBES > 0)	/* every module has this provider */
		uprobe_unregister_sync();
#endif
	for (i = 0; i < TAP_NUM_UPROBES; i++) {
		if (tap_uprobes[i].inode) {
			iput(tap_uprobes[i].inode);
			tap_uprobes[i].inode = NULL;
		}
	}
	tap_uentry_watch_stop();
}

/* A file that is not there, or a uprobe the kernel refuses, is stap's registration error. */
static int tap_uprobes_start(void)
{
	int i, rc;

	rc = tap_uentry_watch_start();
	if (rc)
		return rc;
	for (i = 0; i < TAP_NUM_UPROBES; i++) {
		rc = tap_uprobe_register(&tap_uprobes[i]);
		if (rc) {
			tap_report_registration_error(tap_uprobes[i].pp, rc);
			return rc;
		}
	}
	return 0;
}

#endif
