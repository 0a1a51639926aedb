// SPDX-License-Identifier: GPL-2.0-or-later
/* The shared library of sdt_library.c, built as /tmp/tapster-runok/libsdt_library.so: SDT
 * markers in a library the program maps (position-independent code), one guarded by a
 * semaphore in the library's data, which a tool probing the marker sets. */
#include <sys/sdt.h>

unsigned short tapster_lib_guarded_semaphore __attribute__((section(".probes")));

/* `who` is the caller's: a string on its stack is in memory when the marker reads it (a
 * constant of the library might be in a page not yet faulted in, which a probe's
 * user_string() cannot read). */
int lib_work(int n, const char *who)
{
	STAP_PROBE3(tapster_lib, work, n, n * n, who);
#undef _SDT_SEMAPHORE
#define _SDT_SEMAPHORE(p, n) _SDT_ASM_1(_SDT_ASM_ADDR p##_##n##_semaphore)
	if (tapster_lib_guarded_semaphore)
		STAP_PROBE1(tapster_lib, guarded, tapster_lib_guarded_semaphore);
#undef _SDT_SEMAPHORE
#define _SDT_SEMAPHORE(p, n) _SDT_ASM_1(_SDT_ASM_ADDR 0)
	return n + 1;
}
