// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --remote=URL (remote.h): a worker process per target, its output merged here line by line.
 */
#define _GNU_SOURCE
#include "run/remote.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"
#include "run/run.h"

#define REMOTE_MAX_DEFAULT 16
/* Set for the tapster that builds for a target: its release, or "-" for direct://. */
#define REMOTE_PASS_ENV "TAPSTER_REMOTE_PASS"
/* The script read from standard input (`-`), kept for those passes. */
#define REMOTE_SCRIPT_ENV "TAPSTER_REMOTE_SCRIPT"
#define REMOTE_LOCAL "-"
/* Where that pass's -p4 puts NAME.ko when the cache does not keep it. */
#define REMOTE_MODULE_DIR_ENV "TAPSTER_REMOTE_MODULE_DIR"

struct target {
	const char *url;	/* as given: what messages name */
	bool direct;		/* direct://: this host */
	char *user, *host, *port;	/* NULL when not given */
};

struct remote {
	const struct session *s;
	char *const *argv;	/* tapster's, for the passes it runs again */
	struct target *targets;
	int ntargets;
	char *dir;		/* control sockets, the modules' builds and their locks */
};

/* ---- URLs ---- */

static bool valid_port(const char *port)
{
	long value;
	char *end;

	if (!*port)
		return false;
	value = strtol(port, &end, 10);
	return !*end && value > 0 && value < 65536;
}

/* [USER@]HOST[:PORT] of ssh://, or [USER@]HOST of the short form; NULL or why not. */
static char *parse_authority(const char *text, bool with_port, struct target *t)
{
	const char *at = strrchr(text, '@');
	const char *host = at ? at + 1 : text;
	const char *colon = with_port ? strrchr(host, ':') : NULL;
	size_t host_len = colon ? (size_t)(colon - host) : strlen(host);

	if (!host_len)
		return xstrdup("ssh target requires a hostname");
	if (*host == '-' || (at && (at == text || *text == '-')))
		return xasprintf("ssh target URI has a name that ssh would take for an option: %s",
				 t->url);
	if (colon && !valid_port(colon + 1))
		return xasprintf("ssh target URI has an invalid port: %s", t->url);
	t->user = at ? xstrndup(text, (size_t)(at - text)) : NULL;
	t->host = xstrndup(host, host_len);
	t->port = colon ? xstrdup(colon + 1) : NULL;
	return NULL;
}

static char *parse_target(const char *url, struct target *t)
{
	const char *colon = strchr(url, ':');
	char *scheme, *why = NULL;

	memset(t, 0, sizeof(*t));
	t->url = url;
	if (!colon)	/* stap's short form: [USER@]HOSTNAME */
		return parse_authority(url, false, t);
	scheme = xstrndup(url, (size_t)(colon - url));
	if (!strcmp(scheme, "direct") && (!strcmp(colon, "://") || !strcmp(colon, ":///"))) {
		t->direct = true;
	} else if (!strcmp(scheme, "ssh") && !strncmp(colon, "://", 3)) {
		const char *authority = colon + 3;
		size_t len = strcspn(authority, "/?#");
		const char *rest = authority + len;
		char *text = xstrndup(authority, len);

		if (*rest == '/' && rest[1])
			why = xstrdup("ssh target URI doesn't support a /path");
		else if (*rest == '?')
			why = xstrdup("ssh target URI doesn't support a ?query");
		else if (*rest == '#')
			why = xstrdup("ssh target URI doesn't support a #fragment");
		else
			why = parse_authority(text, true, t);
		free(text);
	} else if (!strcmp(scheme, "unix") || !strcmp(scheme, "libvirt") ||
		   !strcmp(scheme, "stapsh") || !strcmp(scheme, "direct")) {
		why = xasprintf("tapster's --remote takes ssh:// and direct:// targets (stap's %s:"
				" targets speak its stapsh protocol): %s", scheme, url);
	} else {
		why = xasprintf("unrecognized URI scheme '%s' in remote: %s", scheme, url);
	}
	free(scheme);
	return why;
}

