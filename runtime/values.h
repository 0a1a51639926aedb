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

/* Shifts of 64 or more, or by a negative count, are defined in the script language. */
static inline int64_t tap_shl(int64_t a, int64_t b)
{
	return (b < 0 || b > 63) ? 0 : (int64_t)((uint64_t)a << b);
}

static inline int64_t tap_shr(int64_t a, int64_t b)
{
	return (b < 0 || b > 63) ? (a < 0 ? -1 : 0) : a >> b;
}

/* >>>: the bits shifted as an unsigned number, zeros coming in. */
static inline int64_t tap_ushr(int64_t a, int64_t b)
{
	return (b < 0 || b > 63) ? 0 : (int64_t)((uint64_t)a >> b);
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
