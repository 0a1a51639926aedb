/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The probe context: what one probe hit owns on its CPU. Every handler enters it first;
 * a probe that fires while another holds its CPU's context (an interrupt, or a probe inside
 * a probe) is skipped and counted, as in stap. Holding the context also makes this CPU's
 * output ring ours alone (see transport.h).
 *
 * The generated module defines `union tap_frame` (the locals of every probe body and script
 * function) before including the runtime; a context holds one frame per nesting level.
 */
#ifndef TAP_CONTEXT_H
#define TAP_CONTEXT_H

#include <asm/local.h>
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/smp.h>
#include <linux/timex.h>
#include <linux/vmalloc.h>

#include "defaults.h"
#include "regex.h"
#include "session.h"
#include "stat.h"
#include "transport.h"

/* What the script sees of the probe point that fired: pp(), pn() and ppfunc(). */
struct tap_probe_point {
	const char *pp;		/* the probe point as a string, e.g. kernel.function("f").return */
	const char *pn;		/* pn(): the point as the script named it (an alias's name) */
	const char *func;	/* the probed function's name, or "" */
	const char *type;	/* probe_type(): "kprobe", "hrtimer", "begin_end"... */
	int point;		/* its place among its probe's points, from 0 */
#ifdef STP_TIMING
	int index;		/* -t: its place in the probe hit report (timing.h) */
#endif
};

#ifdef STP_TIMING
/* -t: the cycles of one probe point's hits on one CPU (timing.h). */
struct tap_timing_part {
	struct tap_stat stat;
	struct tap_stat_variance variance;
};

/* -t: what the probe hit report names of a point (the translator's tap_timing_points[]). */
struct tap_timing_point {
	const char *pp;
	const char *location;	/* where the script has it */
	const char *derivation;	/* " from: ..." each step, as stap shows it */
};
#endif

/*
 * A probe hit's stdout text: in buf, or, put there by printf's fast path while it extends the
 * last record of its CPU's ring, at the ring's head, not yet published (`text`, `room` bytes
 * there: transport.h's tap_ring_extend_room(); print.h).
 */
struct tap_print_buffer {
	u32 len;
	u32 room;	/* bytes at text */
	char *text;	/* the ring's head, or NULL: buf */
	char buf[TAP_PRINT_BUFFER_SIZE];
};

struct tap_context {
	local_t busy;			/* -1 when free; 0 when a hit holds it */
	const struct tap_probe_point *pp;
	struct pt_regs *regs;		/* registers at the probe hit, or NULL (begin/end) */
	void *entry_data;		/* a return probe's @entry values */
	u64 *trace_args;		/* a tracepoint's arguments (tracepoints.h), or NULL */
	void *point_data;		/* a netfilter hook's packet and verdict (netfilter.h),
					 * or NULL; set by the handlers that use it */
	unsigned long ubias;		/* a uprobe's: the load bias of the file probed, where
					 * its DWARF's link-time addresses are in the process */
	const char *last_error;		/* set by a failing statement; ends the probe hit */
	const char *error_location;	/* "operator '/' at FILE:LINE:COL" of that statement */
	int actions_remaining;
	int nesting;
	int regparm;			/* regparm(n): 0x100 | n, else 0 (registers.stp;
					 * reset each hit where it is used) */
	int function_next;		/* the function just run ended with `next` */
	int conditions_changed;		/* a global a probe condition reads was written */
	struct tap_print_buffer print;
	char error_buffer[MAXSTRINGLEN];	/* room for a formatted last_error */
	char message[MAXSTRINGLEN + 256];	/* a line for the stderr channel */
	struct tap_regex_state regex;		/* =~ and the last match (regex.h) */
	/* An array entry of statistics gathered from its CPUs' parts (pstat.h). */
	int64_t stat_scratch[TAP_STAT_MAX_SIZE / sizeof(int64_t)];
	union tap_frame frames[MAXNESTING + 1];
#ifdef STP_TIMING
	cycles_t timing_start;		/* get_cycles() as the hit began */
	struct tap_timing_part timing[TAP_NUM_TIMING_POINTS];	/* by the point's index */
#endif
};

/* A begin or end probe: run from process context, in priority order. */
struct tap_been_probe {
	const struct tap_probe_point *pp;
	void (*body)(struct tap_context *c);
};

static struct tap_context **tap_contexts;	/* one per possible CPU */
/* This CPU's, for the hot path: one %gs-relative load rather than an index into the above. */
static DEFINE_PER_CPU(struct tap_context *, tap_this_context);

static void tap_print_flush(struct tap_context *c);
static void tap_report_error(struct tap_context *c);
#ifdef STP_TIMING
static void tap_timing_record(struct tap_context *c);
#endif

