// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 4. kbuild spends most of a small module's build reading its own makefiles (about
 * half the CPU time), so kbuild runs once per kernel tree, with V=1, on the first module
 * built for it (or a probe module when that one's name is not distinctive), and the
 * commands it ran are kept as a recipe (in TAPSTER_DIR/kfeatures/TREE.recipe): compile
 * (with objtool), modpost, compile the .mod.c, compile the tree's module-common.c (kbuild
 * of 6.12 and later links it into every module), link. A module is then built by running
 * those commands with its name, directory and flags put in. Steps kbuild takes that
 * our modules don't need are left out: the export checks (they export nothing), the
 * duplicate name check (one module), and BTF (no vmlinux in a headers package). When the
 * recipe can't be made or a step fails, the module is built with kbuild itself, whose log
 * is then what is shown.
 */
#define _GNU_SOURCE
#include "build/build.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "build/cache.h"
#include "build/kfeatures.h"
#include "progress.h"
#include "util.h"

/* The probe module's name and the marks its commands get in the recipe. */
#define PROBE_NAME "tapster_recipe_probe"
#define PROBE_FLAG "-DTAPSTER_RECIPE_FLAGS"
/* Its format and what write_kbuild() asks of kbuild: a recipe of another version is learnt
 * anew (4: the module without the function tracer's call sites). */
#define RECIPE_HEADER "tapster kbuild recipe 4\n"
/* A step the tree's kbuild does not take (module-common.c before 6.12). */
#define NO_STEP "-"

enum { STEP_COMPILE, STEP_MODPOST, STEP_MOD_COMPILE, STEP_COMMON_COMPILE, STEP_LINK, NSTEPS };

struct recipe {
	char *steps[NSTEPS];	/* with @DIR@, @NAME@ and @FLAGS@ to put in; or NO_STEP */
};

/* The compiler flags of the module: the kernel API header, the runtime, the -D options. */
static char *module_flags(const struct session *s)
{
	char *features = kernel_features_header(s->kernel_build_dir,
						s->disable_cache ? s->tmpdir : NULL,
						s->poison_cache);
	struct strbuf flags = { 0 };

	if (!features)
		return NULL;
	/* The kernel's API, as its headers have it (kfeatures.c), before anything else. */
	sb_addf(&flags, "-include %s -I%s", features, s->runtime_dir);
	free(features);
	for (int i = 0; i < s->ndefines; i++)
		sb_addf(&flags, " '-D%s%s%s'", s->defines[i].name, s->defines[i].value ? "=" : "",
			s->defines[i].value ? s->defines[i].value : "");
	return sb_steal(&flags);
}

static bool write_file(const char *path, const char *text)
{
	if (write_text_file(path, text))
		return true;
	fprintf(stderr, "ERROR: cannot write %s: %s\n", path, strerror(errno));
	return false;
}

/*
 * The module is built without the function tracer's hooks (the kernel's way for its own
 * tracing code: ccflags-remove-y of CC_FLAGS_FTRACE). With them, each of the module's
 * functions has a call site that the loader records and patches, and on 6.1 and later it
 * looks every such site up among the module's symbols (ftrace_module_enable()'s
 * test_for_valid_rec(), a kallsyms lookup, a scan of the module's symbols each): a time of
 * functions times symbols, 100 virtual ms of `syscall.*, syscall.*.return`'s start. The
 * handlers gain an instruction a hit, and ftrace can't trace the module's own functions,
 * which no probe reaches anyway.
 */
static bool write_kbuild(const char *dir, const char *name, const char *flags)
{
	char *path = xasprintf("%s/Kbuild", dir);
	char *text = xasprintf("obj-m := %s.o\nccflags-y := %s\n"
			       "ccflags-remove-y := $(CC_FLAGS_FTRACE)\n", name, flags);
	bool ok = write_file(path, text);

	free(path);
	free(text);
	return ok;
}


static void show_log(const char *log)
{
	progress_end();	/* the log's lines are not to follow the progress line */
	copy_file_to(log, stderr);
}

/* make modules for the module in DIR, its output in LOG (truncated first); make's exit
 * status. */
