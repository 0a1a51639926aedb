// SPDX-License-Identifier: GPL-2.0-or-later
/* The kernel's function sites and source lines from its DWARF (dwpoints.h). */
#include "target/dwpoints.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "target/debuginfo.h"
#include "progress.h"
#include "util.h"

/*
 * The index of the kernel's functions. It is built by a walk over the DIEs and the symbol
 * table (struct builder), then laid out as one flat image (struct index_header ...) that
 * is both the cache file and what the queries read: a later run maps the file and uses it
 * in place, so loading costs no copy and touches only the pages a query reads.
 */
struct func_symbol {
	uint64_t address;
	uint64_t size;
	const char *name;
	bool unique;
};

struct builder {
	Dwarf *dwarf;
	bool user;		/* a user file's: its files named as the DWARF has them */
	struct dw_site *sites;
	size_t nsites, cap;
	unsigned ncus;
	struct func_symbol *symbols;	/* by address */
	size_t nsymbols;
	struct func_symbol **by_name;	/* the same by name, then address */
	uint64_t *entries;		/* the out-of-line sites' pcs, sorted */
	size_t nentries;
};

struct index_record {
	uint64_t pc;
	uint64_t die;
	uint32_t name;		/* offsets in the strings */
	uint32_t file;
	int32_t line;
	uint32_t cu;
	uint32_t is_inline;
	uint32_t pad;
};

struct symbol_record {
	uint64_t address;
	uint64_t size;
	uint32_t name;
	uint32_t unique;
};

struct dwpoints {
	Dwarf *dwarf;
	/* A user file's: its files named in full, as stap names them ("f@/src/f.c:3"); the
	 * kernel's relative to its units' directory ("vfs_read@fs/read_write.c:450"). */
	bool user;
	const struct index_record *sites;	/* in DIE order */
	size_t nsites;
	const uint32_t *sites_by_name;		/* their indices by name, then DIE order */
	const struct symbol_record *symbols;	/* by address */
	size_t nsymbols;
	const uint32_t *symbols_by_name;	/* their indices by name, then address */
	const uint64_t *entries;		/* the out-of-line sites' pcs, sorted */
	size_t nentries;
	const char *strings;			/* NUL-terminated, the last byte NUL */
	size_t strings_size;
};

static const char *display_file(const char *path, const char *comp_dir)
{
	size_t len = comp_dir ? strlen(comp_dir) : 0;

	if (!path)
		return "";
	if (len && !strncmp(path, comp_dir, len) && path[len] == '/')
		path += len + 1;
	while (!strncmp(path, "./", 2))
		path += 2;
	return path;
}

/* The directory the unit's files are named from: the kernel's units' own, none for a user
 * file's (named in full). */
static const char *unit_dir(const struct dwpoints *dp, Dwarf_Die *cu)
{
	Dwarf_Attribute attr;

	return dp->user ? NULL : dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr));
}

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;

	return dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
}

/* Appends a site for `die` to *sites; nothing for a DIE without a name. */
static void push_site(struct dw_site **sites, size_t *n, size_t *cap, Dwarf_Die *die,
		      uint64_t pc, bool is_inline, const char *comp_dir)
{
	const char *name = die_name(die);
	struct dw_site *s;
	int line = 0;

	if (!name)
		return;
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 4096;
		*sites = xrealloc(*sites, *cap * sizeof(**sites));
	}
	s = &(*sites)[(*n)++];
	dwarf_decl_line(die, &line);
	s->name = name;
	s->file = display_file(dwarf_decl_file(die), comp_dir);
	s->line = line;
	s->pc = pc;
	s->die = dwarf_dieoffset(die);
	s->is_inline = is_inline;
	s->cu = 0;
}

static void add_site(struct builder *b, Dwarf_Die *die, uint64_t pc, bool is_inline,
		     const char *comp_dir)
{
	size_t before = b->nsites;

	push_site(&b->sites, &b->nsites, &b->cap, die, pc, is_inline, comp_dir);
	if (b->nsites > before)
		b->sites[before].cu = b->ncus;
}

/* The first address of a DIE with code: its entry pc, else its first range's start. */
static bool first_pc(Dwarf_Die *die, uint64_t *pc)
{
	Dwarf_Addr base, start, end, entry;

	if (dwarf_entrypc(die, &entry) == 0) {
		*pc = entry;
		return true;
	}
	if (dwarf_ranges(die, 0, &base, &start, &end) > 0) {
		*pc = start;
		return true;
	}
	return false;
}

