// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The command line, as stap(1) 4.8 reads it: its options, their checks and their messages.
 * What an option asks for is written into struct session; the passes act on it. Options
 * that ask for what cannot exist here (compile servers, the BPF runtime) are read and
 * refused with the reason.
 */
#define _GNU_SOURCE
#include "options.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build/cache.h"
#include "run/remote.h"
#include "target/usyms.h"
#include "util.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0.1"
#endif

/* The SystemTap version whose language tapster speaks (--compatible's ceiling). */
#define STAP_VERSION "4.8"

/* Where stap's --example looks: Debian's systemtap-doc examples, else stap's own. */
static const char *const example_dirs[] = {
	"/usr/share/systemtap/examples",
	"/usr/share/doc/systemtap-doc/examples",
	NULL,
};

void usage(FILE *out)
{
	fputs("Usage: tapster [options] FILE [ARGS]      Run script in file.\n"
	      "   or: tapster [options] -                Run script on stdin.\n"
	      "   or: tapster [options] -e SCRIPT [ARGS] Run given script.\n"
	      "   or: tapster [options] -l PROBE         List matching probes.\n"
	      "   or: tapster [options] -L PROBE         List matching probes and local variables.\n"
	      "   or: tapster [options] --dump-probe-types    List available probe types.\n"
	      "   or: tapster [options] --dump-probe-aliases  List available probe aliases.\n"
	      "   or: tapster [options] --dump-functions      List available functions.\n"
	      "\n"
	      "Options:\n"
	      "   --             end of translator options, script options follow\n"
	      "   -h --help      show this help\n"
	      "   -V --version   show version\n"
	      "   -v             add verbosity to all passes\n"
	      "   --vp {N}+      add per-pass verbosity (one digit a pass, 1 to 5 digits)\n"
	      "   -p NUM         stop after pass NUM 1-5\n"
	      "                  (parse, elaborate, translate, compile, run)\n"
	      "   -e SCRIPT      run given script\n"
	      "   -E SCRIPT      run SCRIPT in addition to the main script (-e or a file)\n"
	      "   -l PROBE       list the probe points matching PROBE\n"
	      "   -L PROBE       list them with their script-level variables\n"
	      "   --dump-probe-types    list the probe point types tapster knows, then exit\n"
	      "   --dump-probe-aliases  list the probe aliases of the tapsets, then exit\n"
	      "   --dump-functions      list the functions of the tapsets with their types,\n"
	      "                  then exit\n"
	      "   -g             guru mode\n"
	      "   -u             unoptimized translation\n"
	      "   -w             suppress warnings\n"
	      "   -W             turn warnings into errors\n"
	      "   -k             keep temporary directory\n"
	      "   -m MODULE      set the name of the compiled module\n"
	      "   -o FILE        send script output to FILE\n"
	      "   -c CMD         start the probes, run CMD, and exit when it finishes\n"
	      "   -x PID         sets target() to PID\n"
	      "   -T TIMEOUT     exit the script after TIMEOUT seconds\n"
	      "   -t             collect probe timing information\n"
	      "   --monitor[=INTERVAL]  show a live screen of the probes' hits and the\n"
	      "                  globals, refreshed every INTERVAL seconds (default 1)\n"
	      "   -i --interactive  stap's interactive mode: not available in tapster\n"
	      "   -s NUM         use NUM megabyte buffers for the output, per CPU\n"
	      "   -S size[,N]    switch the -o file after size MB, keep at most N files\n"
	      "   -b             bulk mode: one output file per CPU (with -o FILE: FILE_CPU)\n"
	      "   -F             flight recorder: leave the probes running and detach (tapster-run\n"
	      "                  -A NAME attaches later); with -o, the loader runs in background\n"
	      "   -D NAME=VALUE  emit a macro definition into the generated C code\n"
	      "   -B NAME=VALUE  pass an option to kbuild's make\n"
	      "   -G VAR=VALUE   set the global variable VAR to VALUE when the module loads\n"
	      "   --modinfo NAME=VALUE  add MODULE_INFO(NAME,VALUE) to the generated C code\n"
	      "   -I DIR         look in DIR for additional .stp script files\n"
	      "   -R DIR         look in DIR for the runtime\n"
	      "   -d OBJECT      add symbol information for the user-space ELF file OBJECT\n"
	      "   --ldd          add symbol information for the shared libraries that the -d\n"
	      "                  files need, as ldd lists them\n"
	      "   --all-modules  add symbol information for all loaded kernel modules\n"
	      "   -r KVER|DIR    build for the kernel release KVER or the kernel build tree DIR\n"
	      "   -a ARCH        the architecture %( arch %) sees (modules are built for x86_64)\n"
	      "   -q             record tapset coverage (in the cache directory's coverage file)\n"
	      "   -P             prologue-searching for function probes\n"
	      "   --prologue-searching[=WHEN]  prologue-searching for function probes:\n"
	      "                  auto, never or always (the default of the option)\n"
	      "   --privilege=PRIVILEGE_LEVEL  check the script for constructs not allowed at\n"
	      "                  the given privilege level: stapusr, stapsys or stapdev\n"
	      "   --unprivileged equivalent to --privilege=stapusr\n"
	      "   --compatible=VERSION  suppress language and tapset changes beyond VERSION\n"
	      "   --check-version  warn where a syntax element may be version dependent\n"
	      "   --skip-badvars substitute zero for bad context $variables\n"
	      "   --suppress-handler-errors  catch all runtime errors, quietly skip probe\n"
	      "                  handlers\n"
	      "   --suppress-time-limits  disable the MAXACTION, MAXTRYACTION and overload\n"
	      "                  limits\n"
	      "   --tmpdir=NAME  use the existing directory NAME for the temporary files\n"
	      "   --sysroot=DIR  look for user-space files and kernel trees under DIR\n"
	      "   --sysenv=VAR=VALUE  the value of the environment variable VAR on the target\n"
	      "                  (after --sysroot)\n"
	      "   --target-namespace=PID  the namespaces of process PID are the target's\n"
	      "   --save-uprobes save uprobes.ko (none is built: the kernel's uprobes are used)\n"
	      "   --example      the script is the name of one of SystemTap's example scripts\n"
	      "   --color[=WHEN] color the diagnostics: never, always or auto\n"
	      "   --colour[=WHEN]  the same\n"
	      "   --rlimit-as=NUM     limit the translator's address space (bytes)\n"
	      "   --rlimit-cpu=NUM    limit the translator's CPU time (seconds)\n"
	      "   --rlimit-nproc=NUM  limit the translator's number of processes\n"
	      "   --rlimit-stack=NUM  limit the translator's stack size (bytes)\n"
	      "   --rlimit-fsize=NUM  limit the size of the files the translator writes (bytes)\n"
	      "   --runtime=MODE set the pass-5 runtime mode: kernel (the only one)\n"
	      "   --bpf          --runtime=bpf: refused (tapster builds kernel modules)\n"
	      "   --use-server[=SERVER]        refused: tapster has no compile servers\n"
	      "   --list-servers[=PROPERTIES]  the same\n"
	      "   --trust-servers[=TRUST]      the same\n"
	      "   --use-server-on-error[=yes|no]  the same\n"
	      "   --download-debuginfo[=WHEN]  refused: it needs ABRT, which Debian has not\n"
	      "   --remote=URL   run pass 5 on the host URL over ssh: [USER@]HOST,\n"
	      "                  ssh://[USER@]HOST[:PORT], or direct:// (this host); repeat it\n"
	      "                  for several hosts (the module is built once per kernel)\n"
	      "   --remote-prefix  begin each output line with \"N: \", N the index of\n"
	      "                  its --remote\n"
	      "   --remote-max=N run at most N --remote sessions at once (default 16)\n"
	      "   --vm           run pass 5 in the bundled VM\n"
	      "   --no-vm        never run pass 5 in the bundled VM\n"
	      "   --vm-cpus N    virtual CPUs of the bundled VM (default 2)\n"
	      "   --disable-cache  neither read nor write the module cache\n"
	      "   --poison-cache   rebuild modules in the cache, not reading them\n"
	      "   --clean-cache    trim the cache to its limit, then exit\n",
	      out);
}

