// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The host's files in the bundled VM (vm_share.h). virtiofsd runs as long as the VM, in its
 * chroot sandbox (its namespace sandbox needs pivot_root, which containers refuse), with the
 * guest's page cache trusted (cache=always: the files are read-only to the guest).
 */
#include "run/vm_share.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

/* How long virtiofsd may take to make its socket. */
#define SOCKET_WAIT_MS 5000

const char *vm_share_daemon(void)
{
	static const char *const places[] = { "/usr/libexec/virtiofsd", "/usr/lib/qemu/virtiofsd" };
	const char *env = getenv("TAPSTER_VIRTIOFSD");

	if (env)
		return *env && access(env, X_OK) == 0 ? env : NULL;
	for (size_t i = 0; i < sizeof(places) / sizeof(places[0]); i++)
		if (access(places[i], X_OK) == 0)
			return places[i];
	return NULL;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Waits for the socket to appear, or virtiofsd to exit; true when it is there. */
static bool wait_for_socket(const struct vm_share *share)
{
	for (long waited = 0; waited < SOCKET_WAIT_MS; waited += 20) {
		struct stat st;

		if (stat(share->socket, &st) == 0 && S_ISSOCK(st.st_mode))
			return true;
		if (waitpid(share->pid, NULL, WNOHANG) == share->pid)
			return false;
		sleep_ms(20);
	}
	return false;
}

/* The last line of virtiofsd's log, for the message of a failed start (malloc'd). */
static char *last_log_line(const char *log)
{
	char *text = read_text_file(log, NULL), *line, *end;

	if (!text)
		return xstrdup("no message");
	end = text + strlen(text);
	while (end > text && (end[-1] == '\n' || end[-1] == ' '))
		*--end = '\0';
	line = strrchr(text, '\n');
	line = xstrdup(line ? line + 1 : *text ? text : "no message");
	free(text);
	return line;
}

bool vm_share_start(struct vm_share *share, const char *root, const char *dir)
{
	const char *daemon = vm_share_daemon();
	char *source = xasprintf("source=%s", root);
	char *socket_opt;
	pid_t parent = getpid();
	int log;

	share->pid = 0;
	share->socket = xasprintf("%s/virtiofs.sock", dir);
	share->log = xasprintf("%s/virtiofsd.log", dir);
	socket_opt = xasprintf("--socket-path=%s", share->socket);
	log = open(share->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (daemon && log >= 0)
		share->pid = fork();
	if (share->pid == 0 && daemon && log >= 0) {
		/* Gone when tapster is, like qemu; out of the terminal's process group. */
		setsid();
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		dup2(log, STDOUT_FILENO);
		dup2(log, STDERR_FILENO);
		execl(daemon, daemon, socket_opt, "-o", source, "-o", "cache=always", "-o",
		      "sandbox=chroot", (char *)NULL);
		_exit(127);
	}
	if (log >= 0)
		close(log);
	free(source);
	free(socket_opt);
	if (share->pid > 0 && wait_for_socket(share))
		return true;
	if (!daemon) {
		fputs(VM_SHARE_NO_DAEMON, stderr);
	} else {
		char *why = last_log_line(share->log);

		fprintf(stderr, "WARNING: cannot share this host's files with the VM: %s: %s;"
			" -c runs in the VM's own small system\n", daemon, why);
		free(why);
	}
	vm_share_stop(share);
	return false;
}

void vm_share_stop(struct vm_share *share)
{
	if (share->pid > 0) {
		kill(share->pid, SIGTERM);
		while (waitpid(share->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	share->pid = 0;
	if (share->socket)
		unlink(share->socket);
	if (share->log)
		unlink(share->log);
	free(share->socket);
	free(share->log);
	share->socket = NULL;
	share->log = NULL;
}

void vm_share_guest_setup(struct strbuf *script)
{
	static const char *const modules[] = { VM_SHARE_MODULES };
	/* The guest's /job (the loader, -d files) and its kernel's modules are put into the
	 * host's tree (Debian's /lib is a relative link to usr/lib, which the guest resolves
	 * inside it), and the module tools there are the guest's busybox, which reads the
	 * modules.dep the guest has (the host's kmod wants indexes of all modules). */
	static const char lines[] =
		"share_ok=\n"
		"kver=$(uname -r)\n"
		"r=" VM_SHARE_GUEST_ROOT "\n"
		"if [ ! -e /job/host-share ]; then :\n"
		"elif { for m in $share_modules; do modprobe $m; done\n"
		"   mkdir -p /host /host-rw $r && mount -t virtiofs -o ro " VM_SHARE_TAG " /host &&\n"
		"   mount -t tmpfs host-rw /host-rw && mkdir /host-rw/upper /host-rw/work &&\n"
		"   mount -t overlay -o lowerdir=/host,upperdir=/host-rw/upper,workdir=/host-rw/work"
		" overlay $r &&\n"
		"   mount -t proc proc $r/proc && mount -t sysfs sys $r/sys &&\n"
		"   mount -t devtmpfs dev $r/dev && mkdir -p $r/dev/shm $r/dev/pts &&\n"
		"   mount -t tmpfs shm $r/dev/shm && mount -t devpts pts $r/dev/pts &&\n"
		"   mkdir -p $r/job $r/lib/modules/$kver $r/.tapster-vm &&\n"
		"   mount -o bind /job $r/job && mount -o bind /lib/modules/$kver $r/lib/modules/$kver &&\n"
		"   mount -o bind / $r/.tapster-vm; } 2>/dev/null\n"
		"then share_ok=1\n"
		"\tfor t in modprobe insmod rmmod lsmod depmod modinfo; do\n"
		"\t\tfor d in /usr/sbin /sbin /usr/bin /bin; do\n"
		"\t\t\tif [ -e $r$d/$t ] || [ -L $r$d/$t ]; then\n"
		"\t\t\t\tln -sf /.tapster-vm/bin/busybox $r$d/$t\n"
		"\t\t\tfi\n"
		"\t\tdone\n"
		"\tdone\n"
		"else echo 'WARNING: cannot mount the host'\"'\"'s files in the VM; -c runs in the"
		" VM'\"'\"'s own small system' >&2\n"
		"fi\n";

	sb_add(script, "share_modules='");
	for (size_t i = 0; i < sizeof(modules) / sizeof(modules[0]); i++)
		sb_addf(script, "%s%s", i ? " " : "", modules[i]);
	sb_add(script, "'\n");
	sb_add(script, lines);
}
