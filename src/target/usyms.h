/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The symbol tables of user-space ELF files (-d, --ldd), for the module. */
#ifndef TAPSTER_USYMS_H
#define TAPSTER_USYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Writes the C tables of runtime/usyms.h for the files (those that are no usable ELF file
 * are left out: usyms_check_file() says which) and their count, tap_num_ufiles. */
void usyms_write(FILE *out, const char *const *paths, int npaths);

/* Whether the file is an ELF file with loadable segments. */
bool usyms_check_file(const char *path);

/* A function of a user-space ELF file, as process("PATH").function("NAME") probes it. */
struct ufunc {
	char *name;
	unsigned long long vaddr;	/* its link-time address */
	unsigned long long offset;	/* where that address is in the file (uprobes') */
};

/*
 * The function symbols of the ELF file PATH (.symtab, else .dynsym; STT_FUNC, defined),
 * one per address (the first the table names there, as stap keeps it), sorted by name
 * (strcmp) then address; *count of them, malloc'd (usyms_free_functions()). NULL when PATH
 * cannot be read or is no ELF file with loadable segments.
 */
struct ufunc *usyms_functions(const char *path, size_t *count);
void usyms_free_functions(struct ufunc *funcs, size_t count);
/* The function symbol `name` of PATH also where another name is the one usyms_functions()
 * keeps at its address (libc's free beside cfree and __libc_free: stap lists one, but
 * resolves each by name); its name malloc'd. */
bool usyms_function_named(const char *path, const char *name, struct ufunc *func);

/* An SDT marker of a user-space ELF file (<sys/sdt.h>: a note of type 3, owner "stapsdt", in
 * .note.stapsdt), as process("PATH").mark("NAME") probes it. */
struct umark {
	char *provider, *name;
	char *args;			/* the argument operands, "-4@%eax 8@-16(%rbp)" */
	unsigned long long vaddr;	/* the marker's link-time address */
	unsigned long long offset;	/* its place in the file */
	unsigned long long semaphore;	/* the semaphore's place in the file, 0 for none */
};

/*
 * The SDT markers of the ELF file PATH, in the notes' order, their addresses adjusted by
 * .stapsdt.base's against the notes' (a prelinked file's move); *count of them, malloc'd
 * (usyms_free_marks()). NULL when PATH is no ELF file with loadable segments; *count 0 for
 * one without markers.
 */
struct umark *usyms_marks(const char *path, size_t *count);
void usyms_free_marks(struct umark *marks, size_t count);

/* A PLT entry of a user-space ELF file, as process("PATH").plt("NAME") probes it: the slot of
 * a .rela.plt relocation. */
struct uplt {
	char *name;			/* the relocation's symbol, "" for none (IRELATIVE) */
	unsigned long long vaddr;	/* the entry's link-time address */
	unsigned long long offset;	/* its place in the file */
};

/*
 * The PLT entries of the ELF file PATH, in .rela.plt's order: the i-th relocation's at
 * .plt + 16 * (i + 1), or .plt.sec + 16 * i when there is one (x86-64); *count of them,
 * malloc'd (usyms_free_plt()). NULL when PATH has none or is no ELF file.
 */
struct uplt *usyms_plt(const char *path, size_t *count);
void usyms_free_plt(struct uplt *entries, size_t count);

/* The link-time address of the defined symbol NAME (of any type) of the ELF file PATH
 * (.symtab, else .dynsym); false when it has none. */
bool usyms_symbol_address(const char *path, const char *name, unsigned long long *addr);
/* Whether the defined symbol NAME of the ELF file PATH (.symtab, else .dynsym; the first of
 * that name) is a global or weak function: what process(...).function("f").exported keeps
 * of the functions the file's DWARF has. */
bool usyms_function_exported(const char *path, const char *name);

/* Whether the ELF file PATH is position-independent (ET_DYN: a shared library, a PIE), whose
 * addresses stap shows as .dynamic+OFFSET rather than .absolute+OFFSET. */
bool usyms_is_dynamic(const char *path);
/* Where the link-time address `vaddr` is in the file PATH (through its loadable segments:
 * a uprobe's offset); false when no segment holds it. */
bool usyms_file_offset(const char *path, unsigned long long vaddr, unsigned long long *offset);

/* Whether the ELF file PATH has DWARF debuginfo (a .debug_info section). */
bool usyms_has_dwarf(const char *path);

/* The shared libraries `ldd PATH` lists (paths, malloc'd; *count of them). */
char **usyms_ldd(const char *path, int *count);

#endif
