// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Cgroups through the recorder and back (docs/FORMAT.md, sections 2 and 3,
 * xtype 18): the ids switch and fork records show, the moves they reveal,
 * the table a namer names at the seal, and the reader's view of them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <cmocka.h>
#include <zlib.h>
#include "synth.h"
#include "core/format.h"
#include "core/varint.h"

#define T0	1000000000ull

static struct frec_recorder *cg_recorder(__u32 max_cgroups)
{
	struct frec_recorder_opts o = {
		.sz = sizeof(o),
		.max_bytes = 4 << 20,
		.chunk_bytes = 4096,
		.ncpus = 2,
		.max_threads = 1024,
		.max_processes = 64,
		.max_cgroups = max_cgroups,
	};
	struct frec_recorder *rec = frec_recorder__new(&o);

	assert_non_null(rec);
	return rec;
}

static struct frec_reader *open_file(const char *dir, const char *name)
{
	struct frec_reader *r;
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(frec_reader__open(path, &r), 0);
	return r;
}

static __u64 cgroup_of(struct frec_gen *g, __u32 tid)
{
	const struct frec_thread *t = frec_gen__thread(g, tid);

	assert_non_null(t);
	return t->cgroup;
}

/*
 * One generation on 2 CPUs, threads A (101), B (102) of process 100 and C
 * (103): A is switched in in cgroup 5; B in one not read (0), then woken,
 * then switched in in 2 (a fill-in: no event); C in 64, which the namer
 * does not know; A again in 7 (a move: an xtype 18 right before that
 * switch); the idle task "in" 9 (ignored); a fork's child D (104) in 3.
 */
static void test_sections_and_moves(void **state)
{
	struct frec_recorder *rec = cg_recorder(0);
	struct synth_namer nctx;
	struct frec_cgroup_namer namer = synth_cgroup_namer(&nctx);
	struct frec_recorder_stats st;
	const struct frec_cgroup_info *ci;
	const struct frec_gen_info *gi;
	struct frec_reader *r;
	struct frec_gen *g;
	struct frec_event ev;
	char dir[64];
	unsigned n = 0, moves = 0;

	memset(&nctx, 0, sizeof(nctx));
	assert_int_equal(synth_tmpdir(dir), 0);
	assert_int_equal(frec_recorder__set_cgroup_namer(rec, &namer), 0);
	frec_recorder__tick(rec, T0);
	assert_int_equal(synth_switch_cg(rec, T0 + 1000, 0, 0, 0, "swapper/0", 0, 101, 100, "A", 5), 0);
	assert_int_equal(synth_switch_cg(rec, T0 + 2000, 1, 0, 0, "swapper/1", 0, 102, 100, "B", 0), 0);
	assert_int_equal(synth_wake(rec, FREC_EV_SCHED_WAKING, T0 + 3000, 0, 101, 100, 102, 100, "B", 1), 0);
	assert_int_equal(synth_switch_cg(rec, T0 + 4000, 1, 102, 100, "B", 1, 103, 103, "C", 64), 0);
	assert_int_equal(synth_switch_cg(rec, T0 + 5000, 0, 101, 100, "A", 1, 102, 100, "B", 2), 0);
	assert_int_equal(synth_switch_cg(rec, T0 + 6000, 0, 102, 100, "B", 1, 101, 100, "A", 7), 0);
	assert_int_equal(synth_switch_cg(rec, T0 + 7000, 0, 101, 100, "A", 1, 0, 0, "swapper/0", 9), 0);
	assert_int_equal(synth_fork_cg(rec, T0 + 8000, 1, 103, 103, "C", 104, 104, "D", 3), 0);
	/* seen() once per id of the generation, as they come */
	assert_int_equal(nctx.seen_calls, 5);
	assert_int_equal(nctx.seen[0], 5);
	assert_int_equal(nctx.seen[1], 64);
	assert_int_equal(nctx.seen[2], 2);
	assert_int_equal(nctx.seen[3], 7);
	assert_int_equal(nctx.seen[4], 3);
	assert_int_equal(synth_write(rec, dir, "c.frec", T0 + 10000), 0);
	assert_int_equal(nctx.name_calls, 5);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.cgroup_moves, 1);
	assert_int_equal(st.cgroups_named, 4);
	assert_int_equal(st.cgroups_unnamed, 1);
	assert_int_equal(st.events, 9);

	r = open_file(dir, "c.frec");
	assert_int_equal(frec_reader__next_gen(r, &g), 1);
	gi = frec_gen__info(g);
	/* section 2: sorted, named, the unknown one "" */
	assert_int_equal(gi->ncgroups, 5);
	for (__u32 i = 0; i < 5; i++) {
		static const __u64 ids[5] = { 2, 3, 5, 7, 64 };

		ci = frec_gen__cgroup_at(g, i);
		assert_non_null(ci);
		assert_int_equal(ci->id, ids[i]);
		assert_ptr_equal(frec_gen__cgroup(g, ids[i]), ci);
	}
	assert_null(frec_gen__cgroup_at(g, 5));
	assert_null(frec_gen__cgroup(g, 9));
	assert_null(frec_gen__cgroup(g, 4));
	assert_null(frec_gen__cgroup(g, 0));
	ci = frec_gen__cgroup(g, 5);
	assert_string_equal(ci->path, "/synth.slice/cg-5.scope");
	assert_string_equal(ci->container,
			    "0000000000000000000000000000000000000000000000000000000000000005");
	ci = frec_gen__cgroup(g, 2);
	assert_string_equal(ci->path, "/synth.slice/cg-2.scope");
	assert_string_equal(ci->container, "");
	ci = frec_gen__cgroup(g, 64);
	assert_string_equal(ci->path, "");
	assert_string_equal(ci->container, "");
	/* section 3: first mentions, the fill-in, none for the idle task */
	assert_int_equal(cgroup_of(g, 101), 5);
	assert_int_equal(cgroup_of(g, 102), 2);
	assert_int_equal(cgroup_of(g, 103), 64);
	assert_int_equal(cgroup_of(g, 104), 3);
	assert_int_equal(cgroup_of(g, 0), 0);
	while (frec_gen__next_event(g, &ev) == 1) {
		n++;
		if (ev.type != FREC_EV_CGROUP) {
			if (ev.type == FREC_EV_SCHED_SWITCH && ev.ts == T0 + 6000)
				assert_int_equal(moves, 1);	/* the move came first */
			continue;
		}
		moves++;
		assert_int_equal(ev.ts, T0 + 6000);
		assert_int_equal(ev.cpu, 0);
		assert_int_equal(ev.tid, 101);
		assert_int_equal(ev.tgid, 100);
		assert_int_equal(ev.cgroup.id, 7);
		/* applied as of the event returned */
		assert_int_equal(cgroup_of(g, 101), 7);
	}
	assert_int_equal(n, 9);
	assert_int_equal(moves, 1);
	assert_int_equal(gi->nevents_by_type[FREC_EV_CGROUP], 1);
	assert_int_equal(frec_reader__next_gen(r, &g), 0);
	frec_reader__free(r);
	frec_recorder__free(rec);
	synth_rmdir(dir);
}

