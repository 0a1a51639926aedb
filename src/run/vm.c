// SPDX-License-Identifier: GPL-2.0-or-later
/* Pass 5's VM: boots the kit's kernel under qemu, runs one job, streams its output. */
#define _GNU_SOURCE
#include "run/vm.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "target/btf_image.h"
#include "progress.h"
#include "run/vm_share.h"
#include "util.h"
#include "run/vm_outfiles.h"

#define VM_INTERRUPT_BYTE '\003'

/* Whether vm_run() is running, for vm_interrupt(). */
static volatile sig_atomic_t vm_active;
/* The host end of the guest's ttyS3 while qemu runs; -1 otherwise. */
static volatile sig_atomic_t interrupt_fd = -1;
/* Whether the guest said "ready" (before that, an interrupt byte could be lost). */
static volatile sig_atomic_t guest_ready;
/* An interrupt asked for before the guest was ready, to be sent when it is. */
static volatile sig_atomic_t interrupt_pending;

static void send_interrupt(void)
{
	int fd = interrupt_fd;
	char byte = VM_INTERRUPT_BYTE;

	if (fd >= 0)
		(void)send(fd, &byte, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
}

void vm_interrupt(void)
{
	int saved_errno = errno;

	if (!vm_active)
		return;
	if (guest_ready)
		send_interrupt();
	else
		interrupt_pending = 1;
	errno = saved_errno;
}

/* ---- Small I/O helpers --------------------------------------------------------------- */

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Appends the file at PATH to FD; returns its size, or -1 with errno set. */
static long long copy_file(int fd, const char *path)
{
	char buf[65536];
	long long total = 0;
	int in = open(path, O_RDONLY | O_CLOEXEC);

	if (in < 0)
		return -1;
	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || write_all(fd, buf, (size_t)n) < 0) {
			int err = errno;

			close(in);
			errno = err;
			return n == 0 ? total : -1;
		}
		total += n;
	}
}

/* Reads a whole (small) file; NULL when it cannot. */
static char *read_small_file(const char *path)
{
	struct strbuf sb = { 0 };
	char buf[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		sb_addn(&sb, buf, (size_t)n);
	}
	close(fd);
	return sb_steal(&sb);
}

static void chomp(char *s)
{
	size_t len = strlen(s);

	while (len && (s[len - 1] == '\n' || s[len - 1] == '\r' || s[len - 1] == ' '))
		s[--len] = '\0';
}

static int wait_child(pid_t pid, int *wstatus)
{
	while (waitpid(pid, wstatus, 0) < 0) {
		if (errno != EINTR)
			return -1;
	}
	return 0;
}

/* ---- The kit ------------------------------------------------------------------------- */

/* Whether one "file MTIME SIZE PATH" line of the ready stamp still holds. */
static bool stamp_file_holds(const char *line)
{
	char mtime[32], size[32];
	int path_at = 0;
	struct stat st;

	if (sscanf(line, "file %31s %31s %n", mtime, size, &path_at) != 2 || !path_at)
		return false;
	if (stat(line + path_at, &st) != 0)
		return !strcmp(mtime, "-");
	return strtoll(mtime, NULL, 10) == (long long)st.st_mtime &&
	       strtoll(size, NULL, 10) == (long long)st.st_size;
}

static const char *env_or_dash(const char *name)
{
	const char *value = getenv(name);

	return value && *value ? value : "-";
}

/* The kit tapster-vmkit last found ready, when nothing its checks depend on has changed
 * since (CACHE/vm/ready, see the script); NULL otherwise. Saves running the script. */
static char *ready_kit(void)
{
	const char *flavour = getenv("TAPSTER_VM_FLAVOUR");
	/* One stamp per kernel flavour: "ready" for the default one, else "ready-FLAVOUR". */
	char *name = flavour && *flavour && strcmp(flavour, "cloud-amd64") ?
		     xasprintf("ready-%s", flavour) : xstrdup("ready");
	char *root = tapster_cache_root();
	char *path = xasprintf("%s/vm/%s", root, name);
	char *text = read_text_file(path, NULL), *kit = NULL;
	bool holds = text != NULL;

	free(root);
	free(path);
	free(name);
	for (char *line = text, *next; holds && line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!strncmp(line, "env ", 4)) {
			char *expected = xasprintf("env %s %s", env_or_dash("TAPSTER_VM_INIT"),
						   env_or_dash("TAPSTER_BUSYBOX"));

			holds = !strcmp(line, expected);
			free(expected);
		} else if (!strncmp(line, "file ", 5)) {
			holds = stamp_file_holds(line);
		} else if (!strncmp(line, "kit ", 4)) {
			free(kit);
			kit = xstrdup(line + 4);
		}
	}
	free(text);
	if (holds && kit) {
		static const char *const parts[] = { "kver", "vmlinuz", "initramfs-base.cpio",
						     "build/" };
		struct stat st;

		for (size_t i = 0; holds && i < sizeof(parts) / sizeof(parts[0]); i++) {
			char *part = xasprintf("%s/%s", kit, parts[i]);

			holds = stat(part, &st) == 0;
			free(part);
		}
	}
	if (!holds) {
		free(kit);
		return NULL;
	}
	return kit;
}

char *vm_kit_dir(const char *vmkit_script)
{
	char *ready = ready_kit();

	if (ready)
		return ready;
	return vm_kit_dir_made(vmkit_script);
}

/* A "@progress BYTES TOTAL" line of the script (TAPSTER_VMKIT_PROGRESS): the bytes of its
 * packages downloaded so far, for the progress line; true when `line` is one. */
