// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tapster-vmrun: runs a shell script in the VM tapster's pass 5 uses, with files of the
 * host in its /job/, for tests that want one VM boot to serve many modules.
 *
 *   tapster-vmrun [-k KIT] [-c CPUS] [-t SECONDS] [-i] [-m MODULE]... [-P PATH]... -s SCRIPT
 *                 -o STDOUT -e STDERR FILE...
 *
 * -i runs the guest under qemu's `-icount shift=0` (TCG): its clock follows the instructions
 * it executes, one nanosecond each, so timings repeat exactly (`make bench`).
 * SCRIPT (a host file) becomes /job/run.sh; each FILE is copied into /job/ under its base
 * name. Each -m MODULE, a module of the kit's kernel, is in the guest's /lib/modules (with
 * those it needs: modprobe MODULE works). Each -P PATH, an absolute host path, is copied to
 * the same path in the guest (a process("PATH") probe's file). The guest's stdout and stderr go to the files
 * STDOUT and STDERR. The exit status is
 * the script's, or 125 when the VM could not run it (a message on stderr).
 *
 * The kit is KIT, else the one tapster uses (made by scripts/tapster-vmkit, found as tapster
 * finds it: TAPSTER_VMKIT names the script when the kit isn't ready).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "run/vm.h"

static void usage(void)
{
	fputs("usage: tapster-vmrun [-k KIT] [-c CPUS] [-t SECONDS] [-i] [-m MODULE]... [-P PATH]..."
	      " -s SCRIPT -o STDOUT -e STDERR FILE...\n", stderr);
	exit(125);
}

static int create_output(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0) {
		perror(path);
		exit(125);
	}
	return fd;
}

int main(int argc, char **argv)
{
	const char *script_path = NULL, *out_path = NULL, *err_path = NULL;
	struct vm_job job = { .cpus = 1, .mem_mb = 512 };
	char *script, *kit = NULL;
	const char **modules = xcalloc(1, sizeof(*modules));
	const char **placed = xcalloc(1, sizeof(*placed));
	size_t nmodules = 0, nplaced = 0;
	int opt, status = 125;

	while ((opt = getopt(argc, argv, "k:c:t:im:P:s:o:e:")) != -1) {
		switch (opt) {
		case 'k': kit = xstrdup(optarg); break;
		case 'c': job.cpus = atoi(optarg); break;
		case 't': job.timeout_s = atoi(optarg); break;
		case 'i': job.icount = true; break;
		case 's': script_path = optarg; break;
		case 'o': out_path = optarg; break;
		case 'e': err_path = optarg; break;
		case 'm':
			modules = xrealloc(modules, (nmodules + 2) * sizeof(*modules));
			modules[nmodules++] = optarg;
			modules[nmodules] = NULL;
			break;
		case 'P':
			placed = xrealloc(placed, (nplaced + 2) * sizeof(*placed));
			placed[nplaced++] = optarg;
			placed[nplaced] = NULL;
			break;
		default: usage();
		}
	}
	if (!script_path || !out_path || !err_path)
		usage();
	script = read_text_file(script_path, NULL);
	if (!script) {
		perror(script_path);
		return 125;
	}
	if (!kit)
		kit = vm_kit_dir(getenv("TAPSTER_VMKIT"));
	if (!kit)
		return 125;
	job.kit_dir = kit;
	job.files = (const char *const *)argv + optind;
	job.run_script = script;
	job.modules = modules;
	job.placed = placed;
	job.out_fd = create_output(out_path);
	job.err_fd = create_output(err_path);
	job.console_log = getenv("TAPSTER_VM_CONSOLE");
	if (vm_run(&job, &status) != 0)
		status = 125;
	close(job.out_fd);
	close(job.err_fd);
	free(script);
	free(kit);
	free(modules);
	free(placed);
	return status;
}
