/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The elaborated program: what pass 2 makes of the parsed files and what pass 3 translates.
 * Every symbol in it is resolved and typed; only what the script uses is in it.
 */
#ifndef TAPSTER_PROGRAM_H
#define TAPSTER_PROGRAM_H

#include <stdio.h>

#include "parse/ast.h"
#include "session.h"

/* A variable: a local or parameter of a probe body or function, or a global the program
 * uses (then `global` is its declaration). Identifiers in the tree point here (node->sym). */
/* The most keys an array may have (stap's limit). */

struct var {
	char *name;
	char *c_name;		/* a global's name in the generated C (a private's is mangled) */
	enum type type;
	bool is_param;
	struct global *global;	/* NULL for locals and parameters */
	struct loc loc;		/* declaration or first use */
	struct loc type_loc;	/* where its type was first inferred */
	/* A parameter typed first by a call's argument: that argument, and its index. */
	const struct node *type_arg;
	int param_index;
	int arity;		/* an array's number of keys; 0 for a scalar */
	bool arity_known;	/* a global's: from its first use, at arity_loc */
	struct loc arity_loc;
	bool decl_misused;	/* a global declared an array or wrapping, used as a scalar:
				 * said once */
	enum type key_types[MAX_ARRAY_KEYS];
	const struct node *key_first[MAX_ARRAY_KEYS];	/* where each was first inferred */
	int nreads, nwrites;	/* the optimizer's count of the places that name it */
	/* A global's: how many probes were derived when it was first named (the probe
	 * deriving then is the last of them): where -p2 lists stap's globals of @entry. */
	int probes_before;
	/* A statistics global's extras, as its uses declare them (pass 2, stats.c): the
	 * histogram of its @hist_log / @hist_linear uses, and the bit shift of @variance. */
	enum hist_kind { HIST_NONE, HIST_LOG, HIST_LINEAR } hist;
	int64_t hist_start, hist_stop, hist_interval;	/* HIST_LINEAR */
	bool variance;		/* @variance is taken of it, or an array sorted on it */
	int64_t variance_shift;
	bool sharded;		/* pass 3: kept in per-CPU parts (translate/shards.h) */
	bool shard_assigns;	/* ... that its updates assign, a[k] = v (not add to) */
	bool pstat_unwatched;	/* pass 3: a statistics scalar read only while no probe
				 * adds to it (translate/shards.h's pstats_decide()) */
	struct var *next;
};

/* A probe or function body's locals, in order of first appearance. */
struct scope {
	struct var *vars;
	int nvars;
	int ntemps;		/* temporaries pass 3 will need; it owns the count */
};

enum provider_kind {
	PROVIDER_BEGIN,
	PROVIDER_END,
	PROVIDER_ERROR,		/* at the end of a session that had errors, instead of end */
	PROVIDER_NEVER,		/* compiled, never run */
	PROVIDER_KPROBE,	/* kernel.function("f") entry, module("m").function("f"),
				 * kernel.statement(ADDR).absolute */
	PROVIDER_KRETPROBE,	/* kernel.function("f").return, module("m").function("f").return */
	PROVIDER_TIMER,		/* timer.ms(N) and the other intervals */
	PROVIDER_PROFILE,	/* timer.profile: every CPU, every tick */
	PROVIDER_TRACEPOINT,	/* kernel.trace("name"): `function` is the tracepoint */
	PROVIDER_UPROBE,	/* process("PATH").function("f"): `symbol` the file's absolute
				 * path, `offset` f's place in it, `function` f, `pc` its
				 * link-time address */
	PROVIDER_URETPROBE,	/* process("PATH").function("f").return: the same */
	PROVIDER_UMARK,		/* process("PATH").mark("NAME"): an SDT marker, placed as
				 * PROVIDER_UPROBE; `function` its name, `module` its provider,
				 * `mark_args` its operands, `semaphore` its semaphore's place
				 * in the file (0: none) */
	PROVIDER_PERF,		/* perf.type(T).config(C): the perf_* fields */
	PROVIDER_PROCFS_READ,	/* procfs("PATH").read: `symbol` is PATH */
	PROVIDER_PROCFS_WRITE,	/* procfs("PATH").write: the same */
	PROVIDER_NETFILTER,	/* netfilter.hook(H).pf(P).priority(N): nf_hook, nf_pf and
				 * `priority` */
	PROVIDER_PROCESS_EVENT,	/* process.begin, .end, .thread.begin, .thread.end, .syscall,
				 * .syscall.return: `function` the event ("thread.end"),
				 * `symbol` the process("PATH") file or NULL, `address` the
				 * process(PID) or 0 */
	PROVIDER_HWBKPT,	/* kernel.data(ADDR|"SYMBOL")[.length(N)].write|.rw: `address`
				 * (0 with a symbol) and the hwbkpt_* fields */
};

