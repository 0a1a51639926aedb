/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * @variance and histograms of statistics aggregates (stat.h has their layout).
 *
 * @variance follows stap's integer arithmetic to the bit, as if every value had come on
 * one CPU: Welford's running average and sum of squares, the values shifted up by the
 * aggregate's bit shift (the running difference kept in an int, as stap keeps it). A
 * global's @variance adds the spread between the running average and sum/count, as stap
 * does when it gathers its CPUs; an array entry's is the running one, and that of an
 * array with a histogram is 0, as in stap.
 *
 * A log histogram has 128 buckets: 64 holds 0, 64 + n the values of n bits, 64 - n their
 * negatives. A linear one counts values below `start` in bucket 0, [start + (i - 1) *
 * interval, start + i * interval) in bucket i, and the rest in the last.
 */
#ifndef TAP_HISTOGRAM_H
#define TAP_HISTOGRAM_H

#include <linux/bitops.h>
#include <linux/math64.h>

#include "print.h"
#include "stat.h"
#include "values.h"

static __always_inline struct tap_stat_variance *tap_stat_variance_of(struct tap_stat *st)
{
	return (struct tap_stat_variance *)(st + 1);
}

static __always_inline int64_t *tap_stat_buckets_of(struct tap_stat *st, bool has_variance)
{
	return (int64_t *)((char *)(st + 1) +
			   (has_variance ? sizeof(struct tap_stat_variance) : 0));
}

static __always_inline int64_t tap_scaled(int64_t value, int shift)
{
	return (int64_t)((u64)value << shift);
}

/* After tap_stat_add() counted `value`. */
static __always_inline void tap_variance_add(const struct tap_stat *st,
					     struct tap_stat_variance *v, int64_t value, int shift)
{
	int64_t scaled = tap_scaled(value, shift);
	int delta;

	if (st->count == 1) {
		v->avg_s = scaled;
		v->m2 = 0;
		return;
	}
	delta = (int)(scaled - v->avg_s);
	v->avg_s += div64_s64(delta, st->count);
	v->m2 += (int64_t)((u64)(int64_t)delta * (u64)(scaled - v->avg_s));
	v->variance_s = div64_s64(v->m2, st->count - 1);
}

/* The variance scaled back down: a shift of 2 * shift, as x86 does it (modulo 64). */
static __always_inline int64_t tap_unscaled_variance(int64_t variance_s, int shift)
{
	return variance_s >> ((2 * shift) & 63);
}

/* @variance(s) of a global. */
static int64_t tap_variance(struct tap_context *c, const struct tap_stat *st,
			    const struct tap_stat_variance *v, int shift, const char *location)
{
	int64_t avg_s, spread, total;

	if (!st->count) {
		tap_set_error(c, "empty aggregate", location);
		return 0;
	}
	if (st->count == 1)
		return 0;
	avg_s = div64_s64(tap_scaled(st->sum, shift), st->count);
	spread = v->avg_s - avg_s;
	total = (int64_t)((u64)st->count * (u64)spread * (u64)spread +
			  (u64)(st->count - 1) * (u64)v->variance_s);
	return tap_unscaled_variance(div64_s64(total, st->count - 1), shift);
}

/* @variance(a[k]) of an array's entry; `has_hist` when the array has a histogram. */
static int64_t tap_entry_variance(struct tap_context *c, const struct tap_stat *st,
				  const struct tap_stat_variance *v, int shift, bool has_hist,
				  const char *location)
{
	if (!st->count) {
		tap_set_error(c, "empty aggregate", location);
		return 0;
	}
	return has_hist ? 0 : tap_unscaled_variance(v->variance_s, shift);
}

/* ---- Histograms ---- */

static __always_inline void tap_hist_log_add(int64_t *buckets, int64_t value)
{
	u64 magnitude = value < 0 ? 0 - (u64)value : (u64)value;
	int bits = fls64(magnitude);

	buckets[value < 0 ? TAP_HIST_LOG_ZERO - bits : TAP_HIST_LOG_ZERO + bits]++;
}

static __always_inline void tap_hist_linear_add(int64_t *buckets, const struct tap_hist *h,
						int64_t value)
{
	int64_t offset = (int64_t)((u64)value - (u64)h->start);
	u64 bucket = offset < 0 ? 0 : div_u64(offset, (u32)h->interval) + 1;

	if (bucket >= (u64)(h->buckets - 1))
		bucket = h->buckets - 1;
	buckets[bucket]++;
}

/* @hist_log(s)[i]: the count of bucket i. */
static int64_t tap_hist_bucket(struct tap_context *c, const struct tap_stat *st,
			       const int64_t *buckets, const struct tap_hist *h, int64_t index,
			       const char *location)
{
	if (!st->count) {
		tap_set_error(c, "empty aggregate", location);
		return 0;
	}
	if (index < 0 || index >= h->buckets) {
		tap_set_error(c, "histogram index out of range", location);
		return 0;
	}
	return buckets[index];
}

/* The smallest value of a log histogram's bucket. */
static int64_t tap_hist_log_value(int bucket)
{
	if (bucket == TAP_HIST_LOG_ZERO)
		return 0;
	if (bucket < TAP_HIST_LOG_ZERO)
		return (int64_t)(0 - (1ULL << (63 - bucket)));
	return (int64_t)(1ULL << (bucket - TAP_HIST_LOG_ZERO - 1));
}

/* How many characters %lld takes for `value`. */
static int tap_digits(int64_t value)
{
	u64 magnitude = value < 0 ? 0 - (u64)value : (u64)value;
	int n = value < 0;

	do {
		n++;
		magnitude = div_u64(magnitude, 10);
	} while (magnitude);
	return n;
}

