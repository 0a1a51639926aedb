// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The symbol tables of user-space ELF files that -d names (and --ldd adds), written into the
 * module as C tables for runtime/ustack.h: per file, its base name and size (how a mapping of
 * the running process is recognised), its loadable segments (file offset to link-time
 * address) and its function symbols, sorted by address, with their names in one string.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "target/usyms.h"
#include "util.h"

struct usym {
	unsigned long long addr;
	unsigned long long size;
	const char *name;
};

struct usym_file {
	const char *path;
	unsigned long long file_size;
	GElf_Phdr *loads;
	size_t nloads;
	struct usym *syms;
	size_t nsyms;
};

static int compare_usyms(const void *a, const void *b)
{
	const struct usym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Of several names at one address, the one with a size first (kept). */
	return (x->size < y->size) - (x->size > y->size);
}

static void read_loads(Elf *elf, struct usym_file *f)
{
	size_t nphdrs = 0;

	if (elf_getphdrnum(elf, &nphdrs) < 0)
		return;
	f->loads = xcalloc(nphdrs ? nphdrs : 1, sizeof(*f->loads));
	for (size_t i = 0; i < nphdrs; i++) {
		GElf_Phdr phdr;

		if (gelf_getphdr(elf, (int)i, &phdr) && phdr.p_type == PT_LOAD)
			f->loads[f->nloads++] = phdr;
	}
}

/* The function symbols of the section `scn` (a SYMTAB or DYNSYM). */
static void read_symbols(Elf *elf, Elf_Scn *scn, struct usym_file *f)
{
	GElf_Shdr shdr;
	Elf_Data *data;
	size_t count;

	if (!gelf_getshdr(scn, &shdr) || !(data = elf_getdata(scn, NULL)) || !shdr.sh_entsize)
		return;
	count = shdr.sh_size / shdr.sh_entsize;
	f->syms = xcalloc(count ? count : 1, sizeof(*f->syms));
	for (size_t i = 0; i < count; i++) {
		GElf_Sym sym;
		const char *name;

		if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		name = elf_strptr(elf, shdr.sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		f->syms[f->nsyms++] = (struct usym){ sym.st_value, sym.st_size, xstrdup(name) };
	}
}

/* The section of `type` in elf, or NULL. */
static Elf_Scn *find_section(Elf *elf, Elf64_Word type)
{
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr shdr;

		if (gelf_getshdr(scn, &shdr) && shdr.sh_type == type)
			return scn;
	}
	return NULL;
}

/* Reads the file's segments and symbols; false when it is no ELF file it can use. */
static bool read_usym_file(const char *path, struct usym_file *f)
{
	struct stat st;
	Elf_Scn *scn;
	Elf *elf;
	int fd = open(path, O_RDONLY);
	bool ok = false;

	memset(f, 0, sizeof(*f));
	f->path = path;
	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF && fstat(fd, &st) == 0) {
		f->file_size = (unsigned long long)st.st_size;
		read_loads(elf, f);
		scn = find_section(elf, SHT_SYMTAB);
		if (!scn)
			scn = find_section(elf, SHT_DYNSYM);
		if (scn)
			read_symbols(elf, scn, f);
		ok = f->nloads > 0;
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return ok;
}

