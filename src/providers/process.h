/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the process("...") family's files share (process.c, process_files.c,
 * process_mark.c, process_plt.c): the files a point is on, and the derivations of the
 * points after process(...) and .library(...).
 */
#ifndef TAPSTER_PROVIDERS_PROCESS_H
#define TAPSTER_PROVIDERS_PROCESS_H

#include <stdbool.h>
#include <stddef.h>

#include "providers/providers.h"

/*
 * The process's file of the point's first component into `path` (PATH_MAX bytes, the
 * host's path, absolute): process("PATH") found as stap finds it, process(PID)'s
 * /proc/PID/exe now, a bare process's of -x PID or else of the -c command's program; ""
 * for one not found (no match, to the caller). False after stap's error (an invalid or
 * dead PID, a bare process without -c or -x).
 */
bool process_file(const struct probe_point *point, const struct provider_env *env, char *path);
/* A file's path on the target: under --sysroot, without it. */
const char *target_file_path(const struct provider_env *env, const char *host_path);

/* A library a .library("LIB") component names. */
struct process_library {
	char *path;	/* its real path, on the host */
	char *shown;	/* LIB as -l and the point's origin show it: as written when it names
			 * a file from here, else the library's real path */
	bool named;	/* LIB named it from here: a "no match" in it names similar points */
};

/*
 * The libraries `library` names for the process's file `exe`, as stap finds them: a LIB
 * that names a file from the current directory (a path, or a name there) is that file;
 * else the libraries `ldd EXE` lists whose path ends as LIB (a wildcard) does; else, for a
 * wildcard, the files it globs. *libs, *count of them (process_free_libraries()); false
 * after stap's error ("no match" with the similar libraries, "glob LIB error (3)").
 */
bool process_libraries(const struct probe_point *point, const char *exe,
		       const struct component *library, struct process_library **libs,
		       size_t *count);
void process_free_libraries(struct process_library *libs, size_t count);
/* The files the wildcard `pattern` globs (a .library's LIB, a process's PATH), each by its
 * real path once; false after stap's "glob PATTERN error (N)" when there are none. */
bool process_glob_files(const struct probe_point *point, const char *pattern,
			struct process_library **files, size_t *count);

/* A file a point of the family is on: the process's own, or one of its libraries. */
struct process_target_file {
	const char *path;	/* the host's */
	const char *target;	/* the target's: the uprobe's file */
	const char *exe;	/* the process's file, the target's */
	const char *library;	/* the library component as shown, or NULL */
	bool dynamic;		/* ET_DYN: stap's pc=.dynamic+ */
};

/* The points of one file that fit (marks, PLT entries), added at *tail; their count.
 * `no_match`: say stap's "no match" (with similar names) when none fits. */
typedef size_t (*process_file_points)(const struct probe_point *point,
				      const struct process_target_file *file, bool no_match,
				      void *ctx, struct derived_point ***tail);

/* `each` on the process's file, or on each library `library` (NULL: none) names; false
 * after an error, or when no point fits (stap's "no match" said). */
bool process_each_file(const struct probe_point *point, const struct provider_env *env,
		       const struct component *library, process_file_points each, void *ctx,
		       struct derived_point ***tail);

/* process(...)[.library("LIB")][.provider("P")].mark("NAME") (process_mark.c): uprobes at
 * the SDT markers that fit of the process's file, or of the libraries LIB names; `library`
 * and `provider` are those components or NULL. False after the error. */
bool derive_process_marks(const struct probe_point *point, const struct provider_env *env,
			  const struct component *library, const struct component *provider,
			  const struct component *mark, struct derived_point ***tail);

/* process(...)[.library("LIB")].plt[("NAME")][.return] (process_plt.c): uprobes at the PLT
 * entries whose symbol fits; `plt` is the plt component (without a name: "*"). */
bool derive_process_plt(const struct probe_point *point, const struct provider_env *env,
			const struct component *library, const struct component *plt,
			struct derived_point ***tail);

#endif