/* The last_error of abort(): it ends the probe hit, as an error does, but no try block
 * catches it and it is not reported. */
static const char tap_abort_request[] = "abort";

/* The error_location of error() and assert(): the error is reported without a place ("ERROR:
 * msg" alone), as stap's error() clears its statement's; a call site's location does not
 * replace it. */
static const char tap_error_unlocated[] = "";

/*
 * Takes this CPU's context for a probe hit, if the session is in `state` and nobody holds it.
 * The caller runs with preemption disabled (kprobe handlers do; process-context callers use
 * tap_context_enter_process()). `quiet`: the hit's body is one the translator found quiet
 * (it prints nothing, cannot fail, charges no MAXACTION and reads nothing of the context
 * but its frame, src/translate/translate.c's quiet_probe()), which needs the context taken
 * and nothing more: pp, regs and the rest are left as they are.
 */
static __always_inline struct tap_context *
tap_context_enter_as(const struct tap_probe_point *pp, struct pt_regs *regs, int state,
		     bool quiet)
{
	struct tap_context *c;

	/* A plain read, which the compiler may fold into its compare (a stale value is no
	 * worse than one read an instant earlier). */
	if (unlikely(data_race(tap_state.counter) != state))
		return NULL;
	c = this_cpu_read(tap_this_context);
	if (!c)
		__builtin_unreachable();	/* every possible CPU's is made before any probe */
	/* -1 to 0 is ours (an increment and the jump on its flags); anything else is taken. */
	if (unlikely(!local_inc_and_test(&c->busy))) {
		local_dec(&c->busy);
		atomic_inc(&tap_skipped_reentrant);
		tap_count_skipped();
		return NULL;
	}
#ifndef STP_TIMING	/* -t records every hit against its pp */
	if (quiet)
		return c;
#endif
	/* last_error is NULL between hits (tap_context_exit() clears it), and nesting 0 (calls
	 * give back the level they take). */
	c->pp = pp;
	c->regs = regs;
	c->entry_data = NULL;	/* a return probe's handler sets it */
#ifdef TAP_USES_REGPARM
	c->regparm = 0;		/* regparm() holds for the rest of one hit */
#endif
	c->actions_remaining = INTERRUPTIBLE ? MAXACTION_INTERRUPTIBLE : MAXACTION;
#ifdef STP_TIMING
	c->timing_start = get_cycles();
#endif
	return c;
}

static __always_inline struct tap_context *
tap_context_enter(const struct tap_probe_point *pp, struct pt_regs *regs, int state)
{
	return tap_context_enter_as(pp, regs, state, false);
}

/* The hit of a quiet body (tap_context_enter_as()); it ends with tap_context_exit_quiet(). */
static __always_inline struct tap_context *
tap_context_enter_quiet(const struct tap_probe_point *pp, struct pt_regs *regs, int state)
{
	return tap_context_enter_as(pp, regs, state, true);
}

/*
 * In a module of two or more probe points (the translator's emit_irqs_off()), the handlers
 * take the context with interrupts off and give it back before turning them on again: an
 * interrupt on this CPU meanwhile (a timer, the network's softirq, a hit on a function
 * called from either) waits the length of the hit, and its probe then finds the context
 * free, where with interrupts on (kretprobe returns, kprobes on ftrace, tracepoints,
 * uprobes: stap's INTERRUPTIBLE handlers) it would be skipped. Raw: no irq tracing (a
 * tracepoint of its own) inside a probe handler. Interrupts off already (int3 kprobes,
 * hrtimers) cost a pushf.
 */
static __always_inline struct tap_context *
tap_context_enter_irqsave_as(const struct tap_probe_point *pp, struct pt_regs *regs, int state,
			     unsigned long *flags, bool quiet)
{
	struct tap_context *c;

	raw_local_irq_save(*flags);
	c = tap_context_enter_as(pp, regs, state, quiet);
	if (!c)
		raw_local_irq_restore(*flags);
	return c;
}

static __always_inline struct tap_context *
tap_context_enter_irqsave(const struct tap_probe_point *pp, struct pt_regs *regs, int state,
			  unsigned long *flags)
{
	return tap_context_enter_irqsave_as(pp, regs, state, flags, false);
}

static __always_inline struct tap_context *
tap_context_enter_quiet_irqsave(const struct tap_probe_point *pp, struct pt_regs *regs,
				int state, unsigned long *flags)
{
	return tap_context_enter_irqsave_as(pp, regs, state, flags, true);
}

