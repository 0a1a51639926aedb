// SPDX-License-Identifier: GPL-2.0-or-later
/* Kernel info: the target kernel's function symbols; see ksyms.h. */
#define _GNU_SOURCE
#include "target/ksyms.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "target/kmodules.h"
#include "target/usyms.h"
#include "util.h"

/* What is read only when a probe point asks for it: the exports, the modules. */
struct ksyms_lazy {
	char *symvers;		/* the target's Module.symvers */
	char *modules_dir;	/* its /lib/modules/KVER, or NULL */
	char *modules_cache;	/* the kit's list of module functions, or NULL */
	char *vmkit;		/* tapster-vmkit, which fetches the kit's modules */
	char *release;
	bool host;		/* the target is the running kernel: /proc/kallsyms too */
	bool say_no_modules;	/* -vv: say so when the target lists no modules */
	int exports_state;	/* 0 not read, 1 read, -1 failed */
	char **exports;		/* sorted, unique */
	size_t nexports;
	int modules_state;
	bool modules_listed;	/* modules_dir (or /proc/kallsyms) listed them */
	struct kmodules modules;
};

struct ksyms {
	char **names;		/* sorted, unique */
	size_t nnames;
	char **blacklist;	/* sorted, unique */
	size_t nblacklist;
	/* The compiler's copies of functions ("foo.isra.0", "foo.constprop.0", "foo.part.0"):
	 * matched only by a pattern that names the copy (one with a dot), sorted, unique. */
	char **clones;
	size_t nclones;
	struct ksyms_lazy *lazy;
};

struct name_list {
	char **items;
	size_t len, cap;
};