static int run_kbuild(const struct session *s, const char *dir, bool verbose_make,
		      const char *log)
{
	char *mdir = xasprintf("M=%s", dir);
	const char *fixed[] = { "make", verbose_make ? "V=1" : "-s", "-C", s->kernel_build_dir,
				mdir, "modules" };
	size_t nfixed = sizeof(fixed) / sizeof(fixed[0]);
	char **argv = xcalloc(nfixed + (size_t)s->make_args.count + 1, sizeof(*argv));
	int status;

	for (size_t i = 0; i < nfixed; i++)
		argv[i] = (char *)fixed[i];
	/* -B NAME=VALUE: make's own arguments, after ours. */
	for (int i = 0; i < s->make_args.count; i++)
		argv[nfixed + (size_t)i] = (char *)s->make_args.items[i];
	unlink(log);
	status = run_logged(NULL, argv, NULL, log, true);
	free(argv);
	free(mdir);
	return status;
}

/* TEXT with every FROM replaced by TO (malloc'd). */
static char *replace_all(const char *text, const char *from, const char *to)
{
	struct strbuf out = { 0 };
	size_t len = strlen(from);
	const char *p;

	while ((p = strstr(text, from))) {
		sb_addn(&out, text, (size_t)(p - text));
		sb_add(&out, to);
		text = p + len;
	}
	sb_add(&out, text);
	return sb_steal(&out);
}

/* A module built with kbuild's V=1 output, from which the recipe is read: its directory,
 * name and flags, which the recipe has as @DIR@, @NAME@ and @FLAGS@. */
struct learnt_build {
	const char *dir;
	const char *name;
	const char *flags;
};

/* Which step a line of kbuild's V=1 log of B is; -1 for none. */
static int step_of_line(const char *line, const struct learnt_build *b)
{
	char *object = xasprintf("-c -o %s/%s.o ", b->dir, b->name);
	char *mod_object = xasprintf("-c -o %s/%s.mod.o ", b->dir, b->name);
	char *common_object = xasprintf("-c -o %s/.module-common.o ", b->dir);
	char *module = xasprintf("-o %s/%s.ko ", b->dir, b->name);
	size_t program_len = strcspn(line, " ");
	/* The linker: ld, or a cross toolchain's (x86_64-linux-gnu-ld, 6.12's packages). */
	bool is_ld = (program_len == 2 && !strncmp(line, "ld", 2)) ||
		     (program_len > 3 && !strncmp(line + program_len - 3, "-ld", 3));
	int step = -1;

	if (strstr(line, object) && strstr(line, b->flags))
		step = STEP_COMPILE;
	else if (strstr(line, mod_object))
		step = STEP_MOD_COMPILE;
	else if (strstr(line, common_object))
		step = STEP_COMMON_COMPILE;
	else if (strstr(line, "scripts/mod/modpost "))
		step = STEP_MODPOST;
	else if (is_ld && strstr(line, module))
		step = STEP_LINK;
	free(common_object);
	free(object);
	free(mod_object);
	free(module);
	return step;
}

/* Whether `word` asks the compiler for debug information (-g, -gdwarf-5, -gz=zlib...). */
static bool is_debug_option(const char *word, size_t len)
{
	return len >= 2 && !strncmp(word, "-g", 2) &&
	       (len == 2 || !strncmp(word, "-gdwarf", 7) || !strncmp(word, "-gz", 3) ||
		!strncmp(word, "-gsplit-dwarf", 13));
}

/* `command` without its debug information options: a probe module's DWARF is never read
 * (stack traces come from kallsyms), and -g is a fifth of a module's compile time. */
static char *without_debug_options(const char *command)
{
	struct strbuf out = { 0 };

	sb_add(&out, "");
	for (const char *p = command; *p;) {
		size_t space = strspn(p, " "), len = strcspn(p + space, " ");

		if (!is_debug_option(p + space, len))
			sb_addf(&out, "%.*s", (int)(space + len), p);
		p += space + len;
	}
	return sb_steal(&out);
}

/* A command of B's log with B's flags, directory and name made marks; a compile without
 * its debug information options. */
static char *command_to_step(const char *command, const struct learnt_build *b, int step)
{
	char *dir_mark = xasprintf("%s/", b->dir);
	char *plain = step == STEP_COMPILE || step == STEP_MOD_COMPILE ||
		      step == STEP_COMMON_COMPILE ? without_debug_options(command) :
						    xstrdup(command);
	char *no_flags = replace_all(plain, b->flags, "@FLAGS@");
	char *no_dir = replace_all(no_flags, dir_mark, "@DIR@/");
	char *marked = replace_all(no_dir, b->name, "@NAME@");

	free(dir_mark);
	free(plain);
	free(no_flags);
	free(no_dir);
	return marked;
}

