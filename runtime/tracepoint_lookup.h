/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A tracepoint of the kernel itself by its name (sched_process_exit ...), for the runtime's
 * own handlers (the task finder, perf counters, per-task slots, the syscall dispatch): the
 * kernel exports no lookup by name, so this walks them once per name, when a session starts.
 */
#ifndef TAP_TRACEPOINT_LOOKUP_H
#define TAP_TRACEPOINT_LOOKUP_H

#include <linux/string.h>
#include <linux/tracepoint.h>

struct tap_tracepoint_lookup {
	const char *name;
	struct tracepoint *found;
};

static __maybe_unused void tap_tracepoint_lookup_one(struct tracepoint *tp, void *priv)
{
	struct tap_tracepoint_lookup *lookup = priv;

	if (!lookup->found && !strcmp(tp->name, lookup->name))
		lookup->found = tp;
}

/* The kernel's tracepoint `name`, or NULL when it has none. */
static __maybe_unused struct tracepoint *tap_kernel_tracepoint(const char *name)
{
	struct tap_tracepoint_lookup lookup = { name, NULL };

	for_each_kernel_tracepoint(tap_tracepoint_lookup_one, &lookup);
	return lookup.found;
}

#endif /* TAP_TRACEPOINT_LOOKUP_H */
