// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Drain benchmark: frecd's user-space cost per event, without the kernel.
 * frecd's ring reader (src/frecd/ring.c) and the recorder, driven as
 * frecd's loop drives them (drain_until(): consume every ring up to a cut,
 * the records in time order, the peek hinting the task table, then a
 * tick), read per-CPU rings that a producer thread writes the way the
 * kernel's BPF ring buffer does: an 8-byte header whose length carries the
 * busy bit, the producer position published at reserve, the record
 * written, the busy bit cleared at submit.
 *
 * The producer (on CPU 0, where there are two) replays a fixed set of
 * big_mix records (--cpus CPUs, THREADS threads), each into its CPU's ring,
 * the timestamps shifted at each pass. The consumer (CPU 1) drains; only
 * its drains are timed (its CPU time). Two modes:
 *
 *  - rounds (the default, the figure to compare builds by): the producer
 *    writes ROUND records (a 50 ms drain of a busy 2-CPU machine's
 *    scheduler), then the consumer drains them all, in turn: every record
 *    comes from the other CPU's writes, and nothing else runs meanwhile.
 *  - --live RATE: the producer writes RATE records a second, in bursts,
 *    while the consumer drains every PERIOD_MS, as frecd does: the two
 *    then also meet at the rings' heads and positions.
 *
 * The floor beside it is the same records pushed straight into a recorder
 * on the same CPU, in the same run: what the ring path adds is the
 * difference.
 *
 *   bench_drain [--events N] [--cpus N] [--live RATE] [--same-cpu] [OUT.json]
 *
 * --same-cpu writes the rings on the consumer's CPU: what the ring path
 * costs without the records' transfer between the CPUs' caches.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <frec/recorder.h>
#include "frecd/ring.h"
#include "big_mix.h"

#define CPUS		8		/* default; --cpus up to MAX_CPUS */
#define MAX_CPUS	256
#define RINGS_BYTES	(32u << 20)	/* all rings, each at least RING_MIN */
#define RING_MIN	(256u << 10)
#define THREADS		20000
#define SET		(1u << 17)	/* records replayed */
#define SET_BYTES	((size_t)SET * 160)
#define PERIOD_MS	50		/* frecd's drain period */
#define ROUND		20000		/* records per round */
#define BURST		1000		/* live: records written at a time */
#define MARGIN_NS	1000		/* the mix stamps some records up to 300 ns early */
#define AHEAD		8		/* the direct push's prefetch distance */
#define TS0		1000000000ull
#define DEFAULT_EVENTS	20000000ull

struct set {
	unsigned char *buf;
	uint32_t *off;
	unsigned n;
	uint64_t span;		/* ts shift per pass */
};

static unsigned ncpus = CPUS;
static bool same_cpu;	/* the producer on the consumer's CPU */
static size_t ring_bytes;	/* each CPU's */

struct shared {
	const struct set *set;
	uint64_t events;
	/* per ring: the positions, each on a page of its own, and the data */
	unsigned long *cons_pos[MAX_CPUS], *prod_pos[MAX_CPUS];
	unsigned char *data[MAX_CPUS];
	uint64_t rate;		/* live: records a second; 0: rounds */
	uint64_t latest;	/* ts of the last record submitted (atomic) */
	uint64_t produced;	/* records submitted (atomic) */
	uint64_t wanted;	/* rounds: records the consumer asked for (atomic) */
	int done;		/* the producer has submitted all (atomic) */
};

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void pin(int cpu)
{
	cpu_set_t set;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);	/* a hint: figures still hold */
}

static int set_make(struct set *s, struct big_mix *m)
{
	uint64_t first, last;

	s->buf = aligned_alloc(8, SET_BYTES);
	s->off = malloc(sizeof(*s->off) * SET);
	if (!s->buf || !s->off)
		return -ENOMEM;
	s->n = big_mix__fill(m, s->buf, SET_BYTES, s->off, SET);
	for (unsigned i = 0; i < s->n; i++)	/* what produce_one() copies */
		if (((struct frec_rec_hdr *)(s->buf + s->off[i]))->size > FRECD_RING_MAX_REC)
			return -EINVAL;
	first = ((struct frec_rec_hdr *)(s->buf + s->off[0]))->ts;
	last = big_mix__now(m);
	s->span = last - first + 1000;
	return s->n ? 0 : -EINVAL;
}

static size_t rec_bytes(size_t len)
{
	return (len + BPF_RINGBUF_HDR_SZ + 7) & ~(size_t)7;
}

