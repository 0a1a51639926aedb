// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 3 of kprobes and kretprobes (kernel.function, module().function, kernel.statement):
 * a handler each, their tables tap_kprobes[] and tap_kretprobes[], and where the kernel has
 * fprobe the tap_fprobes[] that may serve several of them at once (runtime/kprobes.h).
 */
#include "providers/emit.h"

#include <stdlib.h>
#include <string.h>

#include "target/syscall_table.h"

/*
 * The fewest syscall points (entries and returns) a module dispatches from the raw
 * tracepoints sys_enter/sys_exit (runtime/sysdispatch.h) rather than arming a kprobe each:
 * on 6.1 a kprobe on ftrace costs about 8 ms of virtual time to arm and 7 to take off,
 * while the two tracepoints cost a few ms together; but while they are attached every system
 * call of every task goes through the kernel's slow path and the dispatch, where a few
 * kprobes cost only the calls they probe.
 */
#define SYSD_MIN_POINTS 8

/* A dispatched point's call: its table entry (of tap_kprobes or, `ret`, tap_kretprobes)
 * hit for call `nr` of `abi`, its function at `address` in the listing. */
struct sysd_key {
	int abi, nr;
	bool ret;
	int index;
	uint64_t address;
};

struct kprobes_state {
	struct strbuf kprobes, kretprobes, fprobes;	/* table entries */
	int nkprobes, nkretprobes, nfprobes;
	int nshared_kprobes, nshared_kretprobes;	/* points the shared fprobes may serve */
	/* The probe being written: its first entries in the tables, and how many of its
	 * points an fprobe could serve, entries and returns. */
	int first_kprobe, first_kretprobe;
	int entries, returns;
	/* The syscall dispatch: whether it was planned, the functions whose points it takes
	 * (listing addresses), its keys. */
	bool planned;
	const struct syscall_table *sys;
	uint64_t *sysd_functions;
	size_t nsysd_functions;
	struct sysd_key *sysd_keys;
	size_t nsysd_keys, sysd_keys_cap;
};

#define RETURN_0 "\treturn 0;\n}\n\n"
#define FPROBE_PP "tap_fprobe_pp(fp, ip)"
#define FPROBE_PARAMS "(struct fprobe *fp, unsigned long ip, unsigned long ret_ip," \
	" struct pt_regs *regs, void *data)\n{\n"

/* The symbol a kprobe is given, as a C string: "f" for a kernel function, "m:f" for the
 * function f of module m. */
static char *kprobe_symbol(const struct emit_ctx *ctx, const struct derived_point *d)
{
	const char *function = d->symbol ? d->symbol : d->function;
	char *name = *d->module ? xasprintf("%s:%s", d->module, function) : xstrdup(function);
	char *literal = ctx->c_string(name);

	free(name);
	return literal;
}

/* Whether a point may go under an fprobe: a kernel function's entry or return, by name. */
static bool fprobe_candidate(const struct derived_point *d)
{
	return (d->kind == PROVIDER_KPROBE || d->kind == PROVIDER_KRETPROBE) && !*d->module &&
	       !d->address && !d->offset;
}

/* ---- The syscall dispatch (runtime/sysdispatch.h) ---- */

/* Whether `name` is a system call's entry function, which only the system call tables
 * reference: those of no table are never called. */
static bool syscall_function_name(const char *name)
{
	return !strncmp(name, "__x64_sys_", 10) || !strncmp(name, "__ia32_sys_", 11) ||
	       !strncmp(name, "__ia32_compat_sys_", 18);
}

/* The listing address of a point's function when it is a system call's entry function, a
 * kprobe or kretprobe by name at the function's start; else 0. */
static uint64_t syscall_function(const struct kprobes_state *s, const struct derived_point *d)
{
	const char *function = d->symbol ? d->symbol : d->function;

	if ((d->kind != PROVIDER_KPROBE && d->kind != PROVIDER_KRETPROBE) || *d->module ||
	    d->address || d->offset || !function || !*function)
		return 0;
	if (!syscall_function_name(function))
		return 0;
	return syscall_table_address(s->sys, function);
}

/* Whether the dispatch may run a point on the syscall function at `address` as its kprobe
 * would: a probe without condition, a return of no call that never returns, without
 * .maxactive, and of an ABI whose return site is known. */
