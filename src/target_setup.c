// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The target kernel (target.h): chosen once, when a pass first needs it, and asked about
 * through the callbacks of struct parse_target and struct provider_env.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "target/btf_image.h"
#include "target/debuginfo.h"
#include "diag.h"
#include "target/ksyms.h"
#include "target/ktypes.h"
#include "run/run.h"
#include "target_setup.h"
#include "target/tracepoints.h"
#include "util.h"
#include "run/vm.h"

/* The release a build tree is for: its utsrelease.h says it (Debian's headers hold the
 * upstream version in include/config/kernel.release), else kernel.release. */
static char *build_tree_release(const char *tree)
{
	char *path = xasprintf("%s/include/generated/utsrelease.h", tree);
	char *text = read_text_file(path, NULL), *release = NULL;
	char *quote = text ? strstr(text, "UTS_RELEASE \"") : NULL;

	free(path);
	if (quote) {
		quote += strlen("UTS_RELEASE \"");
		release = xstrndup(quote, strcspn(quote, "\"\n"));
	} else {
		path = xasprintf("%s/include/config/kernel.release", tree);
		release = read_text_file(path, NULL);
		if (release)
			release[strcspn(release, "\n")] = '\0';
		free(path);
	}
	free(text);
	return release;
}

/* -r KVER without /lib/modules/KVER/build: the headers of the bundled VM's kit for KVER, if
 * one was made. */
static void use_kit_build_tree(struct session *s)
{
	char *root = tapster_cache_root();
	char *tree = xasprintf("%s/vm/%s/build", root, s->kernel_release);
	struct stat st;

	free(root);
	if (stat(tree, &st) != 0) {
		free(tree);
		return;
	}
	free((char *)s->kernel_build_dir);
	s->kernel_build_dir = tree;
}

/* --sysenv=VAR=VALUE's value of VAR, or NULL. */
static const char *sysenv_value(const struct session *s, const char *var)
{
	size_t len = strlen(var);

	for (int i = s->sysenv.count - 1; i >= 0; i--)
		if (!strncmp(s->sysenv.items[i], var, len) && s->sysenv.items[i][len] == '=')
			return s->sysenv.items[i] + len + 1;
	return NULL;
}

/* The target is the host's kernel, or the one -r names, built against locally. */
static bool choose_local_target(struct session *s)
{
	struct stat st;

	s->run_in_vm = false;
	if (s->kernel && s->kernel[0] == '/') {
		s->kernel_build_dir = s->kernel;
		s->kernel_release = build_tree_release(s->kernel);
	} else {
		struct utsname u;

		if (!s->kernel && uname(&u) == 0)
			s->kernel_release = xstrdup(u.release);
		else
			s->kernel_release = xstrdup(s->kernel ? s->kernel : "");
		/* --sysroot with -r KVER: the target's tree is under the sysroot. */
		s->kernel_build_dir = xasprintf("%s/lib/modules/%s/build",
						s->kernel && s->sysroot ? s->sysroot : "",
						s->kernel_release);
		if (s->kernel && stat(s->kernel_build_dir, &st) != 0)
			use_kit_build_tree(s);
	}
	if (s->last_pass >= 4 && stat(s->kernel_build_dir, &st) != 0) {
		fprintf(stderr, "ERROR: kernel build tree %s is missing\n", s->kernel_build_dir);
		return false;
	}
	return true;
}

/*
 * Where pass 5 runs, and so which kernel is the target: the host when it can load modules
 * (or --no-vm), else the bundled VM, whose kernel is the target unless -r names another
 * one for passes up to 4. False after printing why it can't.
 */
