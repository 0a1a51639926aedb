// SPDX-License-Identifier: GPL-2.0-or-later
/* The kernel's function sites and source lines from its DWARF (dwpoints.h). */
#include "dwpoints.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "debuginfo.h"
#include "util.h"

struct func_symbol {
	uint64_t address;
	uint64_t size;
	const char *name;
	bool unique;
};

struct dwpoints {
	Dwarf *dwarf;
	struct dw_site *sites;
	size_t nsites, cap;
	unsigned ncus;
	struct func_symbol *symbols;	/* by address */
	size_t nsymbols;
	struct func_symbol **by_name;	/* the same by name, then address */
	uint64_t *entries;		/* the out-of-line sites' pcs, sorted */
	size_t nentries;
};

/* A file name as stap shows it: relative to the compilation directory, without "./". */
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

static void add_site(struct dwpoints *dp, Dwarf_Die *die, uint64_t pc, bool is_inline,
		     const char *comp_dir)
{
	size_t before = dp->nsites;

	push_site(&dp->sites, &dp->nsites, &dp->cap, die, pc, is_inline, comp_dir);
	if (dp->nsites > before)
		dp->sites[before].cu = dp->ncus;
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
static void walk_scope(struct dwpoints *dp, Dwarf_Die *parent, const char *comp_dir)
{
	Dwarf_Die child;
	uint64_t pc;

	if (dwarf_child(parent, &child) != 0)
		return;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_subprogram:
			if (!dwarf_hasattr(&child, DW_AT_declaration) && first_pc(&child, &pc))
				add_site(dp, &child, pc, false, comp_dir);
			walk_scope(dp, &child, comp_dir);
			break;
		case DW_TAG_inlined_subroutine:
			if (first_pc(&child, &pc))
				add_site(dp, &child, pc, true, comp_dir);
			walk_scope(dp, &child, comp_dir);
			break;
		case DW_TAG_lexical_block:
			walk_scope(dp, &child, comp_dir);
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

static void index_functions(struct dwpoints *dp)
{
	Dwarf_Off offset = 0, next;
	size_t header_size;

	while (dwarf_nextcu(dp->dwarf, offset, &next, &header_size, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Attribute attr;

		if (dwarf_offdie(dp->dwarf, offset + header_size, &cu)) {
			const char *comp_dir =
				dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &attr));

			walk_scope(dp, &cu, comp_dir);
		}
		dp->ncus++;
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
static void mark_unique(struct dwpoints *dp)
{
	struct func_symbol **sorted = xcalloc(dp->nsymbols + 1, sizeof(*sorted));

	for (size_t i = 0; i < dp->nsymbols; i++)
		sorted[i] = &dp->symbols[i];
	qsort(sorted, dp->nsymbols, sizeof(*sorted), by_name);
	for (size_t i = 0; i < dp->nsymbols; i++)
		sorted[i]->unique = (!i || strcmp(sorted[i - 1]->name, sorted[i]->name)) &&
				    (i + 1 == dp->nsymbols ||
				     strcmp(sorted[i + 1]->name, sorted[i]->name));
	dp->by_name = sorted;
}

static int by_value(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

static void sort_entries(struct dwpoints *dp)
{
	dp->entries = xcalloc(dp->nsites + 1, sizeof(*dp->entries));
	for (size_t i = 0; i < dp->nsites; i++)
		if (!dp->sites[i].is_inline)
			dp->entries[dp->nentries++] = dp->sites[i].pc;
	qsort(dp->entries, dp->nentries, sizeof(*dp->entries), by_value);
}

bool dwpoints_is_function_entry(const struct dwpoints *dp, uint64_t pc)
{
	return bsearch(&pc, dp->entries, dp->nentries, sizeof(*dp->entries), by_value) != NULL;
}

static void read_symbols(struct dwpoints *dp, Elf *elf)
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
			if (dp->nsymbols == cap) {
				cap = cap ? cap * 2 : 65536;
				dp->symbols = xrealloc(dp->symbols, cap * sizeof(*dp->symbols));
			}
			dp->symbols[dp->nsymbols++] = (struct func_symbol){
				sym.st_value, sym.st_size, name, false };
		}
	}
	qsort(dp->symbols, dp->nsymbols, sizeof(*dp->symbols), by_address);
}

/*
 * The index persists in $TAPSTER_DIR/dwindex/HASH, HASH of the key (the format's version and
 * the debuginfo's path, size, time and inode), so that later runs skip the walk and the
 * sorts. The file: a header, the key, the sites (struct index_record, in DIE order), the
 * symbols (struct symbol_record, by address), their order by name (uint32_t indices), the
 * sorted entries (uint64_t) and the strings (NUL-terminated, each once). Any mismatch makes
 * it ignored: the index is built again and rewritten.
 */
#define INDEX_MAGIC "TPDWIDX\n"
#define INDEX_VERSION 2u

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

/* Where each part of an index is, from its start. */
struct index_layout {
	size_t sites, symbols, by_name, entries, strings, end;
};

static struct index_layout layout_of(const struct index_header *h)
{
	struct index_layout l;

	l.sites = sizeof(*h) + padded(h->key_size);
	l.symbols = l.sites + h->nsites * sizeof(struct index_record);
	l.by_name = l.symbols + h->nsymbols * sizeof(struct symbol_record);
	l.entries = l.by_name + padded(h->nsymbols * sizeof(uint32_t));
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

static bool valid_records(const struct index_record *records, uint64_t nsites,
			  uint64_t strings_size, uint32_t ncus)
{
	for (uint64_t i = 0; i < nsites; i++)
		if (records[i].name >= strings_size || records[i].file >= strings_size ||
		    records[i].is_inline > 1 || records[i].cu >= ncus)
			return false;
	return true;
}

static bool valid_symbols(const struct symbol_record *symbols, const uint32_t *by_name,
			  uint64_t nsymbols, uint64_t strings_size)
{
	for (uint64_t i = 0; i < nsymbols; i++)
		if (symbols[i].name >= strings_size || symbols[i].unique > 1 ||
		    by_name[i] >= nsymbols)
			return false;
	return true;
}

/* The header of a mapped index if it is whole and made for `key`, else NULL. */
static const struct index_header *valid_index(const char *map, size_t size, const char *key)
{
	const struct index_header *h = (const void *)map;
	size_t key_size = strlen(key);
	struct index_layout l;

	/* Each count is bounded by the size first, so the layout can't overflow. */
	if (size < sizeof(*h) + padded(key_size) || memcmp(h->magic, INDEX_MAGIC, 8) ||
	    h->version != INDEX_VERSION || h->key_size != key_size ||
	    h->total_size != size || memcmp(map + sizeof(*h), key, key_size) ||
	    h->nsites > size / sizeof(struct index_record) ||
	    h->nsymbols > size / sizeof(struct symbol_record) ||
	    h->nentries > size / sizeof(uint64_t) || h->strings_size > UINT32_MAX ||
	    !h->strings_size || map[size - 1] != '\0')
		return NULL;
	l = layout_of(h);
	if (l.end != size)
		return NULL;
	return valid_records((const void *)(map + l.sites), h->nsites, h->strings_size,
			     h->ncus) &&
	       valid_symbols((const void *)(map + l.symbols), (const void *)(map + l.by_name),
			     h->nsymbols, h->strings_size) ? h : NULL;
}

static void load_sites(struct dwpoints *dp, const struct index_record *records, size_t n,
		       const char *strings)
{
	dp->nsites = dp->cap = n;
	dp->sites = xcalloc(n + 1, sizeof(*dp->sites));
	for (size_t i = 0; i < n; i++)
		dp->sites[i] = (struct dw_site){ strings + records[i].name,
						 strings + records[i].file, records[i].line,
						 records[i].pc, records[i].die,
						 records[i].is_inline != 0, records[i].cu };
}

static void load_symbols(struct dwpoints *dp, const struct symbol_record *symbols,
			 const uint32_t *by_name, size_t n, const char *strings)
{
	dp->nsymbols = n;
	dp->symbols = xcalloc(n + 1, sizeof(*dp->symbols));
	dp->by_name = xcalloc(n + 1, sizeof(*dp->by_name));
	for (size_t i = 0; i < n; i++) {
		dp->symbols[i] = (struct func_symbol){ symbols[i].address, symbols[i].size,
						       strings + symbols[i].name,
						       symbols[i].unique != 0 };
		dp->by_name[i] = &dp->symbols[by_name[i]];
	}
}

/* The index from the file at `path`; false (nothing changed) when it is missing or not
 * valid. The mapping stays for the process's life: the strings are in it. */
static bool load_index(struct dwpoints *dp, const char *path, const char *key)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	void *map = MAP_FAILED;
	const struct index_header *h;
	const char *base;
	struct index_layout l;

	if (fd < 0)
		return false;
	if (fstat(fd, &st) == 0 && st.st_size > 0)
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return false;
	h = valid_index(map, (size_t)st.st_size, key);
	if (!h) {
		munmap(map, (size_t)st.st_size);
		return false;
	}
	base = map;
	l = layout_of(h);
	dp->ncus = h->ncus;
	load_sites(dp, (const void *)(base + l.sites), h->nsites, base + l.strings);
	load_symbols(dp, (const void *)(base + l.symbols), (const void *)(base + l.by_name),
		     h->nsymbols, base + l.strings);
	dp->nentries = h->nentries;
	dp->entries = xcalloc(h->nentries + 1, sizeof(*dp->entries));
	memcpy(dp->entries, base + l.entries, h->nentries * sizeof(*dp->entries));
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

static bool write_all(FILE *f, const void *data, size_t size)
{
	return fwrite(data, 1, size, f) == size;
}

/* The records and strings of the sites; false when the strings don't fit 32-bit offsets. */
static bool index_records(const struct dwpoints *dp, struct index_record *records,
			  struct string_table *strings)
{
	for (size_t i = 0; i < dp->nsites; i++) {
		const struct dw_site *s = &dp->sites[i];

		records[i] = (struct index_record){ .pc = s->pc, .die = s->die, .line = s->line,
						    .cu = s->cu, .is_inline = s->is_inline };
		if (!string_offset(strings, s->name, &records[i].name) ||
		    !string_offset(strings, s->file, &records[i].file))
			return false;
	}
	return true;
}

static bool symbol_records(const struct dwpoints *dp, struct symbol_record *symbols,
			   uint32_t *by_name, struct string_table *strings)
{
	for (size_t i = 0; i < dp->nsymbols; i++) {
		const struct func_symbol *sym = &dp->symbols[i];

		symbols[i] = (struct symbol_record){ .address = sym->address, .size = sym->size,
						     .unique = sym->unique };
		by_name[i] = (uint32_t)(dp->by_name[i] - dp->symbols);
		if (!string_offset(strings, sym->name, &symbols[i].name))
			return false;
	}
	return true;
}

/* Writes the index to a temporary file renamed to `path`; nothing on any failure. */
static void save_index(const struct dwpoints *dp, const char *path, const char *key)
{
	struct index_record *records = xcalloc(dp->nsites + 1, sizeof(*records));
	struct symbol_record *symbols = xcalloc(dp->nsymbols + 1, sizeof(*symbols));
	uint32_t *by_name = xcalloc(dp->nsymbols + 2, sizeof(*by_name));
	struct string_table strings = { 0 };
	struct index_header h = { .magic = INDEX_MAGIC, .version = INDEX_VERSION,
				  .ncus = dp->ncus, .nsites = dp->nsites,
				  .nsymbols = dp->nsymbols, .nentries = dp->nentries,
				  .key_size = strlen(key) };
	static const char zeros[8];
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	FILE *f = NULL;
	struct index_layout l;
	bool ok = dp->nsymbols < UINT32_MAX && index_records(dp, records, &strings) &&
		  symbol_records(dp, symbols, by_name, &strings) && strings.text.len;

	h.strings_size = strings.text.len;
	l = layout_of(&h);
	h.total_size = l.end;
	if (ok)
		f = fopen(tmp, "wbx");
	ok = f && write_all(f, &h, sizeof(h)) && write_all(f, key, h.key_size) &&
	     write_all(f, zeros, padded(h.key_size) - h.key_size) &&
	     write_all(f, records, l.symbols - l.sites) &&
	     write_all(f, symbols, l.by_name - l.symbols) &&
	     write_all(f, by_name, l.entries - l.by_name) &&
	     write_all(f, dp->entries, l.strings - l.entries) &&
	     write_all(f, strings.text.buf, strings.text.len);
	if (f && fclose(f) != 0)
		ok = false;
	if (f && (!ok || rename(tmp, path) != 0))
		unlink(tmp);
	free(tmp);
	free(records);
	free(symbols);
	free(by_name);
	free(strings.text.buf);
	free(strings.slots);
}

/* The index from the walk and the symbol table. */
static void build_index(struct dwpoints *dp, const struct debuginfo *di)
{
	index_functions(dp);
	read_symbols(dp, debuginfo_elf(di));
	mark_unique(dp);
	sort_entries(dp);
}

/* The index from the cached file, else built (then cached). */
static void build_index_cached(struct dwpoints *dp, const struct debuginfo *di)
{
	bool read;
	char *key = debuginfo_cache_allowed(di, &read) ? index_key(debuginfo_path(di)) : NULL;
	char *path = key ? keyed_cache_path("dwindex", key) : NULL;

	if (!path || !read || !load_index(dp, path, key)) {
		build_index(dp, di);
		if (path)
			save_index(dp, path, key);
	}
	free(path);
	free(key);
}

const struct dwpoints *dwpoints_of(const struct debuginfo *di)
{
	static struct dwpoints *kernel;

	if (kernel || !di)
		return kernel;
	kernel = xcalloc(1, sizeof(*kernel));
	kernel->dwarf = debuginfo_dwarf(di);
	build_index_cached(kernel, di);
	return kernel;
}

const struct dw_site *dwpoints_sites(const struct dwpoints *dp, size_t *count)
{
	*count = dp->nsites;
	return dp->sites;
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
		const struct func_symbol *sym = &dp->symbols[--lo];

		if (!sym->size)
			continue;
		if (pc >= sym->address + sym->size)
			return false;
		*name = sym->name;
		*start = sym->address;
		*unique = sym->unique;
		return true;
	}
	return false;
}

bool dwpoints_unique_symbol_below(const struct dwpoints *dp, uint64_t address,
				  const char **name, uint64_t *start)
{
	for (size_t i = dp->nsymbols; i-- > 0;) {
		const struct func_symbol *sym = &dp->symbols[i];

		if (sym->address >= address || !sym->unique || !sym->size)
			continue;
		*name = sym->name;
		*start = sym->address;
		return true;
	}
	return false;
}

uint64_t dwpoints_symbol_address(const struct dwpoints *dp, const char *name)
{
	size_t lo = 0, hi = dp->nsymbols;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(dp->by_name[mid]->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < dp->nsymbols && !strcmp(dp->by_name[lo]->name, name) ?
	       dp->by_name[lo]->address : 0;
}

/* Address ranges, to tell which of a function's addresses belong to what it inlined. */
struct ranges {
	uint64_t (*r)[2];
	size_t n, cap;
};

static void add_ranges(struct ranges *rs, Dwarf_Die *die)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t offset = 0;

	while ((offset = dwarf_ranges(die, offset, &base, &start, &end)) > 0) {
		if (rs->n == rs->cap) {
			rs->cap = rs->cap ? rs->cap * 2 : 16;
			rs->r = xrealloc(rs->r, rs->cap * sizeof(*rs->r));
		}
		rs->r[rs->n][0] = start;
		rs->r[rs->n][1] = end;
		rs->n++;
	}
}

static bool in_ranges(const struct ranges *rs, uint64_t pc)
{
	for (size_t i = 0; i < rs->n; i++)
		if (pc >= rs->r[i][0] && pc < rs->r[i][1])
			return true;
	return false;
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
	Dwarf_Attribute attr;
	struct dw_site *sites = NULL;
	size_t cap = 0;

	*count = 0;
	if (!dwarf_offdie(dp->dwarf, die, &scope) || !dwarf_diecu(&scope, &cu, NULL, NULL))
		return NULL;
	collect_inlined(&scope, dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &attr)), &sites,
			count, &cap);
	return sites;
}

