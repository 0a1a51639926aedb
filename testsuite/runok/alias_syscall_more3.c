// SPDX-License-Identifier: GPL-2.0-or-later
/* The workload of alias_syscall_more3: prctl, adjtimex and clock_adjtime (struct timex),
 * rt_sigqueueinfo, rt_tgsigqueueinfo and rt_sigtimedwait (siginfo), seccomp, the System V
 * shared memory calls and semctl, set_thread_area, sysfs, timer_settime,
 * timerfd_settime, signalfd (both entry points), keyctl and quotactl, made directly
 * (syscall(2)) with arguments whose argstr and result are the same on every run and
 * kernel: a bad id (99, or key 99999999), pid (999999) or address (0x10) where a call
 * would otherwise depend on the machine. It runs in an IPC namespace of its own, so that
 * its shared memory segment's id is the first one. */
#define _GNU_SOURCE
#include <linux/prctl.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

#define BAD ((void *)0x10)

int main(void)
{
	struct { unsigned int entry_number, base_addr, limit, flags; } desc = { 5, 0x1000, 7, 0x41 };
	struct itimerspec its = { { 1, 5 }, { 2, 600000 } };
	struct timespec zero = { 0, 0 };
	unsigned long set = 1UL << (SIGUSR1 - 1);
	struct timex tx;
	siginfo_t si;
	long id;

	syscall(SYS_unshare, CLONE_NEWIPC);
	syscall(SYS_chdir, "/tmp");
	syscall(SYS_prctl, PR_GET_DUMPABLE, 0, 0, 0, 0);
	syscall(SYS_prctl, PR_SET_PDEATHSIG, 0, 0, 0, 0);
	syscall(SYS_prctl, PR_CAPBSET_READ, 21, 0, 0, 0);
	syscall(SYS_prctl, PR_SET_DUMPABLE, 1, 0, 0, 0);
	syscall(SYS_prctl, 0x7777, 1, 2, 3, 4);
	syscall(SYS_adjtimex, BAD);
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_OFFSET | ADJ_TICK;
	tx.tick = 10000;
	tx.status = 64;
	syscall(SYS_clock_adjtime, 77, &tx);
	memset(&si, 0, sizeof(si));
	si.si_signo = SIGUSR1;
	si.si_code = SI_QUEUE;
	si.si_pid = 1;
	syscall(SYS_rt_sigqueueinfo, 999999, SIGUSR1, &si);
	si.si_signo = SIGUSR2;
	si.si_code = SI_TIMER;
	si.si_timerid = 0x12;
	si.si_overrun = 3;
	syscall(SYS_rt_tgsigqueueinfo, 999999, 999999, SIGUSR2, &si);
	syscall(SYS_rt_tgsigqueueinfo, 999999, 999999, SIGUSR2, BAD);
	syscall(SYS_rt_sigtimedwait, &set, BAD, &zero, 8);
	syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, NULL);
	syscall(SYS_seccomp, 99, 0, NULL);
	id = syscall(SYS_shmget, IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	syscall(SYS_shmget, 1234, 4096, 0640);
	syscall(SYS_shmat, 99, NULL, SHM_RDONLY | SHM_RND);
	syscall(SYS_shmctl, id, IPC_RMID, NULL);
	syscall(SYS_semctl, 99, 0, 0x100 | 12, BAD);
	syscall(SYS_semctl, 99, 2, 77, 0);
	syscall(SYS_set_thread_area, &desc);
	syscall(SYS_sysfs, 1, "nosuchfs", 0);
	syscall(SYS_sysfs, 2, 9999, BAD);
	syscall(SYS_sysfs, 7, 1, 2);
	syscall(SYS_timer_settime, 99, 0, &its, NULL);
	syscall(SYS_timerfd_settime, 99, 1, &its, NULL);
	syscall(SYS_signalfd, 99, BAD, 8);
	syscall(SYS_signalfd4, 99, BAD, 8, 04000 | 02000000);
	syscall(SYS_keyctl, 11, 99999999, BAD, 16, 0);
	syscall(SYS_keyctl, 5, 99999999, 0x3f010000, 0, 0);
	syscall(SYS_keyctl, 99, 1, 2, 3, 4);
	syscall(SYS_quotactl, 0x7777 << 8, NULL, 0, NULL);
	syscall(SYS_quotactl, 0x800007 << 8 | 1, NULL, 5, BAD);
	return 0;
}
