/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pass 5's VM: the host has no kprobes, so a module runs in a small qemu guest (TCG) booted
 * from the kit that scripts/tapster-vmkit makes: Debian's cloud kernel, a busybox initramfs
 * whose /init is scripts/vm-init, and a kbuild tree to build modules against.
 *
 * A run boots the kit's kernel with the base initramfs plus a second newc archive holding
 * /job/ (the given files and run.sh). The guest's serial ports are
 *
 *     ttyS0  the kernel console, to job->console_log
 *     ttyS1  the job's stdout, streamed to job->out_fd as it arrives
 *     ttyS2  the job's stderr, streamed to job->err_fd
 *     ttyS3  control: the guest says "ready\n" once it listens there; vm_interrupt() sends
 *            a byte (held back until "ready"), upon which the guest sends SIGINT to the
 *            job; the loader says "armed N M" while it arms the probes, "started" after; the job may send files back ("file NAME SIZE\n" and the bytes, see
 *            vm_outfiles.h); the guest says "status N\n" when the job ends, then powers
 *            off.
 *
 * One run at a time per process (vm_interrupt() needs to know which).
 *
 * Environment: TAPSTER_QEMU names the qemu binary (default qemu-system-x86_64);
 * TAPSTER_VM_APPEND is added to the kernel command line.
 */
#ifndef TAPSTER_VM_H
#define TAPSTER_VM_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Returns the kit directory (malloc'd), running VMKIT_SCRIPT (tapster-vmkit; looked up in
 * PATH when NULL) to make it if need be, or NULL with a message on stderr. The script's own
 * progress messages pass through to stderr.
 */
char *vm_kit_dir(const char *vmkit_script);
/* The same, always through the script. */
char *vm_kit_dir_made(const char *vmkit_script);
/* The script with --modules: the kit's kernel modules, fetched once; false with a message. */
bool vm_kit_fetch_modules(const char *vmkit_script);

/* The kernel release the kit was made for ("6.1.0-56-cloud-amd64"), malloc'd, or NULL. */
char *vm_kit_kernel_release(const char *kit_dir);

/* The kbuild tree of a kit, for `make -C DIR M=... modules` (malloc'd). */
char *vm_kit_build_dir(const char *kit_dir);

/* -F: the session would outlive tapster, which the VM does not. */
#define VM_FLIGHT_RECORDER_ERROR "ERROR: The flight recorder (-F) needs a machine that keeps" \
	" running after tapster exits; the bundled VM does not.\n"

/* -x PID: a process of the host, which the guest's kernel does not see. */
#define VM_TARGET_PID_ERROR "ERROR: -x PID names a process of this host; the bundled VM's" \
	" kernel sees only its own processes (start the program in it with -c CMD).\n"
#define VM_TARGET_NAMESPACE_ERROR "ERROR: --target-namespace=PID names a process of this" \
	" host; the bundled VM's kernel sees only its own processes and namespaces.\n"

/* A screen that takes the job's output over (tapster --monitor, run/monitor.h). */
struct vm_screen {
	void (*output)(int port, const char *buf, size_t len);	/* 1 stdout, 2 stderr */
	void (*snapshot)(const char *text, size_t len);	/* "monitor SIZE" on the control port */
	bool (*keys)(const char *buf, size_t len);	/* typed on key_fd; true: interrupt */
	int key_fd;
};

struct vm_job {
	const char *kit_dir;
	const char *const *files;	/* host paths copied into the guest's /job/ (basename
					 * kept, mode kept), NULL-terminated; may be NULL */
	const char *const *placed;	/* host paths (absolute) copied into the guest at the
					 * same path, their directories made; NULL-terminated,
					 * may be NULL */
	const char *run_script;		/* the contents of /job/run.sh, run as `sh /job/run.sh`
					 * in /job with stdin /dev/null; `exec` the loader so
					 * that vm_interrupt() reaches it */
	int out_fd, err_fd;		/* where the guest's ttyS1 / ttyS2 bytes go, as they
					 * arrive; -1 discards */
	int cpus;			/* -smp N; 0 means 1 */
	int mem_mb;			/* guest memory; 0 means 512 */
	bool icount;			/* -icount shift=0: deterministic virtual time */
	const char *console_log;	/* the kernel console goes here; NULL: not kept (its
					 * tail is still shown when the run fails) */
	int timeout_s;			/* kill the VM after this long; 0: no limit */
	const char *outfiles_dir;	/* where files the job sends back on ttyS3 go
					 * (vm_outfiles.h); NULL: dropped */
	const char *const *modules;	/* names of the kit's kernel modules the guest gets in
					 * its /lib/modules/KVER, with those they depend on and
					 * a modules.dep of them (modprobe NAME works), so that
					 * a script can probe them as they load; NULL-terminated,
					 * may be NULL */
	const char *after_boot;		/* the progress line (progress.h) from the guest's boot
					 * until the job sends "started" on the control port
					 * (the loader does, TAPSTER_RUN_NOTIFY); NULL: none */
	const struct vm_screen *screen;	/* NULL: output goes to out_fd and err_fd */
	const char *share_root;		/* a host directory served to the guest over virtio-fs
					 * (vm_share.h), when virtiofsd starts; /job/host-share
					 * then tells run.sh; NULL: none */
};

/*
 * Boots the VM, runs the job and streams its output. Returns 0 and sets *status to the job's
 * exit status (128 + N when signal N killed it, 127 when there was no run.sh), or -1 with a
 * message on stderr when qemu did not start, the run timed out, or no status came back.
 */
int vm_run(const struct vm_job *job, int *status);

/*
 * Asks the running job to stop, as ^C would: the guest sends SIGINT to the job's process.
 * Async-signal-safe; does nothing when no job runs.
 */
void vm_interrupt(void);

#endif