/* The hit's output sent and its error reported (print.h). */
static noinline void tap_context_exit_slow(struct tap_context *c);

/* Ends a probe hit: its output goes out whole, its error is reported (one test of both on
 * the hot path). Output that printf's fast path wrote in place at the ring's head (a line
 * per hit) is published here, with no call. */
static __always_inline void tap_context_exit(struct tap_context *c)
{
	struct tap_print_buffer *pb = &c->print;

#ifdef STP_TIMING
	if (c->pp)	/* not the runtime's own messages */
		tap_timing_record(c);
#endif
	if (unlikely((unsigned long)pb->len | (unsigned long)c->last_error)) {
		if (pb->text && !c->last_error &&
		    tap_ring_extend_in_place(this_cpu_read(tap_this_ring), pb->len)) {
			pb->text = NULL;
			pb->len = 0;
		} else {
			tap_context_exit_slow(c);
		}
	}
	local_dec(&c->busy);
}

/* Ends the hit of a quiet body, which left no output and no error. */
static __always_inline void tap_context_exit_quiet(struct tap_context *c)
{
#ifdef STP_TIMING
	tap_context_exit(c);
#else
	local_dec(&c->busy);
#endif
}

/* One whole hit of `body` at `pp` (timers, perf events, watchpoints): begun, run, ended. */
static __always_inline void tap_context_run(const struct tap_probe_point *pp, struct pt_regs *regs,
					    void (*body)(struct tap_context *c))
{
	struct tap_context *c = tap_context_enter(pp, regs, TAP_RUNNING);

	if (c) {
		body(c);
		tap_context_exit(c);
	}
}

/* Ends a hit that tap_context_enter_irqsave() began. */
static __always_inline void tap_context_exit_irqrestore(struct tap_context *c, unsigned long flags)
{
	tap_context_exit(c);
	raw_local_irq_restore(flags);
}

/* Ends a hit that tap_context_enter_quiet_irqsave() began. */
static __always_inline void tap_context_exit_quiet_irqrestore(struct tap_context *c,
							      unsigned long flags)
{
	tap_context_exit_quiet(c);
	raw_local_irq_restore(flags);
}

/*
 * The same, out of line: the handlers of a module of many probe points call these rather
 * than hold a copy each (the translator's emit_outlined(): the loader's work on a module
 * grows with its text). Each is compiled in only where a handler calls it.
 */
static noinline __maybe_unused struct tap_context *
tap_context_enter_irqsave_outlined(const struct tap_probe_point *pp, struct pt_regs *regs,
				   int state, unsigned long *flags)
{
	return tap_context_enter_irqsave(pp, regs, state, flags);
}

static noinline __maybe_unused struct tap_context *
tap_context_enter_quiet_irqsave_outlined(const struct tap_probe_point *pp,
					 struct pt_regs *regs, int state, unsigned long *flags)
{
	return tap_context_enter_quiet_irqsave(pp, regs, state, flags);
}

static noinline __maybe_unused void tap_context_exit_irqrestore_outlined(struct tap_context *c,
									 unsigned long flags)
{
	tap_context_exit_irqrestore(c, flags);
}

static noinline __maybe_unused void
tap_context_exit_quiet_irqrestore_outlined(struct tap_context *c, unsigned long flags)
{
	tap_context_exit_quiet_irqrestore(c, flags);
}

/* For begin/end probes and the runtime's own messages, from process context. */
static struct tap_context *tap_context_enter_process(const struct tap_probe_point *pp, int state)
{
	struct tap_context *c;

	preempt_disable();
	c = tap_context_enter(pp, NULL, state);
	if (!c)
		preempt_enable();
	return c;
}

static void tap_context_exit_process(struct tap_context *c)
{
	tap_context_exit(c);
	preempt_enable();
}

static int tap_contexts_alloc(void)
{
	int cpu;

	tap_contexts = kcalloc(nr_cpu_ids, sizeof(*tap_contexts), GFP_KERNEL);
	if (!tap_contexts)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		tap_contexts[cpu] = vzalloc_node(sizeof(struct tap_context), cpu_to_node(cpu));
		if (!tap_contexts[cpu])
			return -ENOMEM;
		local_set(&tap_contexts[cpu]->busy, -1);
		per_cpu(tap_this_context, cpu) = tap_contexts[cpu];
	}
	return 0;
}

static void tap_contexts_free(void)
{
	int cpu;

	if (!tap_contexts)
		return;
	for_each_possible_cpu(cpu) {
		per_cpu(tap_this_context, cpu) = NULL;
		vfree(tap_contexts[cpu]);
	}
	kfree(tap_contexts);
	tap_contexts = NULL;
}

#endif
