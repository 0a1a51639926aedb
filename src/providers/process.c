// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * process("PATH").function("f") [.call] and process("PATH").function("f").return: a uprobe
 * or a uretprobe on the user-space function f of the ELF file PATH, in every process that
 * runs it. f may be a wildcard; the functions are the file's symbol table's
 * (target/usyms.h), each probed at its offset in the file, which the kernel's uprobes take
 * with the file's inode (runtime/uprobes.h). With the file's DWARF, the forms kernel.function
 * and kernel.statement have (f@FILE[:LINES], .inline, .statement("f@FILE:LINES")) come from
 * the kernel's derivation (dwarf_points.h: derive_dwarf_user_function(), ..._statement()).
 * .function("f").exported keeps those points keep_functions() keeps; .statement(ADDR) is a
 * uprobe at a link-time address its DWARF places (derive_process_address()).
 */
#include "providers/dwarf_points.h"
#include "providers/emit.h"
#include "providers/function_point.h"
#include "providers/process.h"
#include "providers/providers.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "target/dwtypes.h"
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

/* Where the functions of one file are found, and how the points show them. */
struct function_file {
	const char *path;	/* the host's */
	const char *exe;	/* the process's file, the target's */
	const char *library;	/* the library component as shown, or NULL */
};

/* Whether a component after function("f") names what is looked for in f (.label, .callee,
 * .callees): stap's points of functions it finds no DWARF for show it in their origin only. */
static bool is_inner_component(const struct component *comp)
{
	return !strcmp(comp->name, "label") || !strcmp(comp->name, "callee") ||
	       !strcmp(comp->name, "callees");
}

/* A function point's text: process("FILE").function("f") and the components after
 * function("f") (.call, .return; with `origin` .label("L"), .callees(N) too), with the
 * point's marks. */
static char *function_point_text(const struct probe_point *point, const char *file,
				 const char *library, const char *name, bool origin)
{
	const struct component *func = point->components->next;
	struct strbuf sb = { 0 };

	if (!strcmp(func->name, "library"))
		func = func->next;
	sb_addf(&sb, "process(\"%s\")", file);
	if (library)
		sb_addf(&sb, ".library(\"%s\")", library);
	sb_addf(&sb, ".function(\"%s\")", name);
	for (const struct component *c = func->next; c; c = c->next) {
		int64_t n;

		if (!origin && is_inner_component(c))
			continue;
		sb_addf(&sb, ".%s", c->name);
		if (component_string(c))
			sb_addf(&sb, "(\"%s\")", component_string(c));
		else if (component_number(c, &n))
			sb_addf(&sb, "(%" PRId64 ")", n);
	}
	add_marks(&sb, point);
	return sb_steal(&sb);
}

/* The DWARF of the file `path`, or NULL. */
static struct dwtypes *user_dwarf(const struct provider_env *env, const char *path)
{
	const struct ktypes *kt = env->user_types ? env->user_types(env->ctx, path) : NULL;

	return kt ? ktypes_dwarf(kt) : NULL;
}

/* A function as stap names it: "f@FILE:LINE" where the file's DWARF has it, else "f". */
static char *dwarf_function_name(struct dwtypes *dt, const char *function)
{
	char *place = dt ? dwtypes_function_place(dt, function) : NULL;
	char *name = place ? xasprintf("%s@%s", function, place) : xstrdup(function);

	free(place);
	return name;
}

/* An entry point placed as stap places it in unoptimised code with DWARF (and in any with
 * --prologue-searching=always; never with =never): past the function's prologue, its
 * variables then read from their DWARF locations there. */
static void place_after_prologue(const struct provider_env *env, struct dwtypes *dt,
				 struct derived_point *d, const struct ufunc *f)
{
	Dwarf_Addr pc = dt && d->kind == PROVIDER_UPROBE && env->prologue != PROLOGUE_NEVER ?
			dwtypes_post_prologue(dt, f->name, env->prologue == PROLOGUE_ALWAYS) : 0;
	ktype_id fn = pc ? ktypes_function(dwtypes_types(dt), f->name) : 0;

	if (!fn || pc <= f->vaddr)
		return;
	d->pc = pc;
	d->offset = f->offset + (pc - f->vaddr);
	d->mid_function = true;
	d->scope_die = fn;
}

static void add_uprobe_point(const struct probe_point *point, const struct provider_env *env,
			     const struct function_file *file, bool dynamic, const struct ufunc *f,
			     enum provider_kind kind, struct derived_point ***tail)
{
	struct derived_point *d = derived_point_new(kind, point);
	const char *target = target_file_path(env, file->path);
	struct dwtypes *dt = user_dwarf(env, file->path);
	char *name = dwarf_function_name(dt, f->name);

	free(d->pp);
	d->pp = function_point_text(point, target, NULL, name, false);
	/* Placed at a link-time address, as stap places points from DWARF: its -p2 shows
	 * the point placed as its origin (from the process, with its library), not the
	 * point written. */
	d->pc = f->vaddr;
	free(d->origin);
	d->origin = function_point_text(point, file->library ? file->exe : target, file->library,
					name, true);
	if (file->library) {
		free(d->listed);
		d->listed = xstrdup(d->origin);
	}
	free(name);
	free(d->function);
	d->function = xstrdup(f->name);
	d->symbol = xstrdup(target);
	d->user_file = xstrdup(file->path);
	d->offset = f->offset;
	place_after_prologue(env, dt, d, f);
	free(d->comment);
	d->comment = dynamic ? xasprintf(" /* pc=.dynamic+0x%llx */", (unsigned long long)d->pc) :
			       xasprintf(" /* pc=.absolute+0x%llx */", (unsigned long long)d->offset);
	add_derived_point(tail, d);
}

