/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * frecd's reader of its BPF ring buffers, one per CPU (bpf/ring.bpf.h), in
 * place of libbpf's ring_buffer. Two things libbpf 1.1's consumer cannot do:
 *
 *  - Stop before a record: every drain reads each ring only up to one
 *    timestamp, the cut, so that when frecd seals a generation at the cut no
 *    CPU's later records are in it and no earlier ones are left for the next
 *    one: a generation is a clean slice of time across all CPUs. (A CPU's
 *    ring is in time order; libbpf consumes a record before it hands it over.)
 *  - Map the data once: libbpf maps a ring's data pages twice, back to back,
 *    so that a record that wraps around the end reads as one piece; that
 *    doubled frecd's RSS for the ring. Here the rare wrapping record is
 *    copied into a small buffer instead.
 *
 * The protocol is the kernel's (kernel/bpf/ringbuf.c): a page with the
 * consumer position that only the consumer writes, a page with the producer
 * position, then the data; each record has an 8-byte header whose length
 * word carries a busy bit (reserved, not yet submitted) and a discard bit.
 *
 * Threads: the loop's thread only (it alone moves the consumer positions).
 */
#ifndef FRECD_RING_H
#define FRECD_RING_H

#include <stddef.h>
#include <linux/types.h>

/* A record's bytes and length (the BPF record, without the ring's header). */
typedef void (*frecd_ring_fn)(void *ctx, const void *rec, size_t len);

/* No cut: read everything there is (the last drain before exit). */
#define FRECD_RING_NO_CUT	(~0ull)

/*
 * One ring, as mapped. Exposed so that tests can lay one over plain memory
 * (frecd_ring__init_mem); frecd uses struct frecd_rings.
 */
struct frecd_ring {
	unsigned long *consumer_pos;
	const unsigned long *producer_pos;
	const __u8 *data;	/* size bytes, mapped once */
	size_t size;		/* a power of two */
	void *cons_map, *prod_map;	/* the mappings, NULL over plain memory */
	size_t prod_map_len;
	/* during a drain: the positions, and the next record's time, length
	 * and offset in data */
	unsigned long cons, prod;
	unsigned long ahead;	/* the peek's position: it has seen what is before */
	__u64 ts;
	__u32 len;
	size_t off;
};

/* Largest record the reader can take whole when it wraps; frec's largest
 * is a stack with both kinds at FREC_MAX_STACK_DEPTH (2080 bytes). Larger
 * ones are skipped, counted. */
#define FRECD_RING_MAX_REC	4096

void frecd_ring__init_mem(struct frecd_ring *r, unsigned long *consumer_pos,
			  const unsigned long *producer_pos, const void *data, size_t size);

struct frecd_rings;

/* Map the n rings whose map fds are fds (each bytes long; the fds stay the
 * caller's). NULL with errno set. */
struct frecd_rings *frecd_rings__new(const int *fds, size_t n, size_t bytes);
/* n rings laid over memory with frecd_ring__init_mem() (for tests). */
struct frecd_rings *frecd_rings__from(const struct frecd_ring *rings, size_t n);
void frecd_rings__free(struct frecd_rings *rs);
/*
 * Hand fn every submitted record whose timestamp (struct frec_rec_hdr's ts,
 * its first 8 bytes) is before cut (FRECD_RING_NO_CUT: all), the rings
 * merged in time order, freeing their space for the kernel as it goes. A
 * ring stops at its first record not yet submitted, or at or after the cut.
 * A record that says it is more than a second past the cut is taken anyway:
 * no clock of the kernel's runs that far ahead, and a ring must not stall on
 * a bad timestamp. A record reserved and not yet submitted, unless it is
 * already stamped at or after the cut, is waited for: a few microseconds
 * as a rule, at most 2 ms in all per call (frecd_rings__set_busy_wait()),
 * for the generation sealed at this cut must hold every record stamped
 * before it. The number of records handed over; records too short to have
 * a timestamp or too long are skipped and counted (frecd_rings__skipped).
 */
size_t frecd_rings__consume(struct frecd_rings *rs, __u64 cut, frecd_ring_fn fn, void *ctx);
/* Records skipped as malformed, over all rings, since the start. */
__u64 frecd_rings__skipped(const struct frecd_rings *rs);
/* Since the start: the calls that slept for a record being written, and
 * those whose budget ran out first (the record then comes at a later
 * call, and, stamped before a seal, is late). */
void frecd_rings__busy(const struct frecd_rings *rs, __u64 *waits, __u64 *missed);
/* From the next call on, show peek (with consume's ctx) each submitted
 * record a little before fn gets it, up to a KiB or so ahead in its ring:
 * a hint, for loads the record will need (it may show records that wait
 * for a later call, again then; never those not yet submitted). NULL: no
 * peek, the default. */
void frecd_rings__set_peek(struct frecd_rings *rs, frecd_ring_fn peek);
/* The budget of each call's waits, in ns (0: no sleeping, spins only). */
void frecd_rings__set_busy_wait(struct frecd_rings *rs, __u64 ns);

#endif /* FRECD_RING_H */
