// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The target's tracepoints (tracepoints.h): names and types from BTF, subsystems and
 * event classes from the trace headers.
 */
#include "target/tracepoints.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "target/kmodules.h"
#include "util.h"

/* ---- The trace headers: which subsystem and class each event has ---- */

struct header_event {
	char *name;
	char *system;
	char *class;		/* DEFINE_EVENT's class; NULL when the event is its own */
};

struct header_events {
	struct header_event *items;
	size_t count;
};

/* The macros that define a tracepoint, and whether their first argument is a class. */
static const struct {
	const char *macro;
	bool class_first;
} event_macros[] = {
	{ "TRACE_EVENT", false },
	{ "TRACE_EVENT_CONDITION", false },
	{ "TRACE_EVENT_FN", false },
	{ "TRACE_EVENT_FN_COND", false },
	{ "DECLARE_TRACE", false },
	{ "DECLARE_TRACE_CONDITION", false },
	{ "DEFINE_EVENT", true },
	{ "DEFINE_EVENT_FN", true },
	{ "DEFINE_EVENT_PRINT", true },
	{ "DEFINE_EVENT_CONDITION", true },
};

static bool is_ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* The identifier at *p (after blanks), advancing past it; NULL when there is none. */
static char *read_ident(const char **p)
{
	const char *s = *p, *start;

	while (isspace((unsigned char)*s))
		s++;
	start = s;
	while (is_ident_char(*s))
		s++;
	*p = s;
	return s > start ? xstrndup(start, (size_t)(s - start)) : NULL;
}

/* After a macro's name: "(a, b" gives a and, with `two`, b. */
static bool read_macro_args(const char *p, bool two, char **first, char **second)
{
	while (isspace((unsigned char)*p))
		p++;
	if (*p++ != '(')
		return false;
	*first = read_ident(&p);
	*second = NULL;
	if (!*first)
		return false;
	if (!two)
		return true;
	while (isspace((unsigned char)*p))
		p++;
	if (*p++ == ',')
		*second = read_ident(&p);
	if (!*second) {
		free(*first);
		return false;
	}
	return true;
}

static void add_header_event(struct header_events *he, char *name, const char *system,
			     char *class)
{
	he->items = xrealloc(he->items, (he->count + 1) * sizeof(*he->items));
	he->items[he->count++] = (struct header_event){ name, xstrdup(system), class };
}

/* One identifier of a header at `p`: a TRACE_SYSTEM definition or an event macro. */
static void scan_ident(struct header_events *he, const char *ident, const char *p,
		       char **system)
{
	char *first, *second;

	for (size_t i = 0; i < sizeof(event_macros) / sizeof(event_macros[0]); i++) {
		if (strcmp(ident, event_macros[i].macro))
			continue;
		if (*system && read_macro_args(p, event_macros[i].class_first, &first, &second)) {
			if (event_macros[i].class_first)
				add_header_event(he, second, *system, first);
			else
				add_header_event(he, first, *system, NULL);
		}
		return;
	}
}

static void scan_header(struct header_events *he, const char *text)
{
	char *system = NULL;

	for (const char *p = text; *p;) {
		if (!strncmp(p, "#define TRACE_SYSTEM", 20) && isspace((unsigned char)p[20])) {
			const char *q = p + 20;
			char *name = read_ident(&q);

			if (name) {
				free(system);
				system = name;
			}
			p = q;
			continue;
		}
		if (!is_ident_char(*p) || (p > text && is_ident_char(p[-1]))) {
			p++;
			continue;
		}
		const char *q = p;
		char *ident = read_ident(&q);

		scan_ident(he, ident, q, &system);
		free(ident);
		p = q;
	}
	free(system);
}