static bool is_callees(const struct component *comp)
{
	return comp && ((!strcmp(comp->name, "callee") && component_string(comp)) ||
			(!strcmp(comp->name, "callees") && !component_string(comp)));
}

/* .callee("g"), .callees or .callees(N) into q; false after stap's error for N < 1. */
static bool read_callees(const struct probe_point *point, const struct provider_env *env,
			 const struct component *comp, struct dw_function_query *q)
{
	struct token_desc probe_keyword = { "keyword", NULL };

	q->which = DW_CALLEES;
	q->depth = 1;
	q->callee = component_string(comp);
	component_number(comp, &q->depth);
	if (q->depth >= 1)
		return true;
	provider_resolving(point);
	diag_continue();
	diag_error_at("semantic error", &probe_keyword, env->probe_loc,
		      ".callees(N) only acceptable for N >= 1");
	return false;
}

/* .call, .exported, .inline, .return, .label("L"), .callee("g") or .callees[(N)] after
 * function("f"), or nothing; false after an error. */
static bool read_suffix(const struct probe_point *point, const struct provider_env *env,
			const struct component *func, struct dw_function_query *q)
{
	const struct component *comp = func->next;

	*q = (struct dw_function_query){ .which = DW_ALL };
	if (is_callees(comp)) {
		if (!read_callees(point, env, comp, q))
			return false;
		comp = comp->next;
		/* .callee("g").call and .callee("g").return (not after .callees, as stap). */
		if (q->callee && comp && !comp->arg &&
		    (!strcmp(comp->name, "call") || !strcmp(comp->name, "return"))) {
			q->callee_suffix = comp;
			q->callee_return = !strcmp(comp->name, "return");
			comp = comp->next;
		}
	} else if (comp && !strcmp(comp->name, "label") && component_string(comp)) {
		q->which = DW_LABEL;
		q->label = component_string(comp);
		comp = comp->next;
	} else if (comp && !comp->arg && !strcmp(comp->name, "call")) {
		q->which = DW_CALL;
		comp = comp->next;
	} else if (comp && !comp->arg && !strcmp(comp->name, "inline")) {
		q->which = DW_INLINE;
		comp = comp->next;
	} else if (comp && !comp->arg && !strcmp(comp->name, "return")) {
		q->which = DW_RETURN;
		comp = comp->next;
	} else if (comp && !comp->arg && !strcmp(comp->name, "exported")) {
		q->which = DW_EXPORTED;
		comp = comp->next;
	}
	if (comp) {
		provider_invalid_suffix(point, comp);
		return false;
	}
	return true;
}

/* stap's warning for an ELF file without DWARF where a point looks for it (once a file). */
static void warn_no_dwarf(const char *path)
{
	if (!usyms_has_dwarf(path))
		diag_warning_once("cannot find module %s debuginfo: No DWARF information found"
				  " [man warning::debuginfo]", path);
}

/* The points of `file`'s DWARF that the function point's query `q` takes (the sites of a
 * f@FILE pattern, the inlined instances): how many. */
static size_t file_dwarf_functions(const struct probe_point *point,
				   const struct provider_env *env, const struct function_file *file,
				   const struct component *func, const struct dw_function_query *q,
				   struct derived_point ***tail)
{
	struct dw_user_file user = { file->path, target_file_path(env, file->path), file->exe,
				     file->library, usyms_is_dynamic(file->path),
				     user_dwarf(env, file->path) };

	return derive_dwarf_user_function(point, func, q, env, &user, tail);
}

/* The symbols of `funcs` (count of them) that fit `pattern`, as points: how many. */
static size_t symbol_functions(const struct probe_point *point, const struct provider_env *env,
			       const struct function_file *file, const char *pattern,
			       const struct ufunc *funcs, size_t count, enum provider_kind kind,
			       struct derived_point ***tail)
{
	bool dynamic = usyms_is_dynamic(file->path);
	size_t matched = 0;
	struct ufunc named;

	for (size_t i = 0; i < count; i++) {
		if (fnmatch(pattern, funcs[i].name, 0))
			continue;
		add_uprobe_point(point, env, file, dynamic, &funcs[i], kind, tail);
		matched++;
	}
	if (!matched && !strpbrk(pattern, "*?[") &&
	    usyms_function_named(file->path, pattern, &named)) {
		add_uprobe_point(point, env, file, dynamic, &named, kind, tail);
		free(named.name);
		matched++;
	}
	return matched;
}

/*
 * Of the points from *from on, those of functions the file's DWARF lacks (its symbol
 * table's only) and, with `exported`, those whose symbol is a global or weak function (as
 * stap keeps .exported's); how many are kept.
 */