#define TAP_HIST_TEN(c) c c c c c c c c c c
static const char tap_hist_bar[TAP_HIST_WIDTH + 1] = TAP_HIST_TEN("@") TAP_HIST_TEN("@")
	TAP_HIST_TEN("@") TAP_HIST_TEN("@") TAP_HIST_TEN("@");
static const char tap_hist_rule[TAP_HIST_WIDTH + 1] = TAP_HIST_TEN("-") TAP_HIST_TEN("-")
	TAP_HIST_TEN("-") TAP_HIST_TEN("-") TAP_HIST_TEN("-");

/* Where a histogram is printed: the probe's output, or a string (sprint). */
struct tap_hist_out {
	struct tap_context *c;
	char *str;
	size_t len;
};

static __printf(2, 3) void tap_hist_printf(struct tap_hist_out *out, const char *fmt, ...)
{
	char line[160];
	va_list ap;
	ssize_t n;

	va_start(ap, fmt);
	n = vscnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (!out->str) {
		tap_print_text(out->c, line, n);
		return;
	}
	/* What does not fit in the string is cut, as stap cuts it. */
	n = strscpy(out->str + out->len, line, MAXSTRINGLEN - out->len);
	out->len = n < 0 ? MAXSTRINGLEN - 1 : out->len + n;
}

/* The rows a histogram shows: its used buckets and two more on each side, within range;
 * a log histogram's start at 0 but for negative values, a linear one's under- and
 * overflow rows only when they count something. */
static void tap_hist_range(const int64_t *buckets, const struct tap_hist *h, int *low,
			   int *high)
{
	int i;

	*low = -1;
	*high = 0;
	for (i = 0; i < h->buckets; i++) {
		if (buckets[i] > 0 && *low < 0)
			*low = i;
		if (buckets[i] > 0)
			*high = i;
	}
	if (*low < 0)
		*low = 0;
	for (i = 0; i < 2; i++) {
		if (*low > 0 && (h->kind == TAP_HIST_LINEAR || *low != TAP_HIST_LOG_ZERO))
			(*low)--;
		if (*high < h->buckets - 1)
			(*high)++;
	}
	if (h->kind == TAP_HIST_LINEAR) {
		if (*low == 0 && !buckets[0])
			(*low)++;
		if (*high == h->buckets - 1 && !buckets[*high])
			(*high)--;
	}
}

/* A row is left out when it and the rows within two of it (in the range) count nothing. */
static bool tap_hist_elided(const int64_t *buckets, int i, int low, int high)
{
	int k;

	for (k = max(low, i - 2); k <= min(high, i + 2); k++)
		if (buckets[k])
			return false;
	return true;
}

/* A row's value, and its mark for a linear histogram's under- and overflow. */
static int64_t tap_hist_row_value(const struct tap_hist *h, int i, const char **mark)
{
	*mark = "";
	if (h->kind == TAP_HIST_LOG)
		return tap_hist_log_value(i);
	if (i == 0) {
		*mark = "<";
		return h->start;
	}
	if (i == h->buckets - 1) {
		*mark = ">";
		return h->start + (int64_t)(i - 2) * h->interval;
	}
	return h->start + (int64_t)(i - 1) * h->interval;
}

static void tap_hist_rows(struct tap_hist_out *out, const int64_t *buckets,
			  const struct tap_hist *h, int low, int high, int value_width)
{
	int64_t most = 0;
	int i, count_width;
	u64 scale = 1;
	bool eliding = false;

	for (i = 0; i < h->buckets; i++)
		most = max(most, buckets[i]);
	if (most > TAP_HIST_WIDTH)
		scale = DIV_ROUND_UP_ULL((u64)most, TAP_HIST_WIDTH);
	count_width = tap_digits(most);
	for (i = low; i <= high; i++) {
		const char *mark;
		int64_t value;
		u64 bar;

		if (tap_hist_elided(buckets, i, low, high)) {
			eliding = true;
			continue;
		}
		if (eliding)
			tap_hist_printf(out, "%*s ~\n", value_width, "");
		eliding = false;
		value = tap_hist_row_value(h, i, &mark);
		bar = div64_u64((u64)buckets[i], scale);
		tap_hist_printf(out, "%*s%lld |%.*s%*lld\n", value_width - tap_digits(value), mark,
				(long long)value, (int)bar, tap_hist_bar,
				(int)(TAP_HIST_WIDTH - bar + 1 + count_width), (long long)buckets[i]);
	}
}

/* print(@hist_log(s)), and sprint() into `str` when it is not NULL. */
static void tap_hist_print(struct tap_context *c, char *str, const struct tap_stat *st,
			   const int64_t *buckets, const struct tap_hist *h, const char *location)
{
	struct tap_hist_out out = { .c = c, .str = str };
	int low, high, value_width;

	if (str)
		str[0] = '\0';
	if (!st->count) {
		tap_set_error(c, "empty aggregate", location);
		return;
	}
	tap_hist_range(buckets, h, &low, &high);
	if (h->kind == TAP_HIST_LINEAR)
		value_width = max(tap_digits(h->start) + (low == 0),
				  tap_digits(h->start + h->interval * high) +
				  (high == h->buckets - 1));
	else
		value_width = max(tap_digits(tap_hist_log_value(high)),
				  tap_digits(tap_hist_log_value(low)));
	value_width = max(value_width, 5);	/* "value" */
	tap_hist_printf(&out, "%*s |%s count\n", value_width, "value", tap_hist_rule);
	tap_hist_rows(&out, buckets, h, low, high, value_width);
	tap_hist_printf(&out, "\n");
}

#endif