static void try_help(void)
{
	fputs("Try '--help' for more information. [man tapster]\n", stderr);
	exit(1);
}

/* stap's words for an argument a pattern refuses. Case is ignored, as stap ignores it. */
static void check_pattern(const char *what, const char *arg, const char *pattern)
{
	regex_t re;
	bool ok;

	if (regcomp(&re, pattern, REG_EXTENDED | REG_ICASE | REG_NOSUB) != 0)
		abort();
	ok = regexec(&re, arg, 0, NULL, 0) == 0;
	regfree(&re);
	if (!ok) {
		fprintf(stderr, "ERROR: Safety pattern mismatch for %s ('%s' vs. '%s') rc=1\n",
			what, arg, pattern);
		exit(1);
	}
}

static void list_add(struct string_list *list, const char *item)
{
	list->items = xrealloc(list->items, sizeof(char *) * (size_t)(list->count + 1));
	list->items[list->count++] = item;
}

static bool is_valid_module_name(const char *name)
{
	if (!*name || strlen(name) > 55)
		return false;
	for (const char *p = name; *p; p++)
		if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (p != name && *p >= '0' && *p <= '9')))
			return false;
	return true;
}

/* -d FILE: once each, in the order given. */
static void add_symbol_file(struct session *s, const char *path)
{
	for (int i = 0; i < s->nsymbol_files; i++)
		if (!strcmp(s->symbol_files[i], path))
			return;
	s->symbol_files = xrealloc(s->symbol_files,
				   sizeof(char *) * (size_t)(s->nsymbol_files + 1));
	s->symbol_files[s->nsymbol_files++] = path;
}

