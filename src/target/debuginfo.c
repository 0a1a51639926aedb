// SPDX-License-Identifier: GPL-2.0-or-later
/* Finding and opening the target kernel's DWARF debuginfo (debuginfo.h). */
#define _GNU_SOURCE
#include "target/debuginfo.h"

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session.h"
#include "util.h"

struct debuginfo {
	char *path;
	int fd;
	Elf *elf;
	Dwarf *dwarf;
	bool read_cache, write_cache;	/* of dwpoints' index: not with --disable-cache */
};

static const char *search_path(void)
{
	const char *path = getenv("SYSTEMTAP_DEBUGINFO_PATH");

	return path ? path : "+:.debug:/usr/lib/debug:build";
}

/* The directories of the search path, one call per entry; "build" is the build tree. */
static char *next_entry(const char **cursor)
{
	const char *start = *cursor, *end;

	while (*start == ':')
		start++;
	if (!*start)
		return NULL;
	end = strchrnul(start, ':');
	*cursor = end;
	return xstrndup(start, end - start);
}

static bool is_file(const char *path)
{
	return access(path, R_OK) == 0;
}

/* The kernel's debuginfo file in the search path's entry `dir`, or NULL. */
static char *vmlinux_in(const struct session *s, const char *dir)
{
	char *path;

	if (!strcmp(dir, "+") || !strcmp(dir, ".debug"))
		return NULL;
	if (!strcmp(dir, "build")) {
		if (!s->kernel_build_dir)
			return NULL;
		path = xasprintf("%s/vmlinux", s->kernel_build_dir);
		if (is_file(path))
			return path;
		free(path);
		return NULL;
	}
	path = xasprintf("%s/boot/vmlinux-%s", dir, s->kernel_release);
	if (is_file(path))
		return path;
	free(path);
	path = xasprintf("%s/lib/modules/%s/vmlinux", dir, s->kernel_release);
	if (is_file(path))
		return path;
	free(path);
	return NULL;
}

static char *find_vmlinux(const struct session *s)
{
	const char *cursor = search_path();
	char *entry, *found = NULL;

	if (!s->kernel_release)
		return NULL;
	while (!found && (entry = next_entry(&cursor))) {
		found = vmlinux_in(s, entry);
		free(entry);
	}
	return found;
}

static struct debuginfo *open_debuginfo(char *path)
{
	struct debuginfo *di = xcalloc(1, sizeof(*di));

	elf_version(EV_CURRENT);
	di->path = path;
	di->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (di->fd < 0)
		goto fail;
	di->elf = elf_begin(di->fd, ELF_C_READ_MMAP, NULL);
	if (!di->elf)
		goto fail;
	di->dwarf = dwarf_begin_elf(di->elf, DWARF_C_READ, NULL);
	if (!di->dwarf)
		goto fail;
	return di;
fail:
	if (di->elf)
		elf_end(di->elf);
	if (di->fd >= 0)
		close(di->fd);
	free(di->path);
	free(di);
	return NULL;
}

const struct debuginfo *debuginfo_kernel(const struct session *s)
{
	static struct debuginfo *kernel;
	static bool looked;
	char *path;

	if (looked)
		return kernel;
	looked = true;
	path = find_vmlinux(s);
	if (path)
		kernel = open_debuginfo(path);
	if (kernel) {
		kernel->read_cache = !s->disable_cache && !s->poison_cache;
		kernel->write_cache = !s->disable_cache;
	}
	return kernel;
}

/* nftw has no user argument: the name looked for and the path found. */
static const char *wanted_module;
static char *found_module;

static bool same_module_name(const char *a, const char *b, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		char ca = a[i] == '-' ? '_' : a[i], cb = b[i] == '-' ? '_' : b[i];

		if (ca != cb || !cb)
			return false;
	}
	return b[len] == '\0';
}

static int match_module(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	const char *base = path + ftw->base;
	size_t len = strlen(base);

	(void)st;
	if (type != FTW_F || len < 4 || strcmp(base + len - 3, ".ko"))
		return 0;
	if (!same_module_name(base, wanted_module, len - 3))
		return 0;
	found_module = xstrdup(path);
	return 1;
}

char *debuginfo_module_path(const struct session *s, const char *name)
{
	const char *cursor = search_path();
	char *entry, *dir;

	if (!s->kernel_release)
		return NULL;
	found_module = NULL;
	wanted_module = name;
	while (!found_module && (entry = next_entry(&cursor))) {
		if (strcmp(entry, "+") && strcmp(entry, ".debug") && strcmp(entry, "build")) {
			dir = xasprintf("%s/lib/modules/%s", entry, s->kernel_release);
			nftw(dir, match_module, 16, FTW_PHYS);
			free(dir);
		}
		free(entry);
	}
	return found_module;
}

bool debuginfo_cache_allowed(const struct debuginfo *di, bool *read)
{
	*read = di->read_cache;
	return di->write_cache;
}

const char *debuginfo_path(const struct debuginfo *di)
{
	return di->path;
}

Dwarf *debuginfo_dwarf(const struct debuginfo *di)
{
	return di->dwarf;
}

Elf *debuginfo_elf(const struct debuginfo *di)
{
	return di->elf;
}
