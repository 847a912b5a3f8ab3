// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The flight-recorder window: generations sealed by period, eviction by age
 * and by bytes with Go's semantics (the newest is always kept; bytes count
 * the memory the window holds beside the open generation), and pins that
 * keep evicted generations readable until the snapshot is written.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <cmocka.h>
#include "synth.h"

#define SEC 1000000000ull

/* n context switches on cpu 0 between two threads, 1 us apart, from t. */
static void push_switches(struct frec_recorder *rec, __u64 t, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		__u32 a = 100 + (i & 1), b = 101 - (i & 1);

		assert_int_equal(synth_switch(rec, t + i * 1000, 0, a, a, "a", 1, b, b, "b"), 0);
	}
}

static struct frec_recorder *new_rec(__u64 min_age, __u64 max_bytes)
{
	struct frec_recorder_opts o = {
		.sz = sizeof(o),
		.min_age_ns = min_age,
		.max_bytes = max_bytes,
		.period_ns = SEC,
		.gen_max_bytes = 1 << 20,	/* generations end by period only */
		.chunk_bytes = 4096,
		.ncpus = 2,
		.max_threads = 256,
		.max_processes = 64,
	};
	struct frec_recorder *rec = frec_recorder__new(&o);

	assert_non_null(rec);
	return rec;
}

static void test_tick_seals_by_period(void **state)
{
	struct frec_recorder *rec = new_rec(10 * SEC, 1 << 20);
	struct frec_recorder_stats st;

	assert_int_equal(frec_recorder__tick(rec, 1 * SEC), 0);	/* opens the first */
	push_switches(rec, 1 * SEC, 10);
	assert_int_equal(frec_recorder__tick(rec, 1 * SEC + SEC / 2), 0);
	assert_int_equal(frec_recorder__tick(rec, 2 * SEC), 1);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.generations_sealed, 1);
	assert_int_equal(st.window_generations, 1);
	assert_int_equal(st.window_start_ts, 1 * SEC);
	assert_int_equal(st.window_end_ts, 2 * SEC);
	assert_int_equal(st.open_events, 0);
	/* An empty period seals nothing. */
	assert_int_equal(frec_recorder__tick(rec, 3 * SEC), 0);
	assert_int_equal(frec_recorder__seal(rec, 3 * SEC), 0);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.generations_sealed, 1);
	frec_recorder__free(rec);
}

static void test_evict_by_age(void **state)
{
	struct frec_recorder *rec = new_rec(3 * SEC, 64 << 20);
	struct frec_recorder_stats st;

	frec_recorder__tick(rec, 1 * SEC);
	for (unsigned k = 1; k <= 8; k++) {
		push_switches(rec, k * SEC, 100);
		assert_int_equal(frec_recorder__tick(rec, (k + 1) * SEC), 1);
	}
	/* Sealed at 2..9 s; at 9 s the ones that ended at 9, 8 and 7 s hold
	 * events younger than 3 s; the one that ended at 6 s does not. */
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.generations_sealed, 8);
	assert_int_equal(st.window_generations, 3);
	assert_int_equal(st.window_events, 300);
	assert_int_equal(st.generations_evicted, 5);
	assert_int_equal(st.early_evictions, 0);
	assert_int_equal(st.window_start_ts, 6 * SEC);
	assert_int_equal(st.window_end_ts, 9 * SEC);
	/* Time passes without events: age alone evicts, but the newest stays. */
	assert_int_equal(frec_recorder__tick(rec, 10 * SEC + 1), 0);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.window_generations, 2);
	assert_int_equal(frec_recorder__tick(rec, 100 * SEC), 0);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.window_generations, 1);
	assert_int_equal(st.window_end_ts, 9 * SEC);
	frec_recorder__free(rec);
}

/* The bytes test counts memory: the window keeps the newest generations
 * whose chunks fit in window_mem_max, the pool less the open generation's
 * room. */
static void test_evict_by_bytes(void **state)
{
	/* 32 chunks; gen_max clamped to a quarter of them. */
	struct frec_recorder *rec = new_rec(1000 * SEC, 128 << 10);
	struct frec_recorder_stats st;
	__u32 per, keep;

	frec_recorder__tick(rec, 1 * SEC);
	push_switches(rec, 1 * SEC, 2000);
	assert_int_equal(frec_recorder__seal(rec, 2 * SEC), 1);
	frec_recorder__stats(rec, &st);
	per = st.chunks_in_use;		/* chunks of one such generation */
	assert_true(per >= 2);
	keep = (__u32)(st.window_mem_max / 4096 / per);
	assert_true(keep >= 2 && keep < 10);
	for (unsigned k = 2; k <= 10; k++) {
		push_switches(rec, k * SEC, 2000);
		assert_int_equal(frec_recorder__seal(rec, (k + 1) * SEC), 1);
		frec_recorder__stats(rec, &st);
		assert_int_equal(st.window_generations, k < keep ? k : keep);
		assert_int_equal(st.window_events, 2000ull * st.window_generations);
		assert_int_equal(st.chunks_in_use, per * st.window_generations);
		assert_true(st.mem_bytes <= st.window_mem_max);
		assert_true(st.window_bytes <= st.window_mem_max);
	}
	assert_int_equal(st.generations_evicted, 10 - keep);
	assert_int_equal(st.early_evictions, 0);
	assert_int_equal(st.window_start_ts, (10 - keep + 1) * SEC);
	frec_recorder__free(rec);
}

