// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * process("PATH").function("f") [.call] and process("PATH").function("f").return: a uprobe
 * or a uretprobe on the user-space function f of the ELF file PATH, in every process that
 * runs it. f may be a wildcard; the functions are the file's symbol table's
 * (target/usyms.h: no DWARF), each probed at its offset in the file, which the kernel's
 * uprobes take with the file's inode (runtime/uprobes.h).
 */
#include "providers/emit.h"
#include "providers/function_point.h"
#include "providers/providers.h"

#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "target/usyms.h"
#include "util.h"

/* The components stap names after process("PATH") when it knows none of them. */
static const char *const process_names[] = { "begin", "end", "function", "insn", "library",
					     "mark", "plt", "provider", "statement", "syscall",
					     "thread", NULL };

/* stap's "no match", with the nearest of the file's functions: "similar functions". */
static void process_no_match(const struct probe_point *point, const char *pattern,
			     const struct ufunc *funcs, size_t count)
{
	const char **names = xcalloc(count + 1, sizeof(*names));
	char *similar;

	for (size_t i = 0; i < count; i++)
		names[i] = funcs[i].name;
	similar = similar_names(pattern, names, count);
	provider_no_match(point, similar, "functions", "functions");
	free(similar);
	free(names);
}

bool find_executable_in(const char *sysroot, const char *search_path, const char *name,
			char *path)
{
	const char *dirs = search_path ? search_path : getenv("PATH");
	const char *root = sysroot ? sysroot : "";
	char *rooted;
	bool found;

	while (!strchr(name, '/') && dirs && *dirs) {
		size_t len = strcspn(dirs, ":");
		char *candidate = xasprintf("%s%.*s/%s", root, (int)len, dirs, name);

		found = len && access(candidate, X_OK) == 0 && realpath(candidate, path);
		free(candidate);
		if (found)
			return true;
		dirs += len + (dirs[len] == ':');
	}
	/* Under a sysroot, a relative NAME is the target's, from its root. */
	rooted = sysroot ? xasprintf("%s/%s", sysroot, name) : xstrdup(name);
	found = realpath(rooted, path) != NULL;
	free(rooted);
	return found;
}

bool find_executable(const char *name, char *path)
{
	return find_executable_in(NULL, NULL, name, path);
}

/* A file's path on the target: under --sysroot, without it. */
static const char *target_file_path(const struct provider_env *env, const char *host_path)
{
	size_t len = env->sysroot ? strlen(env->sysroot) : 0;

	if (len && !strncmp(host_path, env->sysroot, len) && host_path[len] == '/')
		return host_path + len;
	return host_path;
}

/* process("PATH").function("f")'s text as pp() shows it, with PATH made absolute. */
static char *process_point_text(const struct probe_point *point, const char *path,
				const char *name)
{
	struct strbuf sb = { 0 };

	sb_addf(&sb, "process(\"%s\").function(\"%s\")", path, name);
	for (const struct component *c = point->components->next->next; c; c = c->next)
		sb_addf(&sb, ".%s", c->name);
	add_marks(&sb, point);
	return sb_steal(&sb);
}

static void add_uprobe_point(const struct probe_point *point, const char *path,
			     const struct ufunc *f, enum provider_kind kind,
			     struct derived_point ***tail)
{
	struct derived_point *d = derived_point_new(kind, point);

	free(d->pp);
	d->pp = process_point_text(point, path, f->name);
	/* Placed at a link-time address, as stap places points from DWARF: its -p2 shows
	 * the point placed as its origin, not the point written. */
	d->pc = f->vaddr;
	free(d->origin);
	d->origin = xstrdup(d->pp);
	free(d->function);
	d->function = xstrdup(f->name);
	d->symbol = xstrdup(path);
	d->offset = f->offset;
	free(d->comment);
	d->comment = xasprintf(" /* pc=.absolute+0x%llx */", f->offset);
	add_derived_point(tail, d);
}

/* .call or .return after function("f"), or nothing; false after an error. */
static bool read_suffix(const struct probe_point *point, const struct component *func,
			enum provider_kind *kind)
{
	const struct component *comp = func->next;

