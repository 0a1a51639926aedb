/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel info: the target kernel's function symbols, which kernel.function("pattern")
 * expands against, and those kprobes refuse (the kernel's kprobe blacklist).
 *
 * Where the list comes from depends on the target:
 *   the running kernel     /proc/kallsyms and /sys/kernel/debug/kprobes/blacklist
 *   the bundled VM         the same files read inside the VM once, cached in the kit
 *                          ("kallsyms": its text symbols, then "!name" for the blacklisted)
 *   another kernel (-r)    its System.map (no blacklist known)
 */
#ifndef TAPSTER_KSYMS_H
#define TAPSTER_KSYMS_H

#include <stdbool.h>
#include <stddef.h>

#include "session.h"

struct ksyms;

/* The target's list; NULL after printing an "ERROR: ..." line when there is none. */
struct ksyms *ksyms_load(const struct session *s);

/* Whether the kernel has a function `name`. */
bool ksyms_exists(const struct ksyms *k, const char *name);
/* Whether kprobes refuse `name` (the kprobe blacklist). */
bool ksyms_blacklisted(const struct ksyms *k, const char *name);

/* The functions matching the glob `pattern` that kprobes accept, in name order. The array
 * (not the names) is the caller's to free; *count is set. */
const char **ksyms_match(const struct ksyms *k, const char *pattern, size_t *count);

/* Every function name, in order, for suggestions. */
const char *const *ksyms_names(const struct ksyms *k, size_t *count);

#endif
