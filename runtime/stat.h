/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A statistics aggregate, fed with <<<: what globals and arrays hold of one. Every aggregate
 * has a tap_stat; one that @variance is taken of has a tap_stat_variance after it, and one
 * with a histogram its buckets (int64_t counts) after those. Their operations are in
 * maps.h and histogram.h; a global keeps one per CPU (pstat.h).
 */
#ifndef TAP_STAT_H
#define TAP_STAT_H

#include <linux/types.h>

struct tap_stat {
	int64_t count, sum, min, max;
};

/* Welford's running state, the values scaled up by the aggregate's bit shift. */
struct tap_stat_variance {
	int64_t avg_s, m2, variance_s;
};

/* A histogram's layout, one per statistics global that has one. */
enum tap_hist_kind { TAP_HIST_LOG = 1, TAP_HIST_LINEAR };

struct tap_hist {
	enum tap_hist_kind kind;
	int64_t start, interval;	/* linear: buckets 0 and n-1 are under- and overflow */
	int buckets;
};

#define TAP_HIST_LOG_BUCKETS 128
#define TAP_HIST_LOG_ZERO 64		/* the bucket of 0; below it, the negative values */
#define TAP_HIST_MAX_BUCKETS 128	/* of a linear histogram, under- and overflow included */
#define TAP_HIST_WIDTH 50		/* the longest bar */

/* The most an aggregate takes, extras included. */
#define TAP_STAT_MAX_SIZE (sizeof(struct tap_stat) + sizeof(struct tap_stat_variance) + \
			   TAP_HIST_MAX_BUCKETS * sizeof(int64_t))

#endif