/* A begin, end or error point, or one never run: the session runs it itself (from process
 * context, while no probe of the kernel's callbacks runs), not the kernel. */
static inline bool provider_is_session(enum provider_kind kind)
{
	return kind == PROVIDER_BEGIN || kind == PROVIDER_END || kind == PROVIDER_ERROR ||
	       kind == PROVIDER_NEVER;
}

/* One concrete probe point: what a provider derived from a probe's point. */
struct derived_point {
	enum provider_kind kind;
	char *pp;		/* the point as pp() shows it */
	char *origin;		/* the point as written, shown after "<-" by -p2 */
	char *function;		/* kernel.function: the symbol; "" otherwise */
	char *module;		/* module("m").function: the module m; "" for the kernel */
	uint64_t address;	/* kernel.statement(ADDR).absolute: ADDR; 0 otherwise */
	char *comment;		/* what -p2 shows between pp and its origin, as stap: a
				 * kprobe's symbol name, an address; "" for nothing */
	int64_t priority;	/* begin/end(N), netfilter's .priority(N) */
	int maxactive;		/* .maxactive(N), or -1 for the default */
	int64_t interval_ns;	/* timer: the period */
	int64_t randomize_ns;	/* timer: .randomize(M), added as -M..+M to each period */
	int nargs;		/* kernel.trace: the tracepoint's number of arguments */
	int64_t maxsize;	/* procfs .read.maxsize(N): N; 0 for the default */
	int64_t umask;		/* procfs .umask(N): N, when has_umask */
	bool has_umask;
	int nf_hook, nf_pf;	/* netfilter: the hook and protocol family numbers */
	/* Points placed from DWARF (dwpoints.h): the kprobe goes at `symbol` + `offset`
	 * (symbol NULL: at `function`). A $var lookup there needs the DIE of the function or
	 * inlined instance that holds the probe (`scope_die`, 0 without DWARF) and the pc
	 * (`pc`: `symbol` + `offset`, a link-time address of the debuginfo's vmlinux, which
	 * dwarf_getscopes() and location lists take). `mid_function`: the probe is not at
	 * the entry of an out-of-line function (a statement, an inlined instance), so the
	 * calling convention does not place its parameters. */
	char *symbol;
	uint64_t offset;
	uint64_t scope_die;
	uint64_t pc;
	bool mid_function;
	/* perf: the event, its sample period (0 with a counter), the .process file and the
	 * .counter name (NULL for none). */
	int64_t perf_type, perf_config, perf_sample;
	char *perf_process, *perf_counter;
	/* kernel.data: the symbol (NULL with an address), .length(N) (1 without one) and
	 * whether it is .rw (else .write). */
	char *hwbkpt_symbol;
	int64_t hwbkpt_length;
	bool hwbkpt_rw;
	/* process("PATH").mark: the marker's operands ("-4@%eax 8@-16(%rbp)"), its
	 * semaphore, and the point as -l lists it (process("PATH").mark("NAME")). */
	char *mark_args;
	uint64_t semaphore;
	char *listed;
	bool plt;		/* process("PATH").plt("NAME"): a PLT entry, `function` NAME */
	/* process("PATH").function: the ELF file (the host's path) whose DWARF, when it has
	 * any, types the function's variables; NULL for other points. */
	char *user_file;
	/* A uprobe's process: process(PID)'s PID, -1 for a point without PATH or PID (the -c
	 * or -x target's tree), 0 for process("PATH")'s (any process). */
	int64_t user_pid;
	/* .callee("g") of an out-of-line call (DWARF 4's call sites): the return addresses
	 * the handler checks, innermost first (link-time addresses of the point's file), as
	 * stap's _caller_match() conditions; NULL and 0 for any other point. */
	uint64_t *callers;
	int ncallers;
	/* -p2: the locals stap's probe of this point has before the body's (kernel.trace:
	 * __tracepoint_arg_NAME of each argument the body names, in the tracepoint's order),
	 * NULL-terminated; NULL for none (synth_functions.c). */
	char **synth_locals;
	struct derived_point *next;
};

