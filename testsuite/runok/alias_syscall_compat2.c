// SPDX-License-Identifier: GPL-2.0-or-later
/* The workload of alias_syscall_compat2: a 32-bit program without a C library (built with
 * alias_syscall_compat2.cflags) making, through int $0x80 with their ia32 numbers, the calls
 * whose compat function (__ia32_compat_sys_NAME) takes a 64-bit value in two registers or a
 * struct of the compat layout: fanotify_mark 339 (mask in two words), mq_open 277 (a 16-bit
 * mode), rt_sigqueueinfo 178 and rt_tgsigqueueinfo 335 (compat_siginfo), setrlimit 75
 * (compat_rlimit), sigaltstack 186 (compat_stack_t), sysinfo 116 (compat_sysinfo), times 43
 * (compat_tms), preadv 333, pwritev 334, preadv2 378 and pwritev2 379 (the offset in
 * pos_l and pos_h), stat 106, lstat 107, fstat 108 and uname 122 (their tp_syscall aliases
 * take a 32-bit task's calls of the new layout by these numbers), then exit (1). Fixed arguments, bad descriptors, names and ids: the
 * same argstr and results on every kernel (but times's clock, which the script hides). */
#include "ia32_call.h"

static const char path[] = "/nonexistent";
static const char mq_name[] = "a/b";			/* no such queue name: EACCES */
/* compat_siginfo: signo SIGUSR1, errno 0, code SI_USER, then pid and uid at 12 and 16 (16
 * and 20 in the x86_64 layout). */
static const int siginfo[32] = { 10, 0, 0, 1234, 5678 };
static const unsigned int rlim[2] = { 0xffffffff, 8 };	/* cur above max: EINVAL */
static const unsigned int stack[3] = { 0x1000, 0, 16 };	/* too small: ENOMEM */
static unsigned int sysinfo_buf[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
static int tms_buf[4] = { 1, 2, 3, 4 };
static char buf[512];					/* a stat or a new_utsname */

void _start(void)
{
	/* The probes read user memory without faulting a page in: touch the pages first
	 * (through volatile pointers: the compiler folds a plain read of a constant). */
	(void)*(volatile const char *)path;
	(void)*(volatile const int *)siginfo;
	*(volatile unsigned int *)sysinfo_buf = 1;
	call(339, 0x7fff, 1, 0x20, 0, -100, (long)path);	/* FAN_MARK_ADD, FAN_OPEN */
	call(277, (long)mq_name, 0100, 0200644, 0);		/* O_CREAT, mode 0644 */
	call(178, 0x7fff, 10, (long)siginfo);			/* SI_USER to another: EPERM */
	call(335, 0x7fff, 0x7fff, 10, (long)siginfo);
	call(75, 7, (long)rlim);				/* RLIMIT_NOFILE */
	call(186, (long)stack, 0);
	call(116, (long)sysinfo_buf);
	call(43, (long)tms_buf);
	call(333, 0x7fff, 0x10, 1, 5, 1);			/* at 1<<32|5: EBADF */
	call(334, 0x7fff, 0x10, 1, 6, 2);
	call(378, 0x7fff, 0x10, 1, 7, 3, 1);			/* RWF_HIPRI */
	call(379, 0x7fff, 0x10, 1, 8, 4, 4);			/* RWF_SYNC */
	call(106, (long)path, (long)buf);
	call(107, (long)path, (long)buf);
	call(108, 0x7fff, (long)buf);
	call(122, (long)buf);
	call(1, 0);
	for (;;)
		;
}
