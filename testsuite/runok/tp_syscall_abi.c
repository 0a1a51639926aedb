// SPDX-License-Identifier: GPL-2.0-or-later
/* The workload of tp_syscall_abi (built as a 64-bit program) and tp_syscall_abi32 (the same
 * file, built as a 32-bit one by its .cflags): without a C library, calls by their numbers
 * (syscall on x86_64, int $0x80 with the ia32 numbers): umask, read and close of a bad
 * descriptor, openat of a file that is not there, kill with signal 0 to its process group,
 * access, and getppid. */

#ifdef __i386__
enum { NR_READ = 3, NR_CLOSE = 6, NR_ACCESS = 33, NR_KILL = 37, NR_UMASK = 60,
       NR_GETPPID = 64, NR_EXIT_GROUP = 252, NR_OPENAT = 295 };

#include "ia32_call.h"
#else
enum { NR_READ = 0, NR_CLOSE = 3, NR_ACCESS = 21, NR_KILL = 62, NR_UMASK = 95,
       NR_GETPPID = 110, NR_EXIT_GROUP = 231, NR_OPENAT = 257 };

static long call(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return ret;
}
#endif

static const char path[] = "/nonexistent";

void _start(void)
{
	(void)*(volatile const char *)path;
	call(NR_UMASK, 022, 0, 0);
	call(NR_READ, -1, 0, 0);
	call(NR_CLOSE, -1, 0, 0);
	call(NR_OPENAT, -100, (long)path, 0);
	call(NR_KILL, 0, 0, 0);
	call(NR_ACCESS, (long)path, 4, 0);
	call(NR_GETPPID, 0, 0, 0);
	call(NR_EXIT_GROUP, 0, 0, 0);
	for (;;)
		;
}