static bool sysd_point_ok(const struct kprobes_state *s, const struct derived_probe *p,
			  const struct derived_point *d, uint64_t address)
{
	if (p->cond)
		return false;
	if (d->kind != PROVIDER_KRETPROBE)
		return true;
	if (d->maxactive > 0)
		return false;
	for (size_t i = 0; i < s->sys->nentries; i++) {
		const struct syscall_entry *e = &s->sys->entries[i];

		if (e->address == address && (e->noreturn || !s->sys->return_site[e->abi]))
			return false;
	}
	return true;
}

static bool address_in(const uint64_t *list, size_t n, uint64_t address)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] == address)
			return true;
	return false;
}

/* The points on the functions the dispatch takes. */
static size_t sysd_points(const struct emit_ctx *ctx, const struct kprobes_state *s)
{
	size_t n = 0;

	for (const struct derived_probe *p = ctx->program->probes; p; p = p->next)
		for (const struct derived_point *d = p->points; d; d = d->next)
			n += address_in(s->sysd_functions, s->nsysd_functions, syscall_function(s, d));
	return n;
}

/*
 * Which syscall functions the dispatch takes: those all of whose points it may run (a
 * function keeps its kprobes when one of its points needs one, so its points run in their
 * usual order), when the program has at least SYSD_MIN_POINTS such points.
 */
static void sysd_plan(struct emit_ctx *ctx, struct kprobes_state *s)
{
	size_t cap = 0, nrefused = 0;
	uint64_t *refused = NULL;

	s->planned = true;
	s->sys = syscall_table_load(ctx->session);
	if (!s->sys)
		return;
	for (const struct derived_probe *p = ctx->program->probes; p; p = p->next)
		for (const struct derived_point *d = p->points; d; d = d->next) {
			uint64_t address = syscall_function(s, d);

			if (!address || sysd_point_ok(s, p, d, address))
				continue;
			refused = xrealloc(refused, (nrefused + 1) * sizeof(*refused));
			refused[nrefused++] = address;
		}
	for (const struct derived_probe *p = ctx->program->probes; p; p = p->next)
		for (const struct derived_point *d = p->points; d; d = d->next) {
			uint64_t address = syscall_function(s, d);

			if (!address || address_in(refused, nrefused, address) ||
			    address_in(s->sysd_functions, s->nsysd_functions, address))
				continue;
			if (s->nsysd_functions == cap) {
				cap = cap ? 2 * cap : 64;
				s->sysd_functions = xrealloc(s->sysd_functions,
							     cap * sizeof(*s->sysd_functions));
			}
			s->sysd_functions[s->nsysd_functions++] = address;
		}
	free(refused);
	if (sysd_points(ctx, s) < SYSD_MIN_POINTS)
		s->nsysd_functions = 0;
}

static void sysd_add_key(struct kprobes_state *s, struct sysd_key key)
{
	if (s->nsysd_keys == s->sysd_keys_cap) {
		s->sysd_keys_cap = s->sysd_keys_cap ? 2 * s->sysd_keys_cap : 256;
		s->sysd_keys = xrealloc(s->sysd_keys, s->sysd_keys_cap * sizeof(*s->sysd_keys));
	}
	s->sysd_keys[s->nsysd_keys++] = key;
}

/* The keys of table entry `index` of a point, when the dispatch takes its function: a call
 * of each number whose table entry is the function, or, for a function of no table, which
 * nothing calls, one of number -1 (the dispatch takes it and never runs it); the invalid
 * numbers' function has those the tables lack and, as number -2, those past each table
 * (but -1, which calls nothing). */
static void sysd_add_keys(struct kprobes_state *s, const struct derived_point *d, bool ret,
			  int index)
{
	uint64_t address;
	size_t before = s->nsysd_keys;

	if (!s->nsysd_functions)
		return;
	address = syscall_function(s, d);
	if (!address || !address_in(s->sysd_functions, s->nsysd_functions, address))
		return;
	for (size_t i = 0; i < s->sys->nentries; i++) {
		const struct syscall_entry *e = &s->sys->entries[i];

		if (e->address == address)
			sysd_add_key(s, (struct sysd_key){ e->abi, e->nr, ret, index, address });
	}
	if (s->nsysd_keys == before)
		sysd_add_key(s, (struct sysd_key){ SYSCALL_ABI_X64, -1, ret, index, address });
	for (int abi = SYSCALL_ABI_X64; address == s->sys->ni_address && abi <= SYSCALL_ABI_IA32;
	     abi++)
		if (s->sys->size[abi])
			sysd_add_key(s, (struct sysd_key){ abi, -2, ret, index, address });
}