/* Each generation names its own: the next one's first mention of a
 * thread carries the cgroup it moved to, seen() is told again, and
 * without a namer every entry is unnamed. */
static void test_next_generation(void **state)
{
	struct frec_recorder *rec = cg_recorder(0);
	struct synth_namer nctx;
	struct frec_cgroup_namer namer = synth_cgroup_namer(&nctx);
	struct frec_recorder_stats st;
	struct frec_reader *r;
	struct frec_gen *g;
	char dir[64];

	memset(&nctx, 0, sizeof(nctx));
	assert_int_equal(synth_tmpdir(dir), 0);
	frec_recorder__set_cgroup_namer(rec, &namer);
	frec_recorder__tick(rec, T0);
	synth_switch_cg(rec, T0 + 1000, 0, 0, 0, "swapper/0", 0, 101, 100, "A", 5);
	synth_switch_cg(rec, T0 + 2000, 0, 101, 100, "A", 1, 0, 0, "swapper/0", 0);
	assert_int_equal(frec_recorder__seal(rec, T0 + 3000), 1);
	/* moved while not in the open generation: no event, first mention */
	assert_int_equal(synth_cgroup(rec, T0 + 4000, 1, 101, 100, 6), 0);
	synth_switch_cg(rec, T0 + 5000, 0, 0, 0, "swapper/0", 0, 101, 100, "A", 6);
	assert_int_equal(frec_recorder__seal(rec, T0 + 6000), 1);
	assert_int_equal(nctx.seen_calls, 2);
	assert_int_equal(nctx.seen[1], 6);
	frec_recorder__set_cgroup_namer(rec, NULL);
	synth_switch_cg(rec, T0 + 7000, 0, 0, 0, "swapper/0", 0, 101, 100, "A", 6);
	assert_int_equal(synth_write(rec, dir, "n.frec", T0 + 8000), 0);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.cgroup_moves, 0);
	assert_int_equal(st.cgroups_named, 2);
	assert_int_equal(st.cgroups_unnamed, 1);
	assert_int_equal(nctx.name_calls, 2);

	r = open_file(dir, "n.frec");
	assert_int_equal(frec_reader__next_gen(r, &g), 1);
	assert_int_equal(cgroup_of(g, 101), 5);
	assert_int_equal(frec_reader__next_gen(r, &g), 1);
	assert_int_equal(cgroup_of(g, 101), 6);
	assert_int_equal(frec_gen__info(g)->nevents_by_type[FREC_EV_CGROUP], 0);
	assert_int_equal(frec_reader__next_gen(r, &g), 1);
	assert_int_equal(cgroup_of(g, 101), 6);
	assert_string_equal(frec_gen__cgroup(g, 6)->path, "");
	assert_int_equal(frec_reader__next_gen(r, &g), 0);
	frec_reader__free(r);
	frec_recorder__free(rec);
	synth_rmdir(dir);
}

/* push_event() takes FREC_EV_CGROUP by the record's rules: id 0 is
 * refused, the idle task ignored, an unknown thread's only set, a known
 * one's change written as a move. A generation without cgroups has
 * neither section: its threads' cgroups are 0. */
