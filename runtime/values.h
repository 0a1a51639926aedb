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

/* Strings read a word at a time where the kernel reads names so (the dcache's way: a word
 * past the string's end read without a fault, its bytes after the NUL masked off). */
#if defined(CONFIG_DCACHE_WORD_ACCESS) && defined(__LITTLE_ENDIAN)
#define TAP_STRING_WORDS
#include <asm/word-at-a-time.h>
#endif

/* strnlen(s, max), a word at a time (the kernel's strnlen() goes a byte at a time). */
static inline size_t tap_strnlen(const char *s, size_t max)
{
#ifdef TAP_STRING_WORDS
	const struct word_at_a_time constants = WORD_AT_A_TIME_CONSTANTS;
	const char *p = s;
	size_t words;

	for (words = max / sizeof(long); words; words--, p += sizeof(long)) {
		unsigned long word = load_unaligned_zeropad(p), bits;

		/* Little-endian: the lowest byte has_zero() flags is the first NUL (a false
		 * flag only ever comes above a NUL, from its borrow). */
		if (has_zero(word, &bits, &constants))
			return p - s + __ffs(bits) / 8;
	}
	return p - s + strnlen(p, max % sizeof(long));
#else
	return strnlen(s, max);
#endif
}

/*
 * Truth values and comparisons as functions, so that the generated C holds none of the
 * constructs gcc warns about whatever the script wrote: x == x, ~ or - on a comparison,
 * a product or a ?: of constants as a condition.
 */
static __always_inline int64_t tap_truth(int64_t v)
{
	return v != 0;
}

static __always_inline int64_t tap_not(int64_t v)
{
	return v == 0;
}

/* -1, 0 or 1 as a is less than, equal to or greater than b. */
static __always_inline int tap_compare(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

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

/* Shifts at run time as stap's generated C does them: the count mod 64 (so 1 << 64 is 1,
 * 1 << -1 is 1 << 63). Counts known at translate time are the optimizer's (optimize.c). */
static inline int tap_shift_count(int64_t b)
{
	return (int)(b & 63);
}

static inline int64_t tap_shl(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a << tap_shift_count(b));
}

static inline int64_t tap_shr(int64_t a, int64_t b)
{
	return a >> tap_shift_count(b);
}

/* >>>: the bits shifted as an unsigned number, zeros coming in (stap 4.8 refuses it only
 * between two numbers, which its optimizer cannot fold). */
static inline int64_t tap_ushr(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a >> tap_shift_count(b));
}

/* dst = src, truncated to MAXSTRINGLEN - 1 bytes (dst holds MAXSTRINGLEN). */
static inline const char *tap_strcpy(char *dst, const char *src)
{
	if (dst != src) {
		size_t len = tap_strnlen(src, MAXSTRINGLEN - 1);

		memcpy(dst, src, len);
		dst[len] = '\0';
	}
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
