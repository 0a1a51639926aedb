/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The target kernel's DWARF debuginfo, where it is installed: Debian's
 * linux-image-KVER-dbg puts it in /usr/lib/debug/boot/vmlinux-KVER (and
 * /usr/lib/debug/lib/modules/KVER/ for the modules); `-r DIR`'s build tree may hold a
 * vmlinux of its own. Where it is found, DWARF is the kernel-type source; otherwise BTF.
 *
 * The search path is stap's SYSTEMTAP_DEBUGINFO_PATH (elfutils' form, entries separated by
 * ':'; "+" and ".debug" are accepted and ignored, "build" is the kernel build tree, any
 * other entry is a directory like /usr/lib/debug). Unset, it is "+:.debug:/usr/lib/debug:build".
 * Set it to a directory that holds nothing to run on BTF alone (the testsuite does).
 */
#ifndef TAPSTER_DEBUGINFO_H
#define TAPSTER_DEBUGINFO_H

#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdbool.h>

struct session;
struct debuginfo;

/* The target kernel's debuginfo, opened once (later calls return the same); NULL when
 * there is none (not an error: BTF serves then). */
const struct debuginfo *debuginfo_kernel(const struct session *s);
/* The path of the debuginfo file of the target's module `name` ("loop"), or NULL;
 * malloc'd. */
char *debuginfo_module_path(const struct session *s, const char *name);

const char *debuginfo_path(const struct debuginfo *di);
/* Whether an index derived from the debuginfo may be cached in $TAPSTER_DIR (not with
 * --disable-cache); *read: whether a cached one may be read (not with --poison-cache). */
bool debuginfo_cache_allowed(const struct debuginfo *di, bool *read);
Dwarf *debuginfo_dwarf(const struct debuginfo *di);
Elf *debuginfo_elf(const struct debuginfo *di);

#endif