/* --ldd: the shared libraries of each -d file, after them. */
static void add_ldd_files(struct session *s)
{
	int given = s->nsymbol_files;

	for (int i = 0; i < given; i++) {
		int count;
		char **libs = usyms_ldd(s->symbol_files[i], &count);

		for (int j = 0; j < count; j++)
			add_symbol_file(s, libs[j]);
		free(libs);
	}
}

void add_define(struct session *s, const char *arg)
{
	const char *eq = strchr(arg, '=');

	s->defines = xrealloc(s->defines, sizeof(*s->defines) * (size_t)(s->ndefines + 1));
	s->defines[s->ndefines].name = eq ? xstrndup(arg, (size_t)(eq - arg)) : xstrdup(arg);
	s->defines[s->ndefines].value = eq ? xstrdup(eq + 1) : NULL;
	s->ndefines++;
}

/* -T SECONDS: as stap, 1 to INT_MAX / 1000 seconds. */
static void parse_timeout(struct session *s, const char *arg)
{
	char *end;
	long value;

	errno = 0;
	value = strtol(arg, &end, 10);
	if (errno || end == arg || *end || value < 1 || value > INT_MAX / 1000) {
		fputs("Invalid timeout interval.\n", stderr);
		exit(1);
	}
	s->timeout_s = (int)value;
}

/* --monitor[=INTERVAL]: stap's refresh interval in seconds, 1 by default; the module keeps
 * each point's hits (a timing build without the report) and answers the loader's snapshots. */
static void parse_monitor(struct session *s, const char *arg)
{
	char *end;
	long value = 1;

	if (arg) {
		errno = 0;
		value = strtol(arg, &end, 10);
		if (errno || end == arg || *end || value < 1 || value > 3600) {
			fputs("Invalid monitor interval.\n", stderr);
			exit(1);
		}
	}
	s->monitor_interval = (int)value;
	add_define(s, "STP_TIMING");
	add_define(s, "TAP_MONITOR");
}

/* -i, --interactive: stap's prompt that builds a script step by step; not here. */
static void refuse_interactive(void)
{
	fputs("ERROR: interactive mode (-i, --interactive) is not available in tapster: write the"
	      " script in a file or give it with -e.\n", stderr);
	exit(1);
}

/* -S size[,N]: checked against the pattern stap checks it with; the loader reads it. */
static void parse_size_limit(struct session *s, const char *arg)
{
	check_pattern("-S parameter", arg, "^[0-9]+(,[0-9]+)?$");
	s->size_limit = arg;
}

/* --vp ABCDE: pass N's verbosity grows by the Nth digit. */
static void parse_pass_verbosity(struct session *s, const char *arg)
{
	size_t len = strlen(arg);

	if (len < 1 || len > 5 || strspn(arg, "0123456789") != len) {
		fputs("Invalid --vp argument: it takes 1 to 5 digits.\n", stderr);
		exit(1);
	}
	for (size_t i = 0; i < len; i++)
		s->pass_verbose[i] += arg[i] - '0';
}

/* -a ARCH, as stap normalizes it: i?86 is i386, armv* arm, and so on. */
static const char *normalize_arch(const char *arch)
{
	if (strlen(arch) == 4 && arch[0] == 'i' && arch[2] == '8' && arch[3] == '6')
		return "i386";
	if (!strncmp(arch, "arm", 3) && strcmp(arch, "arm64"))
		return "arm";
	if (!strcmp(arch, "aarch64"))
		return "arm64";
	if (!strcmp(arch, "ppc64le") || !strcmp(arch, "ppc64"))
		return "powerpc";
	if (!strncmp(arch, "s390", 4))
		return "s390";
	if (!strcmp(arch, "amd64"))
		return "x86_64";
	return arch;
}

