// SPDX-License-Identifier: GPL-2.0-or-later
/* The workload of syscall_dispatch (built as a 64-bit program) and syscall_dispatch32 (the
 * same file, built as a 32-bit one by its .cflags): without a C library, a fixed spread of
 * calls by their numbers (syscall on x86_64, int $0x80 with the ia32 numbers), so that the
 * lines are the same on every kernel: getpid (one function for both ABIs), getppid, umask,
 * write, read and close of bad descriptors, openat of a file that is not there, kill with
 * signal 0 to its process group, uname, (32-bit: getppid and umask again through the vDSO's
 * __kernel_vsyscall, sysenter or syscall), then execveat of itself (/proc/self/exe), whose
 * second run (two arguments) makes getpid and exit_group. */

#ifdef __i386__
enum { NR_READ = 3, NR_WRITE = 4, NR_CLOSE = 6, NR_GETPID = 20, NR_KILL = 37, NR_UMASK = 60,
       NR_GETPPID = 64, NR_UNAME = 122, NR_EXIT_GROUP = 252, NR_OPENAT = 295,
       NR_EXECVEAT = 358 };

#include "ia32_call.h"

/* A call of one argument through the vDSO's __kernel_vsyscall (at `vsyscall`): sysenter or
 * syscall, the kernel's fast path for 32-bit tasks. */
static long vcall(unsigned long vsyscall, long nr, long a)
{
	long ret;

	__asm__ volatile("call *%[v]" : "=a"(ret) : [v] "r"(vsyscall), "a"(nr), "b"(a)
			 : "memory");
	return ret;
}

/* __kernel_vsyscall's address: AT_SYSINFO of the auxiliary vector, after the environment
 * (`argv` the first argument's pointer); 0 without one. */
static unsigned long vsyscall_of(long *argv)
{
	long *p = argv;

	while (*p++)
		;
	while (*p++)
		;
	for (; p[0]; p += 2)
		if (p[0] == 32)	/* AT_SYSINFO */
			return p[1];
	return 0;
}
#else
enum { NR_READ = 0, NR_WRITE = 1, NR_CLOSE = 3, NR_GETPID = 39, NR_KILL = 62, NR_UNAME = 63,
       NR_UMASK = 95, NR_GETPPID = 110, NR_EXIT_GROUP = 231, NR_OPENAT = 257,
       NR_EXECVEAT = 322 };

static long call(long nr, long a, long b, long c, long d, long e)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
			 : "rcx", "r11", "memory");
	return ret;
}
#endif

static const char hello[] = "dispatched\n";
static const char path[] = "/nonexistent";
static const char self[] = "/proc/self/exe";
static const char arg0[] = "again";
static const char *const argv[] = { arg0, arg0, 0 };
static const char *const envp[] = { 0 };
static char uts[6 * 65];

void _start(void)
{
	/* argc, above the frame pointer pushed on entry */
	long argc = ((long *)__builtin_frame_address(0))[1];

	if (argc > 1) {
		call(NR_GETPID, 0, 0, 0, 0, 0);
		call(NR_EXIT_GROUP, 0, 0, 0, 0, 0);
	}
	/* The probes read the buffers without faulting their page in: touch it first. */
	(void)*(volatile const char *)hello;
	call(NR_GETPID, 0, 0, 0, 0, 0);
	call(NR_GETPPID, 0, 0, 0, 0, 0);
	call(NR_UMASK, 022, 0, 0, 0, 0);
	call(NR_UMASK, 022, 0, 0, 0, 0);
	call(NR_WRITE, 1, (long)hello, sizeof(hello) - 1, 0, 0);
	call(NR_READ, -1, 0, 0, 0, 0);
	call(NR_CLOSE, -1, 0, 0, 0, 0);
	call(NR_OPENAT, -100, (long)path, 0, 0, 0);
	call(NR_KILL, 0, 0, 0, 0, 0);
	call(NR_UNAME, (long)uts, 0, 0, 0, 0);
#ifdef __i386__
	{
		unsigned long vsyscall = vsyscall_of(&((long *)__builtin_frame_address(0))[2]);

		if (vsyscall) {
			vcall(vsyscall, NR_GETPPID, 0);
			vcall(vsyscall, NR_UMASK, 022);
		}
	}
#endif
	call(NR_EXECVEAT, -100, (long)self, (long)argv, (long)envp, 0);
	call(NR_EXIT_GROUP, 1, 0, 0, 0, 0);
	for (;;)
		;
}
