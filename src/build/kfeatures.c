// SPDX-License-Identifier: GPL-2.0-or-later
#include "build/kfeatures.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build/cache.h"
#include "util.h"

/* One feature: TAP_HAVE_<name> is defined when `word` appears, as a whole word, in the
 * header `header` (relative to the tree's include/). */
struct feature {
	const char *name;
	const char *header;
	const char *word;
};

static const struct feature features[] = {
	/* del_timer_sync() became timer_delete_sync() (6.2; older distribution kernels may
	 * have both). */
	{ "TIMER_DELETE_SYNC", "linux/timer.h", "timer_delete_sync" },
	/* from_timer() became timer_container_of() (6.16). */
	{ "TIMER_CONTAINER_OF", "linux/timer.h", "timer_container_of" },
	/* fprobe's handlers with the return address and the pt_regs (6.5 to 6.13; 6.14's
	 * take ftrace_regs). Whether the kernel has CONFIG_FPROBE is the module's to see. */
	{ "FPROBE_PT_REGS", "linux/fprobe.h", "unsigned long ret_ip, struct pt_regs *regs" },
	/* uprobe_register() gives the struct uprobe, which uprobe_unregister_nosync() and
	 * uprobe_unregister_sync() take instead of uprobe_unregister() (6.12). */
	{ "UPROBE_UNREGISTER_NOSYNC", "linux/uprobes.h", "uprobe_unregister_nosync" },
};

/* Debian splits a kernel's headers: the arch-specific tree's Makefile includes the common
 * tree's ("include .../linux-headers-X-common/Makefile"). The tree whose include/linux
 * holds the headers: the common one when there is such a line, else BUILD_DIR itself. */
static char *source_tree(const char *build_dir)
{
	char *makefile = xasprintf("%s/Makefile", build_dir);
	char *text = read_text_file(makefile, NULL);
	char *tree = NULL;
	const char *at = text ? strstr(text, "../") : NULL;

	free(makefile);
	if (text && !strncmp(text, "include ", 8) && at) {
		const char *end = strstr(at, "/Makefile");

		if (end)
			tree = xasprintf("%s/%.*s", build_dir, (int)(end - at), at);
	}
	free(text);
	if (!tree)
		tree = xstrdup(build_dir);
	return tree;
}

static bool is_word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

static bool has_word(const char *text, const char *word)
{
	size_t len = strlen(word);

	for (const char *p = text; (p = strstr(p, word)); p += len)
		if ((p == text || !is_word_char(p[-1])) && !is_word_char(p[len]))
			return true;
	return false;
}

/* The features header's text for the tree at SOURCE. */
static char *scan_features(const char *source)
{
	struct strbuf out = { 0 };

	sb_addf(&out, "/* The kernel API of %s, read from its headers by tapster. */\n", source);
	for (size_t i = 0; i < sizeof(features) / sizeof(features[0]); i++) {
		char *path = xasprintf("%s/include/%s", source, features[i].header);
		char *text = read_text_file(path, NULL);

		if (text && has_word(text, features[i].word))
			sb_addf(&out, "#define TAP_HAVE_%s 1\n", features[i].name);
		else
			sb_addf(&out, "/* no %s in %s */\n", features[i].word, features[i].header);
		free(text);
		free(path);
	}
	return sb_steal(&out);
}

/* The cache's name for a tree: a hash of its real path and of its .config's time and size,
 * which a new build of the kernel changes. */
char *kernel_tree_key(const char *build_dir)
{
	char real[PATH_MAX];
	struct stat st = { 0 };
	uint64_t hash = 0xcbf29ce484222325ULL;
	char *config = xasprintf("%s/.config", build_dir);
	char *id;

	if (!realpath(build_dir, real))
		snprintf(real, sizeof(real), "%s", build_dir);
	stat(config, &st);
	free(config);
	id = xasprintf("%s %lld %lld %zu", real, (long long)st.st_mtime, (long long)st.st_size,
		       sizeof(features) / sizeof(features[0]));
	for (const char *p = id; *p; p++)
		hash = (hash ^ (unsigned char)*p) * 0x100000001b3ULL;
	free(id);
	return xasprintf("%016llx", (unsigned long long)hash);
}

static bool write_atomically(const char *path, const char *text)
{
	char *tmp = xasprintf("%s.%d", path, (int)getpid());
	FILE *f = fopen(tmp, "w");
	bool ok = f && fputs(text, f) >= 0;

	if (f && fclose(f) != 0)
		ok = false;
	if (ok && rename(tmp, path) != 0)
		ok = false;
	if (!ok)
		unlink(tmp);
	free(tmp);
	return ok;
}

char *kernel_features_header(const char *build_dir, const char *in_dir, bool refresh)
{
	char *root = in_dir ? NULL : tapster_dir();
	char *dir = in_dir ? xstrdup(in_dir) : xasprintf("%s/kfeatures", root);
	char *key = kernel_tree_key(build_dir);
	char *path = xasprintf("%s/%s.h", dir, key);

	free(root);
	free(key);
	if (refresh || access(path, R_OK) != 0) {
		char *source = source_tree(build_dir);
		char *text = scan_features(source);

		free(source);
		if (make_dirs(dir) != 0 || !write_atomically(path, text)) {
			fprintf(stderr, "ERROR: cannot write %s: %s\n", path, strerror(errno));
			free(path);
			path = NULL;
		}
		free(text);
	}
	free(dir);
	return path;
}