/* --privilege=LEVEL and --unprivileged: stap's names; set once (the same level again is
 * no change). */
static void set_privilege(struct session *s, const char *level, bool *set)
{
	static const char *const names[] = { "stapdev", "stapsys", "stapusr" };
	int found = -1;

	for (int i = 0; i < 3; i++)
		if (!strcmp(level, names[i]))
			found = i;
	if (found < 0) {
		fprintf(stderr, "Invalid argument '%s' for --privilege.\n", level);
		exit(1);
	}
	if (*set && s->privilege != (enum privilege)found) {
		fputs("Privilege level may be set only once.\n", stderr);
		exit(1);
	}
	s->privilege = (enum privilege)found;
	*set = true;
}

/* --compatible=VERSION: no later than the language tapster speaks. */
static void set_compatible(struct session *s, const char *version)
{
	if (strverscmp(version, STAP_VERSION) > 0) {
		fprintf(stderr, "ERROR: systemtap version %s cannot be compatible with future"
			" version %s\n", STAP_VERSION, version);
		exit(1);
	}
	s->compatible = version;
}

static void set_prologue(struct session *s, const char *when)
{
	if (!when || !strcmp(when, "always")) {
		s->prologue = PROLOGUE_ALWAYS;
	} else if (!strcmp(when, "never")) {
		s->prologue = PROLOGUE_NEVER;
	} else if (!strcmp(when, "auto")) {
		s->prologue = PROLOGUE_AUTO;
	} else {
		fprintf(stderr, "Invalid argument '%s' for --prologue-searching.\n", when);
		exit(1);
	}
}

static void set_color(struct session *s, const char *when)
{
	if (!when || !strcmp(when, "always")) {
		s->color = 1;
	} else if (!strcmp(when, "never")) {
		s->color = -1;
	} else if (!strcmp(when, "auto")) {
		s->color = 0;
	} else {
		fprintf(stderr, "Invalid argument '%s' for --color.\n", when);
		exit(1);
	}
}

static void set_sysroot(struct session *s, const char *dir)
{
	char real[PATH_MAX];
	struct stat st;

	if (!realpath(dir, real) || stat(real, &st) != 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "ERROR: %s is an invalid directory for --sysroot\n", dir);
		exit(1);
	}
	s->sysroot = strcmp(real, "/") ? xstrdup(real) : NULL;
}

static void add_sysenv(struct session *s, const char *arg)
{
	if (!s->sysroot) {
		fputs("ERROR: --sysenv must follow --sysroot\n", stderr);
		exit(1);
	}
	if (!strchr(arg, '=') || arg[0] == '=') {
		fputs("ERROR: --sysenv must be of the form VAR=VALUE\n", stderr);
		exit(1);
	}
	list_add(&s->sysenv, arg);
}

static void set_target_namespace(struct session *s, const char *arg)
{
	char *end;
	long pid;

	errno = 0;
	pid = strtol(arg, &end, 10);
	if (errno || end == arg || *end || pid <= 0 || pid > INT_MAX) {
		fputs("Invalid process ID number for target namespaces.\n", stderr);
		exit(1);
	}
	s->target_namespace_pid = (int)pid;
}

/* --rlimit-NAME=NUM: the translator's own limit, set at once. */
static void set_rlimit(const char *name, int resource, const char *arg)
{
	char *end;
	unsigned long long value;
	struct rlimit limit;

	errno = 0;
	value = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-') {
		fprintf(stderr, "Unable to convert %s resource limit '%s'.\n", name, arg);
		exit(1);
	}
	limit.rlim_cur = limit.rlim_max = (rlim_t)value;
	if (setrlimit(resource, &limit) != 0) {
		fprintf(stderr, "Unable to set resource limits for %s: %s\n", name,
			strerror(errno));
		exit(1);
	}
}

/* What cannot exist here, refused with the reason and what to do instead. */
static void refuse(const char *option, const char *why)
{
	fprintf(stderr, "ERROR: %s is not supported: %s\n", option, why);
	exit(1);
}

static void set_runtime(const char *mode)
{
	if (!strcmp(mode, "kernel"))
		return;
	if (!strcmp(mode, "bpf") || !strcmp(mode, "dyninst"))
		refuse(!strcmp(mode, "bpf") ? "--runtime=bpf" : "--runtime=dyninst",
		       "tapster runs scripts only as kernel modules (--runtime=kernel, the"
		       " default); run the script without this option");
	fprintf(stderr, "ERROR: %s is an invalid argument for --runtime\n", mode);
	exit(1);
}