/* What stap counts apart as it makes functions of target reads (synth_functions.c):
 * $x/@var/tracepoint members, @cast, pretty-printed values, the values these read. */
enum synth_counter {
	SYNTH_TVARS, SYNTH_CASTS, SYNTH_PRETTIES, SYNTH_DEREFS,
	SYNTH_ENTRIES,		/* @entry(...): stap's globals, not functions */
	SYNTH_COUNTS
};

/* A probe body with every point it is attached to. */
struct derived_probe {
	int index;			/* probe_N in the generated module */
	struct probe *probe;		/* the source probe (its location) */
	struct node *body;		/* what runs: the probe's body, with the prologues and
					 * epilogues of the aliases it went through */
	struct derived_point *points;
	struct scope scope;
	bool is_return;			/* all its points are return probes */
	struct node_list entries;	/* @entry(...) expressions, evaluated at function entry */
	/* Where messages about the probe point: the `probe` keyword, or for a probe derived
	 * through an alias, the point that named the alias. */
	bool via_alias;
	struct node *cond;		/* `if (cond)` of its point (and of the aliases it went
					 * through, joined with &&), or NULL */
	const char *alias_name;
	struct loc alias_loc;
	char *listed_name;		/* via an alias: the alias named, as -l lists it */
	/* The perf counters its @perf("NAME") read (target_perf.c), each into its local
	 * __perf_read_NAME as the probe is hit. */
	char **perf_reads;
	int nperf_reads;
	bool perf_refused;		/* a counter it reads is not there: said once */
	/* The numbers stap gives the functions of its body's target reads and writes
	 * (each counter's), in order, point after point: the first, and how many one
	 * point's body has (synth_functions.c). */
	int synth_base[SYNTH_COUNTS], synth_count[SYNTH_COUNTS];
	/* For read j of point i of a counter (tvars, derefs), [i * synth_count[counter] + j]:
	 * the number of its frame base local (_fb_N), or -1; NULL for none. */
	int *synth_frame_bases[SYNTH_COUNTS];
	struct derived_probe *next;
};

/* A function the program uses, resolved from the script or the tapset library. */
struct used_function {
	struct function *function;
	struct scope scope;		/* parameters first, then locals */
	enum type ret;
	const struct node *ret_first;	/* the return value that typed it first, or NULL */
	/* Whether its body has a `return EXPR` (pass 2's inference asks once). */
	enum { RETURNS_UNKNOWN, RETURNS_VALUE, RETURNS_NO_VALUE } value_returns;
	int overload;			/* which definition of its name, in the order the files
					 * were read: stap's __overload_N */
	char *c_name;			/* its name in the generated C: f__overload_N */
	/* The next definition with its name and arity, which a `next` in this one runs,
	 * or NULL. */
	struct used_function *next_overload;
	bool reachable;			/* the optimizer's marks: called from a probe, */
	enum { PURITY_UNKNOWN, PURITY_JUDGING, PURITY_PURE, PURITY_EFFECTS } purity;	/* and
					 * whether running it changes anything */
	struct used_function *next;
};

struct program {
	struct file *user;		/* the user's script */
	struct file *tapsets;		/* every library file that was read */
	struct var *globals;		/* the globals the program uses (from any file) */
	struct used_function *functions;	/* sorted by name */
	struct derived_probe *probes;	/* in source order */
	struct embed *embeds;		/* top-level %{ %} of the user's script */
	int nprobes, nfunctions, nglobals, nembeds;
	/* The C of the line tables of the probed kernel functions (runtime/klines.h), when
	 * a function the program uses asks for lines (pragma:lines) and the kernel's DWARF
	 * is there; NULL otherwise. */
	char *kernel_lines;
};

/* Pass 2. Resolves and types the user's script against the library files `tapsets` and
 * fills `program`; returns the number of errors (printed as they are found). */
