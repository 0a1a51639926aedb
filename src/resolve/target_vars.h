/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * $target expressions and @cast: pass 2 resolves them against the kernel's types
 * (ktypes.h) into a `struct target_access`, which the node's `sym` points to and which
 * pass 3 (translate_target.c) turns into fault-safe reads.
 */
#ifndef TAPSTER_TARGET_VARS_H
#define TAPSTER_TARGET_VARS_H

#include <stdbool.h>
#include <stdint.h>

#include "target/ktypes.h"
#include "resolve/program.h"

/* One step from an address or value to the next. */
struct target_step {
	enum { STEP_LOAD, STEP_OFFSET, STEP_INDEX } kind;	/* read the pointer at the
					 * address; add `offset`; add index * `scale` */
	int64_t offset;
	struct node *index;		/* STEP_INDEX: the index expression */
	uint32_t scale;
};

struct target_access {
	enum { BASE_PARAM, BASE_RETURN, BASE_VALUE, BASE_EXPR, BASE_PER_POINT } base;
	int param;			/* BASE_PARAM: a function's argument word (its
				 * register, or its place on the stack) or a
				 * tracepoint's argument, from 0 */
	char *expr;			/* BASE_EXPR: a DWARF location as C (dwtypes.h) */
	struct node *value;		/* BASE_VALUE: @cast's address */
	uint32_t base_size;		/* the base value's size and sign, for a narrow param */
	bool base_signed;
	struct target_step *steps;
	int nsteps;
	/* The result: read from the address (lvalue) or the value itself; its type. */
	bool lvalue;
	ktype_id type;
	const struct ktypes *types;	/* where `type` is */
	uint32_t size;
	bool is_signed;
	uint32_t bit_offset, bit_size;	/* a bitfield: within the byte at the address */
	bool address_of;		/* an array or struct, or the operand of '&': its
					 * address is the value */
	const char *location;		/* what an error is reported at, as a C literal */
	bool user;			/* @cast of a user header's type ("<sys/un.h>"): the
					 * reads are of the current process's memory */
	/* BASE_EXPR, not an lvalue: the pt_regs member when the location is a register, which
	 * a write (guru mode) sets; NULL for a computed value. */
	const char *reg;
	bool frame_base;	/* BASE_EXPR: relative to the frame base (DW_OP_fbreg), for
				 * which stap's function has a local (-p2's _fb_N) */
	/* BASE_PER_POINT: the access at each point of the probe, in order (DWARF variables
	 * whose locations differ from point to point); chosen by the point that fired. */
	struct target_access **per_point;
	int npoints;
};

/* Frees the accesses in `all` but the one at `keep` (-1: none), and the array. */
void target_free_accesses(struct target_access **all, int n, int keep);
/* One access that reads, at each of a probe's `n` points, that point's access in `all`
 * (which it takes), reported at the N_TARGET `target`. */
struct target_access *target_accesses_per_point(struct target_access **all, int n,
						const struct node *target);

/*
 * Resolves the N_TARGET `n` in the probe `p` (or NULL in a function): n->sym becomes its
 * access and n->type long. false after printing stap's error, or, when `quiet`, without
 * printing anything (@defined).
 */
bool target_resolve(const struct provider_env *env, struct derived_probe *p, struct node *n,
		    bool quiet);
/* The same for @cast(expr, "type"[, "module"])->..., its address already resolved, in the
 * probe `p` (NULL in a function). The module is a ':' list, searched in order: "kernel",
 * "kernel<linux/fs.h>" (the kernel's types), a module's name or file; without one, the
 * probed module in a module("m").function probe, else the kernel. */
/* An autocast (value->field where value is not a $target): the type the value of the resolved
 * $target, @cast, @var or autocast `n` points at (a pointer's target; with '&', what it names),
 * in *kt, and whether it is user memory; false when it has none. */
bool target_autocast_type(const struct node *n, const struct ktypes **kt, ktype_id *type,
			  bool *user);
/* The autocast `n` (N_CAST without a type) resolved as @cast(n->lhs, type)->comps; errors at
 * its first operator, as stap's. */