	*kind = PROVIDER_UPROBE;
	if (comp && !comp->arg && !strcmp(comp->name, "call")) {
		comp = comp->next;
	} else if (comp && !comp->arg && !strcmp(comp->name, "return")) {
		*kind = PROVIDER_URETPROBE;
		comp = comp->next;
	}
	if (comp) {
		provider_invalid_suffix(point, comp);
		return false;
	}
	return true;
}

/* stap's "no match" of a marker, with the nearest five of the markers of the providers that
 * fit (stap's, at any distance): "similar marks"; plain without such a provider. */
static void mark_no_match(const struct probe_point *point, const char *provider_pattern,
			  const char *pattern, const struct umark *marks, size_t count)
{
	const char **names = xcalloc(count + 1, sizeof(*names));
	size_t distinct = 0;
	char *similar;

	for (size_t i = 0; i < count; i++) {
		size_t j = 0;

		if (fnmatch(provider_pattern, marks[i].provider, 0))
			continue;
		while (j < distinct && strcmp(names[j], marks[i].name))
			j++;
		if (j == distinct)
			names[distinct++] = marks[i].name;
	}
	similar = similar_names_within(pattern, names, distinct, 1000);
	provider_no_match(point, similar, "mark", "marks");
	free(similar);
	free(names);
}

static void add_mark_point(const struct probe_point *point, const char *path,
			   const struct umark *m, bool with_provider, struct derived_point ***tail)
{
	struct derived_point *d = derived_point_new(PROVIDER_UMARK, point);
	struct strbuf sb = { 0 };

	/* As stap: pp() and -p2 name the marker's place, -l the marker. */
	sb_addf(&sb, "process(\"%s\").statement(0x%llx)", path, m->vaddr);
	add_marks(&sb, point);
	free(d->pp);
	d->pp = sb_steal(&sb);
	free(d->origin);
	d->origin = xstrdup(d->pp);
	sb_addf(&sb, "process(\"%s\")", path);
	if (with_provider)
		sb_addf(&sb, ".provider(\"%s\")", m->provider);
	sb_addf(&sb, ".mark(\"%s\")", m->name);
	d->listed = sb_steal(&sb);
	d->pc = m->vaddr;
	free(d->function);
	d->function = xstrdup(m->name);
	free(d->module);
	d->module = xstrdup(m->provider);
	d->symbol = xstrdup(path);
	d->offset = m->offset;
	d->semaphore = m->semaphore;
	d->mark_args = xstrdup(m->args);
	free(d->comment);
	d->comment = xasprintf(" /* pc=.absolute+0x%llx */", m->offset);
	add_derived_point(tail, d);
}

/* process("PATH")[.provider("P")].mark("NAME"), `mark` the mark component, `provider`
 * the provider's or NULL: the file's SDT markers that fit. */
static bool derive_marks(const struct probe_point *point, const struct provider_env *env,
			 const char *written, const struct component *provider,
			 const struct component *mark, struct derived_point ***tail)
{
	const char *pattern = component_string(mark);
	const char *provider_pattern = provider ? component_string(provider) : "*";
	char path[PATH_MAX];
	struct umark *marks;
	size_t count = 0, matched = 0;

	if (mark->next) {
		provider_invalid_suffix(point, mark->next);
		return false;
	}
	marks = find_executable_in(env->sysroot, env->target_path, written, path) ?
		usyms_marks(path, &count) : NULL;
	if (!count) {
		provider_refuse(point, "no match");
		usyms_free_marks(marks, count);
		return false;
	}
	for (size_t i = 0; i < count; i++) {
		if (fnmatch(provider_pattern, marks[i].provider, 0) ||
		    fnmatch(pattern, marks[i].name, 0))
			continue;
		add_mark_point(point, target_file_path(env, path), &marks[i], provider != NULL,
			       tail);
		matched++;
	}
	if (!matched)
		mark_no_match(point, provider_pattern, pattern, marks, count);
	else if (!usyms_has_dwarf(path))	/* as stap, of a file with a match */
		diag_warning_once("cannot find module %s debuginfo: No DWARF information found"
				  " [man warning::debuginfo]", path);
	usyms_free_marks(marks, count);
	return matched > 0;
}