/* Copy n bytes into the ring's data at pos, wrapping at its end. */
static void ring_copy(unsigned char *data, unsigned long pos, const void *src, size_t n)
{
	size_t at = pos & (ring_bytes - 1), first = ring_bytes - at;

	if (first >= n) {
		memcpy(data + at, src, n);
	} else {
		memcpy(data + at, src, first);
		memcpy(data, (const unsigned char *)src + first, n - first);
	}
}

/* The kernel's reserve, write and submit of one record into ring r. */
static void produce_one(struct shared *sh, unsigned r, const struct frec_rec_hdr *rh, uint64_t ts)
{
	unsigned long *prod = sh->prod_pos[r], *cons = sh->cons_pos[r];
	unsigned char *data = sh->data[r];
	size_t len = rh->size, need = rec_bytes(len);
	unsigned long pos = *prod;
	__u32 hdr[2] = { (__u32)len | BPF_RINGBUF_BUSY_BIT, 0 };
	unsigned char rec[FRECD_RING_MAX_REC];

	while (pos + need - __atomic_load_n(cons, __ATOMIC_ACQUIRE) > ring_bytes)
		sched_yield();	/* full: the kernel would drop, the bench waits */
	/* reserve: the header busy, then the position for the consumer */
	ring_copy(data, pos, hdr, sizeof(hdr));
	__atomic_store_n(prod, pos + need, __ATOMIC_RELEASE);
	/* the program writes its record */
	memcpy(rec, rh, len);
	((struct frec_rec_hdr *)rec)->ts = ts;
	ring_copy(data, pos + BPF_RINGBUF_HDR_SZ, rec, len);
	/* submit: the busy bit cleared (the header never wraps: 8-aligned) */
	__atomic_store_n((__u32 *)(data + (pos & (ring_bytes - 1))), (__u32)len, __ATOMIC_RELEASE);
}

/* Rounds: until the consumer asks for more. Live: until the schedule. */
static void producer_pace(struct shared *sh, uint64_t n, uint64_t t0)
{
	if (!sh->rate) {
		while (n >= __atomic_load_n(&sh->wanted, __ATOMIC_ACQUIRE))
			sched_yield();
		return;
	}
	if (n % BURST)
		return;
	for (;;) {
		uint64_t due = t0 + n * 1000000000ull / sh->rate, now = now_ns(CLOCK_MONOTONIC);
		struct timespec nap;

		if (now >= due)
			return;
		nap.tv_sec = 0;
		nap.tv_nsec = (long)(due - now < 1000000 ? due - now : 1000000);
		nanosleep(&nap, NULL);
	}
}

