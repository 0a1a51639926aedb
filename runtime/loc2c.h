/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The memory macros guru-mode embedded C may use as it uses stap's runtime: kread(ptr) and
 * uread(ptr) read *ptr (a kernel or a user address) with its type, kwrite(ptr, v) and
 * uwrite(ptr, v) store v there, all without a fault: a bad address sets stap's error ("read
 * fault [man error::fault] at 0x...", "write fault ...") and jumps to the code's
 * deref_fault label, which the translator places at the end of every embedded-C function
 * and around every %{ %} of a probe; kderef_buffer(dst, addr, n) copies n bytes.
 * CATCH_DEREF_FAULT() marks where stap's older runtimes wanted that label; it does nothing
 * here, as in stap 4.8.
 */
#ifndef TAP_LOC2C_H
#define TAP_LOC2C_H

#include <linux/uaccess.h>

#include "context.h"
#include "kread.h"
#include "print.h"

#define DEREF_FAULT(addr) ({						\
	tap_embedded_error(c, "read fault [man error::fault] at 0x%lx",	\
			   (long)(uintptr_t)(addr));			\
	goto deref_fault;						\
})

#define STORE_DEREF_FAULT(addr) ({					\
	tap_embedded_error(c, "write fault [man error::fault] at 0x%lx",	\
			   (long)(uintptr_t)(addr));			\
	goto deref_fault;						\
})

#define CATCH_DEREF_FAULT() ({ 0; })

/*
 * stap's results of its kernel feature tests that guru code of its examples tests, for the
 * kernels tapster builds for (5.x and newer): struct file has f_path, <linux/uidgid.h>
 * exists.
 */
#define STAPCONF_DPATH_PATH 1
#define STAPCONF_LINUX_UIDGID_H 1

#define tap_loc2c_read(ptr, copy) ({					\
	typeof(*(ptr)) tap_loc2c_v;					\
	if (copy(&tap_loc2c_v, (ptr), sizeof(tap_loc2c_v)))		\
		DEREF_FAULT(ptr);					\
	tap_loc2c_v;							\
})

#define tap_loc2c_write(ptr, value, copy) ({				\
	typeof(*(ptr)) tap_loc2c_v = (value);				\
	if (copy((ptr), &tap_loc2c_v, sizeof(tap_loc2c_v)))		\
		STORE_DEREF_FAULT(ptr);					\
})

/* copy_to_kernel_nofault() for a module (the kernel does not export it): 0, or -EFAULT. */
static inline long tap_loc2c_kcopy(void *dst, const void *src, size_t size)
{
	u64 value = 0;
	size_t i;

	if (size == 1 || size == 2 || size == 4 || size == 8) {
		memcpy(&value, src, size);
		return tap_kpoke((unsigned long)dst, size, value) ? 0 : -EFAULT;
	}
	for (i = 0; i < size; i++)
		if (!tap_kpoke((unsigned long)dst + i, 1, ((const u8 *)src)[i]))
			return -EFAULT;
	return 0;
}

/* kderef_buffer(dst, addr, n): n bytes at the kernel address addr into dst (NULL: only
 * checked), as stap's. */
static inline long tap_loc2c_kbuffer(void *dst, unsigned long addr, size_t n)
{
	u8 byte;
	size_t i;

	if (dst)
		return copy_from_kernel_nofault(dst, (const void *)addr, n);
	for (i = 0; i < n; i++)
		if (copy_from_kernel_nofault(&byte, (const void *)(addr + i), 1))
			return -EFAULT;
	return 0;
}

#define kderef_buffer(dst, addr, maxbytes) ({				\
	if (tap_loc2c_kbuffer((dst), (unsigned long)(uintptr_t)(addr), (maxbytes)))	\
		DEREF_FAULT(addr);					\
})

#define kread(ptr) tap_loc2c_read((ptr), copy_from_kernel_nofault)
#define uread(ptr) tap_loc2c_read((ptr), copy_from_user_nofault)
#define kwrite(ptr, value) tap_loc2c_write((ptr), (value), tap_loc2c_kcopy)
#define uwrite(ptr, value) tap_loc2c_write((ptr), (value), copy_to_user_nofault)

#endif /* TAP_LOC2C_H */
