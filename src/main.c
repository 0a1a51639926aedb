// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tapster: the driver. Reads the command line (stap's), then runs the passes in order,
 * stopping after -p N:
 *
 *   1 parse      script and library -> trees          (parse.h, library.h)
 *   2 elaborate  trees -> resolved, typed program     (program.h)
 *   3 translate  program -> module C source           (translate.h)
 *   4 build      C -> .ko with kbuild                 (build.h)
 *   5 run        .ko -> output, here or in the VM     (run.h)
 *
 * The target kernel, and what the passes ask about it, are target.c's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ctype.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "build/build.h"
#include "build/cache.h"
#include "diag.h"
#include "target/usyms.h"
#include "resolve/library.h"
#include "resolve/listing.h"
#include "resolve/probed_modules.h"
#include "parse/parse.h"
#include "resolve/program.h"
#include "run/run.h"
#include "session.h"
#include "target_setup.h"
#include "translate/translate.h"
#include "progress.h"
#include "util.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0.1"
#endif

/* ---- Timing, in stap's -v form ---- */

struct stamp {
	struct timeval real;
	struct rusage usage;	/* tapster's own */
	struct rusage children;	/* of the processes it waited for: kbuild, the loader, qemu */
};

static struct stamp stamp_now(void)
{
	struct stamp s;

	gettimeofday(&s.real, NULL);
	getrusage(RUSAGE_SELF, &s.usage);
	getrusage(RUSAGE_CHILDREN, &s.children);
	return s;
}

static long ms_between(struct timeval a, struct timeval b)
{
	return (b.tv_sec - a.tv_sec) * 1000 + (b.tv_usec - a.tv_usec) / 1000;
}

/* "using 106692virt/96348res/7328shr/88940data kb, " */
static void print_memory(FILE *out)
{
	long page_kb = sysconf(_SC_PAGESIZE) / 1024;
	long virt = 0, res = 0, shr = 0, text = 0, lib = 0, data = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%ld %ld %ld %ld %ld %ld", &virt, &res, &shr, &text, &lib, &data) != 6)
			virt = res = shr = data = 0;
		fclose(f);
	}
	fprintf(out, "using %ldvirt/%ldres/%ldshr/%lddata kb, ", virt * page_kb, res * page_kb,
		shr * page_kb, data * page_kb);
}

static void print_times(FILE *out, struct stamp start)
{
	struct stamp end = stamp_now();

	fprintf(out, "in %ldusr/%ldsys/%ldreal ms.\n",
		ms_between(start.usage.ru_utime, end.usage.ru_utime) +
			ms_between(start.children.ru_utime, end.children.ru_utime),
		ms_between(start.usage.ru_stime, end.usage.ru_stime) +
			ms_between(start.children.ru_stime, end.children.ru_stime),
		ms_between(start.real, end.real));
}

/* ---- Command line ---- */

