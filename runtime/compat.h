/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel API drift, in one place. The translator reads the target's headers for each API
 * that changed and defines TAP_HAVE_<feature> for what they have (src/kfeatures.c: no
 * version number is trusted, since distributions backport changes); each entry here names
 * the kernel version that made the change.
 */
#ifndef TAP_COMPAT_H
#define TAP_COMPAT_H

#include <linux/timer.h>

/* del_timer_sync() became timer_delete_sync() in 6.2 and was removed later. */
#ifdef TAP_HAVE_TIMER_DELETE_SYNC
#define tap_timer_delete_sync(t) timer_delete_sync(t)
#else
#define tap_timer_delete_sync(t) del_timer_sync(t)
#endif

/* from_timer() became timer_container_of() in 6.16. */
#ifdef TAP_HAVE_TIMER_CONTAINER_OF
#define tap_timer_container_of(var, timer, field) timer_container_of(var, timer, field)
#else
#define tap_timer_container_of(var, timer, field) from_timer(var, timer, field)
#endif

/* uprobe_register() returns the struct uprobe and uprobe_unregister() became
 * uprobe_unregister_nosync() + uprobe_unregister_sync() in 6.12: TAP_HAVE_UPROBE_UNREGISTER_NOSYNC,
 * which runtime/uprobes.h follows. */

/*
 * fprobe, with handlers that take the pt_regs (6.5 to 6.13), serves the kernel.function
 * probes of many functions (kprobes.h); not in a timing build (-t), which reports missed
 * return probes per probe point, nor with -DTAP_NO_FPROBE.
 */
#if defined(TAP_HAVE_FPROBE_PT_REGS) && !defined(TAP_NO_FPROBE) && !defined(STP_TIMING)
#if IS_ENABLED(CONFIG_FPROBE) && IS_ENABLED(CONFIG_KPROBES_ON_FTRACE)
#define TAP_USE_FPROBE 1
#endif
#endif

#endif
