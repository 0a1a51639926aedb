// SPDX-License-Identifier: GPL-2.0-or-later
#include "run/run.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "run/monitor.h"
#include "run/vm.h"
#include "run/vm_share.h"

extern char **environ;

bool host_can_run_modules(void)
{
	struct utsname u;
	char *build;
	bool ok;

	if (access("/proc/modules", F_OK) != 0 || geteuid() != 0 || uname(&u) != 0)
		return false;
	build = xasprintf("/lib/modules/%s/build", u.release);
	ok = access(build, F_OK) == 0;
	free(build);
	return ok;
}

/* The loader's arguments after its name, for a module at `ko`, its -o FILE `output` (or
 * none when NULL). */
static char **loader_args(const struct session *s, const char *ko, const char *output)
{
	char **argv = xcalloc(16, sizeof(*argv));
	int n = 0;

	if (s->command) {
		argv[n++] = xstrdup("-c");
		argv[n++] = xstrdup(s->command);
	}
	if (s->target_pid) {
		argv[n++] = xstrdup("-x");
		argv[n++] = xasprintf("%d", s->target_pid);
	}
	if (output) {
		argv[n++] = xstrdup("-o");
		argv[n++] = xstrdup(output);
		if (s->size_limit) {
			argv[n++] = xstrdup("-S");
			argv[n++] = xstrdup(s->size_limit);
		}
	}
	/* --monitor: snapshots for the screen (monitor.h), when there is one. */
	if (s->monitor_interval && monitor_possible()) {
		argv[n++] = xstrdup("-M");
		argv[n++] = xasprintf("%d", s->monitor_interval);
	}
	/* -F: as stap's, the loader detaches (-L), or with -o runs in background (-D). */
	if (s->flight_recorder)
		argv[n++] = xstrdup(s->output_file ? "-D" : "-L");
	argv[n++] = xstrdup(ko);
	return argv;
}

static void free_args(char **argv)
{
	for (char **p = argv; *p; p++)
		free(*p);
	free(argv);
}