static bool vmkit_progress_line(const char *line, size_t len)
{
	long long bytes, total;

	if (len < 10 || memcmp(line, "@progress ", 10))
		return false;
	if (sscanf(line + 10, "%lld %lld", &bytes, &total) == 2)
		progress_count((long)(bytes >> 20), (long)(total >> 20), "MB fetched");
	return true;
}

/* The whole lines of `line` (the script's stderr so far) above the progress line, but for
 * its "@progress" lines; the rest waits for its newline. */
static void vmkit_stderr_lines(struct strbuf *line, bool all)
{
	size_t start = 0;

	while (start < line->len) {
		char *nl = memchr(line->buf + start, '\n', line->len - start);
		size_t end = nl ? (size_t)(nl - line->buf) + 1 : line->len;

		if (!nl && !all)
			break;
		if (!vmkit_progress_line(line->buf + start, end - start))
			progress_write(line->buf + start, end - start);
		start = end;
	}
	if (!start)
		return;
	line->len -= start;
	memmove(line->buf, line->buf + start, line->len + 1);
}

/*
 * Reads the script's stdout into `out` until it ends; on a terminal its stderr comes through
 * `err_fd` too, line by line above the progress line of the kit's making (a download takes
 * a while the first time), with the bytes it fetched. `err_fd` is -1 otherwise (the script
 * writes to ours).
 */
static void read_vmkit_output(int out_fd, int err_fd, struct strbuf *out, const char *what)
{
	struct strbuf line = { 0 };
	char buf[4096];

	if (err_fd >= 0)
		progress_begin(what);
	while (out_fd >= 0 || err_fd >= 0) {
		struct pollfd pfd[2] = { { .fd = out_fd, .events = POLLIN },
					 { .fd = err_fd, .events = POLLIN } };

		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++) {
			ssize_t n;

			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			n = read(pfd[i].fd, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				close(pfd[i].fd);
				*(i ? &err_fd : &out_fd) = -1;
				continue;
			}
			sb_addn(i ? &line : out, buf, (size_t)n);
		}
		vmkit_stderr_lines(&line, false);
	}
	if (line.len)
		vmkit_stderr_lines(&line, true);
	free(line.buf);
	progress_end();
}

/* Runs tapster-vmkit (with `arg`, or none), which makes the kit if need be, and returns the
 * directory it prints. */
static char *run_vmkit(const char *vmkit_script, const char *arg, const char *what)
{
	const char *script = vmkit_script ? vmkit_script : "tapster-vmkit";
	struct strbuf out = { 0 };
	int pipefd[2], errfd[2] = { -1, -1 }, wstatus = 0;
	char *dir, *nl, *kver;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC) < 0 ||
	    (isatty(STDERR_FILENO) && pipe2(errfd, O_CLOEXEC) < 0)) {
		fprintf(stderr, "ERROR: pipe: %s\n", strerror(errno));
		return NULL;
	}
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "ERROR: fork: %s\n", strerror(errno));
		close(pipefd[0]);
		close(pipefd[1]);
		return NULL;
	}
	if (pid == 0) {
		dup2(pipefd[1], STDOUT_FILENO);
		if (errfd[1] >= 0) {
			dup2(errfd[1], STDERR_FILENO);
			setenv("TAPSTER_VMKIT_PROGRESS", "1", 1);
		} else {
			unsetenv("TAPSTER_VMKIT_PROGRESS");
		}
		execlp(script, script, arg, (char *)NULL);
		fprintf(stderr, "ERROR: cannot run %s: %s\n", script, strerror(errno));
		_exit(127);
	}
	close(pipefd[1]);
	if (errfd[1] >= 0)
		close(errfd[1]);
	read_vmkit_output(pipefd[0], errfd[0], &out, what);
	dir = sb_steal(&out);
	if (wait_child(pid, &wstatus) < 0 || !WIFEXITED(wstatus) || WEXITSTATUS(wstatus)) {
		/* 127: the child said it could not run the script; --modules: the caller says. */
		if (!arg && (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 127))
			fprintf(stderr, "ERROR: %s could not make the VM kit\n", script);
		free(dir);
		return NULL;
	}
	/* The kit directory is the last line of the output. */
	chomp(dir);
	nl = strrchr(dir, '\n');
	if (nl)
		memmove(dir, nl + 1, strlen(nl + 1) + 1);
	kver = *dir ? vm_kit_kernel_release(dir) : NULL;
	if (!kver) {
		fprintf(stderr, "ERROR: %s printed no usable kit directory ('%s')\n", script, dir);
		free(dir);
		return NULL;
	}
	free(kver);
	return dir;
}

char *vm_kit_dir_made(const char *vmkit_script)
{
	return run_vmkit(vmkit_script, NULL, "making the VM kit");
}

bool vm_kit_fetch_modules(const char *vmkit_script)
{
	char *dir = run_vmkit(vmkit_script, "--modules", "fetching the VM kernel's modules");

	free(dir);
	return dir != NULL;
}

char *vm_kit_kernel_release(const char *kit_dir)
{
	char *path = xasprintf("%s/kver", kit_dir);
	char *kver = read_small_file(path);

	free(path);
	if (!kver)
		return NULL;
	chomp(kver);
	if (!*kver) {
		free(kver);
		return NULL;
	}
	return kver;
}

char *vm_kit_build_dir(const char *kit_dir)
{
	return xasprintf("%s/build", kit_dir);
}

/* ---- The job's initramfs ------------------------------------------------------------- */

