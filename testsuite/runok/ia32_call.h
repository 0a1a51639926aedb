// SPDX-License-Identifier: GPL-2.0-or-later
/* The system call of a 32-bit program without a C library (the runok workloads built with
 * -m32 -nostdlib): call(NR, ARG...) makes call NR of the ia32 table through int $0x80 with
 * up to six arguments (ebx, ecx, edx, esi, edi, ebp; those left out are 0) and returns
 * eax, the result or -errno. */
#ifndef TAPSTER_RUNOK_IA32_CALL_H
#define TAPSTER_RUNOK_IA32_CALL_H

/* The number and the six arguments, from an array of seven: ebp, the frame pointer, is
 * saved around the call, which takes the sixth argument in it. */
static long ia32_call(const long *word)
{
	long nr = word[0], a = word[1], b = word[2], c = word[3], d = word[4], e = word[5];
	long f = word[6];
	long ret;

	__asm__ volatile("push %%ebp\n\tmov %7, %%ebp\n\tint $0x80\n\tpop %%ebp"
			 : "=a"(ret)
			 : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d), "D"(e), "g"(f)
			 : "memory");
	return ret;
}

#define call(...) ia32_call((const long[7]){ __VA_ARGS__ })

#endif