/* By ABI, number, entries before returns, then table order: the order a call runs them. */
static int compare_keys(const void *a, const void *b)
{
	const struct sysd_key *x = a, *y = b;

	if (x->abi != y->abi)
		return x->abi - y->abi;
	if (x->nr != y->nr)
		return x->nr - y->nr;
	if (x->ret != y->ret)
		return x->ret - y->ret;
	return x->index - y->index;
}

static void sysd_write_counts(const struct kprobes_state *s, FILE *out)
{
	if (!s->nsysd_keys)
		return;
	fprintf(out, "#define TAP_NUM_SYSD_KEYS %zu\n#define TAP_SYSD_ANCHOR 0x%llxULL\n"
		"#define TAP_SYSD_RETURN_X64 0x%llxULL\n#define TAP_SYSD_RETURN_IA32 0x%llxULL\n"
		"#define TAP_SYSD_RETURN_FAST32 0x%llxULL\n"
		"#define TAP_SYSD_TABLE_X64 %d\n#define TAP_SYSD_TABLE_IA32 %d\n",
		s->nsysd_keys, (unsigned long long)s->sys->anchor,
		(unsigned long long)s->sys->return_site[SYSCALL_ABI_X64],
		(unsigned long long)s->sys->return_site[SYSCALL_ABI_IA32],
		(unsigned long long)s->sys->return_site_fast32,
		s->sys->size[SYSCALL_ABI_X64], s->sys->size[SYSCALL_ABI_IA32]);
}

static void sysd_write_table(const struct kprobes_state *s, FILE *out)
{
	if (!s->nsysd_keys)
		return;
	fprintf(out, "static const struct tap_sysd_key tap_sysd_keys[] = {\n");
	for (size_t i = 0; i < s->nsysd_keys; i++) {
		const struct sysd_key *k = &s->sysd_keys[i];

		fprintf(out, "\t{ .addr = 0x%llxULL, .nr = %d, .ia32 = %d, .ret = %d, .index = %d },\n",
			(unsigned long long)k->address, k->nr, k->abi == SYSCALL_ABI_IA32, k->ret,
			k->index);
	}
	fprintf(out, "};\n\n");
}

static void kprobes_probe_start(struct emit_ctx *ctx, void *state, const struct derived_probe *p)
{
	struct kprobes_state *s = state;

	if (!s->planned)
		sysd_plan(ctx, s);
	s->first_kprobe = s->nkprobes;
	s->first_kretprobe = s->nkretprobes;
	s->entries = s->returns = 0;
	for (const struct derived_point *d = p->points; d; d = d->next) {
		if (fprobe_candidate(d) && d->kind == PROVIDER_KPROBE)
			s->entries++;
		else if (fprobe_candidate(d))
			s->returns++;
	}
}

/*
 * Whether a point goes to the shared fprobes: the only entry (return) of its probe that an
 * fprobe could serve, of a probe without a condition (its kprobe is disabled while the
 * condition is false) and without .maxactive(N) (its kretprobe's own instances).
 */
static bool fprobe_shared(const struct emit_ctx *ctx, const struct kprobes_state *s,
			  const struct derived_point *d)
{
	return fprobe_candidate(d) && (d->kind == PROVIDER_KPROBE ? s->entries : s->returns) == 1 &&
	       !ctx->condition && d->maxactive <= 0;
}

/* A kprobe's or kretprobe's table entry after its own fields: the rest, the same for both. */
static void table_entry_tail(struct strbuf *table, int pp, const char *module, int condition,
			     bool shared)
{
	sb_addf(table, " .pp = &tap_pp_%d, .module = %s, .cond = %d%s },\n", pp, module,
		condition, shared ? ", .shared = true" : "");
}

static void kprobe_point(struct emit_ctx *ctx, struct kprobes_state *s,
			 const struct derived_probe *p, const struct derived_point *d, int pp)
{
	char *symbol = kprobe_symbol(ctx, d);
	char *module = emit_module(ctx, d);
	char *descriptor = xasprintf("&tap_pp_%d", pp);
	bool shared = fprobe_shared(ctx, s, d);

	sb_addf(ctx->points, "static int tap_kprobe_%d(struct kprobe *kp, struct pt_regs *regs)\n{\n",
		pp);
	emit_handler(ctx, p->index, &(struct handler_text){ descriptor, "", false, "", "",
								    RETURN_0, false, NULL });
	if (d->address)
		sb_addf(&s->kprobes, "\t{ .kp = { .addr = (kprobe_opcode_t *)0x%llxULL,",
			(unsigned long long)d->address);
	else
		sb_addf(&s->kprobes, "\t{ .kp = { .symbol_name = %s,", symbol);
	if (!d->address && d->offset)
		sb_addf(&s->kprobes, " .offset = 0x%llx,", (unsigned long long)d->offset);
	sb_addf(&s->kprobes, " .pre_handler = tap_kprobe_%d },", pp);
	table_entry_tail(&s->kprobes, pp, module, ctx->condition, shared);
	sysd_add_keys(s, d, false, s->nkprobes);
	s->nkprobes++;
	s->nshared_kprobes += shared;
	free(symbol);
	free(module);
	free(descriptor);
}

