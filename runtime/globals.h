/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The script's globals share one lock, held for a whole probe body that uses any of them,
 * so that a probe sees and leaves them consistent. A probe that cannot take it within
 * MAXTRYLOCK tries, TRYLOCKDELAY us apart, is skipped, as stap skips it.
 *
 * The generated module defines tap_globals_init() and tap_globals_free(), which make and
 * free its arrays (maps.h).
 */
#ifndef TAP_GLOBALS_H
#define TAP_GLOBALS_H

#include <linux/delay.h>
#include <linux/spinlock.h>

#include "maps.h"

#ifndef TRYLOCKDELAY
#define TRYLOCKDELAY 10
#endif

static DEFINE_RAW_SPINLOCK(tap_globals_lock);

/* A global stap cannot make (a histogram with bad bounds): tap_globals_init() names it and
 * says why, and the session ends at its start, in stap's words. */
static const char *tap_globals_failed, *tap_globals_failure;

static __always_inline bool tap_lock_globals(void)
{
	int i;

	for (i = 0; i < MAXTRYLOCK; i++) {
		if (raw_spin_trylock(&tap_globals_lock))
			return true;
		udelay(TRYLOCKDELAY);
	}
	atomic_inc(&tap_skipped_count);
	return false;
}

static __always_inline void tap_unlock_globals(void)
{
	raw_spin_unlock(&tap_globals_lock);
}

#endif
