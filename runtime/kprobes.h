/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kprobes and kretprobes: kernel.function("f") and its return, resolved by symbol name when
 * registered; kernel.statement(ADDR).absolute, at an address; module("m").function("f") and
 * its return, on a function of a loadable module, as symbol "m:f".
 *
 * A probe on a module is armed whenever the module is there: at the start of the session if
 * it is loaded then, else when it loads (a module notifier, at MODULE_STATE_COMING, before its
 * init function runs); it is disarmed when the module goes away, and armed again if it comes
 * back.
 *
 * The generated module defines, for each probe point, its own small handlers that enter the
 * context and call the probe body directly (no indirect call on the hot path), and the arrays
 * tap_kprobes[TAP_NUM_KPROBES] and tap_kretprobes[TAP_NUM_KRETPROBES] that
 * tap_register_kernel_probes() registers.
 */
#ifndef TAP_KPROBES_H
#define TAP_KPROBES_H

#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "context.h"
#include "print.h"

struct tap_kprobe {
	struct kprobe kp;
	const struct tap_probe_point *pp;
	const char *module;	/* the module of the function, NULL for the kernel */
	int cond;		/* its probe's condition (1..TAP_NUM_CONDITIONS), or 0 */
	bool registered;
};

struct tap_kretprobe {
	struct kretprobe rp;
	const struct tap_probe_point *pp;
	const char *module;
	int cond;
	bool registered;
	int missed;		/* instances missed while registered before */
};

/* The probes, for the module notifier; changed under tap_kprobes_mutex. */
static struct tap_kprobe *tap_kprobe_table;
static int tap_kprobe_count;
static struct tap_kretprobe *tap_kretprobe_table;
static int tap_kretprobe_count;
static bool tap_kprobes_live;
static __maybe_unused DEFINE_MUTEX(tap_kprobes_mutex);

/* Reports a failed registration on the stderr channel, as stap words it: at the start, or
 * later when a module that has probes loads. */
static void tap_report_registration_error(const struct tap_probe_point *pp, int rc)
{
	struct tap_context *c = tap_context_enter_process(NULL, tap_session_state());

	if (!c)
		return;
	tap_channel_stderr(c, "ERROR: probe %s registration error [man warning::pass5] (rc %d)\n",
			   pp->pp, rc);
	tap_context_exit_process(c);
}

/*
 * A kprobe keeps what registration found (its address, flags, list links): before it is
 * registered again, after its module came back, only what the generated table set is kept.
 */
static void tap_kprobe_reset(struct kprobe *kp)
{
	struct kprobe fresh = {
		.symbol_name = kp->symbol_name,
		.addr = kp->symbol_name ? NULL : kp->addr,
		.offset = kp->offset,
		.pre_handler = kp->pre_handler,
		.post_handler = kp->post_handler,
	};

	*kp = fresh;
}

static void tap_kretprobe_reset(struct kretprobe *rp)
{
	struct kretprobe fresh = {
		.kp.symbol_name = rp->kp.symbol_name,
		.handler = rp->handler,
		.entry_handler = rp->entry_handler,
		.maxactive = rp->maxactive,
		.data_size = rp->data_size,
	};

	*rp = fresh;
}

/* Whether a probe belongs to the module `name` (NULL: any module). */
static bool tap_on_module(const char *module, const char *name)
{
	return module && (!name || !strcmp(module, name));
}

/*
 * Registers one probe. A probe on a module that is not loaded is left for the module
 * notifier (-ENOENT: no such symbol now); so is one on its init function once that is gone.
 */
static int tap_registered(int rc, bool *registered, const char *module,
			  const struct tap_probe_point *pp)
{
	if (!rc)
		*registered = true;
	else if (rc == -ENOENT && module)
		rc = 0;
	else
		tap_report_registration_error(pp, rc);
	return rc;
}

static int tap_arm_kprobe(struct tap_kprobe *p)
{
	tap_kprobe_reset(&p->kp);
	return tap_registered(register_kprobe(&p->kp), &p->registered, p->module, p->pp);
}

static int tap_arm_kretprobe(struct tap_kretprobe *p)
{
	tap_kretprobe_reset(&p->rp);
	if (p->rp.maxactive <= 0)
		p->rp.maxactive = KRETACTIVE;
	return tap_registered(register_kretprobe(&p->rp), &p->registered, p->module, p->pp);
}