bool target_resolve_autocast(struct node *n, const struct ktypes *kt, ktype_id type,
			     bool user, bool quiet);
bool target_resolve_cast(const struct provider_env *env, struct derived_probe *p,
			 struct node *n, bool quiet);
/* The components of `n` (->field, [i]) followed from a base of `type` already in `a`
 * (a->base, a->param, a->base_size...); false after an error (none printed when `quiet`). */
bool target_walk(const struct ktypes *kt, struct node *n, bool quiet, struct target_access *a,
		 ktype_id type);
/* $$parms / $$return ($$vars, $$locals): `n` rewritten into the sprintf that makes the
 * string; false after an error (target_pretty.c, as the next). */
bool target_expand_vars(const struct provider_env *env, struct derived_probe *p,
			struct node *n);

/* $x$, $x->y$$: `n` rewritten into the sprintf that pretty-prints it; false after an
 * error. */
bool target_expand_pretty(const struct provider_env *env, struct derived_probe *p,
			  struct node *n);
/* For target_pretty.c: the type `$name` plus `n`'s components has in the probe's first
 * function, and the type @cast `n` names (*kt set to the types it is in); 0 after stap's
 * error. The types of point `d`'s function, NULL after reporting why at `n`. stap's errors
 * for an unresolved `n`, and for "$return" looked up as a local (always false). */
ktype_id target_type_of(const struct ktypes *kt, struct derived_probe *p, struct node *n);
ktype_id target_cast_type(const struct provider_env *env, struct derived_probe *p,
			 struct node *n, const struct ktypes **kt);
const struct ktypes *target_point_types(const struct provider_env *env,
					const struct derived_point *d, struct node *n, bool quiet);
bool target_unresolved(struct node *n, bool quiet);
bool target_no_return_local(const struct ktypes *kt, struct derived_probe *p, struct node *n);
/* @var("name"[, "module"]): stap's error, or tapster's when it can't be typed;
 * always false. */
bool target_resolve_atvar(const struct provider_env *env, struct derived_probe *p,
			  struct node *n, bool quiet);
/* Guru mode: whether the resolved $target, @cast or @var `n` in the probe `p` (NULL in a
 * function) can be written (an integer, pointer, enum or bitfield in memory, a parameter's
 * register or stack slot, $return); false after stap's error. */
bool target_check_write(struct derived_probe *p, struct node *n);
/* Between true and false: the target of a write is being resolved, whose errors stap does
 * not follow with "unresolved type". */
void target_resolving_write(bool on);
/* A DWARF location (dwtypes.h) as the C expression of a BASE_EXPR access, malloc'd
 * (target_location.c); `user`: a user-space file's, in the process probed. */
struct dwexpr;
char *target_location_c(const struct dwexpr *e, bool user);
/* The pt_regs member a location that is a register (not the stack pointer) names, else NULL. */
const char *target_location_register(const struct dwexpr *e);
/* Pass 3: the C expression of a resolved access (translate_target.c). */
struct body;
char *gen_target(struct body *b, struct node *n);
/* Pass 3 of `n = value` (guru mode), `n` checked by target_check_write: `value` evaluated,
 * then stored; the C of the value stored. */
char *gen_target_write(struct body *b, struct node *n, struct node *value);

/* Whether `d` is a point of stap's kprobe family (kprobe.function, kprobe.module...),
 * which has no target variables. */
bool target_point_is_kprobe(const struct derived_point *d);

/* Whether every point of `p` is on a kernel or module function with its target variables
 * (kernel.function, module().function; not the kprobe family). */
bool target_probe_on_functions(const struct derived_probe *p);

/* -L: the parameters of `function` as stap lists them (" $file:struct file*" ...), or
 * NULL when the types don't know it. */
char *target_list_params(const struct ktypes *kt, const char *function, bool is_return);
/* -L at a DWARF point inside a function (a statement, an inlined instance): the parameters
 * and locals that have a location at its pc; NULL for other points. */
