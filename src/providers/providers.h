/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Probe-point providers: each knows one family of probe points (begin/end, kernel.function,
 * ...), checks a written point against its grammar and derives the concrete points pass 3
 * registers. Pass 2 asks providers_derive() and knows nothing of any single provider.
 */
#ifndef TAPSTER_PROVIDERS_H
#define TAPSTER_PROVIDERS_H

#include <stdbool.h>
#include <stdio.h>

#include "parse/ast.h"
#include "resolve/program.h"

/* A form of point a provider takes, as stap's --dump-probe-types writes it
 * ("timer.ms(number).randomize(number)"), and whether --privilege=stapusr allows it. */
struct probe_type {
	const char *pattern;
	bool unprivileged;
};

/* Appends the derived points to *tail; returns false after printing an error. */
typedef bool (*provider_derive_fn)(const struct probe_point *point,
				   const struct provider_env *env, struct derived_point ***tail);

struct provider {
	const char *name;	/* the first component it answers to */
	const struct probe_type *types;	/* its forms, ended by { NULL } */
	provider_derive_fn derive;
	/* Optional: after the whole program is derived, the checks that need all of its
	 * points at once (two procfs probes of one path); false after printing the error. */
	bool (*check)(const struct program *program);
	/* Optional: forgets what derive kept from point to point (perf's counter names), at
	 * the end of an elaboration. */
	void (*forget)(void);
};

extern const struct provider provider_begin;
extern const struct provider provider_end;
extern const struct provider provider_error;
extern const struct provider provider_never;
extern const struct provider provider_kernel;
extern const struct provider provider_kprobe;
extern const struct provider provider_timer;
extern const struct provider provider_module;
extern const struct provider provider_process;
extern const struct provider provider_perf;

/* The file a process("NAME") point names, as stap finds it: NAME without a slash in $PATH,
 * else NAME, from the current directory; absolute, symbolic links resolved, into `path`
 * (PATH_MAX bytes). */
bool find_executable(const char *name, char *path);
/* The same for a target under `sysroot` (--sysroot; NULL: "/") whose $PATH is
 * `search_path` (NULL: ours); `path` is the host's path of the file, under the sysroot. */
bool find_executable_in(const char *sysroot, const char *search_path, const char *name,
			char *path);

/* process_events.c: whether `comp`, after process(...), is one of the lifetime and
 * system-call points (begin, end, thread, syscall); their derivation from it, of the
 * process file `written` (as the point has it, NULL for none) or of `pid` (0 for none). */
bool process_event_component(const struct component *comp);
bool derive_process_event(const struct probe_point *point, const struct component *event,
			  const char *written, int64_t pid, struct derived_point ***tail);
extern const struct provider provider_procfs;
extern const struct provider provider_netfilter;

/* The families the kernel and kprobe providers pass their points on to, by the component
 * after the first: FUNC is function("f"), STMT statement(ADDR), MODULE module("m"). */
bool derive_kernel_function(const struct probe_point *point, const struct component *func,
			    const struct provider_env *env, struct derived_point ***tail);
bool derive_statement(const struct probe_point *point, const struct component *stmt,
		      const struct provider_env *env, struct derived_point ***tail);
bool derive_kernel_trace(const struct probe_point *point, const struct component *trace,
			 const struct provider_env *env, struct derived_point ***tail);
/* kernel.data(A|"S")...: hwbkpt.c. */
bool derive_kernel_data(const struct probe_point *point, const struct component *data,
			struct derived_point ***tail);
bool derive_module_function(const struct probe_point *point, const struct component *module,
			    const struct provider_env *env, struct derived_point ***tail);

/* The providers' first components (NULL-terminated, in their order). */
const char *const *providers_names(void);
/* Whether a provider has the first component `name` (kernel, timer, ...). */
bool providers_has(const char *name);
/* Derives `point` through the provider named by its first component. */
bool providers_derive(const struct probe_point *point, const struct provider_env *env,
		      struct derived_point ***tail);
/* --dump-probe-types: every provider's forms, in stap's order; with `unprivileged`, those
 * --privilege=stapusr allows. */
void providers_dump_types(FILE *out, bool unprivileged);
/* Every provider's check of the derived program; false when one printed an error. */
bool providers_check(const struct program *program);
/* The end of an elaboration: every provider forgets what it kept while deriving. */
void providers_forget(void);

/* The canonical text of a point: kernel.function("f").return, begin(10), nosuch?. */
char *probe_point_text(const struct probe_point *point);
/* Its `?` and `!` marks, which the points derived from it show too. */
struct strbuf;
void add_marks(struct strbuf *sb, const struct probe_point *point);

/* A new derived point of `kind` for `point`, its pp the point's canonical text. */
struct derived_point *derived_point_new(enum provider_kind kind, const struct probe_point *point);

/* The first names of the script's and the library's aliases, which stap suggests with the
 * providers' for a first component it does not know; `roots` (malloc'd, the names
 * borrowed) becomes the providers'. */
void providers_set_alias_roots(const char **roots, size_t count);
/* stap's two-part error for a component no provider accepts; `similar` lists the names
 * that would have been accepted there (NULL-terminated; NULL at a first component: the
 * providers' and the aliases' first names). */
void provider_mismatch(const struct probe_point *point, const struct component *comp,
		       const char *const *similar);
/* A point whose component `comp` is a pattern (kernel.da*, timer.m*): derived by `derive`
 * through each of `names` (NULL-terminated, in stap's order) it fits, quietly, as stap's
 * tree of names; when none derives, stap's "didn't find any wildcard matches" with `names`
 * as the similar ones. */
bool provider_derive_each(const struct probe_point *point, const struct component *comp,
			  const char *const *names, provider_derive_fn derive,
			  const struct provider_env *env, struct derived_point ***tail);
/* The same without the error: whether any of `names` that `comp` fits derived. */
bool provider_derive_matching(const struct probe_point *point, const struct component *comp,
			      const char *const *names, provider_derive_fn derive,
			      const struct provider_env *env, struct derived_point ***tail);
/* The first part alone: "while resolving probe point: identifier 'kernel' at ...". */
void provider_resolving(const struct probe_point *point);
/* stap's error for a point that ends too soon: "probe point truncated (follow:  a(string)
 * b(number))" at `comp`, `follow` being what may come next ("a(string) b(number)"). */
void provider_truncated(const struct probe_point *point, const struct component *comp,
			const char *follow);
/* "invalid suffix for probe" at `comp`, a component that may not follow the ones before. */
void provider_invalid_suffix(const struct probe_point *point, const struct component *comp);
/* `reason` at `comp`, after "while resolving probe point". */
void provider_error_at(const struct probe_point *point, const struct component *comp,
		       const char *reason);
/* An unlocated reason after "while resolving probe point", e.g. "no match". */
void provider_refuse(const struct probe_point *point, const char *reason);
/* stap's "no match", with `similar` (similar_names()'s " (similar: a, b)", or "") as
 * "(similar KIND: a, b)": `one` for a single name, `many` for several. */
void provider_no_match(const struct probe_point *point, const char *similar, const char *one,
		       const char *many);

/* A component as stap names its token: "identifier 'foo'", or "keyword" for return,
 * function and the language's other keywords. */
struct token_desc component_token(const struct component *comp);

/* Appends `d` to the derived points. */
void add_derived_point(struct derived_point ***tail, struct derived_point *d);

/* A component's argument: is it a number / a string, and its value. */
bool component_number(const struct component *comp, int64_t *value);
const char *component_string(const struct component *comp);

#endif
