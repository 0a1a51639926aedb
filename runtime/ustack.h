/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * User-space symbols: the tables of the ELF files -d named (written by the translator's
 * src/usyms.c after this header), and the lookup in them of a mapped file (recognised by its
 * base name and size) and of an offset in it: the link-time address of that offset (the
 * file's loadable segments) and the function symbol holding it. tapsets/backtrace.stp finds
 * the mapping of an address of the current process.
 */
#ifndef TAP_USTACK_H
#define TAP_USTACK_H

#include <linux/dcache.h>
#include <linux/fs.h>

/* A loadable segment: where it is in the file and at which link-time address. */
struct tap_useg {
	u64 offset;
	u64 vaddr;
	u64 filesz;
};

/* A function symbol: its link-time address, size and name (an offset into the names). */
struct tap_usym {
	u64 addr;
	u32 size;
	u32 name;
};

struct tap_ufile {
	const char *base_name;
	u64 file_size;
	const struct tap_useg *segs;
	unsigned int nsegs;
	const struct tap_usym *syms;
	unsigned int nsyms;
	const char *names;
};

/* The tables, after this header (not static: declared before their size is known). */
extern const struct tap_ufile tap_ufiles[];
extern const unsigned int tap_num_ufiles;

static const struct tap_ufile *tap_ufile_of(const struct file *file)
{
	const char *base = (const char *)file->f_path.dentry->d_name.name;
	u64 size = i_size_read(file_inode(file));
	unsigned int i;

	for (i = 0; i < tap_num_ufiles; i++)
		if (tap_ufiles[i].file_size == size && !strcmp(tap_ufiles[i].base_name, base))
			return &tap_ufiles[i];
	return NULL;
}

/* The symbol of `uf` holding the link-time address vaddr, or NULL. */
static const struct tap_usym *tap_usym_at(const struct tap_ufile *uf, u64 vaddr)
{
	unsigned int low = 0, high = uf->nsyms;
	const struct tap_usym *sym;

	while (low < high) {
		unsigned int mid = low + (high - low) / 2;

		if (uf->syms[mid].addr <= vaddr)
			low = mid + 1;
		else
			high = mid;
	}
	if (!low)
		return NULL;
	sym = &uf->syms[low - 1];
	/* A symbol without a size holds only its first byte. */
	return vaddr - sym->addr < (sym->size ? sym->size : 1) ? sym : NULL;
}

/* The symbol of uf at an offset in the file: its name, the offset from its start and its
 * size; false when none holds it. */
static bool tap_usym_in_file(const struct tap_ufile *uf, u64 file_offset, const char **name,
			     unsigned long *offset, unsigned long *size)
{
	const struct tap_usym *sym;
	unsigned int i;

	for (i = 0; i < uf->nsegs; i++) {
		const struct tap_useg *seg = &uf->segs[i];
		u64 vaddr;

		if (file_offset < seg->offset || file_offset - seg->offset >= seg->filesz)
			continue;
		vaddr = file_offset - seg->offset + seg->vaddr;
		sym = tap_usym_at(uf, vaddr);
		if (!sym)
			return false;
		*name = uf->names + sym->name;
		*offset = vaddr - sym->addr;
		*size = sym->size;
		return true;
	}
	return false;
}

#endif