/* The recipe's text from kbuild's V=1 log of B, or NULL. */
static char *recipe_from_log(const char *log_text, const struct learnt_build *b)
{
	char *steps[NSTEPS] = { 0 };
	struct strbuf out = { 0 };
	bool complete = true;

	for (const char *line = log_text; *line;) {
		const char *end = strchrnul(line, '\n');
		char *text = xstrndup(line, (size_t)(end - line));
		const char *start = text + strspn(text, " \t");
		int step = step_of_line(start, b);

		if (step >= 0 && !steps[step])
			steps[step] = command_to_step(start, b, step);
		free(text);
		line = *end ? end + 1 : end;
	}
	sb_add(&out, RECIPE_HEADER);
	for (int i = 0; i < NSTEPS; i++) {
		if (!steps[i] && i == STEP_COMMON_COMPILE)
			steps[i] = xstrdup(NO_STEP);
		complete = complete && steps[i];
		if (steps[i])
			sb_addf(&out, "%s\n", steps[i]);
		free(steps[i]);
	}
	if (!complete) {
		free(sb_steal(&out));
		return NULL;
	}
	return sb_steal(&out);
}

/* The recipe's text from kbuild's V=1 LOG of B (NULL when there is none to be had). */
static char *recipe_from_build(const struct session *s, const char *log,
			       const struct learnt_build *b)
{
	char *text = read_text_file(log, NULL);
	char *recipe = text ? recipe_from_log(text, b) : NULL;

	if (s->verbose >= 3)
		fprintf(stderr, "Pass 4: %s kbuild's commands for %s\n",
			recipe ? "learnt" : "could not learn", s->kernel_build_dir);
	free(text);
	return recipe;
}

/* Builds the probe module with kbuild in <tmpdir>/recipe and returns the recipe's text. */
static char *capture_recipe(const struct session *s)
{
	static const char probe_source[] =
		"#include <linux/module.h>\n"
		"static int __init tapster_recipe_probe_init(void) { return 0; }\n"
		"module_init(tapster_recipe_probe_init);\n"
		"MODULE_LICENSE(\"GPL\");\n";
	char *dir = xasprintf("%s/recipe", s->tmpdir);
	char *source = xasprintf("%s/" PROBE_NAME ".c", dir);
	char *log = xasprintf("%s/build.log", dir);
	struct learnt_build probe = { dir, PROBE_NAME, PROBE_FLAG };
	char *recipe = NULL;

	if (mkdir(dir, 0755) == 0 && write_file(source, probe_source) &&
	    write_kbuild(dir, PROBE_NAME, PROBE_FLAG) && run_kbuild(s, dir, true, log) == 0)
		recipe = recipe_from_build(s, log, &probe);
	free(dir);
	free(source);
	free(log);
	return recipe;
}

static bool parse_recipe(char *text, struct recipe *r)
{
	char *line = text;

	if (strncmp(text, RECIPE_HEADER, strlen(RECIPE_HEADER)))
		return false;
	line += strlen(RECIPE_HEADER);
	for (int i = 0; i < NSTEPS; i++) {
		char *end = strchr(line, '\n');

		if (!end)
			return false;
		*end = '\0';
		r->steps[i] = line;
		line = end + 1;
	}
	return true;
}

/* Where the recipe for the target's tree is kept (malloc'd); its directory in *DIR. */
static char *recipe_path(const struct session *s, char **dir)
{
	char *key = kernel_tree_key(s->kernel_build_dir);
	char *root = tapster_dir();
	char *path;

	*dir = s->disable_cache ? xstrdup(s->tmpdir) : xasprintf("%s/kfeatures", root);
	path = xasprintf("%s/%s.recipe", *dir, key);
	free(key);
	free(root);
	return path;
}

/* The kept recipe for the target's tree: its text (malloc'd; the steps point into it),
 * or NULL when there is none (or --poison-cache). */
static char *load_recipe(const struct session *s, struct recipe *r)
{
	char *dir;
	char *path = recipe_path(s, &dir);
	char *text = s->poison_cache ? NULL : read_text_file(path, NULL);

	if (text && !parse_recipe(text, r)) {
		free(text);
		text = NULL;
	}
	free(dir);
	free(path);
	return text;
}

/* Keeps the recipe TEXT for the target's tree (renamed into place: runs may race). */
static void save_recipe(const struct session *s, const char *text)
{
	char *dir;
	char *path = recipe_path(s, &dir);

	if (make_dirs(dir) == 0) {
		char *tmp = xasprintf("%s.%d", path, (int)getpid());

		if (write_file(tmp, text) && rename(tmp, path) != 0)
			unlink(tmp);
		free(tmp);
	}
	free(dir);
	free(path);
}