static void list_push(struct name_list *l, const char *name, size_t len)
{
	if (l->len == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 4096;
		l->items = xrealloc(l->items, l->cap * sizeof(*l->items));
	}
	l->items[l->len++] = xstrndup(name, len);
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorts the list and drops repeats (static functions of one name in several files). */
static void list_finish(struct name_list *l)
{
	size_t out = 0;

	qsort(l->items, l->len, sizeof(*l->items), compare_names);
	for (size_t i = 0; i < l->len; i++) {
		if (out && !strcmp(l->items[out - 1], l->items[i]))
			free(l->items[i]);
		else
			l->items[out++] = l->items[i];
	}
	l->len = out;
}

/* A name kprobes can be given: "foo.isra.0" and "foo.cold" parts of a function are not. */
static bool probeable_name(const char *name, size_t len)
{
	return len > 0 && !memchr(name, '.', len);
}

/* A copy of a function that the compiler made with fewer or constant arguments, which
 * kprobes can be given by its name: "foo.isra.0", "foo.constprop.0", "foo.part.0"; or the
 * cold part it moved out of a function ("foo.cold", "foo.isra.0.cold"), which stap lists
 * and probes by its symbol too. */
static bool cold_part(const char *name, size_t len)
{
	static const char cold[] = ".cold";

	return len > strlen(cold) && !memcmp(name + len - strlen(cold), cold, strlen(cold));
}

bool ksyms_cold_part(const char *name)
{
	return cold_part(name, strlen(name));
}

static bool clone_name(const char *name, size_t len)
{
	const char *dot = memchr(name, '.', len);
	static const char *const kinds[] = { ".isra.", ".constprop.", ".part." };

	if (!dot || dot == name)
		return false;
	if (cold_part(name, len))
		return true;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if ((size_t)(name + len - dot) > strlen(kinds[i]) &&
		    !strncmp(dot, kinds[i], strlen(kinds[i])))
			return true;
	return false;
}

/* The address of `name` in a symbol table, or 0. */
static unsigned long long symbol_address(const char *text, const char *name)
{
	size_t len = strlen(name);

	for (const char *line = text; *line;) {
		const char *end = strchrnul(line, '\n');
		const char *sym = end - len;

		if (sym > line && !memcmp(sym, name, len) && sym[-1] == ' ')
			return strtoull(line, NULL, 16);
		line = *end ? end + 1 : end;
	}
	return 0;
}

/*
 * Reads a symbol table, "ADDRESS TYPE NAME [MODULE]" lines as in kallsyms and System.map,
 * keeping the text symbols of the kernel proper outside its init section (freed after
 * boot). A line "!NAME" (the kit's cache) names a blacklisted function.
 */
static void read_symbol_table(const char *text, struct name_list *names,
			      struct name_list *blacklist, struct name_list *clones)
{
	unsigned long long init_start = symbol_address(text, "_sinittext");
	unsigned long long init_end = symbol_address(text, "_einittext");

	for (const char *line = text; *line;) {
		const char *end = strchrnul(line, '\n');
		const char *name, *name_end;
		unsigned long long address;
		char type;

		if (*line == '!') {
			list_push(blacklist, line + 1, (size_t)(end - line - 1));
			line = *end ? end + 1 : end;
			continue;
		}
		/* "ADDRESS TYPE NAME [MODULE]", read by hand: sscanf() measures the whole rest
		 * of the text at every call. */
		address = strtoull(line, (char **)&name, 16);
		while (name < end && *name == ' ')
			name++;
		type = name < end ? *name++ : 0;
		while (name < end && *name == ' ')
			name++;
		name_end = name;
		while (name_end < end && *name_end != ' ' && *name_end != '\t')
			name_end++;
		if ((type == 't' || type == 'T') && name_end > name &&
		    !memchr(name_end, '[', (size_t)(end - name_end)) &&
		    !(address >= init_start && address < init_end)) {
			if (probeable_name(name, (size_t)(name_end - name)))
				list_push(names, name, (size_t)(name_end - name));
			else if (clone_name(name, (size_t)(name_end - name)))
				list_push(clones, name, (size_t)(name_end - name));
		}
		line = *end ? end + 1 : end;
	}
}

/* The kernel's kprobe blacklist: "0xSTART-0xEND\tNAME" lines. */
static void read_blacklist(const char *text, struct name_list *blacklist)
{
	for (const char *line = text; *line;) {
		const char *end = strchrnul(line, '\n');
		const char *name = line + strcspn(line, " \t");

		name += strspn(name, " \t");
		if (name < end)
			list_push(blacklist, name, (size_t)(end - name));
		line = *end ? end + 1 : end;
	}
}

static struct ksyms *ksyms_from(struct name_list *names, struct name_list *blacklist,
			       struct name_list *clones)
{
	struct ksyms *k = xcalloc(1, sizeof(*k));

	list_finish(names);
	list_finish(blacklist);
	list_finish(clones);
	k->clones = clones->items;
	k->nclones = clones->len;
	k->names = names->items;
	k->nnames = names->len;
	k->blacklist = blacklist->items;
	k->nblacklist = blacklist->len;
	return k;
}

/* What the VM runs to list its kernel's functions: compressed, the serial line is slow. */
static const char vm_list_script[] =
	"awk '$2 ~ /^[tT]$/ && NF == 3' /proc/kallsyms >/tmp/functions\n"
	"sed -n 's/^0x[0-9a-f]*-0x[0-9a-f]*[[:space:]]*/!/p' /sys/kernel/debug/kprobes/blacklist"
	" >>/tmp/functions\n"
	"exec gzip -c /tmp/functions\n";

/* Boots the VM once (`run_in_vm`) to record its kernel's functions into `cache`. */
static bool record_vm_functions(const struct session *s, ksyms_run_in_vm run_in_vm,
				const char *cache)
{
	/* Files of this process: two runs may record at once (a shared name lost one's). */
	char *gz = xasprintf("%s.%ld.tmp.gz", cache, (long)getpid());
	char *cmd = xasprintf("gzip -dc '%s' >'%s.%ld.tmp' && mv '%s.%ld.tmp' '%s'", gz, cache,
			      (long)getpid(), cache, (long)getpid(), cache);
	int fd = open(gz, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	bool ok = false;

	fprintf(stderr, "tapster: recording the function symbols of kernel %s (once)\n",
		s->kernel_release ? s->kernel_release : "?");
	if (fd < 0) {
		fprintf(stderr, "ERROR: cannot write %s: %s\n", gz, strerror(errno));
	} else {
		ok = run_in_vm(s, vm_list_script, fd);
		close(fd);
		ok = ok && system(cmd) == 0;
		if (!ok)
			fprintf(stderr, "ERROR: cannot list the functions of kernel %s\n",
				s->kernel_release ? s->kernel_release : "?");
	}
	unlink(gz);
	free(gz);
	free(cmd);
	return ok;
}

/*
 * The kit's function names, sorted, are kept beside its kallsyms (kallsyms.sorted) for the
 * next runs: reading and sorting the whole symbol table took two thirds of the time of a
 * script's passes 1-4 from the module cache. Its first line names the kallsyms it was made
 * from (size and modification time); then a name a line, blacklisted ones after a '!', the
 * compiler's copies of functions after a '~'.
 */
static char *sorted_header(const char *kallsyms)
{
	struct stat st;

	if (stat(kallsyms, &st) != 0)
		return NULL;
	return xasprintf("tapster sorted functions 3 %lld %lld.%09ld", (long long)st.st_size,
			 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

static bool sorted_list_ok(char **items, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (strcmp(items[i - 1], items[i]) >= 0)
			return false;
	return true;
}

/* The names of a current kallsyms.sorted, pointing into its text (kept), or NULL. */
static struct ksyms *load_sorted(const char *sorted, const char *kallsyms)
{
	char *header = sorted_header(kallsyms);
	char *text = header ? read_text_file(sorted, NULL) : NULL;
	size_t header_len = header ? strlen(header) : 0;
	struct ksyms *k;
	size_t lines = 0;

	if (!text || strncmp(text, header, header_len) != 0 || text[header_len] != '\n') {
		free(header);
		free(text);
		return NULL;
	}
	for (const char *p = text; *p; p++)
		lines += *p == '\n';
	k = xcalloc(1, sizeof(*k));
	k->names = xcalloc(lines + 1, sizeof(*k->names));
	k->blacklist = xcalloc(lines + 1, sizeof(*k->blacklist));
	k->clones = xcalloc(lines + 1, sizeof(*k->clones));
	for (char *line = text + header_len + 1; *line;) {
		char *end = strchrnul(line, '\n');
		bool last = !*end;

		*end = '\0';
		if (*line == '!')
			k->blacklist[k->nblacklist++] = line + 1;
		else if (*line == '~')
			k->clones[k->nclones++] = line + 1;
		else if (*line)
			k->names[k->nnames++] = line;
		line = last ? end : end + 1;
	}
	free(header);
	if (!k->nnames || !sorted_list_ok(k->names, k->nnames) ||
	    !sorted_list_ok(k->blacklist, k->nblacklist) ||
	    !sorted_list_ok(k->clones, k->nclones)) {
		free(k->names);
		free(k->blacklist);
		free(k->clones);
		free(k);
		free(text);
		return NULL;
	}
	return k;	/* text stays: the names are in it */
}

/* Writes kallsyms.sorted, through a file of this process renamed into place; a failure
 * only costs the next run the sorting. */
static void save_sorted(const char *sorted, const char *kallsyms, const struct ksyms *k)
{
	char *header = sorted_header(kallsyms);
	char *tmp = xasprintf("%s.%ld.tmp", sorted, (long)getpid());
	FILE *f = header ? fopen(tmp, "w") : NULL;

	if (f) {
		fprintf(f, "%s\n", header);
		for (size_t i = 0; i < k->nnames; i++)
			fprintf(f, "%s\n", k->names[i]);
		for (size_t i = 0; i < k->nblacklist; i++)
			fprintf(f, "!%s\n", k->blacklist[i]);
		for (size_t i = 0; i < k->nclones; i++)
			fprintf(f, "~%s\n", k->clones[i]);
		if (fclose(f) != 0 || rename(tmp, sorted) != 0)
			unlink(tmp);
	}
	free(header);
	free(tmp);
}

static struct ksyms *load_vm(const struct session *s, ksyms_run_in_vm run_in_vm)
{
	char *cache = xasprintf("%s/kallsyms", s->vm_kit_dir);
	char *sorted = xasprintf("%s/kallsyms.sorted", s->vm_kit_dir);
	struct name_list names = { 0 }, blacklist = { 0 }, clones = { 0 };
	struct ksyms *k = load_sorted(sorted, cache);
	char *text = k ? NULL : read_text_file(cache, NULL);

	if (!k && !text && record_vm_functions(s, run_in_vm, cache))
		text = read_text_file(cache, NULL);
	if (text) {
		read_symbol_table(text, &names, &blacklist, &clones);
		free(text);
		k = ksyms_from(&names, &blacklist, &clones);
		save_sorted(sorted, cache, k);
	}
	free(cache);
	free(sorted);
	return k;
}

static bool target_is_host(const struct session *s)
{
	struct utsname u;

	return s->kernel_release && uname(&u) == 0 && !strcmp(u.release, s->kernel_release) &&
	       !(s->kernel && s->kernel[0] == '/');
}

static struct ksyms *load_host(void)
{
	struct name_list names = { 0 }, blacklist = { 0 }, clones = { 0 };
	char *text = read_text_file("/proc/kallsyms", NULL);
	char *black;

	if (!text) {
		fprintf(stderr, "ERROR: cannot read /proc/kallsyms: %s\n", strerror(errno));
		return NULL;
	}
	read_symbol_table(text, &names, &blacklist, &clones);
	free(text);
	black = read_text_file("/sys/kernel/debug/kprobes/blacklist", NULL);
	if (black) {
		read_blacklist(black, &blacklist);
		free(black);
	}
	return ksyms_from(&names, &blacklist, &clones);
}

/* The text symbols of an ELF vmlinux's symbol table, as "ADDRESS T NAME" lines; NULL when
 * PATH has none. */
static char *vmlinux_symbol_text(const char *path)
{
	size_t count = 0;
	struct ufunc *funcs = usyms_functions(path, &count);
	struct strbuf sb = { 0 };

	if (!funcs)
		return NULL;
	for (size_t i = 0; i < count; i++)
		sb_addf(&sb, "%llx T %s\n", funcs[i].vaddr, funcs[i].name);
	usyms_free_functions(funcs, count);
	return sb.buf;
}

/*
 * Another kernel, for -r: its function symbols from, in order, the record a VM kit of that
 * kernel made (with the kprobe blacklist), a System.map (its build tree's, /boot's, the one
 * Debian's -dbg package puts in /usr/lib/debug/boot; Debian's own /boot one is a stub that
 * points there and holds no function), or the symbol table of a vmlinux (the -dbg
 * package's, the build tree's).
 */
static struct ksyms *load_other_kernel(const struct session *s)
{
	const char *release = s->kernel_release ? s->kernel_release : "";
	char *root = tapster_cache_root();
	char *maps[] = {
		xasprintf("%s/vm/%s/kallsyms", root, release),
		xasprintf("%s/System.map", s->kernel_build_dir),
		xasprintf("/boot/System.map-%s", release),
		xasprintf("/usr/lib/debug/boot/System.map-%s", release),
	};
	char *elves[] = {
		xasprintf("/usr/lib/debug/boot/vmlinux-%s", release),
		xasprintf("/usr/lib/debug/lib/modules/%s/vmlinux", release),
		xasprintf("%s/vmlinux", s->kernel_build_dir),
	};
	const size_t nmaps = sizeof(maps) / sizeof(maps[0]);
	const size_t nelves = sizeof(elves) / sizeof(elves[0]);
	struct name_list names = { 0 }, blacklist = { 0 }, clones = { 0 };

	for (size_t i = 0; i < nmaps + nelves && !names.len; i++) {
		char *text = i < nmaps ? read_text_file(maps[i], NULL) :
					 vmlinux_symbol_text(elves[i - nmaps]);

		if (text)
			read_symbol_table(text, &names, &blacklist, &clones);
		free(text);
	}
	for (size_t i = 0; i < nmaps; i++)
		free(maps[i]);
	for (size_t i = 0; i < nelves; i++)
		free(elves[i]);
	free(root);
	if (!names.len) {
		fprintf(stderr, "ERROR: no function symbols for kernel %s: no System.map with them"
			" and no vmlinux with a symbol table (on Debian: install"
			" linux-image-%s-dbg)\n", *release ? release : s->kernel_build_dir,
			*release ? release : "KVER");
		free(names.items);
		free(blacklist.items);
		free(clones.items);
		return NULL;
	}
	return ksyms_from(&names, &blacklist, &clones);
}

/* Where the exports and the modules of the target are, for later. */
static struct ksyms_lazy *lazy_for(const struct session *s)
{
	struct ksyms_lazy *l = xcalloc(1, sizeof(*l));
	const char *release = s->kernel_release ? s->kernel_release : "";

	l->symvers = xasprintf("%s/Module.symvers", s->kernel_build_dir);
	l->release = xstrdup(release);
	l->vmkit = xstrdup(s->vmkit_path ? s->vmkit_path : "tapster-vmkit");
	l->say_no_modules = s->verbose > 1;
	if (s->run_in_vm) {
		l->modules_dir = xasprintf("%s/root/lib/modules/%s", s->vm_kit_dir, release);
		/* -2: the first list (module-functions) left out the .ko.xz modules. */
		l->modules_cache = xasprintf("%s/module-functions-2", s->vm_kit_dir);
	} else if (*release) {
		l->modules_dir = xasprintf("/lib/modules/%s", release);
		l->host = target_is_host(s);
	}
	return l;
}

struct ksyms *ksyms_load(const struct session *s, ksyms_run_in_vm run_in_vm)
{
	struct ksyms *k;

	if (s->run_in_vm)
		k = load_vm(s, run_in_vm);
	else if (target_is_host(s))
		k = load_host();
	else
		k = load_other_kernel(s);
	if (k)
		k->lazy = lazy_for(s);
	return k;
}

static bool in_sorted(char *const *items, size_t n, const char *name)
{
	return bsearch(&name, items, n, sizeof(*items), compare_names) != NULL;
}

bool ksyms_exists(const struct ksyms *k, const char *name)
{
	return in_sorted(k->names, k->nnames, name) ||
	       (strchr(name, '.') && in_sorted(k->clones, k->nclones, name));
}

bool ksyms_blacklisted(const struct ksyms *k, const char *name)
{
	return in_sorted(k->blacklist, k->nblacklist, name);
}

/* The first of the sorted `items` not below `prefix` in its first `len` bytes. */
static size_t first_with_prefix(char *const *items, size_t n, const char *prefix, size_t len)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strncmp(items[mid], prefix, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Appends the names of the sorted `items` that match `pattern` and kprobes may take; only
 * those that begin with the pattern's literal head are tried. */
static size_t match_sorted(const struct ksyms *k, char *const *items, size_t nitems,
			   const char *pattern, const char ***found, size_t n)
{
	size_t len = strcspn(pattern, "*?[\\");

	for (size_t i = first_with_prefix(items, nitems, pattern, len);
	     i < nitems && !strncmp(items[i], pattern, len); i++) {
		if (fnmatch(pattern, items[i], 0) != 0 || ksyms_blacklisted(k, items[i]))
			continue;
		*found = xrealloc(*found, (n + 1) * sizeof(**found));
		(*found)[n++] = items[i];
	}
	return n;
}

const char **ksyms_match(const struct ksyms *k, const char *pattern, size_t *count)
{
	const char **found = NULL;
	size_t n = match_sorted(k, k->names, k->nnames, pattern, &found, 0);

	/* As stap, a wildcard matches the compiler's copies and cold parts too ("vfs_*" has
	 * vfs_get_tree.cold); a plain name only itself. */
	n = match_sorted(k, k->clones, k->nclones, pattern, &found, n);
	*count = n;
	return found;
}

const char *const *ksyms_names(const struct ksyms *k, size_t *count)
{
	*count = k->nnames;
	return (const char *const *)k->names;
}

/* ---- Exports ---- */

/* Module.symvers: "CRC<TAB>SYMBOL<TAB>MODULE<TAB>EXPORT_TYPE[<TAB>NAMESPACE]" lines; the
 * kernel's own exports are those of module "vmlinux". */
static void read_symvers(struct ksyms_lazy *l, const char *text)
{
	struct name_list exports = { 0 };

	for (const char *line = text; *line;) {
		const char *end = strchrnul(line, '\n');
		const char *name = memchr(line, '\t', (size_t)(end - line));
		const char *module = name ? memchr(name + 1, '\t', (size_t)(end - name - 1)) : NULL;

		if (module && (size_t)(end - module) > 8 && !memcmp(module + 1, "vmlinux\t", 8))
			list_push(&exports, name + 1, (size_t)(module - name - 1));
		line = *end ? end + 1 : end;
	}
	list_finish(&exports);
	l->exports = exports.items;
	l->nexports = exports.len;
}

bool ksyms_exports_known(const struct ksyms *k)
{
	struct ksyms_lazy *l = k->lazy;
	char *text;

	if (l->exports_state)
		return l->exports_state > 0;
	text = read_text_file(l->symvers, NULL);
	if (!text) {
		fprintf(stderr, "ERROR: cannot read %s: %s\n", l->symvers, strerror(errno));
		l->exports_state = -1;
		return false;
	}
	read_symvers(l, text);
	free(text);
	l->exports_state = 1;
	return true;
}

bool ksyms_exported(const struct ksyms *k, const char *name)
{
	return ksyms_exports_known(k) && in_sorted(k->lazy->exports, k->lazy->nexports, name);
}

const char **ksyms_match_exported(const struct ksyms *k, const char *pattern, size_t *count)
{
	const char **found = ksyms_match(k, pattern, count);
	size_t out = 0;

	for (size_t i = 0; i < *count; i++)
		if (ksyms_exported(k, found[i]))
			found[out++] = found[i];
	*count = out;
	return found;
}

const char **ksyms_exported_names(const struct ksyms *k, size_t *count)
{
	const char **names = NULL;
	size_t n = 0;

	for (size_t i = 0; ksyms_exports_known(k) && i < k->nnames; i++)
		if (ksyms_exported(k, k->names[i])) {
			names = xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = k->names[i];
		}
	*count = n;
	return names;
}

/* ---- Modules ---- */

/* The kit holds its kernel's modules once tapster-vmkit --modules fetched them. */
static bool fetch_kit_modules(const struct ksyms_lazy *l)
{
	char *dep = xasprintf("%s/modules.dep", l->modules_dir);
	char *cmd = xasprintf("'%s' --modules >/dev/null", l->vmkit);
	bool ok = access(dep, R_OK) == 0;

	if (!ok) {
		fprintf(stderr, "tapster: fetching the modules of kernel %s (once)\n", l->release);
		ok = system(cmd) == 0 && access(dep, R_OK) == 0;
		if (!ok)
			fprintf(stderr, "ERROR: cannot fetch the modules of kernel %s\n", l->release);
	}
	free(dep);
	free(cmd);
	return ok;
}

static bool load_modules(struct ksyms_lazy *l)
{
	bool ok;

	if (l->modules_cache) {
		l->modules_listed = true;
		if (kmodules_read_cache(&l->modules, l->modules_cache))
			return true;
		ok = fetch_kit_modules(l) && kmodules_read_dir(&l->modules, l->modules_dir);
		kmodules_finish(&l->modules);
		if (ok)
			kmodules_write_cache(&l->modules, l->modules_cache);
		return ok;
	}
	ok = l->modules_dir && kmodules_read_dir(&l->modules, l->modules_dir);
	if (l->host) {
		char *text = read_text_file("/proc/kallsyms", NULL);

		if (text)
			kmodules_read_kallsyms(&l->modules, text);
		ok = ok || text;
		free(text);
	}
	kmodules_finish(&l->modules);
	/* A target without a module list (a -r tree whose kernel is not installed here) has
	 * no modules, as stap's: module("m") finds no match, an optional one nothing. */
	l->modules_listed = ok;
	if (!ok && l->say_no_modules)
		fprintf(stderr, "tapster: no modules known for kernel %s: it has no %s/modules.dep\n",
			l->release, l->modules_dir ? l->modules_dir : "/lib/modules/KVER");
	return true;
}

const struct kmodules *ksyms_modules(const struct ksyms *k)
{
	struct ksyms_lazy *l = k->lazy;

	if (!l->modules_state)
		l->modules_state = load_modules(l) ? 1 : -1;
	return l->modules_state > 0 ? &l->modules : NULL;
}

const char *ksyms_modules_dir(const struct ksyms *k)
{
	return ksyms_modules(k) && k->lazy->modules_listed ? k->lazy->modules_dir : NULL;
}
