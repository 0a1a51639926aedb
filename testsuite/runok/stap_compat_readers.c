// SPDX-License-Identifier: GPL-2.0-or-later
/* The workload of stap_compat_readers: a 32-bit task's structures (compat_siginfo,
 * compat_stack_t, old_itimerspec32, the ipc(2) msgrcv kludge) and their native twins with
 * the same values, laid out in a page mapped at 0x10000000 (see the .stp for where), then
 * one getppid() call for the script to read them from. */
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

struct compat_siginfo_head { int32_t signo, err, code; };

int main(void)
{
	char *p = mmap((void *)0x10000000, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	siginfo_t *si;
	int32_t *c;
	stack_t *st;

	if (p == MAP_FAILED)
		return 1;
	/* 0x000: compat SIGCHLD (pid 5, uid 6, status 7); 0x200 its native twin. */
	c = (int32_t *)p;
	c[0] = SIGCHLD, c[1] = 0, c[2] = CLD_EXITED, c[3] = 5, c[4] = 6, c[5] = 7;
	si = (siginfo_t *)(p + 0x200);
	si->si_signo = SIGCHLD, si->si_code = CLD_EXITED, si->si_pid = 5, si->si_uid = 6;
	si->si_status = 7;
	/* 0x080: compat SIGSEGV at 0x1234; 0x280 native. */
	c = (int32_t *)(p + 0x80);
	c[0] = SIGSEGV, c[1] = 0, c[2] = SEGV_MAPERR, c[3] = 0x1234;
	si = (siginfo_t *)(p + 0x280);
	si->si_signo = SIGSEGV, si->si_code = SEGV_MAPERR, si->si_addr = (void *)0x1234;
	/* 0x100: compat SI_QUEUE from pid 9; 0x300 native. */
	c = (int32_t *)(p + 0x100);
	c[0] = SIGUSR1, c[1] = 0, c[2] = SI_QUEUE, c[3] = 9, c[4] = 0;
	si = (siginfo_t *)(p + 0x300);
	si->si_signo = SIGUSR1, si->si_code = SI_QUEUE, si->si_pid = 9, si->si_uid = 0;
	/* 0x400: compat_stack_t; 0x420 native. */
	c = (int32_t *)(p + 0x400);
	c[0] = 0x4000, c[1] = SS_DISABLE, c[2] = 8192;
	st = (stack_t *)(p + 0x420);
	st->ss_sp = (void *)0x4000, st->ss_flags = SS_DISABLE, st->ss_size = 8192;
	/* 0x480: old_itimerspec32 {1.000500, 2.0}; 0x4a0 native. */
	c = (int32_t *)(p + 0x480);
	c[0] = 1, c[1] = 500, c[2] = 2, c[3] = 0;
	((int64_t *)(p + 0x4a0))[0] = 1, ((int64_t *)(p + 0x4a0))[1] = 500;
	((int64_t *)(p + 0x4a0))[2] = 2, ((int64_t *)(p + 0x4a0))[3] = 0;
	/* 0x500: ipc(2)'s msgrcv kludge {msgp 0x5000, msgtyp -3}. */
	c = (int32_t *)(p + 0x500);
	c[0] = 0x5000, c[1] = -3;
	syscall(SYS_getppid);
	return 0;
}
