/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the benchmark's hand-written floor modules share: the probed system call, and a
 * per-CPU aggregate (count, sum, min, max) like the one `s <<< v` keeps.
 */
#ifndef FLOOR_COMMON_H
#define FLOOR_COMMON_H

#include <linux/percpu.h>
#include <linux/types.h>

#define FLOOR_FUNC "__x64_sys_getppid"

struct floor_stat {
	s64 count, sum, min, max;
};

static __always_inline void floor_stat_add(struct floor_stat *st, s64 value)
{
	if (!st->count || value < st->min)
		st->min = value;
	if (!st->count || value > st->max)
		st->max = value;
	st->count++;
	st->sum += value;
}

#endif
