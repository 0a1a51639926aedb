// SPDX-License-Identifier: GPL-2.0-or-later
/* The workload of alias_syscall_compat: a 32-bit program without a C library (built with
 * alias_syscall_compat.cflags) making, through int $0x80 with their ia32 numbers, the
 * calls stap reaches through its tp_syscall compat gate (nanosleep 162, utime 30, utimes
 * 271, futex 240, pwrite64 181, ftruncate64 194, fadvise64_64 272, _sysctl 149), the IPC
 * calls of ipc (117), the socket calls of socketcall (102), sendmmsg (345) and statfs64
 * (268), then exit (1). Fixed arguments, bad descriptors and ids: the same argstr and results on every
 * kernel. */

#include "ia32_call.h"

static const char path[] = "/nonexistent";
static const int req[2] = { 0, 1000 };			/* old_timespec32: 1 us */
static const int times[2] = { 1, 2 };			/* old_utimbuf32 */
static const int tvs[4] = { 1, 2, 3, 4 };		/* two old_timeval32 */
static int word;
static const char data[] = "abc";
/* socketcall's argument words: sendmsg (fd, msg, flags), send (fd, buf, len, flags),
 * sendmmsg (fd, msgvec, vlen, flags). */
static unsigned int msg_args[3] = { 0x7fff, 0x10, 0x40 };
static unsigned int send_args[4] = { 0x7fff, 0, 3, 0 };
static unsigned int mmsg_args[4] = { 0x7fff, 0x10, 1, 0x40 };

void _start(void)
{
	/* The probes read user memory without faulting a page in: touch the pages first
	 * (through volatile pointers: the compiler folds a plain read of a constant). */
	(void)*(volatile const int *)req;
	(void)*(volatile const char *)path;
	*(volatile int *)&word = 0;
	send_args[1] = (unsigned int)(unsigned long)data;
	call(162, (long)req, 0, 0, 0, 0, 0);
	call(30, (long)path, (long)times, 0, 0, 0, 0);
	call(271, (long)path, (long)tvs, 0, 0, 0, 0);
	call(240, (long)&word, 1, 1, 0, 0, 0);			/* FUTEX_WAKE 1: 0 woken */
	call(181, 0x7fff, (long)data, 3, 5, 0, 0);		/* pwrite64 at 5: EBADF */
	call(194, 0x7fff, 7, 1, 0, 0, 0);			/* ftruncate64 to 1<<32|7 */
	call(149, 0, 0, 0, 0, 0, 0);				/* _sysctl: ENOSYS */
	call(117, 14, -1, 2, 0, 0x20, 0);			/* msgctl(-1, IPC_STAT) */
	call(117, 24, -1, 0, 0, 0x30, 0);			/* shmctl(-1, IPC_RMID) */
	call(117, 2, 1234, 1, 0640, 0, 0);			/* semget: no such set */
	call(102, 16, (long)msg_args, 0, 0, 0, 0);		/* sendmsg(0x7fff, ...) */
	call(102, 9, (long)send_args, 0, 0, 0, 0);		/* send(0x7fff, "abc") */
	call(102, 20, (long)mmsg_args, 0, 0, 0, 0);		/* sendmmsg(0x7fff, ...) */
	call(345, 0x7fff, 0x10, 1, 0x40, 0, 0);			/* the same, itself */
	call(268, (long)path, 84, 0x10, 0, 0, 0);		/* compat_statfs64's size */
	call(1, 0, 0, 0, 0, 0, 0);
	for (;;)
		;
}
