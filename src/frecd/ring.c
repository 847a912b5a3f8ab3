// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <linux/bpf.h>
#include <frec/record.h>
#include "frecd/clock.h"
#include "frecd/ring.h"

/* See frecd_rings__consume(): how far past the cut a timestamp may claim to be. */
#define FUTURE_SLACK_NS	1000000000ull

/*
 * How long one drain waits, in all, for records reserved before the cut and
 * not yet submitted (see ring_wait()). A program holds its reservation for
 * its own run, a microsecond or two; longer only when its CPU was taken
 * from it (an interrupt, or a hypervisor that runs another vCPU: under
 * single-threaded emulation, every other vCPU of the guest waits for the
 * one that runs).
 */
#define BUSY_WAIT_NS	2000000ull
#define BUSY_SPINS	256
#define BUSY_SLEEP_NS	20000L

/* How far ahead of the record handed over the peek looks in its ring: some
 * ten records, so that what the peek starts loading has the time of as many
 * pushes to arrive (the other rings' records come in between as well). */
#define PEEK_AHEAD_BYTES	1024

/* A ring in the merge: its head's time beside its index, so that the
 * merge's compares read the heap's own few lines, not each ring's. */
struct heap_ent {
	__u64 ts;
	__u32 ring;
};

struct frecd_rings {
	size_t n;
	__u64 skipped;
	__u64 busy_waits, busy_missed;
	__u64 wait_ns;		/* per drain: BUSY_WAIT_NS */
	__u64 wait_left_ns;	/* of wait_ns, in this drain */
	frecd_ring_fn peek;	/* NULL: none */
	struct heap_ent *heap;	/* rings with a record to take, earliest first */
	size_t nheap;
	__u8 bounce[FRECD_RING_MAX_REC];
	struct frecd_ring rings[];
};

void frecd_ring__init_mem(struct frecd_ring *r, unsigned long *consumer_pos,
			  const unsigned long *producer_pos, const void *data, size_t size)
{
	memset(r, 0, sizeof(*r));
	r->consumer_pos = consumer_pos;
	r->producer_pos = producer_pos;
	r->data = data;
	r->size = size;
}

/* The record at data offset off, len bytes, in one piece: in place, or
 * copied into bounce when it runs past the end of the data. */
static const void *record_at(const struct frecd_ring *r, size_t off, size_t len, __u8 *bounce)
{
	size_t first;

	if (off + len <= r->size)
		return r->data + off;
	first = r->size - off;
	memcpy(bounce, r->data + off, first);
	memcpy(bounce + first, r->data, len - first);
	return bounce;
}

/* Whether a record of time ts waits for the next drain (see the header). */
static bool after_cut(__u64 ts, __u64 cut)
{
	return ts >= cut && ts - cut < FUTURE_SLACK_NS;
}

static size_t rec_bytes(__u32 len)
{
	return (len + BPF_RINGBUF_HDR_SZ + 7) & ~(size_t)7;
}

/* Start a pass: where the kernel has written to, where we had read to. */
static void ring_begin(struct frecd_ring *r)
{
	r->ahead = 0;	/* peek anew: what it started loading is gone by now */
	/* Acquire pairs with the kernel's release of each position: what a
	 * position covers is visible once the position is. */
	r->cons = __atomic_load_n(r->consumer_pos, __ATOMIC_ACQUIRE);
	r->prod = __atomic_load_n(r->producer_pos, __ATOMIC_ACQUIRE);
}

static void ring_advance(struct frecd_ring *r, size_t bytes)
{
	r->cons += bytes;
	/* Release: the kernel may reuse the space once it sees this, so
	 * everything read from it comes first. */
	__atomic_store_n(r->consumer_pos, r->cons, __ATOMIC_RELEASE);
}

enum ring_head { RING_EMPTY, RING_REC, RING_BUSY };

/* The length word of the record header at position pos: its busy and
 * discard bits, and the length below them (rec_len()). Acquire: once the
 * busy bit is seen clear, the record's bytes are visible. */
static __u32 hdr_word(const struct frecd_ring *r, unsigned long pos)
{
	return __atomic_load_n((const __u32 *)(r->data + (pos & (r->size - 1))), __ATOMIC_ACQUIRE);
}