static void test_push_event(void **state)
{
	struct frec_recorder *rec = cg_recorder(0);
	struct frec_recorder_stats st;
	struct frec_reader *r;
	struct frec_gen *g;
	struct frec_event ev;
	char dir[64];

	assert_int_equal(synth_tmpdir(dir), 0);
	frec_recorder__tick(rec, T0);
	synth_switch(rec, T0 + 500, 0, 0, 0, "swapper/0", 0, 101, 100, "A");
	assert_int_equal(frec_recorder__seal(rec, T0 + 600), 1);
	assert_int_equal(synth_cgroup(rec, T0 + 1000, 0, 101, 100, 0), -EINVAL);
	assert_int_equal(synth_cgroup(rec, T0 + 1000, 0, 0, 0, 5), 0);
	assert_int_equal(synth_cgroup(rec, T0 + 1000, 0, 101, 100, 5), 0);
	synth_switch(rec, T0 + 2000, 0, 0, 0, "swapper/0", 0, 101, 100, "A");
	assert_int_equal(synth_cgroup(rec, T0 + 3000, 1, 101, 100, 5), 0);
	assert_int_equal(synth_cgroup(rec, T0 + 3000, 1, 101, 100, 8), 0);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.malformed, 1);
	assert_int_equal(st.cgroup_moves, 1);
	assert_int_equal(synth_write(rec, dir, "p.frec", T0 + 4000), 0);

	r = open_file(dir, "p.frec");
	assert_int_equal(frec_reader__next_gen(r, &g), 1);
	assert_int_equal(frec_gen__info(g)->ncgroups, 0);
	assert_int_equal(cgroup_of(g, 101), 0);
	assert_int_equal(frec_reader__next_gen(r, &g), 1);
	assert_int_equal(frec_gen__info(g)->ncgroups, 2);
	assert_int_equal(cgroup_of(g, 101), 5);
	assert_int_equal(frec_gen__next_event(g, &ev), 1);
	assert_int_equal(ev.type, FREC_EV_SCHED_SWITCH);
	assert_int_equal(frec_gen__next_event(g, &ev), 1);
	assert_int_equal(ev.type, FREC_EV_CGROUP);
	assert_int_equal(ev.cpu, 1);
	assert_int_equal(ev.cgroup.id, 8);
	assert_int_equal(cgroup_of(g, 101), 8);
	assert_int_equal(frec_gen__next_event(g, &ev), 0);
	frec_reader__free(r);
	frec_recorder__free(rec);
	synth_rmdir(dir);
}

/* A tid another process has now (pid reuse) is a new thread: its cgroup
 * is not the old one's, and the one a record then shows is no move. */
static void test_pid_reuse(void **state)
{
	struct frec_recorder *rec = cg_recorder(0);
	struct frec_recorder_stats st;
	const struct frec_thread *t;
	struct frec_reader *r;
	struct frec_gen *g;
	char dir[64];

	assert_int_equal(synth_tmpdir(dir), 0);
	frec_recorder__tick(rec, T0);
	synth_switch_cg(rec, T0 + 1000, 0, 0, 0, "swapper/0", 0, 101, 100, "old", 5);
	synth_switch_cg(rec, T0 + 2000, 0, 101, 100, "old", 1, 0, 0, "swapper/0", 1);
	synth_wake(rec, FREC_EV_SCHED_WAKING, T0 + 3000, 1, 0, 0, 101, 200, "new", 0);
	synth_switch_cg(rec, T0 + 4000, 0, 0, 0, "swapper/0", 0, 101, 200, "new", 9);
	/* and /proc's word for another reuse */
	assert_int_equal(frec_recorder__set_thread(rec, 101, 300, "newer"), 0);
	synth_wake(rec, FREC_EV_SCHED_WAKING, T0 + 5000, 1, 0, 0, 102, 100, "other", 0);
	synth_fork_cg(rec, T0 + 6000, 1, 102, 100, "other", 101, 300, "newer", 0);
	assert_int_equal(synth_write(rec, dir, "r.frec", T0 + 10000), 0);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.cgroup_moves, 0);

	r = open_file(dir, "r.frec");
	assert_int_equal(frec_reader__next_gen(r, &g), 1);
	for (__u32 i = 0; (t = frec_gen__thread_at(g, i)); i++) {
		if (t->tid != 101)
			continue;
		assert_int_equal(t->cgroup, t->tgid == 100 ? 5 : t->tgid == 200 ? 9 : 0);
	}
	frec_reader__free(r);
	frec_recorder__free(rec);
	synth_rmdir(dir);
}

/* A full id set seals the generation early: no generation holds more
 * than max_cgroups ids, and every thread's cgroup is still named. */
static void test_set_full(void **state)
{
	struct frec_recorder *rec = cg_recorder(8);
	struct frec_recorder_stats st;
	struct frec_reader *r;
	struct frec_gen *g;
	char dir[64];
	unsigned gens = 0, named = 0;
	int rc;

	assert_int_equal(synth_tmpdir(dir), 0);
	frec_recorder__tick(rec, T0);
	for (__u32 i = 0; i < 40; i++)
		assert_int_equal(synth_switch_cg(rec, T0 + 1000 * i, 0, 0, 0, "swapper/0", 0,
						 200 + i, 200 + i, "t", 100 + i), 0);
	frec_recorder__stats(rec, &st);
	assert_true(st.generations_sealed >= 5);
	assert_int_equal(synth_write(rec, dir, "f.frec", T0 + 100000), 0);
	r = open_file(dir, "f.frec");
	while ((rc = frec_reader__next_gen(r, &g)) == 1) {
		const struct frec_gen_info *gi = frec_gen__info(g);

		gens++;
		assert_true(gi->ncgroups <= 8 && gi->ncgroups > 0);
		for (__u32 i = 0; i < gi->nthreads; i++) {
			const struct frec_thread *t = frec_gen__thread_at(g, i);

			if (!t->tid)
				continue;
			assert_int_equal(t->cgroup, 100 + t->tid - 200);
			assert_non_null(frec_gen__cgroup(g, t->cgroup));
			named++;
		}
	}
	assert_int_equal(rc, 0);
	assert_true(gens >= 6);
	assert_int_equal(named, 40);
	frec_reader__free(r);
	frec_recorder__free(rec);
	synth_rmdir(dir);
}

/* Allocations seen through the sanitizer's hook (the unit tests run under
 * ASan); without it the count is not checked. */
extern int __sanitizer_install_malloc_and_free_hooks(void (*m)(const volatile void *, size_t),
						     void (*f)(const volatile void *))
	__attribute__((weak));