static void tap_disarm_kprobe(struct tap_kprobe *p)
{
	if (!p->registered)
		return;
	unregister_kprobe(&p->kp);
	p->registered = false;
	if (p->kp.nmissed)
		atomic_add(p->kp.nmissed, &tap_skipped_count);
}

/* Unregisters; may sleep, so no context is held. */
static void tap_disarm_kretprobe(struct tap_kretprobe *p)
{
	if (!p->registered)
		return;
	unregister_kretprobe(&p->rp);
	p->registered = false;
	p->missed += p->rp.nmissed;
	atomic_add(p->rp.nmissed, &tap_skipped_count);
}

/*
 * Registers the kernel's kprobes that are not armed in one register_kprobes() call, and the
 * same for its kretprobes; a batch that fails is left unregistered (the kernel undoes it)
 * for tap_arm_probes() to register one by one, which reports the probe that fails. Module
 * probes are not batched: one on a module that is not loaded is no error. False when the
 * batch failed.
 */
static bool tap_arm_kprobe_batch(void)
{
	struct kprobe **batch = kmalloc_array(max(tap_kprobe_count, 1), sizeof(*batch),
					      GFP_KERNEL);
	int i, n = 0, rc = 0;

	if (!batch)
		return true;
	for (i = 0; i < tap_kprobe_count; i++) {
		struct tap_kprobe *p = &tap_kprobe_table[i];

		if (p->registered || p->module)
			continue;
		tap_kprobe_reset(&p->kp);
		batch[n++] = &p->kp;
	}
	if (n > 1)
		rc = register_kprobes(batch, n);
	if (n > 1 && !rc)
		for (i = 0; i < tap_kprobe_count; i++)
			if (!tap_kprobe_table[i].module)
				tap_kprobe_table[i].registered = true;
	kfree(batch);
	return !rc;
}

static void tap_arm_kretprobe_batch(void)
{
	struct kretprobe **batch = kmalloc_array(max(tap_kretprobe_count, 1), sizeof(*batch),
						 GFP_KERNEL);
	int i, n = 0;

	if (!batch)
		return;
	for (i = 0; i < tap_kretprobe_count; i++) {
		struct tap_kretprobe *p = &tap_kretprobe_table[i];

		if (p->registered || p->module)
			continue;
		tap_kretprobe_reset(&p->rp);
		if (p->rp.maxactive <= 0)
			p->rp.maxactive = KRETACTIVE;
		batch[n++] = &p->rp;
	}
	if (n > 1 && !register_kretprobes(batch, n))
		for (i = 0; i < tap_kretprobe_count; i++)
			if (!tap_kretprobe_table[i].module)
				tap_kretprobe_table[i].registered = true;
	kfree(batch);
}

/* Arms the probes on the module `name` that are not armed (all of them when NULL, the kernel's
 * too: those in batches first); stops at the first error. Called with tap_kprobes_mutex held. */
static int tap_arm_probes(const char *name)
{
	int i, rc = 0;

	/* After a failed batch of kprobes, the one by one registration stops at the failing
	 * one before any kretprobe is armed, as it always did. */
	if (!name && tap_arm_kprobe_batch())
		tap_arm_kretprobe_batch();

	for (i = 0; !rc && i < tap_kprobe_count; i++)
		if (!tap_kprobe_table[i].registered &&
		    (!name || tap_on_module(tap_kprobe_table[i].module, name)))
			rc = tap_arm_kprobe(&tap_kprobe_table[i]);
	for (i = 0; !rc && i < tap_kretprobe_count; i++)
		if (!tap_kretprobe_table[i].registered &&
		    (!name || tap_on_module(tap_kretprobe_table[i].module, name)))
			rc = tap_arm_kretprobe(&tap_kretprobe_table[i]);
	return rc;
}

static bool tap_kprobe_matches(const struct tap_kprobe *p, const char *name)
{
	return p->registered && (!name || tap_on_module(p->module, name));
}

static bool tap_kretprobe_matches(const struct tap_kretprobe *p, const char *name)
{
	return p->registered && (!name || tap_on_module(p->module, name));
}

/*
 * Unregisters the registered kprobes on the module `name` (all when NULL) in one batch: the
 * kernel waits once for the handlers that may still run (an RCU grace period), not once a
 * probe, which makes stopping a script of many probes take milliseconds rather than
 * seconds. False when there is no memory for the batch.
 */
