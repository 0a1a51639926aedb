// SPDX-License-Identifier: GPL-2.0-or-later
/* The workload of perf_hw_process.stp: hw_step() called twice. */
int hw_step(int n)
{
	return n + 1;
}

int main(void)
{
	return hw_step(hw_step(0)) == 2 ? 0 : 1;
}
