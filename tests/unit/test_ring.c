// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* frecd's ring buffer reader over a ring laid out in plain memory the way
 * the kernel lays it out: records in order and intact (also when they wrap
 * around the end of the data), the cut, busy and discarded records, and the
 * consumer position it leaves for the kernel. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include <linux/bpf.h>
#include "frecd/ring.h"

#define SIZE	256	/* small, so that records wrap often */

struct fake {
	unsigned long cons, prod;
	__u8 data[SIZE];
	struct frecd_ring r;
};

struct seen {
	size_t n;
	__u64 ts[64];
	size_t len[64];
	bool intact[64];
};

static size_t rec_bytes(size_t len)
{
	return (len + BPF_RINGBUF_HDR_SZ + 7) & ~(size_t)7;
}

static __u8 pattern(__u64 ts, size_t i)
{
	return (__u8)(ts * 31 + i);
}

/* As the kernel's reserve (+ submit unless busy): the header, then ts and a
 * pattern, byte by byte modulo the size. The position of the header. */
static unsigned long put(struct fake *f, __u64 ts, size_t len, __u32 flags)
{
	unsigned long pos = f->prod;
	__u32 hdr[2] = { (__u32)len | flags, 0 };
	size_t i;

	assert_true(f->prod + rec_bytes(len) - f->cons <= SIZE);
	memcpy(&f->data[pos & (SIZE - 1)], hdr, sizeof(hdr));
	for (i = 0; i < len; i++) {
		__u8 b = i < 8 ? ((const __u8 *)&ts)[i] : pattern(ts, i);

		f->data[(pos + BPF_RINGBUF_HDR_SZ + i) & (SIZE - 1)] = b;
	}
	f->prod += rec_bytes(len);
	return pos;
}

static void set_flags(struct fake *f, unsigned long pos, size_t len, __u32 flags)
{
	__u32 word = (__u32)len | flags;

	memcpy(&f->data[pos & (SIZE - 1)], &word, sizeof(word));
}

static void on_rec(void *ctx, const void *rec, size_t len)
{
	struct seen *s = ctx;
	const __u8 *p = rec;
	__u64 ts;
	size_t i;

	assert_true(s->n < 64);
	memcpy(&ts, p, sizeof(ts));
	s->ts[s->n] = ts;
	s->len[s->n] = len;
	s->intact[s->n] = true;
	for (i = 8; i < len; i++)
		if (p[i] != pattern(ts, i))
			s->intact[s->n] = false;
	s->n++;
}

/* frecd's own path, frecd_rings__consume(), over this one ring. */
static size_t consume(struct fake *f, __u64 cut, struct seen *s, __u64 *skipped)
{
	struct frecd_rings *rs = frecd_rings__from(&f->r, 1);
	size_t n;

	assert_non_null(rs);
	n = frecd_rings__consume(rs, cut, on_rec, s);
	*skipped += frecd_rings__skipped(rs);
	frecd_rings__free(rs);
	return n;
}

static void init(struct fake *f)
{
	memset(f, 0, sizeof(*f));
	frecd_ring__init_mem(&f->r, &f->cons, &f->prod, f->data, SIZE);
}

static void test_in_order_and_consumed(void **state)
{
	struct fake f;
	struct seen s = { 0 };
	__u64 skipped = 0;

	init(&f);
	put(&f, 10, 24, 0);
	put(&f, 11, 40, 0);
	put(&f, 12, 8, 0);
	assert_int_equal(consume(&f, 100, &s, &skipped), 3);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.ts[0], 10);
	assert_int_equal(s.ts[2], 12);
	assert_int_equal(s.len[1], 40);
	assert_true(s.intact[0] && s.intact[1] && s.intact[2]);
	assert_int_equal(f.cons, f.prod);	/* the space is the kernel's again */
	assert_int_equal(skipped, 0);
	/* nothing new: nothing handed over twice */
	assert_int_equal(consume(&f, 100, &s, &skipped), 0);
}

