// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tapster-run --vm MODULE.ko: a module built earlier (tapster -p4) run in the bundled VM, on
 * a host that cannot load modules, as `tapster --vm` runs its own (src/run/vm_module.h: the
 * same code). The VM's kernel is the one the module was built for, by its vermagic: the
 * kit of that release when there is one (the default flavour's, another flavour's that
 * tapster-vmkit resolved to it, or a kit of that release in the cache), else an error that
 * names both releases and what to do.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loader.h"
#include "run/vm.h"
#include "run/vm_module.h"
#include "util.h"

/* This program's own file (it goes into the guest too), and tapster-vmkit beside it: in the
 * build tree, the source tree's script. */
static char *own_path(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		fail("cannot find this program's file: %s", strerror(errno));
	exe[n] = '\0';
	return xstrdup(exe);
}

static char *vmkit_path(const char *exe)
{
	if (!strcmp(exe, TAPSTER_BUILDDIR "/loader/tapster-run"))
		return xstrdup(TAPSTER_SRCDIR "/scripts/tapster-vmkit");
	return xstrdup(TAPSTER_PKGLIBEXECDIR "/tapster-vmkit");
}

/* The kernel release of the module's vermagic ("6.1.0-56-cloud-amd64 SMP ..."). */
static char *module_release(const char *path)
{
	char vermagic[512];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		fail("Couldn't open module '%s': %s", path, strerror(errno));
	if (!module_modinfo(fd, "vermagic", vermagic, sizeof(vermagic)))
		fail("'%s' is not a kernel module (its .modinfo has no vermagic)", path);
	close(fd);
	vermagic[strcspn(vermagic, " ")] = '\0';
	return xstrdup(vermagic);
}

/* The flavour whose kit tapster-vmkit resolved to `release` (CACHE/vm/resolved-FLAVOUR,
 * "resolved" for the default one), or NULL. */
static char *flavour_of(const char *vm_dir, const char *release)
{
	DIR *dir = opendir(vm_dir);
	struct dirent *e;
	char *flavour = NULL;

	while (dir && !flavour && (e = readdir(dir))) {
		char *path, *text, stamp[64], kver[256];

		if (strncmp(e->d_name, "resolved", 8) || (e->d_name[8] && e->d_name[8] != '-'))
			continue;
		path = xasprintf("%s/%s", vm_dir, e->d_name);
		text = read_text_file(path, NULL);
		if (text && sscanf(text, "%63s %255s", stamp, kver) == 2 && !strcmp(kver, release))
			flavour = xstrdup(e->d_name[8] ? e->d_name + 9 : "cloud-amd64");
		free(text);
		free(path);
	}
	if (dir)
		closedir(dir);
	return flavour;
}

static bool kit_has(const char *kit, const char *release)
{
	char *kver = kit ? vm_kit_kernel_release(kit) : NULL;
	bool same = kver && !strcmp(kver, release);

	free(kver);
	return same;
}

/* The kit whose kernel is `release`, made ready by tapster-vmkit when its flavour is known;
 * NULL with the error said when there is none. */
static char *kit_for(const char *module, const char *release, const char *vmkit)
{
	char *root = tapster_cache_root();
	char *vm_dir = xasprintf("%s/vm", root);
	char *kit = vm_kit_dir(vmkit);
	char *flavour, *other;

	if (kit_has(kit, release))
		goto out;
	flavour = flavour_of(vm_dir, release);
	if (flavour) {
		/* Its flavour for the kit's script too (--modules for a -c command's share). */
		setenv("TAPSTER_VM_FLAVOUR", flavour, 1);
		other = vm_kit_dir(vmkit);
		free(flavour);
		if (kit_has(other, release)) {
			free(kit);
			kit = other;
			goto out;
		}
		free(other);
	}
	other = xasprintf("%s/%s", vm_dir, release);
	if (kit_has(other, release)) {
		free(kit);
		kit = other;
		goto out;
	}
	free(other);
	if (kit) {
		char *kver = vm_kit_kernel_release(kit);

		fprintf(stderr, "ERROR: module '%s' was built for kernel %s, but the bundled VM runs"
			" kernel %s and there is no VM kit of %s\nRebuild it for the VM's kernel with"
			" 'tapster -r %s -p4 ...', or set TAPSTER_VM_FLAVOUR to the Debian kernel"
			" flavour (linux-image-FLAVOUR) of %s to run a VM of that kernel\n",
			module, release, kver ? kver : "?", release, kver ? kver : "KVER", release);
		free(kver);
		free(kit);
		kit = NULL;
	}
out:
	free(vm_dir);
	free(root);
	return kit;
}

static void add(char ***args, int *n, const char *arg)
{
	*args = xrealloc(*args, ((size_t)*n + 2) * sizeof(**args));
	(*args)[(*n)++] = xstrdup(arg);
	(*args)[*n] = NULL;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* -o FILE: the loader writes it (and -S's FILE.N, bulk mode's FILE_CPU) in the guest, and
 * they come back into FILE's directory. */
static char *output_dir(const char *file)
{
	const char *slash = strrchr(file, '/');

	if (!slash)
		return xstrdup(".");
	return slash == file ? xstrdup("/") : xstrndup(file, (size_t)(slash - file));
}

static int timeout_s(void)
{
	const char *env = getenv("TAPSTER_VM_TIMEOUT");
	int limit = env ? atoi(env) : 0;

	return limit > 0 ? limit : 0;
}

int run_module_in_vm(const struct vm_mode_options *opt)
{
	char *exe = own_path(), *vmkit = vmkit_path(exe);
	char *release = module_release(opt->module_path);
	char *kit = kit_for(opt->module_path, release, vmkit);
	char *guest_module, *outdir = NULL, **args = NULL;
	const char *files[] = { opt->module_path, exe, NULL };
	int n = 0, status;

	if (!kit)
		return 1;
	if (opt->command) {
		add(&args, &n, "-c");
		add(&args, &n, opt->command);
	}
	if (opt->output_path) {
		char *guest_output = xasprintf(VM_GUEST_OUTPUT_DIR "/%s",
					       base_name(opt->output_path));

		add(&args, &n, "-o");
		add(&args, &n, guest_output);
		free(guest_output);
		outdir = output_dir(opt->output_path);
	}
	if (opt->size_limit) {
		add(&args, &n, "-S");
		add(&args, &n, opt->size_limit);
	}
	if (opt->buffer_mb) {
		add(&args, &n, "-b");
		add(&args, &n, opt->buffer_mb);
	}
	if (opt->verbose)
		add(&args, &n, "-v");
	guest_module = xasprintf(VM_GUEST_JOB_DIR "/%s", base_name(opt->module_path));
	add(&args, &n, guest_module);
	for (int i = 0; i < opt->nparams; i++)
		add(&args, &n, opt->params[i]);

	struct vm_module_run run = {
		.kit_dir = kit,
		.vmkit_path = vmkit,
		.job_files = files,
		.loader_args = (const char *const *)args,
		.command = opt->command,
		.outfiles_dir = outdir,
		.out_fd = STDOUT_FILENO,
		.cpus = 2,
		.timeout_s = timeout_s(),
	};

	status = vm_module_run(&run);
	for (int i = 0; i < n; i++)
		free(args[i]);
	free(args);
	free(guest_module);
	free(outdir);
	free(kit);
	free(release);
	free(vmkit);
	free(exe);
	return status;
}
