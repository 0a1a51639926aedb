/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Each script global has a reader/writer lock of its own. A probe body takes the locks of
 * the globals it uses, in declaration order (the translator lists them: a read lock for a
 * global only read, a write lock for one changed), and holds them for the whole body, so
 * that it sees and leaves them consistent while probes that share nothing run in parallel.
 * A lock not got within MAXTRYLOCK tries, TRYLOCKDELAY us apart, makes the probe hit
 * skipped (the locks taken are given back), counted for that global and reported at the
 * end in stap's words. The updates of a sharded global (shards.h) take no lock: its other
 * uses take it for writing and merge the CPUs' parts first.
 *
 * The generated module defines tap_globals_init() and tap_globals_free(), which make and
 * free its arrays (maps.h), and tap_locks[], every global's lock.
 */
#ifndef TAP_GLOBALS_H
#define TAP_GLOBALS_H

#include <linux/delay.h>
#include <linux/spinlock.h>

#include "maps.h"

#ifndef TRYLOCKDELAY
#define TRYLOCKDELAY 10
#endif

/*
 * Probe bodies run with preemption off, and a hit that would nest in another on the same CPU
 * is skipped before it gets here (context.h): the architecture's reader/writer lock serves,
 * without the preempt count and the out-of-line calls of rwlock_t. Kernels where rwlock_t is
 * not a plain arch_rwlock_t (PREEMPT_RT, lock debugging) keep rwlock_t.
 */
#if defined(CONFIG_SMP) && !defined(CONFIG_PREEMPT_RT) && !defined(CONFIG_DEBUG_SPINLOCK) && \
	!defined(CONFIG_DEBUG_LOCK_ALLOC)
#define TAP_ARCH_RWLOCK 1
#endif

struct tap_lock {
#ifdef TAP_ARCH_RWLOCK
	arch_rwlock_t lock;
#else
	rwlock_t lock;
#endif
	const char *name;	/* the global, as the script names it */
	atomic_t timeouts;	/* probe hits skipped for want of it */
};

/* A global stap cannot make (a histogram with bad bounds): tap_globals_init() names it and
 * says why, and the session ends at its start, in stap's words. */
static const char *tap_globals_failed, *tap_globals_failure;

#ifdef TAP_ARCH_RWLOCK
#define TAP_LOCK_INIT(var, global_name) \
	{ .lock = __ARCH_RW_LOCK_UNLOCKED, .name = global_name, .timeouts = ATOMIC_INIT(0) }
#define tap_write_trylock(l) arch_write_trylock(l)
#define tap_read_trylock(l) arch_read_trylock(l)
#define tap_write_unlock(l) arch_write_unlock(l)
#define tap_read_unlock(l) arch_read_unlock(l)
#else
#define TAP_LOCK_INIT(var, global_name) \
	{ .lock = __RW_LOCK_UNLOCKED(var.lock), .name = global_name, .timeouts = ATOMIC_INIT(0) }
#define tap_write_trylock(l) write_trylock(l)
#define tap_read_trylock(l) read_trylock(l)
#define tap_write_unlock(l) write_unlock(l)
#define tap_read_unlock(l) read_unlock(l)
#endif

struct tap_lock_use {
	struct tap_lock *lock;
	bool write;
};

static __always_inline bool tap_trylock(const struct tap_lock_use *use)
{
	return use->write ? tap_write_trylock(&use->lock->lock) : tap_read_trylock(&use->lock->lock);
}

static __always_inline void tap_unlock(const struct tap_lock_use *use)
{
	if (use->write)
		tap_write_unlock(&use->lock->lock);
	else
		tap_read_unlock(&use->lock->lock);
}

static __always_inline void tap_unlock_all(const struct tap_lock_use *uses, int n)
{
	while (n-- > 0)
		tap_unlock(&uses[n]);
}

/* Takes the `n` locks of `uses`, in order; false (nothing held) when one cannot be had. */
static __always_inline bool tap_lock_all(const struct tap_lock_use *uses, int n)
{
	int i, try;

	for (i = 0; i < n; i++) {
		for (try = 0; !tap_trylock(&uses[i]); try++) {
			if (try + 1 >= MAXTRYLOCK) {
				tap_unlock_all(uses, i);
				atomic_inc(&uses[i].lock->timeouts);
				tap_count_skipped();
				return false;
			}
			/* A pause first: a spin-wait hint to the CPU, and under an emulator
			 * (qemu's TCG runs the vCPUs in turn on one thread) the point where the
			 * other vCPU gets to run, the lock's holder among them; udelay() need
			 * not pause (a calibrated loop where the TSC is not trusted), and then
			 * all MAXTRYLOCK tries could pass while the holder waited its turn. */
			cpu_relax();
			udelay(TRYLOCKDELAY);
		}
	}
	return true;
}

#endif