static void test_cut(void **state)
{
	struct fake f;
	struct seen s = { 0 };
	__u64 skipped = 0;
	unsigned long at;

	init(&f);
	put(&f, 100, 24, 0);
	put(&f, 199, 24, 0);
	at = put(&f, 200, 24, 0);
	put(&f, 150, 24, 0);	/* behind the cut, but after one that is not */
	assert_int_equal(consume(&f, 200, &s, &skipped), 2);
	assert_int_equal(s.ts[1], 199);
	assert_int_equal(f.cons, at);		/* stopped before ts 200, not past it */
	assert_int_equal(consume(&f, 201, &s, &skipped), 2);
	assert_int_equal(s.ts[2], 200);
	assert_int_equal(s.ts[3], 150);
	assert_int_equal(f.cons, f.prod);
}

static void test_busy_stops(void **state)
{
	struct fake f;
	struct seen s = { 0 };
	__u64 skipped = 0;
	unsigned long busy;

	init(&f);
	put(&f, 1, 24, 0);
	busy = put(&f, 2, 24, BPF_RINGBUF_BUSY_BIT);	/* reserved, not submitted */
	put(&f, 3, 24, 0);
	assert_int_equal(consume(&f, FRECD_RING_NO_CUT, &s, &skipped), 1);
	assert_int_equal(f.cons, busy);
	set_flags(&f, busy, 24, 0);			/* submitted */
	assert_int_equal(consume(&f, FRECD_RING_NO_CUT, &s, &skipped), 2);
	assert_int_equal(s.ts[1], 2);
	assert_int_equal(s.ts[2], 3);
}

/* consume() with the busy wait's budget set, and its counts */
static size_t consume_waiting(struct fake *f, __u64 cut, __u64 budget_ns, struct seen *s,
			      __u64 *waits, __u64 *missed)
{
	struct frecd_rings *rs = frecd_rings__from(&f->r, 1);
	size_t n;

	assert_non_null(rs);
	frecd_rings__set_busy_wait(rs, budget_ns);
	n = frecd_rings__consume(rs, cut, on_rec, s);
	frecd_rings__busy(rs, waits, missed);
	frecd_rings__free(rs);
	return n;
}

struct submitter {
	struct fake *f;
	unsigned long pos;
};

/* The program that reserved at pos submits 1 ms later, from another CPU. */
static void *submit_later(void *arg)
{
	struct submitter *sb = arg;
	struct timespec ms = { .tv_nsec = 1000000 };
	__u32 word = 24;

	nanosleep(&ms, NULL);
	__atomic_store_n((__u32 *)&sb->f->data[sb->pos & (SIZE - 1)], word, __ATOMIC_RELEASE);
	return NULL;
}

/* A record reserved before the cut is waited for, and taken by the drain
 * whose cut it precedes, with what follows it. */
static void test_busy_waited_for(void **state)
{
	struct submitter sb;
	struct fake f;
	struct seen s = { 0 };
	__u64 waits, missed;
	pthread_t t;

	init(&f);
	put(&f, 1, 24, 0);
	sb.f = &f;
	sb.pos = put(&f, 2, 24, BPF_RINGBUF_BUSY_BIT);
	put(&f, 3, 24, 0);
	assert_int_equal(pthread_create(&t, NULL, submit_later, &sb), 0);
	/* a budget that the 1 ms never exhausts, however slow the machine */
	assert_int_equal(consume_waiting(&f, 10, 60ull * 1000000000, &s, &waits, &missed), 3);
	pthread_join(t, NULL);
	assert_int_equal(s.ts[1], 2);
	assert_int_equal(s.ts[2], 3);
	assert_int_equal(waits, 1);
	assert_int_equal(missed, 0);
	assert_int_equal(f.cons, f.prod);
}

/* Not waited for: a reserved record already stamped at or after the cut
 * (the next drain's), and one that outlasts the budget (counted). */
static void test_busy_not_waited_for(void **state)
{
	struct fake f;
	struct seen s = { 0 };
	__u64 waits, missed;
	unsigned long busy;

	init(&f);
	put(&f, 1, 24, 0);
	busy = put(&f, 20, 24, BPF_RINGBUF_BUSY_BIT);
	assert_int_equal(consume_waiting(&f, 10, 60ull * 1000000000, &s, &waits, &missed), 1);
	assert_int_equal(waits, 0);
	assert_int_equal(f.cons, busy);
	/* stamped before the cut, never submitted: the budget runs out */
	assert_int_equal(consume_waiting(&f, 30, 1000000, &s, &waits, &missed), 0);
	assert_int_equal(waits, 1);
	assert_int_equal(missed, 1);
	assert_int_equal(f.cons, busy);
	set_flags(&f, busy, 24, 0);
	assert_int_equal(consume_waiting(&f, 30, 1000000, &s, &waits, &missed), 1);
	assert_int_equal(s.ts[1], 20);
}