static void free_target(struct target *t)
{
	free(t->user);
	free(t->host);
	free(t->port);
}

char *remote_url_error(const char *url)
{
	struct target t;
	char *why = parse_target(url, &t);

	free_target(&t);
	return why;
}

void remote_pass_setup(struct session *s)
{
	const char *pass = getenv(REMOTE_PASS_ENV);

	if (!pass)
		return;
	s->remotes.count = 0;
	s->remote_prefix = false;
	s->output_file = NULL;	/* -o is written by the tapster that merges the output */
	if (!strcmp(pass, REMOTE_LOCAL))
		return;
	s->kernel = pass;
	if (s->last_pass > 4) {
		s->last_pass = 4;
		s->module_dir = getenv(REMOTE_MODULE_DIR_ENV);
	}
}

/* ---- processes ---- */

/* A pass of the session run again reads `-`'s script, kept by remote_run(), on its stdin. */
static void stdin_from_script(void)
{
	const char *script = getenv(REMOTE_SCRIPT_ENV);
	int fd = script ? open(script, O_RDONLY) : -1;

	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		close(fd);
	}
}

struct args {
	char **v;
	int n;
};

static void args_add(struct args *a, const char *word)
{
	a->v = xrealloc(a->v, (size_t)(a->n + 2) * sizeof(*a->v));
	a->v[a->n++] = xstrdup(word);
	a->v[a->n] = NULL;
}

