// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The files a user-space point is on, found as stap finds them: the process's file of
 * process("PATH"), process(PID) (its /proc/PID/exe when the point is elaborated) and of a
 * bare process with -x PID or -c COMMAND; and the libraries of .library("LIB") after it.
 */
#include "providers/process.h"

#include <fnmatch.h>
#include <glob.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "target/usyms.h"
#include "util.h"

bool find_executable_in(const char *sysroot, const char *search_path, const char *name,
			char *path)
{
	const char *dirs = search_path ? search_path : getenv("PATH");
	const char *root = sysroot ? sysroot : "";
	char *rooted;
	bool found;

	while (!strchr(name, '/') && dirs && *dirs) {
		size_t len = strcspn(dirs, ":");
		char *candidate = xasprintf("%s%.*s/%s", root, (int)len, dirs, name);

		found = len && access(candidate, X_OK) == 0 && realpath(candidate, path);
		free(candidate);
		if (found)
			return true;
		dirs += len + (dirs[len] == ':');
	}
	/* Under a sysroot, a relative NAME is the target's, from its root. */
	rooted = sysroot ? xasprintf("%s/%s", sysroot, name) : xstrdup(name);
	found = realpath(rooted, path) != NULL;
	free(rooted);
	return found;
}

bool find_executable(const char *name, char *path)
{
	return find_executable_in(NULL, NULL, name, path);
}

const char *target_file_path(const struct provider_env *env, const char *host_path)
{
	size_t len = env->sysroot ? strlen(env->sysroot) : 0;

	if (len && !strncmp(host_path, env->sysroot, len) && host_path[len] == '/')
		return host_path + len;
	return host_path;
}

/* The program PID runs, from /proc/PID/exe ("" for a task without one, a kernel thread);
 * false after stap's error (`why`, when given, before it: -x's). */
static bool pid_file(const struct probe_point *point, int64_t pid, const char *why, char *path)
{
	bool valid = pid > 0 && pid <= INT_MAX;
	char *exe = xasprintf("/proc/%lld/exe", (long long)pid);
	char *dir = xasprintf("/proc/%lld", (long long)pid);
	bool running = valid && access(dir, F_OK) == 0;
	char *reason;

	if (running && !realpath(exe, path))
		*path = '\0';
	free(exe);
	free(dir);
	if (running)
		return true;
	reason = xasprintf("cannot probe pid %lld: %s", (long long)pid,
			   valid ? "No such process" : "Invalid pid");
	if (why) {
		provider_refuse(point, why);
		diag_continue();
		diag_error("semantic error", "%s\n", reason);
	} else {
		provider_refuse(point, reason);
	}
	free(reason);
	return false;
}

bool process_file(const struct probe_point *point, const struct provider_env *env, char *path)
{
	const struct component *first = point->components;
	const char *written = component_string(first);
	char *command;
	int64_t pid;
	bool found;

	if (written) {
		if (find_executable_in(env->sysroot, env->target_path, written, path))
			return true;
		*path = '\0';
		/* A name without a slash that $PATH does not have: stap's error, not its
		 * "no match" of a path that is not there. */
		if (!strchr(written, '/')) {
			char *reason = xasprintf("cannot find executable '%s'", written);

			provider_refuse(point, reason);
			free(reason);
			return false;
		}
		return true;
	}
	if (first->arg && component_number(first, &pid))
		return pid_file(point, pid, NULL, path);
	if (env->target_pid)
		return pid_file(point, env->target_pid, "invalid -x pid for unspecified process"
				" probe [man stapprobes]", path);
	if (!env->command) {
		provider_refuse(point, "unspecified process probe is invalid without a -c COMMAND"
				" or -x PID [man stapprobes]");
		return false;
	}
	command = xasprintf("%.*s", (int)strcspn(env->command, " \t"), env->command);
	found = find_executable_in(env->sysroot, env->target_path, command, path);
	free(command);
	if (!found)
		*path = '\0';
	return true;
}

/* ---- .library("LIB") ---- */

static void add_library(struct process_library **libs, size_t *count, const char *path,
			const char *shown, bool named)
{
	for (size_t i = 0; i < *count; i++)
		if (!strcmp((*libs)[i].path, path))
			return;
	*libs = xrealloc(*libs, (*count + 1) * sizeof(**libs));
	(*libs)[*count].path = xstrdup(path);
	(*libs)[*count].shown = xstrdup(shown);
	(*libs)[*count].named = named;
	(*count)++;
}