static bool derive_process(const struct probe_point *point, const struct provider_env *env,
			   struct derived_point ***tail)
{
	const struct component *first = point->components, *func = first->next;
	const char *written = component_string(first), *pattern;
	char path[PATH_MAX];
	enum provider_kind kind;
	struct ufunc *funcs;
	size_t count, matched = 0;
	int64_t pid = 0;

	if (first->arg && !written && !component_number(first, &pid)) {
		provider_mismatch(point, first, NULL);
		return false;
	}
	/* begin, end, thread.*, syscall[.return]: process_events.c's. */
	if (process_event_component(func))
		return derive_process_event(point, func, written, pid, tail);
	if (first->arg && !written) {
		provider_mismatch(point, first, NULL);
		return false;
	}
	if (func && !strcmp(func->name, "provider") && component_string(func) && written) {
		const struct component *mark = func->next;

		if (!mark) {
			provider_truncated(point, func, "mark(string)");
			return false;
		}
		if (strcmp(mark->name, "mark") || !component_string(mark)) {
			provider_mismatch(point, mark, (const char *const[]){ "mark", NULL });
			return false;
		}
		return derive_marks(point, env, written, func, mark, tail);
	}
	if (func && !strcmp(func->name, "mark") && component_string(func) && written)
		return derive_marks(point, env, written, NULL, func, tail);
	if (func && (strcmp(func->name, "function") || !component_string(func))) {
		provider_mismatch(point, func, process_names);
		return false;
	}
	if (!written) {
		provider_refuse(point, "unspecified process probe is invalid without a -c COMMAND"
				" or -x PID [man stapprobes]");
		return false;
	}
	if (!func) {
		provider_truncated(point, first, "function(string)");
		return false;
	}
	if (strcmp(func->name, "function") || !component_string(func)) {
		provider_mismatch(point, func, process_names);
		return false;
	}
	if (!read_suffix(point, func, &kind))
		return false;
	pattern = component_string(func);
	/* stap takes the file by its absolute path, and says "no match" of one it cannot
	 * read as an ELF file. */
	funcs = find_executable_in(env->sysroot, env->target_path, written, path) ?
		usyms_functions(path, &count) : NULL;
	if (!funcs) {
		provider_refuse(point, "no match");
		return false;
	}
	/* Its symbol table serves where stap would have looked for DWARF, of which it
	 * warns. */
	if (!usyms_has_dwarf(path))
		diag_warning_once("cannot find module %s debuginfo: No DWARF information found"
				  " [man warning::debuginfo]", path);
	for (size_t i = 0; i < count; i++) {
		if (fnmatch(pattern, funcs[i].name, 0))
			continue;
		add_uprobe_point(point, target_file_path(env, path), &funcs[i], kind, tail);
		matched++;
	}
	if (!matched)
		process_no_match(point, pattern, funcs, count);
	usyms_free_functions(funcs, count);
	return matched > 0;
}

static const struct probe_type process_types[] = {
	{ "process.begin", true },
	{ "process.end", true },
	{ "process.syscall", true },
	{ "process.syscall.return", true },
	{ "process.thread.begin", true },
	{ "process.thread.end", true },
	{ "process(number).begin", true },
	{ "process(number).end", true },
	{ "process(number).syscall", true },
	{ "process(number).syscall.return", true },
	{ "process(number).thread.begin", true },
	{ "process(number).thread.end", true },
	{ "process(string).begin", true },
	{ "process(string).end", true },
	{ "process(string).syscall", true },
	{ "process(string).syscall.return", true },
	{ "process(string).thread.begin", true },
	{ "process(string).thread.end", true },
	{ "process(string).function(string)", true },
	{ "process(string).function(string).call", true },
	{ "process(string).function(string).return", true },
	{ "process(string).mark(string)", true },
	{ "process(string).provider(string).mark(string)", true },
	{ NULL, false },
};