/* Sorts the symbols and keeps one per address. */
static void sort_usyms(struct usym_file *f)
{
	size_t kept = 0;

	qsort(f->syms, f->nsyms, sizeof(*f->syms), compare_usyms);
	for (size_t i = 0; i < f->nsyms; i++)
		if (!kept || f->syms[kept - 1].addr != f->syms[i].addr)
			f->syms[kept++] = f->syms[i];
	f->nsyms = kept;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* A C string literal of `text` (names and paths: no escapes beyond quote and backslash). */
static void write_literal(FILE *out, const char *text)
{
	fputc('"', out);
	for (const char *p = text; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			fprintf(out, "\\%03o", (unsigned char)*p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

static void write_usym_file(FILE *out, size_t index, const struct usym_file *f)
{
	size_t name_offset = 0;

	fprintf(out, "static const struct tap_useg tap_usegs_%zu[] = {\n", index);
	for (size_t i = 0; i < f->nloads; i++)
		fprintf(out, "\t{ 0x%llxULL, 0x%llxULL, 0x%llxULL },\n",
			(unsigned long long)f->loads[i].p_offset,
			(unsigned long long)f->loads[i].p_vaddr,
			(unsigned long long)f->loads[i].p_filesz);
	fprintf(out, "};\nstatic const struct tap_usym tap_usyms_%zu[] = {\n", index);
	for (size_t i = 0; i < f->nsyms; i++) {
		unsigned long long size = f->syms[i].size > 0xffffffffULL ? 0xffffffffULL :
									      f->syms[i].size;

		fprintf(out, "\t{ 0x%llxULL, 0x%llx, %zu },\n", f->syms[i].addr, size, name_offset);
		name_offset += strlen(f->syms[i].name) + 1;
	}
	if (!f->nsyms)
		fputs("\t{ 0, 0, 0 },\n", out);
	fprintf(out, "};\nstatic const char tap_usym_names_%zu[] =", index);
	for (size_t i = 0; i < f->nsyms; i++) {
		fputs("\n\t", out);
		write_literal(out, f->syms[i].name);
		fputs(" \"\\0\"", out);
	}
	fputs(" \"\";\n", out);
}

static void free_usym_file(struct usym_file *f)
{
	for (size_t i = 0; i < f->nsyms; i++)
		free((char *)f->syms[i].name);
	free(f->syms);
	free(f->loads);
}

void usyms_write(FILE *out, const char *const *paths, int npaths)
{
	struct usym_file *files = xcalloc((size_t)npaths + 1, sizeof(*files));
	size_t nfiles = 0;

	for (int i = 0; i < npaths; i++) {
		if (!read_usym_file(paths[i], &files[nfiles])) {
			free_usym_file(&files[nfiles]);
			continue;
		}
		sort_usyms(&files[nfiles]);
		write_usym_file(out, nfiles, &files[nfiles]);
		nfiles++;
	}
	fputs("const struct tap_ufile tap_ufiles[] = {\n", out);
	for (size_t i = 0; i < nfiles; i++) {
		fputs("\t{ ", out);
		write_literal(out, base_name(files[i].path));
		fprintf(out, ", %lluULL, tap_usegs_%zu, %zu, tap_usyms_%zu, %zu, tap_usym_names_%zu },\n",
			files[i].file_size, i, files[i].nloads, i, files[i].nsyms, i);
		free_usym_file(&files[i]);
	}
	if (!nfiles)
		fputs("\t{ \"\", 0, NULL, 0, NULL, 0, \"\" },\n", out);
	fprintf(out, "};\nconst unsigned int tap_num_ufiles = %zu;\n\n", nfiles);
	free(files);
}

bool usyms_check_file(const char *path)
{
	struct usym_file f;
	bool ok = read_usym_file(path, &f);

	free_usym_file(&f);
	return ok;
}

/* The file offset of the link-time address vaddr, through the loadable segments; false when
 * no segment holds it in the file. */
static bool file_offset_of(const struct usym_file *f, unsigned long long vaddr,
			   unsigned long long *offset)
{
	for (size_t i = 0; i < f->nloads; i++) {
		const GElf_Phdr *seg = &f->loads[i];

		if (vaddr >= seg->p_vaddr && vaddr - seg->p_vaddr < seg->p_filesz) {
			*offset = vaddr - seg->p_vaddr + seg->p_offset;
			return true;
		}
	}
	return false;
}

/* A symbol's address and its place in the table. */
struct usym_place {
	unsigned long long addr;
	size_t index;
};

static int compare_places(const void *a, const void *b)
{
	const struct usym_place *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

static int compare_ufuncs(const void *a, const void *b)
{
	const struct ufunc *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return (x->vaddr > y->vaddr) - (x->vaddr < y->vaddr);
}

struct ufunc *usyms_functions(const char *path, size_t *count)
{
	struct usym_file f;
	struct usym_place *places;
	struct ufunc *funcs;
	size_t n = 0;

	*count = 0;
	if (!read_usym_file(path, &f)) {
		free_usym_file(&f);
		return NULL;
	}
	places = xcalloc(f.nsyms + 1, sizeof(*places));
	for (size_t i = 0; i < f.nsyms; i++)
		places[i] = (struct usym_place){ f.syms[i].addr, i };
	qsort(places, f.nsyms, sizeof(*places), compare_places);
	funcs = xcalloc(f.nsyms + 1, sizeof(*funcs));
	for (size_t i = 0; i < f.nsyms; i++) {
		const struct usym *sym = &f.syms[places[i].index];
		unsigned long long offset;

		if ((i && places[i - 1].addr == places[i].addr) ||
		    !file_offset_of(&f, sym->addr, &offset))
			continue;
		funcs[n++] = (struct ufunc){ xstrdup(sym->name), sym->addr, offset };
	}
	free(places);
	free_usym_file(&f);
	qsort(funcs, n, sizeof(*funcs), compare_ufuncs);
	*count = n;
	return funcs;
}

bool usyms_function_named(const char *path, const char *name, struct ufunc *func)
{
	struct usym_file f;
	bool found = false;

	if (read_usym_file(path, &f))
		for (size_t i = 0; i < f.nsyms && !found; i++) {
			unsigned long long offset;

			if (!strcmp(f.syms[i].name, name) && file_offset_of(&f, f.syms[i].addr, &offset)) {
				*func = (struct ufunc){ xstrdup(name), f.syms[i].addr, offset };
				found = true;
			}
		}
	free_usym_file(&f);
	return found;
}

void usyms_free_functions(struct ufunc *funcs, size_t count)
{
	for (size_t i = 0; i < count; i++)
		free(funcs[i].name);
	free(funcs);
}

/* The SDT notes' section and .stapsdt.base's address (has_base: the file has one). */
struct sdt_sections {
	Elf_Scn *notes;
	unsigned long long base;
	bool has_base;
};

static void find_sdt_sections(Elf *elf, struct sdt_sections *s)
{
	size_t names;

	memset(s, 0, sizeof(*s));
	if (elf_getshdrstrndx(elf, &names))
		return;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr shdr;
		const char *name;

		if (!gelf_getshdr(scn, &shdr) || !(name = elf_strptr(elf, names, shdr.sh_name)))
			continue;
		if (shdr.sh_type == SHT_NOTE && !strcmp(name, ".note.stapsdt")) {
			s->notes = scn;
		} else if (!strcmp(name, ".stapsdt.base")) {
			s->base = shdr.sh_addr;
			s->has_base = true;
		}
	}
}

/* An address of `size` bytes at `p`, in the file's byte order. */
static unsigned long long note_address(Elf *elf, const unsigned char *p, size_t size)
{
	bool big = elf_getident(elf, NULL)[EI_DATA] == ELFDATA2MSB;
	unsigned long long value = 0;

	for (size_t i = 0; i < size; i++)
		value |= (unsigned long long)p[big ? size - 1 - i : i] << (8 * i);
	return value;
}

/* One note's marker into *m; false for a note that is no well-formed marker. */
static bool read_mark_note(Elf *elf, const struct usym_file *f, const struct sdt_sections *s,
			   const unsigned char *desc, size_t size, struct umark *m)
{
	size_t word = gelf_getclass(elf) == ELFCLASS32 ? 4 : 8;
	unsigned long long pc, base, sem, offset, sem_offset = 0;
	const char *provider = (const char *)desc + 3 * word, *end = (const char *)desc + size;
	const char *name, *args;

	if (size < 3 * word + 3)
		return false;
	pc = note_address(elf, desc, word);
	base = note_address(elf, desc + word, word);
	sem = note_address(elf, desc + 2 * word, word);
	if (!(name = memchr(provider, '\0', (size_t)(end - provider))) || ++name >= end ||
	    !(args = memchr(name, '\0', (size_t)(end - name))) || ++args >= end ||
	    !memchr(args, '\0', (size_t)(end - args)))
		return false;
	if (s->has_base && base) {
		pc += s->base - base;
		if (sem)
			sem += s->base - base;
	}
	if (!file_offset_of(f, pc, &offset) || (sem && !file_offset_of(f, sem, &sem_offset)))
		return false;
	*m = (struct umark){ xstrdup(provider), xstrdup(name), xstrdup(args), pc, offset,
			     sem_offset };
	return true;
}

static struct umark *read_marks(Elf *elf, const struct usym_file *f, size_t *count)
{
	struct umark *marks = xcalloc(1, sizeof(*marks));
	struct sdt_sections s;
	Elf_Data *data;
	GElf_Nhdr note;
	size_t pos = 0, name_at, desc_at;

	find_sdt_sections(elf, &s);
	if (!s.notes || !(data = elf_getdata(s.notes, NULL)))
		return marks;
	while ((pos = gelf_getnote(data, pos, &note, &name_at, &desc_at)) > 0) {
		const char *owner = (const char *)data->d_buf + name_at;

		if (note.n_type != 3 || note.n_namesz != sizeof("stapsdt") ||
		    memcmp(owner, "stapsdt", sizeof("stapsdt")))
			continue;
		marks = xrealloc(marks, (*count + 1) * sizeof(*marks));
		if (read_mark_note(elf, f, &s, (const unsigned char *)data->d_buf + desc_at,
				   note.n_descsz, &marks[*count]))
			(*count)++;
	}
	return marks;
}

/* What `read` finds in the ELF file at `path` with its loadable segments (the marks, the
 * PLT entries), *count of them; NULL when the file can't be read. */
static void *read_elf_file(const char *path,
			   void *(*read)(Elf *elf, const struct usym_file *f, size_t *count),
			   size_t *count)
{
	void *found = NULL;
	struct usym_file f;
	int fd = open(path, O_RDONLY);
	Elf *elf;

	*count = 0;
	if (fd < 0)
		return NULL;
	memset(&f, 0, sizeof(f));
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		read_loads(elf, &f);
		if (f.nloads)
			found = read(elf, &f, count);
	}
	free_usym_file(&f);
	if (elf)
		elf_end(elf);
	close(fd);
	return found;
}

static void *read_marks_of(Elf *elf, const struct usym_file *f, size_t *count)
{
	return read_marks(elf, f, count);
}

struct umark *usyms_marks(const char *path, size_t *count)
{
	return read_elf_file(path, read_marks_of, count);
}

void usyms_free_marks(struct umark *marks, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		free(marks[i].provider);
		free(marks[i].name);
		free(marks[i].args);
	}
	free(marks);
}

/* ---- PLT entries: process("PATH").plt("NAME") ---- */

static Elf_Scn *section_named(Elf *elf, const char *wanted, GElf_Shdr *shdr)
{
	size_t names;

	if (elf_getshdrstrndx(elf, &names) != 0)
		return NULL;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		const char *name;

		if (gelf_getshdr(scn, shdr) && (name = elf_strptr(elf, names, shdr->sh_name)) &&
		    !strcmp(name, wanted))
			return scn;
	}
	return NULL;
}

/* The name of the relocation's symbol in the table `symtab` (.rela.plt's link), "" for
 * none (an IRELATIVE). */
static const char *reloc_symbol(Elf *elf, Elf_Scn *symtab, const GElf_Rela *rela)
{
	size_t index = GELF_R_SYM(rela->r_info);
	Elf_Data *data = symtab ? elf_getdata(symtab, NULL) : NULL;
	GElf_Shdr shdr;
	GElf_Sym sym;
	const char *name;

	if (!index || !data || !gelf_getshdr(symtab, &shdr) || !gelf_getsym(data, (int)index, &sym))
		return "";
	name = elf_strptr(elf, shdr.sh_link, sym.st_name);
	return name ? name : "";
}

static struct uplt *read_plt(Elf *elf, const struct usym_file *f, size_t *count)
{
	GElf_Shdr rela_shdr, plt_shdr, sec_shdr;
	Elf_Scn *rela = section_named(elf, ".rela.plt", &rela_shdr);
	Elf_Scn *plt = section_named(elf, ".plt", &plt_shdr);
	Elf_Scn *sec = section_named(elf, ".plt.sec", &sec_shdr);
	Elf_Data *data = rela ? elf_getdata(rela, NULL) : NULL;
	Elf_Scn *symtab = rela ? elf_getscn(elf, rela_shdr.sh_link) : NULL;
	size_t n = data && rela_shdr.sh_entsize ? rela_shdr.sh_size / rela_shdr.sh_entsize : 0;
	struct uplt *entries = NULL;

	if (!plt && !sec)
		return NULL;
	entries = xcalloc(n ? n : 1, sizeof(*entries));
	for (size_t i = 0; i < n; i++) {
		struct uplt *e = &entries[*count];
		GElf_Rela r;

		if (!gelf_getrela(data, (int)i, &r))
			continue;
		/* An entry of 16 bytes per slot, after the PLT's first (lazy binding's);
		 * with IBT's .plt.sec, from its start. */
		e->vaddr = sec ? sec_shdr.sh_addr + 16 * i : plt_shdr.sh_addr + 16 * (i + 1);
		if (!file_offset_of(f, e->vaddr, &e->offset))
			continue;
		e->name = xstrdup(reloc_symbol(elf, symtab, &r));
		(*count)++;
	}
	return entries;
}

static void *read_plt_of(Elf *elf, const struct usym_file *f, size_t *count)
{
	return read_plt(elf, f, count);
}

struct uplt *usyms_plt(const char *path, size_t *count)
{
	return read_elf_file(path, read_plt_of, count);
}

void usyms_free_plt(struct uplt *entries, size_t count)
{
	for (size_t i = 0; i < count; i++)
		free(entries[i].name);
	free(entries);
}

/* The first defined symbol `name` of the table `scn` into *found. */
static bool find_symbol(Elf *elf, Elf_Scn *scn, const char *name, GElf_Sym *found)
{
	GElf_Shdr shdr;
	Elf_Data *data;

	if (!scn || !gelf_getshdr(scn, &shdr) || !(data = elf_getdata(scn, NULL)) ||
	    !shdr.sh_entsize)
		return false;
	for (size_t i = 0; i < shdr.sh_size / shdr.sh_entsize; i++) {
		GElf_Sym sym;
		const char *sym_name;

		if (gelf_getsym(data, (int)i, &sym) && sym.st_shndx != SHN_UNDEF &&
		    (sym_name = elf_strptr(elf, shdr.sh_link, sym.st_name)) &&
		    !strcmp(sym_name, name)) {
			*found = sym;
			return true;
		}
	}
	return false;
}

/* The defined symbol `name` of the ELF file PATH (.symtab, else .dynsym) into *sym. */
static bool file_symbol(const char *path, const char *name, GElf_Sym *sym)
{
	int fd = open(path, O_RDONLY);
	bool found = false;
	Elf *elf;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		found = find_symbol(elf, find_section(elf, SHT_SYMTAB), name, sym) ||
			find_symbol(elf, find_section(elf, SHT_DYNSYM), name, sym);
	if (elf)
		elf_end(elf);
	close(fd);
	return found;
}

bool usyms_symbol_address(const char *path, const char *name, unsigned long long *addr)
{
	GElf_Sym sym;

	if (!file_symbol(path, name, &sym))
		return false;
	*addr = sym.st_value;
	return true;
}

bool usyms_function_exported(const char *path, const char *name)
{
	GElf_Sym sym;

	return file_symbol(path, name, &sym) && GELF_ST_TYPE(sym.st_info) == STT_FUNC &&
	       (GELF_ST_BIND(sym.st_info) == STB_GLOBAL || GELF_ST_BIND(sym.st_info) == STB_WEAK);
}

/* A copy of the file's loadable segments, *count of them. */
static void *read_loads_of(Elf *elf, const struct usym_file *f, size_t *count)
{
	GElf_Phdr *loads = xcalloc(f->nloads, sizeof(*loads));

	(void)elf;
	memcpy(loads, f->loads, f->nloads * sizeof(*loads));
	*count = f->nloads;
	return loads;
}

bool usyms_file_offset(const char *path, unsigned long long vaddr, unsigned long long *offset)
{
	struct usym_file f = { 0 };
	bool found;

	f.loads = read_elf_file(path, read_loads_of, &f.nloads);
	found = f.loads && file_offset_of(&f, vaddr, offset);
	free(f.loads);
	return found;
}

bool usyms_is_dynamic(const char *path)
{
	int fd = open(path, O_RDONLY);
	bool dynamic = false;
	GElf_Ehdr ehdr;
	Elf *elf;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	dynamic = elf && elf_kind(elf) == ELF_K_ELF && gelf_getehdr(elf, &ehdr) &&
		  ehdr.e_type == ET_DYN;
	if (elf)
		elf_end(elf);
	close(fd);
	return dynamic;
}

bool usyms_has_dwarf(const char *path)
{
	int fd = open(path, O_RDONLY);
	bool found = false;
	size_t names;
	Elf *elf;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF && elf_getshdrstrndx(elf, &names) == 0) {
		for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn && !found; scn = elf_nextscn(elf, scn)) {
			GElf_Shdr shdr;
			const char *name;

			found = gelf_getshdr(scn, &shdr) &&
				(name = elf_strptr(elf, names, shdr.sh_name)) &&
				!strcmp(name, ".debug_info");
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return found;
}

/* The path a line of ldd's output names: "name => /path (0x...)" or "/path (0x...)". */
static char *ldd_line_path(const char *line)
{
	const char *arrow = strstr(line, "=> ");
	const char *start = arrow ? arrow + 3 : line;
	size_t len;

	while (*start == ' ' || *start == '\t')
		start++;
	if (*start != '/')
		return NULL;
	len = strcspn(start, " \t\n");
	return xstrndup(start, len);
}

char **usyms_ldd(const char *path, int *count)
{
	char **paths = NULL;
	char line[4096];
	int fds[2];
	pid_t pid;
	FILE *in;

	*count = 0;
	if (pipe(fds) < 0)
		return NULL;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return NULL;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);

		dup2(fds[1], 1);
		if (devnull >= 0)
			dup2(devnull, 2);
		close(fds[0]);
		close(fds[1]);
		execlp("ldd", "ldd", path, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	in = fdopen(fds[0], "r");
	while (in && fgets(line, sizeof(line), in)) {
		char *lib = ldd_line_path(line);

		if (!lib)
			continue;
		paths = xrealloc(paths, sizeof(char *) * (size_t)(*count + 1));
		paths[(*count)++] = lib;
	}
	if (in)
		fclose(in);
	else
		close(fds[0]);
	waitpid(pid, NULL, 0);
	return paths;
}
