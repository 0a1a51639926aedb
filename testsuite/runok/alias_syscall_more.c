// SPDX-License-Identifier: GPL-2.0-or-later
/* The workload of alias_syscall_more: calls of the generated aliases added with fcntl,
 * mount, the xattr calls, ... made directly (syscall(2)) with arguments whose argstr and
 * result are the same on every run: a bad fd (99), a missing path or a bad address (0x10)
 * where a call would otherwise depend on the machine. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#define BAD ((void *)0x10)

int main(void)
{
	/* The x86_64 layouts of the kernel's sigaction and stack_t, and a sigset_t. */
	struct { unsigned long handler, flags, restorer, mask; } ign = { 1, 0, 0, 0 },
		act = { 0x1000, 0x10000000 | 0x04000000, 0x2000, 1UL << (SIGINT - 1) };
	struct { unsigned long sp; int flags; unsigned long size; } ss = { 0, 2, 0 };
	unsigned long set = 1UL << (SIGUSR1 - 1) | 1UL << (SIGTERM - 1);
	long rl[2] = { 0, 0 };
	int fds[2] = { -1, -1 };
	long itv[4] = { 0, 0, 0, 0 }, tv[2] = { 1, 1000000 }, tz[1] = { 0 };
	long tvs[4] = { 1, 2, 3, 4 }, ub[2] = { 0, 86400 };
	struct { long long sec; long nsec; } ts[2] = { { 0, (1L << 30) - 2 }, { 5, 123 } };
	long fd;

	syscall(SYS_chdir, "/tmp");
	fd = syscall(SYS_openat, AT_FDCWD, "mo_f", O_RDWR | O_CREAT, 0644);
	syscall(SYS_fcntl, fd, F_GETFD, 0);
	syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, 10);
	syscall(SYS_dup2, fd, 20);
	syscall(SYS_dup3, fd, 21, O_CLOEXEC);
	syscall(SYS_madvise, 0x10000, 4096, MADV_NORMAL);
	syscall(SYS_mremap, 0x10000, 4096, 8192, MREMAP_MAYMOVE, 0);
	syscall(SYS_mount, "none", "/nonexistent", "tmpfs", MS_NOSUID | MS_NODEV, "size=1m");
	syscall(SYS_umount2, "/nonexistent", MNT_DETACH);
	syscall(SYS_eventfd2, 5, 04000);
	syscall(SYS_inotify_init1, 0);
	syscall(SYS_inotify_add_watch, 99, "/tmp", 0x100 | 0x200);
	syscall(SYS_setxattr, "/nonexistent", "user.x", "v1", 3, 1);
	syscall(SYS_fsetxattr, 99, "user.x", "a\tb", 3, 2);
	syscall(SYS_lgetxattr, "/nonexistent", "user.x", BAD, 0);
	syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, BAD);
	syscall(SYS_sendmsg, 99, BAD, MSG_DONTWAIT);
	syscall(SYS_splice, 99, NULL, 98, NULL, 4096, 1 | 4);
	syscall(SYS_fallocate, 99, 1, 0, 4096);
	syscall(SYS_fadvise64, 99, 0, 0, POSIX_FADV_SEQUENTIAL);
	syscall(SYS_sync_file_range, 99, 0, 0, 2);
	syscall(SYS_preadv2, 99, BAD, 1, 0, 0, 1);
	syscall(SYS_waitid, P_PID, 99999, BAD, WEXITED, NULL);
	syscall(SYS_statx, AT_FDCWD, "/nonexistent", AT_SYMLINK_NOFOLLOW, 0x7ff, BAD);
	syscall(SYS_personality, 0xffffffff);
	syscall(SYS_mlock2, 0x10000, 4096, 1);
	syscall(SYS_mknodat, AT_FDCWD, "/nonexistent/x", S_IFIFO | 0600, 0);
	syscall(SYS_unshare, 0);
	syscall(SYS_setns, 99, 0x40000000);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, NULL, 8);
	syscall(SYS_rt_sigaction, SIGUSR2, &ign, NULL, 8);
	syscall(SYS_rt_sigaction, SIGUSR2, &act, NULL, 8);
	syscall(SYS_setrlimit, RLIMIT_CORE, rl);
	syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, BAD);
	syscall(SYS_sigaltstack, &ss, NULL);
	syscall(SYS_faccessat2, AT_FDCWD, "/nonexistent", R_OK, 0x200);
	syscall(SYS_pipe, NULL);
	syscall(SYS_pipe2, fds, O_CLOEXEC);
	syscall(SYS_times, BAD);
	syscall(SYS_sysinfo, BAD);
	syscall(SYS_setitimer, ITIMER_PROF, itv, NULL);
	syscall(SYS_settimeofday, tv, tz);
	syscall(SYS_utimensat, AT_FDCWD, "/nonexistent", ts, 0);
	syscall(SYS_utimes, "/nonexistent", tvs);
	syscall(SYS_utime, "/nonexistent", ub);
	syscall(SYS_futimesat, 99, "x", NULL);
	syscall(SYS_reboot, 0xfee1dead, 99, 0, NULL);
	return 0;
}