static void test_discarded_skipped(void **state)
{
	struct fake f;
	struct seen s = { 0 };
	__u64 skipped = 0;

	init(&f);
	put(&f, 1, 24, BPF_RINGBUF_DISCARD_BIT);
	put(&f, 2, 24, 0);
	assert_int_equal(consume(&f, FRECD_RING_NO_CUT, &s, &skipped), 1);
	assert_int_equal(s.ts[0], 2);
	assert_int_equal(skipped, 0);		/* discarding is not damage */
	assert_int_equal(f.cons, f.prod);
}

/* Records that run past the end of the data arrive whole, every offset. */
static void test_wrap(void **state)
{
	struct fake f;
	struct seen s;
	__u64 skipped = 0;
	size_t start, len;

	for (start = 0; start < SIZE; start += 8)
		for (len = 8; len <= 112; len += 8) {
			init(&f);
			f.cons = f.prod = SIZE * 3 + start;	/* positions only grow */
			memset(&s, 0, sizeof(s));
			put(&f, 7, len, 0);
			put(&f, 8, len + 3, 0);			/* an odd length */
			assert_int_equal(consume(&f, 9, &s, &skipped), 2);
			assert_int_equal(s.len[0], len);
			assert_int_equal(s.len[1], len + 3);
			assert_true(s.intact[0]);
			assert_true(s.intact[1]);
			assert_int_equal(f.cons, f.prod);
		}
	assert_int_equal(skipped, 0);
}

/* A record that claims to be from far past the cut does not stall the ring;
 * one too short to have a timestamp is skipped and counted. */
static void test_bad_records(void **state)
{
	struct fake f;
	struct seen s = { 0 };
	__u64 skipped = 0;

	init(&f);
	put(&f, 1000 + 5000000000ull, 24, 0);
	put(&f, 0, 4, 0);
	put(&f, 1001, 24, 0);
	assert_int_equal(consume(&f, 1000, &s, &skipped), 1);
	assert_int_equal(s.ts[0], 1000 + 5000000000ull);
	assert_int_equal(skipped, 1);
	assert_int_equal(f.cons, f.prod - rec_bytes(24));	/* at ts 1001: after the cut */
}

/* Several CPUs' rings come out as one stream in time order, each cut at
 * the same time. */
static void test_merge(void **state)
{
	static struct fake f[3];
	struct frecd_ring r[3];
	struct frecd_rings *rs;
	struct seen s = { 0 };
	size_t i;

	for (i = 0; i < 3; i++) {
		init(&f[i]);
		r[i] = f[i].r;
	}
	put(&f[0], 10, 24, 0);
	put(&f[0], 40, 24, 0);
	put(&f[0], 70, 24, 0);
	put(&f[1], 20, 24, 0);
	put(&f[1], 30, 24, 0);
	put(&f[1], 80, 24, 0);
	/* f[2] stays empty */
	rs = frecd_rings__from(r, 3);
	assert_non_null(rs);
	assert_int_equal(frecd_rings__consume(rs, 75, on_rec, &s), 5);
	assert_int_equal(s.ts[0], 10);
	assert_int_equal(s.ts[1], 20);
	assert_int_equal(s.ts[2], 30);
	assert_int_equal(s.ts[3], 40);
	assert_int_equal(s.ts[4], 70);
	assert_int_equal(f[0].cons, f[0].prod);
	assert_int_equal(f[1].prod - f[1].cons, rec_bytes(24));	/* 80 waits */
	put(&f[2], 76, 24, 0);
	put(&f[0], 90, 24, 0);
	assert_int_equal(frecd_rings__consume(rs, FRECD_RING_NO_CUT, on_rec, &s), 3);
	assert_int_equal(s.ts[5], 76);
	assert_int_equal(s.ts[6], 80);
	assert_int_equal(s.ts[7], 90);
	assert_int_equal(frecd_rings__skipped(rs), 0);
	frecd_rings__free(rs);
}

/* One ring's head with a time far past the cut neither stalls that ring nor
 * stops the others. */