/* The libraries `ldd EXE` lists whose path ends as LIB does (LIB may be a wildcard): each
 * by its real path, which the point then shows. */
static void ldd_libraries(const char *lib, char **ldd, int nldd, struct process_library **libs,
			  size_t *count)
{
	char *pattern = xasprintf("*%s", lib);
	char real[PATH_MAX];

	for (int i = 0; i < nldd; i++)
		if (!fnmatch(pattern, ldd[i], 0) && realpath(ldd[i], real))
			add_library(libs, count, real, real, false);
	free(pattern);
}

/* A wildcard LIB the process's libraries do not match, or a wildcard PATH of process(PATH):
 * the files it globs, from the current directory, each by its real path once; false after
 * stap's error when there are none. */
bool process_glob_files(const struct probe_point *point, const char *lib,
			   struct process_library **libs, size_t *count)
{
	glob_t found = { 0 };
	int rc = glob(lib, 0, NULL, &found);
	char real[PATH_MAX];

	if (rc) {
		char *reason = xasprintf("glob %s error (%d)", lib, rc);

		provider_refuse(point, reason);
		free(reason);
		globfree(&found);
		return false;
	}
	for (size_t i = 0; i < found.gl_pathc; i++)
		if (realpath(found.gl_pathv[i], real))
			add_library(libs, count, real, real, false);
	globfree(&found);
	return true;
}

/* stap's "no match" of a LIB that names no library of the process: the nearest five of
 * those ldd lists, as it lists them. */
static void library_no_match(const struct probe_point *point, const char *lib, char **ldd,
			     int nldd)
{
	char *similar = similar_names(lib, (const char *const *)ldd, (size_t)nldd);

	provider_no_match(point, similar, "library", "libraries");
	free(similar);
}

bool process_libraries(const struct probe_point *point, const char *exe,
		       const struct component *library, struct process_library **libs,
		       size_t *count)
{
	const char *lib = component_string(library);
	bool wildcard = strpbrk(lib, "*?[") != NULL;
	char real[PATH_MAX];
	char **ldd = NULL;
	int nldd = 0;
	bool ok = true;

	*libs = NULL;
	*count = 0;
	/* A file LIB names from here (a path, or a name in the current directory) is taken
	 * as it is, and shown as written. */
	if (!wildcard && realpath(lib, real)) {
		add_library(libs, count, real, lib, true);
		return true;
	}
	if (!wildcard && strchr(lib, '/')) {
		provider_refuse(point, "no match");
		return false;
	}
	if (*exe)
		ldd = usyms_ldd(exe, &nldd);
	ldd_libraries(lib, ldd, nldd, libs, count);
	if (!*count && wildcard)
		ok = process_glob_files(point, lib, libs, count);
	else if (!*count) {
		library_no_match(point, lib, ldd, nldd);
		ok = false;
	}
	for (int i = 0; i < nldd; i++)
		free(ldd[i]);
	free(ldd);
	return ok;
}

void process_free_libraries(struct process_library *libs, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		free(libs[i].path);
		free(libs[i].shown);
	}
	free(libs);
}

bool process_each_file(const struct probe_point *point, const struct provider_env *env,
		       const struct component *library, process_file_points each, void *ctx,
		       struct derived_point ***tail)
{
	char exe[PATH_MAX];
	struct process_library *libs = NULL;
	size_t nlibs = 0, matched = 0;
	bool one;

	if (!process_file(point, env, exe))
		return false;
	if (!library) {
		struct process_target_file file = { exe, target_file_path(env, exe),
						    target_file_path(env, exe), NULL,
						    *exe && usyms_is_dynamic(exe) };

		return each(point, &file, true, ctx, tail) > 0;
	}
	if (!process_libraries(point, exe, library, &libs, &nlibs))
		return false;
	/* Of a LIB found among the process's libraries or globbed, stap's "no match" names no
	 * similar points. */
	one = nlibs == 1 && libs[0].named;
	for (size_t i = 0; i < nlibs; i++) {
		struct process_target_file file = { libs[i].path,
						    target_file_path(env, libs[i].path),
						    target_file_path(env, exe), libs[i].shown,
						    usyms_is_dynamic(libs[i].path) };

		matched += each(point, &file, one, ctx, tail);
	}
	if (!matched && !one)
		provider_refuse(point, "no match");
	process_free_libraries(libs, nlibs);
	return matched > 0;
}
