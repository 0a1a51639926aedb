/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The output channel: one ring per CPU, filled from probe context and drained by the loader
 * through /proc/tapster_MODULE/out.
 *
 * A ring has a single producer, the probe context that owns its CPU (see context.h), and a
 * single consumer, the loader's reader (serialised by tap_read_mutex), so it needs no lock:
 * the producer publishes `head` with a release store after writing the bytes, the consumer
 * publishes `tail` the same way after reading them. A record is a tap_record header followed
 * by its bytes (record.h, which the loader shares); the reader hands out whole records only,
 * so lines are never cut. When a record does not fit, it is dropped and counted; the loader
 * reports the count at the end.
 *
 * Each record takes a number from one counter of the session, and the reader hands the
 * records of all rings out in that order: lines come out in the order they were written,
 * also when they were written on different CPUs (a task that moved, or two tasks), as
 * stap's output does. Only a record being written while the reader passes may come later.
 * A hit's stdout output extends the ring's last record instead when that is stdout's and the
 * counter has not moved since it was numbered (tap_ring_extend()): nothing written anywhere
 * can come between them, and a probe that prints on every hit costs no header, no number and
 * nothing per line in the loader. The reader hands out what such a record holds so far with
 * a header of that length, and the rest later under the same number; it keeps the record's
 * space (tail) until another record follows it.
 *
 * Probe context never wakes anybody up (a probe may sit on the scheduler's own path): a timer
 * polls the rings and wakes the reader, every few milliseconds while there is output, less
 * and less often while there is none (module.h); a ring that gets half full kicks the poll
 * at once (an irq_work, session.h). The reader copies the records of one ring that come
 * before any other ring's next one in one go, and the loader writes what one read gave it
 * with one write(): the output of a probe that prints on every hit costs little more than
 * its formatting.
 */
#ifndef TAP_TRANSPORT_H
#define TAP_TRANSPORT_H

#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/proc_fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>

#include "defaults.h"
#include "record.h"
#include "session.h"

/* Bulk mode (stap -b): the loader keeps each CPU's output in a file of its own. */
#ifndef TAP_BULK_MODE
#define TAP_BULK_MODE 0
#endif

struct tap_ring {
	char *data;
	u32 mask;	/* size - 1 */
	u32 head;	/* bytes ever written; only the producer stores it */
	u32 tail;	/* where the record the reader is in (or its next one) begins: the space
			 * before it is free; only the consumer stores it */
	u32 read;	/* bytes ever read, tail <= read <= head; only the consumer stores it */
	/* The producer's own: */
	u32 open_len;	/* the length of its last record, which it may extend */
	u32 fast_end;	/* how far text that extends that record may be written in place from
			 * the head with no look at the tail (tap_ring_set_fast_end(), from the
			 * tail it last read); head <= fast_end */
	u32 *open_len_at;	/* where the record's header holds its length */
	u64 open_seq;	/* its number; 0 when it cannot be extended */
	u64 dropped;	/* records that did not fit */
};

static struct tap_ring *tap_rings;	/* one per possible CPU */
/* This CPU's, for the hot path: one %gs-relative load rather than an index into the above. */
static DEFINE_PER_CPU(struct tap_ring *, tap_this_ring);
/* Numbers start at 2: no record's number is 1, the counter's first value, or 0, the
 * "cannot be extended" of tap_ring.open_seq. */
static atomic64_t tap_record_seq = ATOMIC64_INIT(1);
static DEFINE_MUTEX(tap_read_mutex);
static DECLARE_WAIT_QUEUE_HEAD(tap_read_wait);
/* Woken when a read leaves every ring empty, or the last reader goes (module.h waits for
 * it before end probes). */
static DECLARE_WAIT_QUEUE_HEAD(tap_drained_wait);
/* Open files of out: the loader's, none after -L until -A. */
static atomic_t tap_out_readers = ATOMIC_INIT(0);

static unsigned int tap_bufsize = TAP_BUFFER_SIZE;
module_param_named(bufsize, tap_bufsize, uint, 0400);
MODULE_PARM_DESC(bufsize, "bytes of output buffer per CPU (rounded up to a power of two)");

static __always_inline void tap_ring_copy_in(struct tap_ring *ring, u32 pos, const void *src, u32 len)
{
	u32 off = pos & ring->mask;
	u32 first = min(len, ring->mask + 1 - off);

	memcpy(ring->data + off, src, first);
	if (unlikely(first < len))
		memcpy(ring->data, (const char *)src + first, len - first);
}

/* The longest a record grows by extension: the reader keeps its space until it ends. */
static __always_inline u32 tap_ring_extend_max(const struct tap_ring *ring)
{
	return min_t(u32, 65536, (ring->mask + 1) / 4);
}

/* The length field of the record at `pos`, which is 4-aligned (it never crosses the end). */
static __always_inline u32 *tap_ring_len_field(const struct tap_ring *ring, u32 pos)
{
	return (u32 *)(ring->data + (pos & ring->mask));
}

/* A ring filling up: the poll may be slow (idle before), so a ring half full is read now. */
static __always_inline void tap_ring_kick_half(const struct tap_ring *ring, u32 used, u32 added)
{
	if (unlikely(used + added > ring->mask / 2 && used <= ring->mask / 2))
		tap_kick();
}

/* The `len` bytes at the head published as the end of the last record: its length in
 * place, then the head. */
static __always_inline void tap_ring_publish_extension(struct tap_ring *ring, u32 len)
{
	ring->open_len += len;
	WRITE_ONCE(*ring->open_len_at, ring->open_len);
	smp_store_release(&ring->head, ring->head + len);
}

/*
 * Stdout text of the caller's CPU as the end of the ring's last record, when that is stdout's
 * too and no record was numbered since (nothing anywhere could come between them): no
 * header, no number, and the loader gets the lines of many hits as one record. Such a
 * record's length is updated in place, so only a record whose header is 4-aligned is
 * extended (the reader reads its length with one load), up to tap_ring_extend_max().
 * False when the text needs a record of its own (tap_ring_write()).
 */
static __always_inline bool tap_ring_extend(struct tap_ring *ring, const char *buf, u32 len)
{
	u32 head = ring->head, used;

	if (ring->open_seq != (u64)atomic64_read(&tap_record_seq) ||
	    ring->open_len + len > tap_ring_extend_max(ring))
		return false;
	used = head - smp_load_acquire(&ring->tail);
	if (unlikely(ring->mask + 1 - used < len)) {
		WRITE_ONCE(ring->dropped, ring->dropped + 1);
		return true;
	}
	tap_ring_copy_in(ring, head, buf, len);
	tap_ring_publish_extension(ring, len);
	tap_ring_kick_half(ring, used, len);
	ring->fast_end = head + len;	/* looked at again when next needed */
	return true;
}

/*
 * How far text that extends the last record may be written in place from `head`, the
 * record's end: no further than the free space, the ring's end (no wrap), the record's
 * longest (tap_ring_extend_max()), one print buffer (TAP_PRINT_BUFFER_SIZE: the text may be
 * moved there, print.h's tap_print_unring()), and the ring's half: text written there
 * never owes the half-full kick (tap_ring_kick_half()). A ring more than half full has no
 * such room (the reader may catch up meanwhile, and the text cross the half again): its
 * text is copied in by tap_ring_extend(), which kicks. The tail it reads only moves on: the
 * room only grows meanwhile.
 */
static void tap_ring_set_fast_end(struct tap_ring *ring, u32 head)
{
	u32 used = head - smp_load_acquire(&ring->tail);
	u32 max = tap_ring_extend_max(ring);
	u32 room = 0;

	if (used <= ring->mask / 2) {
		room = min3(ring->mask / 2 - used, ring->mask + 1 - (head & ring->mask),
			    ring->open_len < max ? max - ring->open_len : 0);
		room = min_t(u32, room, TAP_PRINT_BUFFER_SIZE);
	}
	ring->fast_end = head + room;
}

/* tap_ring_extend_room() when the room it knows is too short: looked at again. */
static noinline char *tap_ring_extend_room_slow(struct tap_ring *ring, u32 bound, u32 *room)
{
	u32 head = ring->head;

	if (ring->open_seq != (u64)atomic64_read(&tap_record_seq))
		return NULL;
	tap_ring_set_fast_end(ring, head);
	*room = ring->fast_end - head;
	return *room >= bound ? ring->data + (head & ring->mask) : NULL;
}

/*
 * Where stdout text of at most `bound` bytes that will extend the ring's last record (as
 * tap_ring_extend()) may be written in place, at the head, and in *room how much fits there
 * (at least `bound`, at most TAP_PRINT_BUFFER_SIZE); NULL when the text must go in a record
 * of its own. The caller publishes it with tap_ring_extend_in_place(), and writes no other
 * record meanwhile. The room is the one tap_ring_set_fast_end() worked out: a load and a
 * subtraction, the tail looked at again only when it is too short.
 */
static __always_inline char *tap_ring_extend_room(struct tap_ring *ring, u32 bound, u32 *room)
{
	u32 head = ring->head;

	*room = ring->fast_end - head;
	if (likely(ring->open_seq == (u64)atomic64_read(&tap_record_seq) && *room >= bound))
		return ring->data + (head & ring->mask);
	return tap_ring_extend_room_slow(ring, bound, room);
}

/* Publishes `len` bytes written at the head (tap_ring_extend_room(), `len` at most its room)
 * as the end of the last record; false when a record was numbered since, and they need a
 * record of their own. They end before the half of a ring at most half full, or the kick
 * was given: none is due. */
static __always_inline bool tap_ring_extend_in_place(struct tap_ring *ring, u32 len)
{
	if (ring->open_seq != (u64)atomic64_read(&tap_record_seq))
		return false;
	tap_ring_publish_extension(ring, len);
	return true;
}

/* Appends one record to the ring of the caller's CPU. The caller owns that CPU's context. */
static noinline void tap_ring_write(struct tap_ring *ring, enum tap_channel channel,
				    const char *buf, u32 len)
{
	u32 head = ring->head;
	u32 used = head - smp_load_acquire(&ring->tail);
	struct tap_record rec;

	if (channel == TAP_CHANNEL_STDOUT && tap_ring_extend(ring, buf, len))
		return;
	rec = (struct tap_record){
		.len = len,
		.channel = channel | (u32)(ring - tap_rings) << TAP_RECORD_CPU_SHIFT,
		.seq = atomic64_inc_return(&tap_record_seq),
	};
	if (ring->mask + 1 - used < sizeof(rec) + len) {
		WRITE_ONCE(ring->dropped, ring->dropped + 1);
		return;
	}
	tap_ring_copy_in(ring, head, &rec, sizeof(rec));
	tap_ring_copy_in(ring, head + sizeof(rec), buf, len);
	ring->open_len = len;
	ring->open_len_at = tap_ring_len_field(ring, head);
	ring->open_seq = channel == TAP_CHANNEL_STDOUT && !(head & 3) ? rec.seq : 0;
	ring->fast_end = head + sizeof(rec) + len;	/* looked at again when next needed */
	smp_store_release(&ring->head, head + sizeof(rec) + len);
	tap_ring_kick_half(ring, used, sizeof(rec) + len);
}

static bool tap_rings_have_data(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		if (READ_ONCE(tap_rings[cpu].head) != READ_ONCE(tap_rings[cpu].read))
			return true;
	return false;
}

static u64 tap_rings_dropped(void)
{
	u64 dropped = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		dropped += READ_ONCE(tap_rings[cpu].dropped);
	return dropped;
}

static int tap_ring_copy_out(struct tap_ring *ring, u32 pos, char __user *dst, u32 len)
{
	u32 off = pos & ring->mask;
	u32 first = min(len, ring->mask + 1 - off);

	if (copy_to_user(dst, ring->data + off, first))
		return -EFAULT;
	if (first < len && copy_to_user(dst + first, ring->data, len - first))
		return -EFAULT;
	return 0;
}

/*
 * The header of the record at `pos` of `ring`, which the caller knows is there. Its length
 * may still grow (the producer's last record): read once, after the caller's acquire of head.
 */
static __always_inline void tap_ring_peek(const struct tap_ring *ring, u32 pos,
					  struct tap_record *rec)
{
	u32 off = pos & ring->mask;
	u32 first = min_t(u32, sizeof(*rec), ring->mask + 1 - off);

	memcpy(rec, ring->data + off, first);
	if (unlikely(first < sizeof(*rec)))
		memcpy((char *)rec + first, ring->data, sizeof(*rec) - first);
	if (!(pos & 3))
		rec->len = READ_ONCE(*tap_ring_len_field(ring, pos));
}

/*
 * The ring whose next record is the oldest, and in `limit` the number of the oldest next
 * record of the others (U64_MAX when they have none); NULL when all are empty.
 */
static struct tap_ring *tap_rings_oldest(u64 *limit)
{
	struct tap_ring *oldest = NULL;
	u64 oldest_seq = 0;
	int cpu;

	*limit = U64_MAX;
	for_each_possible_cpu(cpu) {
		struct tap_ring *ring = &tap_rings[cpu];
		struct tap_record rec;

		if (ring->read == smp_load_acquire(&ring->head))
			continue;
		tap_ring_peek(ring, ring->tail, &rec);
		if (!oldest || rec.seq < oldest_seq) {
			if (oldest)
				*limit = oldest_seq;
			oldest = ring;
			oldest_seq = rec.seq;
		} else if (rec.seq < *limit) {
			*limit = rec.seq;
		}
	}
	return oldest;
}

/*
 * Moves the records of `ring` numbered up to `limit` to user space, each as its own header and
 * the text not read yet (a record may grow while it is read: what it has now goes out, as
 * a record of that length, and the rest later under the same number). `head` and the length
 * always fall between hits, so a piece holds whole hits. Returns bytes moved or -EFAULT.
 */
static ssize_t tap_ring_read(struct tap_ring *ring, u64 limit, char __user *dst, size_t room)
{
	u32 head = smp_load_acquire(&ring->head);
	u32 tail = ring->tail, pos = ring->read;
	size_t done = 0;

	while (pos != head) {
		struct tap_record rec;
		bool entering = pos == tail;
		u32 end, n;

		tap_ring_peek(ring, tail, &rec);
		if (rec.seq > limit)
			break;
		end = tail + sizeof(rec) + rec.len;
		if (entering)
			pos += sizeof(rec);
		else if (pos == end) {
			tail = end;	/* read, and another record follows: it ended */
			pos = end;
			continue;
		}
		n = min(end - pos, head - pos);
		if (sizeof(rec) + n > room - done) {
			if (entering)
				pos = tail;
			break;
		}
		rec.len = n;
		if (copy_to_user(dst + done, &rec, sizeof(rec)) ||
		    tap_ring_copy_out(ring, pos, dst + done + sizeof(rec), n))
			return -EFAULT;
		done += sizeof(rec) + n;
		pos += n;
	}
	WRITE_ONCE(ring->read, pos);
	smp_store_release(&ring->tail, tail);
	return done;
}

/*
 * Moves whole records to user space, from all rings in the order they were written (the
 * lowest number first); returns bytes moved or -EFAULT.
 */
static ssize_t tap_rings_read(char __user *dst, size_t room)
{
	size_t done = 0;

	for (;;) {
		u64 limit;
		struct tap_ring *ring = tap_rings_oldest(&limit);
		u32 tail;
		ssize_t n;

		if (!ring)
			break;
		tail = ring->tail;
		n = tap_ring_read(ring, limit, dst + done, room - done);
		if (n < 0)
			return n;
		if (!n && ring->tail == tail)
			break;	/* no room for its next record */
		done += n;
	}
	return done;
}

static ssize_t tap_out_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	ssize_t total;

	for (;;) {
		bool stopped = tap_session_state() == TAP_STOPPED;

		mutex_lock(&tap_read_mutex);
		total = tap_rings_read(buf, count);
		mutex_unlock(&tap_read_mutex);
		if (total > 0 && !tap_rings_have_data())
			wake_up(&tap_drained_wait);
		/* Read after the state: once STOPPED, no producer is left, so empty is final. */
		if (total != 0 || stopped)
			return total;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(tap_read_wait, tap_rings_have_data() ||
					     tap_session_state() == TAP_STOPPED))
			return -ERESTARTSYS;
	}
}

