/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A module run by the loader in the bundled VM, with the loader's own arguments: what
 * `tapster --vm` does in pass 5 and `tapster-run --vm MODULE.ko` does with a module built
 * earlier (both link this, with vm.c, vm_share.c and vm_outfiles.c). It writes the guest's
 * run.sh (the host's files for a -c command, the -o files sent back), forwards ^C, TERM and
 * HUP to the guest, and boots the VM.
 */
#ifndef TAPSTER_VM_MODULE_H
#define TAPSTER_VM_MODULE_H

#include <stdbool.h>

/* Where the job's files are in the guest (vm.h): GUEST_JOB_DIR "/" their base names. */
#define VM_GUEST_JOB_DIR "/job"
/* Where the loader in the guest writes -o's files when they are to come back. */
#define VM_GUEST_OUTPUT_DIR "/tmp/tapster-out"

struct vm_module_run {
	const char *kit_dir;
	const char *vmkit_path;		/* tapster-vmkit, to fetch the kit's modules for a share */
	const char *const *job_files;	/* into /job: the module and the loader first */
	const char *const *loader_args;	/* the guest loader's arguments after its name */
	const char *command;		/* the -c command, or NULL: a -c gets the host's files */
	const char *outfiles_dir;	/* -o files written in the guest (under
					 * VM_GUEST_OUTPUT_DIR) come back here; NULL: none */
	int out_fd;			/* where the guest's stdout goes */
	int monitor_interval;		/* --monitor's screen (monitor.h) every that many
					 * seconds; 0: none */
	const char *stdin_file;		/* the guest loader's standard input (a /job file), or
					 * NULL */
	const char *const *placed;	/* vm_job's placed and modules */
	const char *const *modules;
	int cpus;
	int timeout_s;
};

/* Runs it; returns the loader's exit status (1 when the VM run failed). */
int vm_module_run(const struct vm_module_run *r);

#endif
