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

/* A list of strings from repeated options (-E, -B, -G, --modinfo, --sysenv). */
struct string_list {
	const char **items;
	int count;
};

/* --privilege=LEVEL (stap's names): what the script may do. */
enum privilege {
	PRIVILEGE_STAPDEV,	/* everything (the default) */
	PRIVILEGE_STAPSYS,	/* no embedded C, no guru mode */
	PRIVILEGE_STAPUSR,	/* also only the probe points stap allows an unprivileged user */
};

/* --dump-*: a listing of the library or the providers in place of a script. */
enum dump_kind {
	DUMP_NONE,
	DUMP_PROBE_ALIASES,
	DUMP_FUNCTIONS,
	DUMP_PROBE_TYPES,
};

/* --prologue-searching[=WHEN], -P. */
enum prologue_searching {
	PROLOGUE_AUTO,
	PROLOGUE_NEVER,
	PROLOGUE_ALWAYS,
};

struct session {
	int last_pass;		/* -p N; 5 by default */
	int verbose;		/* -v count, or the highest --vp digit when more */
	int pass_verbose[5];	/* each pass's verbosity: -v adds 1 to each, --vp N a digit */
	bool warnings_are_errors;	/* -W */
	struct string_list extra_scripts;	/* -E SCRIPT, each parsed as <inputN> */
	const char *arch;	/* -a ARCH, normalized; "x86_64" by default */
	struct string_list make_args;	/* -B NAME=VALUE, given to kbuild's make */
	struct string_list global_values;	/* -G NAME=VALUE, set at load */
	struct string_list modinfo;	/* --modinfo NAME=VALUE: MODULE_INFO lines */
	const char *tmpdir_option;	/* --tmpdir=DIR: the temporary files go there, kept */
	bool runtime_dir_given;	/* -R DIR */
	bool skip_badvars;	/* --skip-badvars: an unresolvable $var reads 0 */
	bool suppress_handler_errors;	/* --suppress-handler-errors */
	bool suppress_time_limits;	/* --suppress-time-limits */
	const char *compatible;	/* --compatible=VERSION, for %( systemtap_v %); NULL: 4.8 */
	enum prologue_searching prologue;	/* -P, --prologue-searching */
	enum privilege privilege;	/* --privilege, --unprivileged */
	bool all_modules;	/* --all-modules */
	bool tapset_coverage;	/* -q */
	const char *sysroot;	/* --sysroot=DIR: user-space files and -r trees under it */
	struct string_list sysenv;	/* --sysenv=VAR=VALUE (after --sysroot) */
	int target_namespace_pid;	/* --target-namespace=PID; 0 when not given */
	bool check_version;	/* --check-version */
	bool example;		/* --example: the script names one of stap's examples */
	int color;		/* --color[=WHEN]: 0 auto (a terminal), 1 always, -1 never */
	enum dump_kind dump;	/* --dump-probe-types, --dump-probe-aliases, --dump-functions */
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
	struct string_list remotes;	/* --remote=URL, in order (their index is the prefix's) */
	bool remote_prefix;	/* --remote-prefix: "[N] " before each line of target N */
	int remote_max;		/* --remote-max=N: sessions at once; 0: the default (16) */
	const char *module_dir;	/* where -p4 copies NAME.ko (-m, --disable-cache); NULL: "." */
	enum vm_choice vm;
	int vm_cpus;		/* --vm-cpus N (default 2) */

	/* Where things are: the source tree when run uninstalled, else the installed paths. */
	const char *tapset_dir;
	/* tapster's own library, whatever TAPSTER_TAPSET or SYSTEMTAP_TAPSET say: its files'
	 * helpers that stap's library lacks are not offered as similar names. */
	const char *own_tapset_dir;
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
	bool keep_tmpdir_quietly;	/* it is --tmpdir's: the user's to remove */

	/* Pass 2 says which kernel modules the script probes (NULL-terminated, or NULL), for
	 * pass 5 to give them to the VM. */
	const char **probed_modules;
	/* And the files its process("PATH") points are on, for the VM to have them at the
	 * same paths (NULL-terminated, or NULL). */
	const char **probed_files;
	/* And whether the loader feeds its standard input to the script (input.char/line). */
	bool reads_stdin;
	/* And whether it calls switch_file() (-o's files are written where the loader runs). */
	bool switches_files;
};

#endif