/* The first file called `name` under `dir`, at any depth (NULL: none). */
static char *find_file_under(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);
	DIR *d;
	struct dirent *entry;

	if (access(path, R_OK) == 0)
		return path;
	free(path);
	d = opendir(dir);
	while (d && (entry = readdir(d))) {
		char *sub, *found;

		if (entry->d_name[0] == '.' || entry->d_type != DT_DIR)
			continue;
		sub = xasprintf("%s/%s", dir, entry->d_name);
		found = find_file_under(sub, name);
		free(sub);
		if (found) {
			closedir(d);
			return found;
		}
	}
	if (d)
		closedir(d);
	return NULL;
}

/* --example NAME: the script is one of SystemTap's shipped examples, found by name. */
static const char *find_example(const char *name)
{
	for (int i = 0; example_dirs[i]; i++) {
		char *found = find_file_under(example_dirs[i], name);

		if (found)
			return found;
	}
	fprintf(stderr, "Example '%s' was not found under '%s'\n", name, example_dirs[0]);
	exit(1);
}

enum {
	OPT_VM = 256, OPT_NO_VM, OPT_VM_CPUS, OPT_DISABLE_CACHE, OPT_POISON_CACHE,
	OPT_CLEAN_CACHE, OPT_LDD, OPT_DUMP_ALIASES, OPT_DUMP_FUNCTIONS, OPT_DUMP_TYPES,
	OPT_VP, OPT_MODINFO, OPT_TMPDIR, OPT_SKIP_BADVARS, OPT_SUPPRESS_HANDLER_ERRORS,
	OPT_SUPPRESS_TIME_LIMITS, OPT_ALL_MODULES, OPT_COMPATIBLE, OPT_PROLOGUE, OPT_PRIVILEGE,
	OPT_UNPRIVILEGED, OPT_CHECK_VERSION, OPT_SYSROOT, OPT_SYSENV, OPT_TARGET_NAMESPACE,
	OPT_SAVE_UPROBES, OPT_EXAMPLE, OPT_COLOR, OPT_RLIMIT_AS, OPT_RLIMIT_CPU,
	OPT_RLIMIT_NPROC, OPT_RLIMIT_STACK, OPT_RLIMIT_FSIZE, OPT_RUNTIME, OPT_BPF,
	OPT_USE_SERVER, OPT_LIST_SERVERS, OPT_TRUST_SERVERS, OPT_USE_SERVER_ON_ERROR,
	OPT_DOWNLOAD_DEBUGINFO, OPT_MONITOR, OPT_INTERACTIVE, OPT_REMOTE, OPT_REMOTE_PREFIX,
	OPT_REMOTE_MAX,
};