/* The functions and inlined instances inside `parent`, recursively. */
static void walk_scope(struct builder *b, Dwarf_Die *parent, const char *comp_dir)
{
	Dwarf_Die child;
	uint64_t pc;

	if (dwarf_child(parent, &child) != 0)
		return;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_subprogram:
			if (!dwarf_hasattr(&child, DW_AT_declaration) && first_pc(&child, &pc))
				add_site(b, &child, pc, false, comp_dir);
			walk_scope(b, &child, comp_dir);
			break;
		case DW_TAG_inlined_subroutine:
			if (first_pc(&child, &pc))
				add_site(b, &child, pc, true, comp_dir);
			walk_scope(b, &child, comp_dir);
			break;
		case DW_TAG_lexical_block:
			walk_scope(b, &child, comp_dir);
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* The compilation units there are (their headers only: quick), for the progress line. */
static long count_cus(Dwarf *dwarf)
{
	Dwarf_Off offset = 0, next;
	size_t header_size;
	long n = 0;

	while (dwarf_nextcu(dwarf, offset, &next, &header_size, NULL, NULL, NULL) == 0) {
		n++;
		offset = next;
	}
	return n;
}

static void index_functions(struct builder *b)
{
	Dwarf_Off offset = 0, next;
	size_t header_size;
	long total = count_cus(b->dwarf);

	while (dwarf_nextcu(b->dwarf, offset, &next, &header_size, NULL, NULL, NULL) == 0) {
		progress_count((long)b->ncus, total, "compilation units");
		Dwarf_Die cu;
		Dwarf_Attribute attr;

		if (dwarf_offdie(b->dwarf, offset + header_size, &cu)) {
			const char *comp_dir = b->user ? NULL :
				dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &attr));

			walk_scope(b, &cu, comp_dir);
		}
		b->ncus++;
		offset = next;
	}
}

static int by_address(const void *a, const void *b)
{
	const struct func_symbol *x = a, *y = b;

	return x->address < y->address ? -1 : x->address > y->address;
}

static int by_name(const void *a, const void *b)
{
	const struct func_symbol *const *x = a, *const *y = b;
	int c = strcmp((*x)->name, (*y)->name);

	if (c)
		return c;
	return (*x)->address < (*y)->address ? -1 : (*x)->address > (*y)->address;
}

/* Sorts the symbols by name and marks those whose name no other symbol has. */
static void mark_unique(struct builder *b)
{
	struct func_symbol **sorted = xcalloc(b->nsymbols + 1, sizeof(*sorted));

	for (size_t i = 0; i < b->nsymbols; i++)
		sorted[i] = &b->symbols[i];
	qsort(sorted, b->nsymbols, sizeof(*sorted), by_name);
	for (size_t i = 0; i < b->nsymbols; i++)
		sorted[i]->unique = (!i || strcmp(sorted[i - 1]->name, sorted[i]->name)) &&
				    (i + 1 == b->nsymbols ||
				     strcmp(sorted[i + 1]->name, sorted[i]->name));
	b->by_name = sorted;
}

static int by_value(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

static void sort_entries(struct builder *b)
{
	b->entries = xcalloc(b->nsites + 1, sizeof(*b->entries));
	for (size_t i = 0; i < b->nsites; i++)
		if (!b->sites[i].is_inline)
			b->entries[b->nentries++] = b->sites[i].pc;
	qsort(b->entries, b->nentries, sizeof(*b->entries), by_value);
}

static void read_symbols(struct builder *b, Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t cap = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_SYMTAB)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && shdr.sh_entsize && i < shdr.sh_size / shdr.sh_entsize;
		     i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    (GELF_ST_TYPE(sym.st_info) != STT_FUNC &&
			     GELF_ST_TYPE(sym.st_info) != STT_NOTYPE))
				continue;
			name = elf_strptr(elf, shdr.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			if (b->nsymbols == cap) {
				cap = cap ? cap * 2 : 65536;
				b->symbols = xrealloc(b->symbols, cap * sizeof(*b->symbols));
			}
			b->symbols[b->nsymbols++] = (struct func_symbol){
				sym.st_value, sym.st_size, name, false };
		}
	}
	qsort(b->symbols, b->nsymbols, sizeof(*b->symbols), by_address);
}

/* The walk and the symbol table. */
static void build(struct builder *b, Dwarf *dwarf, Elf *elf)
{
	b->dwarf = dwarf;
	index_functions(b);
	read_symbols(b, elf);
	mark_unique(b);
	sort_entries(b);
}

static void free_builder(struct builder *b)
{
	free(b->sites);
	free(b->symbols);
	free(b->by_name);
	free(b->entries);
}

/*
 * The image, and the file in $TAPSTER_DIR/dwindex/HASH, HASH of the key (the format's
 * version and the debuginfo's path, size, time and inode): a header, the key, the sites
 * (struct index_record, in DIE order), their order by name (uint32_t indices), the symbols
 * (struct symbol_record, by address), their order by name, the sorted entries (uint64_t)
 * and the strings (NUL-terminated, each once). A file whose header or layout doesn't match
 * is ignored: the index is built again and rewritten. What a record points to is checked
 * when it is read, so a damaged file gives wrong points at worst, never a crash.
 */
#define INDEX_MAGIC "TPDWIDX\n"
#define INDEX_VERSION 3u

