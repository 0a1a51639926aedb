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
#include "run/vm_module.h"

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
	char **argv = xcalloc(17 + (size_t)s->global_values.count, sizeof(*argv));
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
	/* -G NAME=VALUE: module parameters, after the module, as staprun takes them. */
	for (int i = 0; i < s->global_values.count; i++)
		argv[n++] = xstrdup(s->global_values.items[i]);
	/* --target-namespace=PID: the ns_* functions' namespaces are that process's. */
	if (s->target_namespace_pid)
		argv[n++] = xasprintf("target_ns_pid=%d", s->target_namespace_pid);
	return argv;
}

char **run_loader_args(const struct session *s, const char *ko)
{
	return loader_args(s, ko, NULL);
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

/* The guest's /job/ files: the module, the loader, and the -d files (so that a -c command
 * can run /job/PROGRAM and find its symbols), one per base name; NULL-terminated. */
static const char **vm_job_files(const struct session *s, const char *ko, const char *input)
{
	const char **files = xcalloc((size_t)s->nsymbol_files + 4, sizeof(*files));
	size_t n = 0;

	files[n++] = ko;
	files[n++] = s->loader_path;
	if (input)
		files[n++] = input;
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

/*
 * input.char/input.line in the VM: the loader there reads the host's standard input, all of
 * it, read before the boot into a file that the guest gets as /job/GUEST_STDIN (a pipe or a
 * file as it is; a terminal until its end, ^D). NULL when it cannot be kept.
 */
#define GUEST_STDIN "tapster-stdin"

static bool write_whole(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		buf += n;
		len -= (size_t)n;
	}
	return true;
}

static char *save_stdin(const struct session *s)
{
	char *path = xasprintf("%s/" GUEST_STDIN, s->tmpdir);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	char buf[65536];
	ssize_t n;

	if (fd < 0) {
		fprintf(stderr, "ERROR: cannot create %s: %s\n", path, strerror(errno));
		free(path);
		return NULL;
	}
	if (isatty(STDIN_FILENO))
		fputs("tapster: the VM gets the standard input whole: reading it until its end"
		      " (^D)\n", stderr);
	while ((n = read(STDIN_FILENO, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || !write_whole(fd, buf, (size_t)n))
			break;	/* what came so far is the input */
	}
	close(fd);
	return path;
}

static int run_in_vm(const struct session *s, const char *ko)
{
	const char *base = strrchr(ko, '/') ? strrchr(ko, '/') + 1 : ko;
	char *guest_ko = xasprintf(VM_GUEST_JOB_DIR "/%s", base);
	/* -o with -S, -b or switch_file(): the loader writes files in the guest, which come
	 * back after. */
	bool files_back = s->output_file && (s->size_limit || s->bulk || s->switches_files);
	char *guest_output = NULL, *host_dir = NULL;
	char *input = NULL;
	const char **files;
	int out_fd = STDOUT_FILENO;
	char **args;
	int status;

	if (s->flight_recorder || s->target_pid) {
		/* The session would end with the VM, when tapster returns; a host pid is not
		 * the guest's. */
		fputs(s->flight_recorder ? VM_FLIGHT_RECORDER_ERROR : VM_TARGET_PID_ERROR, stderr);
		free(guest_ko);
		return 1;
	}
	if (s->reads_stdin)
		input = save_stdin(s);
	files = vm_job_files(s, ko, input);
	if (files_back) {
		const char *slash = strrchr(s->output_file, '/');

		guest_output = xasprintf(VM_GUEST_OUTPUT_DIR "/%s",
					 slash ? slash + 1 : s->output_file);
		host_dir = slash ? xstrndup(s->output_file, (size_t)(slash - s->output_file)) :
				   xstrdup(".");
		if (!*host_dir) {
			free(host_dir);
			host_dir = xstrdup("/");
		}
	} else if (s->output_file) {
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
	args = loader_args(s, guest_ko, guest_output);

	struct vm_module_run run = {
		.kit_dir = s->vm_kit_dir,
		.vmkit_path = s->vmkit_path,
		.job_files = files,
		.loader_args = (const char *const *)args,
		.command = s->command,
		.outfiles_dir = host_dir,
		.out_fd = out_fd,
		/* --monitor: the screen takes the output over; -o's file keeps it. */
		.monitor_interval = s->output_file ? 0 : s->monitor_interval,
		.stdin_file = input ? VM_GUEST_JOB_DIR "/" GUEST_STDIN : NULL,
		.placed = s->probed_files,
		.modules = s->probed_modules,
		.cpus = s->vm_cpus,
		.timeout_s = vm_timeout(s),
	};

	status = vm_module_run(&run);
	if (out_fd != STDOUT_FILENO)
		close(out_fd);
	if (input)
		unlink(input);
	free(input);
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