/* A newc archive being written: where, and the next inode number. */
struct newc {
	int fd;
	unsigned int ino;
};

static const char zeros[4];

/* Writes an entry's header and name; the caller writes SIZE bytes of data and newc_pad(). */
static int newc_header(struct newc *nc, const char *name, unsigned int mode, unsigned int nlink,
		       unsigned long long size)
{
	size_t namesize = strlen(name) + 1;
	char hdr[112];
	int len;

	if (size > 0xffffffffULL) {
		errno = EFBIG;
		return -1;
	}
	len = snprintf(hdr, sizeof(hdr),
		       "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08zX%08X",
		       nc->ino++, mode, 0, 0, nlink, 0, (unsigned int)size, 0, 0, 0, 0,
		       namesize, 0);
	if (len != 110 || write_all(nc->fd, hdr, 110) < 0 ||
	    write_all(nc->fd, name, namesize) < 0)
		return -1;
	return write_all(nc->fd, zeros, (4 - (110 + namesize) % 4) % 4);
}

static int newc_pad(struct newc *nc, unsigned long long size)
{
	return write_all(nc->fd, zeros, (4 - size % 4) % 4);
}

static int newc_data(struct newc *nc, const char *name, unsigned int mode, const char *data,
		     size_t size)
{
	if (newc_header(nc, name, S_IFREG | mode, 1, size) < 0 ||
	    write_all(nc->fd, data, size) < 0)
		return -1;
	return newc_pad(nc, size);
}

static int newc_file(struct newc *nc, const char *name, const char *path)
{
	struct stat st;
	long long copied;

	if (stat(path, &st) < 0)
		return -1;
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		return -1;
	}
	if (newc_header(nc, name, S_IFREG | (st.st_mode & 07777), 1,
			(unsigned long long)st.st_size) < 0)
		return -1;
	copied = copy_file(nc->fd, path);
	if (copied < 0)
		return -1;
	if (copied != (long long)st.st_size) {
		errno = EIO;	/* the file changed while we copied it */
		return -1;
	}
	return newc_pad(nc, (unsigned long long)copied);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* ---- Kernel modules for the guest ---------------------------------------------------- */

/* The modules.dep lines of the modules to give the guest, and the directories made so far. */
struct guest_modules {
	char *dir;		/* the kit's root/lib/modules/KVER */
	char *guest_dir;	/* lib/modules/KVER */
	char *dep;		/* the kit's modules.dep */
	struct strbuf lines;	/* the guest's modules.dep */
	char **dirs;
	size_t ndirs;
};

/* The length of `rel` without a compression suffix after its ".ko": the guest's busybox
 * modprobe reads plain modules only, so a NAME.ko.xz goes in decompressed as NAME.ko. */
static size_t plain_module_len(const char *rel, size_t len)
{
	static const char *const suffixes[] = { ".ko.xz", ".ko.gz", ".ko.zst" };

	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t n = strlen(suffixes[i]);

		if (len >= n && !memcmp(rel + len - n, suffixes[i], n))
			return len - n + 3;
	}
	return len;
}

/* The modules.dep line of the module `name` ("kernel/fs/x.ko: kernel/lib/y.ko"), or NULL. */
static char *find_dep_line(const char *dep, const char *name)
{
	for (const char *line = dep; *line;) {
		const char *end = strchrnul(line, '\n');
		const char *colon = memchr(line, ':', (size_t)(end - line));

		if (colon) {
			const char *base = colon;
			size_t len;

			while (base > line && base[-1] != '/')
				base--;
			len = plain_module_len(base, (size_t)(colon - base));
			/* nls-utf8.ko is module nls_utf8. */
			if (len == strlen(name) + 3 && !memcmp(base + len - 3, ".ko", 3)) {
				size_t i;

				for (i = 0; i < len - 3; i++)
					if (base[i] != name[i] &&
					    !((base[i] == '-' || base[i] == '_') &&
					      (name[i] == '-' || name[i] == '_')))
						break;
				if (i == len - 3)
					return xstrndup(line, (size_t)(end - line));
			}
		}
		line = *end ? end + 1 : end;
	}
	return NULL;
}

/* The directories leading to `path` in the archive, each once. */
static int newc_parents(struct newc *nc, struct guest_modules *gm, const char *path)
{
	for (const char *slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/')) {
		char *dir = xstrndup(path, (size_t)(slash - path));
		bool made = false;

		for (size_t i = 0; i < gm->ndirs && !made; i++)
			made = !strcmp(gm->dirs[i], dir);
		if (made) {
			free(dir);
			continue;
		}
		gm->dirs = xrealloc(gm->dirs, (gm->ndirs + 1) * sizeof(*gm->dirs));
		gm->dirs[gm->ndirs++] = dir;
		if (newc_header(nc, dir, S_IFDIR | 0755, 2, 0) < 0)
			return -1;
	}
	return 0;
}

/* The module file at `host` as `entry` (already without its compression suffix). */
static int add_module_bytes(struct newc *nc, const char *entry, const char *host)
{
	char *error = NULL;
	size_t size;
	char *bytes;
	int err;

	if (plain_module_len(host, strlen(host)) == strlen(host))
		return newc_file(nc, entry, host);
	bytes = read_decompressed_file(host, &size, &error);
	if (!bytes) {
		fprintf(stderr, "ERROR: %s\n", error);
		free(error);
		errno = EIO;
		return -1;
	}
	err = newc_data(nc, entry, 0644, bytes, size);
	free(bytes);
	return err;
}

