// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Who may run tapster-run, as staprun's rules have it: root; members of the group
 * "stapdev", any module; members of "stapusr" only, modules from the directory
 * /lib/modules/KVER/tapster, which root must own and nobody else may write (the groups are
 * looked up in /etc/group; the usual members list or primary group), so that such a
 * user never gets a module loaded from a path they control. Anybody else is refused before
 * anything is opened. (Inserting a module takes CAP_SYS_MODULE: for users other than root
 * the administrator installs tapster-run setuid root, mode 4750, group stapusr.)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "loader.h"

/* The id of the group `name` in /etc/group (read directly: the loader is linked
 * statically, without NSS), or -1. */
static long group_id(const char *name)
{
	FILE *f = fopen("/etc/group", "re");
	char line[4096];
	size_t len = strlen(name);
	long gid = -1;

	while (f && gid < 0 && fgets(line, sizeof(line), f)) {
		char *colon;

		if (strncmp(line, name, len) || line[len] != ':')
			continue;
		colon = strchr(line + len + 1, ':');
		if (colon)
			gid = strtol(colon + 1, NULL, 10);
	}
	if (f)
		fclose(f);
	return gid;
}

static bool in_group(const char *name)
{
	long gid = group_id(name);
	gid_t groups[NGROUPS_MAX];
	int n;

	if (gid < 0)
		return false;
	if (getgid() == (gid_t)gid || getegid() == (gid_t)gid)
		return true;
	n = getgroups(NGROUPS_MAX, groups);
	for (int i = 0; i < n; i++)
		if (groups[i] == (gid_t)gid)
			return true;
	return false;
}

/* Opens with the real user's rights, so that a setuid loader reads no file they can't. */
int open_as_user(const char *path, int flags, int mode)
{
	uid_t euid = geteuid();
	int fd, err;

	if (euid != getuid() && seteuid(getuid()) != 0)
		fail("cannot change to the user's id: %s", strerror(errno));
	fd = open(path, flags | O_CLOEXEC, mode);
	err = errno;
	if (euid != getuid() && seteuid(euid) != 0)
		fail("cannot change back to root: %s", strerror(errno));
	errno = err;
	return fd;
}

static bool owned_by_root_and_closed(const struct stat *st)
{
	return st->st_uid == 0 && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* A stapusr-only user's module: a file in the root-owned module directory, no link. */
static int open_trusted_module(const char *path)
{
	struct utsname u;
	char dir[PATH_MAX], real[PATH_MAX];
	struct stat st;
	size_t dirlen;
	int fd;

	uname(&u);
	snprintf(dir, sizeof(dir), "/lib/modules/%s/tapster", u.release);
	dirlen = strlen(dir);
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || !owned_by_root_and_closed(&st) ||
	    !realpath(path, real) || strncmp(real, dir, dirlen) || real[dirlen] != '/' ||
	    strchr(real + dirlen + 1, '/'))
		fail("Members of the \"stapusr\" group can only use modules within\n"
		     "  the \"%s\" directory.", dir);
	fd = open(real, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		fail("Couldn't open module '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !owned_by_root_and_closed(&st))
		fail("Module '%s' must be owned by root and writable by nobody else.", real);
	return fd;
}

static void refuse_others(void)
{
	if (getuid() != 0 && !in_group("stapdev") && !in_group("stapusr"))
		fail("You are trying to run systemtap as a normal user.\n"
			     "You should either be root, or be part of group \"stapusr\" and"
		     " possibly the groups \"stapsys\" or \"stapdev\".");
}

void check_may_attach(void)
{
	refuse_others();
}

int open_module_checked(const char *path)
{
	int fd;

	refuse_others();
	if (getuid() != 0 && !in_group("stapdev"))
		return open_trusted_module(path);
	fd = open_as_user(path, O_RDONLY, 0);
	if (fd < 0)
		fail("Couldn't open module '%s': %s", path, strerror(errno));
	return fd;
}
