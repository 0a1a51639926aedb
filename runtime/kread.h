/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fault-safe reads of kernel memory for $target expressions and @cast: a bad address sets
 * stap's "read fault [man error::fault] at 0x..." error and reads as 0, never an oops. After an
 * error, reads do nothing (the statement ends at its check). Guru mode's writes (`$p->f = v`,
 * `$param = v`, `$return = v`) are beside them: tap_kwrite*, tap_set_arg.
 */
#ifndef TAP_KREAD_H
#define TAP_KREAD_H

#include <linux/ptrace.h>
#include <linux/uaccess.h>

#include "context.h"
#include "values.h"

static noinline void tap_kread_fault(struct tap_context *c, unsigned long addr,
				     const char *location)
{
	snprintf(c->error_buffer, sizeof(c->error_buffer),
		 "read fault [man error::fault] at 0x%lx", addr);
	tap_set_error(c, c->error_buffer, location);
}

/* `size` bytes (1..8) at `addr`, zero-extended. */
static inline u64 tap_kread(struct tap_context *c, unsigned long addr, int size,
			    const char *location)
{
	u64 value = 0;

	if (unlikely(c->last_error))
		return 0;
	if (unlikely(copy_from_kernel_nofault(&value, (const void *)addr, size))) {
		tap_kread_fault(c, addr, location);
		return 0;
	}
	return value;
}

/* `size` bytes (1..8) at the current process's `addr`, zero-extended (an SDT marker's
 * operand in memory, @cast of a user header's type). */
static inline u64 tap_uread(struct tap_context *c, unsigned long addr, int size,
			    const char *location)
{
	u64 value = 0;

	if (unlikely(c->last_error))
		return 0;
	if (unlikely(copy_from_user_nofault(&value, (const void __user *)addr, size))) {
		tap_kread_fault(c, addr, location);
		return 0;
	}
	return value;
}

/* `value`, read from `size` bytes, sign-extended. */
static inline int64_t tap_sign_extend(u64 value, int size)
{
	int shift = 64 - 8 * size;

	return (int64_t)(value << shift) >> shift;
}

/* The bitfield of `bits` bits starting `bit` bits into `value`. */
static inline int64_t tap_bitfield(u64 value, int bit, int bits, bool is_signed)
{
	int shift = 64 - bits;

	value = (value >> bit) << shift;
	return is_signed ? (int64_t)value >> shift : (int64_t)(value >> shift);
}

/* The bytes a bitfield of `bits` bits starting `bit` bits after an address spans. */
#define TAP_BITFIELD_SIZE(bit, bits) (((bit) + (bits) + 7) / 8)

static inline int64_t tap_kread_signed(struct tap_context *c, unsigned long addr, int size,
				       const char *location)
{
	return tap_sign_extend(tap_kread(c, addr, size, location), size);
}

/* A bitfield of `bits` bits starting `bit` bits after `addr`. */
static inline int64_t tap_kread_bits(struct tap_context *c, unsigned long addr, int bit,
				     int bits, bool is_signed, const char *location)
{
	return tap_bitfield(tap_kread(c, addr, TAP_BITFIELD_SIZE(bit, bits), location), bit,
			    bits, is_signed);
}

/* The same in the current process's memory (@cast of a user header's type). */
static inline int64_t tap_uread_signed(struct tap_context *c, unsigned long addr, int size,
				       const char *location)
{
	return tap_sign_extend(tap_uread(c, addr, size, location), size);
}

static inline int64_t tap_uread_bits(struct tap_context *c, unsigned long addr, int bit,
				     int bits, bool is_signed, const char *location)
{
	return tap_bitfield(tap_uread(c, addr, TAP_BITFIELD_SIZE(bit, bits), location), bit,
			    bits, is_signed);
}

static noinline void tap_kwrite_fault(struct tap_context *c, unsigned long addr,
				      const char *location)
{
	snprintf(c->error_buffer, sizeof(c->error_buffer),
		 "write fault [man error::fault] at 0x%lx", addr);
	tap_set_error(c, c->error_buffer, location);
}

/* Stores the low `size` bytes (1, 2, 4 or 8) of `value` at the kernel address `addr`; false
 * when the address is no kernel one or the store faults (a read-only page). */
static inline bool tap_kpoke(unsigned long addr, int size, u64 value)
{
	u8 v8 = value;
	u16 v16 = value;
	u32 v32 = value;

	if (addr < TASK_SIZE_MAX)
		return false;
	pagefault_disable();
	switch (size) {
	case 1:
		__put_kernel_nofault((void *)addr, &v8, u8, fault);
		break;
	case 2:
		__put_kernel_nofault((void *)addr, &v16, u16, fault);
		break;
	case 4:
		__put_kernel_nofault((void *)addr, &v32, u32, fault);
		break;
	default:
		__put_kernel_nofault((void *)addr, &value, u64, fault);
		break;
	}
	pagefault_enable();
	return true;
fault:
	pagefault_enable();
	return false;
}

