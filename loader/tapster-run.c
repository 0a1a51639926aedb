// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tapster-run: runs a module built by tapster (staprun's job).
 *
 *   tapster-run [-c CMD] [-x PID] [-o FILE [-D] [-S size[,N]]] [-b MB] [-L] [-v]
 *               MODULE.ko [PARAM=VALUE ...]
 *   tapster-run -A [-o FILE [-D]] [-v] NAME
 *   tapster-run --vm [-c CMD] [-o FILE [-S size[,N]]] [-b MB] [-v] MODULE.ko [PARAM=VALUE ...]
 *
 * It inserts the module, starts the session through /proc/tapster_NAME/ctl, streams the
 * script's output from /proc/tapster_NAME/out (stdout records to stdout or FILE, stderr
 * records to stderr), stops the session when the -c command exits or a signal arrives, and
 * removes the module. The exit status is 1 when the session failed (errors, or more than
 * MAXSKIPPED skipped probe hits) or the -c command failed (exited with a status other than
 * 0 or by a signal, before the session ended: a warning says so, as staprun's), else 0.
 * Who may run it: permissions.c; where the output goes (-o, -S rotation, bulk mode's file
 * per CPU): output.c. --vm runs the module in the bundled VM instead: vm_mode.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wordexp.h>

#include "../runtime/record.h"
#include "loader.h"

struct options {
	const char *command;	/* -c */
	pid_t target_pid;	/* -x */
	struct output_options output;	/* -o, -S */
	unsigned int buffer_mb;	/* -b: output buffer per CPU, overriding the module's */
	bool verbose;
	bool daemon;		/* -D: run in the background (needs -o) */
	bool detach;		/* -L: start the session and leave it running */
	bool attach;		/* -A: MODULE names a module loaded with -L */
	bool vm;		/* --vm: in the bundled VM (vm_mode.c) */
	const char *size_arg, *buffer_arg;	/* -S and -b as given, for --vm */
	const char *module_path;
	char params[1024];	/* module parameters */
	char **param_words;	/* the same, as given */
	int nparam_words;
	unsigned int monitor_s;	/* -M: a snapshot every that many seconds (tapster --monitor) */
};

struct session {
	char name[NAME_MAX];	/* module name */
	char dir[PATH_MAX];	/* /proc/tapster_NAME */
	int out_fd, ctl_fd;
	pid_t child;		/* the -c command, 0 when none or reaped */
	bool child_exited;
	bool child_failed;	/* it exited on its own with a status other than 0, or was
				 * killed by a signal */
	bool stop_sent;
	int go_pipe[2];		/* the child waits on it until the probes are armed */
	int stdin_fd;		/* /proc/systemtap/NAME/__stdin, which our stdin is fed to;
				 * -1 when the module has none, or the input ended */
	unsigned int monitor_s;	/* -M */
	struct timespec next_snapshot;
};

static volatile sig_atomic_t interrupted;

void fail(const char *fmt, ...)
{
	va_list ap;

	fputs("ERROR: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* SIGUSR2: -o's next file, as stapio's (switch_file() sends a record instead). */
static volatile sig_atomic_t switch_requested;

static void on_switch_signal(int sig)
{
	(void)sig;
	switch_requested = 1;
}

static void usage(FILE *out)
{
	fputs("Usage: tapster-run [-c CMD] [-x PID] [-o FILE [-D] [-S size[,N]]] [-b MB] [-L]"
	      " [-M SECONDS] [-v] MODULE.ko [PARAM=VALUE ...]\n"
	      "       tapster-run -A [-o FILE [-D]] [-v] NAME\n"
	      "       tapster-run --vm [-c CMD] [-o FILE [-S size[,N]]] [-b MB] [-v]"
	      " MODULE.ko [PARAM=VALUE ...]\n", out);
}

/* A wrong command line: stap's message on stderr, then the usage on stdout, as staprun. */
static __attribute__((format(printf, 1, 2), noreturn)) void usage_error(const char *fmt, ...)
{
	va_list ap;

	if (fmt) {
		fputs("ERROR: ", stderr);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	fputc('\n', stdout);
	usage(stdout);
	exit(1);
}

/* -S size[,N]: size in MB, N files. */
static void parse_size_limit(const char *arg, struct output_options *out)
{
	char *end;
	unsigned long size = strtoul(arg, &end, 10), count = 0;

	if (*end == ',')
		count = strtoul(end + 1, &end, 10);
	if (*end || end == arg || size > 4095 || count > 100000)
		usage_error("Invalid file size option '%s'.", arg);
	out->max_bytes = (unsigned long long)size << 20;
	out->max_files = (unsigned int)count;
}

/* The combinations staprun refuses, in its words. */
static void check_option_conflicts(const struct options *opt)
{
	if (opt->attach && opt->detach)
		usage_error("You can't specify the '-A' and '-L' options together.");
	if (opt->attach && opt->command)
		usage_error("You can't specify the '-A' and '-c' options together.  The '-c cmd'\n"
			    "option used to start a command only has an effect when the module\n"
			    "is inserted.");
	if (opt->command && opt->target_pid)
		usage_error("You can't specify the '-c' and '-x' options together.");
	if (opt->daemon && opt->detach)
		usage_error("You can't specify the '-D' and '-L' options together.");
	if (opt->daemon && !opt->output.path)
		usage_error("You have to specify output FILE with '-D' option.");
	if (opt->output.max_bytes && !opt->output.path)
		usage_error("You have to specify output FILE with '-S' option.");
	/* In the bundled VM the session ends with the VM, when tapster-run returns. */
	if (opt->vm && (opt->attach || opt->detach || opt->daemon))
		usage_error("You can't specify the '--vm' and '-%c' options together: the session"
			    " in the bundled VM ends with tapster-run.",
			    opt->attach ? 'A' : opt->detach ? 'L' : 'D');
	if (opt->vm && opt->target_pid)
		usage_error("You can't specify the '--vm' and '-x' options together: the bundled"
			    " VM's kernel sees only its own processes (start the program in it with"
			    " -c CMD).");
}

/*
 * Options may come after MODULE too (getopt permutes), as staprun's; the other words after
 * MODULE are module parameters, NAME=VALUE, which the kernel checks.
 */
static void parse_options(int argc, char **argv, struct options *opt)
{
	int c;

	static const struct option long_options[] = {
		{ "vm", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};

	argv[0] = (char *)"tapster-run";	/* getopt's messages: "tapster-run: ..." */
	while ((c = getopt_long(argc, argv, "c:x:o:S:b:M:DLAvh", long_options, NULL)) != -1) {
		char *end;

		switch (c) {
		case 'c':
			opt->command = optarg;
			break;
		case 'x':
			opt->target_pid = atoi(optarg);
			break;
		case 'o':
			opt->output.path = optarg;
			break;
		case 'S':
			parse_size_limit(optarg, &opt->output);
			opt->size_arg = optarg;
			break;
		case 'V':
			opt->vm = true;
			break;
		case 'b':
			opt->buffer_mb = (unsigned int)strtoul(optarg, &end, 10);
			if (*end || opt->buffer_mb < 1 || opt->buffer_mb > 4095)
				usage_error("Invalid buffer size '%s' (should be 1-4095).", optarg);
			opt->buffer_arg = optarg;
			break;
		case 'M':
			opt->monitor_s = (unsigned int)strtoul(optarg, &end, 10);
			if (*end || opt->monitor_s < 1 || opt->monitor_s > 3600)
				usage_error("Invalid monitor interval '%s'.", optarg);
			break;
		case 'v':
			opt->verbose = true;
			break;
		case 'D':
			opt->daemon = true;
			opt->output.background = true;
			break;
		case 'L':
			opt->detach = true;
			break;
		case 'A':
			opt->attach = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage_error(NULL);
		}
	}
	if (optind >= argc)
		usage_error("Need a module name or path to load.");
	opt->module_path = argv[optind++];
	check_option_conflicts(opt);
	if (opt->attach && optind < argc)
		usage_error("Cannot have module options with attach (-A).");
	opt->param_words = argv + optind;
	opt->nparam_words = argc - optind;
	for (; optind < argc; optind++) {
		size_t used = strlen(opt->params);

		snprintf(opt->params + used, sizeof(opt->params) - used, " %s", argv[optind]);
	}
}

/* The module name is the file name without ".ko", as the kernel will call it. */
static void module_name(const char *path, char *name, size_t size)
{
	const char *base = strrchr(path, '/');
	size_t len;

	base = base ? base + 1 : path;
	len = strlen(base);
	if (len > 3 && !strcmp(base + len - 3, ".ko"))
		len -= 3;
	if (len >= size)
		fail("module name too long: %s", base);
	memcpy(name, base, len);
	name[len] = '\0';
	for (char *p = name; *p; p++)
		if (*p == '-')
			*p = '_';
}

/*
 * In the bundled VM, tapster's run.sh gives the -c command the host's files as its root
 * and the user's directory (TAPSTER_RUN_ROOT, TAPSTER_RUN_CWD; src/run/vm_share.h). Only
 * for root: a setuid loader must not chroot on a user's word.
 */
static void enter_command_root(void)
{
	const char *root = getenv("TAPSTER_RUN_ROOT");
	const char *dir = getenv("TAPSTER_RUN_CWD");

	if (!root || !*root || getuid() != 0)
		return;
	if (chroot(root) != 0 || chdir("/") != 0) {
		fprintf(stderr, "ERROR: cannot enter %s: %s\n", root, strerror(errno));
		_exit(127);
	}
	if (dir && *dir && chdir(dir) != 0)
		fprintf(stderr, "WARNING: cannot enter %s in the VM: %s\n", dir, strerror(errno));
	unsetenv("TAPSTER_RUN_ROOT");
	unsetenv("TAPSTER_RUN_CWD");
}

/*
 * Runs the -c command as staprun does: a plain command (no shell syntax, no command
 * substitution, no unset variable) is split as the shell would and exec'd itself, so that
 * target() is its pid whatever the shell forks; anything else, or a program that cannot be
 * exec'd (the shell then says why, in its words), goes to /bin/sh -c.
 */
static void exec_command(const char *command)
{
	wordexp_t words;

	if (wordexp(command, &words, WRDE_NOCMD | WRDE_UNDEF) == 0) {
		if (words.we_wordc > 0)
			execvp(words.we_wordv[0], words.we_wordv);
		wordfree(&words);
	}
	execl("/bin/sh", "sh", "-c", command, (char *)NULL);
	fprintf(stderr, "ERROR: cannot run /bin/sh: %s\n", strerror(errno));
	_exit(127);
}

/* In the bundled VM: "started" on the control port once the probes are armed (tapster's
 * progress line ends there; src/run/vm.h). */
static void notify_started(void)
{
	const char *path = getenv("TAPSTER_RUN_NOTIFY");
	/* With the user's rights: a setuid loader writes no file on their word. */
	int fd = path && *path ? open_as_user(path, O_WRONLY | O_NOCTTY, 0) : -1;

	if (fd >= 0) {
		if (write(fd, "started\n", 8) != 8) {
			/* Only the progress line misses it. */
		}
		close(fd);
	}
}

static long read_counter(const struct session *s, const char *name, char *state, size_t size);

/*
 * In the bundled VM, while "run" arms the probes (the write waits until all are): a child
 * reads ctl's "armed N" and "points M" every quarter second and sends "armed N M" on the
 * control port when they changed (tapster's progress line counts them). Its pid, or 0.
 */
static pid_t start_arming_reports(const struct session *s)
{
	const char *path = getenv("TAPSTER_RUN_NOTIFY");
	pid_t parent = getpid(), pid;
	long last = -1;
	int fd;

	if (!path || !*path)
		return 0;
	/* With the user's rights: a setuid loader writes no file on their word. */
	fd = open_as_user(path, O_WRONLY | O_NOCTTY, 0);
	if (fd < 0)
		return 0;
	pid = fork();
	if (pid != 0) {
		close(fd);
		return pid > 0 ? pid : 0;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	for (;;) {
		long armed, points;
		char line[64];
		int len;

		usleep(250000);
		armed = read_counter(s, "armed", NULL, 0);
		points = read_counter(s, "points", NULL, 0);
		if (points <= 0 || armed == last)
			continue;
		last = armed;
		len = snprintf(line, sizeof(line), "armed %ld %ld\n", armed, points);
		if (write(fd, line, (size_t)len) != len)
			_exit(0);
	}
}

static void stop_arming_reports(pid_t pid)
{
	if (!pid)
		return;
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* The -c command: forked now, held until the probes are armed, then exec'd by the shell. */
static void fork_command(struct session *s, const char *command)
{
	if (pipe2(s->go_pipe, O_CLOEXEC) < 0)
		fail("pipe: %s", strerror(errno));
	s->child = fork();
	if (s->child < 0)
		fail("fork: %s", strerror(errno));
	if (s->child == 0) {
		char go;

		close(s->go_pipe[1]);
		if (read(s->go_pipe[0], &go, 1) != 1)
			_exit(127);	/* the session never started */
		enter_command_root();
		unsetenv("TAPSTER_RUN_NOTIFY");
		/* A setuid loader runs the command as the user who started it. */
		if (setgid(getgid()) != 0 || setuid(getuid()) != 0)
			_exit(127);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		exec_command(command);
	}
	close(s->go_pipe[0]);
}

static void release_command(struct session *s)
{
	if (s->child && write(s->go_pipe[1], "g", 1) != 1)
		fail("cannot start the command: %s", strerror(errno));
	if (s->child)
		close(s->go_pipe[1]);
}

/* The local time zone, for tz_gmtoff() and tz_name(), as module parameters: its offset in
 * seconds west of UTC and its abbreviation now (DST included), as staprun passes them;
 * tz_gmtoff=... and tz_name=... on the command line win. */
static void add_timezone_params(struct options *opt)
{
	size_t used = strlen(opt->params);
	time_t now = time(NULL);
	struct tm local;

	if (!localtime_r(&now, &local))
		return;
	if (!strstr(opt->params, " tz_gmtoff="))
		snprintf(opt->params + used, sizeof(opt->params) - used, " tz_gmtoff=%ld",
			 -(long)local.tm_gmtoff);
	if (!strstr(opt->params, " tz_name=") && local.tm_zone && *local.tm_zone &&
	    strspn(local.tm_zone, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+-")
	    == strlen(local.tm_zone)) {
		used = strlen(opt->params);
		snprintf(opt->params + used, sizeof(opt->params) - used, " tz_name=%s",
			 local.tm_zone);
	}
}

/* The root the -c command gets in the bundled VM (enter_command_root()), for the module's
 * process("PATH") points. */
static void add_user_root_param(struct options *opt)
{
	const char *root = getenv("TAPSTER_RUN_ROOT");
	size_t used = strlen(opt->params);

	if (root && *root && getuid() == 0 && !strchr(root, ' '))
		snprintf(opt->params + used, sizeof(opt->params) - used, " user_root=%s", root);
}

/* stp_pid(): this process's pid (after -D made it a daemon), as stap's stapio's. */
static void add_loader_pid_param(struct options *opt)
{
	size_t used = strlen(opt->params);

	snprintf(opt->params + used, sizeof(opt->params) - used, " stp_pid=%d", (int)getpid());
}

/* Inserts the module of the file `fd`, which stays open: the caller closes it. */
static void insert_module(const struct options *opt, const struct session *s, int fd)
{
	if (syscall(SYS_finit_module, fd, opt->params, 0) != 0) {
		int err = errno;

		if (err == EEXIST)
			fail("Couldn't insert module '%s': module '%s' is already loaded",
			     opt->module_path, s->name);
		if (err == ENOSYS)	/* a kernel built without module support */
			fail("Couldn't insert module '%s': %s\nThis kernel cannot load modules:"
			     " run the script with 'tapster --vm', which builds its module for the"
			     " bundled VM's kernel and runs it there, or a module built for that"
			     " kernel with 'tapster-run --vm MODULE.ko'", opt->module_path,
			     strerror(err));
		fail("Couldn't insert module '%s': %s", opt->module_path, strerror(err));
	}
}

/* The module inserted and not yet removed: removed at exit, whatever made the loader fail. */
static const struct session *inserted;

static void remove_module(const struct session *s)
{
	inserted = NULL;
	for (int tries = 0; tries < 50; tries++) {
		if (syscall(SYS_delete_module, s->name, O_NONBLOCK) == 0)
			return;
		if (errno != EAGAIN && errno != EBUSY)
			break;
		usleep(100000);
	}
	fprintf(stderr, "ERROR: Couldn't remove module '%s': %s\n", s->name, strerror(errno));
}

static int open_proc(const struct session *s, const char *file, int flags)
{
	char path[PATH_MAX + 8];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", s->dir, file);
	fd = open(path, flags | O_CLOEXEC);
	if (fd < 0)
		fail("cannot open %s: %s", path, strerror(errno));
	return fd;
}

static int send_command(struct session *s, const char *cmd)
{
	ssize_t n = pwrite(s->ctl_fd, cmd, strlen(cmd), 0);

	return n < 0 ? -errno : 0;
}

/* One counter of the ctl file ("errors", "failed", "dropped"...), or the state's name. */
static long read_counter(const struct session *s, const char *name, char *state, size_t size)
{
	char text[256], *line;
	ssize_t n = pread(s->ctl_fd, text, sizeof(text) - 1, 0);
	long value = 0;

	if (n <= 0)
		return 0;
	text[n] = '\0';
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *space = strchr(line, ' ');

		if (!space)
			continue;
		*space = '\0';
		if (state && !strcmp(line, "state"))
			snprintf(state, size, "%s", space + 1);
		if (name && !strcmp(line, name))
			value = strtol(space + 1, NULL, 10);
	}
	return value;
}

/*
 * system(CMD) of a probe: CMD runs in the background with /bin/sh -c, as the user who
 * started the loader, its output going where the loader's goes; nobody waits for it
 * (staprun's way). A middle child forks it and exits at once, so that it is never a zombie
 * of ours and its end is not taken for the -c command's.
 */
static void run_system(const char *cmd, size_t len)
{
	char command[4096];
	pid_t middle;

	if (len >= sizeof(command))
		len = sizeof(command) - 1;
	memcpy(command, cmd, len);
	command[len] = '\0';
	middle = fork();
	if (middle < 0) {
		fprintf(stderr, "WARNING: system(): cannot fork: %s\n", strerror(errno));
		return;
	}
	if (middle == 0) {
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		if (setgid(getgid()) != 0 || setuid(getuid()) != 0)
			_exit(127);
		if (fork() == 0) {
			execl("/bin/sh", "sh", "-c", command, (char *)NULL);
			_exit(127);
		}
		_exit(0);
	}
	while (waitpid(middle, NULL, 0) < 0 && errno == EINTR)
		;
}

/* Demultiplexes the records read from out. */
static void forward_records(const char *buf, size_t len)
{
	if (switch_requested) {
		switch_requested = 0;
		output_switch();
	}
	while (len >= sizeof(struct tap_record)) {
		struct tap_record rec;

		memcpy(&rec, buf, sizeof(rec));
		if (rec.len > len - sizeof(rec))
			break;	/* the module hands out whole records; never happens */
		if ((rec.channel & TAP_RECORD_CHANNEL_MASK) == TAP_CHANNEL_STDERR) {
			output_flush();
			write_all(STDERR_FILENO, buf + sizeof(rec), rec.len);
		} else if ((rec.channel & TAP_RECORD_CHANNEL_MASK) == TAP_CHANNEL_SYSTEM) {
			output_flush();
			run_system(buf + sizeof(rec), rec.len);
		} else if ((rec.channel & TAP_RECORD_CHANNEL_MASK) == TAP_CHANNEL_SWITCH) {
			output_switch();
		} else
			output_write(rec.channel >> TAP_RECORD_CPU_SHIFT, buf + sizeof(rec),
				     rec.len);
		buf += sizeof(rec) + rec.len;
		len -= sizeof(rec) + rec.len;
	}
	output_flush();
}

enum drain_result {
	DRAIN_EMPTY,	/* nothing more to read now */
	DRAIN_MORE,	/* there may be more */
	DRAIN_END,	/* the session stopped and everything was read */
};

/*
 * Forwards what the module has buffered. It reads a bounded amount per call: a script can
 * make output faster than it is read (a probe on the very writes that carry it out), and
 * the session loop must still see the command's exit and signals.
 */
static enum drain_result drain_output(struct session *s)
{
	static char buf[1 << 20];

	for (int reads = 0; reads < 16; reads++) {
		ssize_t n = read(s->out_fd, buf, sizeof(buf));

		if (n > 0) {
			forward_records(buf, (size_t)n);
			continue;
		}
		if (n == 0)
			return DRAIN_END;
		if (errno == EAGAIN || errno == EINTR)
			return DRAIN_EMPTY;
		fail("reading the output: %s", strerror(errno));
	}
	return DRAIN_MORE;
}

/* Forwards what the module holds now, until its rings are empty (or the output ended). */
static void drain_all(struct session *s)
{
	while (drain_output(s) == DRAIN_MORE)
		;
}

/*
 * Starts the session: the begin probes, then what they printed goes out, then the other
 * probes are armed; so that begin output always comes first (once armed, a probe on another
 * CPU could print into a ring the loader reads before the begin probes' one). A signal
 * during the begin probes stops the session there: the end probes run, nothing else. -L
 * reads nothing yet: it starts all at once. A module that knows no "begin" is started the
 * old way.
 */
static int start_session(struct session *s, bool detach)
{
	int rc = detach ? -EINVAL : send_command(s, "begin");
	pid_t reports;

	if (rc == -EINVAL)
		return send_command(s, "start");
	if (rc < 0)
		return rc;
	drain_all(s);
	if (interrupted)
		return 0;
	reports = start_arming_reports(s);
	rc = send_command(s, "run");
	stop_arming_reports(reports);
	return rc;
}

static void stop_session(struct session *s)
{
	if (s->stop_sent)
		return;
	s->stop_sent = true;
	send_command(s, "stop");
}

static void check_command(struct session *s)
{
	int status;

	if (!s->child || s->child_exited)
		return;
	if (waitpid(s->child, &status, WNOHANG) == s->child) {
		s->child_exited = true;
		/* As staprun: a command that fails is warned about and fails the run. */
		if (WIFEXITED(status) && WEXITSTATUS(status)) {
			fprintf(stderr, "WARNING: Child process exited with status %d\n",
				WEXITSTATUS(status));
			s->child_failed = true;
		} else if (WIFSIGNALED(status)) {
			fprintf(stderr, "WARNING: Child process exited with signal %d (%s)\n",
				WTERMSIG(status), strsignal(WTERMSIG(status)));
			s->child_failed = true;
		}
		stop_session(s);
	}
}

/*
 * A module with a write probe of /proc/systemtap/NAME/__stdin (input.char, input.line) gets
 * the loader's standard input there, as staprun's: each byte a write(2) of its own, from the
 * probes' arming until the input ends or the session stops. The file exists once the
 * probes are armed.
 */
static void open_stdin_file(struct session *s)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/proc/systemtap/%s/__stdin", s->name);
	s->stdin_fd = open(path, O_WRONLY | O_CLOEXEC);
}

static void close_stdin_file(struct session *s)
{
	if (s->stdin_fd >= 0)
		close(s->stdin_fd);
	s->stdin_fd = -1;
}

/* Feeds what stdin has now, a bounded amount per call so that the loop drains the output
 * between (each write runs the probes, which may print). */
static void feed_stdin(struct session *s)
{
	char buf[256];
	ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		close_stdin_file(s);
		return;
	}
	for (ssize_t i = 0; i < n; i++) {
		/* A probe that fails makes the write fail (EIO): the next byte goes on. */
		if (write(s->stdin_fd, buf + i, 1) < 0 && errno != EIO) {
			close_stdin_file(s);
			return;
		}
	}
}

static void on_child(int sig)
{
	(void)sig;	/* only interrupts ppoll: check_command() looks */
}

/* Appends the whole of file `path` to `buf` (of `size`, `*len` used); false if unreadable. */
static bool append_file(const char *path, char *buf, size_t size, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	ssize_t n;

	if (fd < 0)
		return false;
	while (*len < size && (n = read(fd, buf + *len, size - *len)) > 0)
		*len += (size_t)n;
	close(fd);
	return true;
}

static void append_text(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*len >= size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *len, size - *len, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len = *len + (size_t)n < size ? *len + (size_t)n : size;
}

/*
 * -M: a snapshot for tapster's monitor screen (src/run/monitor.c), sent on the control
 * port as "monitor SIZE" and SIZE bytes: the module's name, the invoker's uid, its memory
 * (/sys/module/NAME/coresize), the module's monitor file (uptime, the points' hits), then
 * "globals" and what the script's __tap_monitor procfs file says of them.
 */
static void send_snapshot(const struct session *s)
{
	static char buf[1 << 16];
	const char *notify = getenv("TAPSTER_RUN_NOTIFY");
	char path[PATH_MAX + 32], size_text[32] = "0", header[64];
	size_t len = 0;
	int fd;

	snprintf(path, sizeof(path), "/sys/module/%s/coresize", s->name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t n = read(fd, size_text, sizeof(size_text) - 1);

		size_text[n > 0 ? n : 0] = '\0';
		size_text[strcspn(size_text, "\n")] = '\0';
		close(fd);
	}
	append_text(buf, sizeof(buf), &len, "module %s\nuid %d\npid %d\nmemory %s\n", s->name,
		    (int)getuid(), (int)getpid(), size_text);
	snprintf(path, sizeof(path), "%s/monitor", s->dir);
	append_file(path, buf, sizeof(buf), &len);
	append_text(buf, sizeof(buf), &len, "globals\n");
	snprintf(path, sizeof(path), "/proc/systemtap/%s/__tap_monitor", s->name);
	append_file(path, buf, sizeof(buf), &len);
	fd = notify && *notify ? open(notify, O_WRONLY | O_NOCTTY | O_CLOEXEC) : -1;
	if (fd < 0)
		return;
	snprintf(header, sizeof(header), "monitor %zu\n", len);
	write_all(fd, header, strlen(header));
	write_all(fd, buf, len);
	close(fd);
}

/* The time left until the next snapshot is due, sending it when it is. */
static struct timespec monitor_tick(struct session *s)
{
	struct timespec now, left;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec > s->next_snapshot.tv_sec ||
	    (now.tv_sec == s->next_snapshot.tv_sec && now.tv_nsec >= s->next_snapshot.tv_nsec)) {
		if (!s->stop_sent)
			send_snapshot(s);
		s->next_snapshot.tv_sec = now.tv_sec + s->monitor_s;
		s->next_snapshot.tv_nsec = now.tv_nsec;
	}
	left.tv_sec = s->next_snapshot.tv_sec - now.tv_sec;
	left.tv_nsec = s->next_snapshot.tv_nsec - now.tv_nsec;
	if (left.tv_nsec < 0) {
		left.tv_sec--;
		left.tv_nsec += 1000000000L;
	}
	return left;
}

/*
 * Forwards output until the session ends. The loop sleeps in ppoll, the only place where
 * the signals it handles (the command's end, INT, TERM, HUP) are let in, so none is missed
 * between a check and the sleep and none needs a timeout to be seen: the session costs the
 * traced system nothing while its module has no output (the timeout is only a safety net).
 */
static void run_session(struct session *s)
{
	struct pollfd pfd[2] = { { .fd = s->out_fd, .events = POLLIN },
				  { .fd = STDIN_FILENO, .events = POLLIN } };
	struct sigaction sa = { .sa_handler = on_child };
	struct timespec timeout = { .tv_sec = 1 };
	sigset_t handled, sleeping;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	sigemptyset(&handled);
	sigaddset(&handled, SIGCHLD);
	sigaddset(&handled, SIGINT);
	sigaddset(&handled, SIGTERM);
	sigaddset(&handled, SIGHUP);
	sigprocmask(SIG_BLOCK, &handled, &sleeping);
	sigdelset(&sleeping, SIGCHLD);
	sigdelset(&sleeping, SIGINT);
	sigdelset(&sleeping, SIGTERM);
	sigdelset(&sleeping, SIGHUP);
	for (;;) {
		if (interrupted)
			stop_session(s);
		check_command(s);
		if (s->stop_sent)
			close_stdin_file(s);
		if (s->monitor_s)
			timeout = monitor_tick(s);
		pfd[1].revents = 0;
		if (ppoll(pfd, s->stdin_fd >= 0 ? 2 : 1, &timeout, &sleeping) < 0 &&
		    errno != EINTR)
			fail("poll: %s", strerror(errno));
		if (pfd[1].revents && s->stdin_fd >= 0)
			feed_stdin(s);
		if (drain_output(s) == DRAIN_END)
			break;
	}
	sigprocmask(SIG_UNBLOCK, &handled, NULL);
}

/* The -c command may outlive the script (exit() in a probe): it ends with the session. */
static void end_command(struct session *s)
{
	int status;

	if (!s->child || s->child_exited)
		return;
	kill(s->child, SIGTERM);
	if (waitpid(s->child, &status, 0) == s->child)
		s->child_exited = true;
}

static void remove_inserted(void)
{
	if (inserted)
		remove_module(inserted);
}

static void install_signals(void)
{
	atexit(remove_inserted);
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_switch_signal;
	sigaction(SIGUSR2, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* -D: the parent prints the pid of the child that carries on, detached from the terminal. */
static void become_daemon(void)
{
	pid_t pid = fork();
	int null;

	if (pid < 0)
		fail("fork: %s", strerror(errno));
	if (pid > 0) {
		printf("%d\n", (int)pid);
		exit(0);
	}
	setsid();
	null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		if (null > STDERR_FILENO)
			close(null);
	}
}

/* -L: the session runs on without a reader until `tapster-run -A NAME` attaches. */
static int detach_session(struct session *s)
{
	inserted = NULL;	/* it stays */
	close(s->out_fd);
	close(s->ctl_fd);
	printf("Disconnecting from tapster module.\nTo reconnect, type \"tapster-run -A %s\"\n",
	       s->name);
	return 0;
}

/* The end of a session: its report, then the module goes. */
static int finish_session(struct session *s, const struct options *opt)
{
	long errors = read_counter(s, "errors", NULL, 0);
	long failed = read_counter(s, "failed", NULL, 0);	/* errors, too many skips */
	long dropped = read_counter(s, "dropped", NULL, 0);

	if (dropped)
		fprintf(stderr, "WARNING: There were %ld transport failures. Try tapster -s to"
			" increase the buffer size from %ld.\n", dropped,
			read_counter(s, "bufsize", NULL, 0) >> 20);
	output_close();
	close(s->out_fd);
	close(s->ctl_fd);
	remove_module(s);
	end_command(s);
	if (opt->verbose)
		fprintf(stderr, "tapster-run: session ended, errors %ld\n", errors);
	return failed || s->child_failed ? 1 : 0;
}

/* -A NAME: reads the output of a session that -L left running, and ends it as usual. */
static int attach_session(struct session *s, struct options *opt)
{
	check_may_attach();
	module_name(opt->module_path, s->name, sizeof(s->name));
	snprintf(s->dir, sizeof(s->dir), "/proc/tapster_%s", s->name);
	if (access(s->dir, F_OK) != 0)
		fail("Cannot attach to module %s control channel; not running?", s->name);
	s->out_fd = open_proc(s, "out", O_RDONLY | O_NONBLOCK);
	s->ctl_fd = open_proc(s, "ctl", O_RDWR);
	opt->output.bulk = read_counter(s, "bulk", NULL, 0) != 0;
	output_init(&opt->output);
	output_open_first();
	if (opt->daemon)
		become_daemon();
	install_signals();
	run_session(s);
	return finish_session(s, opt);
}

int main(int argc, char **argv)
{
	struct options opt = { 0 };
	struct session s = { .stdin_fd = -1 };
	int rc, module_fd;

	parse_options(argc, argv, &opt);
	if (opt.vm) {
		struct vm_mode_options vm = {
			.module_path = opt.module_path,
			.command = opt.command,
			.output_path = opt.output.path,
			.size_limit = opt.size_arg,
			.buffer_mb = opt.buffer_arg,
			.verbose = opt.verbose,
			.params = opt.param_words,
			.nparams = opt.nparam_words,
		};

		return run_module_in_vm(&vm);
	}
	if (opt.attach)
		return attach_session(&s, &opt);
	module_fd = open_module_checked(opt.module_path);
	if (!module_name_from_modinfo(module_fd, s.name, sizeof(s.name)))
		module_name(opt.module_path, s.name, sizeof(s.name));
	snprintf(s.dir, sizeof(s.dir), "/proc/tapster_%s", s.name);
	if (opt.daemon) {
		output_init(&opt.output);	/* fails here, in the foreground, if it can't */
		output_open_first();
		output_close();
		become_daemon();
	}
	if (opt.buffer_mb) {
		size_t used = strlen(opt.params);

		snprintf(opt.params + used, sizeof(opt.params) - used, " bufsize=%u",
			 opt.buffer_mb << 20);
	}
	install_signals();
	if (opt.command)
		fork_command(&s, opt.command);
	if (s.child || opt.target_pid) {
		size_t used = strlen(opt.params);

		snprintf(opt.params + used, sizeof(opt.params) - used, " target=%d",
			 s.child ? (int)s.child : (int)opt.target_pid);
	}
	add_timezone_params(&opt);
	add_loader_pid_param(&opt);
	add_user_root_param(&opt);
	insert_module(&opt, &s, module_fd);
	inserted = &s;
	close(module_fd);
	s.out_fd = open_proc(&s, "out", O_RDONLY | O_NONBLOCK);
	s.ctl_fd = open_proc(&s, "ctl", O_RDWR);
	opt.output.bulk = read_counter(&s, "bulk", NULL, 0) != 0;
	output_init(&opt.output);
	output_open_first();
	rc = start_session(&s, opt.detach);
	if (rc < 0) {
		/* The module said why on its stderr channel. */
		s.stop_sent = true;
		while (drain_output(&s) != DRAIN_END)
			usleep(10000);
		remove_module(&s);
		end_command(&s);
		return 1;
	}
	notify_started();
	s.monitor_s = opt.monitor_s;
	if (!interrupted)
		release_command(&s);
	if (opt.detach)
		return detach_session(&s);
	open_stdin_file(&s);
	run_session(&s);
	return finish_session(&s, &opt);
}