static unsigned long nallocs;

static void on_malloc(const volatile void *p, size_t n)
{
	(void)p;
	(void)n;
	nallocs++;
}

static void on_free(const volatile void *p)
{
	(void)p;
}

/* 1 M switches among 64 threads in 6 cgroups, moving now and then, with a
 * namer: no allocation once the recorder is made, seals included. */
static void test_no_alloc(void **state)
{
	struct frec_recorder *rec = cg_recorder(0);
	struct synth_namer nctx;
	struct frec_cgroup_namer namer = synth_cgroup_namer(&nctx);
	struct frec_recorder_stats st;
	bool hooked = false;

	memset(&nctx, 0, sizeof(nctx));
	frec_recorder__set_cgroup_namer(rec, &namer);
	frec_recorder__tick(rec, T0);
	if (__sanitizer_install_malloc_and_free_hooks)
		hooked = __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free) != 0;
#ifdef __SANITIZE_ADDRESS__
	assert_true(hooked);
#endif
	nallocs = 0;
	for (__u32 i = 0; i < 1000000; i++) {
		__u32 prev = 300 + i % 64, next = 300 + (i + 1) % 64;
		__u64 cg = 1 + (next + i / 100000) % 6;

		synth_switch_cg(rec, T0 + 1000ull * i, i & 1, prev, 300, "w", 1, next, 300, "w", cg);
		if (i % 100000 == 99999)
			frec_recorder__tick(rec, T0 + 1000ull * i + 1);
	}
	if (hooked)
		assert_int_equal(nallocs, 0);
	frec_recorder__stats(rec, &st);
	assert_true(st.cgroup_moves > 0);
	assert_true(st.generations_sealed > 0);
	assert_int_equal(st.events_discarded, 0);
	frec_recorder__free(rec);
}

/* --- blocks made by hand, for the reader's rules ---------------------------- */

struct hand {
	uint8_t ev[64], sec[256];
	size_t nev, evlen, seclen;
	unsigned nsec;
	uint64_t tgid_code8;	/* not 0: thread 1's tgid field as written */
	uint8_t name7[20], name8[20];	/* version 5: the names as written, */
	size_t name7_len, name8_len;	/* when the length is not 0 */
	uint32_t version;	/* the file's; 0: the writer's (version 6) */
	uint32_t ncpus;		/* the summary's C; 0: 2 */
};

/* Section 3 and the thread table as the file's version codes them. */
static bool hand_v4(const struct hand *h)
{
	return !h->version || h->version >= FORMAT_VERSION_TABLES;
}

/* A file of one block: 2 CPUs, threads 0 (tid 7) and 1 (tid 8), h's
 * events and sections; the header is the known snapshot's. */
static void hand_write(const char *dir, const struct hand *h)
{
	uint8_t raw[1024], *p;
	unsigned char *blk, *known;
	char path[256];
	size_t blen, klen, hdr;
	FILE *f;

	snprintf(path, sizeof(path), "%s/k.frec", dir);
	unlink(path);
	assert_int_equal(synth_known_snapshot(dir, "k.frec"), 0);
	f = fopen(path, "rb");
	assert_non_null(f);
	known = malloc(1 << 16);
	klen = fread(known, 1, 1 << 16, f);
	fclose(f);
	hdr = (size_t)((unsigned char *)memmem(known + FILE_PREFIX_LEN, klen - FILE_PREFIX_LEN,
					       BLOCK_MAGIC, BLOCK_MAGIC_LEN) - known);
	memcpy(raw, h->ev, h->evlen);
	p = raw + h->evlen;
	p = put_varint(p, 1);		/* seq */
	p = put_varint(p, 1000);	/* start_ts */
	p = put_varint(p, 2000);	/* end_ts */
	p = put_varint(p, h->nev);
	p = put_varint(p, 0);		/* no counts by type */
	p = put_varint(p, h->ncpus ? h->ncpus : 2);	/* CPUs, none dropped */
	for (uint32_t c = 0; c < (h->ncpus ? h->ncpus : 2); c++)
		p = put_varint(p, 0);
	p = put_varint(p, 2);		/* threads */
	p = put_varint(p, 0);
	p = put_varint(p, 0);
	p = put_varint(p, 0);
	for (unsigned i = 7; i <= 8; i++) {
		p = put_varint(p, i);
		/* tgid 7 (version 4: zigzag(tid - tgid)) */
		if (i == 8 && h->tgid_code8)
			p = put_varint(p, h->tgid_code8);
		else
			p = put_varint(p, hand_v4(h) ? zigzag((int64_t)i - 7) : 7);
		if (h->version && h->version < FORMAT_VERSION_NAMES) {
			*p++ = 1;
			*p++ = 't';
			*p++ = 0;
		} else if (i == 7 && h->name7_len) {
			memcpy(p, h->name7, h->name7_len);
			p += h->name7_len;
		} else if (i == 8 && h->name8_len) {
			memcpy(p, h->name8, h->name8_len);
			p += h->name8_len;
		} else {	/* "t", then "t" again: one byte shared */
			*p++ = i == 7 ? THREAD_NAME_BYTE(0, 1) : THREAD_NAME_BYTE(1, 0);
			if (i == 7)
				*p++ = 't';
		}
	}
	p = put_varint(p, h->nsec);
	memcpy(p, h->sec, h->seclen);
	p += h->seclen;
	blk = synth_deflate_block(raw, (size_t)(p - raw), h->evlen, (size_t)(p - raw), 6, 8, &blen);
	assert_non_null(blk);
	snprintf(path, sizeof(path), "%s/h.frec", dir);
	f = fopen(path, "wb");
	assert_non_null(f);
	if (h->version) {	/* the header's version, and its CRC again */
		uint32_t b = get_le32(known + 12);

		put_le32(known + FILE_MAGIC_LEN, h->version);
		put_le32(known + FILE_PREFIX_LEN + b,
			 (uint32_t)crc32(0, known + FILE_MAGIC_LEN, FILE_PREFIX_LEN - FILE_MAGIC_LEN + b));
	}
	assert_int_equal(fwrite(known, 1, hdr, f), hdr);
	assert_int_equal(fwrite(blk, 1, blen, f), blen);
	fclose(f);
	free(blk);
	free(known);
}

