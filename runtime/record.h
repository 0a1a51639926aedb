/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The record that carries the script's output from the module to the loader: the module
 * writes it into its rings (transport.h), tapster-run reads it from /proc/tapster_NAME/out
 * (loader/tapster-run.c). A tap_record header, then `len` bytes of text.
 *
 * Both sides include this header, the kernel and user space: fixed-width types only, no
 * kernel-only include.
 */
#ifndef TAP_RECORD_H
#define TAP_RECORD_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdint.h>
#endif

enum tap_channel {
	TAP_CHANNEL_STDOUT = 1,
	TAP_CHANNEL_STDERR = 2,
	TAP_CHANNEL_SYSTEM = 3,	/* system(): a command for the loader to run, NUL-ended */
	TAP_CHANNEL_SWITCH = 4,	/* switch_file(): -o's next file from here on (no payload) */
};

/* `channel` holds the enum tap_channel in its low bits, the writer's CPU above them. */
#define TAP_RECORD_CPU_SHIFT 8
#define TAP_RECORD_CHANNEL_MASK ((1u << TAP_RECORD_CPU_SHIFT) - 1)

struct tap_record {
	uint32_t len;		/* bytes following the header */
	uint32_t channel;	/* enum tap_channel | the writer's CPU << TAP_RECORD_CPU_SHIFT */
	uint64_t seq;		/* the order of writing, across CPUs; records come out in it */
};

#endif