/* Adds the module file `rel` (a path relative to the modules directory) once. */
static int add_module_file(struct newc *nc, struct guest_modules *gm, const char *rel)
{
	char *entry = xasprintf("%s/%.*s", gm->guest_dir, (int)plain_module_len(rel, strlen(rel)),
				rel);
	char *host = xasprintf("%s/%s", gm->dir, rel);
	int err = 0;

	bool added = false;

	for (size_t i = 0; i < gm->ndirs && !added; i++)
		added = !strcmp(gm->dirs[i], entry);
	if (!added) {
		err = newc_parents(nc, gm, entry);
		if (!err)
			err = add_module_bytes(nc, entry, host);
		if (err < 0)
			fprintf(stderr, "ERROR: cannot copy %s into the VM: %s\n", host,
				strerror(errno));
		/* Remembered with the directories: each file goes in once. */
		gm->dirs = xrealloc(gm->dirs, (gm->ndirs + 1) * sizeof(*gm->dirs));
		gm->dirs[gm->ndirs++] = xstrdup(entry);
	}
	free(entry);
	free(host);
	return err;
}

/* The modules.dep line `line` with each file named as it is in the guest (NAME.ko). */
static void add_plain_dep_line(struct strbuf *lines, const char *line)
{
	while (*line) {
		size_t len = strcspn(line, ": ");

		sb_addn(lines, line, plain_module_len(line, len));
		line += len;
		if (*line)
			sb_addc(lines, *line++);
	}
	sb_addc(lines, '\n');
}

/* Adds the module `name` and what it depends on, and its line of modules.dep. */
static int add_module(struct newc *nc, struct guest_modules *gm, const char *name)
{
	char *line = find_dep_line(gm->dep, name);
	char *rest, *file;
	int err = 0;

	if (!line) {
		fprintf(stderr, "ERROR: the VM kit has no module %s\n", name);
		return -1;
	}
	add_plain_dep_line(&gm->lines, line);
	rest = line;
	while (!err && (file = strsep(&rest, ": "))) {
		if (*file)
			err = add_module_file(nc, gm, file);
	}
	free(line);
	return err;
}

static int write_guest_modules(struct newc *nc, const struct vm_job *job, bool share)
{
	static const char *const share_modules[] = { VM_SHARE_MODULES, NULL };
	char *kver = vm_kit_kernel_release(job->kit_dir);
	struct guest_modules gm = { 0 };
	int err = kver ? 0 : -1;

	if (kver) {
		char *dep = xasprintf("%s/root/lib/modules/%s/modules.dep", job->kit_dir, kver);

		gm.dir = xasprintf("%s/root/lib/modules/%s", job->kit_dir, kver);
		gm.guest_dir = xasprintf("lib/modules/%s", kver);
		gm.dep = read_small_file(dep);
		free(dep);
	}
	if (kver && !gm.dep) {
		fprintf(stderr, "ERROR: the VM kit has no modules (%s/modules.dep)\n", gm.dir);
		err = -1;
	}
	for (const char *const *m = job->modules; !err && m && *m; m++)
		err = add_module(nc, &gm, *m);
	/* The share's modules are built in on some kernels (6.12: virtio_pci, virtiofs). */
	for (const char *const *m = share_modules; !err && share && *m; m++) {
		char *line = find_dep_line(gm.dep, *m);

		if (line)
			err = add_module(nc, &gm, *m);
		free(line);
	}
	if (!err) {
		char *path = xasprintf("%s/modules.dep", gm.guest_dir);

		err = newc_data(nc, path, 0644, gm.lines.buf, gm.lines.len);
		free(path);
	}
	for (size_t i = 0; i < gm.ndirs; i++)
		free(gm.dirs[i]);
	free(gm.dirs);
	free(gm.lines.buf);
	free(gm.dep);
	free(gm.dir);
	free(gm.guest_dir);
	free(kver);
	return err;
}

/* The files of job->placed, each at its own absolute path in the guest, with the
 * directories above it. */
static int write_placed_files(struct newc *nc, const struct vm_job *job)
{
	struct guest_modules made = { 0 };	/* only its directories */
	int err = 0;

	for (const char *const *f = job->placed; !err && f && *f; f++) {
		const char *entry = *f;

		while (*entry == '/')
			entry++;
		err = *entry ? newc_parents(nc, &made, entry) : -1;
		if (!err)
			err = newc_file(nc, entry, *f);
		if (err < 0)
			fprintf(stderr, "ERROR: cannot put %s into the VM: %s\n", *f,
				strerror(errno));
	}
	for (size_t i = 0; i < made.ndirs; i++)
		free(made.dirs[i]);
	free(made.dirs);
	return err;
}

/* Writes the kit's base initramfs followed by an archive with /job/ to PATH; with `share`
 * (virtiofsd serves job->share_root), /job/host-share tells run.sh to mount it. */