static const struct option long_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ "vm", no_argument, NULL, OPT_VM },
	{ "no-vm", no_argument, NULL, OPT_NO_VM },
	{ "vm-cpus", required_argument, NULL, OPT_VM_CPUS },
	{ "disable-cache", no_argument, NULL, OPT_DISABLE_CACHE },
	{ "poison-cache", no_argument, NULL, OPT_POISON_CACHE },
	{ "clean-cache", no_argument, NULL, OPT_CLEAN_CACHE },
	{ "ldd", no_argument, NULL, OPT_LDD },
	{ "monitor", optional_argument, NULL, OPT_MONITOR },
	{ "interactive", no_argument, NULL, OPT_INTERACTIVE },
	{ "dump-probe-aliases", no_argument, NULL, OPT_DUMP_ALIASES },
	{ "dump-functions", no_argument, NULL, OPT_DUMP_FUNCTIONS },
	{ "dump-probe-types", no_argument, NULL, OPT_DUMP_TYPES },
	{ "vp", required_argument, NULL, OPT_VP },
	{ "modinfo", required_argument, NULL, OPT_MODINFO },
	{ "tmpdir", required_argument, NULL, OPT_TMPDIR },
	{ "skip-badvars", no_argument, NULL, OPT_SKIP_BADVARS },
	{ "suppress-handler-errors", no_argument, NULL, OPT_SUPPRESS_HANDLER_ERRORS },
	{ "suppress-time-limits", no_argument, NULL, OPT_SUPPRESS_TIME_LIMITS },
	{ "all-modules", no_argument, NULL, OPT_ALL_MODULES },
	{ "compatible", required_argument, NULL, OPT_COMPATIBLE },
	{ "prologue-searching", optional_argument, NULL, OPT_PROLOGUE },
	{ "privilege", required_argument, NULL, OPT_PRIVILEGE },
	{ "unprivileged", no_argument, NULL, OPT_UNPRIVILEGED },
	{ "check-version", no_argument, NULL, OPT_CHECK_VERSION },
	{ "sysroot", required_argument, NULL, OPT_SYSROOT },
	{ "sysenv", required_argument, NULL, OPT_SYSENV },
	{ "target-namespace", required_argument, NULL, OPT_TARGET_NAMESPACE },
	{ "save-uprobes", no_argument, NULL, OPT_SAVE_UPROBES },
	{ "example", no_argument, NULL, OPT_EXAMPLE },
	{ "color", optional_argument, NULL, OPT_COLOR },
	{ "colour", optional_argument, NULL, OPT_COLOR },
	{ "rlimit-as", required_argument, NULL, OPT_RLIMIT_AS },
	{ "rlimit-cpu", required_argument, NULL, OPT_RLIMIT_CPU },
	{ "rlimit-nproc", required_argument, NULL, OPT_RLIMIT_NPROC },
	{ "rlimit-stack", required_argument, NULL, OPT_RLIMIT_STACK },
	{ "rlimit-fsize", required_argument, NULL, OPT_RLIMIT_FSIZE },
	{ "runtime", required_argument, NULL, OPT_RUNTIME },
	{ "bpf", no_argument, NULL, OPT_BPF },
	{ "use-server", optional_argument, NULL, OPT_USE_SERVER },
	{ "list-servers", optional_argument, NULL, OPT_LIST_SERVERS },
	{ "trust-servers", optional_argument, NULL, OPT_TRUST_SERVERS },
	{ "use-server-on-error", optional_argument, NULL, OPT_USE_SERVER_ON_ERROR },
	{ "download-debuginfo", optional_argument, NULL, OPT_DOWNLOAD_DEBUGINFO },
	{ "remote", required_argument, NULL, OPT_REMOTE },
	{ "remote-prefix", no_argument, NULL, OPT_REMOTE_PREFIX },
	{ "remote-max", required_argument, NULL, OPT_REMOTE_MAX },
	{ NULL, 0, NULL, 0 },
};

#define SHORT_OPTIONS "hVvp:e:E:gwWukm:o:c:x:T:ts:S:bFD:B:G:I:R:d:r:a:l:L:qPi"

/* --remote=URL: checked here (remote.h), each target kept in order: its index is the
 * --remote-prefix number. */
static void add_remote(struct session *s, const char *url)
{
	char *why = remote_url_error(url);

	if (why) {
		fprintf(stderr, "ERROR: %s\n", why);
		free(why);
		exit(1);
	}
	list_add(&s->remotes, url);
}

/* What a server option would have done, and what tapster does instead. */
#define NO_SERVERS "tapster has no compile servers; it builds modules on this host (for" \
		   " another kernel: -r KVER -p4, then tapster-run NAME.ko there)"

