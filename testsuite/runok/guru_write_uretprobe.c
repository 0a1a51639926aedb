// SPDX-License-Identifier: GPL-2.0-or-later
/* guru_write_uretprobe.stp changes what gwu_answer returns: main prints what it got. */
#include <stdio.h>

int gwu_answer(int n)
{
	return n + 1;
}

int main(void)
{
	printf("%d\n", gwu_answer(41));
	return 0;
}