static void kretprobe_point(struct emit_ctx *ctx, struct kprobes_state *s,
			    const struct derived_probe *p, const struct derived_point *d, int pp)
{
	char *symbol = kprobe_symbol(ctx, d);
	char *module = emit_module(ctx, d);
	char *descriptor = xasprintf("&tap_pp_%d", pp);
	bool has_entry = p->entries.len > 0;
	bool shared = fprobe_shared(ctx, s, d);

	if (has_entry) {
		sb_addf(ctx->points, "static int tap_kretprobe_entry_%d(struct kretprobe_instance *ri,"
			" struct pt_regs *regs)\n{\n", pp);
		emit_handler(ctx, p->index, &(struct handler_text){
			descriptor, "", true, "\tc->entry_data = ri->data;\n", "", RETURN_0, false, NULL });
	}
	sb_addf(ctx->points, "static int tap_kretprobe_%d(struct kretprobe_instance *ri,"
		" struct pt_regs *regs)\n{\n", pp);
	emit_handler(ctx, p->index, &(struct handler_text){
		descriptor, "", false, has_entry ? "\t\tc->entry_data = ri->data;\n" : "", "",
		RETURN_0, false, NULL });
	sb_addf(&s->kretprobes, "\t{ .rp = { .kp.symbol_name = %s, .handler = tap_kretprobe_%d,",
		symbol, pp);
	if (has_entry)
		sb_addf(&s->kretprobes,
			" .entry_handler = tap_kretprobe_entry_%d,"
			" .data_size = sizeof(struct probe_%d_entry),", pp, p->index);
	sb_addf(&s->kretprobes, " .maxactive = %d },", d->maxactive);
	table_entry_tail(&s->kretprobes, pp, module, ctx->condition, shared);
	sysd_add_keys(s, d, true, s->nkretprobes);
	s->nkretprobes++;
	s->nshared_kretprobes += shared;
	free(symbol);
	free(module);
	free(descriptor);
}

static void kprobes_point(struct emit_ctx *ctx, void *state, const struct derived_probe *p,
			  const struct derived_point *d, int pp)
{
	if (d->kind == PROVIDER_KPROBE)
		kprobe_point(ctx, state, p, d, pp);
	else
		kretprobe_point(ctx, state, p, d, pp);
}

/*
 * Where the kernel has fprobe (runtime/compat.h's TAP_USE_FPROBE), the entries of a probe
 * on kernel functions, or their returns, may be served by one fprobe (runtime/kprobes.h):
 * its handlers, and its entry in tap_fprobes[] naming the probe's table entries
 * [first, first + count) of tap_kprobes or tap_kretprobes.
 */
static void fprobe_entries(struct emit_ctx *ctx, struct kprobes_state *s,
			   const struct derived_probe *p, int first, int count)
{
	int id = s->nfprobes++;

	sb_addf(ctx->points, "#ifdef TAP_USE_FPROBE\nstatic int tap_fprobe_%d" FPROBE_PARAMS, id);
	emit_handler(ctx, p->index, &(struct handler_text){
		FPROBE_PP, "", false, "\t\tunsigned long at = tap_fprobe_regs_enter(regs, ip);\n\n",
		"\t\tinstruction_pointer_set(regs, at);\n", "\treturn 0;\n}\n#endif\n\n", false, NULL });
	sb_addf(&s->fprobes, "\t{ .fp = { .entry_handler = tap_fprobe_%d }, .ret = false,"
		" .first = %d, .count = %d },\n", id, first, count);
}