static void read_option(struct session *s, int c, bool *privilege_set)
{
	char *end;

	switch (c) {
	case 'h':
		usage(stdout);
		exit(0);
	case 'V':
		printf("tapster translator/driver (version %s, SystemTap %s language)\n"
		       "This is free software; see the source for copying conditions.\n",
		       PACKAGE_VERSION, STAP_VERSION);
		exit(0);
	case 'v':
		s->verbose++;
		for (int i = 0; i < 5; i++)
			s->pass_verbose[i]++;
		break;
	case OPT_VP: parse_pass_verbosity(s, optarg); break;
	case 'p':
		s->last_pass = (int)strtol(optarg, &end, 10);
		if (*end || s->last_pass < 1 || s->last_pass > 5) {
			fputs("Invalid pass number (should be 1-5).\n", stderr);
			exit(1);
		}
		break;
	case 'e':
		if (s->script_text) {
			fputs("Only one script can be given on the command line.\n", stderr);
			exit(1);
		}
		s->script_text = optarg;
		break;
	case 'E': list_add(&s->extra_scripts, optarg); break;
	case 'l':
	case 'L':
		/* As stap: the pattern becomes the script "probe PATTERN {}". */
		s->list_pattern = optarg;
		s->list_vars = c == 'L';
		s->script_text = xasprintf("probe %s {}", optarg);
		s->last_pass = 2;
		break;
	case 'g': s->guru = true; break;
	case 'w': s->suppress_warnings = true; break;
	case 'W': s->warnings_are_errors = true; break;
	case 'u': s->unoptimized = true; break;
	case 'k': s->keep_tmpdir = true; break;
	case 'q': s->tapset_coverage = true; break;
	case 'm':
		if (!is_valid_module_name(optarg)) {
			fprintf(stderr, "ERROR: Invalid module name '%s': use letters, digits"
				" and '_', at most 55 characters, not starting with a digit.\n",
				optarg);
			exit(1);
		}
		s->module_name = optarg;
		break;
	case 'o': s->output_file = optarg; break;
	case 'c': s->command = optarg; break;
	case 'x':
		s->target_pid = (int)strtol(optarg, &end, 10);
		if (*end || s->target_pid <= 0) {
			fputs("Invalid target process ID number.\n", stderr);
			exit(1);
		}
		break;
	case 'T': parse_timeout(s, optarg); break;
	case 't':
		/* As stap: a timing build, which reports each point's hits at the end. */
		add_define(s, "STP_TIMING");
		break;
	case 's':
		s->buffer_mb = (int)strtol(optarg, &end, 10);
		if (*end || s->buffer_mb < 1 || s->buffer_mb > 4095) {
			fputs("Invalid buffer size (should be 1-4095).\n", stderr);
			exit(1);
		}
		/* The module's default; the loader's -b overrides it. */
		add_define(s, xasprintf("TAP_BUFFER_SIZE=%luU", (unsigned long)s->buffer_mb << 20));
		break;
	case 'S': parse_size_limit(s, optarg); break;
	case 'b':
		s->bulk = true;
		add_define(s, "TAP_BULK_MODE=1");
		break;
	case 'F': s->flight_recorder = true; break;
	case 'D':
		check_pattern("-D parameter", optarg, "^[a-z_][a-z_0-9]*(=-?[a-z_0-9]+)?$");
		add_define(s, optarg);
		break;
	case 'B':
		list_add(&s->make_args, optarg);
		break;
	case 'G':
		check_pattern("-G parameter", optarg, "^[a-z_][a-z0-9_]*=[a-z0-9_.-]+$");
		list_add(&s->global_values, optarg);
		break;
	case OPT_MODINFO:
		check_pattern("--modinfo parameter", optarg, "^[a-z_][a-z0-9_]*=.+$");
		list_add(&s->modinfo, optarg);
		break;
	case 'I':
		s->include_dirs = xrealloc(s->include_dirs,
					   sizeof(char *) * (size_t)(s->ninclude_dirs + 1));
		s->include_dirs[s->ninclude_dirs++] = optarg;
		break;
	case 'R':
		s->runtime_dir = optarg;
		s->runtime_dir_given = true;
		break;
	case 'd': add_symbol_file(s, optarg); break;
	case OPT_LDD: s->ldd = true; break;
	case OPT_MONITOR: parse_monitor(s, optarg); break;
	case 'i':
	case OPT_INTERACTIVE: refuse_interactive(); break;
	case OPT_ALL_MODULES: s->all_modules = true; break;
	case OPT_DUMP_ALIASES:
	case OPT_DUMP_FUNCTIONS:
	case OPT_DUMP_TYPES:
		s->dump = c == OPT_DUMP_ALIASES ? DUMP_PROBE_ALIASES :
			  c == OPT_DUMP_FUNCTIONS ? DUMP_FUNCTIONS : DUMP_PROBE_TYPES;
		s->script_text = "";
		s->last_pass = 2;
		break;
	case 'r': s->kernel = optarg; break;
	case 'a': s->arch = normalize_arch(optarg); break;
	case 'P': set_prologue(s, NULL); break;
	case OPT_PROLOGUE: set_prologue(s, optarg); break;
	case OPT_PRIVILEGE: set_privilege(s, optarg, privilege_set); break;
	case OPT_UNPRIVILEGED: set_privilege(s, "stapusr", privilege_set); break;
	case OPT_COMPATIBLE: set_compatible(s, optarg); break;
	case OPT_CHECK_VERSION: s->check_version = true; break;
	case OPT_SKIP_BADVARS: s->skip_badvars = true; break;
	case OPT_SUPPRESS_HANDLER_ERRORS:
		s->suppress_handler_errors = true;
		add_define(s, "STAP_SUPPRESS_HANDLER_ERRORS");
		break;
	case OPT_SUPPRESS_TIME_LIMITS:
		s->suppress_time_limits = true;
		add_define(s, "STAP_SUPPRESS_TIME_LIMITS_ENABLE");
		break;
	case OPT_TMPDIR: s->tmpdir_option = optarg; break;
	case OPT_SYSROOT: set_sysroot(s, optarg); break;
	case OPT_SYSENV: add_sysenv(s, optarg); break;
	case OPT_TARGET_NAMESPACE: set_target_namespace(s, optarg); break;
	case OPT_SAVE_UPROBES:
		/* stap saves the uprobes.ko it built from source; the kernel's uprobes need none. */
		break;
	case OPT_EXAMPLE: s->example = true; break;
	case OPT_COLOR: set_color(s, optarg); break;
	case OPT_RLIMIT_AS: set_rlimit("rlimit-as", RLIMIT_AS, optarg); break;
	case OPT_RLIMIT_CPU: set_rlimit("rlimit-cpu", RLIMIT_CPU, optarg); break;
	case OPT_RLIMIT_NPROC: set_rlimit("rlimit-nproc", RLIMIT_NPROC, optarg); break;
	case OPT_RLIMIT_STACK: set_rlimit("rlimit-stack", RLIMIT_STACK, optarg); break;
	case OPT_RLIMIT_FSIZE: set_rlimit("rlimit-fsize", RLIMIT_FSIZE, optarg); break;
	case OPT_RUNTIME: set_runtime(optarg); break;
	case OPT_BPF: set_runtime("bpf"); break;
	case OPT_USE_SERVER: refuse("--use-server", NO_SERVERS); break;
	case OPT_LIST_SERVERS: refuse("--list-servers", NO_SERVERS); break;
	case OPT_TRUST_SERVERS: refuse("--trust-servers", NO_SERVERS); break;
	case OPT_USE_SERVER_ON_ERROR: refuse("--use-server-on-error", NO_SERVERS); break;
	case OPT_DOWNLOAD_DEBUGINFO:
		refuse("--download-debuginfo", "it needs ABRT, which Debian does not have; install"
		       " the kernel's debug symbols with apt (linux-image-$(uname -r)-dbg)");
		break;
	case OPT_REMOTE: add_remote(s, optarg); break;
	case OPT_REMOTE_PREFIX: s->remote_prefix = true; break;
	case OPT_REMOTE_MAX:
		s->remote_max = (int)strtol(optarg, &end, 10);
		if (*end || s->remote_max < 1 || s->remote_max > 4096) {
			fputs("ERROR: --remote-max takes a number from 1 to 4096.\n", stderr);
			exit(1);
		}
		break;
	case OPT_VM: s->vm = VM_FORCE; break;
	case OPT_NO_VM: s->vm = VM_NEVER; break;
	case OPT_VM_CPUS:
		s->vm_cpus = (int)strtol(optarg, &end, 10);
		if (*end || s->vm_cpus < 1 || s->vm_cpus > 64) {
			fputs("ERROR: --vm-cpus takes a number from 1 to 64.\n", stderr);
			exit(1);
		}
		break;
	case OPT_DISABLE_CACHE: s->disable_cache = true; break;
	case OPT_POISON_CACHE: s->poison_cache = true; break;
	case OPT_CLEAN_CACHE:
		module_cache_clean_now();
		exit(0);
	default:
		try_help();
	}
}

