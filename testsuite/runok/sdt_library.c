// SPDX-License-Identifier: GPL-2.0-or-later
/* The workload of the sdt_library case: a program (a PIE) with SDT markers of its own that
 * calls into its shared library's (sdt_library.lib.c), probed as process.mark (-c) and
 * process("/tmp/tapster-runok/sdt_library").library("...").mark(...). With an argument N it
 * first sleeps N seconds: sdt.exp probes it by its pid then. */
#include <stdlib.h>
#include <sys/sdt.h>
#include <unistd.h>

int lib_work(int n, const char *who);

int main(int argc, char **argv)
{
	char who[] = "from the program";
	int sum = 0;

	if (argc > 1)
		sleep((unsigned int)atoi(argv[1]));
	for (int i = 0; i < 3; i++) {
		STAP_PROBE1(tapster_app, round, i);
		sum += lib_work(i, who);
	}
	STAP_PROBE1(tapster_app, done, sum);
	return sum == 6 ? 0 : 1;
}
