/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * printf and friends, with stap's own conversions: the translator describes a format as an
 * array of pieces (literal text, or one conversion with its flags, width and precision) and
 * passes the values as an array of union tap_fmt_arg; this formats them.
 *
 * The results follow stap's: numbers are 64-bit (%u %o %x of a negative number show its
 * two's complement), %p is %#x, %#x and %#o of 0 keep their prefix, %c writes the low byte
 * of its value (%#c escapes it), %b writes the value as 1, 2, 4 or 8 raw bytes, %m and %M
 * dump kernel memory (user memory with #) read without faulting, %s with a 0 flag ends
 * with a NUL byte. A width or precision from an argument is clamped to 0 and up; widths and
 * precisions never exceed the room left. printf's output is one block of at most
 * TAP_FMT_PRINT_MAX bytes, sprintf's a string of at most MAXSTRINGLEN - 1.
 */
#ifndef TAP_FORMAT_H
#define TAP_FORMAT_H

#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/uaccess.h>

#include "context.h"
#include "values.h"

#define TAP_FMT_PRINT_MAX 8192	/* one printf's output at most, as stap's */

enum tap_fmt_flag {
	TAP_FMT_ZEROPAD = 1,
	TAP_FMT_SIGN = 2,
	TAP_FMT_PLUS = 4,
	TAP_FMT_SPACE = 8,
	TAP_FMT_LEFT = 16,
	TAP_FMT_SPECIAL = 32,
	TAP_FMT_LARGE = 64,
};

#define TAP_FMT_NONE (-1)	/* no width or precision */
#define TAP_FMT_STAR (-2)	/* the width or precision is the next argument */

struct tap_fmt_spec {
	const char *text;	/* conv 0: literal text */
	char conv;		/* d i u o x X p s c b m M, or 0 */
	u8 flags;		/* enum tap_fmt_flag */
	int width, precision;	/* >= 0 as written, TAP_FMT_NONE or TAP_FMT_STAR */
	const char *location;	/* %m %M: where a too large size is reported */
};

union tap_fmt_arg {
	int64_t l;
	const char *s;
};

/* Where output goes: bytes at pos <= last are stored; pos may run past last, as a count. */
struct tap_fmt_out {
	char *buf;		/* NULL while only measuring */
	int pos, last;
};

static inline void tap_fmt_put(struct tap_fmt_out *o, char ch)
{
	if (o->buf && o->pos <= o->last)
		o->buf[o->pos] = ch;
	o->pos++;
}

static inline bool tap_fmt_room(const struct tap_fmt_out *o)
{
	return o->pos <= o->last;
}

/* clamp(value as an int, 0, high), as stap's clamp_t(int, ...): a high below 0 wins. */
static inline int tap_fmt_clamp(int64_t value, int high)
{
	int v = (int)value;

	return min(max(v, 0), high);
}

static void tap_fmt_number(struct tap_fmt_out *o, u64 num, int base, int width, int precision,
			   unsigned int flags)
{
	const char *digits = (flags & TAP_FMT_LARGE) ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[66], sign = 0, pad;
	int ndigits = 0;

	if (flags & TAP_FMT_LEFT)
		flags &= ~TAP_FMT_ZEROPAD;
	pad = (flags & TAP_FMT_ZEROPAD) ? '0' : ' ';
	if (flags & TAP_FMT_SIGN) {
		if ((s64)num < 0) {
			sign = '-';
			num = -(s64)num;
		} else if (flags & TAP_FMT_PLUS) {
			sign = '+';
		} else if (flags & TAP_FMT_SPACE) {
			sign = ' ';
		}
		if (sign)
			width--;
	}
	if (flags & TAP_FMT_SPECIAL)
		width -= base == 16 ? 2 : base == 8 ? 1 : 0;
	do {
		tmp[ndigits++] = digits[do_div(num, base)];
	} while (num);
	precision = max(precision, ndigits);
	width -= precision;
	if (!(flags & (TAP_FMT_ZEROPAD | TAP_FMT_LEFT)))
		for (; width > 0; width--)
			tap_fmt_put(o, ' ');
	if (sign)
		tap_fmt_put(o, sign);
	if ((flags & TAP_FMT_SPECIAL) && (base == 8 || base == 16)) {
		tap_fmt_put(o, '0');
		if (base == 16)
			tap_fmt_put(o, (flags & TAP_FMT_LARGE) ? 'X' : 'x');
	}
	if (!(flags & TAP_FMT_LEFT))
		for (; width > 0; width--)
			tap_fmt_put(o, pad);
	for (; precision > ndigits; precision--)
		tap_fmt_put(o, '0');
	while (ndigits > 0)
		tap_fmt_put(o, tmp[--ndigits]);
	for (; width > 0; width--)
		tap_fmt_put(o, ' ');
}

/* %c: one byte, or with # its C escape (\n, \', \\, ...) or octal escape when it is not a
 * printable ASCII character. */
static int tap_fmt_char_escape(unsigned char ch, char *escape)
{
	static const char plain[] = "\a\b\f\n\r\t\v'\\";
	static const char named[] = "abfnrtv'\\";
	const char *special = ch ? strchr(plain, ch) : NULL;

	if (special) {
		escape[0] = '\\';
		escape[1] = named[special - plain];
		return 2;
	}
	if (ch < 0x80 && isprint(ch)) {
		escape[0] = ch;
		return 1;
	}
	escape[0] = '\\';
	escape[1] = '0' + (ch >> 6);
	escape[2] = '0' + ((ch >> 3) & 7);
	escape[3] = '0' + (ch & 7);
	return 4;
}

static void tap_fmt_char(struct tap_fmt_out *o, unsigned char ch, int width, unsigned int flags)
{
	char text[4];
	int len = 1, i;

	text[0] = ch;
	if (flags & TAP_FMT_SPECIAL)
		len = tap_fmt_char_escape(ch, text);
	if (!(flags & TAP_FMT_LEFT))
		for (; width > len; width--)
			tap_fmt_put(o, ' ');
	for (i = 0; i < len; i++)
		tap_fmt_put(o, text[i]);
	for (; width > len; width--)
		tap_fmt_put(o, ' ');
}

/* %b's size: a precision of 1, 2, 4 or 8 bytes, else the width's if it is one, else 8;
 * the width is the size's when none is given. */
static void tap_fmt_binary_size(int *width, int *precision)
{
	bool valid = *precision == 1 || *precision == 2 || *precision == 4 || *precision == 8;
	bool width_valid = *width == 1 || *width == 2 || *width == 4 || *width == 8;

	if (!valid)
		*precision = TAP_FMT_NONE;
	if (*width == TAP_FMT_NONE)
		*width = *precision == TAP_FMT_NONE ? (*precision = 8) : *precision;
	else if (*precision == TAP_FMT_NONE)
		*precision = width_valid ? *width : 8;
}

/* The value's low `size` bytes, as the machine stores an integer of that size. */
static void tap_fmt_store(char *dst, int64_t num, int size)
{
	s8 v8 = num;
	s16 v16 = num;
	s32 v32 = num;

	switch (size) {
	case 1: memcpy(dst, &v8, 1); break;
	case 2: memcpy(dst, &v16, 2); break;
	case 4: memcpy(dst, &v32, 4); break;
	default: memcpy(dst, &num, 8); break;
	}
}

static void tap_fmt_binary(struct tap_fmt_out *o, int64_t num, int width, int precision,
			   unsigned int flags)
{
	tap_fmt_binary_size(&width, &precision);
	if (!o->buf) {
		o->pos += max(precision, width);
		return;
	}
	if (!(flags & TAP_FMT_LEFT))
		for (; precision < width && tap_fmt_room(o); width--)
			tap_fmt_put(o, '\0');
	if (o->pos + precision - 1 <= o->last) {
		tap_fmt_store(o->buf + o->pos, num, precision);
		o->pos += precision;
	}
	for (; precision < width && tap_fmt_room(o); width--)
		tap_fmt_put(o, '\0');
}

/* One byte of memory at addr, kernel or (with #) user, without faulting. */
static bool tap_fmt_read_byte(unsigned long addr, bool user, unsigned char *byte)
{
	if (user)
		return !copy_from_user_nofault(byte, (const void __user *)addr, 1);
	return !copy_from_kernel_nofault(byte, (const void *)addr, 1);
}

/* %s, and %m (bytes) and %M (hex) of memory: false after a read fault, the error set. */
static bool tap_fmt_memory(struct tap_context *c, struct tap_fmt_out *o, const char *s,
			   int64_t addr, char conv, int width, int precision, unsigned int flags,
			   const char *location)
{
	static const char hex[] = "0123456789abcdef";
	bool user = flags & TAP_FMT_SPECIAL;
	int len, shown, i;

	if (conv == 's')
		len = tap_strnlen(s, precision < 0 ? TAP_FMT_PRINT_MAX : precision);
	else
		len = precision > 0 ? precision : 1;
	shown = conv == 'M' ? len * 2 : len;
	if (!(flags & TAP_FMT_LEFT))
		for (; shown < width && tap_fmt_room(o); width--)
			tap_fmt_put(o, ' ');
	for (i = 0; i < len && (conv == 'M' ? o->pos < o->last : tap_fmt_room(o)); i++) {
		unsigned char byte = s ? s[i] : 0;

		if (conv != 's' && !tap_fmt_read_byte(addr + i, user, &byte)) {
			snprintf(c->error_buffer, sizeof(c->error_buffer),
				 "read fault [man error::fault] at 0x%lx", (long)(addr + i));
			tap_set_error(c, c->error_buffer, location);
			return false;
		}
		if (conv == 'M') {
			tap_fmt_put(o, hex[byte >> 4]);
			tap_fmt_put(o, hex[byte & 15]);
		} else {
			tap_fmt_put(o, byte);
		}
	}
	for (; shown < width && tap_fmt_room(o); width--)
		tap_fmt_put(o, ' ');
	if ((flags & TAP_FMT_ZEROPAD) && tap_fmt_room(o))
		tap_fmt_put(o, '\0');
	return true;
}

/* The bytes a %s %m %M takes, as stap reserves them. */
static int tap_fmt_memory_size(const char *s, char conv, int width, int precision,
			       unsigned int flags)
{
	int len;

	if (conv == 's')
		len = tap_strnlen(s, precision < 0 ? TAP_FMT_PRINT_MAX : precision);
	else
		len = precision > 0 ? precision : 1;
	if (conv == 'M')
		len *= 2;
	return max(len, width) + !!(flags & TAP_FMT_ZEROPAD);
}

static void tap_fmt_literal(struct tap_fmt_out *o, const char *text)
{
	for (; *text && tap_fmt_room(o); text++)
		tap_fmt_put(o, *text);
}

/* The width and precision of spec, from it or from the arguments at *arg (moved past). */
static void tap_fmt_sizes(const struct tap_fmt_spec *spec, const union tap_fmt_arg **arg,
			  int high, int *width, int *precision)
{
	*width = spec->width;
	if (*width == TAP_FMT_STAR)
		*width = tap_fmt_clamp((*arg)++->l, high);
	else if (*width >= 0)
		*width = tap_fmt_clamp(*width, high);
	*precision = spec->precision;
	if (*precision == TAP_FMT_STAR)
		*precision = tap_fmt_clamp((*arg)++->l, high);
	else if (*precision >= 0)
		*precision = tap_fmt_clamp(*precision, high);
}

/* Formats every piece into o (a NULL buffer measures); false after a read fault. When
 * measuring, memory pieces count what stap reserves for them. */
static bool tap_fmt_pieces(struct tap_context *c, struct tap_fmt_out *o,
			   const struct tap_fmt_spec *specs, int n, const union tap_fmt_arg *arg,
			   const char *fault_location)
{
	int i, width, precision;

	for (i = 0; i < n; i++) {
		const struct tap_fmt_spec *spec = &specs[i];
		unsigned int flags = spec->flags;

		if (!spec->conv) {
			if (o->buf)
				tap_fmt_literal(o, spec->text);
			else
				o->pos += strlen(spec->text);
			continue;
		}
		tap_fmt_sizes(spec, &arg, o->buf ? o->last - o->pos + 1 : TAP_FMT_PRINT_MAX,
			      &width, &precision);
		switch (spec->conv) {
		case 's': case 'm': case 'M':
			if (!o->buf) {
				o->pos += tap_fmt_memory_size(arg->s, spec->conv, width,
							      precision, flags);
			} else if (!tap_fmt_memory(c, o, spec->conv == 's' ? arg->s : NULL,
						   arg->l, spec->conv, width, precision, flags,
						   fault_location)) {
				return false;
			}
			break;
		case 'c':
			tap_fmt_char(o, (unsigned char)arg->l, width, flags);
			break;
		case 'b':
			tap_fmt_binary(o, arg->l, width, precision, flags);
			break;
		default: {
			int base = strchr("oxXp", spec->conv) ? (spec->conv == 'o' ? 8 : 16) : 10;

			tap_fmt_number(o, arg->l, base, width, precision, flags);
			break;
		}
		}
		arg++;
	}
	return true;
}

/* A %m or %M of more than a page is an error before anything prints. */
static bool tap_fmt_check_dumps(struct tap_context *c, const struct tap_fmt_spec *specs, int n,
				const union tap_fmt_arg *arg)
{
	int i;

	for (i = 0; i < n; i++) {
		int64_t size = 1;

		if (!specs[i].conv)
			continue;
		if (specs[i].width == TAP_FMT_STAR)
			arg++;
		if (specs[i].precision == TAP_FMT_STAR)
			size = arg++->l;
		else if (specs[i].precision >= 0)
			size = specs[i].precision;
		arg++;
		if ((specs[i].conv == 'm' || specs[i].conv == 'M') && size > PAGE_SIZE) {
			snprintf(c->error_buffer, sizeof(c->error_buffer),
				 "%lld is too many bytes for a memory dump", (long long)size);
			tap_set_error(c, c->error_buffer, specs[i].location);
			return false;
		}
	}
	return true;
}

/* printf: the output measured, that many bytes (at most TAP_FMT_PRINT_MAX) taken from the
 * print buffer, and formatted into them. A read fault prints nothing; its error is located
 * at fault_location. */
static void tap_print_format(struct tap_context *c, const struct tap_fmt_spec *specs, int n,
			     const union tap_fmt_arg *args, const char *fault_location)
{
	struct tap_print_buffer *pb = &c->print;
	struct tap_fmt_out o = { NULL, 0, 0 };
	int size;

	if (!tap_fmt_check_dumps(c, specs, n, args))
		return;
	tap_print_unring(c);
	tap_fmt_pieces(c, &o, specs, n, args, fault_location);
	size = min(o.pos, TAP_FMT_PRINT_MAX);
	if (size <= 0)
		return;
	if (pb->len + size > sizeof(pb->buf))
		tap_print_flush(c);
	o = (struct tap_fmt_out){ pb->buf + pb->len, 0, size - 1 };
	memset(o.buf, 0, size);
	if (!tap_fmt_pieces(c, &o, specs, n, args, fault_location))
		return;
	pb->len += size;
}

/* The most values of a printf that has a fast path (src/translate/translate_print.c's
 * PRINT_FAST_ARGS_MAX). */
#define TAP_FMT_FAST_ARGS_MAX 32

/*
 * The fallback of printf's fast path (below) for output longer than one printf's block:
 * tap_print_format() with the values as arguments, one per conversion in order, a string for
 * a %s and a long for the others (the fast path has only plain %s and %d). Out of line, so
 * that the probe handler holds no array of them (nor the stack canary it would bring).
 */
static noinline void tap_print_format_values(struct tap_context *c,
					     const struct tap_fmt_spec *specs, int n, ...)
{
	union tap_fmt_arg args[TAP_FMT_FAST_ARGS_MAX];
	int i, nargs = 0;
	va_list ap;

	va_start(ap, n);
	for (i = 0; i < n && nargs < (int)ARRAY_SIZE(args); i++) {
		if (specs[i].conv == 's')
			args[nargs++].s = va_arg(ap, const char *);
		else if (specs[i].conv)
			args[nargs++].l = va_arg(ap, int64_t);
	}
	va_end(ap);
	if (i == n)	/* always: the translator keeps to the limit */
		tap_print_format(c, specs, n, args, NULL);
}

/*
 * printf's fast path, for a format of literal text, plain %s and plain %d (the translator
 * checks): the pieces go straight into the print buffer, with no second pass to measure them.
 * tap_print_reserve() makes room in one block for `bound` bytes, at least what the pieces
 * write (20 for a %d), as tap_print_format() does for the exact size; it returns NULL when
 * the output might be longer than one printf's block, for tap_print_format() to cut.
 */
static __always_inline char *tap_print_reserve(struct tap_context *c, size_t bound)
{
	struct tap_print_buffer *pb = &c->print;

	if (unlikely(bound > min_t(size_t, TAP_FMT_PRINT_MAX, sizeof(pb->buf))))
		return NULL;
	/* The hit's first output is written where it goes, when it extends the ring's last
	 * record (a line per hit on one CPU): no copy at the hit's end. */
	if (!pb->len) {
		/* No more there than buf holds (the room is at most TAP_PRINT_BUFFER_SIZE):
		 * tap_print_unring() may move it there. */
		BUILD_BUG_ON(sizeof(pb->buf) != TAP_PRINT_BUFFER_SIZE);
		pb->text = tap_ring_extend_room(this_cpu_read(tap_this_ring), bound, &pb->room);
		return pb->text ?: pb->buf;
	}
	if (pb->text) {
		if (likely(pb->len + bound <= pb->room))
			return pb->text + pb->len;
		tap_print_unring(c);
	}
	if (unlikely(pb->len + bound > sizeof(pb->buf)))
		tap_print_flush(c);
	return pb->buf + pb->len;
}

static __always_inline char *tap_print_put(char *p, const char *text, size_t len)
{
	/* A short string of a length known only now (a name): two overlapping moves, or up to
	 * three bytes, where memcpy() would be a call and a byte-counted rep movsb. */
	if (!__builtin_constant_p(len) && len <= 16) {
		if (len >= 8) {
			u64 first, last;

			memcpy(&first, text, 8);
			memcpy(&last, text + len - 8, 8);
			memcpy(p, &first, 8);
			memcpy(p + len - 8, &last, 8);
		} else if (len >= 4) {
			u32 first, last;

			memcpy(&first, text, 4);
			memcpy(&last, text + len - 4, 4);
			memcpy(p, &first, 4);
			memcpy(p + len - 4, &last, 4);
		} else if (len) {
			p[0] = text[0];
			p[len / 2] = text[len / 2];
			p[len - 1] = text[len - 1];
		}
		return p + len;
	}
	memcpy(p, text, len);
	return p + len;
}

/* "00" to "99": two digits of a number in decimal at a time. */
static const char tap_digit_pairs[200] __nonstring __maybe_unused =
	"00010203040506070809101112131415161718192021222324"
	"25262728293031323334353637383940414243444546474849"
	"50515253545556575859606162636465666768697071727374"
	"75767778798081828384858687888990919293949596979899";

/* A plain %d: the value in decimal, at most 20 characters with its sign. Its digits are
 * counted first and written from the last, two at a time: half the divisions. */
static __always_inline char *tap_print_put_long(char *p, int64_t value)
{
	u64 num = value < 0 ? -(u64)value : (u64)value, power = 10;
	char *end;
	int digits = 1;

	if (value < 0)
		*p++ = '-';
	while (digits < 20 && num >= power) {
		digits++;
		power *= 10;
	}
	end = p + digits;
	p = end;
	while (num >= 100) {
		unsigned int pair = num % 100;

		num /= 100;
		p -= 2;
		memcpy(p, &tap_digit_pairs[2 * pair], 2);
	}
	if (num >= 10)
		memcpy(p - 2, &tap_digit_pairs[2 * num], 2);
	else
		p[-1] = '0' + num;
	return end;
}

static __always_inline void tap_print_commit(struct tap_context *c, char *end)
{
	c->print.len = end - (c->print.text ?: c->print.buf);
}

/* sprintf into dst (MAXSTRINGLEN bytes). */
static const char *tap_sprint_format(struct tap_context *c, char *dst,
				     const struct tap_fmt_spec *specs, int n,
				     const union tap_fmt_arg *args, const char *fault_location)
{
	struct tap_fmt_out o = { dst, 0, MAXSTRINGLEN - 1 };

	dst[0] = '\0';
	if (!tap_fmt_check_dumps(c, specs, n, args))
		return dst;
	if (!tap_fmt_pieces(c, &o, specs, n, args, fault_location)) {
		dst[0] = '\0';
		return dst;
	}
	dst[min(o.pos, o.last)] = '\0';
	return dst;
}

#endif