const struct provider provider_process = {
	.name = "process", .derive = derive_process, .types = process_types,
};

/* ---- Pass 3: a handler each, and the table tap_uprobes[] (runtime/uprobes.h) ---- */

/*
 * A probe with @perf (p->perf_reads, target_perf.c): the uprobe's handler reads the
 * counters first, preemptible (runtime/perf.h's tap_perf_read() may sleep), then runs the
 * usual handler (tap_uprobe_N_run(), written before), whose body finds the values at
 * c->point_data.
 */
static void perf_read_handler(struct emit_ctx *ctx, const struct derived_probe *p, int pp,
				  bool ret)
{
	if (ret)
		sb_addf(ctx->points, "static int tap_uprobe_%d(struct uprobe_consumer *uc,"
			" unsigned long func, struct pt_regs *regs)\n{\n", pp);
	else
		sb_addf(ctx->points, "static int tap_uprobe_%d(struct uprobe_consumer *uc,"
			" struct pt_regs *regs)\n{\n", pp);
	sb_addf(ctx->points, "\ts64 perf[%d];\n\n", p->nperf_reads);
	for (int i = 0; i < p->nperf_reads; i++) {
		char *name = ctx->c_string(p->perf_reads[i]);

		sb_addf(ctx->points, "\tperf[%d] = tap_perf_read(%s);\n", i, name);
		free(name);
	}
	sb_addf(ctx->points, "\treturn tap_uprobe_%d_run(uc, %sregs, perf);\n}\n\n", pp,
		ret ? "func, " : "");
}

static void uprobes_point(struct emit_ctx *ctx, void *state, const struct derived_probe *p,
			  const struct derived_point *d, int pp)
{
	struct emit_one_table *s = state;
	bool ret = d->kind == PROVIDER_URETPROBE;
	char *descriptor = xasprintf("&tap_pp_%d", pp);
	char *path = ctx->c_string(d->symbol);

	/* The handler runs in the task, preemptible (emit_enter()). */
	if (ret)
		sb_addf(ctx->points, "static int tap_uprobe_%d%s(struct uprobe_consumer *uc,"
			" unsigned long func, struct pt_regs *regs%s)\n{\n", pp,
			p->nperf_reads ? "_run" : "", p->nperf_reads ? ", const s64 *perf" : "");
	else
		sb_addf(ctx->points, "static int tap_uprobe_%d%s(struct uprobe_consumer *uc,"
			" struct pt_regs *regs%s)\n{\n", pp, p->nperf_reads ? "_run" : "",
			p->nperf_reads ? ", const s64 *perf" : "");
	emit_handler(ctx, p->index, &(struct handler_text){
		descriptor, "", false, p->nperf_reads ? "\t\tc->point_data = (void *)perf;\n" : "",
		"", "\treturn 0;\n}\n\n", true, NULL });
	if (p->nperf_reads)
		perf_read_handler(ctx, p, pp, ret);
	sb_addf(&s->entries, "\t{ .uc = { .%s = tap_uprobe_%d }, .pp = &tap_pp_%d, .path = %s,"
		" .offset = 0x%llx, .ref_ctr_offset = 0x%llx },\n", ret ? "ret_handler" : "handler",
		pp, pp, path, (unsigned long long)d->offset, (unsigned long long)d->semaphore);
	s->count++;
	free(descriptor);
	free(path);
}

static const char *uprobes_type_name(const struct derived_point *d)
{
	return d->kind == PROVIDER_URETPROBE ? "uretprobe" : "uprobe";
}

const struct point_emitter emitter_uprobes = {
	.kinds = 1u << PROVIDER_UPROBE | 1u << PROVIDER_URETPROBE | 1u << PROVIDER_UMARK,
	.type_name = uprobes_type_name,
	.state_size = sizeof(struct emit_one_table),
	.runtime_header = "uprobes.h",
	.point = uprobes_point,
	.count_macro = "TAP_NUM_UPROBES",
	.table_decl = "static struct tap_uprobe tap_uprobes",
};