char *target_list_point_vars(const struct ktypes *kt, const struct derived_point *d);

/* What stap reports after a $target fails: the expression and the call holding it have no
 * type (the second is suppressed as similar). */
void target_report_untyped(const struct token_desc *tok, struct loc loc);

/* An error at the $target `n` (and stap's untyped reports when `untyped`), unless `quiet`;
 * false. `message` is a literal without '%': diag.c counts repeats of one format as
 * similar errors, as stap does of one message. */
bool target_refuse(struct node *n, bool quiet, bool untyped, const char *message);
void target_become_call(struct node *n, const char *raw, const char *function, struct node *arg);

/* In procfs probes (target_procfs.c): whether every point of `p` is a procfs point; $value
 * read (`n`, an N_TARGET) and assigned (`n`, an N_ASSIGN or increment of one), each made a
 * call of the library's __procfs_value_*; false after stap's error (none when `quiet`). */
bool on_procfs(const struct derived_probe *p);
bool procfs_value_read(struct derived_probe *p, struct node *n, bool quiet);
bool procfs_value_assign(struct derived_probe *p, struct node *n);

/* In netfilter probes (target_netfilter.c): whether every point of `p` is a netfilter
 * point; $hooknum, $skb, $in, $out, $okfn and $verdict read (`n`, an N_TARGET) and $verdict
 * assigned (`n`, an N_ASSIGN or increment of one), each made a call of the library's
 * __netfilter_*; false after stap's error (none when `quiet`). */
bool on_netfilter(const struct derived_probe *p);
bool netfilter_var_read(const struct provider_env *env, struct derived_probe *p, struct node *n,
			bool quiet);
bool netfilter_var_assign(const struct provider_env *env, struct derived_probe *p,
			  struct node *n);

/* On tracepoints (target_trace.c): whether every point of `p` is a tracepoint; $name,
 * $$parms, $$name there. */
bool on_tracepoints(const struct derived_probe *p);
bool trace_target_resolve(const struct provider_env *env, struct derived_probe *p,
			  struct node *n, bool quiet);
bool trace_expand_vars(const struct provider_env *env, struct derived_probe *p, struct node *n);
/* The tracepoint of the kernel.trace point `d`, NULL when it is not known. */
struct tracepoint;
const struct tracepoint *point_tracepoint(const struct provider_env *env,
					  const struct derived_point *d);
/* In the task finder's probes (target_process.c): whether a point of `p` is a process
 * lifetime or system-call point; $syscall, $argN, $return there. */
bool on_process_events(const struct derived_probe *p);
bool process_target_resolve(struct derived_probe *p, struct node *n, bool quiet);
/* @perf("NAME") in process("PATH").function probes (target_perf.c): made the probe's local
 * __perf_read_NAME, noted in p->perf_reads, when a counter NAME of the file was derived
 * before; else stap's errors (true: done), or false where @perf stays (not such a probe). */
bool perf_read_resolve(const struct program *program, struct derived_probe *p, struct node *n);
/* In process("PATH").mark probes (target_mark.c): whether every point of `p` is an SDT
 * marker; $argN, and $$name, $$provider, $$parms expanded; the count of a marker's
 * operands (-L lists as many $argN). */
bool on_marks(const struct derived_probe *p);
/* Whether every point of the probe is a process("PATH").function point (a uprobe or a
 * uretprobe). */
bool on_uprobes(const struct derived_probe *p);
/* process().plt points (target_mark.c): $$name, the entry's symbol; nothing else. */
bool on_plt(const struct derived_probe *p);
bool plt_target_resolve(struct derived_probe *p, struct node *n, bool quiet);
bool plt_expand_vars(struct derived_probe *p, struct node *n);
bool mark_target_resolve(struct derived_probe *p, struct node *n, bool quiet);
bool mark_expand_vars(struct derived_probe *p, struct node *n);
int mark_arg_count(const char *args);
/* -L: " $parent:struct task_struct* $child:struct task_struct*". */
char *trace_list_args(const struct provider_env *env, const struct derived_point *d);

#endif