static int write_initrd(const char *path, const struct vm_job *job, bool share)
{
	char *base = xasprintf("%s/initramfs-base.cpio", job->kit_dir);
	struct newc nc = { .ino = 900000 };
	const char *script = job->run_script ? job->run_script : "";
	int ret = -1;

	nc.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (nc.fd < 0) {
		fprintf(stderr, "ERROR: cannot create %s: %s\n", path, strerror(errno));
		goto out;
	}
	if (copy_file(nc.fd, base) < 0) {
		fprintf(stderr, "ERROR: cannot copy %s: %s\n", base, strerror(errno));
		goto out;
	}
	if (newc_header(&nc, "job", S_IFDIR | 0755, 2, 0) < 0)
		goto write_error;
	for (const char *const *f = job->files; f && *f; f++) {
		const char *name = base_name(*f);
		char *entry;
		int err;

		if (!*name || !strcmp(name, "run.sh")) {
			fprintf(stderr, "ERROR: cannot put %s into the VM's /job\n", *f);
			goto out;
		}
		entry = xasprintf("job/%s", name);
		err = newc_file(&nc, entry, *f);
		free(entry);
		if (err < 0) {
			fprintf(stderr, "ERROR: cannot copy %s into %s: %s\n", *f, path,
				strerror(errno));
			goto out;
		}
	}
	if (((job->modules && *job->modules) || share) && write_guest_modules(&nc, job, share) < 0)
		goto out;
	if (share && newc_data(&nc, "job/host-share", 0644, "", 0) < 0)
		goto write_error;
	if (write_placed_files(&nc, job) < 0)
		goto out;
	if (newc_data(&nc, "job/run.sh", 0755, script, strlen(script)) < 0 ||
	    newc_header(&nc, "TRAILER!!!", 0, 1, 0) < 0)
		goto write_error;
	ret = 0;
	goto out;
write_error:
	fprintf(stderr, "ERROR: cannot write %s: %s\n", path, strerror(errno));
out:
	if (nc.fd >= 0 && close(nc.fd) < 0 && ret == 0) {
		fprintf(stderr, "ERROR: cannot write %s: %s\n", path, strerror(errno));
		ret = -1;
	}
	free(base);
	return ret;
}

/* ---- qemu ---------------------------------------------------------------------------- */

/* A NULL-terminated argument vector being built. */
struct argv {
	char **v;
	size_t n, cap;
};

static void argv_add(struct argv *a, char *arg)	/* takes ARG (malloc'd) */
{
	if (a->n + 2 > a->cap) {
		a->cap = a->cap ? 2 * a->cap : 64;
		a->v = xrealloc(a->v, a->cap * sizeof(*a->v));
	}
	a->v[a->n++] = arg;
	a->v[a->n] = NULL;
}

static void argv_free(struct argv *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
}

/* A value inside a qemu option list: commas are doubled. */
static char *qemu_escape(const char *s)
{
	struct strbuf sb = { 0 };

	for (; *s; s++) {
		sb_addc(&sb, *s);
		if (*s == ',')
			sb_addc(&sb, ',');
	}
	return sb_steal(&sb);
}

/* The host ends of the guest's serial ports, and qemu's ends, by guest port. */
enum { PORT_OUT, PORT_ERR, PORT_CTL, NR_PORTS };

struct vm_run_state {
	char *tmpdir;
	char *initrd;		/* tmpdir/initrd */
	char *qemu_log;		/* tmpdir/qemu.log: qemu's own stdout and stderr */
	char *console;		/* job->console_log or tmpdir/console.log */
	int host_fd[NR_PORTS];	/* our ends of the socket pairs; -1 once at EOF */
	int guest_fd[NR_PORTS];	/* qemu's ends; -1 once handed over */
	pid_t pid;		/* qemu, 0 when not running */
	bool with_kvm;		/* qemu was asked for KVM first */
	struct vm_share share;	/* virtiofsd, when job->share_root is served */
	bool kvm_stalled;	/* ... and the guest was not up within KVM_BOOT_LIMIT_MS */
};

/* A guest under KVM is up in about a second. Some hosts' KVM neither boots the guest nor
 * makes qemu exit ("KVM internal error ... emulation failure" and a paused VM): past this
 * limit without the guest's "ready", qemu is killed and the run goes to TCG. */
#define KVM_BOOT_LIMIT_MS 20000

/* Some hosts have a /dev/kvm that qemu aborts or stalls on. Once KVM failed to boot the guest, a
 * stamp in the kits' directory says so and later runs go straight to TCG. */
static char *kvm_failed_stamp(const struct vm_job *job)
{
	/* Beside the kits: it is about the host, whichever kernel boots. */
	return xasprintf("%s/../kvm-failed", job->kit_dir);
}

static bool kvm_usable(const struct vm_job *job)
{
	char *stamp = kvm_failed_stamp(job);
	bool failed = access(stamp, F_OK) == 0;

	free(stamp);
	return !failed && !job->icount && access("/dev/kvm", R_OK | W_OK) == 0;
}

