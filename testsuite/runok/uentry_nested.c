// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The workload of uentry_nested.stp, whose .return probes keep @entry($n) in their tables of
 * 256 slots: une_depth() recursing 50 deep, then from four threads at once; une_jump()
 * leaving by longjmp 1000 times from the same place (the slot of a call that never returned
 * is taken again), returning once, then leaving from 300 different depths (256 slots left
 * taken, the table full) and returning once more (its return probe does not run).
 */
#include <pthread.h>
#include <setjmp.h>

static jmp_buf une_jb;

int une_depth(int n)
{
	if (n <= 1)
		return 1;
	return une_depth(n - 1) + 1;
}

int une_jump(int n)
{
	if (n)
		longjmp(une_jb, 1);
	return n;
}

static void une_down(int k)
{
	if (k > 1)
		une_down(k - 1);
	else
		une_jump(k);
}

static void *une_thread(void *arg)
{
	for (int i = 0; i < 50; i++)
		une_depth(20);
	return arg;
}

static void une_jumps(int times, int depths)
{
	for (int i = 1; i <= times; i++)
		if (!setjmp(une_jb))
			une_down(depths ? i : 1);
}

int main(void)
{
	pthread_t threads[4];

	une_depth(50);
	une_jumps(1000, 0);
	une_jump(0);
	une_jumps(300, 1);
	une_jump(0);
	for (int i = 0; i < 4; i++)
		pthread_create(&threads[i], NULL, une_thread, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(threads[i], NULL);
	return 0;
}
