// SPDX-License-Identifier: GPL-2.0-or-later
/* The workload of alias_syscall_ptrace: ptrace requests of each form stap's argstr tells
 * apart, on a child stopped under PTRACE_TRACEME, their buffers in a page mapped at a fixed
 * address (0x10000000) so that argstr is the same on every run. Some fail on purpose (a
 * PEEKDATA of an unmapped address, an unknown request) for retstr. */
#include <asm/prctl.h>
#include <elf.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static long pt(long request, long pid, long addr, long data)
{
	return syscall(SYS_ptrace, request, pid, addr, data);
}

int main(void)
{
	char *page = mmap((void *)0x10000000, 4096, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	struct iovec *iov = (struct iovec *)page;
	long page_addr = (long)page;
	pid_t child;
	int status;

	if (page == MAP_FAILED)
		return 1;
	*(long *)(page + 64) = 0x1234;
	child = fork();
	if (child == 0) {
		pt(PTRACE_TRACEME, 0, 0, 0);
		raise(SIGSTOP);
		_exit(0);
	}
	waitpid(child, &status, 0);
	pt(PTRACE_SETOPTIONS, child, 0, PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL);
	pt(PTRACE_PEEKDATA, child, 0x1000, page_addr + 64);
	pt(PTRACE_POKEDATA, child, 0x1000, 42);
	iov->iov_base = page + 512;
	iov->iov_len = 16;
	pt(PTRACE_GETREGSET, child, NT_PRSTATUS, page_addr);
	pt(PTRACE_GETEVENTMSG, child, 0, page_addr + 64);
	pt(PTRACE_ARCH_PRCTL, child, page_addr + 128, ARCH_GET_FS);
	pt(PTRACE_GET_THREAD_AREA, child, -1, 0);
	pt(0x4299, child, 0x10, 0x20);
	pt(PTRACE_CONT, child, 0, SIGCONT);
	waitpid(child, &status, 0);
	return 0;
}