static size_t padded(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

struct index_header {
	char magic[8];
	uint32_t version;
	uint32_t ncus;
	uint64_t nsites;
	uint64_t nsymbols;
	uint64_t nentries;
	uint64_t key_size;	/* padded to 8 in the file */
	uint64_t strings_size;
	uint64_t total_size;
};

/* Where each part of an image is, from its start. */
struct index_layout {
	size_t sites, sites_by_name, symbols, symbols_by_name, entries, strings, end;
};

static struct index_layout layout_of(const struct index_header *h)
{
	struct index_layout l;

	l.sites = sizeof(*h) + padded(h->key_size);
	l.sites_by_name = l.sites + h->nsites * sizeof(struct index_record);
	l.symbols = l.sites_by_name + padded(h->nsites * sizeof(uint32_t));
	l.symbols_by_name = l.symbols + h->nsymbols * sizeof(struct symbol_record);
	l.entries = l.symbols_by_name + padded(h->nsymbols * sizeof(uint32_t));
	l.strings = l.entries + h->nentries * sizeof(uint64_t);
	l.end = l.strings + h->strings_size;
	return l;
}

/* NULL when the file can't be described on one line or stat fails. */
static char *index_key(const char *path)
{
	struct stat st;

	if (strchr(path, '\n') || stat(path, &st) != 0)
		return NULL;
	return xasprintf("dwindex %u %zu %s %lld %lld.%09ld %llu", INDEX_VERSION,
			 sizeof(struct index_record), path, (long long)st.st_size,
			 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
			 (unsigned long long)st.st_ino);
}

/* The header of an image if its layout fits `size` and it was made for `key`, else NULL. */
static const struct index_header *valid_image(const char *image, size_t size, const char *key)
{
	const struct index_header *h = (const void *)image;
	size_t key_size = strlen(key);

	/* Each count is bounded by the size first, so the layout can't overflow. */
	if (size < sizeof(*h) + padded(key_size) || memcmp(h->magic, INDEX_MAGIC, 8) ||
	    h->version != INDEX_VERSION || h->key_size != key_size ||
	    h->total_size != size || memcmp(image + sizeof(*h), key, key_size) ||
	    h->nsites > size / sizeof(struct index_record) ||
	    h->nsymbols > size / sizeof(struct symbol_record) ||
	    h->nentries > size / sizeof(uint64_t) || h->strings_size > UINT32_MAX ||
	    !h->strings_size || image[size - 1] != '\0')
		return NULL;
	return layout_of(h).end == size ? h : NULL;
}

/* Points the queries at the image (which stays for the process's life). */
static void use_image(struct dwpoints *dp, const char *image)
{
	const struct index_header *h = (const void *)image;
	struct index_layout l = layout_of(h);

	dp->sites = (const void *)(image + l.sites);
	dp->nsites = h->nsites;
	dp->sites_by_name = (const void *)(image + l.sites_by_name);
	dp->symbols = (const void *)(image + l.symbols);
	dp->nsymbols = h->nsymbols;
	dp->symbols_by_name = (const void *)(image + l.symbols_by_name);
	dp->entries = (const void *)(image + l.entries);
	dp->nentries = h->nentries;
	dp->strings = image + l.strings;
	dp->strings_size = h->strings_size;
}

/* Maps the cached image at `path`; false (nothing changed) when it is missing or not
 * valid. */
static bool load_image(struct dwpoints *dp, const char *path, const char *key)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	void *map = MAP_FAILED;

	if (fd < 0)
		return false;
	if (fstat(fd, &st) == 0 && st.st_size > 0)
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return false;
	if (!valid_image(map, (size_t)st.st_size, key)) {
		munmap(map, (size_t)st.st_size);
		return false;
	}
	use_image(dp, map);
	return true;
}

/* The strings of the index, each once: an open-addressing table of offsets + 1. */
struct string_table {
	struct strbuf text;
	uint32_t *slots;
	size_t nslots, used;
};

static uint64_t string_hash(const char *s)
{
	uint64_t hash = 14695981039346656037ull;

	while (*s)
		hash = (hash ^ (unsigned char)*s++) * 1099511628211ull;
	return hash;
}