static void usage(FILE *out)
{
	fputs("Usage: tapster [options] FILE [ARGS]      Run script in file.\n"
	      "   or: tapster [options] -e SCRIPT [ARGS] Run given script.\n"
	      "\n"
	      "Options:\n"
	      "   -h --help      show this help\n"
	      "   -V --version   show version\n"
	      "   -v             add verbosity to all passes\n"
	      "   -p NUM         stop after pass NUM 1-5\n"
	      "                  (parse, elaborate, translate, compile, run)\n"
	      "   -e SCRIPT      run given script\n"
	      "   -l PROBE       list the probe points matching PROBE\n"
	      "   -L PROBE       list them with their script-level variables\n"
	      "   --dump-probe-aliases  list the probe aliases of the tapsets, then exit\n"
	      "   --dump-functions      list the functions of the tapsets with their types,\n"
	      "                  then exit\n"
	      "   -g             guru mode\n"
	      "   -u             unoptimized translation\n"
	      "   -w             suppress warnings\n"
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
	      "   -I DIR         look in DIR for additional .stp script files\n"
	      "   -d OBJECT      add symbol information for the user-space ELF file OBJECT\n"
	      "   --ldd          add symbol information for the shared libraries that the -d\n"
	      "                  files need, as ldd lists them\n"
	      "   -r KVER|DIR    build for the kernel release KVER or the kernel build tree DIR\n"
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

static void add_define(struct session *s, const char *arg)
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
	const char *p = arg;
	bool ok = isdigit((unsigned char)*p);

	while (isdigit((unsigned char)*p))
		p++;
	if (ok && *p == ',') {
		ok = isdigit((unsigned char)*++p);
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (!ok || *p) {
		fprintf(stderr, "ERROR: Safety pattern mismatch for -S parameter ('%s' vs."
			" '^[0-9]+(,[0-9]+)?$') rc=1\n", arg);
		exit(1);
	}
	s->size_limit = arg;
}

enum { OPT_VM = 256, OPT_NO_VM, OPT_VM_CPUS, OPT_DISABLE_CACHE, OPT_POISON_CACHE, OPT_CLEAN_CACHE,
       OPT_LDD, OPT_DUMP_ALIASES, OPT_DUMP_FUNCTIONS, OPT_MONITOR, OPT_INTERACTIVE };

/* --dump-probe-aliases, --dump-functions: the library's listing in place of a script. */
static int dump_mode;

/* As stap's (GNU getopt): options may come after the script too, before and among its
 * arguments (`stap x.stp -c CMD`); `--` ends the options. */
static void parse_command_line(struct session *s, int argc, char **argv)
{
	static const struct option longopts[] = {
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
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "hVvp:e:gwukm:o:c:x:T:ts:S:bFD:I:d:r:l:L:i", longopts, NULL)) != -1) {
		char *end;

		switch (c) {
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("tapster translator/driver (version %s, SystemTap 4.8 language)\n"
			       "This is free software; see the source for copying conditions.\n",
			       PACKAGE_VERSION);
			exit(0);
		case 'v': s->verbose++; break;
		case 'p':
			s->last_pass = (int)strtol(optarg, &end, 10);
			if (*end || s->last_pass < 1 || s->last_pass > 5) {
				fputs("Invalid pass number (should be 1-5).\n", stderr);
				exit(1);
			}
			break;
		case 'e': s->script_text = optarg; break;
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
		case 'u': s->unoptimized = true; break;
		case 'k': s->keep_tmpdir = true; break;
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
		case 'T':
			parse_timeout(s, optarg);
			break;
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
			add_define(s, xasprintf("TAP_BUFFER_SIZE=%luU",
						(unsigned long)s->buffer_mb << 20));
			break;
		case 'S':
			parse_size_limit(s, optarg);
			break;
		case 'b':
			s->bulk = true;
			add_define(s, "TAP_BULK_MODE=1");
			break;
		case 'F':
			s->flight_recorder = true;
			break;
		case 'D': add_define(s, optarg); break;
		case 'I':
			s->include_dirs = xrealloc(s->include_dirs,
						   sizeof(char *) * (size_t)(s->ninclude_dirs + 1));
			s->include_dirs[s->ninclude_dirs++] = optarg;
			break;
		case 'd': add_symbol_file(s, optarg); break;
		case OPT_LDD: s->ldd = true; break;
		case OPT_MONITOR: parse_monitor(s, optarg); break;
		case 'i':
		case OPT_INTERACTIVE: refuse_interactive(); break;
		case OPT_DUMP_ALIASES:
		case OPT_DUMP_FUNCTIONS:
			dump_mode = c;
			s->script_text = "";
			s->last_pass = 2;
			break;
		case 'r': s->kernel = optarg; break;
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
	if (!s->script_text) {
		if (optind >= argc) {
			fputs("A script must be specified.\n", stderr);
			try_help();
		}
		s->script_file = argv[optind++];
	}
	s->argc = argc - optind;
	s->argv = argv + optind;
	if (s->ldd)
		add_ldd_files(s);
}

/* ---- Where things are ---- */

/* Run from the build tree (tests, make demo), the source tree's pieces are used. */
static void locate_pieces(struct session *s)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	bool uninstalled = false;

	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');

		if (slash) {
			*slash = '\0';
			uninstalled = !strcmp(exe, TAPSTER_BUILDDIR "/src");
		}
	}
	if (uninstalled) {
		s->tapset_dir = TAPSTER_SRCDIR "/tapsets";
		s->runtime_dir = TAPSTER_SRCDIR "/runtime";
		s->loader_path = TAPSTER_BUILDDIR "/loader/tapster-run";
		s->vmkit_path = TAPSTER_SRCDIR "/scripts/tapster-vmkit";
	} else {
		s->tapset_dir = TAPSTER_PKGDATADIR "/tapsets";
		s->runtime_dir = TAPSTER_PKGDATADIR "/runtime";
		s->loader_path = TAPSTER_PKGLIBEXECDIR "/tapster-run";
		s->vmkit_path = TAPSTER_PKGLIBEXECDIR "/tapster-vmkit";
	}
	/* The library directory may be another: tapster's variable, or stap's. */
	if (getenv("TAPSTER_TAPSET") && *getenv("TAPSTER_TAPSET"))
		s->tapset_dir = getenv("TAPSTER_TAPSET");
	else if (getenv("SYSTEMTAP_TAPSET") && *getenv("SYSTEMTAP_TAPSET"))
		s->tapset_dir = getenv("SYSTEMTAP_TAPSET");
}

