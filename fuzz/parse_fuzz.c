// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for pass 1: the lexer, the preprocessor (%( %) conditions, @define
 * macros, library macros, script arguments) and the parser, and the -p1 printer on every
 * tree that parses.
 *
 * An input is a script, optionally followed by a NUL byte and a tail that sets up the
 * parse the way the command line would:
 *
 *     SCRIPT [ NUL FLAGS [ ARG1 [ NUL ARG2 ... ] ] ]
 *
 * FLAGS is one byte:
 *     bit 0  -g: embedded C allowed in the script, guru_mode is 1
 *     bit 1  the parse sees a small library of .stpm macros (see library_macros below)
 *     bit 2  a target kernel is known (release and .config), as after -r
 *     bit 3  the script is read as a tapset (embedded C allowed, guru_mode as bit 0)
 * and the bytes after it are the script arguments ($1, @1, $#), NUL-separated. A plain
 * script (no NUL) parses as `tapster -p1 FILE` would, with no arguments.
 *
 * Everything the parse allocates is released through pass 1's own API (file_free) before
 * the next input, so that LeakSanitizer sees any leak in pass 1. The diagnostics go to
 * /dev/null (PARSE_FUZZ_STDERR=1: to stderr).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "parse/parse.h"

enum {
	FLAG_GURU = 1 << 0,
	FLAG_MACROS = 1 << 1,
	FLAG_TARGET = 1 << 2,
	FLAG_TAPSET = 1 << 3,
};

#define MAX_ARGS 12

/* Written for this target, in the style of a library .stpm file: definitions only. */
static const char library_macros[] =
	"# macros a fuzzed script can call\n"
	"@define fz_twice(x) %( ((@x) + (@x)) %)\n"
	"@define fz_limit %( 4096 %)\n"
	"@define fz_pick(a, b) %( (@a > @b ? @a : @b) %)\n"
	"@define fz_nested(v) %( @fz_twice(@fz_pick(@v, @fz_limit)) %)\n"
	"@define fz_str %( \"lib\" . \"macro\" %)\n"
	"@define fz_cond %( %( kernel_v >= \"2.6\" %? 1 %: 0 %) %)\n"
	"@define fz_stmt(s) %( if (@s) { next } %)\n";

static struct source *macro_sources[1];
static FILE *devnull;

static const char *fake_release(void *ctx)
{
	(void)ctx;
	return "6.1.0-56-cloud-amd64";
}

/* A .config with a few kinds of values, chosen by the option's name so that runs repeat. */
static const char *fake_config(void *ctx, const char *name)
{
	static const char *const values[] = { "y", "m", "", "64", "0x1000", "some text", "-1" };
	unsigned hash = 5381;

	(void)ctx;
	for (const char *p = name; *p; p++)
		hash = hash * 33 + (unsigned char)*p;
	return values[hash % (sizeof(values) / sizeof(values[0]))];
}

static const struct parse_target target = { fake_release, fake_config, NULL };

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();
	/*
	 * Parse errors are the common case; printing them would dominate the run time. Pass 1
	 * prints them to `stderr`, which glibc lets a program point elsewhere, so that they go
	 * to /dev/null while file descriptor 2, where libFuzzer and the sanitizers report,
	 * stays as it was. PARSE_FUZZ_STDERR=1 shows them, e.g. to look at a crash input.
	 */
	if (!getenv("PARSE_FUZZ_STDERR"))
		stderr = devnull;
	/* Kept for the whole run: the parser reads it once and keeps its macros. */
	macro_sources[0] = source_from_text("fuzz/library.stpm", library_macros);
	macro_sources[0]->is_tapset = true;
	return 0;
}

/* A source is plain data with no destructor in parse.h: its two strings and itself. */
static void release_source(struct source *src)
{
	free(src->name);
	free(src->text);
	free(src);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Arguments stay valid after the parse, as the macro library keeps the options it
	 * was first read with. */
	static char *args[MAX_ARGS];
	struct parse_options options = { .arch = "x86_64" };
	const uint8_t *nul = memchr(data, 0, size);
	size_t script_len = nul ? (size_t)(nul - data) : size;
	unsigned flags = 0;
	int nargs = 0;

	for (int i = 0; i < MAX_ARGS; i++) {
		free(args[i]);
		args[i] = NULL;
	}
	if (nul && script_len + 1 < size) {
		const uint8_t *p = nul + 2, *end = data + size;

		flags = nul[1];
		/* The arguments: NUL-separated, the last one running to the end. An empty tail
		 * after the flags is no argument, an empty piece between NULs is "". */
		while (p < end && nargs < MAX_ARGS) {
			const uint8_t *stop = memchr(p, 0, (size_t)(end - p));
			size_t len = stop ? (size_t)(stop - p) : (size_t)(end - p);

			args[nargs] = malloc(len + 1);
			if (!args[nargs])
				abort();
			memcpy(args[nargs], p, len);
			args[nargs++][len] = '\0';
			if (!stop)
				break;
			p = stop + 1;
		}
	}

	char *script = malloc(script_len + 1);

	if (!script)
		abort();
	memcpy(script, data, script_len);
	script[script_len] = '\0';

	bool tapset = flags & FLAG_TAPSET;
	struct source *src = source_from_text(tapset ? "fuzz/tapset.stp" : "fuzz.stp", script);

	free(script);
	src->is_tapset = tapset;
	options.guru = tapset || (flags & FLAG_GURU);
	options.guru_mode = flags & FLAG_GURU;
	options.argc = nargs;
	options.argv = args;
	options.target = (flags & FLAG_TARGET) ? &target : NULL;
	if (flags & FLAG_MACROS) {
		options.macro_sources = macro_sources;
		options.nmacro_sources = 1;
	}

	diag_reset();
	struct file *file = parse_source(src, &options);

	if (file) {
		print_file(devnull, file);
		fflush(devnull);
		file_free(file);
	}
	release_source(src);
	return 0;
}
