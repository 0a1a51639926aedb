// SPDX-License-Identifier: GPL-2.0-or-later
// A known user call chain for runok/ustack_*: main -> ustack_level1 -> ustack_level2 ->
// ustack_leaf, which makes the getppid system call itself (no libc wrapper in between), each
// with a frame pointer, and main's caller none (built -O0 -fno-omit-frame-pointer -static by runok.exp), at fixed
// addresses (static, not position-independent).
#include <sys/syscall.h>

/* At a page of its own, so that the addresses do not move with the C library's start code. */
static long __attribute__((noinline, aligned(4096))) ustack_leaf(long n)
{
	long r;

	__asm__ volatile("syscall" : "=a"(r) : "0"((long)SYS_getppid) : "rcx", "r11", "memory");
	return r + n;
}

long __attribute__((noinline)) ustack_level2(long n)
{
	return ustack_leaf(n + 1) + 1;
}

long __attribute__((noinline)) ustack_level1(long n)
{
	return ustack_level2(n + 1) + 1;
}

int main(void)
{
	long r;

	/* ustack_level1(0) with a null frame pointer, as at the top of a stack, so that the walk
	 * ends in main rather than in the C library's start code (past the red zone; the call
	 * with the stack 16-byte aligned). */
	__asm__ volatile("sub $128, %%rsp\n\t"
			 "push %%rbp\n\t"
			 "sub $8, %%rsp\n\t"
			 "xor %%ebp, %%ebp\n\t"
			 "xor %%edi, %%edi\n\t"
			 "call ustack_level1\n\t"
			 "add $8, %%rsp\n\t"
			 "pop %%rbp\n\t"
			 "add $128, %%rsp"
			 : "=a"(r)
			 :
			 : "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "memory", "cc");
	return r > 0 ? 0 : 1;
}