/* ---- The passes ---- */

/* The loader, as pass 5's failure names it. */
#define LOADER_NAME "tapster-run"

static void pass_failed(int pass)
{
	static const char *const what[] = { "", "parse", "analysis", "translation",
					    "compilation", "run" };

	fprintf(stderr, "Pass %d: %s failed.  [man error::pass%d]\n", pass, what[pass], pass);
}

/* A stable module name from the script: stap_ and 16 hex digits. */
static char *default_module_name(const struct source *src)
{
	uint64_t hash = 0xcbf29ce484222325ULL;

	for (long i = 0; i < src->len; i++)
		hash = (hash ^ (unsigned char)src->text[i]) * 0x100000001b3ULL;
	return xasprintf("stap_%016llx", (unsigned long long)hash);
}

static struct source *read_user_script(const struct session *s)
{
	if (s->script_text)
		return source_from_text("<input>", s->script_text);
	if (!strcmp(s->script_file, "-")) {
		struct strbuf sb = { 0 };
		char buf[4096];
		size_t n;

		while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0)
			sb_addn(&sb, buf, n);
		return source_from_text("<input>", sb.buf ? sb.buf : "");
	}
	if (access(s->script_file, R_OK) != 0) {
		fprintf(stderr, "Input file '%s' is missing.\n", s->script_file);
		return NULL;
	}
	return source_read(s->script_file, false);
}

static void report_parse_errors(void)
{
	int n = diag_error_count();

	fprintf(stderr, "%d parse error%s.\n", n, n == 1 ? "" : "s");
}

/*
 * -T SECONDS: as stap, a probe "timer.ms(SECONDS * 1000) {exit()}" read from the source
 * "<synthetic>", ahead of the script's probes (-p1 does not show it; -p2 does, first).
 */
static bool add_timeout_probe(const struct session *s, struct file *user,
			      const struct parse_options *options)
{
	char *text = xasprintf("probe timer.ms(%ld) {exit()}\n", (long)s->timeout_s * 1000);
	struct file *synthetic = parse_source(source_from_text("<synthetic>", text), options);
	struct probe **last;

	free(text);
	if (!synthetic || !synthetic->probes)
		return false;
	for (last = &synthetic->probes; *last; last = &(*last)->next)
		;
	*last = user->probes;
	user->probes = synthetic->probes;
	synthetic->probes = NULL;
	return true;
}