static size_t keep_functions(const struct provider_env *env, const struct function_file *file,
			     bool exported, struct derived_point **from,
			     struct derived_point ***tail)
{
	struct dwtypes *dt = user_dwarf(env, file->path);
	struct derived_point *d = *from;
	size_t kept = 0;

	*tail = from;
	**tail = NULL;
	for (struct derived_point *next; d; d = next) {
		char *place = dt ? dwtypes_function_place(dt, d->function) : NULL;

		next = d->next;
		d->next = NULL;
		if (!place || (exported && usyms_function_exported(file->path, d->function))) {
			add_derived_point(tail, d);
			kept++;
		}
		free(place);
	}
	return kept;
}

/* The functions of `file` that fit: how many points were added. A f@FILE pattern and
 * .inline take the file's DWARF's sites (as kernel.function); a plain name its symbols
 * (with their DWARF names and places), then the instances the DWARF has of its inlined
 * copies unless .call or .return. With `no_match`, none is stap's error ("no match", with
 * the similar functions of an ELF file). .exported keeps those keep_functions() does;
 * .label and .callee(s) are the DWARF's (a function without DWARF at its entry, as stap). */
static size_t file_functions(const struct probe_point *point, const struct provider_env *env,
			     const struct function_file *file, const struct component *func,
			     const struct dw_function_query *q, bool no_match,
			     struct derived_point ***tail)
{
	const char *spec = component_string(func);
	char *pattern = xstrndup(spec, strcspn(spec, "@"));
	size_t count = 0, matched = 0;
	struct derived_point **from = *tail;
	/* stap says "no match" of a file it cannot read as an ELF file. */
	struct ufunc *funcs = *file->path ? usyms_functions(file->path, &count) : NULL;

	if (!funcs) {
		if (no_match)
			provider_refuse(point, "no match");
		free(pattern);
		return 0;
	}
	/* Its symbol table serves where stap would have looked for DWARF, of which it
	 * warns. */
	warn_no_dwarf(file->path);
	if (q->which == DW_LABEL || q->which == DW_CALLEES) {
		/* The labels or callees of the file's DWARF; a function it lacks is probed at
		 * its entry, as stap probes it (then the symbols of the DWARF's functions are
		 * dropped). */
		matched = file_dwarf_functions(point, env, file, func, q, tail);
		if (!strchr(spec, '@')) {
			struct derived_point **symbols = *tail;

			symbol_functions(point, env, file, pattern, funcs, count,
					 q->callee_return ? PROVIDER_URETPROBE : PROVIDER_UPROBE,
					 tail);
			matched += keep_functions(env, file, false, symbols, tail);
		}
	} else if (strchr(spec, '@') || q->which == DW_INLINE) {
		matched = file_dwarf_functions(point, env, file, func,
					       q->which == DW_EXPORTED ?
					       &(struct dw_function_query){ .which = DW_CALL } : q,
					       tail);
	} else {
		matched = symbol_functions(point, env, file, pattern, funcs, count,
					   q->which == DW_RETURN ? PROVIDER_URETPROBE :
								   PROVIDER_UPROBE, tail);
		/* Its inlined instances; for a .return, stap's warning when they are all
		 * there is. */
		if (q->which == DW_ALL || (q->which == DW_RETURN && !matched))
			matched += file_dwarf_functions(point, env, file, func,
							&(struct dw_function_query){
								.which = q->which == DW_ALL ?
									 DW_INLINE : DW_RETURN },
							tail);
	}
	if (q->which == DW_EXPORTED)
		matched = keep_functions(env, file, true, from, tail);
	if (!matched && no_match)
		process_no_match(point, pattern, funcs, count);
	usyms_free_functions(funcs, count);
	free(pattern);
	return matched;
}

/* process(...)[.library("LIB")].function("f")[.call|.exported|.inline|.return]: the functions of the
 * process's file, or of the libraries LIB names. */
static bool derive_functions(const struct probe_point *point, const struct provider_env *env,
			     const struct component *library, const struct component *func,
			     struct derived_point ***tail)
{
	char exe[PATH_MAX];
	struct dw_function_query q;
	struct process_library *libs = NULL, only = { exe, NULL, true };
	size_t nlibs = 1;
	size_t matched = 0;

	if (!read_suffix(point, env, func, &q) || !process_file(point, env, exe))
		return false;
	if (library && !process_libraries(point, exe, library, &libs, &nlibs))
		return false;
	for (size_t i = 0; i < nlibs; i++) {
		const struct process_library *lib = library ? &libs[i] : &only;
		struct function_file file = { lib->path, target_file_path(env, exe),
					      library ? lib->shown : NULL };

		matched += file_functions(point, env, &file, func, &q,
					  !library || (nlibs == 1 && libs[0].named), tail);
	}
	if (library && !matched && !(nlibs == 1 && libs[0].named))
		provider_refuse(point, "no match");
	if (library)
		process_free_libraries(libs, nlibs);
	return matched > 0;
}

/* What file_statements() is asked for. */
struct statement_query {
	const struct provider_env *env;
	const struct component *stmt;
};

/* The statements of one file (the process's, or a library's) that fit, from its DWARF, as
 * kernel.statement's: how many. */
