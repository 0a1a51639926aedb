// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The lifetime and system-call points of processes: process.begin, process.end,
 * process.thread.begin, process.thread.end, process.syscall and process.syscall.return, of
 * any process, of process("PATH") or of process(PID). process.c hands over a point whose
 * component after process(...) is one of begin, end, thread or syscall; the points run from
 * the runtime's task finder (runtime/taskfinder.h), on the kernel's process and system-call
 * tracepoints.
 */
#include "providers/emit.h"
#include "providers/providers.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "util.h"

bool process_event_component(const struct component *comp)
{
	static const char *const names[] = { "begin", "end", "thread", "syscall", NULL };

	if (!comp || comp->arg)
		return false;
	if (strpbrk(comp->name, "*?["))
		return true;
	for (size_t i = 0; names[i]; i++)
		if (!strcmp(comp->name, names[i]))
			return true;
	return false;
}

/* The event the components from `event` on name ("begin", "thread.end", "syscall.return"),
 * `name` standing for event's own name, or NULL after stap's error. */
static const char *read_event(const struct probe_point *point, const struct component *event,
			      const char *name)
{
	static const char *const thread_names[] = { "begin", "end", NULL };
	const struct component *next = event->next;

	if (!strcmp(name, "thread")) {
		if (!next) {
			provider_truncated(point, event, "begin end");
			return NULL;
		}
		if (next->arg || (strcmp(next->name, "begin") && strcmp(next->name, "end"))) {
			provider_mismatch(point, next, thread_names);
			return NULL;
		}
		name = !strcmp(next->name, "begin") ? "thread.begin" : "thread.end";
		next = next->next;
	} else if (!strcmp(name, "syscall") && next && !next->arg &&
		   !strcmp(next->name, "return")) {
		name = "syscall.return";
		next = next->next;
	}
	if (next) {
		provider_invalid_suffix(point, next);
		return NULL;
	}
	return name;
}

/* pp(): process.begin, process("/usr/bin/ls").syscall, process(1).end. */
static char *event_point_text(const struct probe_point *point, const char *path, int64_t pid,
			      const char *event)
{
	struct strbuf sb = { 0 };

	if (path)
		sb_addf(&sb, "process(\"%s\").%s", path, event);
	else if (pid)
		sb_addf(&sb, "process(%" PRId64 ").%s", pid, event);
	else
		sb_addf(&sb, "process.%s", event);
	add_marks(&sb, point);
	return sb_steal(&sb);
}

/* The point of the event `name` ("thread.begin"). */
static bool derive_named(const struct probe_point *point, const char *name, const char *written,
			 int64_t pid, struct derived_point ***tail)
{
	char path[PATH_MAX];
	struct derived_point *d;

	if (pid < 0 || (pid == 0 && point->components->arg && !written)) {
		char *reason = xasprintf("cannot probe pid %" PRId64 ": Invalid pid", pid);

		provider_refuse(point, reason);
		free(reason);
		return false;
	}
	/* stap keeps a name it cannot find as written. */
	if (written && find_executable(written, path))
		written = path;
	d = derived_point_new(PROVIDER_PROCESS_EVENT, point);
	free(d->pp);
	d->pp = event_point_text(point, written, pid, name);
	free(d->function);
	d->function = xstrdup(name);
	d->symbol = written ? xstrdup(written) : NULL;
	d->address = (uint64_t)pid;
	add_derived_point(tail, d);
	return true;
}

static bool has_wildcard(const char *name)
{
	return strpbrk(name, "*?[") != NULL;
}

/*
 * Wildcards, as in `-l 'process.*'`: the events whose one or two components they match, in
 * stap's order (process.* is begin, end and syscall; process.*.* thread.begin, thread.end
 * and syscall.return).
 */
static bool derive_wildcard(const struct probe_point *point, const struct component *event,
			    const char *written, int64_t pid, struct derived_point ***tail)
{
	static const char *const events[][2] = {
		{ "begin", NULL }, { "end", NULL }, { "syscall", NULL }, { "syscall", "return" },
		{ "thread", "begin" }, { "thread", "end" },
	};
	static const char *const names[] = { "begin", "end", "syscall", "thread", NULL };
	const struct component *next = event->next;
	bool any = false;

	for (size_t i = 0; i < sizeof(events) / sizeof(*events); i++) {
		char *name;

		if (fnmatch(event->name, events[i][0], 0) || !next != !events[i][1] ||
		    (next && (next->arg || next->next || fnmatch(next->name, events[i][1], 0))))
			continue;
		name = events[i][1] ? xasprintf("%s.%s", events[i][0], events[i][1]) :
				      xstrdup(events[i][0]);
		any |= derive_named(point, name, written, pid, tail);
		free(name);
	}
	if (!any)
		provider_mismatch(point, event, names);
	return any;
}

bool derive_process_event(const struct probe_point *point, const struct component *event,
			  const char *written, int64_t pid, struct derived_point ***tail)
{
	const char *name;

	if (has_wildcard(event->name) || (event->next && has_wildcard(event->next->name)))
		return derive_wildcard(point, event, written, pid, tail);
	name = read_event(point, event, event->name);
	return name && derive_named(point, name, written, pid, tail);
}

/* ---- Pass 3: a handler each, and the table tap_process_events[] (runtime/taskfinder.h) ---- */

static int event_number(const char *event)
{
	static const char *const events[] = { "begin", "end", "thread.begin", "thread.end",
					      "syscall", "syscall.return", NULL };

	for (int i = 0; events[i]; i++)
		if (!strcmp(event, events[i]))
			return i;
	return -1;
}

/*
 * The handler takes the registers and the system call's words (its number, six arguments
 * and the return value), which it keeps in the context for tap_arg(): $syscall, $argN and
 * $return read them (resolve/target_process.c).
 */
static void process_event_point(struct emit_ctx *ctx, void *state, const struct derived_probe *p,
				const struct derived_point *d, int pp)
{
	struct emit_one_table *s = state;
	char *descriptor = xasprintf("&tap_pp_%d", pp);
	char *path = d->symbol ? ctx->c_string(d->symbol) : xstrdup("NULL");

	sb_addf(ctx->points, "static void tap_procev_%d(struct pt_regs *regs, u64 *words)\n{\n",
		pp);
	emit_handler(ctx, p->index, &(struct handler_text){ descriptor, "", false,
		"\t\tc->trace_args = words;\n", "\t\tc->trace_args = NULL;\n", "}\n\n", true,
		NULL });
	sb_addf(&s->entries, "\t{ .event = %d, .path = %s, .pid = %" PRIu64 ", .handler ="
		" tap_procev_%d, .pp = &tap_pp_%d },\n", event_number(d->function), path,
		d->address, pp, pp);
	s->count++;
	free(descriptor);
	free(path);
}

static const char *process_event_type_name(const struct derived_point *d)
{
	(void)d;
	return "utrace";
}

const struct point_emitter emitter_process_events = {
	.kinds = 1u << PROVIDER_PROCESS_EVENT,
	.type_name = process_event_type_name,
	.state_size = sizeof(struct emit_one_table),
	.runtime_header = "taskfinder.h",
	.point = process_event_point,
	.count_macro = "TAP_NUM_PROCESS_EVENTS",
	.table_decl = "static struct tap_process_event tap_process_events",
};
