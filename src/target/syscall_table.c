// SPDX-License-Identifier: GPL-2.0-or-later
/* The target kernel's system call tables; see syscall_table.h. */
#define _GNU_SOURCE
#include "target/syscall_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "util.h"

struct syscall_symbol {
	char *name;
	uint64_t address;
};

/* The functions a table line may call, and the few the module needs. */
static bool wanted_symbol(const char *name, size_t len)
{
	static const char *const prefixes[] = { "__x64_sys_", "__ia32_sys_", "__ia32_compat_sys_" };
	static const char *const names[] = { "sprint_symbol", "do_syscall_64", "do_int80_emulation",
					     "int80_emulation", "do_int80_syscall_32",
					     "__do_fast_syscall_32", "do_fast_syscall_32" };

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (len > strlen(prefixes[i]) && !strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (len == strlen(names[i]) && !strncmp(name, names[i], len))
			return true;
	return false;
}

static int compare_symbols(const void *a, const void *b)
{
	return strcmp(((const struct syscall_symbol *)a)->name,
		      ((const struct syscall_symbol *)b)->name);
}

/* The wanted symbols of a listing ("ADDRESS TYPE NAME" lines), sorted; false when it has
 * none with an address (kallsyms read without the right to see them shows zeros). */
static bool read_symbols(struct syscall_table *t, const char *text)
{
	size_t cap = 0;

	for (const char *line = text; *line;) {
		const char *end = strchrnul(line, '\n');
		char *name;
		uint64_t address = strtoull(line, &name, 16);
		size_t len;

		name += strspn(name, " ");
		name += *name ? 1 : 0;	/* the type */
		name += strspn(name, " ");
		len = strcspn(name, " \t\n");
		if (address && name + len <= end && wanted_symbol(name, len)) {
			if (t->nsymbols == cap) {
				cap = cap ? 2 * cap : 1024;
				t->symbols = xrealloc(t->symbols, cap * sizeof(*t->symbols));
			}
			t->symbols[t->nsymbols++] = (struct syscall_symbol){ xstrndup(name, len),
									     address };
		}
		line = *end ? end + 1 : end;
	}
	if (t->nsymbols)
		qsort(t->symbols, t->nsymbols, sizeof(*t->symbols), compare_symbols);
	return t->nsymbols > 0;
}

uint64_t syscall_table_address(const struct syscall_table *t, const char *name)
{
	struct syscall_symbol key = { (char *)name, 0 };
	const struct syscall_symbol *found =
		bsearch(&key, t->symbols, t->nsymbols, sizeof(*t->symbols), compare_symbols);

	return found ? found->address : 0;
}

/* The listing of the target's symbols, as ksyms.c finds it. */
static char *symbol_listing(const struct session *s)
{
	struct utsname u;
	char *root, *path, *text = NULL;

	if (s->run_in_vm) {
		path = xasprintf("%s/kallsyms", s->vm_kit_dir);
		text = read_text_file(path, NULL);
		free(path);
		return text;
	}
	if (s->kernel_release && uname(&u) == 0 && !strcmp(u.release, s->kernel_release) &&
	    !(s->kernel && s->kernel[0] == '/'))
		return read_text_file("/proc/kallsyms", NULL);
	root = tapster_cache_root();
	path = xasprintf("%s/vm/%s/kallsyms", root, s->kernel_release ? s->kernel_release : "");
	text = read_text_file(path, NULL);
	free(path);
	free(root);
	if (!text) {
		path = xasprintf("%s/System.map", s->kernel_build_dir);
		text = read_text_file(path, NULL);
		free(path);
	}
	return text;
}

/* One line of a generated table: __SYSCALL(N, sys_X), __SYSCALL_NORETURN(N, sys_X) or
 * __SYSCALL_WITH_COMPAT(N, sys_X, compat_sys_X) (a 32-bit task's call goes to the compat
 * one). */
static void read_table_line(struct syscall_table *t, enum syscall_abi abi, const char *line,
			    size_t *cap)
{
	char macro[40], native[128], compat[128] = "";
	const char *prefix = abi == SYSCALL_ABI_X64 ? "__x64_" : "__ia32_";
	int nr;
	char *function;

	if (sscanf(line, "%39[A-Z_](%d, %127[a-z0-9_], %127[a-z0-9_])", macro, &nr, native,
		   compat) < 3 || strncmp(macro, "__SYSCALL", 9) != 0)
		return;
	if (!strcmp(macro, "__SYSCALL_WITH_COMPAT") && *compat)
		function = xasprintf("%s%s", prefix, compat);
	else
		function = xasprintf("%s%s", prefix, native);
	if (t->nentries == *cap) {
		*cap = *cap ? 2 * *cap : 512;
		t->entries = xrealloc(t->entries, *cap * sizeof(*t->entries));
	}
	t->entries[t->nentries++] = (struct syscall_entry){
		abi, nr, syscall_table_address(t, function),
		!strcmp(native, "sys_exit") || !strcmp(native, "sys_exit_group") };
	free(function);
}

static bool read_table(struct syscall_table *t, const struct session *s, const char *file,
		       enum syscall_abi abi, size_t *cap)
{
	char *path = xasprintf("%s/arch/x86/include/generated/asm/%s", s->kernel_build_dir, file);
	char *text = read_text_file(path, NULL);

	free(path);
	if (!text)
		return false;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
		read_table_line(t, abi, line, cap);
	free(text);
	return true;
}

/* Whether the kernel has the x32 ABI, whose calls reach the x86_64 functions by other
 * numbers: not dispatched then. */
static bool has_x32(const struct session *s)
{
	char *path = xasprintf("%s/.config", s->kernel_build_dir);
	char *config = read_text_file(path, NULL);
	bool x32 = !config || strstr(config, "\nCONFIG_X86_X32_ABI=y");

	free(path);
	free(config);
	return x32;
}

/* The listing's address of the first of `names` it has, or 0. */
static uint64_t first_address(const struct syscall_table *t, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (syscall_table_address(t, names[i]))
			return syscall_table_address(t, names[i]);
	return 0;
}

/* Where a 32-bit task's entry functions return to: int $0x80's handler, and the
 * sysenter/syscall path's (the fast one, through the vDSO). */
static void ia32_return_sites(struct syscall_table *t)
{
	static const char *const int80[] = { "do_int80_emulation", "int80_emulation",
					     "do_int80_syscall_32" };
	static const char *const fast[] = { "__do_fast_syscall_32", "do_fast_syscall_32" };

	t->return_site[SYSCALL_ABI_IA32] = first_address(t, int80, sizeof(int80) / sizeof(int80[0]));
	t->return_site_fast32 = first_address(t, fast, sizeof(fast) / sizeof(fast[0]));
}

/* The numbers a table lacks call the invalid numbers' function, as entries of it. */
static void add_holes(struct syscall_table *t, enum syscall_abi abi, size_t *cap)
{
	size_t n = t->nentries;
	bool *present;

	for (size_t i = 0; i < n; i++)
		if (t->entries[i].abi == abi && t->entries[i].nr >= t->size[abi])
			t->size[abi] = t->entries[i].nr + 1;
	present = xcalloc((size_t)t->size[abi] + 1, sizeof(*present));
	for (size_t i = 0; i < n; i++)
		if (t->entries[i].abi == abi && t->entries[i].nr >= 0)
			present[t->entries[i].nr] = true;
	for (int nr = 0; nr < t->size[abi]; nr++) {
		if (present[nr])
			continue;
		if (t->nentries == *cap) {
			*cap = *cap ? 2 * *cap : 512;
			t->entries = xrealloc(t->entries, *cap * sizeof(*t->entries));
		}
		t->entries[t->nentries++] = (struct syscall_entry){ abi, nr, t->ni_address, false };
	}
	free(present);
}

static struct syscall_table *load(const struct session *s)
{
	struct syscall_table *t = xcalloc(1, sizeof(*t));
	char *listing = s->kernel_build_dir && !has_x32(s) ? symbol_listing(s) : NULL;
	size_t cap = 0;
	bool ok = listing && read_symbols(t, listing);

	free(listing);
	t->ni_address = ok ? syscall_table_address(t, "__x64_sys_ni_syscall") : 0;
	ok = ok && read_table(t, s, "syscalls_64.h", SYSCALL_ABI_X64, &cap);
	if (ok)
		add_holes(t, SYSCALL_ABI_X64, &cap);
	if (ok && read_table(t, s, "syscalls_32.h", SYSCALL_ABI_IA32, &cap))
		add_holes(t, SYSCALL_ABI_IA32, &cap);
	t->anchor = syscall_table_address(t, "sprint_symbol");
	t->return_site[SYSCALL_ABI_X64] = syscall_table_address(t, "do_syscall_64");
	ia32_return_sites(t);
	if (ok && t->nentries && t->anchor && t->ni_address && t->return_site[SYSCALL_ABI_X64])
		return t;
	for (size_t i = 0; i < t->nsymbols; i++)
		free(t->symbols[i].name);
	free(t->symbols);
	free(t->entries);
	free(t);
	return NULL;
}

const struct syscall_table *syscall_table_load(const struct session *s)
{
	return load(s);
}