static void *producer_main(void *arg)
{
	struct shared *sh = arg;
	const struct set *s = sh->set;
	uint64_t n = 0, shift = 0, t0 = now_ns(CLOCK_MONOTONIC);

	pin(same_cpu ? 1 : 0);
	while (n < sh->events) {
		for (unsigned i = 0; i < s->n && n < sh->events; i++) {
			const struct frec_rec_hdr *rh = (const void *)(s->buf + s->off[i]);
			uint64_t ts = rh->ts + shift;

			producer_pace(sh, n, t0);
			produce_one(sh, rh->cpu % ncpus, rh, ts);
			if (ts > sh->latest)
				__atomic_store_n(&sh->latest, ts, __ATOMIC_RELEASE);
			__atomic_store_n(&sh->produced, ++n, __ATOMIC_RELEASE);
		}
		shift += s->span;
	}
	__atomic_store_n(&sh->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

struct consumer {
	struct frec_recorder *rec;
	uint64_t events;
};

static void on_record(void *ctx, const void *data, size_t len)
{
	struct consumer *c = ctx;

	frec_recorder__push(c->rec, data, len);
	c->events++;
}

static void on_peek(void *ctx, const void *data, size_t len)
{
	struct consumer *c = ctx;

	frec_recorder__prefetch(c->rec, data, len);
}

static struct frec_recorder *recorder_new(struct big_mix *m)
{
	struct frec_recorder_opts o = { .sz = sizeof(o), .ncpus = ncpus, .max_threads = 1u << 16 };
	struct frec_recorder *rec = frec_recorder__new(&o);

	if (rec && big_mix__seed(m, rec)) {
		frec_recorder__free(rec);
		return NULL;
	}
	if (rec)
		frec_recorder__tick(rec, TS0);
	return rec;
}

struct figures {
	uint64_t events;
	double cpu_s, wall_s;
};

/* The floor: the same records, the same count, pushed straight. */
static int run_direct(const struct set *s, struct big_mix *m, uint64_t events, struct figures *f)
{
	struct frec_recorder *rec = recorder_new(m);
	uint64_t n = 0, shift = 0, c0, t0;

	if (!rec)
		return -ENOMEM;
	c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	t0 = now_ns(CLOCK_MONOTONIC);
	while (n < events) {
		for (unsigned i = 0; i < s->n && n < events; i++, n++) {
			struct frec_rec_hdr *rh = (void *)(s->buf + s->off[i]);
			uint64_t ts = rh->ts;

			if (i + AHEAD < s->n)
				frec_recorder__prefetch(rec, s->buf + s->off[i + AHEAD],
							((struct frec_rec_hdr *)(s->buf + s->off[i + AHEAD]))->size);
			rh->ts = ts + shift;
			frec_recorder__push(rec, rh, rh->size);
			if ((n & 4095) == 4095)
				frec_recorder__tick(rec, rh->ts);
			rh->ts = ts;
		}
		shift += s->span;
	}
	f->cpu_s = (double)(now_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / 1e9;
	f->wall_s = (double)(now_ns(CLOCK_MONOTONIC) - t0) / 1e9;
	f->events = n;
	frec_recorder__free(rec);
	return 0;
}

/* One drain, as drain_until(): every ring up to cut, then the tick; its
 * CPU time added to f. */
static void drain(struct frecd_rings *rs, struct consumer *c, uint64_t cut, uint64_t tick,
		  struct figures *f)
{
	uint64_t c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);

	frecd_rings__consume(rs, cut, on_record, c);
	frec_recorder__tick(c->rec, tick);
	f->cpu_s += (double)(now_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / 1e9;
}

static int run_rings(const struct set *s, struct big_mix *m, uint64_t events, uint64_t rate,
		     struct figures *f, uint64_t *waits, uint64_t *skipped)
{
	struct shared *sh = calloc(1, sizeof(*sh));
	struct frecd_ring rings[MAX_CPUS];
	struct frecd_rings *rs = NULL;
	struct consumer c = { 0 };
	struct timespec period = { 0, PERIOD_MS * 1000000L };
	__u64 busy_waits, busy_missed;
	uint64_t t0;
	pthread_t th;
	int err = -ENOMEM;
	bool started = false;

	if (!sh)
		return -ENOMEM;
	sh->set = s;
	sh->events = events;
	sh->rate = rate;
	for (unsigned r = 0; r < ncpus; r++) {
		/* each position on a page of its own, as the kernel maps them */
		sh->cons_pos[r] = aligned_alloc(4096, 4096);
		sh->prod_pos[r] = aligned_alloc(4096, 4096);
		sh->data[r] = aligned_alloc(4096, ring_bytes);
		if (!sh->cons_pos[r] || !sh->prod_pos[r] || !sh->data[r])
			goto out;
		*sh->cons_pos[r] = *sh->prod_pos[r] = 0;
		memset(sh->data[r], 0, ring_bytes);
		frecd_ring__init_mem(&rings[r], sh->cons_pos[r], sh->prod_pos[r], sh->data[r],
				     ring_bytes);
	}
	rs = frecd_rings__from(rings, ncpus);
	c.rec = recorder_new(m);
	if (!rs || !c.rec)
		goto out;
	if (frec_recorder__prefetch_useful(c.rec))
		frecd_rings__set_peek(rs, on_peek);
	pin(1);
	t0 = now_ns(CLOCK_MONOTONIC);
	if ((err = -pthread_create(&th, NULL, producer_main, sh)))
		goto out;
	started = true;
	for (;;) {
		bool last;
		uint64_t latest, want;

		if (rate) {
			nanosleep(&period, NULL);
		} else {
			/* ask for a round, and wait for all of it */
			want = c.events + ROUND < events ? c.events + ROUND : events;
			__atomic_store_n(&sh->wanted, want, __ATOMIC_RELEASE);
			while (__atomic_load_n(&sh->produced, __ATOMIC_ACQUIRE) < want)
				sched_yield();
		}
		last = __atomic_load_n(&sh->done, __ATOMIC_ACQUIRE);
		latest = __atomic_load_n(&sh->latest, __ATOMIC_ACQUIRE);
		if (last || !rate)
			drain(rs, &c, FRECD_RING_NO_CUT, latest + 1, f);
		else if (latest > TS0)	/* nothing written yet: no cut to make */
			drain(rs, &c, latest - MARGIN_NS, latest - MARGIN_NS, f);
		/* all written, all taken (a record skipped is counted, and
		 * voids the run below) */
		if (last)
			break;
	}
	f->wall_s = (double)(now_ns(CLOCK_MONOTONIC) - t0) / 1e9;
	f->events = c.events;
	frecd_rings__busy(rs, &busy_waits, &busy_missed);
	*waits = busy_waits;
	*skipped = frecd_rings__skipped(rs);
	err = 0;
out:
	if (started)
		pthread_join(th, NULL);
	frecd_rings__free(rs);
	frec_recorder__free(c.rec);
	for (unsigned r = 0; r < ncpus; r++) {
		free(sh->cons_pos[r]);
		free(sh->prod_pos[r]);
		free(sh->data[r]);
	}
	free(sh);
	return err;
}

static double ns_per(const struct figures *f)
{
	return f->events ? f->cpu_s * 1e9 / (double)f->events : 0;
}

int main(int argc, char **argv)
{
	uint64_t events = DEFAULT_EVENTS, rate = 0, waits = 0, skipped = 0;
	struct figures direct = { 0 }, rings = { 0 };
	const char *out = NULL;
	struct big_mix *m1, *m2, *mr;
	struct set s = { 0 };
	int err;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--events") && i + 1 < argc)
			events = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--cpus") && i + 1 < argc)
			ncpus = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--same-cpu"))
			same_cpu = true;
		else if (!strcmp(argv[i], "--live") && i + 1 < argc)
			rate = strtoull(argv[++i], NULL, 10);
		else if (argv[i][0] != '-')
			out = argv[i];
		else {
			fprintf(stderr, "usage: bench_drain [--events N] [--cpus N] [--live RATE] [--same-cpu] [OUT.json]\n");
			return 2;
		}
	}
	if (!ncpus || ncpus > MAX_CPUS) {
		fprintf(stderr, "bench_drain: --cpus takes 1 to %u\n", MAX_CPUS);
		return 2;
	}
	for (ring_bytes = RING_MIN; ring_bytes * 2 * ncpus <= RINGS_BYTES;)
		ring_bytes *= 2;
	/* one mix makes the records; fresh ones of the same seed seed each
	 * recorder's tables, as frecd's start does from /proc */
	mr = big_mix__new(ncpus, THREADS, TS0, 42);
	m1 = big_mix__new(ncpus, THREADS, TS0, 42);
	m2 = big_mix__new(ncpus, THREADS, TS0, 42);
	if (!mr || !m1 || !m2 || (err = set_make(&s, mr))) {
		fprintf(stderr, "bench_drain: cannot make the records: %s\n", strerror(ENOMEM));
		return 1;
	}
	pin(1);
	if ((err = run_direct(&s, m1, events, &direct)) ||
	    (err = run_rings(&s, m2, events, rate, &rings, &waits, &skipped))) {
		fprintf(stderr, "bench_drain: %s\n", strerror(-err));
		return 1;
	}
	if (rings.events != events || direct.events != events || skipped) {
		fprintf(stderr, "bench_drain: the rings gave %llu events of %llu: the run is void\n",
			(unsigned long long)rings.events, (unsigned long long)events);
		return 1;
	}
	if (rate)
		printf("bench-drain: %llu events, %u CPUs' rings of %u KiB, %u threads, written at "
		       "%llu/s, drained every %u ms\n", (unsigned long long)events, ncpus,
		       (unsigned)(ring_bytes >> 10), THREADS, (unsigned long long)rate, PERIOD_MS);
	else
		printf("bench-drain: %llu events, %u CPUs' rings of %u KiB, %u threads, in rounds "
		       "of %u written then drained\n", (unsigned long long)events, ncpus,
		       (unsigned)(ring_bytes >> 10), THREADS, ROUND);
	printf("  recorder alone     %6.1f ns/event  (the floor: records pushed straight)\n",
	       ns_per(&direct));
	printf("  rings + recorder   %6.1f ns/event  (frecd's drain: %.2fx the floor, +%.1f ns)\n",
	       ns_per(&rings), ns_per(&rings) / ns_per(&direct), ns_per(&rings) - ns_per(&direct));
	printf("  busy waits %llu, skipped %llu\n", (unsigned long long)waits,
	       (unsigned long long)skipped);
	if (out) {
		FILE *f = fopen(out, "w");

		if (!f) {
			fprintf(stderr, "bench_drain: cannot write %s: %s\n", out, strerror(errno));
			return 1;
		}
		fprintf(f, "{\"events\": %llu, \"direct_ns_per_event\": %.2f, "
			   "\"rings_ns_per_event\": %.2f, \"live_rate\": %llu, \"busy_waits\": %llu}\n",
			(unsigned long long)events, ns_per(&direct), ns_per(&rings),
			(unsigned long long)rate, (unsigned long long)waits);
		fclose(f);
	}
	big_mix__free(mr);
	big_mix__free(m1);
	big_mix__free(m2);
	free(s.buf);
	free(s.off);
	return 0;
}
