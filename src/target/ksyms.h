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

/* Runs the shell script `script` in the target's VM, its standard output to `out_fd`: true
 * when it ran and exited 0. The driver's (target_setup.c), which knows how to boot the VM;
 * ksyms records the VM kernel's functions with it the first time. */
typedef bool (*ksyms_run_in_vm)(const struct session *s, const char *script, int out_fd);

/* The target's list; NULL after printing an "ERROR: ..." line when there is none. */
struct ksyms *ksyms_load(const struct session *s, ksyms_run_in_vm run_in_vm);

/* Whether the kernel has a function `name`. */
bool ksyms_exists(const struct ksyms *k, const char *name);
/* Whether `name` is a cold part the compiler moved out of a function ("f.cold"): entered
 * by a jump, never called, so no return probe may go there. */
bool ksyms_cold_part(const char *name);
/* Whether kprobes refuse `name` (the kprobe blacklist). */
bool ksyms_blacklisted(const struct ksyms *k, const char *name);

/* The functions matching the glob `pattern` that kprobes accept, in name order. The array
 * (not the names) is the caller's to free; *count is set. */
const char **ksyms_match(const struct ksyms *k, const char *pattern, size_t *count);

/* Every function name, in order, for suggestions. */
const char *const *ksyms_names(const struct ksyms *k, size_t *count);

/*
 * The kernel's exports (EXPORT_SYMBOL and its kin), from the target's Module.symvers, read
 * when first asked: whether it could be read (false after printing an "ERROR: ..." line),
 * whether `name` is an exported function, the exported functions matching `pattern` that
 * kprobes accept (the array is the caller's), and all of them (the same).
 */
bool ksyms_exports_known(const struct ksyms *k);
bool ksyms_exported(const struct ksyms *k, const char *name);
const char **ksyms_match_exported(const struct ksyms *k, const char *pattern, size_t *count);
const char **ksyms_exported_names(const struct ksyms *k, size_t *count);

/*
 * The target's loadable modules with their functions (kmodules.h), read when first asked:
 * for the bundled VM from the kit's modules (fetched once with tapster-vmkit --modules, their
 * functions cached in the kit), for another kernel from /lib/modules/KVER, for the running
 * one from there and /proc/kallsyms; none (an empty list; with -vv a line saying why) for a
 * kernel without /lib/modules/KVER/modules.dep. NULL after printing an "ERROR: ..." line
 * (the kit's modules could not be fetched).
 */
struct kmodules;
const struct kmodules *ksyms_modules(const struct ksyms *k);
/* The directory of those modules (with modules.dep); NULL as ksyms_modules(), or when there
 * is no such directory. */
const char *ksyms_modules_dir(const struct ksyms *k);

#endif
