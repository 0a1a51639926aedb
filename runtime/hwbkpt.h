/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kernel.data(ADDR)[.length(N)].write|.rw, kernel.data("SYMBOL").write|.rw: a hardware
 * watchpoint on every CPU (register_wide_hw_breakpoint()) whose hit runs the probe body
 * with the registers of the access, in the debug exception (interrupts off; on x86 the
 * instruction after the access, for a data breakpoint traps once it is done).
 *
 * As stap's runtime: a point's SYMBOL (one of address 0) is looked up when the session
 * starts, and a name the kernel does not have is a warning, "registration skipped"; the
 * length is the one the CPU can watch, 1, 2, 4 (for 3 and 4) or 8 (any other); a
 * watchpoint the kernel refuses (too many for the CPU's debug registers, 4 on x86: -ENOSPC;
 * an address not aligned to its length: -EINVAL) is a warning, and when it is the last point
 * of the table, the registration error that ends the session. x86 has no read-only
 * watchpoint: .rw watches reads and writes.
 *
 * kallsyms_lookup_name() is not exported. A kprobe resolves its symbol_name through it
 * and keeps the address in `addr` before it checks that the address is text it may probe,
 * which a data symbol is not: registering one on the SYMBOL gives its address (and
 * -EINVAL, or a kprobe, taken off at once, when the name is a function's), -ENOENT for a
 * name the kernel does not have.
 *
 * The generated module defines tap_hwbkpts[TAP_NUM_HWBKPT].
 */
#ifndef TAP_HWBKPT_H
#define TAP_HWBKPT_H

#include <linux/err.h>
#include <linux/hw_breakpoint.h>
#include <linux/kprobes.h>
#include <linux/perf_event.h>

#include "context.h"
#include "kprobes.h"

struct tap_hwbkpt {
	unsigned long address;	/* 0: look up `symbol` */
	const char *symbol;
	unsigned int length;	/* as written; 1 without one */
	int rw;			/* reads too, else writes only */
	const struct tap_probe_point *pp;
	void (*body)(struct tap_context *c);
	struct perf_event * __percpu *events;	/* NULL while not registered */
};

#ifndef TAP_NUM_HWBKPT
#define TAP_NUM_HWBKPT 0
#endif

#if TAP_NUM_HWBKPT > 0
static struct tap_hwbkpt tap_hwbkpts[TAP_NUM_HWBKPT];	/* the generated module's */

static void tap_hwbkpt_hit(struct perf_event *bp, struct perf_sample_data *data,
			   struct pt_regs *regs)
{
	struct tap_hwbkpt *h = bp->overflow_handler_context;

	tap_context_run(h->pp, regs, h->body);
}

/* The kernel's address of `symbol`, or 0 when it has none. */
static unsigned long tap_hwbkpt_lookup(const char *symbol)
{
	struct kprobe kp = { .symbol_name = symbol };
	int rc = register_kprobe(&kp);

	if (!rc)
		unregister_kprobe(&kp);
	else if (rc != -EINVAL)
		return 0;
	return (unsigned long)kp.addr;
}

/* The length the CPU watches for the one written. */
static int tap_hwbkpt_length(unsigned int length)
{
	switch (length) {
	case 1:
		return HW_BREAKPOINT_LEN_1;
	case 2:
		return HW_BREAKPOINT_LEN_2;
	case 3:
	case 4:
		return HW_BREAKPOINT_LEN_4;
	default:
		return HW_BREAKPOINT_LEN_8;
	}
}

/* Registers `h`; 0, or the kernel's error after its warning. */
static int tap_hwbkpt_register(struct tap_hwbkpt *h)
{
	struct perf_event_attr attr;
	struct perf_event * __percpu *events;
	const char *symbol = h->address ? NULL : h->symbol;

	hw_breakpoint_init(&attr);
	attr.bp_addr = h->address ? h->address : tap_hwbkpt_lookup(h->symbol);
	if (!attr.bp_addr) {
		tap_runtime_message("WARNING: Probe %s registration skipped: invalid symbol %s \n",
				h->pp->pp, h->symbol);
		return 0;
	}
	attr.bp_type = h->rw ? HW_BREAKPOINT_R | HW_BREAKPOINT_W : HW_BREAKPOINT_W;
	attr.bp_len = tap_hwbkpt_length(h->length);
	events = register_wide_hw_breakpoint(&attr, tap_hwbkpt_hit, h);
	if (IS_ERR((void __force *)events)) {
		int rc = PTR_ERR((void __force *)events);

		tap_runtime_message("WARNING: Hwbkpt probe %s: registration error [man warning::pass5] %d, addr %p, name %s\n",
				h->pp->pp, rc, (void *)h->address, symbol);
		return rc;
	}
	h->events = events;
	return 0;
}
#endif

/* ---- The provider's parts in the session (providers.h) ---- */

static void tap_hwbkpt_stop(void)
{
#if TAP_NUM_HWBKPT > 0
	int i;

	for (i = 0; i < TAP_NUM_HWBKPT; i++) {
		if (!tap_hwbkpts[i].events)
			continue;
		unregister_wide_hw_breakpoint(tap_hwbkpts[i].events);
		tap_hwbkpts[i].events = NULL;
	}
#endif
}

/* Each point the kernel refuses is a warning; as stap's, the session ends (with the
 * registration error) when the last point's registration failed, and goes on without
 * the refused points otherwise. The caller stops what was started. */
static int tap_hwbkpt_start(void)
{
#if TAP_NUM_HWBKPT > 0
	int i, rc = 0;

	for (i = 0; i < TAP_NUM_HWBKPT; i++)
		rc = tap_hwbkpt_register(&tap_hwbkpts[i]);
	if (rc) {
		tap_report_registration_error(tap_hwbkpts[TAP_NUM_HWBKPT - 1].pp, rc);
		return rc;
	}
#endif
	return 0;
}

#endif
