// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Replay benchmark of the recorder core: synthetic ring records pushed
 * through decode -> encode -> seal -> evict exactly as frecd pushes them,
 * with no kernel. Two mixes, each printed and written (as JSON): events/s
 * and ns/event on one core, bytes per event in memory (the open
 * generation's encoding) and on disk (a snapshot file of the window, with
 * where its bytes go: bench_bytes.c), and heap allocations in steady
 * state, counted by the malloc wrapper below.
 *
 * The small mix is what a busy server's scheduler produces: 8 CPUs, 300
 * threads in 30 processes with a hot set, about half switches and half
 * wakings, a few migrations, forks and probe hits, timestamps 0.2-2.8 us
 * apart and occasionally out of order; a fixed buffer of records replayed
 * in a loop. Allocations over 1 M and over 10 M events must be equal.
 *
 * The large mix is a big server: 256 CPUs, 100,000 threads, the same kinds
 * of records and exits too, made as they are consumed (big_mix.h); only
 * the pushes are timed, from the window's first eviction on (a frecd
 * that has run for a window's time). Allocations are counted over the
 * warm-up and over the 10 M events that follow it, which should make none.
 *
 *   bench_core [--only small|large] [--once] [OUT.json]
 *
 * --once runs each mix once (the small mix's 1 M and 10 M events, the
 * large mix's warm-up and 10 M) rather than the best of three, and prints
 * how many records were pushed in all: for bench/bench_ir.sh, which counts
 * the push path's instructions under callgrind, a figure this VM's noise
 * cannot move.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <frec/recorder.h>
#include <frec/snapshot.h>
#include "bench_bytes.h"
#include "big_mix.h"

/* --- allocation counter ----------------------------------------------------
 * Interposes the allocator for the whole process (libz included) and
 * forwards to glibc's own entry points. */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static unsigned long long nallocs;

/* Records pushed in all, warm-ups included: what bench_ir.sh divides by. */
static unsigned long long npushes;
static bool once;	/* --once */

void *malloc(size_t n)
{
	nallocs++;
	return __libc_malloc(n);
}

void *calloc(size_t a, size_t b)
{
	nallocs++;
	return __libc_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
	nallocs++;
	return __libc_realloc(p, n);
}

void *aligned_alloc(size_t al, size_t n)
{
	nallocs++;
	return __libc_memalign(al, n);
}

int posix_memalign(void **p, size_t al, size_t n)
{
	nallocs++;
	*p = __libc_memalign(al, n);
	return *p ? 0 : ENOMEM;
}

void free(void *p)
{
	__libc_free(p);
}

/* --- synthetic records ---------------------------------------------------- */

#define NCPUS		8
#define NTHREADS	300
#define NHOT		40
#define NRECS		(1u << 16)	/* distinct records, replayed in a loop */
#define TS0		1000000000000ull

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)((rng >> 16) % n);
}

static uint32_t tid_of(unsigned i)
{
	return 2000 + i * 3;
}

static uint32_t tgid_of(unsigned i)
{
	return tid_of(i - i % 10);
}

static void comm_of(unsigned i, char *c)
{
	memset(c, 0, FREC_COMM_LEN);
	snprintf(c, FREC_COMM_LEN, i % 10 ? "worker-%u" : "app-%u", (i % 10 ? i : i / 10) % 1000);
}

/* Each process is in one of a few cgroups (ids like the inode numbers
 * of cgroupfs directories), the idle tasks in the root (1). */
static uint64_t cgroup_of(unsigned i)
{
	return i == (unsigned)-1 ? 1 : 2000 + 37 * ((i / 10) % 6);
}

static unsigned pick_thread(void)
{
	return rnd(5) ? rnd(NHOT) : rnd(NTHREADS);
}

static __s32 pick_prio(void)
{
	return rnd(10) ? 120 : 100 + (__s32)rnd(40);
}

struct recbuf {
	unsigned char *buf;
	size_t len;
	uint32_t off[NRECS];	/* each record's offset */
	uint64_t span;		/* ts range of one pass */
};

static void hdr(struct frec_rec_hdr *h, uint64_t ts, unsigned cpu, unsigned ti, uint16_t type,
		uint32_t size)
{
	h->ts = ts;
	h->cpu = (uint16_t)cpu;
	h->tid = ti == (unsigned)-1 ? 0 : tid_of(ti);
	h->tgid = ti == (unsigned)-1 ? 0 : tgid_of(ti);
	h->type = type;
	h->size = size;
}