static void string_table_grow(struct string_table *t)
{
	size_t nslots = t->nslots ? t->nslots * 2 : 1 << 16;
	uint32_t *slots = xcalloc(nslots, sizeof(*slots));

	for (size_t i = 0; i < t->nslots; i++) {
		size_t j;

		if (!t->slots[i])
			continue;
		j = string_hash(t->text.buf + t->slots[i] - 1) & (nslots - 1);
		while (slots[j])
			j = (j + 1) & (nslots - 1);
		slots[j] = t->slots[i];
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = nslots;
}

/* The offset of `s` in the table, added if new; false when the table is too big. */
static bool string_offset(struct string_table *t, const char *s, uint32_t *offset)
{
	size_t j;

	if (2 * (t->used + 1) > t->nslots)
		string_table_grow(t);
	j = string_hash(s) & (t->nslots - 1);
	for (; t->slots[j]; j = (j + 1) & (t->nslots - 1))
		if (!strcmp(t->text.buf + t->slots[j] - 1, s)) {
			*offset = t->slots[j] - 1;
			return true;
		}
	if (t->text.len + strlen(s) + 1 >= UINT32_MAX)
		return false;
	*offset = (uint32_t)t->text.len;
	sb_addn(&t->text, s, strlen(s) + 1);
	t->slots[j] = *offset + 1;
	t->used++;
	return true;
}

/* The records of the sites; false when the strings don't fit 32-bit offsets. */
static bool site_records(const struct builder *b, struct index_record *records,
			 struct string_table *strings)
{
	for (size_t i = 0; i < b->nsites; i++) {
		const struct dw_site *s = &b->sites[i];

		records[i] = (struct index_record){ .pc = s->pc, .die = s->die, .line = s->line,
						    .cu = s->cu, .is_inline = s->is_inline };
		if (!string_offset(strings, s->name, &records[i].name) ||
		    !string_offset(strings, s->file, &records[i].file))
			return false;
	}
	return true;
}

static bool symbol_records(const struct builder *b, struct symbol_record *symbols,
			   uint32_t *by_name, struct string_table *strings)
{
	for (size_t i = 0; i < b->nsymbols; i++) {
		const struct func_symbol *sym = &b->symbols[i];

		symbols[i] = (struct symbol_record){ .address = sym->address, .size = sym->size,
						     .unique = sym->unique };
		by_name[i] = (uint32_t)(b->by_name[i] - b->symbols);
		if (!string_offset(strings, sym->name, &symbols[i].name))
			return false;
	}
	return true;
}

static const struct dw_site *sorted_sites;

static int site_by_name(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcmp(sorted_sites[x].name, sorted_sites[y].name);

	return c ? c : x < y ? -1 : x > y;
}

/* The sites' indices by name, then DIE order. */
static uint32_t *sites_by_name(const struct builder *b)
{
	uint32_t *order = xcalloc(b->nsites + 1, sizeof(*order));

	for (size_t i = 0; i < b->nsites; i++)
		order[i] = (uint32_t)i;
	sorted_sites = b->sites;
	qsort(order, b->nsites, sizeof(*order), site_by_name);
	sorted_sites = NULL;
	return order;
}

/* Copies `size` bytes to `image` at `*at`, then zeros up to the next multiple of 8. */
static void put(char *image, size_t *at, const void *data, size_t size)
{
	memcpy(image + *at, data, size);
	memset(image + *at + size, 0, padded(size) - size);
	*at += padded(size);
}

/* The image of what `b` holds, for `key`; NULL when it can't be laid out (32-bit
 * offsets). */
static char *make_image(const struct builder *b, const char *key, size_t *size)
{
	struct index_record *records = xcalloc(b->nsites + 1, sizeof(*records));
	struct symbol_record *symbols = xcalloc(b->nsymbols + 1, sizeof(*symbols));
	uint32_t *symbols_order = xcalloc(b->nsymbols + 1, sizeof(*symbols_order));
	uint32_t *sites_order = NULL;
	struct string_table strings = { 0 };
	struct index_header h = { .magic = INDEX_MAGIC, .version = INDEX_VERSION,
				  .ncus = b->ncus, .nsites = b->nsites,
				  .nsymbols = b->nsymbols, .nentries = b->nentries,
				  .key_size = strlen(key) };
	char *image = NULL;
	size_t at = 0;

	if (b->nsites < UINT32_MAX && b->nsymbols < UINT32_MAX &&
	    site_records(b, records, &strings) &&
	    symbol_records(b, symbols, symbols_order, &strings) && strings.text.len) {
		sites_order = sites_by_name(b);
		h.strings_size = strings.text.len;
		h.total_size = layout_of(&h).end;
		image = xcalloc(1, padded(h.total_size));
		put(image, &at, &h, sizeof(h));
		put(image, &at, key, h.key_size);
		put(image, &at, records, b->nsites * sizeof(*records));
		put(image, &at, sites_order, b->nsites * sizeof(*sites_order));
		put(image, &at, symbols, b->nsymbols * sizeof(*symbols));
		put(image, &at, symbols_order, b->nsymbols * sizeof(*symbols_order));
		put(image, &at, b->entries, b->nentries * sizeof(*b->entries));
		memcpy(image + at, strings.text.buf, strings.text.len);
		*size = h.total_size;
	}
	free(records);
	free(symbols);
	free(symbols_order);
	free(sites_order);
	free(strings.text.buf);
	free(strings.slots);
	return image;
}

/* Writes the image to a temporary file renamed to `path`; nothing on any failure. */
static void save_image(const char *image, size_t size, const char *path)
{
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	FILE *f = fopen(tmp, "wbx");
	bool ok = f && fwrite(image, 1, size, f) == size;

	if (f && fclose(f) != 0)
		ok = false;
	if (f && (!ok || rename(tmp, path) != 0))
		unlink(tmp);
	free(tmp);
}

/* The index built by the walk (and cached in `path` when it is not NULL); false when the
 * image can't be laid out. */
static bool build_image(struct dwpoints *dp, const struct debuginfo *di, const char *path,
			const char *key)
{
	struct builder b = { 0 };
	size_t size = 0;
	char *image;

	progress_begin("indexing the kernel's DWARF (once)");
	build(&b, debuginfo_dwarf(di), debuginfo_elf(di));
	image = make_image(&b, key, &size);
	free_builder(&b);
	progress_end();
	if (!image)
		return false;
	if (path)
		save_image(image, size, path);
	use_image(dp, image);
	return true;
}

/* The kernel's index: loaded from the cache, else (if `may_build`) built by the walk and
 * cached. NULL when neither. */
static const struct dwpoints *kernel_index(const struct debuginfo *di, bool may_build)
{
	static struct dwpoints *kernel;
	bool read = false, loaded = false;
	char *key, *path;

	if (kernel || !di)
		return kernel;
	key = index_key(debuginfo_path(di));
	path = key && debuginfo_cache_allowed(di, &read) ? keyed_cache_path("dwindex", key) :
							 NULL;
	kernel = xcalloc(1, sizeof(*kernel));
	kernel->dwarf = debuginfo_dwarf(di);
	if (path && read)
		loaded = load_image(kernel, path, key);
	if (!loaded && (!may_build || !build_image(kernel, di, path, key ? key : ""))) {
		free(kernel);
		kernel = NULL;
	}
	free(path);
	free(key);
	return kernel;
}

const struct dwpoints *dwpoints_of(const struct debuginfo *di)
{
	return kernel_index(di, true);
}

const struct dwpoints *dwpoints_cached(const struct debuginfo *di)
{
	return kernel_index(di, false);
}

/* A user file's index: built on first use (its DWARF is small), not cached; one per
 * Dwarf, kept for the run. */
const struct dwpoints *dwpoints_of_file(Dwarf *dwarf, Elf *elf)
{
	static struct dwpoints **files;
	static size_t nfiles;
	struct builder b = { 0 };
	struct dwpoints *dp;
	size_t size = 0;
	char *image;

	if (!dwarf || !elf)
		return NULL;
	for (size_t i = 0; i < nfiles; i++)
		if (files[i]->dwarf == dwarf)
			return files[i];
	b.user = true;
	build(&b, dwarf, elf);
	image = make_image(&b, "", &size);
	free_builder(&b);
	if (!image)
		return NULL;
	dp = xcalloc(1, sizeof(*dp));
	dp->dwarf = dwarf;
	dp->user = true;
	use_image(dp, image);
	files = xrealloc(files, (nfiles + 1) * sizeof(*files));
	files[nfiles++] = dp;
	return dp;
}

/* ---- Queries on the image ---- */

static const char *string_at(const struct dwpoints *dp, uint32_t offset)
{
	return offset < dp->strings_size ? dp->strings + offset : "";
}

static struct dw_site site_at(const struct dwpoints *dp, size_t i)
{
	const struct index_record *r = &dp->sites[i];

	return (struct dw_site){ string_at(dp, r->name), string_at(dp, r->file), r->line,
				 r->pc, r->die, r->is_inline != 0, r->cu };
}

static const char *site_name(const struct dwpoints *dp, uint32_t i)
{
	return i < dp->nsites ? string_at(dp, dp->sites[i].name) : "";
}

static const char *symbol_name(const struct dwpoints *dp, uint32_t i)
{
	return i < dp->nsymbols ? string_at(dp, dp->symbols[i].name) : "";
}

/* The first position in an order by name (`order` of `n` indices, `name_of` an index's
 * name) whose name is not below `name` (its first `len` bytes). */
static size_t lower_bound(const struct dwpoints *dp, const uint32_t *order, size_t n,
			  const char *(*name_of)(const struct dwpoints *, uint32_t),
			  const char *name, size_t len)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strncmp(name_of(dp, order[mid]), name, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int by_index(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

struct dw_site *dwpoints_sites_named(const struct dwpoints *dp, const char *pattern,
				     bool literal, size_t *count)
{
	size_t len = literal ? strlen(pattern) : strcspn(pattern, "*?[\\");
	size_t n = 0, i = lower_bound(dp, dp->sites_by_name, dp->nsites, site_name, pattern,
				      len);
	uint32_t *found = NULL;
	struct dw_site *sites;

	for (; i < dp->nsites; i++) {
		uint32_t k = dp->sites_by_name[i];
		const char *name = site_name(dp, k);

		if (strncmp(name, pattern, len))
			break;
		if (k >= dp->nsites || (literal ? strcmp(name, pattern) : fnmatch(pattern, name, 0)))
			continue;
		found = xrealloc(found, (n + 1) * sizeof(*found));
		found[n++] = k;
	}
	if (n)
		qsort(found, n, sizeof(*found), by_index);
	sites = xcalloc(n + 1, sizeof(*sites));
	for (size_t j = 0; j < n; j++)
		sites[j] = site_at(dp, found[j]);
	free(found);
	*count = n;
	return sites;
}

bool dwpoints_function_die(const struct dwpoints *dp, const char *name, uint64_t *die)
{
	uint64_t address = dwpoints_symbol_address(dp, name);
	size_t len = strlen(name);
	bool found = false;

	for (size_t i = lower_bound(dp, dp->sites_by_name, dp->nsites, site_name, name, len + 1);
	     i < dp->nsites; i++) {
		uint32_t k = dp->sites_by_name[i];

		if (strcmp(site_name(dp, k), name))
			break;
		if (dp->sites[k].is_inline || (found && dp->sites[k].pc != address))
			continue;
		*die = dp->sites[k].die;
		found = true;
		if (dp->sites[k].pc == address)
			break;
	}
	/* An alias (a symbol the DWARF names otherwise): the function at its address. */
	for (size_t k = 0; !found && address && k < dp->nsites; k++)
		if (!dp->sites[k].is_inline && dp->sites[k].pc == address) {
			*die = dp->sites[k].die;
			found = true;
		}
	return found;
}

bool dwpoints_is_function_entry(const struct dwpoints *dp, uint64_t pc)
{
	return bsearch(&pc, dp->entries, dp->nentries, sizeof(*dp->entries), by_value) != NULL;
}

/* The last symbol at or below `pc` that is a function (NOTYPE symbols are kept only for
 * dwpoints_symbol_address). */
bool dwpoints_symbol(const struct dwpoints *dp, uint64_t pc, const char **name,
		     uint64_t *start, bool *unique)
{
	size_t lo = 0, hi = dp->nsymbols;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (dp->symbols[mid].address <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo > 0) {
		const struct symbol_record *sym = &dp->symbols[--lo];

		if (!sym->size)
			continue;
		if (pc >= sym->address + sym->size)
			return false;
		*name = string_at(dp, sym->name);
		*start = sym->address;
		*unique = sym->unique != 0;
		return true;
	}
	return false;
}

bool dwpoints_unique_symbol_below(const struct dwpoints *dp, uint64_t address,
				  const char **name, uint64_t *start)
{
	for (size_t i = dp->nsymbols; i-- > 0;) {
		const struct symbol_record *sym = &dp->symbols[i];

		if (sym->address >= address || !sym->unique || !sym->size)
			continue;
		*name = string_at(dp, sym->name);
		*start = sym->address;
		return true;
	}
	return false;
}

uint64_t dwpoints_symbol_address(const struct dwpoints *dp, const char *name)
{
	size_t i = lower_bound(dp, dp->symbols_by_name, dp->nsymbols, symbol_name, name,
			       strlen(name) + 1);
	uint32_t k = i < dp->nsymbols ? dp->symbols_by_name[i] : 0;

	return i < dp->nsymbols && !strcmp(symbol_name(dp, k), name) ?
	       dp->symbols[k].address : 0;
}


/* The callees of `parent`: its inlined instances with a low pc, through lexical blocks. */
static void collect_inlined(Dwarf_Die *parent, const char *comp_dir, struct dw_site **sites,
			    size_t *n, size_t *cap)
{
	Dwarf_Die child;
	Dwarf_Addr low;

	if (dwarf_child(parent, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_inlined_subroutine && dwarf_hasattr(&child, DW_AT_low_pc) &&
		    dwarf_lowpc(&child, &low) == 0)
			push_site(sites, n, cap, &child, low, true, comp_dir);
		else if (tag == DW_TAG_lexical_block)
			collect_inlined(&child, comp_dir, sites, n, cap);
	} while (dwarf_siblingof(&child, &child) == 0);
}

struct dw_site *dwpoints_inlined_in(const struct dwpoints *dp, uint64_t die, size_t *count)
{
	Dwarf_Die scope, cu;
	struct dw_site *sites = NULL;
	size_t cap = 0;

	*count = 0;
	if (!dwarf_offdie(dp->dwarf, die, &scope) || !dwarf_diecu(&scope, &cu, NULL, NULL))
		return NULL;
	collect_inlined(&scope, unit_dir(dp, &cu), &sites,
			count, &cap);
	return sites;
}

/* Calls `visit` on each child of `parent`, through lexical blocks (their children in their
 * place), not through inlined instances. */
static void visit_children(Dwarf_Die *parent, void (*visit)(Dwarf_Die *child, void *ctx),
			   void *ctx, int depth)
{
	Dwarf_Die child;

	if (depth > 32 || dwarf_child(parent, &child) != 0)
		return;
	do {
		if (dwarf_tag(&child) == DW_TAG_lexical_block)
			visit_children(&child, visit, ctx, depth + 1);
		else
			visit(&child, ctx);
	} while (dwarf_siblingof(&child, &child) == 0);
}

struct labels_found {
	struct dw_label *labels;
	size_t n;
};

/* A label with code. */
static void collect_label(Dwarf_Die *child, void *ctx)
{
	struct labels_found *found = ctx;
	const char *name;
	Dwarf_Addr low;
	int line = 0;

	if (dwarf_tag(child) != DW_TAG_label || !(name = die_name(child)) ||
	    dwarf_lowpc(child, &low) != 0)
		return;
	dwarf_decl_line(child, &line);
	ARRAY_PUSH(found->labels, found->n, ((struct dw_label){ name, line, low }));
}

struct dw_label *dwpoints_labels_in(const struct dwpoints *dp, uint64_t die, size_t *count)
{
	struct labels_found found = { NULL, 0 };
	Dwarf_Die scope;

	if (dwarf_offdie(dp->dwarf, die, &scope))
		visit_children(&scope, collect_label, &found, 0);
	*count = found.n;
	return found.labels;
}

struct calls_found {
	struct dw_call *calls;
	size_t n;
};

/* A direct call: a named callee and a return address. */
static void collect_call(Dwarf_Die *child, void *ctx)
{
	struct calls_found *found = ctx;
	Dwarf_Die callee;
	Dwarf_Attribute attr;
	const char *name;
	Dwarf_Addr low;

	if (dwarf_tag(child) != DW_TAG_GNU_call_site || dwarf_lowpc(child, &low) != 0 ||
	    !dwarf_formref_die(dwarf_attr(child, DW_AT_abstract_origin, &attr), &callee) ||
	    !(name = die_name(&callee)))
		return;
	ARRAY_PUSH(found->calls, found->n,
		   ((struct dw_call){ name, dwarf_dieoffset(&callee), low }));
}

struct dw_call *dwpoints_calls_in(const struct dwpoints *dp, uint64_t die, size_t *count)
{
	struct calls_found found = { NULL, 0 };
	Dwarf_Die scope;

	if (dwarf_offdie(dp->dwarf, die, &scope))
		visit_children(&scope, collect_call, &found, 0);
	*count = found.n;
	return found.calls;
}

bool dwpoints_site_has(const struct dwpoints *dp, const struct dw_site *site, uint64_t pc)
{
	Dwarf_Die die;

	return dwarf_offdie(dp->dwarf, site->die, &die) && dwarf_haspc(&die, pc) == 1;
}

/* A line record of a unit's file: its line and its address. */
struct file_line {
	int line;
	uint64_t pc;
};

/* The line records of one file of one unit, kept between the sites of the unit: sorted by
 * line then address (`by_line`) and, as indexes into it, by address (`by_pc`). */
struct file_records {
	char *file;
	struct file_line *by_line;
	size_t *by_pc;
	size_t n;
};

struct dw_line_cache {
	uint64_t cu;			/* the unit's DIE offset */
	struct file_records *files;
	size_t nfiles;
	bool *in_site;			/* per record of the file at hand, for one site */
	size_t in_site_cap;
};

static int by_line_then_pc(const void *a, const void *b)
{
	const struct file_line *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

static int by_record_index(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

static const struct file_line *sorting_records;

static int by_record_pc(const void *a, const void *b)
{
	uint64_t x = sorting_records[*(const size_t *)a].pc;
	uint64_t y = sorting_records[*(const size_t *)b].pc;

	return x < y ? -1 : x > y;
}

/* The line records of the compilation unit that are of `file`, sorted both ways. */
static void read_file_records(Dwarf_Lines *lines, size_t nlines, const char *file,
			      const char *comp_dir, struct file_records *fr)
{
	size_t cap = 0;

	*fr = (struct file_records){ .file = xstrdup(file) };
	for (size_t i = 0; i < nlines; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr pc;
		bool end;
		int lineno;

		if (!l || dwarf_lineaddr(l, &pc) || dwarf_lineendsequence(l, &end) || end ||
		    dwarf_lineno(l, &lineno) ||
		    strcmp(display_file(dwarf_linesrc(l, NULL, NULL), comp_dir), file))
			continue;
		if (fr->n == cap) {
			cap = cap ? cap * 2 : 256;
			fr->by_line = xrealloc(fr->by_line, cap * sizeof(*fr->by_line));
		}
		fr->by_line[fr->n++] = (struct file_line){ lineno, pc };
	}
	if (!fr->n)
		return;
	qsort(fr->by_line, fr->n, sizeof(*fr->by_line), by_line_then_pc);
	fr->by_pc = xcalloc(fr->n, sizeof(*fr->by_pc));
	for (size_t i = 0; i < fr->n; i++)
		fr->by_pc[i] = i;
	sorting_records = fr->by_line;
	qsort(fr->by_pc, fr->n, sizeof(*fr->by_pc), by_record_pc);
}

static void free_file_records(struct dw_line_cache *cache)
{
	for (size_t i = 0; i < cache->nfiles; i++) {
		free(cache->files[i].file);
		free(cache->files[i].by_line);
		free(cache->files[i].by_pc);
	}
	free(cache->files);
	cache->files = NULL;
	cache->nfiles = 0;
}

void dwpoints_line_cache_free(struct dw_line_cache *cache)
{
	if (!cache)
		return;
	free_file_records(cache);
	free(cache->in_site);
	free(cache);
}

/* The records of `file` in the unit `cu`, read once per unit and file. */
static const struct file_records *unit_file_records(struct dw_line_cache *cache, Dwarf_Die *cu,
						    const char *comp_dir, Dwarf_Lines *lines,
						    size_t nlines, const char *file)
{
	struct file_records *fr;

	if (cache->cu != dwarf_dieoffset(cu)) {
		free_file_records(cache);
		cache->cu = dwarf_dieoffset(cu);
	}
	for (size_t i = 0; i < cache->nfiles; i++)
		if (!strcmp(cache->files[i].file, file))
			return &cache->files[i];
	cache->files = xrealloc(cache->files, (cache->nfiles + 1) * sizeof(*cache->files));
	fr = &cache->files[cache->nfiles++];
	read_file_records(lines, nlines, file, comp_dir, fr);
	if (fr->n > cache->in_site_cap) {
		free(cache->in_site);
		cache->in_site = xcalloc(fr->n, sizeof(*cache->in_site));
		cache->in_site_cap = fr->n;
	}
	return fr;
}

/* The first of `fr`'s records by address at or above `pc`, as an index into by_pc. */
static size_t first_record_at(const struct file_records *fr, uint64_t pc)
{
	size_t lo = 0, hi = fr->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (fr->by_line[fr->by_pc[mid]].pc < pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The records of `fr` at an address of the site `die` (its ranges), as indexes into
 * by_line in ascending order, each flagged in cache->in_site; the array is the caller's. */
static size_t *records_in_site(struct dw_line_cache *cache, const struct file_records *fr,
			    Dwarf_Die *die, size_t *count)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t offset = 0;
	size_t *found = NULL, n = 0, cap = 0;

	while ((offset = dwarf_ranges(die, offset, &base, &lo, &hi)) > 0)
		for (size_t i = first_record_at(fr, lo);
		     i < fr->n && fr->by_line[fr->by_pc[i]].pc < hi; i++) {
			if (cache->in_site[fr->by_pc[i]])
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 64;
				found = xrealloc(found, cap * sizeof(*found));
			}
			found[n++] = fr->by_pc[i];
			cache->in_site[fr->by_pc[i]] = true;
		}
	if (n)
		qsort(found, n, sizeof(*found), by_record_index);
	*count = n;
	return found;
}

/* The line stap's "*" starts from: the record at the site's entry `pc` when one is exactly
 * there (as libdw finds it), else the first record of the unit (in address order, of any
 * file) that is in the site; 0 when none is. */
static int entry_line(Dwarf_Die *cu, Dwarf_Lines *lines, size_t nlines, Dwarf_Die *site,
		      uint64_t pc)
{
	Dwarf_Line *l = dwarf_getsrc_die(cu, pc);
	Dwarf_Addr at;
	int lineno = 0;

	if (l && !dwarf_lineaddr(l, &at) && at == pc && !dwarf_lineno(l, &lineno))
		return lineno;
	for (size_t i = 0; i < nlines; i++) {
		l = dwarf_onesrcline(lines, i);
		if (l && !dwarf_lineaddr(l, &at) && dwarf_haspc(site, at) == 1 &&
		    !dwarf_lineno(l, &lineno))
			return lineno;
	}
	return 0;
}

/* Each line's first record in the site (`mine`, n of them, ascending), in line order. */
static struct dw_line *first_of_each_line(const struct file_records *fr, const size_t *mine,
					  size_t n, size_t *count)
{
	struct dw_line *out = xcalloc(n + 1, sizeof(*out));
	size_t kept = 0;

	for (size_t i = 0; i < n; i++)
		if (!kept || out[kept - 1].line != fr->by_line[mine[i]].line)
			out[kept++] = (struct dw_line){ fr->by_line[mine[i]].line,
							fr->by_line[mine[i]].pc };
	*count = kept;
	return out;
}

/* stap's "*": from the line `from` on, in the order of the file's lines, each line's first
 * record in the site, up to the first line of the file that has none there. */
static struct dw_line *walk_lines(const struct dw_line_cache *cache,
				  const struct file_records *fr, int from, size_t limit,
				  size_t *count)
{
	struct dw_line *out = xcalloc(limit + 1, sizeof(*out));
	size_t kept = 0, lo = 0, hi = fr->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (fr->by_line[mid].line < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == fr->n || fr->by_line[lo].line != from)
		lo = fr->n;
	while (lo < fr->n) {
		const struct file_line *first = NULL;
		size_t j;

		for (j = lo; j < fr->n && fr->by_line[j].line == fr->by_line[lo].line; j++)
			if (!first && cache->in_site[j])
				first = &fr->by_line[j];
		if (!first)
			break;
		out[kept++] = (struct dw_line){ first->line, first->pc };
		lo = j;
	}
	*count = kept;
	return out;
}

struct dw_line *dwpoints_lines(const struct dwpoints *dp, struct dw_line_cache **cache,
			       const struct dw_site *site, bool from_entry, size_t *count)
{
	Dwarf_Die die, cu;
	Dwarf_Lines *lines;
	const struct file_records *fr;
	struct dw_line *out;
	size_t nlines, *mine, nmine;

	*count = 0;
	if (!dwarf_offdie(dp->dwarf, site->die, &die) || !dwarf_diecu(&die, &cu, NULL, NULL) ||
	    dwarf_getsrclines(&cu, &lines, &nlines))
		return NULL;
	if (!*cache)
		*cache = xcalloc(1, sizeof(**cache));
	fr = unit_file_records(*cache, &cu, unit_dir(dp, &cu), lines, nlines, site->file);
	mine = records_in_site(*cache, fr, &die, &nmine);
	if (from_entry)
		out = walk_lines(*cache, fr, entry_line(&cu, lines, nlines, &die, site->pc),
				 nmine, count);
	else
		out = first_of_each_line(fr, mine, nmine, count);
	for (size_t i = 0; i < nmine; i++)
		(*cache)->in_site[mine[i]] = false;
	free(mine);
	return out;
}
