// SPDX-License-Identifier: GPL-2.0-or-later
/* The workload of alias_syscall_more4: a 32-bit program without a C library (built with
 * alias_syscall_more4.cflags) making the calls only a 32-bit task makes, through int $0x80
 * with their ia32 numbers: sigaction (67) with a struct old_sigaction, rt_sigaction (174)
 * with a struct compat_sigaction, execve (11) and execveat (358) of a file that is not
 * there, then exit (1). Fixed arguments: the same argstr and results on every kernel. */

#include "ia32_call.h"

static const char path[] = "/nonexistent";
static const char arg0[] = "a";
static const char arg1[] = "b c";
static const char *const argv[] = { arg0, arg1, 0 };
static const char *const envp[] = { 0 };
/* old_sigaction: handler, mask, flags, restorer; compat_sigaction: handler, flags,
 * restorer, mask (two words). SIGINT's bit in the masks; SA_RESTART|SA_RESTORER. */
static const unsigned int old_act[4] = { 0x1000, 1u << 1, 0x14000000, 0x2000 };
static const unsigned int rt_act[5] = { 1, 0, 0, 0, 0 };
static const unsigned int rt_act2[5] = { 0x3000, 0x10000004, 0x4000, 1u << 14, 0 };

void _start(void)
{
	/* The probes read the structures without faulting their page in: touch it first
	 * (through a volatile pointer: the compiler folds a plain read of a constant). */
	(void)*(volatile const unsigned int *)old_act;
	call(67, 10, (long)old_act, 0, 0, 0);		/* SIGUSR1 */
	call(174, 12, (long)rt_act, 0, 8, 0);		/* SIGUSR2, SIG_IGN */
	call(174, 12, (long)rt_act2, 0, 8, 0);		/* SIGUSR2, a handler */
	call(174, 12, 0x10, 0, 8, 0);			/* a bad address: -EFAULT */
	call(11, (long)path, (long)argv, (long)envp, 0, 0);
	call(358, -100, (long)path, (long)argv, (long)envp, 0);
	call(1, 0, 0, 0, 0, 0);
	for (;;)
		;
}