static size_t file_statements(const struct probe_point *point,
			      const struct process_target_file *file, bool no_match, void *ctx,
			      struct derived_point ***tail)
{
	const struct statement_query *query = ctx;
	const struct provider_env *env = query->env;
	const struct component *stmt = query->stmt;
	struct dw_user_file user = { file->path, file->target, file->exe, file->library,
				     file->dynamic, *file->path ? user_dwarf(env, file->path) :
								  NULL };
	size_t taken;

	if (*file->path && usyms_check_file(file->path))
		warn_no_dwarf(file->path);
	taken = derive_dwarf_user_statement(point, stmt, env, &user, tail);

	if (!taken && no_match)
		provider_refuse(point, "no match");
	return taken;
}

/* process(...)[.library("LIB")].statement("f@FILE:LINES"): uprobes at the lines' addresses
 * (":N", ":N-M", ":*", "+N"; f and FILE globs) in the functions of the process's file or
 * the libraries LIB names, from their DWARF; the variables are their locations there. */
static bool derive_process_statement(const struct probe_point *point,
				     const struct provider_env *env,
				     const struct component *library,
				     const struct component *stmt, struct derived_point ***tail)
{
	struct statement_query query = { env, stmt };

	if (stmt->next) {
		provider_invalid_suffix(point, stmt->next);
		return false;
	}
	return process_each_file(point, env, library, file_statements, &query, tail);
}

/* A statement(ADDR) point's text: process("FILE")[.library("LIB")].statement(0xADDR),
 * then `suffix` ("" or ".nearest"), with the point's marks. */
static char *address_point_text(const struct probe_point *point, const char *file,
				const char *library, unsigned long long address,
				const char *suffix)
{
	struct strbuf sb = { 0 };

	sb_addf(&sb, "process(\"%s\")", file);
	if (library)
		sb_addf(&sb, ".library(\"%s\")", library);
	sb_addf(&sb, ".statement(0x%llx)%s", address, suffix);
	add_marks(&sb, point);
	return sb_steal(&sb);
}

/* .nearest after statement(ADDR), or nothing; .absolute is stap's error of process(PID)
 * (inode uprobes have no absolute points) and an invalid suffix elsewhere. */
static bool read_address_suffix(const struct probe_point *point, const struct component *stmt,
				bool *nearest)
{
	const struct component *comp = stmt->next;

	*nearest = comp && !comp->arg && !strcmp(comp->name, "nearest");
	if (*nearest)
		comp = comp->next;
	if (!*nearest && comp && !comp->arg && !strcmp(comp->name, "absolute") &&
	    point->components->arg && !component_string(point->components)) {
		provider_refuse(point, "absolute process probes not available"
			       " [man error::inode-uprobes]");
		return false;
	}
	if (comp) {
		provider_invalid_suffix(point, comp);
		return false;
	}
	return true;
}

/* What file_address() is asked for. */
struct address_query {
	const struct provider_env *env;
	unsigned long long address;
	bool nearest;
};

/*
 * process(...)[.library("LIB")].statement(ADDR)[.nearest], of one file (the process's or a
 * library's): a uprobe at the link-time address ADDR of the file, which its DWARF must
 * place in a function; as stap, ADDR must begin a line-table row ("try" the row's start),
 * which -g lets pass with a warning. The variables are those the DWARF has there. How many
 * points (0 or 1).
 */
static size_t file_address(const struct probe_point *point,
			   const struct process_target_file *file, bool no_match, void *ctx,
			   struct derived_point ***tail)
{
	const struct address_query *query = ctx;
	unsigned long long address = query->address, offset;
	struct dwtypes *dt = NULL;
	struct dwstatement at;
	struct derived_point *d;

	if (*file->path && usyms_check_file(file->path))
		warn_no_dwarf(file->path);
	if (*file->path)
		dt = user_dwarf(query->env, file->path);
	if (!dt || !dwtypes_statement_at(dt, (Dwarf_Addr)address, &at) ||
	    !usyms_file_offset(file->path, address, &offset)) {
		if (no_match)
			provider_refuse(point, "no match");
		return 0;
	}
	/* Literal formats: diag tells errors apart by theirs. */
	if (at.row != (Dwarf_Addr)address && query->env->guru) {
		diag_warning("address 0x%llx does not match the beginning of a statement"
			     " (try 0x%llx)", address, (unsigned long long)at.row);
	} else if (at.row != (Dwarf_Addr)address) {
		diag_error("semantic error", "address 0x%llx does not match the beginning of a"
			   " statement (try 0x%llx)\n", address, (unsigned long long)at.row);
		if (no_match)
			provider_refuse(point, "no match");
		return 0;
	}
	d = derived_point_new(PROVIDER_UPROBE, point);
	free(d->pp);
	d->pp = address_point_text(point, file->target, NULL, address, "");
	free(d->origin);
	d->origin = address_point_text(point, file->library ? file->exe : file->target,
				       file->library, address, query->nearest ? ".nearest" : "");
	if (file->library) {
		free(d->listed);
		d->listed = xstrdup(d->origin);
	}
	free(d->function);
	d->function = xstrdup(at.function ? at.function : "");
	d->symbol = xstrdup(file->target);
	d->user_file = xstrdup(file->path);
	d->pc = address;
	d->offset = offset;
	d->scope_die = at.scope;
	d->mid_function = true;
	free(d->comment);
	d->comment = xasprintf(" /* pc=%s+0x%llx */", file->dynamic ? ".dynamic" : ".absolute",
			       file->dynamic ? address : offset);
	add_derived_point(tail, d);
	return 1;
}