/* What pass 2 may ask of the target kernel, loaded when a probe point first needs it. */
struct ksyms;
struct debuginfo;
struct ktypes;
struct provider_env {
	/* The target's function symbols; NULL after printing why there are none. */
	const struct ksyms *(*symbols)(void *ctx);
	void *ctx;
	/* The target's types (ktypes.h), for $target expressions; NULL after printing why
	 * there are none. */
	const struct ktypes *(*types)(void *ctx);
	/* The types of the target's module `module` (the kernel's with its own); NULL with
	 * *error set to why (nothing printed). */
	const struct ktypes *(*module_types)(void *ctx, const char *module, const char **error);
	/* The types headers ("<linux/fs.h>") declare: the target's kernel headers or (`kernel`
	 * false) user headers; NULL (after the compiler's output) when they don't compile. */
	const struct ktypes *(*header_types)(void *ctx, const char *headers, bool kernel);
	/* The DWARF types of a user-space ELF file (the host's path); NULL when it has none. */
	const struct ktypes *(*user_types)(void *ctx, const char *path);
	/* The target's tracepoints (tracepoints.h), for kernel.trace; NULL after printing
	 * why there are none. */
	const struct tracepoints *(*tracepoints)(void *ctx);
	/* The kernel's DWARF debuginfo (debuginfo.h), or NULL when it has none. */
	const struct debuginfo *(*debuginfo)(void *ctx);
	const char *build_dir;	/* the target's build tree, as messages name it */
	bool monitor;		/* --monitor: add the probe that reads the globals */
	/* -l/-L: an alias whose targets fail is skipped without a word, as stap lists only
	 * what resolves (nd1_syscall.* lists the calls it has on this kernel). */
	bool listing;
	/* The same with the loadable modules' tracepoints added (their names; their types
	 * are read when a point matches); NULL when there are none. Only modules already
	 * known are looked at, unless `fetch`: then the VM kit's modules are fetched first
	 * when it has none yet. */
	struct tracepoints *(*module_tracepoints)(void *ctx, bool fetch);
	bool guru;		/* -g: points only guru mode allows, such as .absolute */
	bool unprivileged;	/* --privilege=stapusr: only the points stap allows there */
	bool skip_badvars;	/* --skip-badvars: a $var that does not resolve reads 0 */
	/* --prologue-searching: where a user-space function's entry point goes (past the
	 * prologue: in -O0 code, always, never). */
	enum prologue_searching prologue;
	const char *sysroot;	/* --sysroot: the target's files are under it; NULL: "/" */
	const char *target_path;	/* --sysenv=PATH=...: the target's $PATH; NULL: ours */
	const char *command;	/* -c COMMAND, or NULL */
	int target_pid;		/* -x PID, or 0 */
	/* The probes run in the bundled VM (--vm, pass 5), whose kernel sees only the
	 * guest's processes: process(PID) names none of them. */
	bool vm_guest;
	/* -p2: the program is printed after this pass, with the functions stap makes of its
	 * target reads numbered (synth_functions.c); no other pass needs them. */
	bool printing_pass2;
	struct loc probe_loc;	/* the `probe` keyword of the probe being derived */
};

int elaborate(struct file *user, struct file *tapsets, const struct provider_env *env,
	      bool optimize, struct program *program);

/* -p2: prints the program as stap does; with verbose, the bodies too. */
void print_program(FILE *out, const struct program *program, bool verbose);

/* stap's functions for target reads and writes (synth_functions.c): numbered before the
 * optimizer drops dead code, as stap numbers them; listed by -p2 after the program's
 * functions, as "__private_FILE__dwarf_tvar_get_NAME_N:long ()" ... */
void synth_functions_number(struct program *program, const struct provider_env *env);
bool synth_functions_print(FILE *out, const struct program *program, bool header);
/* What stap adds for the values a return probe saves at the entry (synth_functions.c): the
 * globals of probe `p`'s @entry(...); the library functions it uses, as -p2 lists them
 * ("name:type (params)", sorted by name: the program may have them too); the
 * ".call" point it has before return point `d` (NULL: none); the locals of point number
 * `point` (its ".call" with `call`) before the body's, "name:type", NULL-terminated or NULL. */
void synth_entry_globals_print(FILE *out, const struct derived_probe *p);
#define SYNTH_ENTRY_FUNCTIONS 5
int synth_entry_functions(const struct program *program,
			  const char *lines[SYNTH_ENTRY_FUNCTIONS]);
char *synth_entry_call_point(const struct derived_probe *p, const struct derived_point *d);
char **synth_entry_locals(const struct derived_probe *p, int point, bool call);

/* " if (cond)" as -p2 prints a probe's condition (stap's pp() shows it too), or "". */
char *probe_condition_text(const struct node *cond);

#endif
