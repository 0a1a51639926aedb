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
#include "target/debuginfo.h"
#include "target/klines.h"
#include "target/usyms.h"
#include "resolve/library.h"
#include "resolve/listing.h"
#include "resolve/probed_modules.h"
#include "parse/parse.h"
#include "providers/providers.h"
#include "resolve/program.h"
#include "run/run.h"
#include "options.h"
#include "session.h"
#include "target_setup.h"
#include "run/remote.h"
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
		s->runtime_dir = s->runtime_dir_given ? s->runtime_dir : TAPSTER_SRCDIR "/runtime";
		s->loader_path = TAPSTER_BUILDDIR "/loader/tapster-run";
		s->vmkit_path = TAPSTER_SRCDIR "/scripts/tapster-vmkit";
	} else {
		s->tapset_dir = TAPSTER_PKGDATADIR "/tapsets";
		s->runtime_dir = s->runtime_dir_given ? s->runtime_dir : TAPSTER_PKGDATADIR "/runtime";
		s->loader_path = TAPSTER_PKGLIBEXECDIR "/tapster-run";
		s->vmkit_path = TAPSTER_PKGLIBEXECDIR "/tapster-vmkit";
	}
	s->own_tapset_dir = s->tapset_dir;
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

/* -E SCRIPT...: each parsed as "<inputN>" (N from 1), kept for -p1, then its probes,
 * functions, globals and embeds added to the main script's, after them. */
static struct file *parse_extra_scripts(const struct session *s,
					const struct parse_options *options)
{
	struct file *files = NULL, **tail = &files;

	for (int i = 0; i < s->extra_scripts.count; i++) {
		char *name = xasprintf("<input%d>", i + 1);
		struct file *f = parse_source(source_from_text(name, s->extra_scripts.items[i]),
					      options);

		free(name);
		if (f) {
			*tail = f;
			tail = &f->next;
		}
	}
	return files;
}

#define APPEND_LIST(type, head, list)				\
	do {							\
		type **end_ = &(head);				\
		while (*end_)					\
			end_ = &(*end_)->next;			\
		*end_ = (list);					\
		(list) = NULL;					\
	} while (0)

static void merge_extra_scripts(struct file *user, struct file *extra)
{
	for (struct file *f = extra; f; f = f->next) {
		APPEND_LIST(struct probe, user->probes, f->probes);
		APPEND_LIST(struct function, user->functions, f->functions);
		APPEND_LIST(struct global, user->globals, f->globals);
		APPEND_LIST(struct embed, user->embeds, f->embeds);
	}
}

/* The text the library's index reads for the words the script uses: the main script's
 * and each -E script's. */
static struct source *all_user_text(const struct session *s, struct source *src)
{
	struct strbuf sb = { 0 };