static void gen_records(struct recbuf *rb)
{
	unsigned cur[NCPUS];
	uint64_t ts = TS0;

	rb->buf = aligned_alloc(8, (size_t)NRECS * sizeof(struct frec_rec_probe) * 2);
	rb->len = 0;
	for (unsigned c = 0; c < NCPUS; c++)
		cur[c] = (unsigned)-1;	/* idle */
	for (unsigned i = 0; i < NRECS; i++) {
		unsigned char *p = rb->buf + rb->len;
		unsigned cpu = rnd(NCPUS), kind = rnd(100);
		uint64_t t;

		ts += 200 + rnd(2600);
		/* The ring is ordered by reservation, not by timestamp. */
		t = rnd(50) ? ts : ts - rnd(800);
		rb->off[i] = (uint32_t)rb->len;
		if (kind < 50) {
			struct frec_rec_switch *r = (void *)p;
			unsigned prev = cur[cpu], next = rnd(4) ? pick_thread() : (unsigned)-1;

			memset(r, 0, sizeof(*r));
			hdr(&r->h, t, cpu, prev, FREC_EV_SCHED_SWITCH, sizeof(*r));
			r->prev_pid = r->h.tid;
			r->prev_tgid = r->h.tgid;
			r->prev_prio = prev == (unsigned)-1 ? 120 : pick_prio();
			r->prev_state = prev == (unsigned)-1 ? 0 : rnd(10) < 7 ? 1 : rnd(5) ? 0 : 2;
			r->next_pid = next == (unsigned)-1 ? 0 : tid_of(next);
			r->next_tgid = next == (unsigned)-1 ? 0 : tgid_of(next);
			r->next_prio = next == (unsigned)-1 ? 120 : pick_prio();
			r->next_cgroup = cgroup_of(next);
			if (prev == (unsigned)-1)
				snprintf(r->prev_comm, FREC_COMM_LEN, "swapper/%u", cpu);
			else
				comm_of(prev, r->prev_comm);
			if (next == (unsigned)-1)
				snprintf(r->next_comm, FREC_COMM_LEN, "swapper/%u", cpu);
			else
				comm_of(next, r->next_comm);
			cur[cpu] = next;
			rb->len += sizeof(*r);
		} else if (kind < 95) {
			struct frec_rec_wake *r = (void *)p;
			unsigned w = pick_thread();

			memset(r, 0, sizeof(*r));
			hdr(&r->h, t, cpu, cur[cpu], FREC_EV_SCHED_WAKING, sizeof(*r));
			r->pid = tid_of(w);
			r->tgid = tgid_of(w);
			r->prio = pick_prio();
			r->target_cpu = (__s32)rnd(NCPUS);
			comm_of(w, r->comm);
			rb->len += sizeof(*r);
		} else if (kind < 98) {
			struct frec_rec_migrate *r = (void *)p;
			unsigned m = pick_thread();

			memset(r, 0, sizeof(*r));
			hdr(&r->h, t, cpu, cur[cpu], FREC_EV_MIGRATE_TASK, sizeof(*r));
			r->pid = tid_of(m);
			r->tgid = tgid_of(m);
			r->prio = pick_prio();
			r->orig_cpu = rnd(NCPUS);
			r->dest_cpu = rnd(NCPUS);
			comm_of(m, r->comm);
			rb->len += sizeof(*r);
		} else if (kind < 99) {
			/* A short-lived thread: fork and exit of the same tid. */
			struct frec_rec_fork *r = (void *)p;
			unsigned parent = pick_thread();

			memset(r, 0, sizeof(*r));
			hdr(&r->h, t, cpu, parent, FREC_EV_PROCESS_FORK, sizeof(*r));
			r->parent_pid = tid_of(parent);
			r->parent_tgid = tgid_of(parent);
			r->child_pid = tid_of(NTHREADS) + rnd(1000);
			r->child_tgid = r->parent_tgid;
			r->child_cgroup = cgroup_of(parent);
			comm_of(parent, r->parent_comm);
			comm_of(parent, r->child_comm);
			rb->len += sizeof(*r);
		} else {
			struct frec_rec_probe *r = (void *)p;
			unsigned ti = cur[cpu] == (unsigned)-1 ? 0 : cur[cpu];

			memset(r, 0, sizeof(*r));
			hdr(&r->h, t, cpu, ti, rnd(2) ? FREC_EV_UPROBE : FREC_EV_URETPROBE,
			    sizeof(*r));
			r->probe_id = 1 + rnd(4);
			r->nargs = r->h.type == FREC_EV_UPROBE ? 2 : 0;
			r->args[0] = rnd(4096);
			r->args[1] = 0x7f0000000000ull + rnd(1 << 20) * 16;
			r->ret = r->h.type == FREC_EV_URETPROBE ? (int)rnd(100) : 0;
			rb->len += sizeof(*r);
		}
	}
	rb->span = ts + 3000 - TS0;
}