static void hand_section(struct hand *h, unsigned id, const uint8_t *body, size_t n)
{
	uint8_t *p = h->sec + h->seclen;

	p = put_varint(p, id);
	p = put_varint(p, n);
	memcpy(p, body, n);
	h->seclen = (size_t)(p + n - h->sec);
	h->nsec++;
}

/* Section 2 with ids a and b, "/a" and "/b" */
static void hand_cgroups(struct hand *h, __u64 a, __u64 b)
{
	uint8_t body[64], *p = body;

	p = put_varint(p, 2);
	p = put_varint(p, a);
	memcpy(p, "\002/a\000\000\000", 6);
	p += 6;
	p = put_varint(p, b);
	memcpy(p, "\002/b\000\000\000", 6);
	p += 6;
	hand_section(h, SECTION_CGROUPS, body, (size_t)(p - body));
}

/* Section 3 with k entries (thread index, id), as h's version codes them:
 * before 4, as they are; in 4, the index as its gap after the one before
 * (an index before it wraps to a gap past any table), the id as its
 * zigzag difference. */
static void hand_threads(struct hand *h, __u32 k, const __u32 *idx, const __u64 *id, __u32 n)
{
	uint8_t body[64], *p = body;
	__u32 next = 0;
	__u64 prev = 0;

	p = put_varint(p, k);
	for (__u32 i = 0; i < n; i++) {
		p = put_varint(p, hand_v4(h) ? (__u32)(idx[i] - next) : idx[i]);
		p = put_varint(p, hand_v4(h) ? zigzag((int64_t)(id[i] - prev)) : id[i]);
		next = idx[i] + 1;
		prev = id[i];
	}
	hand_section(h, SECTION_THREAD_CGROUPS, body, (size_t)(p - body));
}

/* One xtype 18 on cpu 0 with info and thread 1, body id */
static void hand_move(struct hand *h, unsigned info, __u64 id)
{
	uint8_t *p = h->ev + h->evlen;

	*p++ = FREC_EV_ESCAPE;		/* cpu 0 */
	p = put_varint(p, FREC_EV_CGROUP);
	p = put_varint(p, 0);		/* dts */
	*p++ = (uint8_t)info;
	if (info & INFO_T)
		p = put_varint(p, 1);
	*p++ = (uint8_t)varint_len(id);
	p = put_varint(p, id);
	h->evlen = (size_t)(p - h->ev);
	h->nev++;
}

/* The file hand_write() wrote: 1, its block read; 0, damaged. */
static int hand_open(const char *dir, struct frec_gen **gp, struct frec_reader **rp)
{
	char path[256];
	int rc;

	snprintf(path, sizeof(path), "%s/h.frec", dir);
	assert_int_equal(frec_reader__open(path, rp), 0);
	rc = frec_reader__next_gen(*rp, gp);
	if (rc != 1) {
		assert_int_equal(rc, -EBADMSG);
		assert_int_equal(frec_reader__next_gen(*rp, gp), 0);
		assert_int_equal(frec_reader__damaged(*rp), 1);
		frec_reader__free(*rp);
		return 0;
	}
	return 1;
}

static int hand_read(const char *dir, const struct hand *h, struct frec_gen **gp,
		     struct frec_reader **rp)
{
	hand_write(dir, h);
	return hand_open(dir, gp, rp);
}

/* The file hand_write() wrote is damaged. */
static int hand_open_damaged(const char *dir)
{
	struct frec_reader *r;
	struct frec_gen *g;

	if (!hand_open(dir, &g, &r))
		return 1;
	frec_reader__free(r);
	return 0;
}

static int hand_damaged(const char *dir, const struct hand *h)
{
	hand_write(dir, h);
	return hand_open_damaged(dir);
}

/* Sections 2 and 3 as FORMAT.md has them, and what damages a block, in a
 * file of version (0: the writer's, 6). */