/* --dump-probe-aliases, --dump-functions: the whole library, no script. */
static int dump_library(struct session *s, const struct parse_target *target)
{
	int nlibrary = 0;
	struct file *library = library_read(s, target, &nlibrary);

	if (diag_error_count()) {
		pass_failed(1);
		return 1;
	}
	if (dump_mode == OPT_DUMP_ALIASES)
		return dump_probe_aliases(library);
	if (!ensure_target(s))
		return 1;
	struct provider_env env = target_for_providers(s);

	return dump_functions(library, &env);
}

static int run_passes(struct session *s)
{
	struct parse_target target = target_for_parse(s);
	struct parse_options options = { .guru = s->guru, .guru_mode = s->guru, .argc = s->argc,
					 .argv = s->argv, .target = &target, .arch = "x86_64" };
	options.macro_sources = library_macro_sources(s, &target, &options.nmacro_sources);
	struct stamp start = stamp_now();
	struct source *src = read_user_script(s);
	struct file *user = NULL, *library = NULL;
	struct program program;
	int nlibrary = 0;

	if (dump_mode)
		return dump_library(s, &target);
	if (src)
		user = parse_source(src, &options);
	/* -l/-L list every alias: the whole library; else what the script needs. */
	/* -T's synthetic probe calls exit(), a word the script may not have: every file. */
	if (user && (s->list_pattern || s->timeout_s))
		library = library_read(s, &target, &nlibrary);
	else if (user)
		library = library_read_needed(s, &target, src, &nlibrary);
	if (!user || diag_error_count()) {
		/* stap counts no errors when the script was empty after preprocessing. */
		if (src && !src->found_empty && diag_error_count())
			report_parse_errors();
		pass_failed(1);
		return 1;
	}
	if (s->verbose) {
		fprintf(stderr, "Pass 1: parsed user script and %d library scripts ", nlibrary);
		print_memory(stderr);
		print_times(stderr, start);
	}
	if (s->last_pass == 1) {
		puts("# parse tree dump");
		print_file(stdout, user);
		return 0;
	}

	if (s->timeout_s && !add_timeout_probe(s, user, &options)) {
		pass_failed(1);
		return 1;
	}
	if (!ensure_target(s))
		return 1;
	start = stamp_now();
	struct provider_env env = target_for_providers(s);
	env.monitor = s->monitor_interval > 0 && !s->list_pattern;	/* -l: the script's points */

	if (s->list_pattern)
		return list_probe_points(user, library, &env, s->list_vars);
	if (elaborate(user, library, &env, !s->unoptimized, &program)) {
		pass_failed(2);
		return 1;
	}
	s->probed_modules = probed_modules(&program);
	s->probed_files = probed_files(&program);
	if (s->verbose) {
		fprintf(stderr, "Pass 2: analyzed script: %d probe%s, %d function%s, %d embed%s,"
			" %d global%s ", program.nprobes, program.nprobes == 1 ? "" : "s",
			program.nfunctions, program.nfunctions == 1 ? "" : "s", program.nembeds,
			program.nembeds == 1 ? "" : "s", program.nglobals,
			program.nglobals == 1 ? "" : "s");
		print_memory(stderr);
		print_times(stderr, start);
	}
	if (s->last_pass == 2) {
		print_program(stdout, &program, s->verbose > 0);
		return 0;
	}

	start = stamp_now();
	char *name = s->module_name ? xstrdup(s->module_name) : default_module_name(src);
	char *c_path = xasprintf("%s/%s.c", s->tmpdir, name);
	FILE *c_file = fopen(c_path, "w");

	if (!c_file || translate(s, &program, c_file)) {
		if (c_file)
			fclose(c_file);
		pass_failed(3);
		return 1;
	}
	fclose(c_file);
	struct module_cache cache;

	if (!module_cache_open(s, &cache, &name, &c_path)) {
		pass_failed(3);
		return 1;
	}
	if (s->verbose && cache.hit) {
		fprintf(stderr, "Pass 3: using cached %s\n", cache.c_path);
	} else if (s->verbose) {
		fprintf(stderr, "Pass 3: translated to C into \"%s\" ", c_path);
		print_memory(stderr);
		print_times(stderr, start);
	}
	if (s->last_pass == 3) {
		FILE *f = fopen(c_path, "r");
		char buf[8192];
		size_t n;

		while (f && (n = fread(buf, 1, sizeof(buf), f)) > 0)
			fwrite(buf, 1, n, stdout);
		if (f)
			fclose(f);
		return 0;
	}

	start = stamp_now();
	char *ko;

	if (cache.hit) {
		ko = module_cache_take(s, &cache, name);
	} else {
		progress_begin("Pass 4: building the module");
		ko = build_module(s, name);
		progress_end();
	}

	if (!ko) {
		pass_failed(4);
		return 1;
	}
	if (cache.enabled && !cache.hit && !module_cache_store(s, &cache, ko, c_path))
		cache.enabled = false;
	if (s->verbose && cache.hit) {
		fprintf(stderr, "Pass 4: using cached %s\n", cache.ko_path);
	} else if (s->verbose) {
		fprintf(stderr, "Pass 4: compiled C into \"%s.ko\" ", name);
		print_times(stderr, start);
	}
	if (s->last_pass == 4 && cache.enabled && !s->module_name) {
		/* As stap: the module stays in the cache, which is where it is; -m NAME's is
		 * copied here as NAME.ko. */
		puts(cache.ko_path);
		return 0;
	}
	if (s->last_pass == 4) {
		char *dest = xasprintf("%s.ko", name);
		char *cmd = xasprintf("cp '%s' '%s'", ko, dest);

		if (system(cmd) != 0) {
			fprintf(stderr, "ERROR: cannot copy the module to %s\n", dest);
			pass_failed(4);
			return 1;
		}
		puts(dest);
		return 0;
	}

	if (s->verbose)
		fputs("Pass 5: starting run.\n", stderr);
	start = stamp_now();
	int status = run_module(s, ko);

	if (status != 0) {
		/* stap's words when staprun fails (errors, a failed -c command). */
		fprintf(stderr, "WARNING: %s exited with status: %d\n", LOADER_NAME, status);
		pass_failed(5);
		return 1;
	}
	if (s->verbose) {
		fputs("Pass 5: run completed ", stderr);
		print_times(stderr, start);
	}
	return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void remove_tmpdir(const struct session *s)
{
	if (!s->tmpdir)
		return;
	if (s->keep_tmpdir) {
		fprintf(stderr, "Keeping temporary directory \"%s\"\n", s->tmpdir);
		return;
	}
	/* Depth first, without following links; no shell to start. */
	if (nftw(s->tmpdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
		fprintf(stderr, "WARNING: could not remove %s\n", s->tmpdir);
}

int main(int argc, char **argv)
{
	struct session s = { .last_pass = 5, .vm_cpus = 2 };
	char tmpl[] = "/tmp/tapsterXXXXXX";
	int status;

	program_invocation_name = (char *)"tapster";
	argv[0] = program_invocation_name;	/* getopt's messages say "tapster:" */
	parse_command_line(&s, argc, argv);
	diag_set_warnings(!s.suppress_warnings);
	diag_set_suppression(s.verbose == 0);
	diag_set_verbosity(s.verbose);
	locate_pieces(&s);
	if (s.last_pass >= 3) {
		if (!mkdtemp(tmpl)) {
			fprintf(stderr, "ERROR: cannot make a temporary directory: %s\n",
				strerror(errno));
			return 1;
		}
		s.tmpdir = tmpl;
	}
	status = run_passes(&s);
	diag_print_suppressed();
	remove_tmpdir(&s);
	return status;
}
