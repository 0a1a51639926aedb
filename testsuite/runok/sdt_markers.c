// SPDX-License-Identifier: GPL-2.0-or-later
/* The workload of the sdt_* cases, which probe its SDT markers (<sys/sdt.h>) as
 * process("/tmp/tapster-runok/sdt_markers").mark(...): arguments of several types and
 * sizes, in registers, memory and constants; a marker guarded by a semaphore; a second
 * provider. */
#include <sys/sdt.h>

/* The semaphore of tapster:guarded, which a tool probing the marker sets (sys/sdt.h's
 * _SDT_HAS_SEMAPHORES form, for this one marker only). */
unsigned short tapster_guarded_semaphore __attribute__((section(".probes")));

static const char message[] = "hello sdt";
long long sdt_global = -123456789012LL;	/* an operand by its symbol, sdt_global(%rip) */

static void fire_guarded(int round)
{
#undef _SDT_SEMAPHORE
#define _SDT_SEMAPHORE(p, n) _SDT_ASM_1(_SDT_ASM_ADDR p##_##n##_semaphore)
	if (tapster_guarded_semaphore)
		STAP_PROBE2(tapster, guarded, round, tapster_guarded_semaphore);
#undef _SDT_SEMAPHORE
#define _SDT_SEMAPHORE(p, n) _SDT_ASM_1(_SDT_ASM_ADDR 0)
}

int main(void)
{
	volatile signed char small = -5;
	volatile unsigned char byte = 200;
	volatile short half = -1234;
	volatile int word = -100000;
	volatile unsigned int uword = 4000000000u;
	volatile long long wide = -5000000000LL;
	volatile unsigned long long uwide = 0xfedcba9876543210ULL;
	int values[4] = { 10, 20, 30, 40 };

	STAP_PROBE(tapster, empty);
#undef STAP_SDT_ARG_CONSTRAINT
#define STAP_SDT_ARG_CONSTRAINT m
	for (int i = 0; i < 4; i += 3)
		STAP_PROBE3(tapster, memory, values[i], wide, sdt_global);
#undef STAP_SDT_ARG_CONSTRAINT
#define STAP_SDT_ARG_CONSTRAINT nor
	STAP_PROBE6(tapster, ints, small, byte, half, word, uword, wide);
	STAP_PROBE3(tapster, wide, uwide, message, 7);
	for (int i = 0; i < 3; i++) {
		STAP_PROBE2(tapster, loop, i, values[i + 1]);
		fire_guarded(i);
	}
	STAP_PROBE1(tapster, unguarded, tapster_guarded_semaphore);
	DTRACE_PROBE1(other, ping, 42);
	return 0;
}
