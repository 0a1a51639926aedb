/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A provider's part of pass 3: its emitter writes, for the points of the kinds it owns,
 * their handlers (the glue from the kernel's callback to the probe body), its tables for
 * its runtime header (runtime/kprobes.h, tracepoints.h, timers.h, been.h) and their counts
 * (#define TAP_NUM_...); the runtime starts and stops them through runtime/providers.h.
 * translate.c knows none of them: it gives each emitter the probes and points in order
 * through a small interface, struct emit_ctx, and writes what they made where the
 * module's layout has it. A new kind of point is a new emitter in point_emitters[]
 * (emit.c), its runtime header, and its entry in runtime/providers.h.
 */
#ifndef TAPSTER_EMIT_H
#define TAPSTER_EMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "resolve/program.h"
#include "util.h"

struct session;

/* What pass 3 gives an emitter. */
struct emit_ctx {
	const struct program *program;
	const struct session *session;	/* the target, for what an emitter asks of it */
	struct strbuf *points;	/* the point descriptors and handlers, in the module's order */
	int condition;		/* the probe's number among the conditional ones, else 0 */
	/* Adds the descriptor tap_pp_N of point `d` of probe `p` to `points`; returns N. */
	int (*descriptor)(struct emit_ctx *ctx, const struct derived_probe *p,
			  const struct derived_point *d);
	char *(*c_string)(const char *s);	/* a C string literal of s */
	/* The module's handlers take the context with interrupts off (emit_irqs_off()). */
	bool irqs_off;
	/* The module has so many handlers that they call the context's taking and giving back
	 * rather than hold a copy each (emit_outlined()). */
	bool outlined;
	/* The probe's body is quiet: its handlers take the context alone, and leave it without
	 * looking for output or an error (runtime/context.h's tap_context_enter_quiet()). */
	bool quiet;
	void *translate;	/* pass 3's own state, for the callbacks */
};

/* An emitter's hooks; each may be NULL. `state` is its own, state_size bytes, zeroed. */
struct point_emitter {
	unsigned kinds;		/* the kinds it owns: a bit 1u << PROVIDER_... each */
	/* Its points are disabled while their probe's condition is false (runtime/kprobes.h):
	 * a probe on one of them gets a condition number. */
	bool conditional;
	size_t state_size;
	/* Its runtime header, which the module includes before its probe bodies (the
	 * handlers use it), or NULL; the session reaches it through runtime/providers.h. */
	const char *runtime_header;
	/* A probe's points, in order, once its body is written: probe_start, then point for
	 * each point of a kind it owns (its descriptor is tap_pp_`pp`), then probe_end. */
	void (*probe_start)(struct emit_ctx *ctx, void *state, const struct derived_probe *p);
	void (*point)(struct emit_ctx *ctx, void *state, const struct derived_probe *p,
		      const struct derived_point *d, int pp);
	void (*probe_end)(struct emit_ctx *ctx, void *state, const struct derived_probe *p);
	/* After every probe. */
	void (*module_end)(struct emit_ctx *ctx, void *state);
	/* Its #define TAP_NUM_... lines, at the top of the module. */
	void (*write_counts)(const void *state, FILE *out);
	/* Its tables, after the handlers. */
	void (*write_tables)(const void *state, FILE *out);
	void (*release)(void *state);
	/* Or, for an emitter of one table whose state is a struct emit_one_table: the macro
	 * of its count ("TAP_NUM_PERF") and its table's declaration ("static struct tap_perf
	 * tap_perfs"), the three hooks above NULL. */
	const char *count_macro, *table_decl;
	/* probe_type() of a point of its kinds: stap's name of the low-level handler it runs
	 * from ("kprobe", "hrtimer", ...). */
	const char *(*type_name)(const struct derived_point *d);
};

#define EMITTER_OWNS(e, kind) (((e)->kinds >> (kind)) & 1u)

/* The state of an emitter of one table (count_macro, table_decl): its entries, each a line
 * "\t{ ... },\n", and their number. */
struct emit_one_table {
	struct strbuf entries;
	int count;
};

/* An emitter's counts, tables and release: its hooks', or those of its one table. */
void emit_write_counts(const struct point_emitter *e, const void *state, FILE *out);
void emit_write_tables(const struct point_emitter *e, const void *state, FILE *out);
void emit_release_state(const struct point_emitter *e, void *state);

extern const struct point_emitter emitter_kprobes;
extern const struct point_emitter emitter_tracepoints;
extern const struct point_emitter emitter_timers;
extern const struct point_emitter emitter_been;
extern const struct point_emitter emitter_uprobes;
extern const struct point_emitter emitter_perf;
extern const struct point_emitter emitter_procfs;
extern const struct point_emitter emitter_netfilter;
extern const struct point_emitter emitter_hwbkpt;
extern const struct point_emitter emitter_process_events;

/* Every emitter, NULL-terminated, in the order their counts and tables are written. */
extern const struct point_emitter *const point_emitters[];

/* The emitter of points of `kind`, or NULL (never probes have none). */
const struct point_emitter *point_emitter_of(enum provider_kind kind);

/* ---- The handler text the emitters share ---- */

/*
 * Whether the handlers of `program` take their CPU's context with interrupts off: when it
 * has two or more points that run from the kernel's callbacks. The kernel calls some of
 * those with interrupts on (kretprobe returns, kprobes on ftrace, tracepoints, uprobes), and
 * a hit of another point in interrupt context (a timer, the network's softirq) that came
 * meanwhile would find the context taken and be skipped. With interrupts off it waits the
 * length of the hit instead. A program of one such point (the hot-path benches) pays
 * nothing for it: its hits nest only when its function is called from interrupt context
 * too, and such a hit is skipped as stap skips it.
 */
bool emit_irqs_off(const struct program *program);

/*
 * Whether the handlers of a program of EMIT_OUTLINE_MIN or more probe points call
 * runtime/context.h's out-of-line tap_context_enter_*_irqsave_outlined() and
 * tap_context_exit_*_irqrestore_outlined() rather than inline them. Inline, a handler is
 * about 500 bytes of text even when its body is one increment, and the kernel's module
 * loader works on every byte of it: it sorts the ORC unwind entries, applies the
 * alternatives and return thunks of each. `syscall.*, syscall.*.return` (some 1,600
 * points) spent most of its start loading such a module. Out of line, a hit costs two
 * calls more, a few ns; the hot-path benches have one point each.
 */
#define EMIT_OUTLINE_MIN 64
bool emit_outlined(const struct program *program);

/*
 * The context entered for `pp` (C text, with registers `regs`) as `c`: with interrupts
 * off when ctx->irqs_off; else, with `preempt`, with preemption off (a handler the kernel
 * may call preemptible) and on again after emit_run().
 */
void emit_enter(struct emit_ctx *ctx, const char *pp, const char *regs, bool preempt);

/*
 * The probe body run in context c and the context left, `before` and `after` the call:
 * "if (c) { ... }"; with `entry`, the @entry part of return probe `probe`, which returns 1
 * without a context (no return probe for this call) unless `preempt` (a uprobe's handler,
 * preemption off since emit_enter(): it goes on to emit_leave(), and a uprobe's 1 would
 * remove its breakpoint). After emit_enter().
 */
void emit_run(struct emit_ctx *ctx, int probe, bool entry, bool preempt, const char *before,
	      const char *after);

/* A handler's body after its "NAME(PARAMS)\n{\n": emit_enter() for `pp` with the handler's
 * `regs`, then `locals` and a blank line, emit_run(), and `end`. */
struct handler_text {
	const char *pp;		/* its probe point, as C: "&tap_pp_3", "tap_fprobe_pp(fp, ip)" */
	const char *locals;	/* "", "\tunsigned long at;\n" */
	bool entry;
	const char *before, *after;	/* as emit_run()'s */
	const char *end;	/* "\treturn 0;\n}\n\n" */
	bool preempt;		/* as emit_enter()'s */
	const char *regs;	/* the registers' C name, NULL for "regs" */
};
void emit_handler(struct emit_ctx *ctx, int probe, const struct handler_text *h);

/* A table of `count` entries, "DECL[] = {\nENTRIES};\n\n", when there are any. */
void emit_table(FILE *out, const char *decl, int count, const struct strbuf *entries);

/* The module a point waits for, as C: "m", or NULL for the kernel. */
char *emit_module(const struct emit_ctx *ctx, const struct derived_point *d);

#endif
