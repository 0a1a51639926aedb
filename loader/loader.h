/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tapster-run's pieces: who may run it (permissions.c), where the output goes (output.c). */
#ifndef TAPSTER_LOADER_H
#define TAPSTER_LOADER_H

#include <stdbool.h>
#include <stddef.h>

void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/*
 * Refuses (a message, exit 1) a user who is not root and in neither of the groups "stapdev"
 * (any module) and "stapusr" (only modules in the root-owned directory
 * /lib/modules/KVER/tapster). Returns the module file, opened, after checking that a
 * stapusr-only user does not control it.
 */
int open_module_checked(const char *path);
/* The module's own name, from its .modinfo (modinfo.c); false when it has none. */
bool module_name_from_modinfo(int fd, char *name, size_t size);
/* The value of the entry KEY ("vermagic") of the module's .modinfo; false when none. */
bool module_modinfo(int fd, const char *key, char *value, size_t size);

/* --vm: runs the module in the bundled VM (vm_mode.c) with the loader's options, checked:
 * `params` are its words after MODULE; returns the exit status. */
struct vm_mode_options {
	const char *module_path;
	const char *command;		/* -c */
	const char *output_path;	/* -o */
	const char *size_limit;		/* -S, as given */
	const char *buffer_mb;		/* -b, as given */
	bool verbose;
	char **params;
	int nparams;
};
int run_module_in_vm(const struct vm_mode_options *opt);
/* -A: the same refusal of users in neither group. */
void check_may_attach(void);
/* open(2) with the real user's rights (a setuid loader writes no file they can't). */
int open_as_user(const char *path, int flags, int mode);

/* Where the script's stdout records go: stdout, or -o FILE with -S rotation, per CPU in
 * bulk mode. */
struct output_options {
	const char *path;		/* -o FILE, or NULL for stdout */
	unsigned long long max_bytes;	/* -S size: switch files past this; 0: no limit */
	unsigned int max_files;		/* -S ...,N: keep this many; 0: all */
	bool bulk;			/* FILE_CPU per CPU */
	bool background;		/* -D: FILE_cpuCPU in bulk mode, as staprun names them */
};

void output_init(const struct output_options *opt);
/* Checks that the output file can be made before anything is loaded (fails if not). */
void output_open_first(void);
void output_write(unsigned int cpu, const char *buf, size_t len);
void output_flush(void);
void output_switch(void);
void output_close(void);

void write_all(int fd, const char *buf, size_t len);

#endif
