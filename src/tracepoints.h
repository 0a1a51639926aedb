/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The target kernel's tracepoints, for kernel.trace("name"): their names and argument types
 * from BTF (a typedef btf_trace_NAME, a pointer to a function of `void *data` and the
 * tracepoint's arguments, for each tracepoint of vmlinux), the arguments' names from the
 * BTF of the function BPF attaches with (__bpf_trace_CLASS), and the subsystem each belongs
 * to ("sched" in kernel.trace("sched:sched_process_fork")) from the TRACE_SYSTEM of the
 * trace headers the kernel's headers package ships.
 */
#ifndef TAPSTER_TRACEPOINTS_H
#define TAPSTER_TRACEPOINTS_H

#include <stdbool.h>
#include <stddef.h>

#include "ktypes.h"
#include "program.h"

struct tracepoint {
	const char *name;
	const char *system;	/* "sched"; NULL when no trace header names it */
	int nargs;
	char **arg_names;
	ktype_id *arg_types;
	bool by_value;		/* an argument that no register holds: it cannot be probed */
};

struct tracepoints {
	const struct ktypes *types;	/* what arg_types are ids of */
	struct tracepoint *items;	/* sorted by name */
	size_t count;
};

/* The tracepoints of the kernel whose types are `kt` and whose headers are in
 * `build_dir` (for the subsystems). Never NULL. */
struct tracepoints *tracepoints_load(const struct ktypes *kt, const char *build_dir);
const struct tracepoint *tracepoints_find(const struct tracepoints *t, const char *name);

/* Pass 2: whether every point of `p` is a tracepoint; $name, $$parms, $$name there. */
bool on_tracepoints(const struct derived_probe *p);
bool trace_target_resolve(const struct provider_env *env, struct derived_probe *p,
			  struct node *n, bool quiet);
bool trace_expand_vars(const struct provider_env *env, struct derived_probe *p, struct node *n);
/* -L: " $parent:struct task_struct* $child:struct task_struct*". */
char *trace_list_args(const struct provider_env *env, const char *name);

#endif
