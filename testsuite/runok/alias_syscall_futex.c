// SPDX-License-Identifier: GPL-2.0-or-later
/* The workload of alias_syscall_futex: futex calls of each operation stap's argstr tells
 * apart, on two words of a page mapped at a fixed address (0x10000000, 0x10000004) so that
 * argstr is the same on every run; the waits find another value than they expect (EAGAIN). */
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long futex(unsigned int *uaddr, long op, long val, long utime, unsigned int *uaddr2,
		  long val3)
{
	return syscall(SYS_futex, uaddr, op, val, utime, uaddr2, val3);
}

int main(void)
{
	struct timespec ts = { 1, 2000 };
	unsigned int *w = mmap((void *)0x10000000, 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	long t = (long)&ts;

	if (w == MAP_FAILED)
		return 1;
	w[0] = 1;
	futex(w, FUTEX_WAIT, 5, t, 0, 0);
	futex(w, FUTEX_WAIT_PRIVATE, 5, 0, 0, 0);
	futex(w, FUTEX_WAKE, 1, 0, 0, 0);
	futex(w, FUTEX_WAKE_PRIVATE, 1, 0, 0, 0);
	futex(w, FUTEX_WAIT_BITSET, 5, t, 0, 0xffffffff);
	futex(w, FUTEX_WAKE_BITSET, 1, 0, 0, 3);
	futex(w, FUTEX_REQUEUE, 1, 2, w + 1, 0);
	futex(w, FUTEX_CMP_REQUEUE, 1, 2, w + 1, 7);
	futex(w, FUTEX_WAKE_OP, 1, 1, w + 1, FUTEX_OP(FUTEX_OP_ADD, 1, FUTEX_OP_CMP_GT, -1));
	futex(w, FUTEX_WAIT_BITSET_PRIVATE | FUTEX_CLOCK_REALTIME, 5, t, 0, 0xffffffff);
	return 0;
}