static bool derive_process_address(const struct probe_point *point,
				   const struct provider_env *env,
				   const struct component *library, const struct component *stmt,
				   struct derived_point ***tail)
{
	int64_t address = 0;
	struct address_query query = { env, 0, false };

	component_number(stmt, &address);
	query.address = (unsigned long long)address;
	if (!read_address_suffix(point, stmt, &query.nearest))
		return false;
	return process_each_file(point, env, library, file_address, &query, tail);
}

/* The components stap knows after process(PID) (no library), and after a bare process
 * (no insn). */
static const char *const pid_names[] = { "begin", "end", "function", "insn", "mark", "plt",
					 "provider", "statement", "syscall", "thread", NULL };
static const char *const bare_names[] = { "begin", "end", "function", "library", "mark",
					  "plt", "provider", "statement", "syscall", "thread",
					  NULL };

/* What stap says may follow process(...) when nothing does. */
static const char *truncated_follow(const char *written, bool pid)
{
	if (written)
		return "begin end function(number) function(string) insn library(string)"
		       " mark(string) plt plt(string) provider(string) statement(number)"
		       " statement(string) syscall thread";
	if (pid)
		return "begin end function(number) function(string) insn mark(string) plt"
		       " plt(string) provider(string) statement(number) statement(string)"
		       " syscall thread";
	return "begin end function(number) function(string) library(string) mark(string) plt"
	       " plt(string) provider(string) statement(number) statement(string) syscall"
	       " thread";
}

static bool is_string_component(const struct component *comp, const char *name)
{
	return comp && !strcmp(comp->name, name) && component_string(comp);
}

/* process(PID) in the bundled VM: the PID is a host's process (stap's meaning, and what
 * -p2 resolves), which the guest's kernel does not see; refused as -x PID is. */
static void vm_pid_refused(const struct probe_point *point, int64_t pid)
{
	char *reason = xasprintf("cannot probe pid %" PRId64 ": process(PID) names a process of"
				 " this host; the bundled VM's kernel sees only its own processes"
				 " (start the program in it with -c CMD, and probe"
				 " process(\"PATH\") or a bare process)", pid);

	provider_refuse(point, reason);
	free(reason);
}

static bool derive_process(const struct probe_point *point, const struct provider_env *env,
			   struct derived_point ***tail)
{
	const struct component *first = point->components, *func = first->next;
	const struct component *library = NULL, *provider = NULL;
	const char *written = component_string(first);
	const char *const *names = written ? process_names : first->arg ? pid_names : bare_names;
	char exe[PATH_MAX];
	int64_t pid = 0;

