// SPDX-License-Identifier: GPL-2.0-or-later
/* The workload of alias_syscall_spread: system calls of the generated aliases, made
 * directly (syscall(2)) with arguments whose argstr and result are the same on every run:
 * bad addresses (0x10...) where a call would write memory, so that it fails with EFAULT. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#define BAD ((void *)0x10)

int main(void)
{
	sigset_t set;
	long fd;

	syscall(SYS_chdir, "/tmp");
	syscall(SYS_mkdirat, AT_FDCWD, "sp_d", 0750);
	syscall(SYS_chmod, "/tmp/sp_d", 0700);
	syscall(SYS_chown, "/tmp/sp_d", 0, 0);
	syscall(SYS_lchown, "/tmp/sp_d", -1, -1);
	syscall(SYS_fchmodat, AT_FDCWD, "sp_d", 0755);
	syscall(SYS_fchownat, AT_FDCWD, "sp_d", 0, 0, AT_SYMLINK_NOFOLLOW);
	fd = syscall(SYS_creat, "/tmp/sp_f", 0644);
	syscall(SYS_fchmod, fd, 0600);
	syscall(SYS_fchown, fd, 0, 0);
	syscall(SYS_flock, fd, LOCK_SH | LOCK_NB);
	syscall(SYS_lseek, fd, 0, SEEK_END);
	syscall(SYS_access, "/nonexistent", R_OK | W_OK);
	syscall(SYS_faccessat, AT_FDCWD, "sp_f", F_OK);
	syscall(SYS_renameat2, AT_FDCWD, "sp_x", AT_FDCWD, "sp_y", RENAME_NOREPLACE);
	syscall(SYS_getrlimit, RLIMIT_NOFILE, BAD);
	syscall(SYS_getrusage, RUSAGE_SELF, BAD);
	syscall(SYS_getitimer, ITIMER_REAL, BAD);
	syscall(SYS_getpriority, PRIO_PROCESS, 0);
	syscall(SYS_msync, 0x10000, 4096, MS_SYNC);
	syscall(SYS_shutdown, fd, SHUT_RDWR);
	syscall(SYS_accept4, fd, NULL, NULL, SOCK_CLOEXEC);
	syscall(SYS_epoll_ctl, fd, EPOLL_CTL_ADD, fd + 1, BAD);
	syscall(SYS_getrandom, BAD, 0, GRND_NONBLOCK);
	syscall(SYS_fsync, fd);
	syscall(SYS_fdatasync, fd);
	syscall(SYS_dup, fd);
	syscall(SYS_fchdir, fd);
	syscall(SYS_link, "/tmp/sp_f", "/tmp/sp_l");
	syscall(SYS_linkat, AT_FDCWD, "sp_l", AT_FDCWD, "sp_l2", 0);
	syscall(SYS_symlink, "sp_f", "/tmp/sp_s");
	syscall(SYS_symlinkat, "sp_f", AT_FDCWD, "sp_s2");
	syscall(SYS_readlink, "/tmp/sp_s", BAD, 64);
	syscall(SYS_readlinkat, AT_FDCWD, "sp_s2", BAD, 64);
	syscall(SYS_renameat, AT_FDCWD, "sp_l2", AT_FDCWD, "sp_l3");
	syscall(SYS_getcwd, BAD, 100);
	syscall(SYS_umask, 077);
	syscall(SYS_umask, 022);
	syscall(SYS_getpid);
	syscall(SYS_getppid);
	syscall(SYS_gettid);
	syscall(SYS_getresuid, BAD, BAD, BAD);
	syscall(SYS_getresgid, BAD, BAD, BAD);
	syscall(SYS_getgroups, -1, NULL);
	syscall(SYS_setgid, 0);
	syscall(SYS_setuid, 0);
	syscall(SYS_setreuid, -1, -1);
	syscall(SYS_setregid, -1, -1);
	syscall(SYS_setresuid, -1, -1, -1);
	syscall(SYS_setresgid, -1, -1, -1);
	syscall(SYS_setfsuid, 0);
	syscall(SYS_setfsgid, 0);
	syscall(SYS_setgroups, 0, NULL);
	syscall(SYS_sched_yield);
	syscall(SYS_sched_getscheduler, 0);
	syscall(SYS_sched_getparam, 0, BAD);
	syscall(SYS_sched_setparam, 0, BAD);
	syscall(SYS_sched_rr_get_interval, 0, BAD);
	syscall(SYS_sched_getaffinity, 0, 8, BAD);
	syscall(SYS_sched_setaffinity, 0, 8, BAD);
	syscall(SYS_alarm, 100);
	syscall(SYS_alarm, 0);
	syscall(SYS_clock_gettime, 1, BAD);
	syscall(SYS_rt_sigpending, BAD, 8);
	syscall(SYS_mlock, 0x10000, 4096);
	syscall(SYS_munlock, 0x10000, 4096);
	syscall(SYS_mprotect, 0x10000, 4096, 1);
	syscall(SYS_mincore, 0x10000, 4096, BAD);
	syscall(SYS_sync);
	syscall(SYS_syncfs, fd);
	syscall(SYS_sendfile, fd + 1, fd, NULL, 0);
	syscall(SYS_copy_file_range, fd, NULL, fd + 1, NULL, 0, 0);
	syscall(SYS_tee, fd, fd + 1, 10, 0);
	syscall(SYS_io_setup, 1, BAD);
	syscall(SYS_io_destroy, 0);
	syscall(SYS_getcpu, BAD, NULL, NULL);
	syscall(SYS_set_robust_list, BAD, 24);
	syscall(SYS_get_robust_list, 0, BAD, BAD);
	syscall(SYS_chroot, "/nonexistent");
	syscall(SYS_capget, BAD, NULL);
	syscall(SYS_pkey_mprotect, 0x10000, 4096, 1, -1);
	syscall(SYS_munlockall);
	syscall(SYS_inotify_rm_watch, fd, 1);
	syscall(SYS_timer_delete, 12345);
	syscall(SYS_timer_getoverrun, 12345);
	syscall(SYS_timerfd_gettime, fd, BAD);
	syscall(SYS_epoll_pwait, fd, BAD, 1, 0, NULL, 8);
	syscall(SYS_restart_syscall);
	syscall(SYS_swapoff, "/nonexistent");
	syscall(SYS_unlink, "/tmp/sp_s");
	syscall(SYS_unlink, "/tmp/sp_s2");
	syscall(SYS_unlink, "/tmp/sp_l");
	syscall(SYS_unlink, "/tmp/sp_l3");
	syscall(SYS_unlink, "/tmp/sp_f");
	syscall(SYS_rmdir, "/tmp/sp_d");
	/* stap's names of signals and socket types: 0x10 for SIGSTKFLT, 0x22 for a real-time
	 * signal, SIGIO/SIGPOLL; a type's SOCK_CLOEXEC before SOCK_NONBLOCK, then the rest in
	 * hex; a set's SIGPIPE before SIGUSR2 (stap's order). */
	syscall(SYS_kill, 999999, 16);
	syscall(SYS_kill, 999999, 34);
	syscall(SYS_kill, 999999, SIGIO);
	syscall(SYS_socket, AF_INET, 7 | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGPIPE);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, NULL, 8);
	return 0;
}