static void fprobe_returns(struct emit_ctx *ctx, struct kprobes_state *s,
			   const struct derived_probe *p, int first, int count)
{
	int id = s->nfprobes++;
	bool has_entry = p->entries.len > 0;

	sb_add(ctx->points, "#ifdef TAP_USE_FPROBE\n");
	if (has_entry) {
		sb_addf(ctx->points, "static int tap_fprobe_entry_%d" FPROBE_PARAMS, id);
		emit_handler(ctx, p->index, &(struct handler_text){
			FPROBE_PP, "\tunsigned long at;\n", true,
			"\tat = tap_fprobe_regs_enter(regs, ip);\n\tc->entry_data = data;\n",
			"\tinstruction_pointer_set(regs, at);\n", RETURN_0, false, NULL });
	}
	sb_addf(ctx->points, "static void tap_fprobe_%d" FPROBE_PARAMS, id);
	emit_handler(ctx, p->index, &(struct handler_text){
		FPROBE_PP, "", false, has_entry ? "\t\tc->entry_data = data;\n" : "", "",
		"}\n#endif\n\n", false, NULL });
	sb_addf(&s->fprobes, "\t{ .fp = { .exit_handler = tap_fprobe_%d", id);
	if (has_entry)
		sb_addf(&s->fprobes, ", .entry_handler = tap_fprobe_entry_%d,"
			" .entry_data_size = sizeof(struct probe_%d_entry)", id, p->index);
	sb_addf(&s->fprobes, " }, .ret = true, .first = %d, .count = %d },\n", first, count);
}

/* A probe's fprobes: one for its entries, one for its returns, when it has several. */
static void kprobes_probe_end(struct emit_ctx *ctx, void *state, const struct derived_probe *p)
{
	struct kprobes_state *s = state;

	if (s->entries >= 2)
		fprobe_entries(ctx, s, p, s->first_kprobe, s->nkprobes - s->first_kprobe);
	if (s->returns >= 2)
		fprobe_returns(ctx, s, p, s->first_kretprobe, s->nkretprobes - s->first_kretprobe);
}

/* The module's shared fprobes, the last (runtime/kprobes.h gives them their handlers): one
 * for the entries, one for the returns of the probes of one function each, when there are
 * several. */
static void kprobes_module_end(struct emit_ctx *ctx, void *state)
{
	struct kprobes_state *s = state;

	(void)ctx;
	if (s->nsysd_keys)
		qsort(s->sysd_keys, s->nsysd_keys, sizeof(*s->sysd_keys), compare_keys);
	if (s->nshared_kprobes >= 2) {
		sb_addf(&s->fprobes, "\t{ .ret = false, .shared = true, .first = 0, .count = %d },\n",
			s->nkprobes);
		s->nfprobes++;
	}
	if (s->nshared_kretprobes >= 2) {
		sb_addf(&s->fprobes, "\t{ .ret = true, .shared = true, .first = 0, .count = %d },\n",
			s->nkretprobes);
		s->nfprobes++;
	}
}

static void kprobes_write_counts(const void *state, FILE *out)
{
	const struct kprobes_state *s = state;

	fprintf(out, "#define TAP_NUM_KPROBES %d\n#define TAP_NUM_KRETPROBES %d\n"
		"#define TAP_NUM_FPROBES %d\n", s->nkprobes, s->nkretprobes, s->nfprobes);
	sysd_write_counts(s, out);
}

static void kprobes_write_tables(const void *state, FILE *out)
{
	const struct kprobes_state *s = state;

	emit_table(out, "static struct tap_kprobe tap_kprobes", s->nkprobes, &s->kprobes);
	emit_table(out, "static struct tap_kretprobe tap_kretprobes", s->nkretprobes,
		   &s->kretprobes);
	if (s->nfprobes)
		fprintf(out, "#ifdef TAP_USE_FPROBE\n"
			"static struct tap_fprobe tap_fprobes[] = {\n%s};\n#endif\n\n",
			s->fprobes.buf);
	sysd_write_table(s, out);
}

static void kprobes_release(void *state)
{
	struct kprobes_state *s = state;

	free(s->kprobes.buf);
	free(s->kretprobes.buf);
	free(s->fprobes.buf);
	free(s->sysd_functions);
	free(s->sysd_keys);
}

static const char *kprobes_type_name(const struct derived_point *d)
{
	return d->kind == PROVIDER_KRETPROBE ? "kretprobe" : "kprobe";
}

const struct point_emitter emitter_kprobes = {
	.kinds = 1u << PROVIDER_KPROBE | 1u << PROVIDER_KRETPROBE,
	.type_name = kprobes_type_name,
	.conditional = true,
	.state_size = sizeof(struct kprobes_state),
	.runtime_header = "kprobes.h",
	.probe_start = kprobes_probe_start,
	.point = kprobes_point,
	.probe_end = kprobes_probe_end,
	.module_end = kprobes_module_end,
	.write_counts = kprobes_write_counts,
	.write_tables = kprobes_write_tables,
	.release = kprobes_release,
};
