/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Script output: printf and friends append to the probe hit's print buffer, which goes to
 * this CPU's ring as one record when the hit ends (or when it fills up). The formatting
 * itself is in format.h.
 */
#ifndef TAP_PRINT_H
#define TAP_PRINT_H

#include <linux/kernel.h>
#include <linux/string.h>

#include "context.h"
#include "transport.h"

/* The hit's text so far from its ring's head into buf: anything but printf's fast path adds
 * to it there, and nothing else may be written to the ring before it is published. */
static void tap_print_unring(struct tap_context *c)
{
	struct tap_print_buffer *pb = &c->print;

	if (pb->text) {
		memcpy(pb->buf, pb->text, pb->len);
		pb->text = NULL;
	}
}

static void tap_print_flush(struct tap_context *c)
{
	struct tap_print_buffer *pb = &c->print;
	struct tap_ring *ring = &tap_rings[smp_processor_id()];

	if (pb->text && tap_ring_extend_in_place(ring, pb->len)) {
		pb->text = NULL;
	} else {
		tap_print_unring(c);
		if (!tap_ring_extend(ring, pb->buf, pb->len))
			tap_ring_write(ring, TAP_CHANNEL_STDOUT, pb->buf, pb->len);
	}
	pb->len = 0;
}

static noinline void tap_context_exit_slow(struct tap_context *c)
{
	if (c->print.len)
		tap_print_flush(c);
	if (unlikely(c->last_error)) {
		tap_report_error(c);
		c->last_error = NULL;
		c->error_location = NULL;
	}
}

/* Appends text to the probe hit's output, sending what came before when it is full. */
static void tap_print_text(struct tap_context *c, const char *text, size_t len)
{
	struct tap_print_buffer *pb = &c->print;

	tap_print_unring(c);
	while (len) {
		size_t room = sizeof(pb->buf) - pb->len;
		size_t n = min(len, room);

		if (!room) {
			tap_print_flush(c);
			continue;
		}
		memcpy(pb->buf + pb->len, text, n);
		pb->len += n;
		text += n;
		len -= n;
	}
}

/*
 * printf(3)-style text, formatted in c->message, to `channel`: stdout text joins the probe
 * hit's output, stderr text goes to the ring at once.
 */
static __printf(3, 0) void tap_vprint_message(struct tap_context *c, enum tap_channel channel,
					      const char *fmt, va_list ap)
{
	int n = vscnprintf(c->message, sizeof(c->message), fmt, ap);

	if (channel == TAP_CHANNEL_STDOUT) {
		tap_print_text(c, c->message, n);
	} else {
		tap_print_unring(c);
		tap_ring_write(&tap_rings[smp_processor_id()], channel, c->message, n);
	}
}

/* STAP_PRINTF(fmt, ...) of an embedded-C function: printf(3)-style text to the output. */
static __maybe_unused __printf(2, 3) void tap_embedded_printf(struct tap_context *c,
							      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vprint_message(c, TAP_CHANNEL_STDOUT, fmt, ap);
	va_end(ap);
}

/* STAP_ERROR(fmt, ...) of an embedded-C function: the probe hit's error. */
static __maybe_unused __printf(2, 3) void tap_embedded_error(struct tap_context *c,
							     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vscnprintf(c->error_buffer, sizeof(c->error_buffer), fmt, ap);
	va_end(ap);
	c->last_error = c->error_buffer;
}

/* Appends a message to the stderr channel, "WARNING: " or "ERROR: " included by the caller. */
static __printf(2, 3) void tap_channel_stderr(struct tap_context *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vprint_message(c, TAP_CHANNEL_STDERR, fmt, ap);
	va_end(ap);
}

/* A message of the runtime itself, outside any probe hit (a perf event or watchpoint the
 * kernel refused): on the stderr channel at once, "WARNING: " or "ERROR: " included by the
 * caller. */
static __maybe_unused __printf(1, 2) void tap_runtime_message(const char *fmt, ...)
{
	struct tap_context *c = tap_context_enter_process(NULL, tap_session_state());
	va_list ap;

	if (!c)
		return;
	va_start(ap, fmt);
	tap_vprint_message(c, TAP_CHANNEL_STDERR, fmt, ap);
	va_end(ap);
	tap_context_exit_process(c);
}

/* A runtime error of a probe hit, in stap's words; MAXERRORS of them end the session.
 * With --suppress-handler-errors, only counted: the closing warning gives the count. */
static void tap_report_error(struct tap_context *c)
{
	if (c->last_error == tap_abort_request)
		return;
#ifdef STAP_SUPPRESS_HANDLER_ERRORS
	atomic_inc(&tap_error_count);
	return;
#endif
	if (c->error_location && c->error_location != tap_error_unlocated)
		tap_channel_stderr(c, "ERROR: %s near %s\n", c->last_error, c->error_location);
	else
		tap_channel_stderr(c, "ERROR: %s\n", c->last_error);
	if (atomic_inc_return(&tap_error_count) > MAXERRORS)
		tap_request_stop();
}

#endif
