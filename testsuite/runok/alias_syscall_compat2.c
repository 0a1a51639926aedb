// SPDX-License-Identifier: GPL-2.0-or-later
/* The workload of alias_syscall_compat2: a 32-bit program without a C library (built with
 * alias_syscall_compat2.cflags) making, through int $0x80 with their ia32 numbers, the calls
 * whose compat function (__ia32_compat_sys_NAME) takes a 64-bit value in two registers or a
 * struct of the compat layout: fanotify_mark 339 (mask in two words), mq_open 277 (a 16-bit
 * mode), rt_sigqueueinfo 178 and rt_tgsigqueueinfo 335 (compat_siginfo), setrlimit 75
 * (compat_rlimit), sigaltstack 186 (compat_stack_t), sysinfo 116 (compat_sysinfo), times 43
 * (compat_tms), preadv 333, pwritev 334, preadv2 378 and pwritev2 379 (the offset in
 * pos_l and pos_h), stat 106, lstat 107, fstat 108 and uname 122 (their tp_syscall aliases
 * take a 32-bit task's calls of the new layout by these numbers); then the calls both ABIs
 * make under one name whose structs a 32-bit task lays out otherwise (old_timespec32,
 * old_timeval32, old_itimerspec32, a 32-bit iovec; sockaddr alike), each failing at once:
 * nanosleep 162, clock_nanosleep 267, utimes 271, _newselect 142, pselect6 308, ppoll 309
 * (times out of range: EINVAL; a missing file), futex 240 (FUTEX_WAIT on a word of another
 * value: EAGAIN; and futex_time64 422, whose __kernel_timespec is that of x86_64, at
 * syscall.futex's __ia32_sys_futex), clock_gettime 265 (a bad address), clock_settime 264 (of CLOCK_MONOTONIC),
 * io_getevents 247, rt_sigtimedwait 177, timer_settime 260, timerfd_settime 325, readv 145,
 * writev 146, bind 361, connect 362, accept4 364, sendto 369 and recvfrom 371 (bad
 * contexts, timers and descriptors); then exit (1). Fixed arguments, bad descriptors, names
 * and ids: the same argstr and results on every kernel (but times's clock, which the script
 * hides). */
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
/* The 32-bit structs: old_timespec32 {sec, nsec}, old_timeval32 {sec, usec} (two for
 * utimes), old_itimerspec32, a compat_iovec {base, len}, a sockaddr_in of 127.0.0.1:80. */
static const int ts_bad[2] = { 3, 1000000000 };		/* nsec out of range */
static const int ts_neg[2] = { -1, 0 };
static const int ts_ok[2] = { 5, 6 };
static const int tv_pair[4] = { 1, 2, 3, 4 };
static const int its[4] = { 1, 2, 3, 4 };
static const unsigned int iov[2] = { 0x10, 1 };
static const unsigned char sin[16] = { 2, 0, 0, 80, 127, 0, 0, 1 };
static const char msg[] = "abc";
static const int futex_word = 1;
static const int ts64[4] = { 5, 0, 6, 0 };		/* __kernel_timespec 5.000000006 */
static const unsigned int sigset[2];

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
	(void)*(volatile const int *)ts_bad;
	(void)*(volatile const int *)ts_neg;
	(void)*(volatile const int *)ts_ok;
	(void)*(volatile const int *)tv_pair;
	(void)*(volatile const int *)its;
	(void)*(volatile const unsigned int *)iov;
	(void)*(volatile const unsigned char *)sin;
	(void)*(volatile const char *)msg;
	(void)*(volatile const int *)&futex_word;
	(void)*(volatile const unsigned int *)sigset;
	(void)*(volatile const int *)ts64;
	call(162, (long)ts_bad, 0);
	call(267, 1, 0, (long)ts_bad, 0);			/* CLOCK_MONOTONIC */
	call(271, (long)path, (long)tv_pair);
	call(142, 0, 0, 0, 0, (long)ts_neg);
	call(308, 0, 0, 0, 0, (long)ts_neg, 0);
	call(309, 0, 0, (long)ts_neg, 0, 8);
	call(240, (long)&futex_word, 0, 0, (long)ts_ok);	/* FUTEX_WAIT, val 0 */
	call(422, (long)&futex_word, 0, 0, (long)ts64);	/* futex_time64 */
	call(265, 1, 0x10);
	call(264, 1, (long)ts_ok);
	call(247, 0, 1, 1, 0, (long)ts_ok);
	call(177, (long)sigset, 0, (long)ts_neg, 8);
	call(260, 0x7fff, 0, (long)its, 0);
	call(325, 0x7fff, 0, (long)its, 0);
	call(145, 0x7fff, (long)iov, 1);
	call(146, 0x7fff, (long)iov, 1);
	call(361, 0x7fff, (long)sin, 16);
	call(362, 0x7fff, (long)sin, 16);
	call(364, 0x7fff, 0, 0, 0);
	call(369, 0x7fff, (long)msg, 3, 0, (long)sin, 16);
	call(371, 0x7fff, (long)buf, 3, 0, 0, 0);
	call(1, 0);
	for (;;)
		;
}