static __u32 rec_len(__u32 word)
{
	return word & ~(BPF_RINGBUF_BUSY_BIT | BPF_RINGBUF_DISCARD_BIT);
}

/* Where in data the record whose header is at position pos starts. */
static size_t rec_off(const struct frecd_ring *r, unsigned long pos)
{
	return (pos + BPF_RINGBUF_HDR_SZ) & (r->size - 1);
}

/*
 * Find r's next record to hand over, from r->cons on: RING_REC with r->ts,
 * r->len and r->off set; RING_EMPTY when the ring is empty, RING_BUSY when
 * its next record is not submitted yet. Discarded and malformed records are
 * stepped over (their space released), the malformed ones counted in
 * *skipped.
 */
static inline __attribute__((always_inline)) enum ring_head
ring_next(struct frecd_ring *r, __u64 *skipped)
{
	for (;;) {
		__u32 word, len;

		if (r->cons >= r->prod) {
			r->prod = __atomic_load_n(r->producer_pos, __ATOMIC_ACQUIRE);
			if (r->cons >= r->prod)
				return RING_EMPTY;
		}
		word = hdr_word(r, r->cons);
		if (word & BPF_RINGBUF_BUSY_BIT)
			return RING_BUSY;	/* reserved, not yet submitted */
		len = rec_len(word);
		if (!(word & BPF_RINGBUF_DISCARD_BIT)) {
			if (len >= sizeof(__u64) && len <= FRECD_RING_MAX_REC) {
				r->len = len;
				r->off = rec_off(r, r->cons);
				/* 8-aligned in a ring of a multiple of 8: the
				 * timestamp itself never wraps */
				r->ts = *(const __u64 *)(r->data + r->off);
				return RING_REC;
			}
			(*skipped)++;	/* discarding is not damage: not counted */
		}
		ring_advance(r, rec_bytes(len));
	}
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

static bool still_busy(const struct frecd_ring *r)
{
	return hdr_word(r, r->cons) & BPF_RINGBUF_BUSY_BIT;
}

/*
 * r's head is reserved, not submitted: wait for it, within what is left of
 * the drain's budget, unless it is already stamped after the cut. A record
 * stamped before the cut and taken only at the next drain would be late
 * once the generation is sealed at this cut: lost (the recorder's late
 * count), though nothing was short of room. The programs stamp a record
 * right after its reserve (bpf/ring.bpf.h), so a time past the cut read
 * from a reserved record is its own; what the space held before is older
 * than the cut, or not a time (and then rarely within a second of the
 * cut). Spin first, the usual case; then sleep, so that a vCPU waiting for
 * the one that holds the reservation yields to it. Whether it was
 * submitted.
 */
static __attribute__((noinline, cold)) bool
ring_wait(struct frecd_rings *rs, struct frecd_ring *r, __u64 cut)
{
	struct timespec nap = { .tv_nsec = BUSY_SLEEP_NS };
	__u64 stamped, start, spent;
	int i;

	stamped = __atomic_load_n((const __u64 *)(r->data + rec_off(r, r->cons)), __ATOMIC_RELAXED);
	if (cut != FRECD_RING_NO_CUT && after_cut(stamped, cut))
		return false;
	for (i = 0; i < BUSY_SPINS; i++) {
		if (!still_busy(r))
			return true;
		cpu_relax();
	}
	if (!rs->wait_left_ns)
		return false;
	rs->busy_waits++;
	start = frecd_clock__mono_ns();
	while (still_busy(r)) {
		spent = frecd_clock__mono_ns() - start;
		if (spent >= rs->wait_left_ns) {
			rs->wait_left_ns = 0;
			rs->busy_missed++;
			return false;
		}
		nanosleep(&nap, NULL);
	}
	spent = frecd_clock__mono_ns() - start;
	rs->wait_left_ns = spent < rs->wait_left_ns ? rs->wait_left_ns - spent : 0;
	return true;
}

/*
 * Start loading the ring's bytes a KiB past pos, where the drain reads
 * soon: with many rings it hops between them at every record, too many
 * streams for the hardware's prefetcher to follow, and each record would
 * otherwise cost a miss, more when another CPU wrote it. Two lines: a
 * record takes one or two.
 */
static inline void ring_prefetch(const struct frecd_ring *r, unsigned long pos)
{
	__builtin_prefetch(r->data + ((pos + PEEK_AHEAD_BYTES) & (r->size - 1)));
	__builtin_prefetch(r->data + ((pos + PEEK_AHEAD_BYTES + 64) & (r->size - 1)));
}

/*
 * Show rs's peek the submitted records up to PEEK_AHEAD_BYTES past r's head,
 * those it has not seen in this drain, in place (a record that wraps is not
 * shown: it is rare). Stops at a record not yet submitted.
 */
static void ring_peek(struct frecd_rings *rs, struct frecd_ring *r, void *ctx)
{
	if (r->ahead < r->cons)
		r->ahead = r->cons;
	while (r->ahead < r->prod && r->ahead - r->cons < PEEK_AHEAD_BYTES) {
		__u32 word, len;
		size_t off;

		ring_prefetch(r, r->ahead);
		word = hdr_word(r, r->ahead);
		len = rec_len(word);
		off = rec_off(r, r->ahead);

		if (word & BPF_RINGBUF_BUSY_BIT)
			return;
		if (!(word & BPF_RINGBUF_DISCARD_BIT) && len <= FRECD_RING_MAX_REC &&
		    off + len <= r->size)
			rs->peek(ctx, r->data + off, len);
		r->ahead += rec_bytes(len);
	}
}

/* r's next record to hand over, waiting for one being written (ring_wait());
 * then, with a peek set, the records after it are shown to the peek. */
static inline __attribute__((always_inline)) bool
ring_head(struct frecd_rings *rs, struct frecd_ring *r, __u64 cut, void *ctx)
{
	enum ring_head h = ring_next(r, &rs->skipped);

	if (h == RING_BUSY && ring_wait(rs, r, cut))
		h = ring_next(r, &rs->skipped);
	if (h != RING_REC)
		return false;
	if (rs->peek)
		ring_peek(rs, r, ctx);	/* it reads ahead, and loads past that */
	else
		ring_prefetch(r, r->cons);
	return true;
}

/* Hand over the record ring_next() found, and free its space. */
static void ring_take(struct frecd_ring *r, frecd_ring_fn fn, void *ctx, __u8 *bounce)
{
	fn(ctx, record_at(r, r->off, r->len, bounce), r->len);
	ring_advance(r, rec_bytes(r->len));
}

/*
 * The rings' heads as a binary min-heap by head time. Sifting moves a hole
 * down and picks the earlier child without a branch: the rings' records
 * interleave finely, so which child is earlier is a coin toss that a
 * branch would mispredict half the time, at every level of a heap of up
 * to log2(CPUs) of them. Equal times come out in the same order as before.
 */
static inline __attribute__((always_inline)) void
heap_down(struct heap_ent *h, size_t n, size_t i)
{
	struct heap_ent e = h[i];

	for (;;) {
		size_t l = 2 * i + 1, m;

		if (l >= n)
			break;
		m = l + (l + 1 < n && h[l + 1].ts < h[l].ts);
		if (!(h[m].ts < e.ts))
			break;
		h[i] = h[m];
		i = m;
	}
	h[i] = e;
}

/*
 * Every ring up to the cut, merged by time: the recorder gets the records of
 * all CPUs in the order they happened (as it did from one shared ring), so
 * that a generation's events need no sorting and their time deltas stay
 * small. Each ring is in time order on its own; the merge takes the earliest
 * head each time. Its per-record steps (ring_head(), ring_next(),
 * heap_down()) are forced inline, the waits kept out: as calls, their
 * entries and exits were 40 of the merge's 140 instructions a record
 * (callgrind, frecd under perf bench sched pipe on 2 CPUs).
 */
size_t frecd_rings__consume(struct frecd_rings *rs, __u64 cut, frecd_ring_fn fn, void *ctx)
{
	size_t i, n = 0;

	rs->nheap = 0;
	rs->wait_left_ns = rs->wait_ns;
	for (i = 0; i < rs->n; i++) {
		ring_begin(&rs->rings[i]);
		if (ring_head(rs, &rs->rings[i], cut, ctx))
			rs->heap[rs->nheap++] = (struct heap_ent){ rs->rings[i].ts, (__u32)i };
	}
	for (i = rs->nheap / 2; i-- > 0;)
		heap_down(rs->heap, rs->nheap, i);
	while (rs->nheap) {
		struct frecd_ring *r = &rs->rings[rs->heap[0].ring];

		if (after_cut(r->ts, cut)) {
			/* done with this ring for now; not with the others: a
			 * head far past the cut is taken, see the header */
			rs->heap[0] = rs->heap[--rs->nheap];
		} else {
			ring_take(r, fn, ctx, rs->bounce);
			n++;
			if (ring_head(rs, r, cut, ctx))
				rs->heap[0].ts = r->ts;
			else
				rs->heap[0] = rs->heap[--rs->nheap];
		}
		heap_down(rs->heap, rs->nheap, 0);
	}
	return n;
}

static void ring_unmap(struct frecd_ring *r)
{
	if (r->cons_map)
		munmap(r->cons_map, sysconf(_SC_PAGESIZE));
	if (r->prod_map)
		munmap(r->prod_map, r->prod_map_len);
	r->cons_map = r->prod_map = NULL;
}

static int ring_map(struct frecd_ring *r, int fd, size_t size)
{
	size_t page = sysconf(_SC_PAGESIZE);
	void *cons, *prod;

	/* The consumer page is the only one the kernel lets us write. */
	cons = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (cons == MAP_FAILED)
		return -errno;
	/* The producer page and the data, once (the kernel offers it twice). */
	prod = mmap(NULL, page + size, PROT_READ, MAP_SHARED, fd, page);
	if (prod == MAP_FAILED) {
		int err = -errno;

		munmap(cons, page);
		return err;
	}
	frecd_ring__init_mem(r, cons, prod, (const __u8 *)prod + page, size);
	r->cons_map = cons;
	r->prod_map = prod;
	r->prod_map_len = page + size;
	return 0;
}

static struct frecd_rings *rings_alloc(size_t n)
{
	struct frecd_rings *rs;

	rs = calloc(1, sizeof(*rs) + n * sizeof(rs->rings[0]));
	if (!rs)
		return NULL;
	rs->heap = calloc(n, sizeof(*rs->heap));
	if (!rs->heap) {
		free(rs);
		return NULL;
	}
	rs->wait_ns = BUSY_WAIT_NS;
	return rs;
}

struct frecd_rings *frecd_rings__new(const int *fds, size_t n, size_t bytes)
{
	struct frecd_rings *rs;
	size_t i;
	int err;

	if (!n || !bytes || (bytes & (bytes - 1))) {
		errno = EINVAL;
		return NULL;
	}
	rs = rings_alloc(n);
	if (!rs)
		return NULL;
	for (i = 0; i < n; i++) {
		err = ring_map(&rs->rings[i], fds[i], bytes);
		if (err) {
			rs->n = i;
			frecd_rings__free(rs);
			errno = -err;
			return NULL;
		}
	}
	rs->n = n;
	return rs;
}

struct frecd_rings *frecd_rings__from(const struct frecd_ring *rings, size_t n)
{
	struct frecd_rings *rs;

	if (!n) {
		errno = EINVAL;
		return NULL;
	}
	rs = rings_alloc(n);
	if (!rs)
		return NULL;
	memcpy(rs->rings, rings, n * sizeof(*rings));
	rs->n = n;
	return rs;
}

void frecd_rings__free(struct frecd_rings *rs)
{
	size_t i;

	if (!rs)
		return;
	for (i = 0; i < rs->n; i++)
		ring_unmap(&rs->rings[i]);
	free(rs->heap);
	free(rs);
}

__u64 frecd_rings__skipped(const struct frecd_rings *rs)
{
	return rs->skipped;
}

void frecd_rings__busy(const struct frecd_rings *rs, __u64 *waits, __u64 *missed)
{
	*waits = rs->busy_waits;
	*missed = rs->busy_missed;
}

void frecd_rings__set_peek(struct frecd_rings *rs, frecd_ring_fn peek)
{
	rs->peek = peek;
}

void frecd_rings__set_busy_wait(struct frecd_rings *rs, __u64 ns)
{
	rs->wait_ns = ns;
}
