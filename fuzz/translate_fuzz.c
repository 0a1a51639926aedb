// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for passes 1 to 3: a fuzzed script is parsed, elaborated against the
 * tapsets of the source tree and a fixed snapshot of a kernel's info, and translated to C
 * (written to /dev/null), as `tapster -p3` would do with no VM and no kernel build.
 *
 * The kernel's info is the bundled VM kit's snapshot of the default kernel (its kallsyms,
 * BTF, module functions, .config and headers; scripts/tapster-vmkit makes it):
 * $TRANSLATE_FUZZ_KIT, else CACHE/vm/KVER with CACHE as tapster-vmkit has it ($TAPSTER_CACHE,
 * else $XDG_CACHE_HOME/tapster, else ~/.cache/tapster) and KVER the kernel CACHE/vm/resolved
 * names (Debian moves it). It is read once, at the start. Without it, the target still
 * runs, and every kernel probe point fails in pass 2 for want of symbols.
 *
 * An input is a script, optionally followed by a NUL byte and a tail (as parse_fuzz's):
 *
 *     SCRIPT [ NUL FLAGS [ ARG1 [ NUL ARG2 ... ] ] ]
 *
 * FLAGS bit 0 is -g (guru mode), bit 4 is -u (no optimization); the bytes after it are
 * the script arguments, NUL-separated.
 *
 * The tapsets are parsed once and copied for each input (pass 2 annotates the trees).
 * Pass 2's program has no destructor (tapster exits after one script): what passes 1 to 3
 * allocate for an input is released after it by the arena of arena.c. Pass 1 alone is
 * checked for its own leaks by parse_fuzz. The diagnostics go to /dev/null
 * (TRANSLATE_FUZZ_STDERR=1: to stderr).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "diag.h"
#include "target/ksyms.h"
#include "parse/ast_copy.h"
#include "target/ktypes.h"
#include "resolve/library.h"
#include "parse/parse.h"
#include "resolve/program.h"
#include "session.h"
#include "target/tracepoints.h"
#include "translate/translate.h"
#include "util.h"

#ifndef TAPSTER_SRCDIR
#error "TAPSTER_SRCDIR: the source tree, for its tapsets and runtime"
#endif

#define MAX_ARGS 12

enum {
	FLAG_GURU = 1 << 0,
	FLAG_UNOPTIMIZED = 1 << 4,
};

static struct session session;
static FILE *devnull;
/* The kit's kernel release: the last component of its directory. */
static char *kit_release_name;
static char *kernel_config;
static const struct ksyms *symbols;
static const struct ktypes *types;
static const struct tracepoints *tracepoints;
static struct source **macro_sources;
static int nmacro_sources;
/* Kept from one input to the next: the macro library keeps the options it was read with. */
static char *args[MAX_ARGS];
/* The parse that read the macros (kept, as the macro library may refer to it). */
static struct file *warm_up;

static const char *kit_release(void *ctx)
{
	(void)ctx;
	return kit_release_name;
}

/* CONFIG_NAME's value in the kit's .config, its quotes removed; "" when unset. */
static const char *kit_config(void *ctx, const char *name)
{
	(void)ctx;
	return config_value(kernel_config, name);
}

static const struct parse_target target = { kit_release, kit_config, NULL };

static const struct ksyms *snapshot_symbols(void *ctx)
{
	(void)ctx;
	return symbols;
}

static const struct ktypes *snapshot_types(void *ctx)
{
	(void)ctx;
	return types;
}

static const struct tracepoints *snapshot_tracepoints(void *ctx)
{
	(void)ctx;
	return tracepoints;
}

/* CACHE/vm/KVER for the kernel CACHE/vm/resolved names ("STAMP KVER"), or NULL. */
static char *resolved_kit(const char *cache)
{
	char *path = xasprintf("%s/vm/resolved", cache);
	char *text = read_text_file(path, NULL);
	char release[256];
	char *kit = NULL;

	if (text && sscanf(text, "%*s %255s", release) == 1)
		kit = xasprintf("%s/vm/%s", cache, release);
	free(text);
	free(path);
	return kit;
}

static char *kit_directory(void)
{
	const char *dir = getenv("TRANSLATE_FUZZ_KIT");
	const char *home = getenv("HOME");
	char *cache, *kit;

	if (dir && *dir)
		return xstrdup(dir);
	/* Where scripts/tapster-vmkit keeps it. */
	if ((dir = getenv("TAPSTER_CACHE")) && *dir)
		cache = xstrdup(dir);
	else if ((dir = getenv("XDG_CACHE_HOME")) && *dir)
		cache = xasprintf("%s/tapster", dir);
	else
		cache = xasprintf("%s/.cache/tapster", home ? home : "");
	kit = resolved_kit(cache);
	free(cache);
	return kit ? kit : xstrdup("/nonexistent");
}

/* The fuzz target boots no VM: ksyms asks for one only for a kit without its kallsyms. */
static bool no_vm(const struct session *s, const char *script, int out_fd)
{
	(void)s;
	(void)script;
	(void)out_fd;
	return false;
}

/* The kernel's info, read once; each part read now is never read during an input, where
 * the arena would take it back. */
static void load_snapshot(void)
{
	char *kit = kit_directory();
	char *kallsyms = xasprintf("%s/kallsyms", kit);
	char *config = xasprintf("%s/config", kit);

	kit_release_name = xstrdup(strrchr(kit, '/') ? strrchr(kit, '/') + 1 : kit);
	session.kernel_release = kit_release_name;
	session.kernel_build_dir = xasprintf("%s/build", kit);
	session.vm_kit_dir = kit;
	session.run_in_vm = true;
	session.target_state = 1;
	kernel_config = read_text_file(config, NULL);
	/* Only a kit with its kallsyms: ksyms would otherwise boot the VM to make it. */
	if (access(kallsyms, R_OK) == 0) {
		struct ksyms *k = ksyms_load(&session, no_vm);

		if (k) {
			ksyms_exports_known(k);
			ksyms_modules(k);
		}
		symbols = k;
		types = ktypes_load(&session);
		if (types)
			tracepoints = tracepoints_load(types, session.kernel_build_dir);
	}
	if (!symbols)
		fprintf(stderr, "translate_fuzz: no kernel info in %s: kernel probes fail in"
			" pass 2\n", kit);
	free(kallsyms);
	free(config);
}


/*
 * The tapsets are parsed once, at the start, with their index; each input elaborates a deep
 * copy of the files the index says it needs (as tapster parses only those), as pass 2
 * writes its annotations into the trees (the copy is the arena's, freed after it). A copy
 * shares the original's sources and macro expansions, which locations point to.
 */
static struct library_set *tapsets;

static char *copy_text(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void copy_points(struct probe_point_list *to, const struct probe_point_list *from)
{
	*to = (struct probe_point_list){ 0 };
	for (int i = 0; i < from->len; i++) {
		const struct probe_point *pp = from->items[i];
		struct probe_point *copy = xmalloc(sizeof(*copy));
		struct component **tail = &copy->components;

		*copy = *pp;
		copy->cond = node_copy(pp->cond);
		for (const struct component *c = pp->components; c; c = c->next) {
			struct component *cc = xmalloc(sizeof(*cc));

			*cc = *c;
			cc->name = copy_text(c->name);
			cc->arg = node_copy(c->arg);
			*tail = cc;
			tail = &cc->next;
		}
		*tail = NULL;
		probe_point_list_push(to, copy);
	}
}

static struct probe *copy_probes(const struct probe *p)
{
	struct probe *first = NULL, **tail = &first;

	for (; p; p = p->next) {
		struct probe *copy = xmalloc(sizeof(*copy));

		*copy = *p;
		copy_points(&copy->aliases, &p->aliases);
		copy_points(&copy->points, &p->points);
		copy->body = node_copy(p->body);
		copy->epilogue = node_copy(p->epilogue);
		*tail = copy;
		tail = &copy->next;
	}
	*tail = NULL;
	return first;
}

static struct function *copy_functions(const struct function *f)
{
	struct function *first = NULL, **tail = &first;

	for (; f; f = f->next) {
		struct function *copy = xmalloc(sizeof(*copy));
		struct param **params = &copy->params;

		*copy = *f;
		for (const struct param *a = f->params; a; a = a->next) {
			struct param *pc = xmalloc(sizeof(*pc));

			*pc = *a;
			pc->name = copy_text(a->name);
			*params = pc;
			params = &pc->next;
		}
		*params = NULL;
		copy->name = copy_text(f->name);
		copy->body = node_copy(f->body);
		copy->embedded = copy_text(f->embedded);
		copy->pragmas = copy_text(f->pragmas);
		*tail = copy;
		tail = &copy->next;
	}
	*tail = NULL;
	return first;
}

static struct global *copy_globals(const struct global *g)
{
	struct global *first = NULL, **tail = &first;

	for (; g; g = g->next) {
		struct global *copy = xmalloc(sizeof(*copy));

		*copy = *g;
		copy->name = copy_text(g->name);
		copy->init = node_copy(g->init);
		*tail = copy;
		tail = &copy->next;
	}
	*tail = NULL;
	return first;
}

static struct embed *copy_embeds(const struct embed *e)
{
	struct embed *first = NULL, **tail = &first;

	for (; e; e = e->next) {
		struct embed *copy = xmalloc(sizeof(*copy));

		*copy = *e;
		copy->code = copy_text(e->code);
		*tail = copy;
		tail = &copy->next;
	}
	*tail = NULL;
	return first;
}

static struct file *copy_files(const struct file *f, const bool *needed)
{
	struct file *first = NULL, **tail = &first;

	for (int i = 0; f; f = f->next, i++) {
		if (!needed[i])
			continue;
		struct file *copy = xcalloc(1, sizeof(*copy));

		copy->source = f->source;
		copy->probes = copy_probes(f->probes);
		copy->functions = copy_functions(f->functions);
		copy->globals = copy_globals(f->globals);
		copy->embeds = copy_embeds(f->embeds);
		*tail = copy;
		tail = &copy->next;
	}
	return first;
}

/* How far the inputs got, printed at exit (to file descriptor 2, as libFuzzer's stats). */
static unsigned long long inputs, parsed, elaborated;

static void print_counts(void)
{
	dprintf(STDERR_FILENO, "translate_fuzz: %llu inputs, %llu past pass 1, %llu past pass 2"
		" (translated)\n", inputs, parsed, elaborated);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();
	session.last_pass = 3;
	session.tapset_dir = TAPSTER_SRCDIR "/tapsets";
	session.runtime_dir = TAPSTER_SRCDIR "/runtime";
	session.script_file = "fuzz.stp";
	session.tmpdir = xstrdup("/tmp");
	load_snapshot();
	/* As parse_fuzz: the messages to /dev/null, fd 2 left to libFuzzer and the sanitizers. */
	if (!getenv("TRANSLATE_FUZZ_STDERR"))
		stderr = devnull;

	/* The tapsets' macros, read and parsed once (the parser keeps them). */
	struct parse_options options = { .argv = args, .target = &target, .arch = "x86_64" };

	macro_sources = library_macro_sources(&session, &target, &nmacro_sources);
	options.macro_sources = macro_sources;
	options.nmacro_sources = nmacro_sources;
	warm_up = parse_source(source_from_text("<warm-up>", "probe begin {}"), &options);
	tapsets = library_read_indexed(&session, &target);
	atexit(print_counts);
	diag_reset_all();
	return 0;
}

/* The tail of an input: its flags and arguments (see the top of this file). */
static unsigned read_tail(const uint8_t *nul, const uint8_t *end, int *nargs)
{
	const uint8_t *p = nul + 2;

	*nargs = 0;
	if (nul + 1 >= end)
		return 0;
	while (p < end && *nargs < MAX_ARGS) {
		const uint8_t *stop = memchr(p, 0, (size_t)(end - p));
		size_t len = stop ? (size_t)(stop - p) : (size_t)(end - p);

		args[*nargs] = strndup((const char *)p, len);
		(*nargs)++;
		if (!stop)
			break;
		p = stop + 1;
	}
	return nul[1];
}

static void translate_script(const char *script, unsigned flags, int nargs)
{
	struct parse_options options = { .guru = flags & FLAG_GURU, .guru_mode = flags & FLAG_GURU,
					 .argc = nargs, .argv = args, .target = &target,
					 .arch = "x86_64", .macro_sources = macro_sources,
					 .nmacro_sources = nmacro_sources };
	struct provider_env env = { .symbols = snapshot_symbols, .types = snapshot_types,
				    .tracepoints = snapshot_tracepoints, .ctx = &session,
				    .guru = flags & FLAG_GURU };
	struct source *src = source_from_text("fuzz.stp", script);
	struct file *user = parse_source(src, &options);
	struct file *library;
	bool *needed;
	struct program program;

	inputs++;
	if (!user || diag_error_count())
		return;
	parsed++;
	needed = xcalloc((size_t)tapsets->nfiles + 1, sizeof(*needed));
	session.argc = nargs;
	session.argv = args;
	library_needed(tapsets, &session, &target, src, needed);
	library = copy_files(tapsets->files, needed);
	free(needed);
	if (elaborate(user, library, &env, !(flags & FLAG_UNOPTIMIZED), &program))
		return;
	elaborated++;
	translate(&session, &program, devnull);
	fflush(devnull);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t script_len = nul ? (size_t)(nul - data) : size;
	unsigned flags = 0;
	int nargs = 0;

	arena_begin();
	diag_reset_all();
	for (int i = 0; i < MAX_ARGS; i++)
		args[i] = NULL;
	if (nul)
		flags = read_tail(nul, data + size, &nargs);
	session.guru = flags & FLAG_GURU;
	session.unoptimized = flags & FLAG_UNOPTIMIZED;

	char *script = strndup((const char *)data, script_len);

	translate_script(script, flags, nargs);
	free(script);
	diag_reset_all();
	arena_end();
	return 0;
}
