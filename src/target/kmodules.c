// SPDX-License-Identifier: GPL-2.0-or-later
/* The target's loadable modules and their functions; see kmodules.h. */
#define _GNU_SOURCE
#include "target/kmodules.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "target/btf_image.h"
#include "util.h"

static struct kmodule *add_module(struct kmodules *m, const char *name, size_t len)
{
	struct kmodule *mod;

	if (m->len == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 256;
		m->items = xrealloc(m->items, m->cap * sizeof(*m->items));
	}
	mod = &m->items[m->len++];
	*mod = (struct kmodule){ .name = xstrndup(name, len) };
	return mod;
}

static void add_function(struct kmodule *mod, const char *name, size_t len)
{
	/* Grown by powers of two: the capacity is implied by the count. */
	if (!(mod->nfunctions & (mod->nfunctions - 1)) || !mod->nfunctions)
		mod->functions = xrealloc(mod->functions,
					  (mod->nfunctions ? 2 * mod->nfunctions : 1) *
					  sizeof(*mod->functions));
	mod->functions[mod->nfunctions++] = xstrndup(name, len);
}

/* A name kprobes can be given: not the "f.cold" or "f.isra.0" parts of a function, nor the
 * padding symbols some kernels put before each function. */
static bool probeable(const char *name)
{
	return *name && !strchr(name, '.') && strncmp(name, "__pfx_", 6) &&
	       strncmp(name, "__cfi_", 6);
}

char *kmodule_name_of_file(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	const char *ko = strstr(base, ".ko");
	char *name = xstrndup(base, ko ? (size_t)(ko - base) : strlen(base));

	for (char *p = name; *p; p++)
		if (*p == '-')
			*p = '_';
	return name;
}

/* ---- ELF symbol tables ---- */

struct elf_function {
	const char *name;
	size_t section;
	GElf_Addr value;
};

static int compare_by_place(const void *a, const void *b)
{
	const struct elf_function *x = a, *y = b;

	if (x->section != y->section)
		return x->section < y->section ? -1 : 1;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return strcmp(x->name, y->name);
}

static bool same_place(const struct elf_function *a, const struct elf_function *b)
{
	return a->section == b->section && a->value == b->value;
}

/* init_module and cleanup_module are aliases module_init() and module_exit() make of the
 * real functions: left out when they share their place with another name. */
static bool alias_of_another(const struct elf_function *f, size_t i, size_t n)
{
	if (strcmp(f[i].name, "init_module") && strcmp(f[i].name, "cleanup_module"))
		return false;
	return (i > 0 && same_place(&f[i - 1], &f[i])) ||
	       (i + 1 < n && same_place(&f[i + 1], &f[i]));
}

/* The defined function symbols of an executable section of `elf`'s symbol table. */
static void read_elf_functions(Elf *elf, struct kmodule *mod)
{
	size_t strndx, n = 0;
	struct elf_function *found = NULL;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &strndx) != 0)
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_SYMTAB ||
		    !(data = elf_getdata(scn, NULL)) || !shdr.sh_entsize)
			continue;
		for (size_t i = 0; i < shdr.sh_size / shdr.sh_entsize; i++) {
			GElf_Sym sym;
			GElf_Shdr target;
			Elf_Scn *in;
			const char *name;

			if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
				continue;
			in = elf_getscn(elf, sym.st_shndx);
			name = elf_strptr(elf, shdr.sh_link, sym.st_name);
			if (!in || !gelf_getshdr(in, &target) || !(target.sh_flags & SHF_EXECINSTR) ||
			    !name || !probeable(name))
				continue;
			found = xrealloc(found, (n + 1) * sizeof(*found));
			found[n++] = (struct elf_function){ name, sym.st_shndx, sym.st_value };
		}
	}
	qsort(found, n, sizeof(*found), compare_by_place);
	for (size_t i = 0; i < n; i++)
		if (!alias_of_another(found, i, n))
			add_function(mod, found[i].name, strlen(found[i].name));
	free(found);
}

static void read_module_file(struct kmodules *m, const char *path)
{
	size_t size;
	char *error = NULL;
	char *bytes = read_decompressed_file(path, &size, &error);
	char *name;
	Elf *elf;

	free(error);
	if (!bytes)
		return;
	name = kmodule_name_of_file(path);
	elf = elf_memory(bytes, size);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		read_elf_functions(elf, add_module(m, name, strlen(name)));
	if (elf)
		elf_end(elf);
	free(bytes);
	free(name);
}

/* Whether `path` names a module's file: NAME.ko, or NAME.ko.xz (.gz, .zst) compressed. */
static bool is_module_file(const char *path)
{
	const char *ko = strrchr(path, '/') ? strstr(strrchr(path, '/'), ".ko") : strstr(path, ".ko");

	return ko && (!strcmp(ko, ".ko") || !strcmp(ko, ".ko.xz") || !strcmp(ko, ".ko.gz") ||
		      !strcmp(ko, ".ko.zst"));
}

bool kmodules_read_dir(struct kmodules *m, const char *dir)
{
	char *dep = xasprintf("%s/modules.dep", dir);
	char *text = read_text_file(dep, NULL);

	free(dep);
	if (!text)
		return false;
	elf_version(EV_CURRENT);
	for (const char *line = text; *line;) {
		const char *end = strchrnul(line, '\n');
		const char *colon = memchr(line, ':', (size_t)(end - line));

		if (colon && colon > line) {
			char *file = xstrndup(line, (size_t)(colon - line));
			char *path = file[0] == '/' ? xstrdup(file) : xasprintf("%s/%s", dir, file);

			if (is_module_file(path))
				read_module_file(m, path);
			free(path);
			free(file);
		}
		line = *end ? end + 1 : end;
	}
	free(text);
	return true;
}

