/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The target kernel's system call tables, for the dispatch of many syscall points from the
 * raw tracepoints sys_enter/sys_exit (runtime/sysdispatch.h): which entry function each
 * number of each ABI calls, and the addresses of those functions in the target's symbol
 * listing (two names at one address are one function: __x64_sys_getpid is also the 32-bit
 * getpid's). Read from the build tree's generated arch/x86/include/generated/asm/
 * syscalls_64.h and syscalls_32.h, and from the symbols of the kernel: the VM kit's record,
 * /proc/kallsyms for the running kernel, else a System.map.
 */
#ifndef TAPSTER_SYSCALL_TABLE_H
#define TAPSTER_SYSCALL_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "session.h"

enum syscall_abi { SYSCALL_ABI_X64, SYSCALL_ABI_IA32 };

struct syscall_entry {
	enum syscall_abi abi;
	int nr;
	uint64_t address;	/* of its entry function (__x64_sys_read); 0 if unknown */
	bool noreturn;		/* exit, exit_group: the call never comes back */
};

struct syscall_table {
	struct syscall_entry *entries;
	size_t nentries;
	uint64_t ni_address;	/* __x64_sys_ni_syscall's: the invalid numbers' function too */
	int size[2];		/* by ABI: the table's numbers, 0 to size - 1; those it lacks
				 * are entries of ni_address, as are numbers past it */
	uint64_t anchor;	/* sprint_symbol's, which the module finds its own way (the
				 * listing's addresses less the kernel's placement) */
	uint64_t return_site[2];	/* by ABI: where the entry functions return to (a
					 * 32-bit task's: from int $0x80) */
	uint64_t return_site_fast32;	/* a 32-bit task's from sysenter/syscall, or 0 */
	struct syscall_symbol *symbols;	/* the entry functions' names, sorted */
	size_t nsymbols;
};

/* The target's tables; NULL when it has none the dispatch can use (no build tree tables,
 * no addresses, the x32 ABI). Read at each call: pass 3 asks once per module (a cache here
 * would outlive the fuzzers' per-input memory). */
const struct syscall_table *syscall_table_load(const struct session *s);
/* The listing's address of the kernel function `name` (an entry function), or 0. */
uint64_t syscall_table_address(const struct syscall_table *t, const char *name);

#endif