static void reader_rules(uint32_t version)
{
	static const __u32 i01[2] = { 0, 1 }, i10[2] = { 1, 0 }, i02[2] = { 0, 2 };
	static const __u64 c59[2] = { 5, 9 }, c50[2] = { 5, 0 };
	struct frec_reader *r;
	struct frec_gen *g;
	struct frec_event ev;
	struct hand h;
	char dir[64];

	assert_int_equal(synth_tmpdir(dir), 0);
	/* well-formed: both sections, then a move of thread 1 to 5 */
	memset(&h, 0, sizeof(h));
	h.version = version;
	hand_cgroups(&h, 5, 9);
	hand_threads(&h, 2, i01, c59, 2);
	hand_move(&h, INFO_T, 5);
	assert_int_equal(hand_read(dir, &h, &g, &r), 1);
	assert_int_equal(frec_gen__info(g)->ncgroups, 2);
	assert_string_equal(frec_gen__cgroup(g, 9)->path, "/b");
	assert_int_equal(cgroup_of(g, 7), 5);
	assert_int_equal(cgroup_of(g, 8), 9);
	assert_int_equal(frec_gen__next_event(g, &ev), 1);
	assert_int_equal(ev.type, FREC_EV_CGROUP);
	assert_int_equal(ev.tid, 8);
	assert_int_equal(ev.cgroup.id, 5);
	assert_int_equal(cgroup_of(g, 8), 5);
	assert_int_equal(frec_gen__next_event(g, &ev), 0);
	frec_reader__free(r);

	/* an id of section 3 or of a move that section 2 lacks: by id only */
	memset(&h, 0, sizeof(h));
	h.version = version;
	hand_threads(&h, 1, i01 + 1, c59 + 1, 1);
	hand_move(&h, INFO_T, 77);
	assert_int_equal(hand_read(dir, &h, &g, &r), 1);
	assert_null(frec_gen__cgroup(g, 9));
	assert_int_equal(cgroup_of(g, 7), 0);
	assert_int_equal(cgroup_of(g, 8), 9);
	assert_int_equal(frec_gen__next_event(g, &ev), 1);
	assert_int_equal(cgroup_of(g, 8), 77);
	frec_reader__free(r);

	/* section 2: ids out of order, a zero id */
	memset(&h, 0, sizeof(h));
	h.version = version;
	hand_cgroups(&h, 9, 5);
	assert_true(hand_damaged(dir, &h));
	memset(&h, 0, sizeof(h));
	h.version = version;
	hand_cgroups(&h, 5, 5);
	assert_true(hand_damaged(dir, &h));
	memset(&h, 0, sizeof(h));
	h.version = version;
	hand_cgroups(&h, 0, 5);
	assert_true(hand_damaged(dir, &h));
	/* section 3: an index out of order (in version 4, a gap that takes
	 * the index past 2^32 - 1) or past nthreads, a zero id, more entries
	 * than threads */
	memset(&h, 0, sizeof(h));
	h.version = version;
	hand_threads(&h, 2, i10, c59, 2);
	assert_true(hand_damaged(dir, &h));
	memset(&h, 0, sizeof(h));
	h.version = version;
	hand_threads(&h, 2, i02, c59, 2);
	assert_true(hand_damaged(dir, &h));
	memset(&h, 0, sizeof(h));
	h.version = version;
	hand_threads(&h, 2, i01, c50, 2);
	assert_true(hand_damaged(dir, &h));
	memset(&h, 0, sizeof(h));
	h.version = version;
	hand_threads(&h, 3, i01, c59, 2);
	assert_true(hand_damaged(dir, &h));

	/* version 4's tgid, zigzag(tid - tgid): read back; then one below 0,
	 * one past 2^32 - 1, and a code past 2^33 */
	if (!version) {
		memset(&h, 0, sizeof(h));
		h.tgid_code8 = zigzag(8 - 3);
		assert_int_equal(hand_read(dir, &h, &g, &r), 1);
		assert_int_equal(frec_gen__thread(g, 8)->tgid, 3);
		frec_reader__free(r);
		h.tgid_code8 = zigzag(8 - -1);
		assert_true(hand_damaged(dir, &h));
		h.tgid_code8 = zigzag(8 - (int64_t)UINT32_MAX - 1);
		assert_true(hand_damaged(dir, &h));
		h.tgid_code8 = (1ull << 33) + 1;
		assert_true(hand_damaged(dir, &h));
	}

	/* version 5's names: the bytes shared with the entry before and the
	 * tail; a name of 15 bytes; then more shared than the entry before
	 * has, a name past 15 bytes, a NUL in the tail */
	if (!version) {
		static const struct {
			const char *n7, *n8;
			size_t l7, l8;
			const char *comm8;	/* NULL: damaged */
		} names[] = {
			{ "", "\x12xy", 0, 3, "txy" },
			{ "\x02" "ab", "\x01z", 3, 2, "z" },
			{ "\x0f" "0123456789abcde", "\xf0", 16, 1, "0123456789abcde" },
			{ "\x0f" "0123456789abcde", "\x60", 16, 1, "012345" },
			{ "", "\x20", 0, 1, NULL },
			{ "\x0f" "0123456789abcde", "\xf1x", 16, 2, NULL },
			{ "", "\x02" "a\0", 0, 3, NULL },
		};

		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			memset(&h, 0, sizeof(h));
			memcpy(h.name7, names[i].n7, names[i].l7);
			h.name7_len = names[i].l7;
			memcpy(h.name8, names[i].n8, names[i].l8);
			h.name8_len = names[i].l8;
			if (!names[i].comm8) {
				assert_true(hand_damaged(dir, &h));
				continue;
			}
			assert_int_equal(hand_read(dir, &h, &g, &r), 1);
			assert_string_equal(frec_gen__thread(g, 8)->comm, names[i].comm8);
			frec_reader__free(r);
		}
	}

	/* xtype 18: id 0, no thread (N), or the running thread implied */
	memset(&h, 0, sizeof(h));
	h.version = version;
	hand_move(&h, INFO_T, 0);
	assert_int_equal(hand_read(dir, &h, &g, &r), 1);
	assert_int_equal(frec_gen__next_event(g, &ev), -EBADMSG);
	frec_reader__free(r);
	memset(&h, 0, sizeof(h));
	h.version = version;
	hand_move(&h, EXT_NOTHREAD | INFO_T, 5);
	assert_int_equal(hand_read(dir, &h, &g, &r), 1);
	assert_int_equal(frec_gen__next_event(g, &ev), -EBADMSG);
	frec_reader__free(r);
	synth_rmdir(dir);
}

static void test_reader_rules(void **state)
{
	(void)state;
	reader_rules(0);
}

/* The same rules in a version 3 file, whose tables are coded as they are,
 * and in a version 4 file, whose thread names are whole strings. */
