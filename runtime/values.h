/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Script values: 64-bit signed longs with stap's arithmetic (wrapping overflow, division by
 * zero an error) and strings bounded by MAXSTRINGLEN.
 */
#ifndef TAP_VALUES_H
#define TAP_VALUES_H

#include <linux/math64.h>
#include <linux/string.h>

#include "context.h"

static __always_inline void tap_set_error(struct tap_context *c, const char *message,
					  const char *location)
{
	if (!c->last_error) {
		c->last_error = message;
		c->error_location = location;
	}
}

static inline int64_t tap_div(struct tap_context *c, int64_t a, int64_t b, const char *location)
{
	if (unlikely(b == 0)) {
		tap_set_error(c, "division by 0", location);
		return 0;
	}
	if (unlikely(b == -1))
		return (int64_t)(0 - (uint64_t)a);	/* LLONG_MIN / -1 wraps, as stap's does */
	return div64_s64(a, b);
}

static inline int64_t tap_mod(struct tap_context *c, int64_t a, int64_t b, const char *location)
{
	if (unlikely(b == 0)) {
		tap_set_error(c, "division by 0", location);
		return 0;
	}
	if (unlikely(b == -1))
		return 0;
	return a - div64_s64(a, b) * b;
}

/* Shifts as stap's generated C does them on x86: the count clamped to 0..64, and the
 * machine using it mod 64 (so 1 << 64 is 1, x >> -1 is x). */
static inline int tap_shift_count(int64_t b)
{
	return (int)(b < 0 ? 0 : b > 64 ? 64 : b) & 63;
}

static inline int64_t tap_shl(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a << tap_shift_count(b));
}

static inline int64_t tap_shr(int64_t a, int64_t b)
{
	return a >> tap_shift_count(b);
}

/* >>> (a tapster extension: stap 4.8 refuses it at pass 2): the bits shifted as an
 * unsigned number, zeros coming in. */
static inline int64_t tap_ushr(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a >> tap_shift_count(b));
}

static inline const char *tap_strcpy(char *dst, const char *src)
{
	if (dst != src)
		strscpy(dst, src, MAXSTRINGLEN);
	return dst;
}

/* dst = a . b, truncated to MAXSTRINGLEN; a and b may be dst itself. */
static inline const char *tap_concat(char *dst, const char *a, const char *b)
{
	size_t la = strnlen(a, MAXSTRINGLEN - 1);
	size_t lb = strnlen(b, MAXSTRINGLEN - 1 - la);

	memmove(dst + la, b, lb);
	if (dst != a)
		memmove(dst, a, la);
	dst[la + lb] = '\0';
	return dst;
}

#endif