/* The headers of `dir` in the order of their names. */
static void scan_header_dir(struct header_events *he, const char *dir)
{
	struct dirent **entries;
	int count = scandir(dir, &entries, NULL, alphasort);

	for (int i = 0; i < count; i++) {
		const char *name = entries[i]->d_name;
		size_t len = strlen(name);

		if (len >= 3 && !strcmp(name + len - 2, ".h")) {
			char *path = xasprintf("%s/%s", dir, name);
			char *text = read_text_file(path, NULL);

			if (text)
				scan_header(he, text);
			free(text);
			free(path);
		}
		free(entries[i]);
	}
	if (count >= 0)
		free(entries);
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * Where the kernel's full headers are: the build directory's `source` link, or the
 * directory its Makefile includes (Debian: "include $(dir ...)../linux-headers-V-common/
 * Makefile"), or the build directory itself.
 */
static char *headers_dir(const char *build_dir)
{
	char *path = xasprintf("%s/source/include/trace/events", build_dir);
	char *makefile, *text, *include, *end, *real;

	if (is_dir(path)) {
		free(path);
		return xasprintf("%s/source", build_dir);
	}
	free(path);
	makefile = xasprintf("%s/Makefile", build_dir);
	text = read_text_file(makefile, NULL);
	free(makefile);
	include = text ? strstr(text, "include ") : NULL;
	end = include ? strstr(include, "/Makefile") : NULL;
	if (end) {
		const char *start = strrchr(include, ')');

		start = start && start < end ? start + 1 : include + 8;
		*end = '\0';
		real = realpath(build_dir, NULL);
		path = *start == '/' ? xstrdup(start) :
				       xasprintf("%s/%s", real ? real : build_dir, start);
		free(real);
		free(text);
		return path;
	}
	free(text);
	return xstrdup(build_dir);
}

static struct header_events read_header_events(const char *build_dir)
{
	static const char *const subdirs[] = { "include/trace/events", "include/trace",
					       "include/ras", "arch/x86/include/asm/trace",
					       "arch/x86/include/asm" };
	struct header_events he = { 0 };
	char *top = build_dir ? headers_dir(build_dir) : NULL;

	for (size_t i = 0; top && i < sizeof(subdirs) / sizeof(subdirs[0]); i++) {
		char *dir = xasprintf("%s/%s", top, subdirs[i]);

		scan_header_dir(&he, dir);
		free(dir);
	}
	free(top);
	return he;
}

static const struct header_event *find_header_event(const struct header_events *he,
						    const char *name)
{
	for (size_t i = 0; i < he->count; i++)
		if (!strcmp(he->items[i].name, name))
			return &he->items[i];
	return NULL;
}

/* ---- Argument names ---- */

static const char bpf_prefix[] = "__bpf_trace_";

/* Whether the function `proto` takes `void *data` and the argument types of `tp`. */
static bool same_args(const struct ktypes *kt, ktype_id proto, const struct tracepoint *tp)
{
	if (!proto || ktypes_nparams(kt, proto) != tp->nargs + 1)
		return false;
	for (int i = 0; i < tp->nargs; i++)
		if (ktypes_param_type(kt, proto, i + 1) != tp->arg_types[i])
			return false;
	return true;
}

static size_t common_prefix(const char *a, const char *b)
{
	size_t n = 0;

	while (a[n] && a[n] == b[n])
		n++;
	return n;
}

/* The BPF function of a class whose name is unknown: the one with the same argument types
 * whose name shares the longest beginning with the tracepoint's. */
static ktype_id guess_class(const struct ktypes *kt, const struct tracepoint *tp)
{
	static const struct ktypes *functions_of;	/* the kernel's or a module's types */
	static const char **functions;
	static ktype_id *protos;	/* each function's, looked up once for all tracepoints */
	static size_t nfunctions;
	ktype_id best = 0;
	size_t best_len = 0;

	if (functions_of != kt) {
		free(functions);
		free(protos);
		functions = ktypes_function_names(kt, bpf_prefix, &nfunctions);
		protos = xcalloc(nfunctions ? nfunctions : 1, sizeof(*protos));
		for (size_t i = 0; i < nfunctions; i++)
			protos[i] = ktypes_function(kt, functions[i]);
		functions_of = kt;
	}
	for (size_t i = 0; i < nfunctions; i++) {
		size_t len = common_prefix(functions[i] + strlen(bpf_prefix), tp->name);

		if (same_args(kt, protos[i], tp) && (!best || len > best_len)) {
			best = protos[i];
			best_len = len;
		}
	}
	return best;
}

static void name_args(const struct ktypes *kt, struct tracepoint *tp, const char *class)
{
	char *function = xasprintf("%s%s", bpf_prefix, class ? class : tp->name);
	ktype_id proto = ktypes_function(kt, function);

	free(function);
	if (!same_args(kt, proto, tp))
		proto = guess_class(kt, tp);
	for (int i = 0; i < tp->nargs; i++) {
		const char *name = proto ? ktypes_param_name(kt, proto, i + 1) : "";

		tp->arg_names[i] = *name ? xstrdup(name) : xasprintf("arg%d", i + 1);
	}
}

/* ---- The catalogue ---- */

/* Whether an argument of `type` needs more than one register or stack slot (a struct of
 * up to 8 bytes, pte_t say, takes one, as an integer does). */
static bool passed_by_value(const struct ktypes *kt, ktype_id type)
{
	ktype_id s = ktypes_strip(kt, type);
	enum ktype_kind kind = ktypes_kind(kt, s);

	return !(kind == KT_INT || kind == KT_PTR || kind == KT_ENUM || kind == KT_STRUCT ||
		 kind == KT_UNION) || ktypes_size(kt, s) > 8 || !ktypes_size(kt, s);
}

static bool read_tracepoint(const struct ktypes *kt, const char *typedef_name,
			    const struct header_events *he, struct tracepoint *tp)
{
	ktype_id ptr = ktypes_strip(kt, ktypes_find(kt, typedef_name));
	ktype_id proto = ktypes_kind(kt, ptr) == KT_PTR ? ktypes_target(kt, ptr) : 0;
	const struct header_event *event;

	if (!proto || ktypes_kind(kt, proto) != KT_FUNC_PROTO || ktypes_nparams(kt, proto) < 1)
		return false;
	tp->name = typedef_name + strlen("btf_trace_");
	tp->kt = kt;
	tp->nargs = ktypes_nparams(kt, proto) - 1;
	tp->arg_names = xcalloc((size_t)tp->nargs + 1, sizeof(*tp->arg_names));
	tp->arg_types = xcalloc((size_t)tp->nargs + 1, sizeof(*tp->arg_types));
	for (int i = 0; i < tp->nargs; i++) {
		tp->arg_types[i] = ktypes_param_type(kt, proto, i + 1);
		tp->by_value |= passed_by_value(kt, tp->arg_types[i]);
	}
	event = find_header_event(he, tp->name);
	tp->system = event ? xstrdup(event->system) : NULL;
	name_args(kt, tp, event ? event->class : NULL);
	return true;
}

struct tracepoints *tracepoints_load(const struct ktypes *kt, const char *build_dir)
{
	struct tracepoints *t = xcalloc(1, sizeof(*t));
	struct header_events he = read_header_events(build_dir);
	size_t count;
	const char **names = ktypes_typedef_names(kt, "btf_trace_", &count);

	t->items = xcalloc(count + 1, sizeof(*t->items));
	for (size_t i = 0; i < count; i++)
		if (read_tracepoint(kt, names[i], &he, &t->items[t->count]))
			t->count++;
	free(names);
	t->header_events = xcalloc(1, sizeof(he));
	*(struct header_events *)t->header_events = he;
	return t;
}

const struct tracepoint *tracepoints_find(const struct tracepoints *t, const char *name)
{
	size_t lo = 0, hi = t->count;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int cmp = strcmp(t->items[mid].name, name);

		if (!cmp)
			return &t->items[mid];
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* ---- The tracepoints of loadable modules ---- */

static const char traceiter_prefix[] = "__traceiter_";

static int compare_module_tracepoints(const void *a, const void *b)
{
	const struct module_tracepoint *x = a, *y = b;
	int cmp = strcmp(x->tp.name, y->tp.name);

	return cmp ? cmp : strcmp(x->tp.module, y->tp.module);
}

static void add_module_tracepoint(struct tracepoints *t, const struct kmodule *mod,
				  const char *name)
{
	const struct header_event *event = find_header_event(t->header_events, name);
	struct module_tracepoint *m;

	if (tracepoints_find(t, name))
		return;		/* vmlinux's own */
	t->module_items = xrealloc(t->module_items,
				   (t->module_count + 1) * sizeof(*t->module_items));
	m = &t->module_items[t->module_count++];
	*m = (struct module_tracepoint){ .tp = { .name = xstrdup(name), .module = mod->name,
						 .system = event ? xstrdup(event->system) : NULL } };
}

void tracepoints_add_modules(struct tracepoints *t, const struct kmodules *mods)
{
	size_t len = strlen(traceiter_prefix);

	if (t->modules_added || !mods)
		return;
	t->modules_added = true;
	for (size_t i = 0; i < mods->len; i++) {
		const struct kmodule *mod = &mods->items[i];

		for (size_t j = 0; j < mod->nfunctions; j++)
			if (!strncmp(mod->functions[j], traceiter_prefix, len))
				add_module_tracepoint(t, mod, mod->functions[j] + len);
	}
	if (t->module_count)
		qsort(t->module_items, t->module_count, sizeof(*t->module_items),
		      compare_module_tracepoints);
}

const struct tracepoint *tracepoints_read_module(const struct tracepoints *t,
						 struct module_tracepoint *m,
						 const struct ktypes *kt)
{
	struct tracepoint tp = { 0 };
	char *typedef_name;

	if (m->state)
		return m->state > 0 ? &m->tp : NULL;
	m->state = -1;
	if (!kt)
		return NULL;
	/* Kept: the tracepoint's name points into it. */
	typedef_name = xasprintf("btf_trace_%s", m->tp.name);
	if (!read_tracepoint(kt, typedef_name, t->header_events, &tp)) {
		free(typedef_name);
		return NULL;
	}
	tp.module = m->tp.module;
	m->tp = tp;
	if (tp.by_value)
		return NULL;
	m->state = 1;
	return &m->tp;
}

const struct tracepoint *tracepoints_find_module(const struct tracepoints *t,
						 const char *module, const char *name)
{
	for (size_t i = 0; i < t->module_count; i++) {
		const struct module_tracepoint *m = &t->module_items[i];

		if (m->state > 0 && !strcmp(m->tp.name, name) && !strcmp(m->tp.module, module))
			return &m->tp;
	}
	return NULL;
}
