/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tracepoints: kernel.trace("name"). Each probe point has its own handler of the
 * tracepoint's prototype, generated with the module, which keeps the arguments in the
 * context (tap_arg() reads them) and calls its probe body. The tracepoints of vmlinux are
 * found by name with for_each_kernel_tracepoint() when the session starts and attached
 * with tracepoint_probe_register(); at the stop they are detached, and
 * tracepoint_synchronize_unregister() waits for handlers still running before the module
 * may go.
 *
 * A tracepoint of a loadable module is attached whenever the module is there: the
 * tracepoint module notifier (register_tracepoint_module_notifier(), exported to GPL
 * modules) tells of each module with tracepoints that is loaded when it is registered and
 * of each that comes later (MODULE_STATE_COMING, before its init function runs); at
 * MODULE_STATE_GOING its handlers are detached, before the kernel checks that none is
 * left. tap_tp_mutex orders the notifier against the stop.
 */
#ifndef TAP_TRACEPOINTS_H
#define TAP_TRACEPOINTS_H

#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/tracepoint.h>

#include "context.h"
#include "kprobes.h"

#ifndef TAP_NUM_TRACEPOINTS
#define TAP_NUM_TRACEPOINTS 0
#endif

struct tap_tracepoint {
	const char *name;
	const char *module;		/* its loadable module, NULL for vmlinux */
	void *handler;
	const struct tap_probe_point *pp;
	struct tracepoint *tp;		/* found at the start */
	bool registered;
};

#if TAP_NUM_TRACEPOINTS > 0
static struct tap_tracepoint tap_tracepoints[TAP_NUM_TRACEPOINTS];	/* the generated module's */
#else
static struct tap_tracepoint *const tap_tracepoints __maybe_unused;
#endif

struct tap_tracepoint_search {
	struct tap_tracepoint *table;
	int count;
};

static void tap_tracepoint_found(struct tracepoint *tp, void *priv)
{
	struct tap_tracepoint_search *search = priv;
	int i;

	for (i = 0; i < search->count; i++)
		if (!search->table[i].module && !search->table[i].tp &&
		    !strcmp(search->table[i].name, tp->name))
			search->table[i].tp = tp;
}

/* ---- Tracepoints of loadable modules ---- */

static DEFINE_MUTEX(tap_tp_mutex);
static struct tap_tracepoint_search tap_tp_modules;	/* the table, for the notifier */
static bool tap_tp_stopping;

#ifdef CONFIG_MODULES
/* Attaches the handlers on the tracepoints of `mod` that it has; under tap_tp_mutex. */
static void tap_tracepoints_coming(struct module *mod)
{
	struct tap_tracepoint *table = tap_tp_modules.table;
	unsigned int j;
	int i, rc;

	for (j = 0; j < mod->num_tracepoints; j++) {
		struct tracepoint *tp = tracepoint_ptr_deref(&mod->tracepoints_ptrs[j]);

		for (i = 0; i < tap_tp_modules.count; i++) {
			if (!table[i].module || table[i].registered ||
			    strcmp(table[i].module, mod->name) || strcmp(table[i].name, tp->name))
				continue;
			rc = tracepoint_probe_register(tp, table[i].handler, NULL);
			if (rc) {
				tap_report_registration_error(table[i].pp, rc);
				continue;
			}
			table[i].tp = tp;
			table[i].registered = true;
		}
	}
}

/* Detaches the handlers on the tracepoints of `mod` (all modules' when NULL); under
 * tap_tp_mutex. */
static bool tap_tracepoints_going(struct module *mod)
{
	struct tap_tracepoint *table = tap_tp_modules.table;
	bool any = false;
	int i;

	for (i = 0; i < tap_tp_modules.count; i++) {
		if (!table[i].module || !table[i].registered ||
		    (mod && strcmp(table[i].module, mod->name)))
			continue;
		tracepoint_probe_unregister(table[i].tp, table[i].handler, NULL);
		table[i].registered = false;
		table[i].tp = NULL;
		any = true;
	}
	return any;
}

static int tap_tracepoint_module_notify(struct notifier_block *nb, unsigned long state,
					void *data)
{
	struct tp_module *tp_mod = data;

	mutex_lock(&tap_tp_mutex);
	if (state == MODULE_STATE_COMING && !tap_tp_stopping)
		tap_tracepoints_coming(tp_mod->mod);
	else if (state == MODULE_STATE_GOING && tap_tracepoints_going(tp_mod->mod))
		tracepoint_synchronize_unregister();
	mutex_unlock(&tap_tp_mutex);
	return NOTIFY_OK;
}

static struct notifier_block tap_tracepoint_module_nb = {
	.notifier_call = tap_tracepoint_module_notify,
};
static bool tap_tp_notifier_registered;

static int tap_register_module_tracepoints(struct tap_tracepoint *table, int count)
{
	int i, rc;

	for (i = 0; i < count && !table[i].module; i++)
		;
	if (i == count)
		return 0;
	tap_tp_modules = (struct tap_tracepoint_search){ table, count };
	tap_tp_stopping = false;
	rc = register_tracepoint_module_notifier(&tap_tracepoint_module_nb);
	tap_tp_notifier_registered = !rc;
	return rc;
}

static bool tap_unregister_module_tracepoints(void)
{
	bool any;

	if (!tap_tp_notifier_registered)
		return false;
	mutex_lock(&tap_tp_mutex);
	tap_tp_stopping = true;
	any = tap_tracepoints_going(NULL);
	mutex_unlock(&tap_tp_mutex);
	unregister_tracepoint_module_notifier(&tap_tracepoint_module_nb);
	tap_tp_notifier_registered = false;
	return any;
}
#else
static int tap_register_module_tracepoints(struct tap_tracepoint *table, int count)
{
	return 0;
}

static bool tap_unregister_module_tracepoints(void)
{
	return false;
}
#endif

static __maybe_unused void tap_unregister_tracepoints(struct tap_tracepoint *table, int count)
{
	bool any = tap_unregister_module_tracepoints();
	int i;

	for (i = 0; i < count; i++) {
		if (table[i].module || !table[i].registered)
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
		if (table[i].module)
			continue;
		rc = table[i].tp ? tracepoint_probe_register(table[i].tp, table[i].handler, NULL) :
				   -ENOENT;
		if (rc) {
			tap_report_registration_error(table[i].pp, rc);
			return rc;
		}
		table[i].registered = true;
	}
	return tap_register_module_tracepoints(table, count);
}


/* ---- The provider's part in the session (providers.h) ---- */

static int tap_tracepoints_start(void)
{
	return TAP_NUM_TRACEPOINTS ? tap_register_tracepoints(tap_tracepoints, TAP_NUM_TRACEPOINTS) : 0;
}

static void tap_tracepoints_stop(void)
{
	if (TAP_NUM_TRACEPOINTS)
		tap_unregister_tracepoints(tap_tracepoints, TAP_NUM_TRACEPOINTS);
}

#endif