static void mark_kvm_failed(const struct vm_job *job)
{
	char *stamp = kvm_failed_stamp(job);
	int fd = open(stamp, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	if (fd >= 0)
		close(fd);
	free(stamp);
}

static void build_qemu_argv(struct argv *a, const struct vm_job *job, struct vm_run_state *st)
{
	const char *qemu = getenv("TAPSTER_QEMU");
	const char *extra = getenv("TAPSTER_VM_APPEND");
	const char *kaslr = getenv("TAPSTER_VM_KASLR");
	int cpus = job->cpus > 0 ? job->cpus : 1;
	int mem = job->mem_mb > 0 ? job->mem_mb : 512;
	char *console = qemu_escape(st->console);

	argv_add(a, xstrdup(qemu && *qemu ? qemu : "qemu-system-x86_64"));
	/* q35 without its SATA controller boots fastest here (the pc machine is close). */
	argv_add(a, xstrdup("-machine"));
	argv_add(a, xstrdup("q35,sata=off,smbus=off"));
	argv_add(a, xstrdup("-cpu"));
	argv_add(a, xstrdup("max"));
	/* KVM where /dev/kvm is usable (qemu falls back to the next -accel when it fails to
	 * start); never with -icount, whose virtual time only TCG gives. */
	if (kvm_usable(job)) {
		argv_add(a, xstrdup("-accel"));
		argv_add(a, xstrdup("kvm"));
	}
	/* Multi-threaded TCG oopses with live kprobe code patching on more than one vCPU. */
	argv_add(a, xstrdup("-accel"));
	argv_add(a, xstrdup("tcg,thread=single"));
	argv_add(a, xstrdup("-smp"));
	argv_add(a, xasprintf("%d", cpus));
	argv_add(a, xstrdup("-m"));
	argv_add(a, xasprintf("%d", mem));
	if (job->icount) {
		argv_add(a, xstrdup("-icount"));
		argv_add(a, xstrdup("shift=0"));
	}
	argv_add(a, xstrdup("-nodefaults"));
	argv_add(a, xstrdup("-no-user-config"));
	argv_add(a, xstrdup("-display"));
	argv_add(a, xstrdup("none"));
	argv_add(a, xstrdup("-no-reboot"));
	argv_add(a, xstrdup("-kernel"));
	argv_add(a, xasprintf("%s/vmlinuz", job->kit_dir));
	argv_add(a, xstrdup("-initrd"));
	argv_add(a, xstrdup(st->initrd));
	argv_add(a, xstrdup("-append"));
	/* panic=-1 and -no-reboot: a panic ends qemu. nr_uarts: the kernel's default is 4
	 * already, but the ports are not optional. cryptomgr.notests saves ~0.2 s of crypto
	 * self-tests; nokaslr keeps kernel addresses the same from run to run (not with
	 * TAPSTER_VM_KASLR=1: a test of what KASLR moves). */
	argv_add(a, xasprintf("console=ttyS0 quiet panic=-1 8250.nr_uarts=4 %s"
			      "mitigations=off cryptomgr.notests%s%s",
			      kaslr && !strcmp(kaslr, "1") ? "" : "nokaslr ",
			      extra && *extra ? " " : "", extra ? extra : ""));
	argv_add(a, xstrdup("-chardev"));
	argv_add(a, xasprintf("file,id=con,path=%s", console));
	argv_add(a, xstrdup("-serial"));
	argv_add(a, xstrdup("chardev:con"));
	for (int i = 0; i < NR_PORTS; i++) {
		argv_add(a, xstrdup("-chardev"));
		argv_add(a, xasprintf("socket,id=port%d,fd=%d", i + 1, st->guest_fd[i]));
		argv_add(a, xstrdup("-serial"));
		argv_add(a, xasprintf("chardev:port%d", i + 1));
	}
	if (st->share.pid > 0) {
		/* vhost-user needs the guest's memory shared with virtiofsd. */
		char *socket = qemu_escape(st->share.socket);

		argv_add(a, xstrdup("-object"));
		argv_add(a, xasprintf("memory-backend-memfd,id=mem,size=%dM,share=on", mem));
		argv_add(a, xstrdup("-numa"));
		argv_add(a, xstrdup("node,memdev=mem"));
		argv_add(a, xstrdup("-chardev"));
		argv_add(a, xasprintf("socket,id=share,path=%s", socket));
		free(socket);
		argv_add(a, xstrdup("-device"));
		argv_add(a, xstrdup("vhost-user-fs-pci,chardev=share,tag=" VM_SHARE_TAG));
	}
	free(console);
}

/* Starts qemu with the guest ends of the ports; its stdout and stderr go to qemu.log. */
static int start_qemu(struct argv *a, struct vm_run_state *st)
{
	pid_t parent = getpid();
	int log = open(st->qemu_log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	pid_t pid;

	if (log < 0 || null < 0) {
		fprintf(stderr, "ERROR: cannot open %s: %s\n", st->qemu_log, strerror(errno));
		goto fail;
	}
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "ERROR: fork: %s\n", strerror(errno));
		goto fail;
	}
	if (pid == 0) {
		sigset_t none;

		/* Out of the terminal's process group, so ^C reaches us rather than qemu,
		 * and gone when we are. */
		setsid();
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		dup2(null, STDIN_FILENO);
		dup2(log, STDOUT_FILENO);
		dup2(log, STDERR_FILENO);
		/* Only qemu's own ends of the ports survive the exec. */
		close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
		for (int i = 0; i < NR_PORTS; i++)
			fcntl(st->guest_fd[i], F_SETFD, 0);
		execvp(a->v[0], a->v);
		dprintf(STDERR_FILENO, "cannot run %s: %s\n", a->v[0], strerror(errno));
		_exit(127);
	}
	st->pid = pid;
	close(log);
	close(null);
	return 0;
fail:
	if (log >= 0)
		close(log);
	if (null >= 0)
		close(null);
	return -1;
}