static void test_merge_bad_head(void **state)
{
	static struct fake f[2];
	struct frecd_ring r[2];
	struct frecd_rings *rs;
	struct seen s = { 0 };

	init(&f[0]);
	init(&f[1]);
	r[0] = f[0].r;
	r[1] = f[1].r;
	put(&f[0], 100, 24, 0);	/* at the cut: waits */
	put(&f[1], 100 + 9000000000ull, 24, 0);
	put(&f[1], 50, 24, 0);
	rs = frecd_rings__from(r, 2);
	assert_non_null(rs);
	assert_int_equal(frecd_rings__consume(rs, 100, on_rec, &s), 2);
	assert_int_equal(s.ts[0], 100 + 9000000000ull);
	assert_int_equal(s.ts[1], 50);
	assert_int_equal(f[0].prod - f[0].cons, rec_bytes(24));
	frecd_rings__free(rs);
}

/* What a drain handed fn (first, as on_rec takes it) and showed the peek:
 * the times peeked, and how many records fn had been handed by then. */
struct peeked {
	struct seen s;
	size_t n;
	__u64 ts[64];
	size_t fn_before[64];
	bool intact[64];
};

static void on_peek(void *ctx, const void *rec, size_t len)
{
	struct peeked *pk = ctx;
	const __u8 *p = rec;
	size_t i;

	assert_true(pk->n < 64);
	memcpy(&pk->ts[pk->n], p, sizeof(pk->ts[0]));
	pk->fn_before[pk->n] = pk->s.n;
	pk->intact[pk->n] = true;
	for (i = 8; i < len; i++)
		if (p[i] != pattern(pk->ts[pk->n], i))
			pk->intact[pk->n] = false;
	pk->n++;
}

static size_t consume_peeking(struct fake *f, struct peeked *pk)
{
	struct frecd_rings *rs = frecd_rings__from(&f->r, 1);
	size_t n;

	assert_non_null(rs);
	frecd_rings__set_peek(rs, on_peek);
	n = frecd_rings__consume(rs, FRECD_RING_NO_CUT, on_rec, pk);
	frecd_rings__free(rs);
	return n;
}

/* The peek sees each submitted record before fn does, in place and whole;
 * never one reserved and not submitted nor any after it, nor a discarded
 * one; a record that wraps goes to fn unpeeked. */
static void test_peek(void **state)
{
	struct fake f;
	struct peeked pk;
	unsigned long busy;

	init(&f);
	memset(&pk, 0, sizeof(pk));
	f.cons = f.prod = SIZE + 176;
	put(&f, 1, 24, 0);
	put(&f, 2, 24, BPF_RINGBUF_DISCARD_BIT);
	put(&f, 3, 24, 0);			/* its data runs past the end */
	put(&f, 4, 24, 0);
	busy = put(&f, 5, 24, BPF_RINGBUF_BUSY_BIT);
	put(&f, 6, 24, 0);
	assert_int_equal(consume_peeking(&f, &pk), 3);
	assert_int_equal(pk.s.n, 3);
	assert_int_equal(pk.s.ts[0], 1);
	assert_int_equal(pk.s.ts[1], 3);
	assert_int_equal(pk.s.ts[2], 4);
	assert_int_equal(pk.n, 2);
	assert_int_equal(pk.ts[0], 1);
	assert_int_equal(pk.fn_before[0], 0);
	assert_int_equal(pk.ts[1], 4);
	assert_true(pk.fn_before[1] < 2);	/* before fn got 4 */
	assert_true(pk.intact[0] && pk.intact[1]);
	assert_int_equal(f.cons, busy);

	set_flags(&f, busy, 24, 0);		/* submitted */
	assert_int_equal(consume_peeking(&f, &pk), 2);
	assert_int_equal(pk.n, 4);
	assert_int_equal(pk.ts[2], 5);
	assert_int_equal(pk.ts[3], 6);
	assert_true(pk.fn_before[3] < 4);	/* before fn got 6 */
	assert_int_equal(pk.s.ts[4], 6);
	assert_true(pk.intact[2] && pk.intact[3]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_order_and_consumed),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_busy_stops),
		cmocka_unit_test(test_busy_waited_for),
		cmocka_unit_test(test_busy_not_waited_for),
		cmocka_unit_test(test_discarded_skipped),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_bad_records),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_merge_bad_head),
		cmocka_unit_test(test_peek),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
