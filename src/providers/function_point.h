/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What kernel.function("f") and module("m").function("f") share (function_point.c): their
 * suffixes .return[.maxactive(N)], the points they add for each function matched, and their
 * "no match".
 */
#ifndef TAPSTER_FUNCTION_POINT_H
#define TAPSTER_FUNCTION_POINT_H

#include "providers/providers.h"

/* Whether a function or module pattern has a wildcard. */
bool pattern_has_glob(const char *pattern);

/* After function(...)'s `.return` component `comp`: its .maxactive(N) (1 to 999999; else
 * -1) into *maxactive; the component after them. */
const struct component *read_return_suffix(const struct component *comp, int64_t *maxactive);

/* One matched function `name` (of the module `module`, NULL for the kernel). */
struct function_match {
	const struct probe_point *point;
	const struct component *func;	/* the function(...) component */
	const char *head;		/* what pp() shows before ".function(": "kernel",
					 * "kprobe.module(\"m\")" */
	const char *module;
	enum provider_kind kind;
	int64_t maxactive;
};

/* Adds the kprobe or kretprobe point of function `name`: its pp() the written point with the
 * pattern replaced, e.g. kernel.function("vfs_read").return. */
void add_function_point(const struct function_match *m, const char *name,
			struct derived_point ***tail);

/* stap's "no match": with the nearest of `names` when `pattern` is no wildcard, named
 * "similar functions" (`functions`, kprobe.function's) or plain "similar". */
void function_no_match(const struct probe_point *point, const char *pattern,
		       const char *const *names, size_t count, bool functions);

#endif
