// SPDX-License-Identifier: GPL-2.0-or-later
/* The workload of uprobes_counts.stp, which probes it as
 * process("/tmp/tapster-runok/uprobes_counts"): each function called a known number of times. */
int upr_square(int n)
{
	return n * n;
}

long upr_sum(int n)
{
	long sum = 0;

	for (int i = 1; i <= n; i++)
		sum += upr_square(i);
	return sum;
}

int upr_twice(int n)
{
	return 2 * n;
}

int main(void)
{
	long total = 0;

	for (int i = 0; i < 3; i++)
		total += upr_sum(4);
	total += upr_twice(21);
	return total == 3 * 30 + 42 ? 0 : 1;
}