	if (first->arg && !written && !component_number(first, &pid)) {
		provider_mismatch(point, first, NULL);
		return false;
	}
	if (first->arg && !written && env->vm_guest) {
		vm_pid_refused(point, pid);
		return false;
	}
	/* begin, end, thread.*, syscall[.return]: process_events.c's, of a PID that runs. */
	if (process_event_component(func))
		return (written || !first->arg || process_file(point, env, exe)) &&
		       derive_process_event(point, func, written, pid, tail);
	if (!func) {
		provider_truncated(point, first, truncated_follow(written, first->arg != NULL));
		return false;
	}
	if (is_string_component(func, "library") && names != pid_names) {
		library = func;
		func = func->next;
		if (!func) {
			provider_truncated(point, library, "function(number) function(string)"
					   " mark(string) plt plt(string) provider(string)"
					   " statement(number) statement(string)");
			return false;
		}
	}
	if (is_string_component(func, "provider")) {
		provider = func;
		func = func->next;
		if (!func) {
			provider_truncated(point, provider, "mark(string)");
			return false;
		}
		if (!is_string_component(func, "mark")) {
			provider_mismatch(point, func, (const char *const[]){ "mark", NULL });
			return false;
		}
	}
	if (is_string_component(func, "mark"))
		return derive_process_marks(point, env, library, provider, func, tail);
	if (is_string_component(func, "function"))
		return derive_functions(point, env, library, func, tail);
	if (is_string_component(func, "statement"))
		return derive_process_statement(point, env, library, func, tail);
	if (!provider && !strcmp(func->name, "statement") && func->arg)
		return derive_process_address(point, env, library, func, tail);
	if (!strcmp(func->name, "plt") && (!func->arg || component_string(func)))
		return derive_process_plt(point, env, library, func, tail);
	provider_mismatch(point, func, names);
	return false;
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
	{ "process.function(string)", true },
	{ "process.function(string).call", true },
	{ "process.function(string).exported", true },
	{ "process.function(string).return", true },
	{ "process.mark(string)", true },
	{ "process.provider(string).mark(string)", true },
	{ "process.library(string).function(string)", true },
	{ "process.library(string).function(string).call", true },
	{ "process.library(string).function(string).exported", true },
	{ "process.library(string).function(string).return", true },
	{ "process.library(string).mark(string)", true },
	{ "process.library(string).provider(string).mark(string)", true },
	{ "process(number).function(string)", true },
	{ "process(number).function(string).call", true },
	{ "process(number).function(string).exported", true },
	{ "process(number).function(string).return", true },
	{ "process(number).mark(string)", true },
	{ "process(number).provider(string).mark(string)", true },
	{ "process(string).function(string)", true },
	{ "process(string).statement(string)", true },
	{ "process(string).statement(number)", true },
	{ "process(string).statement(number).nearest", true },
	{ "process(string).library(string).statement(string)", true },
	{ "process(string).function(string).inline", true },
	{ "process(string).library(string).function(string).inline", true },
	{ "process.statement(string)", true },
	{ "process.statement(number)", true },
	{ "process.statement(number).nearest", true },
	{ "process.library(string).statement(string)", true },
	{ "process.function(string).inline", true },
	{ "process.library(string).function(string).inline", true },
	{ "process(number).statement(string)", true },
	{ "process(number).statement(number)", true },
	{ "process(number).statement(number).nearest", true },
	{ "process(number).function(string).inline", true },
	{ "process(string).function(string).call", true },
	{ "process(string).function(string).exported", true },
	{ "process(string).function(string).return", true },
	{ "process(string).mark(string)", true },
	{ "process(string).provider(string).mark(string)", true },
	{ "process(string).library(string).function(string)", true },
	{ "process(string).library(string).function(string).call", true },
	{ "process(string).library(string).function(string).exported", true },
	{ "process(string).library(string).function(string).return", true },
	{ "process(string).library(string).mark(string)", true },
	{ "process(string).library(string).provider(string).mark(string)", true },
	{ "process.plt", true },
	{ "process.plt.return", true },
	{ "process.plt(string)", true },
	{ "process.plt(string).return", true },
	{ "process.library(string).plt", true },
	{ "process.library(string).plt.return", true },
	{ "process.library(string).plt(string)", true },
	{ "process.library(string).plt(string).return", true },
	{ "process(number).plt", true },
	{ "process(number).plt.return", true },
	{ "process(number).plt(string)", true },
	{ "process(number).plt(string).return", true },
	{ "process(string).plt", true },
	{ "process(string).plt.return", true },
	{ "process(string).plt(string)", true },
	{ "process(string).plt(string).return", true },
	{ "process(string).library(string).plt", true },
	{ "process(string).library(string).plt.return", true },
	{ "process(string).library(string).plt(string)", true },
	{ "process(string).library(string).plt(string).return", true },
	{ "process.function(string).label(string)", true },
	{ "process.function(string).callee(string)", true },
	{ "process.function(string).callee(string).call", true },
	{ "process.function(string).callee(string).return", true },
	{ "process.function(string).callees", true },
	{ "process.function(string).callees(number)", true },
	{ "process.library(string).function(string).label(string)", true },
	{ "process.library(string).function(string).callee(string)", true },
	{ "process.library(string).function(string).callee(string).call", true },
	{ "process.library(string).function(string).callee(string).return", true },
	{ "process.library(string).function(string).callees", true },
	{ "process.library(string).function(string).callees(number)", true },
	{ "process(number).function(string).label(string)", true },
	{ "process(number).function(string).callee(string)", true },
	{ "process(number).function(string).callee(string).call", true },
	{ "process(number).function(string).callee(string).return", true },
	{ "process(number).function(string).callees", true },
	{ "process(number).function(string).callees(number)", true },
	{ "process(string).function(string).label(string)", true },
	{ "process(string).function(string).callee(string)", true },
	{ "process(string).function(string).callee(string).call", true },
	{ "process(string).function(string).callee(string).return", true },
	{ "process(string).function(string).callees", true },
	{ "process(string).function(string).callees(number)", true },
	{ "process(string).library(string).function(string).label(string)", true },
	{ "process(string).library(string).function(string).callee(string)", true },
	{ "process(string).library(string).function(string).callee(string).call", true },
	{ "process(string).library(string).function(string).callee(string).return", true },
	{ "process(string).library(string).function(string).callees", true },
	{ "process(string).library(string).function(string).callees(number)", true },
	{ "process.library(string).statement(number)", true },
	{ "process.library(string).statement(number).nearest", true },
	{ "process(string).library(string).statement(number)", true },
	{ "process(string).library(string).statement(number).nearest", true },
	{ NULL, false },
};

/* `point` with its process's path `path` in place of what is written. */
static struct probe_point *point_on_file(const struct probe_point *point, const char *path)
{
	struct probe_point *one = xcalloc(1, sizeof(*one));
	struct component *first = xcalloc(1, sizeof(*first));

	*one = *point;
	*first = *point->components;
	first->arg = node_new(N_STRING, point->components->arg->loc);
	first->arg->text = xstrdup(path);
	one->components = first;
	return one;
}

/*
 * process("/lib*\/libc.so*"): as stap, the point on each file the path globs, by its real
 * path; a file without what the point names is left out, and none is stap's "no match".
 */