static void test_reader_rules_v3(void **state)
{
	(void)state;
	reader_rules(FORMAT_VERSION_ZSTD);
}

static void test_reader_rules_v4(void **state)
{
	(void)state;
	reader_rules(FORMAT_VERSION_TABLES);
}

static void test_reader_rules_v5(void **state)
{
	(void)state;
	reader_rules(FORMAT_VERSION_NAMES);
}

/* A switch on cpu with thread 0 (explicit) or the CPU's running thread,
 * next coded as x, in a block of 16 or 17 CPUs (G 1 or 2, h 0). */
static void hand_switch(struct hand *h, unsigned cpu, bool explicit, uint64_t x)
{
	uint8_t *p = h->ev + h->evlen;

	*p++ = (uint8_t)(FREC_EV_SCHED_SWITCH | cpu << EV_CPU_SHIFT);
	p = put_varint(p, 0);		/* dts 0, h 0 */
	*p++ = explicit ? INFO_T : 0;	/* state 0, default prios */
	if (explicit)
		p = put_varint(p, 0);
	p = put_varint(p, x);
	h->evlen = (size_t)(p - h->ev);
	h->nev++;
}

/* A waking by thread 0 on cpu 0, of a thread coded as x, its target cpu's
 * high part th and low bits tl: the pid field is x * (G + 1) + th. */
static void hand_waking(struct hand *h, uint32_t groups, uint64_t x, unsigned th, unsigned tl)
{
	uint8_t *p = h->ev + h->evlen;

	*p++ = FREC_EV_SCHED_WAKING;
	p = put_varint(p, 0);
	*p++ = (uint8_t)(INFO_T | tl << WK_CPU_SHIFT);
	p = put_varint(p, 0);
	p = put_varint(p, x * (groups + 1) + th);
	h->evlen = (size_t)(p - h->ev);
	h->nev++;
}

/*
 * Version 6's recent threads (format.h): in a block of 16 CPUs or more a
 * switch's next and a waking's pid are the number of the CPU's slot that
 * holds the thread (index % 64), or 64 + the index; the same bytes in a
 * version 5 file are plain indices. Damaged: an empty slot, an index past
 * the table, a target CPU of C or more that is not escaped.
 */
static void recent_rules(uint32_t version)
{
	bool v6 = !version || version >= FORMAT_VERSION_RECENT;
	struct frec_reader *r;
	struct frec_gen *g;
	struct frec_event ev;
	struct hand h;
	char dir[64];

	assert_int_equal(synth_tmpdir(dir), 0);
	memset(&h, 0, sizeof(h));
	h.version = version;
	h.ncpus = 16;
	if (v6) {
		hand_switch(&h, 3, true, 64 + 1);	/* 7 -> 8: cpu 3's slot 1 */
		hand_switch(&h, 3, false, 64 + 0);	/* 8 -> 7: its slot 0 */
		hand_switch(&h, 3, false, 1);		/* 7 -> 8: slot 1 */
		hand_switch(&h, 3, false, 0);		/* 8 -> 7: slot 0 */
	} else {
		hand_switch(&h, 3, true, 1);
		hand_switch(&h, 3, false, 0);
		hand_switch(&h, 3, false, 1);
		hand_switch(&h, 3, false, 0);
	}
	hand_waking(&h, 1, 1, 0, 3);		/* 8 woken to cpu 3: slot 1 */
	hand_waking(&h, 1, 0, 0, 5);		/* cpu 5's slot 0 is empty */
	assert_int_equal(hand_read(dir, &h, &g, &r), 1);
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(frec_gen__next_event(g, &ev), 1);
		assert_int_equal(ev.type, FREC_EV_SCHED_SWITCH);
		assert_int_equal(ev.cpu, 3);
		assert_int_equal(ev.sw.prev_pid, i % 2 ? 8 : 7);
		assert_int_equal(ev.sw.next_pid, i % 2 ? 7 : 8);
	}
	assert_int_equal(frec_gen__next_event(g, &ev), 1);
	assert_int_equal(ev.type, FREC_EV_SCHED_WAKING);
	assert_int_equal(ev.wake.pid, 8);
	assert_int_equal(ev.wake.target_cpu, 3);
	assert_int_equal(frec_gen__next_event(g, &ev), v6 ? -EBADMSG : 1);
	if (!v6) {
		assert_int_equal(ev.wake.pid, 7);
		assert_int_equal(ev.wake.target_cpu, 5);
		assert_int_equal(frec_gen__next_event(g, &ev), 0);
	}
	frec_reader__free(r);

	/* a slot no thread was coded through yet: damaged in version 6 */
	memset(&h, 0, sizeof(h));
	h.version = version;
	h.ncpus = 16;
	hand_switch(&h, 3, true, 64 + 1);
	hand_switch(&h, 3, false, 0);		/* slot 1 holds 8, slot 0 nothing */
	assert_int_equal(hand_read(dir, &h, &g, &r), 1);
	assert_int_equal(frec_gen__next_event(g, &ev), v6 ? 1 : -EBADMSG);
	if (v6) {
		assert_int_equal(ev.sw.next_pid, 8);
		assert_int_equal(frec_gen__next_event(g, &ev), -EBADMSG);
	}
	frec_reader__free(r);

	if (v6) {
		/* an index past the table, through the slots */
		memset(&h, 0, sizeof(h));
		h.ncpus = 16;
		hand_switch(&h, 3, true, 64 + 2);
		assert_int_equal(hand_read(dir, &h, &g, &r), 1);
		assert_int_equal(frec_gen__next_event(g, &ev), -EBADMSG);
		frec_reader__free(r);

		/* 17 CPUs (G 2): a target of 17, high part 1, not escaped */
		memset(&h, 0, sizeof(h));
		h.ncpus = 17;
		hand_waking(&h, 2, 64 + 1, 1, 0);	/* target 16: the last CPU */
		hand_waking(&h, 2, 64 + 1, 1, 1);	/* target 17: none such */
		assert_int_equal(hand_read(dir, &h, &g, &r), 1);
		assert_int_equal(frec_gen__next_event(g, &ev), 1);
		assert_int_equal(ev.wake.target_cpu, 16);
		assert_int_equal(ev.wake.pid, 8);
		assert_int_equal(frec_gen__next_event(g, &ev), -EBADMSG);
		frec_reader__free(r);
	}
	synth_rmdir(dir);
}