static bool choose_target(struct session *s)
{
	bool host_runs = s->vm != VM_FORCE && host_can_run_modules();
	bool local_build = s->kernel && s->last_pass <= 4 && s->vm != VM_FORCE;

	if (s->vm == VM_NEVER || host_runs || local_build)
		return choose_local_target(s);
	s->vm_kit_dir = vm_kit_dir(s->vmkit_path);
	if (!s->vm_kit_dir)
		return false;
	s->run_in_vm = true;
	if (s->flight_recorder && s->last_pass >= 5) {
		fputs(VM_FLIGHT_RECORDER_ERROR, stderr);
		return false;
	}
	if (s->target_pid && s->last_pass >= 5) {
		fputs(VM_TARGET_PID_ERROR, stderr);
		return false;
	}
	if (s->target_namespace_pid && s->last_pass >= 5) {
		fputs(VM_TARGET_NAMESPACE_ERROR, stderr);
		return false;
	}
	s->kernel_release = vm_kit_kernel_release(s->vm_kit_dir);
	s->kernel_build_dir = xasprintf("%s/build", s->vm_kit_dir);
	if (s->kernel && (!s->kernel_release || strcmp(s->kernel, s->kernel_release))) {
		fprintf(stderr, "ERROR: cannot run a module for kernel %s: this host cannot load"
			" modules, and the bundled VM runs kernel %s\n", s->kernel,
			s->kernel_release ? s->kernel_release : "?");
		return false;
	}
	if (s->vm == VM_AUTO && s->last_pass >= 5)
		fprintf(stderr, "tapster: this host cannot load kernel modules; running in the"
			" bundled VM (kernel %s): the probes see its kernel and the processes"
			" started in it (-c), not this host's\n",
			s->kernel_release ? s->kernel_release : "?");
	return true;
}

bool ensure_target(struct session *s)
{
	if (s->target_state == 0)
		s->target_state = choose_target(s) ? 1 : -1;
	return s->target_state > 0;
}

static const char *target_release(void *ctx)
{
	struct session *s = ctx;

	return ensure_target(s) ? s->kernel_release : NULL;
}

/* CONFIG_NAME's value in the target's .config, its quotes removed; "" when unset. */
static const char *target_config(void *ctx, const char *name)
{
	struct session *s = ctx;

	if (!ensure_target(s))
		return "";
	if (!s->kernel_config) {
		char *path = xasprintf("%s/.config", s->kernel_build_dir);

		s->kernel_config = read_text_file(path, NULL);
		free(path);
		if (!s->kernel_config)
			s->kernel_config = xstrdup("");
	}
	return config_value(s->kernel_config, name);
}

/* How ksyms lists the bundled VM kernel's functions: `script` run in the kit's VM. */
static bool run_in_kit_vm(const struct session *s, const char *script, int out_fd)
{
	struct vm_job job = {
		.kit_dir = s->vm_kit_dir,
		.run_script = script,
		.out_fd = out_fd,
		.err_fd = STDERR_FILENO,
		.cpus = 1,
		.timeout_s = 300,
	};
	int status = 1;

	return vm_run(&job, &status) == 0 && status == 0;
}

/* The target's function symbols, for pass 2's providers: loaded once, when first asked. */
static const struct ksyms *target_symbols(void *ctx)
{
	static struct ksyms *symbols;
	static bool tried;

	if (!tried) {
		tried = true;
		symbols = ksyms_load(ctx, run_in_kit_vm);
	}
	return symbols;
}

/* The target's types, for pass 2's $target expressions. */
static const struct ktypes *target_types(void *ctx)
{
	return ktypes_load(ctx);
}

/* The kernel's DWARF, for the probe points that need it. */
static const struct debuginfo *target_debuginfo(void *ctx)
{
	return debuginfo_kernel(ctx);
}

/* Whether `path` is an ELF file (a module's, for @cast's module list). */
static bool is_elf_file(const char *path)
{
	char magic[4];
	FILE *f = fopen(path, "rb");
	bool elf = f && fread(magic, 1, sizeof(magic), f) == sizeof(magic) &&
		   !memcmp(magic, "\177ELF", 4);

	if (f)
		fclose(f);
	return elf;
}

/*
 * stap's warning for a module file of @cast's module list that is there and built for the
 * target but has no types (stap: no DWARF; here: no BTF either), at each look-up: the
 * repeats count as suppressed warnings, as stap's.
 */
static void warn_untyped_module_file(const struct session *s, const char *path)
{
	char *release;

	if (!is_elf_file(path))
		return;
	release = btf_image_module_release(path);
	if (!release || !s->kernel_release || !strcmp(release, s->kernel_release))
		diag_warning_once("cannot find module %s debuginfo: No DWARF information found"
				  " [man warning::debuginfo]", path);
	free(release);
}

