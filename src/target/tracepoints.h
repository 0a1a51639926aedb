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

#include "target/ktypes.h"

struct tracepoint {
	const char *name;
	const char *system;	/* "sched"; NULL when no trace header names it */
	const char *module;	/* the loadable module that defines it; NULL for vmlinux */
	const struct ktypes *kt;	/* the types of arg_types: the kernel's or the module's */
	int nargs;
	char **arg_names;
	ktype_id *arg_types;
	bool by_value;		/* an argument that no register holds: it cannot be probed */
};

/* A tracepoint of a loadable module, known by name from the module's functions (its
 * __traceiter_NAME); its types are read from the module's BTF when a probe matches it. */
struct module_tracepoint {
	struct tracepoint tp;	/* name, system and module; the rest once `state` is 1 */
	int state;		/* 0 not read yet, 1 read, -1 unusable (no BTF, no typedef) */
};

struct tracepoints {
	struct tracepoint *items;	/* vmlinux's, sorted by name */
	size_t count;
	struct module_tracepoint *module_items;	/* sorted by name, then module */
	size_t module_count;
	bool modules_added;
	void *header_events;	/* the trace headers' events, for the modules' subsystems */
};

/* The tracepoints of the kernel whose types are `kt` and whose headers are in
 * `build_dir` (for the subsystems). Never NULL. */
struct tracepoints *tracepoints_load(const struct ktypes *kt, const char *build_dir);
const struct tracepoint *tracepoints_find(const struct tracepoints *t, const char *name);

struct kmodules;
/* Adds the tracepoints of the modules `mods` (once; their types are read later). */
void tracepoints_add_modules(struct tracepoints *t, const struct kmodules *mods);
/* Reads the types of a module's tracepoint from `kt`, the module's types (NULL: it has
 * none); NULL when it cannot be probed. */
const struct tracepoint *tracepoints_read_module(const struct tracepoints *t,
						 struct module_tracepoint *m,
						 const struct ktypes *kt);
/* The module tracepoint `name` of `module`, once read; NULL otherwise. */
const struct tracepoint *tracepoints_find_module(const struct tracepoints *t,
						 const char *module, const char *name);

#endif