static void test_recent_threads(void **state)
{
	(void)state;
	recent_rules(0);
}

static void test_recent_threads_v5(void **state)
{
	(void)state;
	recent_rules(FORMAT_VERSION_NAMES);
}

/* A k that claims far more entries than the section's bytes: damaged,
 * refused before the table grows (the unit tests run under ASan, whose
 * hook sees every allocation). */
static size_t max_alloc;

static void on_malloc_max(const volatile void *p, size_t n)
{
	(void)p;
	if (n > max_alloc)
		max_alloc = n;
}

static void test_reader_huge_k(void **state)
{
	uint8_t body[16], *p;
	struct hand h;
	char dir[64];
	bool hooked = false;

	assert_int_equal(synth_tmpdir(dir), 0);
	for (unsigned sec = SECTION_CGROUPS; sec <= SECTION_THREAD_CGROUPS; sec++) {
		memset(&h, 0, sizeof(h));
		p = put_varint(body, 1u << 28);
		*p++ = 5;
		*p++ = 0;
		*p++ = 0;
		*p++ = 0;
		*p++ = 0;
		hand_section(&h, sec, body, (size_t)(p - body));
		hand_write(dir, &h);
		if (__sanitizer_install_malloc_and_free_hooks)
			hooked = __sanitizer_install_malloc_and_free_hooks(on_malloc_max, on_free) != 0;
		max_alloc = 0;
		assert_true(hand_open_damaged(dir));
		if (hooked)
			assert_true(max_alloc < (1u << 20));
	}
	synth_rmdir(dir);
}

/* The header's cgroup fields: written after pids, read back; a body that
 * ends after pids (an older writer's) has none; the flag follows the
 * hierarchy both ways; a body cut inside the fields is damaged. */
static void test_header_fields(void **state)
{
	struct frec_header h, back;
	uint8_t body[HEADER_MAX_BYTES];
	int n, n0;

	memset(&h, 0, sizeof(h));
	h.config.npids = 1;
	h.config.pids[0] = 42;
	h.config.flags = FREC_CFG_CGROUPS | FREC_CFG_WAKEUP;	/* no hierarchy: dropped */
	n0 = header_encode(&h, body, sizeof(body));
	assert_true(n0 > 0);
	assert_int_equal(header_decode(body, (size_t)n0, &back), 0);
	assert_int_equal(back.config.flags, FREC_CFG_WAKEUP);
	/* "" (2 bytes) and ncgroups (4): an older body ends before them */
	assert_int_equal(header_decode(body, (size_t)n0 - 6, &back), 0);
	assert_string_equal(back.config.cgroup_hierarchy, "");
	assert_int_equal(back.config.ncgroups, 0);
	assert_int_equal(back.config.pids[0], 42);
	assert_int_equal(header_decode(body, (size_t)n0 - 3, &back), -EBADMSG);

	snprintf(h.config.cgroup_hierarchy, sizeof(h.config.cgroup_hierarchy), "v2");
	h.config.flags = FREC_CFG_WAKEUP;
	h.config.ncgroups = 10;
	for (int i = 0; i < 8; i++)
		snprintf(h.config.cgroups[i], sizeof(h.config.cgroups[i]), "/f%d.slice", i);
	memset(h.config.cgroups[7], 'x', sizeof(h.config.cgroups[7]) - 1);
	h.config.cgroups[7][0] = '/';
	n = header_encode(&h, body, sizeof(body));
	assert_int_equal(n, n0 + 2 + 7 * (2 + 9) + 2 + 255);
	assert_int_equal(header_decode(body, (size_t)n, &back), 0);
	assert_int_equal(back.config.flags, FREC_CFG_WAKEUP | FREC_CFG_CGROUPS);
	assert_string_equal(back.config.cgroup_hierarchy, "v2");
	assert_int_equal(back.config.ncgroups, 10);
	for (int i = 0; i < 8; i++)
		assert_string_equal(back.config.cgroups[i], h.config.cgroups[i]);
	assert_int_equal(header_decode(body, (size_t)n - 1, &back), -EBADMSG);
	/* bytes after the fields: a later writer's, ignored */
	assert_int_equal(header_decode(body, sizeof(body), &back), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sections_and_moves),
		cmocka_unit_test(test_next_generation),
		cmocka_unit_test(test_push_event),
		cmocka_unit_test(test_set_full),
		cmocka_unit_test(test_pid_reuse),
		cmocka_unit_test(test_no_alloc),
		cmocka_unit_test(test_reader_rules),
		cmocka_unit_test(test_reader_rules_v3),
		cmocka_unit_test(test_reader_rules_v4),
		cmocka_unit_test(test_reader_rules_v5),
		cmocka_unit_test(test_recent_threads),
		cmocka_unit_test(test_recent_threads_v5),
		cmocka_unit_test(test_reader_huge_k),
		cmocka_unit_test(test_header_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