static int tap_out_open(struct inode *inode, struct file *file)
{
	atomic_inc(&tap_out_readers);
	return 0;
}

static int tap_out_release(struct inode *inode, struct file *file)
{
	atomic_dec(&tap_out_readers);
	wake_up(&tap_drained_wait);
	return 0;
}

/* Whether the output written so far has been read, or nobody is there to read it. */
static bool tap_output_taken(void)
{
	return !tap_rings_have_data() || !atomic_read(&tap_out_readers);
}

static __poll_t tap_out_poll(struct file *file, poll_table *wait)
{
	poll_wait(file, &tap_read_wait, wait);
	if (tap_rings_have_data() || tap_session_state() == TAP_STOPPED)
		return EPOLLIN | EPOLLRDNORM;
	return 0;
}

static int tap_rings_alloc(void)
{
	u32 size;
	int cpu;

	/* 1 GB a CPU at most: the ring's positions are 32-bit counters. */
	if (tap_bufsize > (1u << 30))
		return -ENOMEM;
	size = roundup_pow_of_two(max(tap_bufsize, 4096u));
	tap_rings = kcalloc(nr_cpu_ids, sizeof(*tap_rings), GFP_KERNEL);
	if (!tap_rings)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		tap_rings[cpu].data = vmalloc_node(size, cpu_to_node(cpu));
		if (!tap_rings[cpu].data)
			return -ENOMEM;
		tap_rings[cpu].mask = size - 1;
		per_cpu(tap_this_ring, cpu) = &tap_rings[cpu];
	}
	return 0;
}

static void tap_rings_free(void)
{
	int cpu;

	if (!tap_rings)
		return;
	for_each_possible_cpu(cpu) {
		per_cpu(tap_this_ring, cpu) = NULL;
		vfree(tap_rings[cpu].data);
	}
	kfree(tap_rings);
	tap_rings = NULL;
}

#endif