/* `size` bytes (1, 2, 4 or 8) of `value` at `addr`: stap's "write fault [man error::fault] at
 * 0x..." error when it can't. */
static inline void tap_kwrite(struct tap_context *c, unsigned long addr, int size, u64 value,
			      const char *location)
{
	if (unlikely(c->last_error))
		return;
	if (unlikely(!tap_kpoke(addr, size, value)))
		tap_kwrite_fault(c, addr, location);
}

/* The same at the current process's `addr` (@cast of a user header's type in a process
 * probe): the low `size` bytes of `value`, x86 being little-endian. */
static inline void tap_uwrite(struct tap_context *c, unsigned long addr, int size, u64 value,
			      const char *location)
{
	if (unlikely(c->last_error))
		return;
	if (unlikely(copy_to_user_nofault((void __user *)addr, &value, size)))
		tap_kwrite_fault(c, addr, location);
}

/* A bitfield of `bits` bits starting `bit` bits after `addr`, in kernel memory or, with
 * `user`, the current process's: the bytes that hold it read, the field's bits replaced,
 * written back. */
static inline void tap_write_bits(struct tap_context *c, unsigned long addr, int bit, int bits,
				  u64 value, const char *location, bool user)
{
	int size = (bit + bits + 7) / 8;
	u64 mask = (bits == 64 ? ~0ULL : (1ULL << bits) - 1) << bit;
	u64 word = user ? tap_uread(c, addr, size, location) :
			  tap_kread(c, addr, size, location);
	int step = size == 1 || size == 2 || size == 4 || size == 8 ? size : 1;

	if (unlikely(c->last_error))
		return;
	word = (word & ~mask) | ((value << bit) & mask);
	/* 3, 5, 6 or 7 bytes: each of them, no byte past the field's touched. */
	for (int i = 0; i < size && !c->last_error; i += step) {
		if (user)
			tap_uwrite(c, addr + i, step, word >> (8 * i), location);
		else
			tap_kwrite(c, addr + i, step, word >> (8 * i), location);
	}
}

static inline void tap_kwrite_bits(struct tap_context *c, unsigned long addr, int bit, int bits,
				   u64 value, const char *location)
{
	tap_write_bits(c, addr, bit, bits, value, location, false);
}

static inline void tap_uwrite_bits(struct tap_context *c, unsigned long addr, int bit, int bits,
				   u64 value, const char *location)
{
	tap_write_bits(c, addr, bit, bits, value, location, true);
}

/*
 * The NUL-terminated string at `addr` into `dst` (at most `size` bytes, NUL included), from
 * kernel memory or, with `user`, the current process's: read a page's part at a time, so
 * that a string ending before an unmapped page reads. Returns its length, or -EFAULT.
 */
static long tap_read_string(char *dst, unsigned long addr, long size, bool user)
{
	long len = 0;

	while (len < size - 1) {
		long chunk = PAGE_SIZE - ((addr + len) & ~PAGE_MASK);
		char *nul;

		if (chunk > size - 1 - len)
			chunk = size - 1 - len;
		if (user ? copy_from_user_nofault(dst + len, (const void __user *)(addr + len),
						  chunk) :
			   copy_from_kernel_nofault(dst + len, (const void *)(addr + len), chunk)) {
			dst[0] = '\0';
			return -EFAULT;
		}
		nul = memchr(dst + len, '\0', chunk);
		if (nul)
			return nul - dst;
		len += chunk;
	}
	dst[len] = '\0';
	return len;
}

/* The function's argument N (from 0) at its entry, by the x86_64 calling convention; in a
 * tracepoint probe, the tracepoint's argument N. */
static inline u64 tap_arg(struct tap_context *c, int n, const char *location)
{
	struct pt_regs *regs = c->regs;

	if (c->trace_args)
		return c->trace_args[n];
	if (!regs)
		return 0;
	switch (n) {
	case 0: return regs->di;
	case 1: return regs->si;
	case 2: return regs->dx;
	case 3: return regs->cx;
	case 4: return regs->r8;
	case 5: return regs->r9;
	default: return tap_kread(c, regs->sp + 8 * (n - 5), 8, location);
	}
}

/* Argument word N (from 0) of the function at its entry becomes `value`: its register in the
 * registers the function goes on with, or its stack slot. */
static inline void tap_set_arg(struct tap_context *c, int n, u64 value, const char *location)
{
	struct pt_regs *regs = c->regs;

	if (!regs)
		return;
	switch (n) {
	case 0: regs->di = value; break;
	case 1: regs->si = value; break;
	case 2: regs->dx = value; break;
	case 3: regs->cx = value; break;
	case 4: regs->r8 = value; break;
	case 5: regs->r9 = value; break;
	default:
		/* Its stack slot, in the process's memory for a uprobe. */
		if (user_mode(regs))
			tap_uwrite(c, regs->sp + 8 * (n - 5), 8, value, location);
		else
			tap_kwrite(c, regs->sp + 8 * (n - 5), 8, value, location);
		break;
	}
}

#endif
