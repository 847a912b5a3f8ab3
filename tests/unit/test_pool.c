// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The chunk pool: its ceiling follows from the options, it never grows,
 * a dry pool evicts the oldest sealed generation early (counted), and a
 * pinned generation is never freed under a snapshot: then the events that
 * found no room are discarded and counted instead.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <cmocka.h>
#include "synth.h"

#define MS 1000000ull
#define SEC 1000000000ull

/* 64 KiB window, 4 KiB chunks, default gen_max (max_bytes / 8 = 8 KiB),
 * min_age 10 s, period 1 s. */
static struct frec_recorder *small_rec_level(unsigned level)
{
	struct frec_recorder_opts o = {
		.sz = sizeof(o),
		.compress_level = level,
		.max_bytes = 64 << 10,
		.chunk_bytes = 4096,
		.ncpus = 2,
		.max_threads = 256,
		.max_processes = 64,
	};
	struct frec_recorder *rec = frec_recorder__new(&o);

	assert_non_null(rec);
	return rec;
}

static struct frec_recorder *small_rec(void)
{
	return small_rec_level(0);
}

/* A tiny generation: three switches at t, sealed at t + 1 ms. Its block is
 * far smaller than a chunk, but takes a whole one. */
static int tiny_gen(struct frec_recorder *rec, __u64 t)
{
	synth_switch(rec, t, 0, 0, 0, "swapper/0", 0, 10, 10, "a");
	synth_switch(rec, t + 1000, 0, 10, 10, "a", 1, 11, 11, "b");
	synth_switch(rec, t + 2000, 0, 11, 11, "b", 1, 0, 0, "swapper/0");
	return frec_recorder__seal(rec, t + MS);
}

static void test_ceiling(void **state)
{
	struct frec_recorder *rec = small_rec();
	struct frec_recorder_stats st;

	frec_recorder__stats(rec, &st);
	/* 16 for the window, 2 x (2 + 1) for the open generation and the
	 * block being sealed, 10 s / 1 s + 2 for last-chunk tails. */
	assert_int_equal(st.chunks_total, 34);
	assert_int_equal(st.pool_bytes, 34 * 4096);
	assert_int_equal(st.chunks_in_use, 0);
	frec_recorder__free(rec);
}

static void test_early_eviction(void **state)
{
	struct frec_recorder *rec = small_rec();
	struct frec_recorder_stats st;

	for (unsigned k = 0; k < 200; k++) {
		assert_int_equal(tiny_gen(rec, SEC + k * 2 * MS), 1);
		frec_recorder__stats(rec, &st);
		assert_true(st.chunks_in_use <= st.chunks_total);
	}
	frec_recorder__stats(rec, &st);
	/* Age and bytes would keep all 200; the pool holds 34 chunks, and a
	 * stored block is its generation's one chunk: the first event of
	 * each new generation evicts the oldest. */
	assert_int_equal(st.generations_sealed, 200);
	assert_int_equal(st.window_generations, 34);
	assert_int_equal(st.generations_evicted, 166);
	assert_int_equal(st.early_evictions, 166);
	assert_int_equal(st.events_discarded, 0);
	assert_int_equal(st.chunks_in_use, 34);
	assert_int_equal(st.pool_misses, 166);
	assert_true(st.window_bytes < 64 << 10);
	frec_recorder__free(rec);
}

/* Deflated blocks are written to fresh chunks while the raw stream still
 * holds one: one generation fewer fits. */
static void test_early_eviction_deflate(void **state)
{
	struct frec_recorder *rec = small_rec_level(1);
	struct frec_recorder_stats st;

	for (unsigned k = 0; k < 200; k++)
		assert_int_equal(tiny_gen(rec, SEC + k * 2 * MS), 1);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.window_generations, 33);
	assert_int_equal(st.generations_evicted, 167);
	assert_int_equal(st.early_evictions, 167);
	assert_int_equal(st.events_discarded, 0);
	assert_int_equal(st.chunks_in_use, 33);
	frec_recorder__free(rec);
}

static void test_pinned_not_freed(void **state)
{
	struct frec_recorder *rec = small_rec();
	struct frec_recorder_stats st;
	struct frec_pin *pin;
	unsigned k;

	for (k = 0; k < 34; k++)
		assert_int_equal(tiny_gen(rec, SEC + k * 2 * MS), 1);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.window_generations, 34);
	assert_int_equal(st.chunks_in_use, 34);
	assert_int_equal(st.early_evictions, 0);
	pin = frec_recorder__pin(rec);
	assert_non_null(pin);

	/* No free chunk, and the only candidates are pinned: the events are
	 * discarded, so there is nothing to seal. */
	assert_int_equal(synth_switch(rec, 2 * SEC, 0, 10, 10, "a", 1, 11, 11, "b"), -ENOSPC);
	assert_int_equal(tiny_gen(rec, SEC + k++ * 2 * MS), 0);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.events_discarded, 4);
	assert_int_equal(st.pool_misses, 4);
	assert_int_equal(st.window_generations, 34);
	assert_int_equal(st.early_evictions, 0);
	assert_int_equal(st.chunks_in_use, 34);
	assert_int_equal(frec_pin__events(pin), 34 * 3);

	/* Unpinned, the oldest can go early again. */
	frec_recorder__unpin(rec, pin);
	assert_int_equal(tiny_gen(rec, SEC + k++ * 2 * MS), 1);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.early_evictions, 1);
	assert_int_equal(st.window_generations, 34);
	assert_int_equal(st.events_discarded, 4);
	frec_recorder__free(rec);
}

/* Events that find no chunk at all are discarded, counted, and -ENOSPC. */
static void test_discard_counted(void **state)
{
	struct frec_recorder *rec = small_rec();
	struct frec_recorder_stats st;
	struct frec_pin *pin;
	unsigned ok = 0, nospc = 0, i;

	for (i = 0; i < 33; i++)
		assert_int_equal(tiny_gen(rec, SEC + i * 2 * MS), 1);
	pin = frec_recorder__pin(rec);
	/* The one free chunk fills up, then every push fails. */
	for (i = 0; i < 5000; i++) {
		int rc = synth_switch(rec, 2 * SEC + i * 1000ull, 0, 20 + i % 50, 1, "x", 1,
				      20 + (i + 1) % 50, 1, "y");

		if (!rc) {
			assert_int_equal(nospc, 0);	/* no success after a failure */
			ok++;
		} else {
			assert_int_equal(rc, -ENOSPC);
			nospc++;
		}
	}
	frec_recorder__stats(rec, &st);
	assert_true(ok > 100 && nospc > 100);
	assert_int_equal(st.events, 33 * 3 + ok);
	assert_int_equal(st.events_discarded, nospc);
	assert_int_equal(st.open_events, ok);
	assert_int_equal(st.chunks_in_use, st.chunks_total);
	assert_int_equal(st.early_evictions, 0);
	frec_recorder__unpin(rec, pin);
	frec_recorder__free(rec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ceiling),
		cmocka_unit_test(test_early_eviction),
		cmocka_unit_test(test_early_eviction_deflate),
		cmocka_unit_test(test_pinned_not_freed),
		cmocka_unit_test(test_discard_counted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
