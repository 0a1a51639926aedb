/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A tracepoint of the kernel itself by its name (sched_process_exit ...), for the runtime's
 * own handlers (the task finder, perf counters, per-task slots, the syscall dispatch): the
 * kernel exports no lookup by name, so this walks them once per name, when a session starts.
 * A hook is such a tracepoint with the runtime's handler on it, attached and detached by
 * name (tap_kernel_hook_attach(), tap_kernel_hooks_detach()).
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

/* The runtime's `handler` (with `data`) on the kernel's tracepoint `name`. */
struct tap_kernel_hook {
	const char *name;
	void *handler;
	void *data;
	struct tracepoint *tp;	/* while attached */
};

/* Attaches `hook`: 0, -ENOENT when the kernel has no such tracepoint, or the kernel's error. */
static __maybe_unused int tap_kernel_hook_attach(struct tap_kernel_hook *hook)
{
	struct tracepoint *tp = tap_kernel_tracepoint(hook->name);
	int rc;

	if (!tp)
		return -ENOENT;
	rc = tracepoint_probe_register(tp, hook->handler, hook->data);
	if (!rc)
		hook->tp = tp;
	return rc;
}

/* Detaches those of the `n` hooks that are attached; whether any was. The caller waits for
 * their handlers (tracepoint_synchronize_unregister()) before it frees what they use. */
static __maybe_unused bool tap_kernel_hooks_detach(struct tap_kernel_hook *hooks, int n)
{
	bool any = false;
	int i;

	for (i = 0; i < n; i++) {
		if (!hooks[i].tp)
			continue;
		tracepoint_probe_unregister(hooks[i].tp, hooks[i].handler, hooks[i].data);
		hooks[i].tp = NULL;
		any = true;
	}
	return any;
}

#endif /* TAP_TRACEPOINT_LOOKUP_H */
