/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tracepoints: kernel.trace("name"). Each probe point has its own handler of the
 * tracepoint's prototype, generated with the module, which keeps the arguments in the
 * context (tap_arg() reads them) and calls its probe body. The tracepoints of vmlinux are
 * found by name with for_each_kernel_tracepoint() when the session starts and attached
 * with tracepoint_probe_register(); at the stop they are detached, and
 * tracepoint_synchronize_unregister() waits for handlers still running before the module
 * may go.
 */
#ifndef TAP_TRACEPOINTS_H
#define TAP_TRACEPOINTS_H

#include <linux/tracepoint.h>

#include "context.h"
#include "kprobes.h"

#ifndef TAP_NUM_TRACEPOINTS
#define TAP_NUM_TRACEPOINTS 0
#endif

struct tap_tracepoint {
	const char *name;
	void *handler;
	const struct tap_probe_point *pp;
	struct tracepoint *tp;		/* found at the start */
	bool registered;
};

struct tap_tracepoint_search {
	struct tap_tracepoint *table;
	int count;
};

static void tap_tracepoint_found(struct tracepoint *tp, void *priv)
{
	struct tap_tracepoint_search *search = priv;
	int i;

	for (i = 0; i < search->count; i++)
		if (!search->table[i].tp && !strcmp(search->table[i].name, tp->name))
			search->table[i].tp = tp;
}

static __maybe_unused void tap_unregister_tracepoints(struct tap_tracepoint *table, int count)
{
	bool any = false;
	int i;

	for (i = 0; i < count; i++) {
		if (!table[i].registered)
			continue;
		tracepoint_probe_unregister(table[i].tp, table[i].handler, NULL);
		table[i].registered = false;
		any = true;
	}
	if (any)
		tracepoint_synchronize_unregister();
}

/* Attaches every handler; a tracepoint that is not there, or that refuses, is stap's
 * registration error, and what was attached is detached again by the caller. */
static __maybe_unused int tap_register_tracepoints(struct tap_tracepoint *table, int count)
{
	struct tap_tracepoint_search search = { table, count };
	int i, rc;

	for_each_kernel_tracepoint(tap_tracepoint_found, &search);
	for (i = 0; i < count; i++) {
		rc = table[i].tp ? tracepoint_probe_register(table[i].tp, table[i].handler, NULL) :
				   -ENOENT;
		if (rc) {
			tap_report_registration_error(table[i].pp, rc);
			return rc;
		}
		table[i].registered = true;
	}
	return 0;
}

#endif