/* The checks across options, stap's. */
static void check_conflicts(const struct session *s)
{
	if (s->command && s->target_pid) {
		fputs("You can't specify -c and -x together.\n", stderr);
		try_help();
	}
	if (s->suppress_time_limits && !s->guru) {
		fputs("ERROR --suppress-time-limits requires guru mode (-g)\n", stderr);
		exit(1);
	}
	if (s->guru && s->privilege != PRIVILEGE_STAPDEV) {
		fprintf(stderr, "You can't specify -g and --privilege=%s together.\n",
			s->privilege == PRIVILEGE_STAPUSR ? "stapusr" : "stapsys");
		try_help();
	}
}

/* As stap's (GNU getopt): options may come after the script too, before and among its
 * arguments (`stap x.stp -c CMD`); `--` ends the options. */
void parse_command_line(struct session *s, int argc, char **argv)
{
	bool privilege_set = false;
	int c;

	s->arch = "x86_64";
	while ((c = getopt_long(argc, argv, SHORT_OPTIONS, long_options, NULL)) != -1)
		read_option(s, c, &privilege_set);
	check_conflicts(s);
	for (int i = 0; i < 5; i++)
		if (s->pass_verbose[i] > s->verbose)
			s->verbose = s->pass_verbose[i];
	if (!s->script_text) {
		if (optind >= argc) {
			fputs("A script must be specified.\n", stderr);
			try_help();
		}
		s->script_file = argv[optind++];
		if (s->example)
			s->script_file = find_example(s->script_file);
	}
	s->argc = argc - optind;
	s->argv = argv + optind;
	if (s->ldd)
		add_ldd_files(s);
}