/* A generation never outgrows the open generation's room: gen_max is at
 * most an eighth of the pool (here 8 KiB of 64), checked at each new chunk,
 * so a generation is sealed early within a chunk of it; the window always
 * holds the newest and more, and nothing is lost. */
static void test_generation_fits(void **state)
{
	struct frec_recorder *rec = new_rec(1000 * SEC, 64 << 10);
	struct frec_recorder_stats st;

	frec_recorder__tick(rec, 1 * SEC);
	push_switches(rec, 1 * SEC, 20000);	/* about 100 KiB in one period */
	frec_recorder__stats(rec, &st);
	assert_true(st.generations_sealed >= 6);
	assert_true(st.open_bytes < (8 << 10) + 4096);
	assert_int_equal(frec_recorder__seal(rec, 2 * SEC), 1);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.events, 20000);
	assert_int_equal(st.events_discarded, 0);
	assert_int_equal(st.early_evictions, 0);
	assert_int_equal(st.pool_misses, 0);
	assert_true(st.window_generations >= 3);
	assert_true(st.mem_bytes <= st.window_mem_max);
	frec_recorder__free(rec);
}

/* A pinned generation survives eviction until unpinned, and what the pin
 * holds can still be written. */
static void test_pin_protects(void **state)
{
	struct frec_recorder *rec = new_rec(2 * SEC, 1 << 20);
	struct frec_recorder_stats st, before;
	struct frec_header hdr;
	struct frec_reader *r;
	struct frec_gen *g;
	struct frec_pin *pin;
	char dir[64], path[128];
	unsigned gens = 0;
	__u64 events = 0;
	int dfd;

	assert_int_equal(synth_tmpdir(dir), 0);
	frec_recorder__tick(rec, 1 * SEC);
	for (unsigned k = 1; k <= 2; k++) {
		push_switches(rec, k * SEC, 500);
		frec_recorder__tick(rec, (k + 1) * SEC);
	}
	pin = frec_recorder__pin(rec);
	assert_non_null(pin);
	assert_int_equal(frec_pin__events(pin), 1000);
	assert_int_equal(frec_pin__lost(pin), 0);
	frec_recorder__stats(rec, &before);
	assert_int_equal(frec_pin__bytes(pin), before.window_bytes);

	/* Age everything out; the pinned chunks stay in use. */
	for (unsigned k = 3; k <= 6; k++) {
		push_switches(rec, k * SEC, 500);
		frec_recorder__tick(rec, (k + 1) * SEC);
	}
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.generations_evicted, 4);
	assert_int_equal(st.window_generations, 2);
	assert_int_equal(st.window_start_ts, 5 * SEC);

	frec_header__init(&hdr);
	snprintf(hdr.reason, sizeof(hdr.reason), "synth");
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_int_equal(frec_snapshot__write(dfd, "pinned.frec", &hdr, pin), 0);
	close(dfd);
	frec_recorder__stats(rec, &before);
	frec_recorder__unpin(rec, pin);
	frec_recorder__stats(rec, &st);
	/* The two pinned generations' chunks came back. */
	assert_true(st.chunks_in_use < before.chunks_in_use);

	snprintf(path, sizeof(path), "%s/pinned.frec", dir);
	assert_int_equal(frec_reader__open(path, &r), 0);
	while (frec_reader__next_gen(r, &g) == 1) {
		gens++;
		events += frec_gen__info(g)->nevents;
		assert_int_equal(frec_gen__info(g)->start_ts, gens * SEC);
	}
	assert_int_equal(gens, 2);
	assert_int_equal(events, 1000);
	frec_reader__free(r);
	frec_recorder__free(rec);
	synth_rmdir(dir);
}

static void test_stats_counts(void **state)
{
	struct frec_recorder *rec = new_rec(10 * SEC, 1 << 20);
	struct frec_recorder_stats st;
	char junk[8] = { 0 };

	push_switches(rec, SEC, 5);
	synth_wake(rec, FREC_EV_SCHED_WAKING, SEC + 10000, 1, 100, 100, 101, 101, "b", 0);
	assert_int_equal(frec_recorder__add_lost(rec, 1, 7, SEC + 20000), 0);
	assert_int_equal(frec_recorder__push(rec, junk, sizeof(junk)), -EINVAL);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.events, 7);
	assert_int_equal(st.events_by_type[FREC_EV_SCHED_SWITCH], 5);
	assert_int_equal(st.events_by_type[FREC_EV_SCHED_WAKING], 1);
	assert_int_equal(st.events_by_type[FREC_EV_LOST], 1);
	assert_int_equal(st.lost, 7);
	assert_int_equal(st.malformed, 1);
	assert_int_equal(st.open_events, 7);
	assert_true(st.open_bytes > 0);
	assert_int_equal(st.window_generations, 0);
	assert_int_equal(st.window_start_ts, 0);
	frec_recorder__free(rec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tick_seals_by_period),
		cmocka_unit_test(test_evict_by_age),
		cmocka_unit_test(test_evict_by_bytes),
		cmocka_unit_test(test_generation_fits),
		cmocka_unit_test(test_pin_protects),
		cmocka_unit_test(test_stats_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