char *kmodules_file(const char *dir, const char *name)
{
	char *dep = xasprintf("%s/modules.dep", dir);
	char *text = read_text_file(dep, NULL), *found = NULL;

	free(dep);
	for (const char *line = text ? text : ""; *line && !found;) {
		const char *end = strchrnul(line, '\n');
		const char *colon = memchr(line, ':', (size_t)(end - line));

		if (colon && colon > line) {
			char *file = xstrndup(line, (size_t)(colon - line));
			char *module = kmodule_name_of_file(file);

			if (is_module_file(file) && !strcmp(module, name))
				found = file[0] == '/' ? xstrdup(file) : xasprintf("%s/%s", dir, file);
			free(module);
			free(file);
		}
		line = *end ? end + 1 : end;
	}
	free(text);
	return found;
}

/* ---- /proc/kallsyms ---- */

/* The module of `name` in `m` read so far, added when new; the last one looked up is
 * remembered, as kallsyms lists each module's symbols together. */
static struct kmodule *module_named(struct kmodules *m, const char *name, size_t len)
{
	for (size_t i = m->len; i-- > 0;)
		if (strlen(m->items[i].name) == len && !memcmp(m->items[i].name, name, len))
			return &m->items[i];
	return add_module(m, name, len);
}

/* kallsyms puts some kernel code under pseudo-modules: [__builtin__ftrace], [bpf]. */
static bool real_module(const char *name, size_t len)
{
	return !(len >= 9 && !memcmp(name, "__builtin", 9)) &&
	       !(len == 3 && !memcmp(name, "bpf", 3));
}

void kmodules_read_kallsyms(struct kmodules *m, const char *text)
{
	struct kmodule *last = NULL;

	for (const char *line = text; *line;) {
		const char *end = strchrnul(line, '\n');
		const char *open = memchr(line, '[', (size_t)(end - line));
		const char *close = open ? memchr(open, ']', (size_t)(end - open)) : NULL;
		const char *type = strchr(line, ' ');

		if (close && type && type + 3 < end && (type[1] == 't' || type[1] == 'T') &&
		    real_module(open + 1, (size_t)(close - open - 1))) {
			const char *name = type + 3;
			size_t len = strcspn(name, " \t\n");
			size_t mlen = (size_t)(close - open - 1);
			char *fname = xstrndup(name, len);

			if (!last || strlen(last->name) != mlen || memcmp(last->name, open + 1, mlen))
				last = module_named(m, open + 1, mlen);
			if (probeable(fname))
				add_function(last, name, len);
			free(fname);
		}
		line = *end ? end + 1 : end;
	}
}

/* ---- The cache ---- */

bool kmodules_read_cache(struct kmodules *m, const char *path)
{
	char *text = read_text_file(path, NULL);
	struct kmodule *mod = NULL;

	if (!text)
		return false;
	for (const char *line = text; *line;) {
		const char *end = strchrnul(line, '\n');

		if (*line == '\t' && mod)
			add_function(mod, line + 1, (size_t)(end - line - 1));
		else if (end > line)
			mod = add_module(m, line, (size_t)(end - line));
		line = *end ? end + 1 : end;
	}
	free(text);
	return true;
}

bool kmodules_write_cache(const struct kmodules *m, const char *path)
{
	/* A file of this process: runs that list the modules at once each write their own. */
	char *tmp = xasprintf("%s.%ld.tmp", path, (long)getpid());
	FILE *f = fopen(tmp, "w");
	bool ok = f != NULL;

	for (size_t i = 0; ok && i < m->len; i++) {
		fprintf(f, "%s\n", m->items[i].name);
		for (size_t j = 0; j < m->items[i].nfunctions; j++)
			fprintf(f, "\t%s\n", m->items[i].functions[j]);
	}
	if (f && fclose(f) != 0)
		ok = false;
	ok = ok && rename(tmp, path) == 0;
	if (!ok)
		unlink(tmp);
	free(tmp);
	return ok;
}

/* ---- Order ---- */

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int compare_modules(const void *a, const void *b)
{
	return strcmp(((const struct kmodule *)a)->name, ((const struct kmodule *)b)->name);
}

static void sort_unique(char **items, size_t *len)
{
	size_t out = 0;

	qsort(items, *len, sizeof(*items), compare_strings);
	for (size_t i = 0; i < *len; i++) {
		if (out && !strcmp(items[out - 1], items[i]))
			free(items[i]);
		else
			items[out++] = items[i];
	}
	*len = out;
}

/* Moves the functions of `from` into `into`. */
static void merge_module(struct kmodule *into, struct kmodule *from)
{
	for (size_t i = 0; i < from->nfunctions; i++) {
		add_function(into, from->functions[i], strlen(from->functions[i]));
		free(from->functions[i]);
	}
	free(from->functions);
	free(from->name);
}

void kmodules_finish(struct kmodules *m)
{
	size_t out = 0;

	qsort(m->items, m->len, sizeof(*m->items), compare_modules);
	for (size_t i = 0; i < m->len; i++) {
		if (out && !strcmp(m->items[out - 1].name, m->items[i].name))
			merge_module(&m->items[out - 1], &m->items[i]);
		else
			m->items[out++] = m->items[i];
	}
	m->len = out;
	for (size_t i = 0; i < m->len; i++)
		sort_unique(m->items[i].functions, &m->items[i].nfunctions);
}

const struct kmodule *kmodules_find(const struct kmodules *m, const char *name)
{
	struct kmodule key = { .name = (char *)name };

	return m->len ? bsearch(&key, m->items, m->len, sizeof(*m->items), compare_modules) : NULL;
}
