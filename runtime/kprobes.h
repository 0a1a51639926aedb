/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kernel.function("f") and kernel.function("f").return: kprobes and kretprobes resolved by
 * symbol name when they are registered.
 *
 * The generated module defines, for each probe point, its own small handlers that enter the
 * context and call the probe body directly (no indirect call on the hot path), and the arrays
 * tap_kprobes[TAP_NUM_KPROBES] and tap_kretprobes[TAP_NUM_KRETPROBES] that this file
 * registers and unregisters.
 */
#ifndef TAP_KPROBES_H
#define TAP_KPROBES_H

#include <linux/kprobes.h>

#include "context.h"
#include "print.h"

struct tap_kprobe {
	struct kprobe kp;
	const struct tap_probe_point *pp;
	bool registered;
};

struct tap_kretprobe {
	struct kretprobe rp;
	const struct tap_probe_point *pp;
	bool registered;
};

/* Reports a failed registration on the stderr channel, as stap words it. */
static void tap_report_registration_error(const struct tap_probe_point *pp, int rc)
{
	struct tap_context *c = tap_context_enter_process(NULL, TAP_STARTING);

	if (!c)
		return;
	tap_channel_stderr(c, "ERROR: probe %s registration error [man warning::pass5] (rc %d)\n",
			   pp->pp, rc);
	tap_context_exit_process(c);
}

static __maybe_unused int tap_register_kprobes(struct tap_kprobe *probes, int count)
{
	int i, rc;

	for (i = 0; i < count; i++) {
		rc = register_kprobe(&probes[i].kp);
		if (rc) {
			tap_report_registration_error(probes[i].pp, rc);
			return rc;
		}
		probes[i].registered = true;
	}
	return 0;
}

static __maybe_unused int tap_register_kretprobes(struct tap_kretprobe *probes, int count)
{
	int i, rc;

	for (i = 0; i < count; i++) {
		if (probes[i].rp.maxactive <= 0)
			probes[i].rp.maxactive = KRETACTIVE;
		rc = register_kretprobe(&probes[i].rp);
		if (rc) {
			tap_report_registration_error(probes[i].pp, rc);
			return rc;
		}
		probes[i].registered = true;
	}
	return 0;
}

static __maybe_unused void tap_unregister_kprobes(struct tap_kprobe *probes, int count)
{
	int i;

	for (i = 0; i < count; i++) {
		if (!probes[i].registered)
			continue;
		unregister_kprobe(&probes[i].kp);
		probes[i].registered = false;
		if (probes[i].kp.nmissed)
			atomic_add(probes[i].kp.nmissed, &tap_skipped_count);
	}
}

/* Unregisters; may sleep, so no context is held. */
static __maybe_unused void tap_unregister_kretprobes(struct tap_kretprobe *probes, int count)
{
	int i;

	for (i = 0; i < count; i++) {
		if (!probes[i].registered)
			continue;
		unregister_kretprobe(&probes[i].rp);
		probes[i].registered = false;
		atomic_add(probes[i].rp.nmissed, &tap_skipped_count);
	}
}

/* Instances missed for want of a free kretprobe instance, reported as stap reports them. */
static __maybe_unused void tap_report_missed_kretprobes(struct tap_context *c, struct tap_kretprobe *probes,
					 int count)
{
	int i;

	for (i = 0; i < count; i++)
		if (probes[i].rp.nmissed)
			tap_channel_stderr(c,
				"WARNING: Skipped due to missed kretprobe/1 on '%s': %d\n",
				probes[i].pp->pp, probes[i].rp.nmissed);
}

#endif