	if (!src || !s->extra_scripts.count)
		return src;
	sb_add(&sb, src->text);
	for (int i = 0; i < s->extra_scripts.count; i++) {
		sb_addc(&sb, '\n');
		sb_add(&sb, s->extra_scripts.items[i]);
	}
	src = source_from_text("<input>", sb.buf);
	free(sb.buf);
	return src;
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

/* Whether a function the program uses has the tag `tag` ("pragma:lines"). */
static bool program_uses_pragma(const struct program *program, const char *tag)
{
	for (const struct used_function *f = program->functions; f; f = f->next)
		if (function_has_pragma(f->function, tag))
			return true;
	return false;
}

/* The line tables of the kernel functions the program probes (placed from DWARF), when
 * it asks for source lines (symline() and its kin) and the kernel's DWARF is there. */
static void add_kernel_lines(const struct provider_env *env, struct program *program)
{
	const struct debuginfo *di;
	struct kline_function *functions = NULL;
	size_t count = 0, size = 0;
	char *text = NULL;
	FILE *out;

	if (!program_uses_pragma(program, "pragma:lines") || !env->debuginfo ||
	    !(di = env->debuginfo(env->ctx)))
		return;
	for (const struct derived_probe *p = program->probes; p; p = p->next)
		for (const struct derived_point *d = p->points; d; d = d->next) {
			/* The kprobe's symbol, or (symbol NULL) its function. */
			const char *symbol = d->symbol ? d->symbol : d->function;

			if (!symbol || !*symbol || !d->pc || (d->module && *d->module) ||
			    d->pc < d->offset)
				continue;
			functions = xrealloc(functions, sizeof(*functions) * (count + 1));
			functions[count++] = (struct kline_function){ symbol, d->pc - d->offset,
								      d->scope_die };
		}
	out = open_memstream(&text, &size);
	if (!out) {
		free(functions);
		return;
	}
	klines_write(out, debuginfo_dwarf(di), functions, count);
	fclose(out);
	program->kernel_lines = text;
	free(functions);
}

static int dump_library(struct session *s, const struct parse_target *target)
{
	int nlibrary = 0;
	struct file *library = library_read(s, target, &nlibrary);

	if (diag_error_count()) {
		pass_failed(1);
		return 1;
	}
	if (s->dump == DUMP_PROBE_ALIASES)
		return dump_probe_aliases(library);
	if (!ensure_target(s))
		return 1;
	struct provider_env env = target_for_providers(s);

	return dump_functions(library, &env);
}

/* Whether `text` holds `line` (with its newline) as one of its lines. */
static bool has_line(const char *text, const char *line)
{
	for (const char *at = text; at && (at = strstr(at, line)); at++)
		if (at == text || at[-1] == '\n')
			return true;
	return false;
}

/* Adds `line` to `added` unless `recorded` or `added` holds it already. */
static void add_coverage_line(struct strbuf *added, const char *recorded, char *line)
{
	if (!has_line(recorded, line) && !has_line(added->buf, line))
		sb_add(added, line);
	free(line);
}

/* The lines of `program`'s library pieces that `recorded` does not hold yet. */
static char *new_coverage_lines(const struct program *program, const char *recorded)
{
	struct strbuf added = { 0 };

	for (const struct used_function *u = program->functions; u; u = u->next) {
		const struct loc *loc = &u->function->loc;

		if (loc->source && loc->source->is_tapset)
			add_coverage_line(&added, recorded,
					  xasprintf("function\t%s\t%s:%d\n", u->function->name,
						    loc->source->name, loc->line));
	}
	for (const struct derived_probe *p = program->probes; p; p = p->next)
		if (p->via_alias && p->listed_name)
			add_coverage_line(&added, recorded, xasprintf("alias\t%s\n", p->listed_name));
	return sb_steal(&added);
}

/*
 * -q: the library's pieces this script compiled, recorded in $TAPSTER_DIR/KVER.coverage for
 * the target kernel (stap keeps its tapset coverage in a database, ~/.systemtap/KVER.db, a
 * row for each piece): a line each, "function<TAB>NAME<TAB>FILE:LINE" or "alias<TAB>NAME",
 * each once, however many points or runs compiled it.
 */
static void record_tapset_coverage(const struct session *s, const struct program *program)
{
	char *dir = tapster_dir();
	char *path = xasprintf("%s/%s.coverage", dir,
			       s->kernel_release ? s->kernel_release : "unknown");
	char *recorded = read_text_file(path, NULL);
	char *added = new_coverage_lines(program, recorded);
	FILE *f = NULL;

	if (*added && (make_dirs(dir) || !(f = fopen(path, "a"))))
		fprintf(stderr, "WARNING: cannot record tapset coverage in %s: %s\n", path,
			strerror(errno));
	if (f) {
		fputs(added, f);
		fclose(f);
	}
	free(added);
	free(recorded);
	free(path);
	free(dir);
}

static const char *privilege_name(enum privilege level)
{
	return level == PRIVILEGE_STAPUSR ? "stapusr" :
	       level == PRIVILEGE_STAPSYS ? "stapsys" : "stapdev";
}

static int run_passes(struct session *s)
{
	struct parse_target target = target_for_parse(s);
	struct parse_options options = { .guru = s->guru, .guru_mode = s->guru, .argc = s->argc,
					 .argv = s->argv, .target = &target, .arch = s->arch,
					 .systemtap_version = s->compatible,
					 .privilege = privilege_name(s->privilege) };
	options.macro_sources = library_macro_sources(s, &target, &options.nmacro_sources);
	struct stamp start = stamp_now();
	struct source *src = read_user_script(s);
	struct file *user = NULL, *library = NULL, *extra = NULL;
	struct program program;
	int nlibrary = 0;

	if (s->dump == DUMP_PROBE_TYPES) {
		providers_dump_types(stdout, s->privilege == PRIVILEGE_STAPUSR);
		return 0;
	}
	if (s->dump)
		return dump_library(s, &target);
	if (src)
		user = parse_source(src, &options);
	if (src && s->extra_scripts.count)
		extra = parse_extra_scripts(s, &options);
	/* -l/-L list every alias: the whole library; else what the script needs. */
	/* -T's synthetic probe calls exit(), a word the script may not have: every file. */
	if (user && (s->list_pattern || s->timeout_s))
		library = library_read(s, &target, &nlibrary);
	else if (user)
		library = library_read_needed(s, &target, all_user_text(s, src), &nlibrary);
	if (!user || diag_error_count()) {
		/* stap counts no errors when the script was empty after preprocessing. */
		if (src && !src->found_empty && diag_error_count())
			report_parse_errors();
		pass_failed(1);
		return 1;
	}
	if (s->pass_verbose[0]) {
		fprintf(stderr, "Pass 1: parsed user script and %d library scripts ", nlibrary);
		print_memory(stderr);
		print_times(stderr, start);
	}
	if (s->last_pass == 1) {
		puts("# parse tree dump");
		print_file(stdout, user);
		for (const struct file *f = extra; f; f = f->next)
			print_file(stdout, f);
		putchar('\n');
		return 0;
	}
	merge_extra_scripts(user, extra);

	if (s->timeout_s && !add_timeout_probe(s, user, &options)) {
		pass_failed(1);
		return 1;
	}
	if (!ensure_target(s))
		return 1;
	start = stamp_now();
	struct provider_env env = target_for_providers(s);
	env.monitor = s->monitor_interval > 0 && !s->list_pattern;	/* -l: the script's points */
	env.listing = s->list_pattern != NULL;
	env.printing_pass2 = s->last_pass == 2;

	if (s->list_pattern)
		return list_probe_points(user, library, &env, s->list_vars);
	if (elaborate(user, library, &env, !s->unoptimized, &program)) {
		pass_failed(2);
		return 1;
	}
	add_kernel_lines(&env, &program);
	if (s->tapset_coverage)
		record_tapset_coverage(s, &program);
	s->probed_modules = probed_modules(&program);
	s->probed_files = probed_files(&program);
	s->reads_stdin = reads_stdin(&program);
	s->switches_files = switches_files(&program);
	if (s->pass_verbose[1]) {
		fprintf(stderr, "Pass 2: analyzed script: %d probe%s, %d function%s, %d embed%s,"
			" %d global%s ", program.nprobes, program.nprobes == 1 ? "" : "s",
			program.nfunctions, program.nfunctions == 1 ? "" : "s", program.nembeds,
			program.nembeds == 1 ? "" : "s", program.nglobals,
			program.nglobals == 1 ? "" : "s");
		print_memory(stderr);
		print_times(stderr, start);
	}
	if (s->last_pass == 2) {
		print_program(stdout, &program, s->pass_verbose[1] > 0);
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
	if (s->pass_verbose[2] && cache.hit) {
		fprintf(stderr, "Pass 3: using cached %s\n", cache.c_path);
	} else if (s->pass_verbose[2]) {
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
	if (s->pass_verbose[3] && cache.hit) {
		fprintf(stderr, "Pass 4: using cached %s\n", cache.ko_path);
	} else if (s->pass_verbose[3]) {
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
		/* -p4 copies NAME.ko here; a --remote pass into its own directory. */
		char *dest = s->module_dir ? xasprintf("%s/%s.ko", s->module_dir, name) :
				  xasprintf("%s.ko", name);
		char *cmd = xasprintf("cp '%s' '%s'", ko, dest);

		if (system(cmd) != 0) {
			fprintf(stderr, "ERROR: cannot copy the module to %s\n", dest);
			pass_failed(4);
			return 1;
		}
		puts(dest);
		return 0;
	}

	if (s->pass_verbose[4])
		fputs("Pass 5: starting run.\n", stderr);
	start = stamp_now();
	int status = run_module(s, ko);

	if (status != 0) {
		/* stap's words when staprun fails (errors, a failed -c command). */
		fprintf(stderr, "WARNING: %s exited with status: %d\n", LOADER_NAME, status);
		pass_failed(5);
		return 1;
	}
	if (s->pass_verbose[4]) {
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
	if (!s->tmpdir || s->keep_tmpdir_quietly)
		return;
	if (s->keep_tmpdir) {
		fprintf(stderr, "Keeping temporary directory \"%s\"\n", s->tmpdir);
		return;
	}
	/* Depth first, without following links; no shell to start. */
	if (nftw(s->tmpdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
		fprintf(stderr, "WARNING: could not remove %s\n", s->tmpdir);
}

/* The make-safe characters stap allows in a temporary directory's path. */
#define TMPDIR_PATTERN "^[-/._0-9a-z]+$"

static bool is_make_safe(const char *path)
{
	for (const char *p = path; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("-/._", *p))
			return false;
	return *path != '\0';
}

/* The session's temporary directory: --tmpdir's (the user's, kept), else a new one in
 * $TMPDIR or /tmp; false after stap's message. */
static bool make_tmpdir(struct session *s)
{
	const char *base = getenv("TMPDIR");
	struct stat st;

	if (s->tmpdir_option) {
		if (!is_make_safe(s->tmpdir_option)) {
			fprintf(stderr, "ERROR: Safety pattern mismatch for --tmpdir ('%s' vs. '%s')"
				" rc=1\n", s->tmpdir_option, TMPDIR_PATTERN);
			return false;
		}
		int error = stat(s->tmpdir_option, &st) != 0 ? errno :
			    !S_ISDIR(st.st_mode) ? ENOTDIR : 0;

		if (error) {
			fprintf(stderr, "cannot use temporary directory (\" %s \"): %s\n",
				s->tmpdir_option, strerror(error));
			return false;
		}
		s->tmpdir = xstrdup(s->tmpdir_option);
		s->keep_tmpdir_quietly = true;
		return true;
	}
	if (!base || !*base)
		base = "/tmp";
	if (!is_make_safe(base)) {
		fprintf(stderr, "ERROR: Safety pattern mismatch for TMPDIR ('%s' vs. '%s') rc=1\n",
			base, TMPDIR_PATTERN);
		return false;
	}
	s->tmpdir = xasprintf("%s/tapsterXXXXXX", base);
	if (!mkdtemp(s->tmpdir)) {
		fprintf(stderr, "cannot create temporary directory (\" %s \"): %s\n", s->tmpdir,
			strerror(errno));
		return false;
	}
	return true;
}

/* What the options ask of the pieces, checked once they are located. */
static bool check_pieces(const struct session *s)
{
	char *header = xasprintf("%s/runtime.h", s->runtime_dir);
	bool ok = access(header, R_OK) == 0;

	if (!ok)
		fprintf(stderr, "ERROR: no tapster runtime in %s (-R): %s is missing\n",
			s->runtime_dir, header);
	free(header);
	if (ok && strcmp(s->arch, "x86_64")) {
		fprintf(stderr, "ERROR: tapster translates for x86_64 only, not for %s (-a);"
			" -p1 and -p2 check a script for %s\n", s->arch, s->arch);
		ok = false;
	}
	return ok;
}

int main(int argc, char **argv)
{
	struct session s = { .last_pass = 5, .vm_cpus = 2 };
	int status;

	program_invocation_name = (char *)"tapster";
	argv[0] = program_invocation_name;	/* getopt's messages say "tapster:" */
	/* --remote runs tapster again with these, as given (getopt permutes argv). */
	char **given = xcalloc((size_t)argc + 1, sizeof(*given));

	memcpy(given, argv, sizeof(*argv) * (size_t)argc);
	parse_command_line(&s, argc, argv);
	remote_pass_setup(&s);
	diag_set_warnings(!s.suppress_warnings);
	diag_set_warnings_are_errors(s.warnings_are_errors);
	/* As stap's, --color=auto by default: on a terminal that is not "dumb". */
	diag_set_color(s.color > 0 || (s.color == 0 && isatty(STDERR_FILENO) && getenv("TERM") &&
				       strcmp(getenv("TERM"), "dumb")));
	diag_set_suppression(s.verbose == 0);
	diag_set_verbosity(s.verbose);
	locate_pieces(&s);
	if (s.remotes.count && !s.dump && !s.list_pattern) {
		status = check_pieces(&s) ? remote_run(&s, given) : 1;
		free(given);
		return status;
	}
	if (s.last_pass >= 3 && !s.dump && (!check_pieces(&s) || !make_tmpdir(&s)))
		return 1;
	status = run_passes(&s);
	diag_print_suppressed();
	remove_tmpdir(&s);
	return status;
}