static uint64_t now_ns(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

struct result {
	uint64_t events;
	double secs, cpu_secs;
	uint64_t allocs;
	uint64_t allocs_warm;			/* large mix: during its warm-up */
	uint64_t warm_events;			/* large mix: its warm-up's length */
	uint64_t raw_bytes, raw_events;	/* open generations just before sealing */
	uint64_t file_bytes, file_events;	/* the snapshot, blocks stored (the default) */
	uint64_t zstd_bytes;			/* the same window, --compress zstd */
	uint64_t compress_ns;			/* CPU time writing the zstd one */
	struct frec_recorder_stats st;
	struct bench_bytes bytes;		/* the snapshot's, by part */
};

static const struct frec_probe_info probes[4] = {
	{ .id = 1, .kind = FREC_PROBE_UPROBE, .name = "uprobe:/usr/bin/app:handle",
	  .path = "/usr/bin/app", .func = "handle", .build_id = "", .nargs = 2 },
	{ .id = 2, .kind = FREC_PROBE_URETPROBE, .name = "uretprobe:/usr/bin/app:handle",
	  .path = "/usr/bin/app", .func = "handle", .build_id = "" },
	{ .id = 3, .kind = FREC_PROBE_UPROBE, .name = "uprobe:/usr/bin/app:parse",
	  .path = "/usr/bin/app", .func = "parse", .build_id = "", .nargs = 2 },
	{ .id = 4, .kind = FREC_PROBE_URETPROBE, .name = "uretprobe:/usr/bin/app:parse",
	  .path = "/usr/bin/app", .func = "parse", .build_id = "" },
};

/* The push path, as frecd drives it: ticks from its timer, here every
 * 4096 events; the open generation's size counted before each seal. */
static inline void push_one(struct frec_recorder *rec, struct frec_rec_hdr *rh, uint64_t n,
			    bool count, struct result *res)
{
	struct frec_recorder_stats st;

	frec_recorder__push(rec, rh, rh->size);
	npushes++;
	if ((n & 4095) == 4095) {
		frec_recorder__stats(rec, &st);
		if (frec_recorder__tick(rec, rh->ts) == 1 && count) {
			res->raw_bytes += st.open_bytes;
			res->raw_events += st.open_events;
		}
	}
}

/* A snapshot of the window as dfd/name (replaced): its size, and the CPU
 * time the write took this thread (compression is all of it that is not
 * I/O). */
static int write_snapshot(struct frec_recorder *rec, int dfd, const char *name,
			  enum frec_compress compress, uint64_t *bytes, uint64_t *events,
			  uint64_t *cpu_ns)
{
	struct frec_snapshot_opts o = { .sz = sizeof(o), .compress = compress };
	struct frec_header h;
	struct frec_pin *pin;
	struct stat sb;
	uint64_t t0;
	int err;

	frec_header__init(&h);
	snprintf(h.reason, sizeof(h.reason), "bench");
	pin = frec_recorder__pin(rec);
	if (!pin)
		return -errno;
	unlinkat(dfd, name, 0);
	t0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	err = frec_snapshot__write_opts(dfd, name, &h, pin, &o);
	*cpu_ns = now_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
	if (!err && fstatat(dfd, name, &sb, 0))
		err = -errno;
	if (!err) {
		*bytes = (uint64_t)sb.st_size;
		*events = frec_pin__events(pin);
	}
	frec_recorder__unpin(rec, pin);
	return err;
}

/*
 * Seal, then the disk figures: a real snapshot of the window as frecd
 * writes it by default (blocks stored), broken down by part when bytes is
 * set, and one as --compress zstd writes it. keep: rename the stored one
 * so (bench-export reads the last snapshot a replay wrote), else remove
 * both.
 */
static int finish(struct frec_recorder *rec, uint64_t last_ts, const char *dir, const char *name,
		  const char *keep, bool bytes, struct result *res)
{
	struct frec_recorder_stats st;
	char zname[256];
	uint64_t cpu, ev;
	int dfd, err;

	frec_recorder__stats(rec, &st);
	if (frec_recorder__seal(rec, last_ts + 1) == 1) {
		res->raw_bytes += st.open_bytes;
		res->raw_events += st.open_events;
	}
	frec_recorder__stats(rec, &res->st);

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	snprintf(zname, sizeof(zname), "zstd-%s", name);
	/* Nothing is pushed between the two, so both pins hold one window. */
	err = write_snapshot(rec, dfd, name, FREC_COMPRESS_NONE, &res->file_bytes,
			     &res->file_events, &cpu);
	if (!err)
		err = write_snapshot(rec, dfd, zname, FREC_COMPRESS_ZSTD, &res->zstd_bytes, &ev,
				     &res->compress_ns);
	if (!err && bytes && (err = bench_bytes__file(dfd, name, &res->bytes)))
		fprintf(stderr, "bench_core: cannot break down %s: %s\n", name, strerror(-err));
	unlinkat(dfd, zname, 0);
	if (err || !keep || renameat(dfd, name, dfd, keep))
		unlinkat(dfd, name, 0);
	close(dfd);
	return err;
}

/* The small mix: nevents of rb's records, replayed in a loop. */
static int run(const struct recbuf *rb, uint64_t nevents, const char *dir, bool bytes,
	       struct result *res)
{
	struct frec_recorder_opts o = {
		.sz = sizeof(o),
		.ncpus = NCPUS,
	};
	struct frec_recorder *rec = frec_recorder__new(&o);
	uint64_t t0, c0, off = 0, last_ts = 0;
	unsigned long long a0;
	char name[64], comm[FREC_COMM_LEN];
	int err;

	if (!rec)
		return -errno;
	memset(res, 0, sizeof(*res));
	/* What frecd does at start: seed the task table, set the probes. */
	for (unsigned i = 0; i < NTHREADS; i++) {
		comm_of(i, comm);
		frec_recorder__set_thread(rec, tid_of(i), tgid_of(i), comm);
		if (tid_of(i) == tgid_of(i))
			frec_recorder__set_cmdline(rec, tgid_of(i), "/usr/bin/app --workers 10");
	}
	frec_recorder__set_probes(rec, probes, 4);
	frec_recorder__tick(rec, TS0);

	a0 = nallocs;
	t0 = now_ns(CLOCK_MONOTONIC);
	c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	for (uint64_t n = 0; n < nevents;) {
		for (unsigned i = 0; i < NRECS && n < nevents; i++, n++) {
			struct frec_rec_hdr *rh = (void *)(rb->buf + rb->off[i]);
			uint64_t ts = rh->ts;

			/* Pass k replays the records k spans later. */
			rh->ts = ts + off;
			last_ts = rh->ts;
			push_one(rec, rh, n, true, res);
			rh->ts = ts;
		}
		off += rb->span;
	}
	res->secs = (double)(now_ns(CLOCK_MONOTONIC) - t0) / 1e9;
	res->cpu_secs = (double)(now_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / 1e9;
	res->allocs = nallocs - a0;
	res->events = nevents;

	snprintf(name, sizeof(name), "bench-%llu.frec", (unsigned long long)nevents);
	err = finish(rec, last_ts, dir, name, getenv("BENCH_SNAPSHOT"), bytes, res);
	frec_recorder__free(rec);
	return err;
}

/* --- the large mix --------------------------------------------------------- */

#define BIG_CPUS	256
#define BIG_THREADS	100000
#define BIG_WARM	2000000		/* events of warm-up at least */
#define BIG_WARM_MAX	100000000	/* ... and at most */
#define BIG_EVENTS	10000000
#define BIG_AHEAD	8		/* records prefetched ahead of the push */
#define BIG_BATCH	(1u << 16)	/* records made, then pushed, at a time */
#define BIG_REC_MAX	256		/* bytes a record of the mix takes at most */

static int run_big(const char *dir, struct result *res)
{
	struct frec_recorder_opts o = {
		.sz = sizeof(o),
		.ncpus = BIG_CPUS,
		/* frecd's default is the machine's threads-max: fixed here, so
		 * that the figures do not depend on the machine */
		.max_threads = 1u << 18,
	};
	struct frec_recorder *rec = NULL;
	struct big_mix *mix = big_mix__new(BIG_CPUS, BIG_THREADS, TS0, 0x9e3779b97f4a7c15ull);
	size_t cap = (size_t)BIG_BATCH * BIG_REC_MAX;
	unsigned char *buf = aligned_alloc(8, cap);
	uint32_t *offs = malloc(sizeof(*offs) * BIG_BATCH);
	uint64_t n = 0;
	int err = -ENOMEM;

	memset(res, 0, sizeof(*res));
	if (!mix || !buf || !offs)
		goto out;
	rec = frec_recorder__new(&o);
	if (!rec) {
		err = -errno;
		goto out;
	}
	if ((err = big_mix__seed(mix, rec)) || (err = frec_recorder__set_probes(rec, probes, 4)))
		goto out;
	frec_recorder__tick(rec, TS0);

	/* The warm-up lasts until the window first evicts a generation: by
	 * then every chunk of the pool has been written once, as in a frecd
	 * that has run for a window's time. Before that each new chunk costs
	 * page faults (a quarter of the time measured here), a cost frecd pays
	 * once, not per event. */
	while (res->events < BIG_EVENTS) {
		struct frec_recorder_stats st;
		bool steady;
		uint64_t left;
		unsigned k;

		frec_recorder__stats(rec, &st);
		steady = res->events || (n >= BIG_WARM && st.generations_evicted);
		if (!steady && n > BIG_WARM_MAX) {
			err = -EDOM;	/* a window that never fills: the mix is wrong */
			goto out;
		}
		left = steady ? BIG_EVENTS - res->events : BIG_BATCH;
		k = big_mix__fill(mix, buf, cap, offs, left < BIG_BATCH ? (unsigned)left : BIG_BATCH);
		if (!k) {	/* the mix made nothing: a loop that would never end */
			err = -EIO;
			goto out;
		}
		unsigned long long a0 = nallocs;
		uint64_t t0 = now_ns(CLOCK_MONOTONIC), c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);

		for (unsigned i = 0; i < k; i++, n++) {
			/* as frecd's drain does with each ring's next record */
			if (i + BIG_AHEAD < k)
				frec_recorder__prefetch(rec, buf + offs[i + BIG_AHEAD],
							((struct frec_rec_hdr *)(buf + offs[i + BIG_AHEAD]))->size);
			push_one(rec, (void *)(buf + offs[i]), n, steady, res);
		}
		if (steady) {
			res->cpu_secs += (double)(now_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / 1e9;
			res->secs += (double)(now_ns(CLOCK_MONOTONIC) - t0) / 1e9;
			res->allocs += nallocs - a0;
			res->events += k;
		} else {
			res->allocs_warm += nallocs - a0;
			res->warm_events += k;
		}
	}
	err = finish(rec, big_mix__now(mix), dir, "bench-large.frec", NULL, true, res);
out:
	frec_recorder__free(rec);
	big_mix__free(mix);
	free(buf);
	free(offs);
	return err;
}

/* --- report ---------------------------------------------------------------- */

static const char *verdict(bool met)
{
	return met ? "met" : "MISSED";
}

struct figures {
	double eps, ns, wall_ns, mem, disk, zstd, compress_ns;
};

static void figures_of(const struct result *r, struct figures *f)
{
	f->eps = (double)r->events / r->cpu_secs;
	f->ns = r->cpu_secs * 1e9 / (double)r->events;
	f->wall_ns = r->secs * 1e9 / (double)r->events;
	f->mem = r->raw_events ? (double)r->raw_bytes / (double)r->raw_events : 0;
	f->disk = r->file_events ? (double)r->file_bytes / (double)r->file_events : 0;
	f->zstd = r->file_events ? (double)r->zstd_bytes / (double)r->file_events : 0;
	f->compress_ns = r->file_events ? (double)r->compress_ns / (double)r->file_events : 0;
}

static void print_common(const struct result *r, const struct figures *f, double disk_max)
{
	printf("  events/s            %.1f M      (target >= 20 M: %s; CPU time of the replay thread)\n",
	       f->eps / 1e6, verdict(f->eps >= 20e6));
	printf("  ns/event            %.1f        (wall %.1f)\n", f->ns, f->wall_ns);
	printf("  bytes/event memory  %.2f       (target <= 12: %s; open generation encoding)\n",
	       f->mem, verdict(f->mem <= 12));
	printf("  bytes/event disk    %.2f       (target <= %.0f: %s; snapshot of %llu events, %llu bytes)\n",
	       f->disk, disk_max, verdict(f->disk <= disk_max),
	       (unsigned long long)r->file_events, (unsigned long long)r->file_bytes);
	printf("    --compress zstd   %.2f       (target <= %.0f: %s; %.2fx, %.1f ns/event of the writer's CPU)\n",
	       f->zstd, disk_max, verdict(f->zstd <= disk_max), f->disk ? f->zstd / f->disk : 0,
	       f->compress_ns);
}

static void print_gens(const struct result *r)
{
	printf("  generations         %llu sealed, %llu evicted (%llu early), window %u gens %.1f MiB\n",
	       (unsigned long long)r->st.generations_sealed,
	       (unsigned long long)r->st.generations_evicted,
	       (unsigned long long)r->st.early_evictions, r->st.window_generations,
	       (double)r->st.window_bytes / (1 << 20));
}

static void json_common(FILE *f, const struct result *r, const struct figures *g)
{
	fprintf(f, "\"events_per_sec\": %.0f, \"ns_per_event\": %.2f, "
		   "\"bytes_per_event_mem\": %.3f, \"bytes_per_event_disk\": %.3f, "
		   "\"allocs_per_event\": %.6f, \"events\": %llu, \"wall_ns_per_event\": %.2f, "
		   "\"bytes_per_event_zstd\": %.3f, \"compress_ns_per_event\": %.2f",
		g->eps, g->ns, g->mem, g->disk, (double)r->allocs / (double)r->events,
		(unsigned long long)r->events, g->wall_ns, g->zstd, g->compress_ns);
}

static int small_mix(const char *dir, struct result *r1, struct result *r10)
{
	static struct recbuf rb;
	struct result r;
	int err;

	gen_records(&rb);
	/* Warm up (page faults of the pool), then the measured runs. The
	 * machine may be shared: speed is the replay thread's CPU time, best
	 * of three runs of 10 M events; wall time is printed beside it. */
	if ((!once && (err = run(&rb, 1000000, dir, false, r1))) ||
	    (err = run(&rb, 1000000, dir, false, r1)) || (err = run(&rb, 10000000, dir, true, r10)))
		return err;
	for (int k = 0; k < (once ? 0 : 2); k++) {
		unsigned long long most;

		if ((err = run(&rb, 10000000, dir, false, &r)))
			return err;
		/* Allocations: the worst run counts. */
		most = r.allocs > r10->allocs ? r.allocs : r10->allocs;
		if (r.cpu_secs < r10->cpu_secs) {
			r.bytes = r10->bytes;	/* the same records, the same file */
			*r10 = r;
		}
		r10->allocs = most;
	}
	return 0;
}

static int large_mix(const char *dir, struct result *big)
{
	struct result r;
	int err;

	/* Best of three runs by CPU time, allocations the worst; the records
	 * are the same in all (one seed). */
	if ((err = run_big(dir, big)))
		return err;
	for (int k = 0; k < (once ? 0 : 2); k++) {
		uint64_t warm, most;

		if ((err = run_big(dir, &r)))
			return err;
		warm = r.allocs_warm > big->allocs_warm ? r.allocs_warm : big->allocs_warm;
		most = r.allocs > big->allocs ? r.allocs : big->allocs;
		if (r.cpu_secs < big->cpu_secs)
			*big = r;
		big->allocs_warm = warm;
		big->allocs = most;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct result r1, r10, big;
	struct figures fs, fb;
	const char *out = "bench-core.json", *slash, *only = NULL;
	bool do_small, do_large, ok = true;
	char dir[4096];
	FILE *f;
	int err = 0, i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--once"))
			once = true;
		else if (!strcmp(argv[i], "--only") && i + 1 < argc)
			only = argv[++i];
		else
			break;	/* --help, or one it does not know */
	}
	if (i < argc && argv[i][0] != '-')
		out = argv[i++];
	do_small = !only || !strcmp(only, "small");
	do_large = !only || !strcmp(only, "large");
	/* an option it does not know (--help) is not a file name to write */
	if ((!do_small && !do_large) || i < argc || out[0] == '-') {
		fprintf(stderr, "usage: bench_core [--only small|large] [--once] [OUT.json]\n");
		return 2;
	}
	/* Snapshots go next to the JSON file. */
	slash = strrchr(out, '/');
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - out) : 1, slash ? out : ".");

	if (do_small && (err = small_mix(dir, &r1, &r10)))
		goto fail;
	if (do_small) {
		figures_of(&r10, &fs);
		printf("bench-core: %llu events, %u CPUs, %u threads (mostly sched_switch + sched_waking, replayed)\n",
		       (unsigned long long)r10.events, NCPUS, NTHREADS);
		print_common(&r10, &fs, 6);
		printf("  allocations         %llu over 1 M, %llu over 10 M events (target: equal, 0/event: %s)\n",
		       (unsigned long long)r1.allocs, (unsigned long long)r10.allocs,
		       verdict(r1.allocs == r10.allocs));
		print_gens(&r10);
		bench_bytes__print(&r10.bytes, stdout);
		ok = r1.allocs == r10.allocs;
		fflush(stdout);
	}
	if (do_large && (err = large_mix(dir, &big)))
		goto fail;
	if (do_large) {
		figures_of(&big, &fb);
		printf("bench-core: %llu events, %u CPUs, %u threads (the same kinds and exits, made as consumed)\n",
		       (unsigned long long)big.events, BIG_CPUS, BIG_THREADS);
		print_common(&big, &fb, 8);
		printf("  allocations         %llu in the %.1f M warm-up (until the window evicts), "
		       "%llu over the %u M after it (target 0: %s)\n",
		       (unsigned long long)big.allocs_warm, (double)big.warm_events / 1e6,
		       (unsigned long long)big.allocs, BIG_EVENTS / 1000000, verdict(!big.allocs));
		print_gens(&big);
		printf("  task table          %u threads, %llu evicted, %llu untracked; %llu forks, %llu exits\n",
		       big.st.threads, (unsigned long long)big.st.threads_evicted,
		       (unsigned long long)big.st.threads_untracked,
		       (unsigned long long)big.st.events_by_type[FREC_EV_PROCESS_FORK],
		       (unsigned long long)big.st.events_by_type[FREC_EV_PROCESS_EXIT]);
		bench_bytes__print(&big.bytes, stdout);
	}

	f = fopen(out, "w");
	if (!f) {
		fprintf(stderr, "bench_core: cannot write %s: %s\n", out, strerror(errno));
		return 1;
	}
	fprintf(f, "{");
	/* The small mix's figures at the top level, as they always were. */
	if (do_small) {
		json_common(f, &r10, &fs);
		fprintf(f, ", \"allocs_1m\": %llu, \"allocs_10m\": %llu, \"cpus\": %u, \"threads\": %u, "
			   "\"bytes\": ", (unsigned long long)r1.allocs,
			(unsigned long long)r10.allocs, NCPUS, NTHREADS);
		bench_bytes__json(&r10.bytes, f);
	}
	if (do_large) {
		fprintf(f, "%s\"large\": {", do_small ? ", " : "");
		json_common(f, &big, &fb);
		fprintf(f, ", \"allocs_warmup\": %llu, \"allocs_steady\": %llu, \"warmup_events\": %llu, "
			   "\"cpus\": %u, \"threads\": %u, \"threads_evicted\": %llu, \"bytes\": ",
			(unsigned long long)big.allocs_warm, (unsigned long long)big.allocs,
			(unsigned long long)big.warm_events, BIG_CPUS, BIG_THREADS, (unsigned long long)big.st.threads_evicted);
		bench_bytes__json(&big.bytes, f);
		fprintf(f, "}");
	}
	fprintf(f, "}\n");
	fclose(f);
	if (once)
		printf("bench-core: %llu records pushed in all\n", npushes);
	return ok ? 0 : 1;
fail:
	fprintf(stderr, "bench_core: %s\n", strerror(-err));
	return 1;
}
