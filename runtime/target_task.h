/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The -c or -x target's process tree (tap_target_pid, session.h): a point without PATH or
 * PID sees only the target process and its descendants when there is a target, as stap's
 * process probes do.
 */
#ifndef TAP_TARGET_TASK_H
#define TAP_TARGET_TASK_H

#include <linux/rcupdate.h>
#include <linux/sched.h>

#include "session.h"

/* Whether task t is of the target process or of one of its descendants (by its parents as
 * they are now: an orphan's is init). */
static inline bool tap_task_in_target(struct task_struct *t)
{
	bool found = false;

	rcu_read_lock();
	for (; t && t->pid > 1; t = rcu_dereference(t->real_parent)) {
		if (t->tgid == tap_target_pid) {
			found = true;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

#endif
