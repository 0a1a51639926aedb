// SPDX-License-Identifier: GPL-2.0-or-later
/* The workload of alias_syscall_ia32: a 32-bit program without a C library (built with
 * alias_syscall_ia32.cflags) making, through int $0x80 with their ia32 numbers, calls that
 * reach the kernel at the __ia32_sys_NAME namesake of their x86_64 function (read 3, write
 * 4, chdir 12, kill 37, dup 41, mkdir 39, exit 1), at its compat function
 * __ia32_compat_sys_NAME (open 5, stat 106, truncate 92, wait4 114, getdents 141, fcntl64
 * 221), and mmap2 (192) at __ia32_sys_mmap_pgoff, its offset in pages. Fixed arguments,
 * bad descriptors and paths: the same argstr and results on every kernel. */

#include "ia32_call.h"

static const char path[] = "/nonexistent";
static const char subdir[] = "/nonexistent/d";
static const char data[] = "abc";

void _start(void)
{
	/* The probes read user memory without faulting a page in: touch the pages first
	 * (through volatile pointers: the compiler folds a plain read of a constant). */
	(void)*(volatile const char *)path;
	(void)*(volatile const char *)data;
	call(3, 0x7fff, 0x10, 3, 0, 0, 0);		/* read: EBADF */
	call(4, 0x7fff, (long)data, 3, 0, 0, 0);	/* write "abc": EBADF */
	call(12, (long)path, 0, 0, 0, 0, 0);		/* chdir: ENOENT */
	call(37, 0x7ffffff0, 0, 0, 0, 0, 0);		/* kill(pid, 0): ESRCH */
	call(41, 0x7fff, 0, 0, 0, 0, 0);		/* dup: EBADF */
	call(39, (long)subdir, 0755, 0, 0, 0, 0);	/* mkdir: ENOENT */
	call(5, (long)path, 01, 0, 0, 0, 0);		/* open O_WRONLY: ENOENT */
	call(106, (long)path, 0x10, 0, 0, 0, 0);	/* stat: ENOENT */
	call(92, (long)path, -1, 0, 0, 0, 0);		/* truncate to -1: EINVAL */
	call(114, -1, 0, 1, 0, 0, 0);			/* wait4(-1, WNOHANG): ECHILD */
	call(141, 0x7fff, 0x10, 64, 0, 0, 0);		/* getdents: EBADF */
	call(221, 0x7fff, 1, 0, 0, 0, 0);		/* fcntl64 F_GETFD: EBADF */
	call(192, 0, 4096, 1, 2, 0x7fff, 3);		/* mmap2 at page 3: EBADF */
	call(1, 0, 0, 0, 0, 0, 0);
	for (;;)
		;
}
