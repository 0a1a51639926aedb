/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The host's files in the bundled VM: a directory of the host (its root, for a -c command)
 * served over virtio-fs by virtiofsd, which the guest mounts read-only and puts under a
 * writable layer in its memory (overlayfs), so that a command of the host runs there as in
 * the user's shell: its program and libraries, its directory, files it writes (lost with the
 * VM). See vm_share_guest_setup() for the guest's side.
 */
#ifndef TAPSTER_VM_SHARE_H
#define TAPSTER_VM_SHARE_H

#include <stdbool.h>
#include <sys/types.h>

/* The tag the guest mounts, and where run.sh puts things in the guest. */
#define VM_SHARE_TAG "host"
#define VM_SHARE_GUEST_ROOT "/hostroot"	/* the host's files, writable (overlay) */

/* The kernel modules the guest loads for it (with their dependencies). */
#define VM_SHARE_MODULES "virtio_pci", "virtiofs", "overlay"

struct vm_share {
	pid_t pid;		/* virtiofsd, 0 when not running */
	char *socket;		/* its vhost-user socket, which qemu connects to */
	char *log;		/* its messages */
};

#define VM_SHARE_NO_DAEMON "WARNING: cannot share this host's files with the VM: no virtiofsd" \
	" (qemu-system-common has it); -c runs in the VM's own small system\n"

/* The virtiofsd program, or NULL when there is none (TAPSTER_VIRTIOFSD, then Debian's
 * places). */
const char *vm_share_daemon(void);

/* Starts virtiofsd serving `root` with its socket and log in `dir`; false after printing
 * why not (the caller goes on without the share). */
bool vm_share_start(struct vm_share *share, const char *root, const char *dir);

/* Stops it and removes its files. */
void vm_share_stop(struct vm_share *share);

struct strbuf;

/* Appends to `script` the guest's lines that mount the share at VM_SHARE_GUEST_ROOT with
 * the guest's /proc, /sys, /dev, its /job and its kernel's modules in it, and set
 * `share_ok=1` when all went well. */
void vm_share_guest_setup(struct strbuf *script);

#endif