static void args_free(struct args *a)
{
	for (int i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	a->v = NULL;
	a->n = 0;
}

/* Starts argv with stdin from in_fd (-1: /dev/null) and stdout to out_fd (-1: ours). */
static pid_t spawn(char *const *argv, int in_fd, int out_fd)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	if (in_fd < 0)
		in_fd = open("/dev/null", O_RDONLY);
	if (in_fd >= 0 && in_fd != STDIN_FILENO)
		dup2(in_fd, STDIN_FILENO);
	if (out_fd >= 0 && out_fd != STDOUT_FILENO)
		dup2(out_fd, STDOUT_FILENO);
	execvp(argv[0], argv);
	fprintf(stderr, "ERROR: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

static volatile sig_atomic_t pending_signal;

static void note_signal(int sig)
{
	pending_signal = sig;
}

/* INT, TERM and HUP to note_signal, without SA_RESTART: a wait returns on them. */
static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = note_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* Its exit status, 128 + N for signal N. */
static int wait_for(pid_t pid)
{
	int status;

	if (pid < 0)
		return 127;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 127;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int run_quiet(char *const *argv)
{
	return wait_for(spawn(argv, -1, -1));
}

/* Runs argv, its stdin from in_fd; *out gets its whole stdout (malloc'd). */
static int run_capture(char *const *argv, int in_fd, char **out)
{
	struct strbuf sb = { 0 };
	char buf[4096];
	int fds[2];
	pid_t pid;
	ssize_t n;

	if (pipe2(fds, O_CLOEXEC) != 0) {
		*out = xstrdup("");
		return 127;
	}
	pid = spawn(argv, in_fd, fds[1]);
	close(fds[1]);
	while ((n = read(fds[0], buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		sb_addn(&sb, buf, (size_t)n);
	}
	close(fds[0]);
	*out = sb_steal(&sb);
	return wait_for(pid);
}

/* ---- ssh ---- */

static void shell_quote(struct strbuf *sb, const char *word)
{
	sb_addc(sb, '\'');
	for (const char *p = word; *p; p++) {
		if (*p == '\'')
			sb_add(sb, "'\\''");
		else
			sb_addc(sb, *p);
	}
	sb_addc(sb, '\'');
}

/* ssh to target `index` over its control socket, with `extra` options before the host and
 * the remote `command` (may be NULL) after it. */
static char **ssh_argv(const struct remote *r, int index, const char *const *extra,
		       const char *command)
{
	const struct target *t = &r->targets[index];
	const char *env = getenv("TAPSTER_SSH_COMMAND");
	char *words = xstrdup(env && *env ? env : "ssh"), *save = NULL, *control;
	struct args a = { 0 };

	for (char *w = strtok_r(words, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
		args_add(&a, w);
	free(words);
	control = xasprintf("ControlPath=%s/ssh-%d", r->dir, index);
	args_add(&a, "-o");
	args_add(&a, control);
	free(control);
	args_add(&a, "-o");
	args_add(&a, "BatchMode=yes");
	args_add(&a, "-T");
	for (const char *const *e = extra; e && *e; e++)
		args_add(&a, *e);
	if (t->port) {
		args_add(&a, "-p");
		args_add(&a, t->port);
	}
	if (t->user) {
		args_add(&a, "-l");
		args_add(&a, t->user);
	}
	args_add(&a, t->host);
	if (command)
		args_add(&a, command);
	return a.v;
}

static void free_argv(char **argv)
{
	struct args a = { argv, 0 };

	while (argv && argv[a.n])
		a.n++;
	args_free(&a);
}

static int ssh_run(const struct remote *r, int index, const char *command)
{
	char **argv = ssh_argv(r, index, NULL, command);
	int status = run_quiet(argv);

	free_argv(argv);
	return status;
}

static int ssh_capture(const struct remote *r, int index, const char *command, int in_fd,
		       char **out)
{
	char **argv = ssh_argv(r, index, NULL, command);
	int status = run_capture(argv, in_fd, out);

	free_argv(argv);
	return status;
}

/* Whether the target's control master still runs (its socket is there): a command that
 * would open a connection of its own to a host lost in the middle is not run. */
static bool master_alive(const struct remote *r, int index)
{
	char *socket = xasprintf("%s/ssh-%d", r->dir, index);
	bool alive = access(socket, F_OK) == 0;

	free(socket);
	return alive;
}

static void ssh_close_master(const struct remote *r, int index)
{
	static const char *const stop[] = { "-O", "exit", NULL };
	char **argv;
	char *out;

	if (!master_alive(r, index))
		return;
	argv = ssh_argv(r, index, stop, NULL);
	/* "Exit request sent." goes to stderr: kept out of the session's. */
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	int saved = dup(STDERR_FILENO);

	dup2(null, STDERR_FILENO);
	run_capture(argv, -1, &out);
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(null);
	free(out);
	free_argv(argv);
}

/* ---- the module for a release ---- */

static bool plain_release(const char *release)
{
	if (!*release)
		return false;
	for (const char *p = release; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-", *p))
			return false;
	return true;
}

/* Runs tapster again for `release` (passes 1-4, or up to -p's); its stdout is captured
 * for pass 5 (the module's path), else passed on. */
static char *build_for(const struct remote *r, const char *release, const char *build_dir)
{
	bool module_wanted = r->s->last_pass >= 5;
	int fds[2] = { -1, -1 };
	struct strbuf out = { 0 };
	char buf[4096];
	pid_t pid;
	ssize_t n;

	if (module_wanted && pipe2(fds, O_CLOEXEC) != 0)
		return NULL;
	pid = fork();
	if (pid == 0) {
		if (fds[1] >= 0)
			dup2(fds[1], STDOUT_FILENO);
		setenv(REMOTE_PASS_ENV, release, 1);
		setenv(REMOTE_MODULE_DIR_ENV, build_dir, 1);
		stdin_from_script();
		execv("/proc/self/exe", r->argv);
		_exit(127);
	}
	if (fds[1] >= 0)
		close(fds[1]);
	while (fds[0] >= 0 && (n = read(fds[0], buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		sb_addn(&out, buf, (size_t)n);
	}
	if (fds[0] >= 0)
		close(fds[0]);
	char *text = sb_steal(&out);
	int status = wait_for(pid);

	if (status != 0 || !module_wanted) {
		free(text);
		return status ? NULL : xstrdup("");
	}
	text[strcspn(text, "\n")] = '\0';
	return text;
}

/* The module built for `release`, once for all the targets that run it: the first worker
 * to ask builds it under the release's lock, the others read what it left. NULL when the
 * build failed (its errors said so). */
static char *module_for(const struct remote *r, const char *release)
{
	char *lock_path = xasprintf("%s/kver-%s.lock", r->dir, release);
	char *result_path = xasprintf("%s/kver-%s.result", r->dir, release);
	char *build_dir = xasprintf("%s/build-%s", r->dir, release);
	int lock = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	char *path = NULL;

	if (lock >= 0 && flock(lock, LOCK_EX) == 0) {
		path = read_text_file(result_path, NULL);
		if (!path) {
			FILE *f;

			mkdir(build_dir, 0700);
			path = build_for(r, release, build_dir);
			f = fopen(result_path, "w");
			if (f) {
				fputs(path ? path : "", f);
				fclose(f);
			}
		}
		if (path && !*path && r->s->last_pass >= 5) {
			free(path);
			path = NULL;
		}
	}
	if (lock >= 0)
		close(lock);
	free(lock_path);
	free(result_path);
	free(build_dir);
	return path;
}

/* ---- a target's session (the worker) ---- */

struct facts {
	char release[256], arch[64], loader[1024];
};

/* "RELEASE ARCH [LOADER]" */
static bool read_facts(const char *text, struct facts *f)
{
	f->loader[0] = '\0';
	return sscanf(text, "%255s %63s %1023s", f->release, f->arch, f->loader) >= 2;
}

/* The remote shell's command: tapster-run in the module's directory, and beside it a
 * reader of our standard input that sends each signal name it reads to the loader (ssh
 * carries no signal), or TERM when the connection goes. */
static char *run_command(const struct remote *r, int index, const char *dir,
			 const char *loader, const char *ko_name)
{
	char **loader_args = run_loader_args(r->s, ko_name);
	struct strbuf sb = { 0 };
	char *param;

	sb_add(&sb, "cd ");
	shell_quote(&sb, dir);
	sb_add(&sb, " || exit 127; exec 3<&0; (while read -r s <&3; do kill -\"$s\" $$; done;"
	       " [ \"$(cat /proc/$$/comm 2>/dev/null)\" = tapster-run ] && kill -TERM $$)"
	       " </dev/null >/dev/null 2>&1 & exec ");
	shell_quote(&sb, loader);
	for (char **a = loader_args; *a; a++) {
		sb_addc(&sb, ' ');
		shell_quote(&sb, *a);
	}
	/* remote_id(), remote_uri(): module parameters, after the module as -G's. */
	param = xasprintf("remote_id=%d", index);
	sb_addc(&sb, ' ');
	shell_quote(&sb, param);
	free(param);
	param = xasprintf("remote_uri=%s", r->targets[index].url);
	sb_addc(&sb, ' ');
	shell_quote(&sb, param);
	free(param);
	sb_add(&sb, " </dev/null 3<&-");
	free_argv(loader_args);
	return sb_steal(&sb);
}

static const char *signal_word(int sig)
{
	return sig == SIGTERM ? "TERM\n" : sig == SIGHUP ? "HUP\n" : "INT\n";
}

/* Runs the session over ssh, passing on the signals the worker gets. */
static int run_session(const struct remote *r, int index, const char *command)
{
	char **argv = ssh_argv(r, index, NULL, command);
	int fds[2];
	pid_t pid;
	int status;

	if (pipe2(fds, O_CLOEXEC) != 0) {
		free_argv(argv);
		return 127;
	}
	pid = spawn(argv, fds[0], -1);
	close(fds[0]);
	free_argv(argv);
	if (pid < 0) {
		close(fds[1]);
		return 127;
	}
	signal(SIGPIPE, SIG_IGN);
	for (;;) {
		if (waitpid(pid, &status, 0) == pid)
			break;
		if (errno != EINTR) {
			status = 127 << 8;
			break;
		}
		if (pending_signal) {
			const char *word = signal_word(pending_signal);

			pending_signal = 0;
			if (write(fds[1], word, strlen(word)) < 0)
				break;
		}
	}
	close(fds[1]);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int copy_and_run(const struct remote *r, int index, const char *ko, const char *loader)
{
	const char *url = r->targets[index].url;
	const char *base = strrchr(ko, '/') ? strrchr(ko, '/') + 1 : ko;
	struct strbuf sb = { 0 };
	char *dir, *command, *cleanup;
	int in = open(ko, O_RDONLY | O_CLOEXEC), status;

	sb_add(&sb, "d=$(mktemp -d /tmp/tapster.XXXXXX) && cat >\"$d\"/");
	shell_quote(&sb, base);
	sb_add(&sb, " && echo \"$d\"");
	command = sb_steal(&sb);
	status = in < 0 ? 127 : ssh_capture(r, index, command, in, &dir);
	if (in >= 0)
		close(in);
	free(command);
	if (in >= 0)
		dir[strcspn(dir, "\n")] = '\0';
	if (status != 0 || in < 0 || dir[0] != '/') {
		fprintf(stderr, "WARNING: failed to copy the module to %s : rc=%d\n", url, status);
		if (in >= 0)
			free(dir);
		return 1;
	}
	command = run_command(r, index, dir, loader, base);
	status = pending_signal ? 0 : run_session(r, index, command);
	free(command);
	shell_quote(&sb, dir);
	cleanup = xasprintf("rm -rf %s", sb.buf);
	free(sb.buf);
	if (master_alive(r, index))
		ssh_run(r, index, cleanup);
	free(cleanup);
	free(dir);
	if (status != 0)
		fprintf(stderr, "WARNING: failed to run the module on %s : ret=%d\n", url, status);
	return status != 0;
}

static int remote_worker(const struct remote *r, int index)
{
	static const char *const master[] = { "-M", "-N", "-f", "-o", "ConnectTimeout=30",
					      "-o", "ServerAliveInterval=10", NULL };
	const char *url = r->targets[index].url;
	char **argv = ssh_argv(r, index, master, NULL);
	int status = run_quiet(argv);
	struct facts facts;
	char *text, *ko;

	free_argv(argv);
	if (status != 0) {
		fprintf(stderr, "WARNING: failed to create an ssh control master for %s : rc= %d\n",
			url, status);
		return 1;
	}
	status = ssh_capture(r, index, "echo \"$(uname -r) $(uname -m) $(command -v tapster-run)\"",
			     -1, &text);
	if (status != 0 || !read_facts(text, &facts)) {
		fprintf(stderr, "WARNING: failed to get uname from %s : rc= %d\n", url, status);
		free(text);
		ssh_close_master(r, index);
		return 1;
	}
	free(text);
	status = 1;
	if (strcmp(facts.arch, "x86_64"))
		fprintf(stderr, "WARNING: %s is %s: tapster builds modules for x86_64 only\n", url,
			facts.arch);
	else if (!plain_release(facts.release))
		fprintf(stderr, "WARNING: %s says its kernel release is '%s'\n", url, facts.release);
	else if (!facts.loader[0] && r->s->last_pass >= 5)
		fprintf(stderr, "ERROR: tapster-run is not installed on %s (it is not in the PATH"
			" of the ssh user there); install tapster there\n", url);
	else if (!(ko = module_for(r, facts.release)))
		fprintf(stderr, "WARNING: no module for %s (kernel %s)\n", url, facts.release);
	else {
		status = r->s->last_pass >= 5 ? copy_and_run(r, index, ko, facts.loader) : 0;
		free(ko);
	}
	ssh_close_master(r, index);
	return status;
}

/* ---- the merge ---- */

struct slot {
	pid_t pid;		/* 0: not started; -1: done */
	int fd[2];		/* the worker's stdout, stderr; -1 once closed */
	struct strbuf partial[2];
	bool whole_group;	/* direct://: tapster and its loader are the worker's group */
	int status;
};

static void write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		buf += n;
		len -= (size_t)n;
	}
}

/* Writes the complete lines of `pb` (all of it when `flush`), each in one write. */
static void emit_lines(const struct remote *r, int index, struct strbuf *pb, int out_fd,
		       bool flush)
{
	size_t start = 0;

	while (start < pb->len) {
		char *nl = memchr(pb->buf + start, '\n', pb->len - start);
		size_t end = nl ? (size_t)(nl - pb->buf) + 1 : pb->len;
		struct strbuf line = { 0 };

		if (!nl && !flush)
			break;
		if (r->s->remote_prefix)
			sb_addf(&line, "%d: ", index);
		sb_addn(&line, pb->buf + start, end - start);
		write_all(out_fd, line.buf, line.len);
		free(line.buf);
		start = end;
	}
	memmove(pb->buf, pb->buf + start, pb->len - start);
	pb->len -= start;
}

static void read_worker(const struct remote *r, struct slot *sl, int index, int k, int out_fd)
{
	char buf[8192];
	ssize_t n;

	while (sl->fd[k] >= 0) {
		n = read(sl->fd[k], buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			emit_lines(r, index, &sl->partial[k], out_fd, true);
			close(sl->fd[k]);
			sl->fd[k] = -1;
			return;
		}
		sb_addn(&sl->partial[k], buf, (size_t)n);
		emit_lines(r, index, &sl->partial[k], out_fd, false);
	}
}

static void start_worker(const struct remote *r, struct slot *sl, int index)
{
	int out[2], err[2];

	if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
		fprintf(stderr, "WARNING: cannot start the session on %s: %s\n",
			r->targets[index].url, strerror(errno));
		sl->pid = -1;
		sl->status = 1;
		return;
	}
	sl->whole_group = r->targets[index].direct;
	sl->pid = fork();
	if (sl->pid == 0) {
		/* Its own process group: a ^C on the terminal reaches tapster alone, which
		 * passes it on in the way that each target takes it. */
		setpgid(0, 0);
		dup2(out[1], STDOUT_FILENO);
		dup2(err[1], STDERR_FILENO);
		if (r->targets[index].direct) {
			signal(SIGINT, SIG_DFL);
			signal(SIGTERM, SIG_DFL);
			signal(SIGHUP, SIG_DFL);
			setenv(REMOTE_PASS_ENV, REMOTE_LOCAL, 1);
			stdin_from_script();
			execv("/proc/self/exe", r->argv);
			_exit(127);
		}
		pending_signal = 0;
		_exit(remote_worker(r, index));
	}
	if (sl->pid > 0)
		setpgid(sl->pid, sl->pid);
	close(out[1]);
	close(err[1]);
	sl->fd[0] = out[0];
	sl->fd[1] = err[0];
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	fcntl(err[0], F_SETFL, O_NONBLOCK);
	if (sl->pid < 0) {
		sl->status = 1;
		close(out[0]);
		close(err[0]);
		sl->fd[0] = sl->fd[1] = -1;
	}
}

static void forward_signal(struct slot *slots, int n, int sig)
{
	for (int i = 0; i < n; i++)
		if (slots[i].pid > 0)
			kill(slots[i].whole_group ? -slots[i].pid : slots[i].pid, sig);
}

/* Reaps the workers that ended; their output left in the pipes is read first. */
static int reap_workers(const struct remote *r, struct slot *slots, int out_fd)
{
	int ended = 0;

	for (int i = 0; i < r->ntargets; i++) {
		struct slot *sl = &slots[i];
		int status;

		if (sl->pid <= 0 || waitpid(sl->pid, &status, WNOHANG) != sl->pid)
			continue;
		read_worker(r, sl, i, 0, out_fd);
		read_worker(r, sl, i, 1, STDERR_FILENO);
		sl->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		sl->pid = -1;
		ended++;
	}
	return ended;
}

static void merge(const struct remote *r, struct slot *slots, int out_fd)
{
	int max = r->s->remote_max > 0 ? r->s->remote_max : REMOTE_MAX_DEFAULT;
	int started = 0, running = 0;
	bool stopping = false;
	struct pollfd *pfd = xcalloc((size_t)r->ntargets * 2, sizeof(*pfd));

	while (running > 0 || (started < r->ntargets && !stopping)) {
		int npfd = 0;

		while (!stopping && running < max && started < r->ntargets) {
			start_worker(r, &slots[started], started);
			running += slots[started++].pid > 0;
		}
		if (pending_signal) {
			forward_signal(slots, started, pending_signal);
			pending_signal = 0;
			stopping = true;
		}
		for (int i = 0; i < started; i++)
			for (int k = 0; k < 2; k++)
				if (slots[i].fd[k] >= 0) {
					pfd[npfd].fd = slots[i].fd[k];
					pfd[npfd++].events = POLLIN;
				}
		if (poll(pfd, (nfds_t)npfd, 100) > 0) {
			for (int i = 0; i < started; i++) {
				read_worker(r, &slots[i], i, 0, out_fd);
				read_worker(r, &slots[i], i, 1, STDERR_FILENO);
			}
		}
		running -= reap_workers(r, slots, out_fd);
	}
	free(pfd);
}

/* ---- the session ---- */

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static bool refused_with_remote(const struct session *s)
{
	const char *what = s->flight_recorder ? "-F" : s->size_limit ? "-S" : s->bulk ? "-b" :
			   s->monitor_interval ? "--monitor" : NULL;

	if (what)
		fprintf(stderr, "ERROR: %s is not available with --remote: a session's files and"
			" screen are on its own host\n", what);
	return what != NULL;
}

/* `-`: the script is read once, here, for every pass that builds a module. */
static bool keep_stdin_script(const struct session *s, const char *dir)
{
	char *path;
	FILE *f;

	if (!s->script_file || strcmp(s->script_file, "-"))
		return true;
	path = xasprintf("%s/script.stp", dir);
	f = fopen(path, "w");
	if (f) {
		char buf[8192];
		size_t n;

		while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0)
			fwrite(buf, 1, n, f);
		fclose(f);
		setenv(REMOTE_SCRIPT_ENV, path, 1);
	}
	free(path);
	return f != NULL;
}

static int open_output(const struct session *s)
{
	int fd;

	if (!s->output_file)
		return STDOUT_FILENO;
	fd = open(s->output_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		fprintf(stderr, "ERROR: cannot open output file %s: %s\n", s->output_file,
			strerror(errno));
	return fd;
}

int remote_run(const struct session *s, char *const *argv)
{
	const char *base = getenv("TMPDIR");
	struct remote r = { .s = s, .argv = argv, .ntargets = s->remotes.count };
	struct slot *slots;
	int status = 0, out_fd;

	if (refused_with_remote(s))
		return 1;
	r.dir = xasprintf("%s/tapster-remoteXXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(r.dir)) {
		fprintf(stderr, "ERROR: cannot create temporary directory (\" %s \"): %s\n", r.dir,
			strerror(errno));
		free(r.dir);
		return 1;
	}
	out_fd = open_output(s);
	if (out_fd < 0 || !keep_stdin_script(s, r.dir)) {
		nftw(r.dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
		free(r.dir);
		return 1;
	}
	r.targets = xcalloc((size_t)r.ntargets, sizeof(*r.targets));
	for (int i = 0; i < r.ntargets; i++)
		free(parse_target(s->remotes.items[i], &r.targets[i]));	/* checked already */
	slots = xcalloc((size_t)r.ntargets, sizeof(*slots));
	catch_signals();
	fflush(NULL);
	merge(&r, slots, out_fd);
	for (int i = 0; i < r.ntargets; i++) {
		if (slots[i].pid == 0) {
			fprintf(stderr, "WARNING: the session on %s was not started (interrupted)\n",
				r.targets[i].url);
			slots[i].status = 1;
		}
		status |= slots[i].status != 0;
		free(slots[i].partial[0].buf);
		free(slots[i].partial[1].buf);
		free_target(&r.targets[i]);
	}
	if (out_fd != STDOUT_FILENO)
		close(out_fd);
	if (!s->keep_tmpdir)
		nftw(r.dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	else
		fprintf(stderr, "Keeping temporary directory \"%s\"\n", r.dir);
	free(slots);
	free(r.targets);
	free(r.dir);
	return status;
}