/*
 * Runs the recipe's steps for <tmpdir>/<name>.c in the tree's directory, as make would,
 * with what make gives them: modules.order names the module's object (6.12's kbuild,
 * whose modpost reads the file itself) or its .ko (6.1's, whose modpost reads it through
 * sed 's/ko$/o/'), and objtool reads the architecture from SRCARCH (6.12's).
 */
static bool follow_recipe(const struct session *s, const struct recipe *r, const char *name,
			  const char *flags, const char *log)
{
	bool order_of_kos = strstr(r->steps[STEP_MODPOST], "s/ko$/o/") != NULL;
	char *order = xasprintf("%s/modules.order", s->tmpdir);
	char *order_text = xasprintf("%s/%s.%s\n", s->tmpdir, name, order_of_kos ? "ko" : "o");
	char *mod = xasprintf("%s/%s.mod", s->tmpdir, name);
	char *mod_text = xasprintf("%s/%s.o\n", s->tmpdir, name);
	/* modpost reads the symbol versions of what the object exports from its .cmd file
	 * (kbuild's record of how it was made): there are none. */
	char *cmd = xasprintf("%s/.%s.o.cmd", s->tmpdir, name);
	bool ok = write_file(order, order_text) && write_file(mod, mod_text) &&
		  write_file(cmd, "");

	unlink(log);
	setenv("SRCARCH", "x86", 0);
	for (int i = 0; ok && i < NSTEPS; i++) {
		if (!strcmp(r->steps[i], NO_STEP))
			continue;
		char *a = replace_all(r->steps[i], "@DIR@", s->tmpdir);
		char *b = replace_all(a, "@NAME@", name);
		char *command = replace_all(b, "@FLAGS@", flags);

		ok = run_logged(s->kernel_build_dir, NULL, command, log, true) == 0;
		free(a);
		free(b);
		free(command);
	}
	free(order);
	free(order_text);
	free(mod);
	free(mod_text);
	free(cmd);
	return ok;
}

/* A name that occurs nowhere else in kbuild's commands, so that the recipe can be read
 * from the module's own build: one of the cache's (stap_ and 32 hex digits). */
static bool is_distinctive_name(const char *name)
{
	return !strncmp(name, "stap_", 5) && strlen(name) >= 5 + 16;
}

/* With kbuild: the first build for a tree learns the recipe from it (V=1), or from the
 * probe module when the module's name could be mistaken in kbuild's commands. */
static bool build_with_kbuild(const struct session *s, const char *name, const char *flags,
			      const char *log, bool learn)
{
	struct learnt_build module = { s->tmpdir, name, flags };
	bool from_module = learn && is_distinctive_name(name);
	bool built;
	int status;

	if (learn && !from_module) {
		char *recipe = capture_recipe(s);

		if (recipe)
			save_recipe(s, recipe);
		free(recipe);
	}
	if (!write_kbuild(s->tmpdir, name, flags))
		return false;
	status = run_kbuild(s, s->tmpdir, from_module, log);
	built = status == 0;
	if (!built) {
		show_log(log);
		/* stap's words, after make's own messages. */
		fprintf(stderr, "WARNING: kbuild exited with status: %d\n", status);
	}
	if (built && from_module) {
		char *recipe = recipe_from_build(s, log, &module);

		if (recipe)
			save_recipe(s, recipe);
		free(recipe);
	}
	return built;
}

char *build_module(const struct session *s, const char *name)
{
	char *flags = module_flags(s);
	char *log = xasprintf("%s/build.log", s->tmpdir);
	char *ko = xasprintf("%s/%s.ko", s->tmpdir, name);
	struct recipe recipe;
	/* -B's arguments are make's: the build runs make, not the commands learnt from it. */
	char *recipe_text = flags && !s->make_args.count ? load_recipe(s, &recipe) : NULL;
	bool built = recipe_text && follow_recipe(s, &recipe, name, flags, log) &&
		     access(ko, R_OK) == 0;

	if (recipe_text && s->verbose >= 3) {
		progress_end();
		fprintf(stderr, "Pass 4: %s kbuild's commands for %s\n",
			built ? "built with" : "could not build with", s->kernel_build_dir);
	}
	if (flags && !built)
		built = build_with_kbuild(s, name, flags, log,
					  !recipe_text && !s->make_args.count);
	if (flags && built && s->verbose >= 3)
		show_log(log);
	if (built && access(ko, R_OK) != 0) {
		progress_end();
		fprintf(stderr, "ERROR: kbuild made no %s\n", ko);
		built = false;
	}
	free(recipe_text);
	free(flags);
	free(log);
	if (!built) {
		free(ko);
		return NULL;
	}
	return ko;
}
