// SPDX-License-Identifier: GPL-2.0-or-later
/* guru_write_uprobe.stp changes the parameters gwp_sum gets, one held in memory (-O0: its
 * stack slot) and one past the sixth (the caller's stack); main prints what it returned. */
#include <stdio.h>

__attribute__((noinline)) long gwp_sum(long a, long b, long c, long d, long e, long f, long g)
{
	return a + b + c + d + e + f + g;
}

int main(void)
{
	printf("%ld\n", gwp_sum(1, 2, 3, 4, 5, 6, 7));
	return 0;
}