static int run_local(const struct session *s, const char *ko)
{
	char **args = loader_args(s, ko, s->output_file);
	int nargs = 0;
	pid_t pid;
	int status;

	while (args[nargs])
		nargs++;
	char **argv = xcalloc((size_t)nargs + 2, sizeof(*argv));

	argv[0] = (char *)s->loader_path;
	memcpy(argv + 1, args, sizeof(*args) * (size_t)nargs);
	pid = fork();
	if (pid == 0) {
		execv(s->loader_path, argv);
		fprintf(stderr, "ERROR: cannot run %s: %s\n", s->loader_path, strerror(errno));
		_exit(127);
	}
	/* ^C reaches the loader too (same process group); it stops the session itself. */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	free(argv);
	free_args(args);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

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
 * The VM is killed when it runs far past what the session asked for: with -T, its time
 * plus a margin for the boot and the end probes under TCG on a busy host; TAPSTER_VM_TIMEOUT
 * (seconds) bounds any run. Without either, a session runs until exit(), -c or ^C, as stap.
 */
static int vm_timeout(const struct session *s)
{
	const char *env = getenv("TAPSTER_VM_TIMEOUT");
	int limit = env ? atoi(env) : 0;

	if (s->timeout_s && (!limit || s->timeout_s + 300 < limit))
		limit = s->timeout_s + 300;
	return limit > 0 ? limit : 0;
}

/* Where the loader in the guest writes -o's files when they are to come back (-S, -b). */
#define GUEST_OUTPUT_DIR "/tmp/tapster-out"

/*
 * The guest's run.sh when the loader writes output files there (-o with -S or -b): it runs
 * the loader (an interrupt forwarded to it), then sends each file back on the control port
 * (vm_outfiles.h), then exits with the loader's status.
 */
static void add_files_back_script(struct strbuf *script, char **args)
{
	sb_add(script, "mkdir -p " GUEST_OUTPUT_DIR "\n"
		       "trap 'kill -INT $pid 2>/dev/null' INT\n"
		       "\"$@\" /job/tapster-run ");
	for (char **p = args; *p; p++)
		add_quoted(script, *p);
	sb_add(script, "&\npid=$!\n"
		       "wait $pid; status=$?\n"
		       "while kill -0 $pid 2>/dev/null; do wait $pid; status=$?; done\n"
		       "cd " GUEST_OUTPUT_DIR " && for f in *; do\n"
		       "\t[ -f \"$f\" ] || continue\n"
		       "\tprintf 'file %s %s\\n' \"$f\" \"$(wc -c <\"$f\")\"; cat \"$f\"\n"
		       "done >/dev/ttyS3\n"
		       "exit $status\n");
}

/* The guest's /job/ files: the module, the loader, and the -d files (so that a -c command
 * can run /job/PROGRAM and find its symbols), one per base name; NULL-terminated. */
static const char **vm_job_files(const struct session *s, const char *ko)
{
	const char **files = xcalloc((size_t)s->nsymbol_files + 3, sizeof(*files));
	size_t n = 0;

	files[n++] = ko;
	files[n++] = s->loader_path;
	for (int i = 0; i < s->nsymbol_files; i++) {
		const char *path = s->symbol_files[i], *slash = strrchr(path, '/');
		const char *base = slash ? slash + 1 : path;
		struct stat st;
		bool taken = false;

		for (size_t j = 0; j < n; j++) {
			const char *other = strrchr(files[j], '/') ? strrchr(files[j], '/') + 1 : files[j];

			taken = taken || !strcmp(other, base);
		}
		if (!taken && stat(path, &st) == 0 && S_ISREG(st.st_mode))
			files[n++] = path;
	}
	return files;
}

/* -o FILE as the loader opens it: its strftime(3) conversions expanded for the local time
 * now (malloc'd); NULL when they give nothing. */
static char *output_file_name(const char *file)
{
	char path[PATH_MAX];
	time_t now = time(NULL);
	struct tm tm;

	if (!strchr(file, '%'))
		return xstrdup(file);
	if (!localtime_r(&now, &tm) || strftime(path, sizeof(path), file, &tm) == 0)
		return NULL;
	return xstrdup(path);
}

/* Whether the -c command gets the host's files (vm_share.h): unless TAPSTER_VM_SHARE=0,
 * when virtiofsd is there and the kit has its kernel's modules (fetched once). */
static bool want_share(const struct session *s)
{
	const char *env = getenv("TAPSTER_VM_SHARE");
	char *release, *dep;
	bool wanted;

	if (!s->command || (env && !strcmp(env, "0")))
		return false;
	if (!vm_share_daemon()) {
		fputs(VM_SHARE_NO_DAEMON, stderr);
		return false;
	}
	release = vm_kit_kernel_release(s->vm_kit_dir);
	dep = xasprintf("%s/root/lib/modules/%s/modules.dep", s->vm_kit_dir, release ? release : "");
	if (release && access(dep, R_OK) != 0) {
		char *cmd = xasprintf("'%s' --modules >/dev/null", s->vmkit_path);

		fprintf(stderr, "tapster: fetching the modules of kernel %s (once)\n", release);
		if (system(cmd) != 0)
			fprintf(stderr, "WARNING: cannot fetch the modules of kernel %s; -c runs in the"
				" VM's own small system\n", release);
		free(cmd);
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

static int run_in_vm(const struct session *s, const char *ko)
{
	const char *base = strrchr(ko, '/') ? strrchr(ko, '/') + 1 : ko;
	char *guest_ko = xasprintf("/job/%s", base);
	/* -o with -S or -b: the loader writes files in the guest, which come back after. */
	bool files_back = s->output_file && (s->size_limit || s->bulk);
	char *guest_output = NULL, *host_dir = NULL;
	char **args;
	const char **files = vm_job_files(s, ko);
	struct strbuf script = { 0 };
	struct sigaction sa = { .sa_handler = on_interrupt };
	int out_fd = STDOUT_FILENO;
	int status = 1;
	bool share;

	if (s->flight_recorder || s->target_pid) {
		/* The session would end with the VM, when tapster returns; a host pid is not
		 * the guest's. */
		fputs(s->flight_recorder ? VM_FLIGHT_RECORDER_ERROR : VM_TARGET_PID_ERROR, stderr);
		free(guest_ko);
		free(files);
		return 1;
	}
	if (files_back) {
		const char *slash = strrchr(s->output_file, '/');

		guest_output = xasprintf(GUEST_OUTPUT_DIR "/%s", slash ? slash + 1 : s->output_file);
		host_dir = slash ? xstrndup(s->output_file, (size_t)(slash - s->output_file)) :
				   xstrdup(".");
		if (!*host_dir) {
			free(host_dir);
			host_dir = xstrdup("/");
		}
	}
	args = loader_args(s, guest_ko, guest_output);
	share = want_share(s);
	/* The loader says "started" there once the probes are armed (the progress line). */
	sb_add(&script, "export TAPSTER_RUN_NOTIFY=/dev/ttyS3\n");
	if (share)
		add_share_script(&script);
	if (files_back) {
		add_files_back_script(&script, args);
	} else {
		sb_add(&script, "exec \"$@\" /job/tapster-run ");
		for (char **p = args; *p; p++)
			add_quoted(&script, *p);
		sb_addc(&script, '\n');
	}
	if (s->output_file && !files_back) {
		char *path = output_file_name(s->output_file);

		if (!path) {
			fprintf(stderr, "ERROR: Invalid FILE name format\n");
			return 1;
		}
		out_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (out_fd < 0) {
			fprintf(stderr, "ERROR: cannot open output file %s: %s\n", path,
				strerror(errno));
			free(path);
			return 1;
		}
		free(path);
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	struct vm_job job = {
		.kit_dir = s->vm_kit_dir,
		.files = files,
		.placed = s->probed_files,
		.run_script = script.buf,
		.out_fd = out_fd,
		.err_fd = STDERR_FILENO,
		.cpus = s->vm_cpus,
		.mem_mb = 512,
		.console_log = getenv("TAPSTER_VM_CONSOLE"),
		.modules = s->probed_modules,
		.outfiles_dir = host_dir,
		.timeout_s = vm_timeout(s),
		.share_root = share ? "/" : NULL,
		.after_boot = "Pass 5: starting the probes",
	};

	struct vm_screen screen = {
		.output = monitor_output,
		.snapshot = monitor_snapshot,
		.keys = monitor_keys,
		.key_fd = STDIN_FILENO,
	};

	/* --monitor: the screen takes the output over; -o's file keeps it. */
	if (s->monitor_interval && monitor_possible() && !s->output_file) {
		job.screen = &screen;
		job.after_boot = NULL;	/* no progress line over the screen */
		monitor_begin(s->monitor_interval);
	}
	if (vm_run(&job, &status) != 0)
		status = 1;
	monitor_end();
	if (out_fd != STDOUT_FILENO)
		close(out_fd);
	free(script.buf);
	free_args(args);
	free(guest_ko);
	free(guest_output);
	free(host_dir);
	free(files);
	return status;
}

int run_module(const struct session *s, const char *ko)
{
	return s->run_in_vm ? run_in_vm(s, ko) : run_local(s, ko);
}
