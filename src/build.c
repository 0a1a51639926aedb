// SPDX-License-Identifier: GPL-2.0-or-later
#include "build.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kfeatures.h"
#include "util.h"

static bool write_kbuild(const struct session *s, const char *name)
{
	char *features = kernel_features_header(s->kernel_build_dir);
	char *path = xasprintf("%s/Kbuild", s->tmpdir);
	FILE *f = features ? fopen(path, "w") : NULL;

	if (!f) {
		if (features)
			fprintf(stderr, "ERROR: cannot write %s: %s\n", path, strerror(errno));
		free(path);
		free(features);
		return false;
	}
	fprintf(f, "obj-m := %s.o\n", name);
	/* The kernel's API, as its headers have it (kfeatures.c), before anything else. */
	fprintf(f, "ccflags-y := -include %s -I%s", features, s->runtime_dir);
	free(features);
	for (int i = 0; i < s->ndefines; i++)
		fprintf(f, " '-D%s%s%s'", s->defines[i].name, s->defines[i].value ? "=" : "",
			s->defines[i].value ? s->defines[i].value : "");
	fputc('\n', f);
	fclose(f);
	free(path);
	return true;
}

/* Runs make with its output in build.log; shows the log when it fails or with -vvv. */
static bool run_make(const struct session *s)
{
	char *log = xasprintf("%s/build.log", s->tmpdir);
	char *mdir = xasprintf("M=%s", s->tmpdir);
	pid_t pid = fork();
	int status = 0;

	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		execlp("make", "make", "-s", "-C", s->kernel_build_dir, mdir, "modules",
		       (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0 || s->verbose >= 3) {
		FILE *f = fopen(log, "r");
		char line[4096];

		while (f && fgets(line, sizeof(line), f))
			fputs(line, stderr);
		if (f)
			fclose(f);
	}
	free(log);
	free(mdir);
	return pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

char *build_module(const struct session *s, const char *name)
{
	char *ko;

	if (!write_kbuild(s, name) || !run_make(s))
		return NULL;
	ko = xasprintf("%s/%s.ko", s->tmpdir, name);
	if (access(ko, R_OK) != 0) {
		fprintf(stderr, "ERROR: kbuild made no %s\n", ko);
		free(ko);
		return NULL;
	}
	return ko;
}