static int by_line_then_pc(const void *a, const void *b)
{
	const struct dw_line *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/* The records of `lines` in `own`, of the file `file`, from `first_line` on (what the
 * function inlined from earlier in its file is left out). */
static struct dw_line *collect_lines(Dwarf_Lines *lines, size_t nlines, const char *file,
				     int first_line, const char *comp_dir,
				     const struct ranges *own, size_t *count)
{
	struct dw_line *out = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < nlines; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr pc;
		bool end;
		int lineno;

		if (!l || dwarf_lineaddr(l, &pc) || dwarf_lineendsequence(l, &end) || end ||
		    !in_ranges(own, pc) || dwarf_lineno(l, &lineno) || lineno < first_line)
			continue;
		if (strcmp(display_file(dwarf_linesrc(l, NULL, NULL), comp_dir), file))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			out = xrealloc(out, cap * sizeof(*out));
		}
		out[n++] = (struct dw_line){ lineno, pc };
	}
	*count = n;
	return out;
}

struct dw_line *dwpoints_lines(const struct dwpoints *dp, const struct dw_site *site,
			       size_t *count)
{
	Dwarf_Die die, cu;
	Dwarf_Attribute attr;
	Dwarf_Lines *lines;
	struct ranges own = { 0 };
	struct dw_line *out;
	size_t nlines, n, kept = 0;

	*count = 0;
	if (!dwarf_offdie(dp->dwarf, site->die, &die) || !dwarf_diecu(&die, &cu, NULL, NULL) ||
	    dwarf_getsrclines(&cu, &lines, &nlines))
		return NULL;
	add_ranges(&own, &die);
	out = collect_lines(lines, nlines, site->file, site->line,
			    dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &attr)), &own, &n);
	free(own.r);
	if (out)
		qsort(out, n, sizeof(*out), by_line_then_pc);
	for (size_t i = 0; i < n; i++)
		if (!kept || out[kept - 1].line != out[i].line)
			out[kept++] = out[i];
	*count = kept;
	return out;
}