static bool tap_disarm_kprobe_batch(const char *name)
{
	struct kprobe **batch = kmalloc_array(max(tap_kprobe_count, 1), sizeof(*batch),
					      GFP_KERNEL);
	int i, n = 0;

	if (!batch)
		return false;
	for (i = 0; i < tap_kprobe_count; i++)
		if (tap_kprobe_matches(&tap_kprobe_table[i], name))
			batch[n++] = &tap_kprobe_table[i].kp;
	if (n)
		unregister_kprobes(batch, n);
	kfree(batch);
	for (i = 0; i < tap_kprobe_count; i++) {
		struct tap_kprobe *p = &tap_kprobe_table[i];

		if (!tap_kprobe_matches(p, name))
			continue;
		p->registered = false;
		if (p->kp.nmissed)
			atomic_add(p->kp.nmissed, &tap_skipped_count);
	}
	return true;
}

/* The same for the kretprobes. */
static bool tap_disarm_kretprobe_batch(const char *name)
{
	struct kretprobe **batch = kmalloc_array(max(tap_kretprobe_count, 1), sizeof(*batch),
						 GFP_KERNEL);
	int i, n = 0;

	if (!batch)
		return false;
	for (i = 0; i < tap_kretprobe_count; i++)
		if (tap_kretprobe_matches(&tap_kretprobe_table[i], name))
			batch[n++] = &tap_kretprobe_table[i].rp;
	if (n)
		unregister_kretprobes(batch, n);
	kfree(batch);
	for (i = 0; i < tap_kretprobe_count; i++) {
		struct tap_kretprobe *p = &tap_kretprobe_table[i];

		if (!tap_kretprobe_matches(p, name))
			continue;
		p->registered = false;
		p->missed += p->rp.nmissed;
		atomic_add(p->rp.nmissed, &tap_skipped_count);
	}
	return true;
}

/* Disarms the probes on the module `name`, or all of them when NULL: in batches, else (no
 * memory) one by one. */
static void tap_disarm_probes(const char *name)
{
	int i;

	if (!tap_disarm_kprobe_batch(name))
		for (i = 0; i < tap_kprobe_count; i++)
			if (!name || tap_on_module(tap_kprobe_table[i].module, name))
				tap_disarm_kprobe(&tap_kprobe_table[i]);
	if (!tap_disarm_kretprobe_batch(name))
		for (i = 0; i < tap_kretprobe_count; i++)
			if (!name || tap_on_module(tap_kretprobe_table[i].module, name))
				tap_disarm_kretprobe(&tap_kretprobe_table[i]);
}

/* A module comes (its probes are armed before its init function runs) or goes. */
static int tap_module_notify(struct notifier_block *nb, unsigned long state, void *data)
{
	struct module *mod = data;

	mutex_lock(&tap_kprobes_mutex);
	if (tap_kprobes_live && state == MODULE_STATE_COMING)
		tap_arm_probes(mod->name);
	else if (tap_kprobes_live && state == MODULE_STATE_GOING)
		tap_disarm_probes(mod->name);
	mutex_unlock(&tap_kprobes_mutex);
	return NOTIFY_DONE;
}

static struct notifier_block tap_module_nb = {
	.notifier_call = tap_module_notify,
};
static bool tap_module_nb_registered;

static bool tap_any_module_probe(void)
{
	int i;

	for (i = 0; i < tap_kprobe_count; i++)
		if (tap_kprobe_table[i].module)
			return true;
	for (i = 0; i < tap_kretprobe_count; i++)
		if (tap_kretprobe_table[i].module)
			return true;
	return false;
}

/* Arms every probe (those on modules that are not loaded wait for them); may sleep. On an
 * error, what was armed is disarmed again by tap_unregister_kernel_probes(). */
static __maybe_unused int tap_register_kernel_probes(struct tap_kprobe *kprobes, int nkprobes,
						     struct tap_kretprobe *kretprobes,
						     int nkretprobes)
{
	int rc;

	tap_kprobe_table = kprobes;
	tap_kprobe_count = nkprobes;
	tap_kretprobe_table = kretprobes;
	tap_kretprobe_count = nkretprobes;
	if (tap_any_module_probe()) {
		rc = register_module_notifier(&tap_module_nb);
		if (rc)
			return rc;
		tap_module_nb_registered = true;
	}
	mutex_lock(&tap_kprobes_mutex);
	tap_kprobes_live = true;
	rc = tap_arm_probes(NULL);
	mutex_unlock(&tap_kprobes_mutex);
	return rc;
}