/* Copies FILE's last lines (at most MAX bytes of them) to stderr, each with a prefix. */
static void show_tail(const char *path, const char *prefix, size_t max)
{
	char *text = read_small_file(path);
	size_t len;
	char *p, *line;

	if (!text)
		return;
	len = strlen(text);
	p = text;
	if (len > max) {
		p = text + len - max;
		p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p;
	}
	while ((line = strsep(&p, "\n"))) {
		chomp(line);
		if (*line || p)
			fprintf(stderr, "%s%s\n", prefix, line);
	}
	free(text);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* What came back on ttyS3 so far: a partial line, and the last status seen. Lines are
 * "ready" (the guest listens for interrupts now), "armed N M" (the loader armed N of the
 * module's M points so far), "started" (all are), "status N", and "file NAME SIZE"
 * followed by the file's bytes (vm_outfiles.h). */
struct control {
	char line[320];
	size_t len;
	bool have_status;
	int status;
	struct vm_outfile file;
	const char *after_boot;	/* job->after_boot */
	const struct vm_screen *screen;	/* job->screen */
	struct strbuf snapshot;	/* "monitor SIZE": the bytes so far */
	size_t snapshot_left;	/* and those still to come */
};

/* Takes the bytes of a snapshot under way; returns how many of buf's it took. */
static size_t snapshot_take(struct control *c, const char *buf, size_t n)
{
	size_t take = n < c->snapshot_left ? n : c->snapshot_left;

	if (!take)
		return 0;
	sb_addn(&c->snapshot, buf, take);
	c->snapshot_left -= take;
	if (!c->snapshot_left) {
		if (c->screen)
			c->screen->snapshot(c->snapshot.buf, c->snapshot.len);
		free(c->snapshot.buf);
		memset(&c->snapshot, 0, sizeof(c->snapshot));
	}
	return take;
}

/* "monitor SIZE": a snapshot of SIZE bytes follows. */
static bool snapshot_start(struct control *c, const char *line)
{
	char *end;
	unsigned long size;

	if (strncmp(line, "monitor ", 8))
		return false;
	size = strtoul(line + 8, &end, 10);
	if (*end || end == line + 8 || size > (1 << 20))
		return false;
	c->snapshot_left = size;
	if (!size && c->screen)
		c->screen->snapshot("", 0);
	return true;
}

static void control_input(struct control *c, const char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t taken = snapshot_take(c, buf + i, n - i);

		if (!taken)
			taken = vm_outfile_take(&c->file, buf + i, n - i);
		if (taken) {
			i += taken - 1;
			continue;
		}
		if (buf[i] != '\n') {
			if (c->len < sizeof(c->line) - 1)
				c->line[c->len++] = buf[i];
			continue;
		}
		c->line[c->len] = '\0';
		c->len = 0;
		chomp(c->line);
		if (!strcmp(c->line, "ready")) {
			/* A signal handler in between sees guest_ready and sends itself. */
			guest_ready = 1;
			progress_end();
			if (c->after_boot)
				progress_begin(c->after_boot);
			if (interrupt_pending) {
				interrupt_pending = 0;
				send_interrupt();
			}
		} else if (vm_outfile_start(&c->file, c->line)) {
			continue;
		} else if (snapshot_start(c, c->line)) {
			continue;
		} else if (!strcmp(c->line, "started")) {
			progress_end();
		} else if (!strncmp(c->line, "armed ", 6)) {
			long armed, points;

			if (sscanf(c->line + 6, "%ld %ld", &armed, &points) == 2)
				progress_count(armed, points, "armed");
		} else if (!strncmp(c->line, "status ", 7)) {
			char *end;
			long v = strtol(c->line + 7, &end, 10);

			chomp(end);
			if (end != c->line + 7 && !*end && v >= 0 && v <= 255) {
				c->have_status = true;
				c->status = (int)v;
			}
		}
	}
}

/*
 * Streams the ports until qemu has closed all of them (it exits after the guest powers
 * off), or the deadline passes (qemu is then killed). Returns true when it timed out.
 */
static bool pump(const struct vm_job *job, struct vm_run_state *st, struct control *ctl)
{
	long long deadline = job->timeout_s > 0 ? now_ms() + job->timeout_s * 1000LL : 0;
	long long kvm_deadline = st->with_kvm ? now_ms() + KVM_BOOT_LIMIT_MS : 0;
	int sink[NR_PORTS] = { job->out_fd, job->err_fd, -1 };
	bool timed_out = false;
	char buf[65536];

	int key_fd = job->screen ? job->screen->key_fd : -1;

	for (;;) {
		struct pollfd pfd[NR_PORTS + 1];
		int port[NR_PORTS + 1];	/* which port each pfd is; NR_PORTS: the keys */
		int nfds = 0, timeout = -1, r;

		for (int i = 0; i < NR_PORTS; i++) {
			if (st->host_fd[i] < 0)
				continue;
			pfd[nfds] = (struct pollfd){ .fd = st->host_fd[i], .events = POLLIN };
			port[nfds++] = i;
		}
		if (!nfds)
			return timed_out;
		if (key_fd >= 0) {
			pfd[nfds] = (struct pollfd){ .fd = key_fd, .events = POLLIN };
			port[nfds++] = NR_PORTS;
		}
		if (kvm_deadline && !guest_ready && !st->kvm_stalled) {
			long long left = kvm_deadline - now_ms();

			if (left <= 0) {
				kill(st->pid, SIGKILL);
				st->kvm_stalled = true;
				continue;
			}
			timeout = left > INT_MAX ? INT_MAX : (int)left;
		}
		if (deadline && !timed_out) {
			long long left = deadline - now_ms();

			if (left <= 0) {
				kill(st->pid, SIGKILL);
				timed_out = true;
				continue;
			}
			if (timeout < 0 || left < timeout)
				timeout = left > INT_MAX ? INT_MAX : (int)left;
		}
		r = poll(pfd, (nfds_t)nfds, timeout);
		if (r < 0 && errno != EINTR) {
			fprintf(stderr, "ERROR: poll: %s\n", strerror(errno));
			kill(st->pid, SIGKILL);
			timed_out = true;	/* nothing better to do than to wait for EOF */
			deadline = 0;
		}
		for (int k = 0; r > 0 && k < nfds; k++) {
			int i = port[k];
			ssize_t n;

			if (!pfd[k].revents)
				continue;
			if (i == NR_PORTS) {
				n = read(key_fd, buf, sizeof(buf));
				if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
					key_fd = -1;
				else if (n > 0 && job->screen->keys(buf, (size_t)n))
					vm_interrupt();
				continue;
			}
			n = recv(st->host_fd[i], buf, sizeof(buf), MSG_DONTWAIT);
			if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
				continue;
			if (n <= 0) {
				if (i == PORT_CTL)
					interrupt_fd = -1;
				close(st->host_fd[i]);
				st->host_fd[i] = -1;
				continue;
			}
			if (i == PORT_CTL) {
				control_input(ctl, buf, (size_t)n);
			} else if (job->screen) {
				job->screen->output(i == PORT_OUT ? 1 : 2, buf, (size_t)n);
			} else if (sink[i] >= 0 && write_all(sink[i], buf, (size_t)n) < 0) {
				/* Keep draining, so that the guest is not blocked. */
				fprintf(stderr, "ERROR: cannot write the job's output: %s\n",
					strerror(errno));
				sink[i] = -1;
			}
		}
	}
}

static void cleanup(struct vm_run_state *st, const struct vm_job *job)
{
	for (int i = 0; i < NR_PORTS; i++) {
		if (i == PORT_CTL)
			interrupt_fd = -1;
		if (st->host_fd[i] >= 0)
			close(st->host_fd[i]);
		if (st->guest_fd[i] >= 0)
			close(st->guest_fd[i]);
	}
	if (st->pid > 0) {
		kill(st->pid, SIGKILL);
		wait_child(st->pid, NULL);
	}
	vm_share_stop(&st->share);
	if (st->tmpdir) {
		unlink(st->initrd);
		unlink(st->qemu_log);
		if (!job->console_log)
			unlink(st->console);
		rmdir(st->tmpdir);
	}
	free(st->tmpdir);
	free(st->initrd);
	free(st->qemu_log);
	free(st->console);
	vm_active = 0;
}

static void report_failure(struct vm_run_state *st)
{
	show_tail(st->qemu_log, "qemu: ", 4096);
	show_tail(st->console, "console: ", 4096);
}

static int vm_run_once(const struct vm_job *job, int *status, bool *kvm_died)
{
	struct vm_run_state st = { .host_fd = { -1, -1, -1 }, .guest_fd = { -1, -1, -1 } };
	struct control ctl = { .file = { .dir = job->outfiles_dir, .fd = -1 },
			       .after_boot = job->after_boot, .screen = job->screen };
	const char *tmp = getenv("TMPDIR");
	struct argv argv = { 0 };
	int wstatus = 0, ret = -1;
	bool timed_out;
	bool with_kvm = kvm_usable(job);

	st.with_kvm = with_kvm;

	interrupt_pending = 0;
	guest_ready = 0;
	vm_active = 1;
	st.tmpdir = xasprintf("%s/tapster-vm.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(st.tmpdir)) {
		fprintf(stderr, "ERROR: cannot create %s: %s\n", st.tmpdir, strerror(errno));
		free(st.tmpdir);
		vm_active = 0;
		return -1;
	}
	st.initrd = xasprintf("%s/initrd", st.tmpdir);
	st.qemu_log = xasprintf("%s/qemu.log", st.tmpdir);
	st.console = job->console_log ? xstrdup(job->console_log)
				       : xasprintf("%s/console.log", st.tmpdir);
	if (job->share_root)
		vm_share_start(&st.share, job->share_root, st.tmpdir);
	if (write_initrd(st.initrd, job, st.share.pid > 0) < 0)
		goto out;
	for (int i = 0; i < NR_PORTS; i++) {
		int sv[2];

		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
			fprintf(stderr, "ERROR: socketpair: %s\n", strerror(errno));
			goto out;
		}
		st.host_fd[i] = sv[0];
		st.guest_fd[i] = sv[1];
	}
	build_qemu_argv(&argv, job, &st);
	progress_begin("booting the VM");
	if (start_qemu(&argv, &st) < 0)
		goto out;
	for (int i = 0; i < NR_PORTS; i++) {
		close(st.guest_fd[i]);
		st.guest_fd[i] = -1;
	}
	interrupt_fd = st.host_fd[PORT_CTL];

	timed_out = pump(job, &st, &ctl);
	progress_end();
	vm_outfile_close(&ctl.file);
	wait_child(st.pid, &wstatus);
	st.pid = 0;

	if (st.kvm_stalled || (with_kvm && !timed_out && !ctl.have_status && !guest_ready)) {
		*kvm_died = true;	/* nothing came out yet: the caller tries TCG */
	} else if (timed_out) {
		fprintf(stderr, "ERROR: the VM did not finish within %d s; killed it\n",
			job->timeout_s);
		report_failure(&st);
	} else if (!ctl.have_status) {
		if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus))
			fprintf(stderr, "ERROR: qemu failed (exit status %d)\n",
				WEXITSTATUS(wstatus));
		else if (WIFSIGNALED(wstatus))
			fprintf(stderr, "ERROR: qemu was killed by signal %d\n",
				WTERMSIG(wstatus));
		else
			fprintf(stderr, "ERROR: the VM stopped without the job's status\n");
		report_failure(&st);
	} else {
		*status = ctl.status;
		ret = 0;
	}
out:
	progress_end();
	argv_free(&argv);
	cleanup(&st, job);
	return ret;
}

int vm_run(const struct vm_job *job, int *status)
{
	bool kvm_died = false;
	int ret = vm_run_once(job, status, &kvm_died);

	if (kvm_died) {
		mark_kvm_failed(job);
		ret = vm_run_once(job, status, &kvm_died);
	}
	return ret;
}
