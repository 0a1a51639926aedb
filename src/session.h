/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the command line asked for, read by every pass. */
#ifndef TAPSTER_SESSION_H
#define TAPSTER_SESSION_H

#include <stdbool.h>

enum vm_choice {
	VM_AUTO,	/* the VM where the host can't load modules */
	VM_FORCE,	/* --vm */
	VM_NEVER,	/* --no-vm */
};

struct define {
	char *name;
	char *value;	/* NULL for -D NAME */
};

struct session {
	int last_pass;		/* -p N; 5 by default */
	int verbose;		/* -v count */
	bool guru;		/* -g */
	bool keep_tmpdir;	/* -k */
	bool suppress_warnings;	/* -w */
	bool unoptimized;	/* -u: no elision */
	const char *script_file;	/* SCRIPT, or NULL with -e */
	const char *script_text;	/* -e */
	int argc;		/* script arguments after SCRIPT */
	char **argv;
	const char *module_name;	/* -m */
	const char *list_pattern;	/* -l/-L PATTERN: list the matching probe points */
	bool list_vars;			/* -L: with their variables */
	const char *output_file;	/* -o */
	const char *command;	/* -c */
	int target_pid;		/* -x */
	int timeout_s;		/* -T SECONDS: a timer probe calls exit(); 0 when not given */
	int monitor_interval;	/* --monitor[=INTERVAL]: the screen's refresh, seconds; 0: none */
	const char *size_limit;	/* -S size[,N]: the loader's output file rotation, as given */
	int buffer_mb;		/* -s NUM: output buffer per CPU, in MB; 0 for the default */
	bool bulk;		/* -b: bulk mode, one output file per CPU */
	bool flight_recorder;	/* -F: leave the session running (-o: the loader in background) */
	const char *kernel;	/* -r KVER|DIR */
	struct define *defines;	/* -D */
	int ndefines;
	const char **include_dirs;	/* -I */
	int ninclude_dirs;
	const char **symbol_files;	/* -d FILE (and what --ldd adds): user symbol tables */
	int nsymbol_files;
	bool ldd;		/* --ldd: the shared libraries the -d files need, too */
	bool disable_cache;	/* --disable-cache: no cache is read or written */
	bool poison_cache;	/* --poison-cache: none is read; they are written */
	enum vm_choice vm;
	int vm_cpus;		/* --vm-cpus N (default 2) */

	/* Where things are: the source tree when run uninstalled, else the installed paths. */
	const char *tapset_dir;
	const char *runtime_dir;
	const char *loader_path;
	const char *vmkit_path;

	/* The target kernel, decided before pass 2 (in pass 1 already when a %( condition asks
	 * about it). target_state: 0 undecided, 1 decided, -1 failed (said why). */
	int target_state;
	char *kernel_config;	/* its .config, read when a condition first asks */
	const char *kernel_release;
	const char *kernel_build_dir;
	bool run_in_vm;
	const char *vm_kit_dir;

	char *tmpdir;		/* the session's temporary directory */

	/* Pass 2 says which kernel modules the script probes (NULL-terminated, or NULL), for
	 * pass 5 to give them to the VM. */
	const char **probed_modules;
	/* And the files its process("PATH") points are on, for the VM to have them at the
	 * same paths (NULL-terminated, or NULL). */
	const char **probed_files;
};

#endif