static bool derive_process_globbed(const struct probe_point *point,
				   const struct provider_env *env, struct derived_point ***tail)
{
	struct process_library *files = NULL;
	size_t count = 0;
	bool any = false;

	if (!process_glob_files(point, component_string(point->components), &files, &count))
		return false;
	for (size_t i = 0; i < count; i++) {
		diag_quiet_begin();
		any |= derive_process(point_on_file(point, files[i].path), env, tail);
		diag_quiet_end();
	}
	process_free_libraries(files, count);
	if (!any)
		provider_refuse(point, "no match");
	return any;
}

/* The process the uprobes of the points from *first on fire in: process(PID)'s, or a bare
 * process's target (runtime/uprobes.h's tap_uprobe_sees()). */
static void limit_uprobes(const struct probe_point *point, struct derived_point *first)
{
	const struct component *process = point->components;
	int64_t pid = -1;

	if (process->arg && !component_number(process, &pid))
		return;
	for (struct derived_point *d = first; d; d = d->next)
		if (d->kind == PROVIDER_UPROBE || d->kind == PROVIDER_URETPROBE ||
		    d->kind == PROVIDER_UMARK)
			d->user_pid = pid;
}

static bool derive_process_point(const struct probe_point *point,
				 const struct provider_env *env, struct derived_point ***tail)
{
	const char *written = component_string(point->components);
	struct derived_point **first = *tail;

	if (written && strpbrk(written, "*?[") && !process_event_component(point->components->next))
		return derive_process_globbed(point, env, tail);
	if (!derive_process(point, env, tail))
		return false;
	limit_uprobes(point, *first);
	return true;
}

const struct provider provider_process = {
	.name = "process", .derive = derive_process_point, .types = process_types,
};

/* ---- Pass 3: a handler each, and the table tap_uprobes[] (runtime/uprobes.h) ---- */

/* A handler's first words when its point is limited to a process: other processes' hits
 * return before the context is taken. */
static void uprobe_filter(struct emit_ctx *ctx, const struct derived_point *d)
{
	if (d->user_pid)
		sb_add(ctx->points, "\tif (!tap_uprobe_sees(uc))\n\t\treturn 0;\n");
}

/* A callee's point (d->callers: .callee("g") of an out-of-line call) has the return
 * addresses it checks in a table of its own. */
static void callers_table(struct emit_ctx *ctx, const struct derived_point *d, int pp)
{
	if (!d->ncallers)
		return;
	sb_addf(ctx->points, "static const unsigned long tap_ucallers_%d[] = {", pp);
	for (int i = 0; i < d->ncallers; i++)
		sb_addf(ctx->points, " 0x%llxUL,", (unsigned long long)d->callers[i]);
	sb_add(ctx->points, " };\n\n");
}

/* Its handler returns first when the call is not from there (runtime/uprobes.h's
 * tap_ucallers_match()): `from` says where the handler is (the first return address),
 * `address` is the point's address in the process (the load bias from it). */
static void callers_filter(struct emit_ctx *ctx, const struct derived_point *d, int pp,
			   const char *from, const char *address)
{
	if (d->ncallers)
		sb_addf(ctx->points, "\tif (!tap_ucallers_match(regs, %s - 0x%llxUL, %s,"
			" tap_ucallers_%d, %d))\n\t\treturn 0;\n", address,
			(unsigned long long)d->pc, from, pp, d->ncallers);
}

/*
 * A probe with @perf (p->perf_reads, target_perf.c): the uprobe's handler reads the
 * counters first, preemptible (runtime/perf.h's tap_perf_read() may sleep), then runs the
 * usual handler (tap_uprobe_N_run(), written before), whose body finds the values at
 * c->point_data.
 */
static void perf_read_handler(struct emit_ctx *ctx, const struct derived_probe *p,
			      const struct derived_point *d, int pp, bool ret)
{
	if (ret)
		sb_addf(ctx->points, "static int tap_uprobe_%d(struct uprobe_consumer *uc,"
			" unsigned long func, struct pt_regs *regs)\n{\n", pp);
	else
		sb_addf(ctx->points, "static int tap_uprobe_%d(struct uprobe_consumer *uc,"
			" struct pt_regs *regs)\n{\n", pp);
	uprobe_filter(ctx, d);
	sb_addf(ctx->points, "\ts64 perf[%d];\n\n", p->nperf_reads);
	for (int i = 0; i < p->nperf_reads; i++) {
		char *name = ctx->c_string(p->perf_reads[i]);

		sb_addf(ctx->points, "\tperf[%d] = tap_perf_read(%s);\n", i, name);
		free(name);
	}
	sb_addf(ctx->points, "\treturn tap_uprobe_%d_run(uc, %sregs, perf);\n}\n\n", pp,
		ret ? "func, " : "");
}

/* A .return with @entry values: its table of entry records (runtime/uprobes.h) and the
 * consumer's entry handler, which keeps the values of each call in one. */