/* A module's types, for $target expressions in its functions and @cast(p, "t", "module"). */
static const struct ktypes *target_module_types(void *ctx, const char *module,
						const char **error)
{
	const struct ksyms *symbols = target_symbols(ctx);
	const char *dir = symbols ? ksyms_modules_dir(symbols) : NULL;
	const struct ktypes *kt = ktypes_load_module(ctx, module, dir, error);

	if (!kt && strchr(module, '/'))
		warn_untyped_module_file(ctx, module);
	return kt;
}

/* The types of @cast's "kernel<linux/fs.h>" and "<sys/un.h>": compiled from the headers;
 * the kernel's own where the target has no build tree to compile kernel headers in. */
static const struct ktypes *target_header_types(void *ctx, const char *headers, bool kernel)
{
	const struct session *s = ctx;
	char *makefile = s->kernel_build_dir ? xasprintf("%s/Makefile", s->kernel_build_dir) :
		NULL;
	bool tree = makefile && access(makefile, R_OK) == 0;

	free(makefile);
	if (kernel && !tree)
		return target_types(ctx);
	return ktypes_load_headers(s, headers, kernel);
}

/* A user-space file's DWARF types, for process("PATH").function's $target expressions. */
static const struct ktypes *target_user_types(void *ctx, const char *path)
{
	(void)ctx;
	return ktypes_load_user(path);
}

/* The target's tracepoints, for kernel.trace: from its BTF (even where DWARF types the
 * rest) and its trace headers. */
static struct tracepoints *load_target_tracepoints(const struct session *s)
{
	static struct tracepoints *tracepoints;
	const struct ktypes *kt;

	if (!tracepoints && (kt = ktypes_load_btf(s)))
		tracepoints = tracepoints_load(kt, s->kernel_build_dir);
	return tracepoints;
}

static const struct tracepoints *target_tracepoints(void *ctx)
{
	return load_target_tracepoints(ctx);
}

/* Whether the target's modules are known without fetching or complaining: the kit's list
 * of them or a modules.dep. */
static bool target_lists_modules(const struct session *s)
{
	char *paths[2];
	bool found = false;

	if (s->run_in_vm) {
		paths[0] = xasprintf("%s/module-functions-2", s->vm_kit_dir);
		paths[1] = xasprintf("%s/root/lib/modules/%s/modules.dep", s->vm_kit_dir,
				     s->kernel_release);
	} else {
		paths[0] = xasprintf("/lib/modules/%s/modules.dep", s->kernel_release);
		paths[1] = xstrdup(paths[0]);
	}
	for (int i = 0; i < 2; i++) {
		found = found || access(paths[i], R_OK) == 0;
		free(paths[i]);
	}
	return found;
}

/* With the tracepoints of the target's loadable modules, named by their functions: of the
 * modules known without fetching them, or, with `fetch`, of the VM kit's modules fetched
 * now (once) if it has none yet, as a kernel.trace that only a module can match needs. */
static struct tracepoints *target_module_tracepoints(void *ctx, bool fetch)
{
	const struct session *s = ctx;
	struct tracepoints *t = load_target_tracepoints(ctx);
	bool known = target_lists_modules(ctx) || (fetch && s->run_in_vm);
	const struct ksyms *symbols = t && known ? target_symbols(ctx) : NULL;
	const struct kmodules *mods = symbols ? ksyms_modules(symbols) : NULL;

	if (t && mods)
		tracepoints_add_modules(t, mods);
	return t;
}

struct parse_target target_for_parse(struct session *s)
{
	return (struct parse_target){ target_release, target_config, s };
}

struct provider_env target_for_providers(struct session *s)
{
	return (struct provider_env){ .symbols = target_symbols, .types = target_types,
				      .module_types = target_module_types,
				      .header_types = target_header_types,
				      .user_types = target_user_types,
				      .tracepoints = target_tracepoints,
				      .module_tracepoints = target_module_tracepoints, .ctx = s,
				      .guru = s->guru,
				      .unprivileged = s->privilege == PRIVILEGE_STAPUSR,
				      .skip_badvars = s->skip_badvars,
				      .prologue = s->prologue,
				      .sysroot = s->sysroot,
				      .target_path = sysenv_value(s, "PATH"),
				      .command = s->command, .target_pid = s->target_pid,
				      .vm_guest = s->run_in_vm && s->last_pass >= 5,
				      .debuginfo = target_debuginfo,
				      .build_dir = s->kernel_build_dir };
}