/*
 * Conditional probes (probe P if (cond)). A hit that finds its condition false asks for the
 * probe's kprobes to be disabled; a probe that may have changed a global of a condition asks
 * for them all to be enabled again, and the next hit looks at its condition again. Disabling
 * may sleep: a work item carries the requests out, under tap_kprobes_mutex. Probe context
 * never queues that work itself (queue_work() takes the workqueue pool's lock, which the probed
 * code may hold on this CPU): it sets tap_conditions_pending and kicks the session's poll
 * (an irq_work, session.h), which queues the work.
 */
#ifndef TAP_NUM_CONDITIONS
#define TAP_NUM_CONDITIONS 0
#endif

static unsigned long tap_conditions_off[BITS_TO_LONGS(TAP_NUM_CONDITIONS + 1)];

static void tap_kprobe_set_enabled(struct kprobe *kp, bool enabled)
{
	if (enabled && kprobe_disabled(kp))
		enable_kprobe(kp);
	else if (!enabled && !kprobe_disabled(kp))
		disable_kprobe(kp);
}

static void tap_conditions_apply(struct work_struct *work)
{
	int i;

	mutex_lock(&tap_kprobes_mutex);
	for (i = 0; tap_kprobes_live && i < tap_kprobe_count; i++) {
		struct tap_kprobe *p = &tap_kprobe_table[i];

		if (p->cond && p->registered)
			tap_kprobe_set_enabled(&p->kp, !test_bit(p->cond, tap_conditions_off));
	}
	for (i = 0; tap_kprobes_live && i < tap_kretprobe_count; i++) {
		struct tap_kretprobe *p = &tap_kretprobe_table[i];

		if (p->cond && p->registered)
			tap_kprobe_set_enabled(&p->rp.kp, !test_bit(p->cond, tap_conditions_off));
	}
	mutex_unlock(&tap_kprobes_mutex);
}

static __maybe_unused DECLARE_WORK(tap_conditions_work, tap_conditions_apply);
static int tap_conditions_pending;

/* From the session's poll, never probe context: carries out what probes asked for; true
 * when there was something to do. */
static __maybe_unused bool tap_conditions_poll(void)
{
	if (READ_ONCE(tap_conditions_pending) && xchg(&tap_conditions_pending, 0) &&
	    READ_ONCE(tap_kprobes_live)) {
		queue_work(system_wq, &tap_conditions_work);
		return true;
	}
	return false;
}

/* From probe context: condition `cond` is false. */
static __maybe_unused void tap_condition_false(int cond)
{
	if (!test_and_set_bit(cond, tap_conditions_off)) {
		WRITE_ONCE(tap_conditions_pending, 1);
		tap_kick();
	}
}

/* From probe context: a global that a condition reads may have changed. */
static __maybe_unused void tap_conditions_changed(void)
{
	bool any = false;
	int i;

	for (i = 1; i <= TAP_NUM_CONDITIONS; i++)
		any |= test_and_clear_bit(i, tap_conditions_off);
	if (any) {
		WRITE_ONCE(tap_conditions_pending, 1);
		tap_kick();
	}
}

static __maybe_unused void tap_unregister_kernel_probes(void)
{
	if (tap_module_nb_registered) {
		unregister_module_notifier(&tap_module_nb);
		tap_module_nb_registered = false;
	}
	mutex_lock(&tap_kprobes_mutex);
	WRITE_ONCE(tap_kprobes_live, false);
	tap_disarm_probes(NULL);
	mutex_unlock(&tap_kprobes_mutex);
	/* No handler runs any more, and no later probe queues the work (not live). */
	if (TAP_NUM_CONDITIONS)
		cancel_work_sync(&tap_conditions_work);
}

/*
 * Instances missed for want of a free kretprobe instance, per probe point, as stap reports
 * them: only in a timing build (-DSTP_TIMING, stap -t); they always count as skipped probes.
 */
static __maybe_unused void tap_report_missed_kretprobes(struct tap_context *c)
{
#ifdef STP_TIMING
	int i;

	for (i = 0; i < tap_kretprobe_count; i++)
		if (tap_kretprobe_table[i].missed)
			tap_channel_stderr(c,
				"WARNING: Skipped due to missed kretprobe/1 on '%s': %d\n",
				tap_kretprobe_table[i].pp->pp, tap_kretprobe_table[i].missed);
#endif
}

#endif
