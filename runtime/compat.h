/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel API drift, in one place. Each entry names the kernel version that changed the API;
 * the generated module is built against the target's own headers.
 */
#ifndef TAP_COMPAT_H
#define TAP_COMPAT_H

#include <linux/version.h>
#include <linux/timer.h>

/* del_timer_sync() became timer_delete_sync() in 6.2 and was removed later. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define tap_timer_delete_sync(t) timer_delete_sync(t)
#else
#define tap_timer_delete_sync(t) del_timer_sync(t)
#endif

/* from_timer() became timer_container_of() in 6.16. */
#ifdef timer_container_of
#define tap_timer_container_of(var, timer, field) timer_container_of(var, timer, field)
#else
#define tap_timer_container_of(var, timer, field) from_timer(var, timer, field)
#endif

#endif