static void uretprobe_entry_handler(struct emit_ctx *ctx, const struct derived_probe *p,
				    const struct derived_point *d, int pp)
{
	char *descriptor = xasprintf("&tap_pp_%d", pp);
	char *before = xasprintf("\t\tu = tap_task_slot_claim(&tap_uentry_table_%d, regs->sp);\n"
				 "\t\tc->entry_data = u ? &container_of(u, struct tap_uentry_rec_%d,"
				 " u)->e : &tap_uentry_scratch_%d.e;\n"
				 "\t\tc->ubias = instruction_pointer(regs) - 0x%llxUL;\n", pp, pp,
				 pp, (unsigned long long)d->pc);

	sb_addf(ctx->points, "static struct tap_uentry_rec_%d {\n\tstruct tap_task_slot u;\n"
		"\tstruct probe_%d_entry e;\n} tap_uentries_%d[TAP_UENTRY_SLOTS],"
		" tap_uentry_scratch_%d;\n", pp, p->index, pp, pp);
	sb_addf(ctx->points, "static atomic_t tap_uentry_reach_%d;\n"
		"static const struct tap_task_slots tap_uentry_table_%d = TAP_TASK_SLOTS_INIT("
		"tap_uentries_%d, TAP_UENTRY_SLOTS, true, tap_uentry_reach_%d);\n\n", pp, pp, pp, pp);
	sb_addf(ctx->points, "static int tap_uprobe_entry_%d(struct uprobe_consumer *uc,"
		" struct pt_regs *regs)\n{\n", pp);
	uprobe_filter(ctx, d);
	callers_filter(ctx, d, pp, "TAP_UCALLER_ENTRY", "instruction_pointer(regs)");
	emit_handler(ctx, p->index, &(struct handler_text){
		descriptor, "\tstruct tap_task_slot *u;\n", true, before, "", "\treturn 0;\n}\n\n",
		true, NULL });
	free(before);
	free(descriptor);
}

static void uprobes_point(struct emit_ctx *ctx, void *state, const struct derived_probe *p,
			  const struct derived_point *d, int pp)
{
	struct emit_one_table *s = state;
	bool ret = d->kind == PROVIDER_URETPROBE;
	char *descriptor = xasprintf("&tap_pp_%d", pp);
	char *path = ctx->c_string(d->symbol);
	bool has_entry = ret && p->entries.len > 0;
	char *before, *entry_text = NULL;

	callers_table(ctx, d, pp);
	if (has_entry) {
		uretprobe_entry_handler(ctx, p, d, pp);
		/* The body runs only with the values its call's entry kept. */
		/* the return address popped: its entry's sp is 8 below */
		entry_text = xasprintf("\t\tu = tap_task_slot_take(&tap_uentry_table_%d,"
				       " regs->sp - 8);\n"
				       "\t\tc->entry_data = u ? &container_of(u, struct"
				       " tap_uentry_rec_%d, u)->e : NULL;\n"
				       "\t\tif (u)\t/* its entry was seen */\n", pp, pp);
	}
	/* The handler runs in the task, preemptible (emit_enter()). */
	if (ret)
		sb_addf(ctx->points, "static int tap_uprobe_%d%s(struct uprobe_consumer *uc,"
			" unsigned long func, struct pt_regs *regs%s)\n{\n", pp,
			p->nperf_reads ? "_run" : "", p->nperf_reads ? ", const s64 *perf" : "");
	else
		sb_addf(ctx->points, "static int tap_uprobe_%d%s(struct uprobe_consumer *uc,"
			" struct pt_regs *regs%s)\n{\n", pp, p->nperf_reads ? "_run" : "",
			p->nperf_reads ? ", const s64 *perf" : "");
	uprobe_filter(ctx, d);
	callers_filter(ctx, d, pp, ret ? "TAP_UCALLER_RETURN" : d->mid_function ?
		       "TAP_UCALLER_FRAME" : "TAP_UCALLER_ENTRY", ret ? "func" :
		       "instruction_pointer(regs)");
	/* The load bias: where the point is in the process less its link-time address (a
	 * .return's is the function's entry, `func`). */
	before = xasprintf("\t\tc->ubias = %s - 0x%llxUL;\n%s%s", ret ? "func" :
			   "instruction_pointer(regs)", (unsigned long long)d->pc,
			   p->nperf_reads ? "\t\tc->point_data = (void *)perf;\n" : "",
			   has_entry ? entry_text : "");
	emit_handler(ctx, p->index, &(struct handler_text){
		descriptor, has_entry ? "\tstruct tap_task_slot *u;\n" : "", false, before,
		has_entry ? "\t\ttap_task_slot_release(u);\n" : "", "\treturn 0;\n}\n\n", true, NULL });
	free(before);
	free(entry_text);
	if (p->nperf_reads)
		perf_read_handler(ctx, p, d, pp, ret);
	sb_addf(&s->entries, "\t{ .uc = { .%s = tap_uprobe_%d", ret ? "ret_handler" : "handler", pp);
	if (has_entry)
		sb_addf(&s->entries, ", .handler = tap_uprobe_entry_%d", pp);
	sb_addf(&s->entries, " }, .pp = &tap_pp_%d, .path = %s, .offset = 0x%llx,"
		" .ref_ctr_offset = 0x%llx", pp, path, (unsigned long long)d->offset,
		(unsigned long long)d->semaphore);
	if (has_entry)
		sb_addf(&s->entries, ", .uentries = &tap_uentry_table_%d", pp);
	if (d->user_pid > 0)
		sb_addf(&s->entries, ", .pid = %" PRId64, d->user_pid);
	else if (d->user_pid)
		sb_add(&s->entries, ", .pid = TAP_UPROBE_TARGET");
	sb_add(&s->entries, " },\n");
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
