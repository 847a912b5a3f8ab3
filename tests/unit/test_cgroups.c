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
#include "synth.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sections_and_moves),
		cmocka_unit_test(test_next_generation),
		cmocka_unit_test(test_push_event),
		cmocka_unit_test(test_set_full),
		cmocka_unit_test(test_no_alloc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
