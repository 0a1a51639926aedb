// SPDX-License-Identifier: GPL-2.0-or-later
/* A module run by the loader in the bundled VM (vm_module.h). */
#define _GNU_SOURCE
#include "run/vm_module.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/monitor.h"
#include "run/vm.h"
#include "run/vm_share.h"
#include "util.h"

extern char **environ;

/* Quotes `arg` for the guest's shell. */
static void add_quoted(struct strbuf *sb, const char *arg)
{
	sb_addc(sb, '\'');
	for (const char *p = arg; *p; p++) {
		if (*p == '\'')
			sb_add(sb, "'\\''");
		else
			sb_addc(sb, *p);
	}
	sb_add(sb, "' ");
}

static void on_interrupt(int sig)
{
	(void)sig;
	vm_interrupt();
}

/*
 * The guest's run.sh when the loader writes output files there (-o with -S or -b): it runs
 * the loader (an interrupt forwarded to it), then sends each file back on the control port
 * (vm_outfiles.h), then exits with the loader's status.
 */
static void add_files_back_script(struct strbuf *script, const char *const *args)
{
	sb_add(script, "mkdir -p " VM_GUEST_OUTPUT_DIR "\n"
		       "trap 'kill -INT $pid 2>/dev/null' INT\n"
		       "\"$@\" " VM_GUEST_JOB_DIR "/tapster-run ");
	for (const char *const *p = args; *p; p++)
		add_quoted(script, *p);
	sb_add(script, "&\npid=$!\n"
		       "wait $pid; status=$?\n"
		       "while kill -0 $pid 2>/dev/null; do wait $pid; status=$?; done\n"
		       "cd " VM_GUEST_OUTPUT_DIR " && for f in *; do\n"
		       "\t[ -f \"$f\" ] || continue\n"
		       "\tprintf 'file %s %s\\n' \"$f\" \"$(wc -c <\"$f\")\"; cat \"$f\"\n"
		       "done >/dev/ttyS3\n"
		       "exit $status\n");
}

/* Whether the -c command gets the host's files (vm_share.h): unless TAPSTER_VM_SHARE=0,
 * when virtiofsd is there and the kit has its kernel's modules (fetched once). */
static bool want_share(const struct vm_module_run *r)
{
	const char *env = getenv("TAPSTER_VM_SHARE");
	char *release, *dep;
	bool wanted;

	if (!r->command || (env && !strcmp(env, "0")))
		return false;
	if (!vm_share_daemon()) {
		fputs(VM_SHARE_NO_DAEMON, stderr);
		return false;
	}
	release = vm_kit_kernel_release(r->kit_dir);
	dep = xasprintf("%s/root/lib/modules/%s/modules.dep", r->kit_dir, release ? release : "");
	if (release && access(dep, R_OK) != 0) {
		fprintf(stderr, "tapster: fetching the modules of kernel %s (once)\n", release);
		if (!vm_kit_fetch_modules(r->vmkit_path))
			fprintf(stderr, "WARNING: cannot fetch the modules of kernel %s; -c runs in the"
				" VM's own small system\n", release);
	}
	wanted = release && access(dep, R_OK) == 0;
	free(release);
	free(dep);
	return wanted;
}

/* run.sh's lines that mount the host's files (when tapster could serve them) and, when they
 * are mounted, set "$@" to the environment the loader and the -c command get: the user's,
 * with the root and directory the loader gives the command. */
static void add_share_script(struct strbuf *script)
{
	char cwd[PATH_MAX];

	vm_share_guest_setup(script);
	sb_add(script, "set --\nif [ -n \"$share_ok\" ]; then set -- env -i ");
	for (char **e = environ; *e; e++)
		if (strncmp(*e, "TAPSTER_RUN_", 12))
			add_quoted(script, *e);
	add_quoted(script, "TAPSTER_RUN_ROOT=" VM_SHARE_GUEST_ROOT);
	add_quoted(script, "TAPSTER_RUN_NOTIFY=/dev/ttyS3");
	if (getcwd(cwd, sizeof(cwd))) {
		sb_add(script, "TAPSTER_RUN_CWD=");
		add_quoted(script, cwd);
	}
	sb_add(script, "; fi\n");
}

int vm_module_run(const struct vm_module_run *r)
{
	struct sigaction sa = { .sa_handler = on_interrupt };
	struct strbuf script = { 0 };
	bool share = want_share(r);
	int status = 1;

	/* The loader says "started" there once the probes are armed (the progress line), and
	 * how many are armed while it arms them. */
	sb_add(&script, "export TAPSTER_RUN_NOTIFY=/dev/ttyS3\n");
	if (r->stdin_file)
		sb_addf(&script, "exec <%s\n", r->stdin_file);
	if (share)
		add_share_script(&script);
	if (r->outfiles_dir) {
		add_files_back_script(&script, r->loader_args);
	} else {
		sb_add(&script, "exec \"$@\" " VM_GUEST_JOB_DIR "/tapster-run ");
		for (const char *const *p = r->loader_args; *p; p++)
			add_quoted(&script, *p);
		sb_addc(&script, '\n');
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	struct vm_job job = {
		.kit_dir = r->kit_dir,
		.files = r->job_files,
		.placed = r->placed,
		.run_script = script.buf,
		.out_fd = r->out_fd,
		.err_fd = STDERR_FILENO,
		.cpus = r->cpus,
		.mem_mb = 512,
		.console_log = getenv("TAPSTER_VM_CONSOLE"),
		.modules = r->modules,
		.outfiles_dir = r->outfiles_dir,
		.timeout_s = r->timeout_s,
		.share_root = share ? "/" : NULL,
		.after_boot = "Pass 5: starting the probes",
	};
	struct vm_screen screen = {
		.output = monitor_output,
		.snapshot = monitor_snapshot,
		.keys = monitor_keys,
		.key_fd = STDIN_FILENO,
	};

	if (r->monitor_interval && monitor_possible()) {
		job.screen = &screen;
		job.after_boot = NULL;	/* no progress line over the screen */
		monitor_begin(r->monitor_interval);
	}
	if (vm_run(&job, &status) != 0)
		status = 1;
	monitor_end();
	free(script.buf);
	return status;
}
