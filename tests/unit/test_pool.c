// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The chunk pool: all the memory the recorder has for events. Its ceiling
 * is max_bytes rounded down to whole chunks, whatever the generation size;
 * it never grows; the window leaves a largest open generation its room, so
 * recording goes on while a snapshot pins the window, and what the snapshot
 * has written is reused at once; a pool that still runs dry evicts the
 * oldest sealed generation early (counted); a pinned generation is never
 * freed before its snapshot has written it: then the events that found no
 * room are discarded and counted instead.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <cmocka.h>
#include "synth.h"

#define MS 1000000ull
#define SEC 1000000000ull

/* 64 KiB of memory in 4 KiB chunks, gen_max 4 KiB, min_age 10 s, period
 * 1 s. */
static struct frec_recorder *small_rec(void)
{
	struct frec_recorder_opts o = {
		.sz = sizeof(o),
		.max_bytes = 64 << 10,
		.gen_max_bytes = 4096,
		.chunk_bytes = 4096,
		.ncpus = 2,
		.max_threads = 256,
		.max_processes = 64,
	};
	struct frec_recorder *rec = frec_recorder__new(&o);

	assert_non_null(rec);
	return rec;
}

/* The small recorder's split: 16 chunks, 4 of them the open generation's
 * room, 12 for the window. */
#define SMALL_CHUNKS	16
#define SMALL_WINDOW	12

/* A tiny generation: three switches at t, sealed at t + 1 ms. Its block is
 * far smaller than a chunk, but takes a whole one. */
static int tiny_gen(struct frec_recorder *rec, __u64 t)
{
	synth_switch(rec, t, 0, 0, 0, "swapper/0", 0, 10, 10, "a");
	synth_switch(rec, t + 1000, 0, 10, 10, "a", 1, 11, 11, "b");
	synth_switch(rec, t + 2000, 0, 11, 11, "b", 1, 0, 0, "swapper/0");
	return frec_recorder__seal(rec, t + MS);
}

/* A full window of tiny generations, pinned as a snapshot would. */
static struct frec_pin *pin_full_window(struct frec_recorder *rec)
{
	for (unsigned i = 0; i < SMALL_WINDOW; i++)
		assert_int_equal(tiny_gen(rec, SEC + i * 2 * MS), 1);
	return frec_recorder__pin(rec);
}

static void test_ceiling(void **state)
{
	struct frec_recorder *rec = small_rec();
	struct frec_recorder_stats st;
	__u64 tables;

	frec_recorder__stats(rec, &st);
	/* max_bytes exactly. The open generation's room: 4 KiB of events
	 * plus the block header, in chunks of which each may leave 97 bytes
	 * (a largest event) unused: 2; its tables (max_bytes / 16): 1; one
	 * spare (recorder.c, open_gen_chunks()): 1. */
	assert_int_equal(st.chunks_total, SMALL_CHUNKS);
	assert_int_equal(st.pool_bytes, 64 << 10);
	assert_int_equal(st.window_mem_max, SMALL_WINDOW * 4096);
	assert_int_equal(st.chunks_in_use, 0);
	assert_int_equal(st.mem_bytes, 0);
	/* The tables come on top; cmdlines count as they are stored. */
	tables = st.tables_bytes;
	assert_true(tables > 0);
	assert_int_equal(frec_recorder__set_cmdline(rec, 7, "abc"), 0);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.tables_bytes, tables + 4);
	frec_recorder__free(rec);
}

static __u64 pool_chunk(struct frec_recorder *rec, __u32 *nchunks)
{
	struct frec_recorder_stats st;

	frec_recorder__stats(rec, &st);
	*nchunks = st.chunks_total;
	return st.pool_bytes / st.chunks_total;
}

/* Without chunk_bytes, chunks shrink until max_bytes holds 64 of them; the
 * window gets what the open generation's room leaves. */
static void test_default_chunk(void **state)
{
	/* room: the open generation's chunks with the default gen_max
	 * (max_bytes / 32): its events, its tables, one spare. */
	static const struct {
		__u64 max_bytes;
		__u32 chunk, nchunks, room;
	} cases[] = {
		{ 64ull << 20, 64 << 10, 1024, 33 + 2 + 1 },
		{ 4ull << 20, 64 << 10, 64, 3 + 2 + 1 },
		{ (4ull << 20) - 1, 32 << 10, 127, 5 + 4 + 1 },
		{ 1ull << 20, 16 << 10, 64, 3 + 4 + 1 },
		{ 64 << 10, 1024, 64, 3 + 4 + 1 },
		{ 100000, 1024, 97, 4 + 7 + 1 },
		{ 16 << 10, 1024, 16, 2 + 1 + 1 },	/* gen_max at least 1 KiB */
	};
	struct frec_recorder_stats st;
	struct frec_recorder_opts o = { .sz = sizeof(o), .ncpus = 2, .max_threads = 64,
					.max_processes = 16 };
	struct frec_recorder *rec;
	__u32 n;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		o.max_bytes = cases[i].max_bytes;
		rec = frec_recorder__new(&o);
		assert_non_null(rec);
		assert_int_equal(pool_chunk(rec, &n), cases[i].chunk);
		assert_int_equal(n, cases[i].nchunks);
		frec_recorder__stats(rec, &st);
		assert_int_equal(st.window_mem_max,
				 (__u64)(cases[i].nchunks - cases[i].room) * cases[i].chunk);
		frec_recorder__free(rec);
	}
	/* Fewer than 16 chunks cannot hold a window beside the open
	 * generation. */
	o.max_bytes = (16 << 10) - 1;
	assert_null(frec_recorder__new(&o));
	assert_int_equal(errno, EINVAL);
	o.max_bytes = 60 << 10;
	o.chunk_bytes = 4096;
	assert_null(frec_recorder__new(&o));
	assert_int_equal(errno, EINVAL);
}

/*
 * The bound itself, whatever the generation size and chunk size: the pool is at most max_bytes; a random stream recorded with
 * ticks never finds it dry (no miss, no early eviction, nothing discarded);
 * after every seal the window holds at most window_mem_max; a snapshot
 * holds at most max_bytes.
 */
static void test_bound(void **state)
{
	static const struct {
		__u64 max_bytes, gen_max;
		__u32 chunk;
	} cases[] = {
		{ 64 << 10, 0, 0 },
		{ 64 << 10, 1ull << 30, 4096 },	/* clamped to max_bytes / 4 */
		{ 64 << 10, 64 << 10, 1024 },
		{ 1 << 20, 1 << 20, 4096 },
		{ 1 << 20, 0, 0 },
		{ (3 << 20) + 5, 1ull << 30, 0 },
		{ 256 << 10, 2048, 1024 },	/* many small generations */
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct frec_recorder_opts o = {
			.sz = sizeof(o),
			.min_age_ns = 3600 * SEC,	/* bytes alone bound the window */
			.max_bytes = cases[c].max_bytes,
			.gen_max_bytes = cases[c].gen_max,
			.period_ns = 50 * MS,
			.chunk_bytes = cases[c].chunk,
			.ncpus = 4,
			.max_threads = 256,
			.max_processes = 64,
		};
		struct synth_rand s = { .x = 1234 + c, .ts = SEC, .ncpus = 4 };
		struct frec_recorder *rec = frec_recorder__new(&o);
		struct frec_recorder_stats st;
		struct frec_event ev;
		struct frec_pin *pin;
		__u64 most = 0, pushed = 0;

		assert_non_null(rec);
		synth_rand_threads(rec);
		frec_recorder__stats(rec, &st);
		assert_true(st.pool_bytes <= o.max_bytes);
		assert_true(st.pool_bytes > o.max_bytes - st.pool_bytes / st.chunks_total);
		assert_true(st.window_mem_max < st.pool_bytes);
		for (unsigned i = 0; i < 200000; i++) {
			synth_rand_event(&s, &ev);
			assert_int_equal(frec_recorder__push_event(rec, &ev), 0);
			pushed++;
			if (frec_recorder__tick(rec, s.ts) == 1) {
				frec_recorder__stats(rec, &st);
				assert_true(st.mem_bytes <= st.window_mem_max);
			}
			{	/* after every event: the peak is brief */
				frec_recorder__stats(rec, &st);
				if (st.mem_bytes > most)
					most = st.mem_bytes;
			}
		}
		frec_recorder__seal(rec, s.ts);
		frec_recorder__stats(rec, &st);
		assert_true(st.generations_evicted > 0);	/* the window filled */
		assert_int_equal(st.pool_misses, 0);
		assert_int_equal(st.early_evictions, 0);
		assert_int_equal(st.events_discarded, 0);
		assert_int_equal(st.events, pushed);
		assert_true(st.mem_bytes <= st.window_mem_max);
		assert_true(most <= st.pool_bytes);
		/* More than the window alone may hold: the open generation
		 * used its room. */
		assert_true(most > st.window_mem_max);
		pin = frec_recorder__pin(rec);
		assert_non_null(pin);
		assert_true(frec_pin__bytes(pin) <= o.max_bytes);
		assert_int_equal(frec_pin__events(pin), st.window_events);
		frec_recorder__unpin(rec, pin);
		frec_recorder__free(rec);
	}
}

/* Each tiny generation holds a whole chunk: the window counts memory, not
 * block bytes, so it keeps as many as its chunks allow, on time. */
static void test_tiny_generations(void **state)
{
	struct frec_recorder *rec = small_rec();
	struct frec_recorder_stats st;

	for (unsigned k = 0; k < 200; k++) {
		assert_int_equal(tiny_gen(rec, SEC + k * 2 * MS), 1);
		frec_recorder__stats(rec, &st);
		assert_true(st.chunks_in_use <= SMALL_WINDOW);
	}
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.generations_sealed, 200);
	assert_int_equal(st.window_generations, SMALL_WINDOW);
	assert_int_equal(st.window_events, SMALL_WINDOW * 3);
	assert_int_equal(st.generations_evicted, 200 - SMALL_WINDOW);
	assert_int_equal(st.early_evictions, 0);
	assert_int_equal(st.pool_misses, 0);
	assert_int_equal(st.events_discarded, 0);
	assert_int_equal(st.chunks_in_use, SMALL_WINDOW);
	assert_int_equal(st.mem_bytes, SMALL_WINDOW * 4096);
	assert_true(st.window_bytes < SMALL_WINDOW * 4096);
	frec_recorder__free(rec);
}

/* While a snapshot pins a full window, recording uses the open
 * generation's room, and no more: then events are discarded, counted. */
static void test_pinned_not_freed(void **state)
{
	struct frec_recorder *rec = small_rec();
	struct frec_recorder_stats st;
	struct frec_pin *pin;
	unsigned k;

	for (k = 0; k < SMALL_WINDOW; k++)
		assert_int_equal(tiny_gen(rec, SEC + k * 2 * MS), 1);
	pin = frec_recorder__pin(rec);
	assert_non_null(pin);
	assert_int_equal(frec_pin__events(pin), SMALL_WINDOW * 3);

	/* Each new generation pushes a pinned one out of the window; its
	 * chunk stays in use until the snapshot is done. */
	for (unsigned i = 0; i < SMALL_CHUNKS - SMALL_WINDOW; i++)
		assert_int_equal(tiny_gen(rec, SEC + k++ * 2 * MS), 1);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.chunks_in_use, SMALL_CHUNKS);
	assert_int_equal(st.window_generations, SMALL_WINDOW);
	assert_int_equal(st.generations_evicted, SMALL_CHUNKS - SMALL_WINDOW);
	assert_int_equal(st.pool_misses, 0);

	/* No free chunk, and the oldest left in the window is pinned: the
	 * events are discarded, so there is nothing to seal. */
	assert_int_equal(synth_switch(rec, 2 * SEC, 0, 10, 10, "a", 1, 11, 11, "b"), -ENOSPC);
	assert_int_equal(tiny_gen(rec, SEC + k++ * 2 * MS), 0);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.events_discarded, 4);
	assert_int_equal(st.pool_misses, 4);
	assert_int_equal(st.window_generations, SMALL_WINDOW);
	assert_int_equal(st.early_evictions, 0);
	assert_int_equal(st.chunks_in_use, SMALL_CHUNKS);
	assert_int_equal(st.mem_bytes, 64 << 10);

	/* Unpinned, the chunks pushed out come back, and the window is
	 * evicted on time again. */
	frec_recorder__unpin(rec, pin);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.chunks_in_use, SMALL_WINDOW);
	assert_int_equal(tiny_gen(rec, SEC + k++ * 2 * MS), 1);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.early_evictions, 0);
	assert_int_equal(st.window_generations, SMALL_WINDOW);
	assert_int_equal(st.chunks_in_use, SMALL_WINDOW);
	assert_int_equal(st.events_discarded, 4);
	frec_recorder__free(rec);
}

/* What a snapshot has written is the recorder's again, pin or not: once
 * frec_snapshot__write() has handed a generation to the kernel, its chunks
 * are reused as soon as the window lets it go, so recording goes on past
 * the room while the snapshot is still being finished. */
static void test_written_reused(void **state)
{
	struct frec_recorder *rec = small_rec();
	struct frec_recorder_stats st;
	struct frec_header hdr;
	struct frec_reader *rd;
	struct frec_gen *g;
	struct frec_pin *pin;
	char dir[64], path[128];
	__u64 events = 0;
	unsigned k, gens = 0;
	int dfd;

	assert_int_equal(synth_tmpdir(dir), 0);
	for (k = 0; k < SMALL_WINDOW; k++)
		assert_int_equal(tiny_gen(rec, SEC + k * 2 * MS), 1);
	pin = frec_recorder__pin(rec);
	assert_non_null(pin);
	frec_header__init(&hdr);
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_int_equal(frec_snapshot__write(dfd, "w.frec", &hdr, pin), 0);
	close(dfd);

	/* Three times the room, the pin still held. */
	for (unsigned i = 0; i < 3 * (SMALL_CHUNKS - SMALL_WINDOW); i++)
		assert_int_equal(tiny_gen(rec, SEC + k++ * 2 * MS), 1);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.events_discarded, 0);
	assert_int_equal(st.pool_misses, 0);
	assert_int_equal(st.early_evictions, 0);
	assert_int_equal(st.window_generations, SMALL_WINDOW);
	assert_int_equal(st.chunks_in_use, SMALL_WINDOW);
	frec_recorder__unpin(rec, pin);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.chunks_in_use, SMALL_WINDOW);

	/* The file holds the pinned window, whole. */
	snprintf(path, sizeof(path), "%s/w.frec", dir);
	assert_int_equal(frec_reader__open(path, &rd), 0);
	while (frec_reader__next_gen(rd, &g) == 1) {
		assert_int_equal(frec_gen__info(g)->start_ts, SEC + gens++ * 2 * MS);
		events += frec_gen__info(g)->nevents;
	}
	assert_int_equal(gens, SMALL_WINDOW);
	assert_int_equal(events, SMALL_WINDOW * 3);
	frec_reader__free(rd);
	frec_recorder__free(rec);
	synth_rmdir(dir);
}

/* Tables larger than the room (long cmdlines) take chunks from the oldest
 * generations, early; the window then leaves that much room for the next
 * seal, until seals with small tables give it back. */
static void test_early_eviction(void **state)
{
	struct frec_recorder *rec = small_rec();
	struct frec_recorder_stats st;
	char cmdline[4000];
	unsigned k;

	memset(cmdline, 'x', sizeof(cmdline) - 1);
	cmdline[sizeof(cmdline) - 1] = '\0';
	for (k = 0; k < SMALL_WINDOW; k++)
		assert_int_equal(tiny_gen(rec, SEC + k * 2 * MS), 1);
	/* Five processes, about 20 KiB of tables. */
	for (unsigned p = 0; p < 5; p++) {
		assert_int_equal(frec_recorder__set_cmdline(rec, 100 + p, cmdline), 0);
		assert_int_equal(synth_switch(rec, 2 * SEC + p * 1000, 0, 0, 0, "swapper/0", 0,
					      100 + p, 100 + p, "p"), 0);
	}
	assert_int_equal(frec_recorder__seal(rec, 2 * SEC + MS), 1);
	frec_recorder__stats(rec, &st);
	/* The tables fill the raw chunk's free end and four more chunks:
	 * a block of five, one more than the room. */
	assert_int_equal(st.pool_misses, 1);
	assert_int_equal(st.early_evictions, 1);
	assert_int_equal(st.events_discarded, 0);
	/* The window then leaves the next seal as much room as these tables
	 * took (four chunks, three past the one planned): the new block's 5
	 * chunks and the 4 newest tiny ones. */
	assert_int_equal(st.window_generations, 5);
	assert_int_equal(st.generations_evicted, SMALL_WINDOW + 1 - 5);
	assert_int_equal(st.chunks_in_use, SMALL_WINDOW - 3);
	assert_int_equal(st.window_mem_max, (SMALL_WINDOW - 3) * 4096);
	/* Seals with small tables give the room back: three tiny generations
	 * later the window holds SMALL_WINDOW chunks again, none evicted. */
	for (k = 0; k < 3; k++)
		assert_int_equal(tiny_gen(rec, 3 * SEC + k * 2 * MS), 1);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.window_generations, 8);
	assert_int_equal(st.generations_evicted, SMALL_WINDOW + 1 - 5);
	assert_int_equal(st.chunks_in_use, SMALL_WINDOW);
	assert_int_equal(st.window_mem_max, SMALL_WINDOW * 4096);
	assert_int_equal(st.pool_misses, 1);
	frec_recorder__free(rec);
}

/* Events that find no chunk at all are discarded, counted, and -ENOSPC. */
static void test_discard_counted(void **state)
{
	struct frec_recorder *rec = small_rec();
	struct frec_recorder_stats st;
	struct frec_pin *pin;
	unsigned ok = 0, nospc = 0, i;

	pin = pin_full_window(rec);
	/* The open generation's room fills up, then every push fails. */
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
	/* One generation reached gen_max and was sealed in the room (its
	 * block pushed pinned ones out of the window, freeing nothing); the
	 * next one filled the rest. */
	assert_int_equal(st.generations_sealed, SMALL_WINDOW + 1);
	assert_int_equal(st.events, SMALL_WINDOW * 3 + ok);
	assert_int_equal(st.events_discarded, nospc);
	assert_int_equal(st.chunks_in_use, st.chunks_total);
	assert_int_equal(st.early_evictions, 0);
	frec_recorder__unpin(rec, pin);
	frec_recorder__free(rec);
}

/* Records lost in dir/name by its generations' per-CPU drops. */
static __u64 snapshot_drops(const char *dir, const char *name)
{
	struct frec_reader *rd;
	struct frec_gen *g;
	char path[128];
	__u64 n = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(frec_reader__open(path, &rd), 0);
	while (frec_reader__next_gen(rd, &g) == 1)
		for (__u32 c = 0; c < frec_gen__info(g)->ncpus; c++)
			n += frec_gen__info(g)->drops[c];
	frec_reader__free(rd);
	return n;
}

/* The lost events' counts in dir/name by CPU (0 or 1), each at ts unless
 * ts is 0. */
static void snapshot_lost(const char *dir, const char *name, __u64 ts, __u64 lost[2])
{
	struct frec_reader *rd;
	struct frec_event ev;
	struct frec_gen *g;
	char path[128];

	lost[0] = lost[1] = 0;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(frec_reader__open(path, &rd), 0);
	while (frec_reader__next_gen(rd, &g) == 1) {
		while (frec_gen__next_event(g, &ev) == 1) {
			if (ev.type != FREC_EV_LOST)
				continue;
			assert_true(ev.cpu < 2);
			if (ts)
				assert_int_equal(ev.ts, ts);
			lost[ev.cpu] += ev.lost.count;
		}
	}
	frec_reader__free(rd);
}

/* Lost events in a snapshot for every discarded event and every kernel
 * drop that found no room: per CPU, right after the first event that found
 * room again, with the span of the discards and stamped at its start; a
 * CPU where a drop of unknown time was owed too has no span and is stamped
 * at that event's time. */
static void test_discards_in_snapshot(void **state)
{
	struct frec_recorder *rec = small_rec();
	struct frec_recorder_stats st;
	struct frec_event ev;
	struct frec_reader *rd;
	struct frec_gen *g;
	struct frec_pin *pin;
	__u64 lost_cpu[2] = { 0, 0 }, room_ts = 0, n = 0, prev_ts = 0, first0 = 0, last0 = 0;
	unsigned nospc[2] = { 0, 0 }, i;
	char dir[64], path[128];
	bool after_room = false;

	assert_int_equal(synth_tmpdir(dir), 0);
	pin = pin_full_window(rec);
	/* Fill the room, then fail on both CPUs; the kernel's drops that
	 * come meanwhile find no room either. */
	for (i = 0; i < 5000; i++) {
		__u32 cpu = i % 3 == 0;
		int rc = synth_switch(rec, 2 * SEC + i * 1000ull, cpu, 20 + i % 50, 1, "x", 1,
				      20 + (i + 1) % 50, 1, "y");

		if (rc)
			nospc[cpu]++;
		if (rc && !cpu) {
			if (!first0)
				first0 = 2 * SEC + i * 1000ull;
			last0 = 2 * SEC + i * 1000ull;
		}
	}
	assert_true(nospc[0] > 100 && nospc[1] > 100);
	assert_int_equal(frec_recorder__add_lost(rec, 1, 1000, 2 * SEC + 5000 * 1000ull),
			 -ENOSPC);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.events_discarded, nospc[0] + nospc[1]);
	assert_int_equal(st.lost, 1000);

	/* Room again: the first event is stored, and then what was owed. */
	frec_recorder__unpin(rec, pin);
	room_ts = 3 * SEC;
	assert_int_equal(synth_switch(rec, room_ts, 1, 0, 0, "swapper/1", 0, 10, 10, "a"), 0);
	assert_int_equal(synth_write(rec, dir, "d.frec", 3 * SEC + MS), 0);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.events_discarded, nospc[0] + nospc[1]);
	assert_int_equal(st.lost, 1000);	/* the kernel's, not frecd's discards */

	snprintf(path, sizeof(path), "%s/d.frec", dir);
	assert_int_equal(frec_reader__open(path, &rd), 0);
	while (frec_reader__next_gen(rd, &g) == 1) {
		while (frec_gen__next_event(g, &ev) == 1) {
			n++;
			if (ev.type != FREC_EV_LOST) {
				after_room = ev.ts == room_ts;
				prev_ts = ev.ts;
				continue;
			}
			/* Right after the event that found room. */
			assert_true(after_room);
			assert_int_equal(prev_ts, room_ts);
			assert_true(ev.cpu < 2);
			if (ev.cpu == 0) {
				/* Where the discards were: the generation
				 * began before them. */
				assert_int_equal(ev.lost.flags, FREC_LOST_SPAN);
				assert_int_equal(ev.lost.first_ts, first0);
				assert_int_equal(ev.lost.last_ts, last0);
				assert_int_equal(ev.ts, first0);
			} else {
				/* The kernel's 1000 came with no time. */
				assert_int_equal(ev.lost.flags, 0);
				assert_int_equal(ev.ts, room_ts);
			}
			lost_cpu[ev.cpu] += ev.lost.count;
		}
	}
	assert_int_equal(lost_cpu[0], nospc[0]);
	assert_int_equal(lost_cpu[1], nospc[1] + 1000);
	assert_true(n > 0);
	frec_reader__free(rd);
	assert_int_equal(snapshot_drops(dir, "d.frec"), nospc[0] + nospc[1] + 1000);

	/* Paid once: the next generation owes nothing. */
	assert_int_equal(synth_switch(rec, 4 * SEC, 1, 10, 10, "a", 1, 11, 11, "b"), 0);
	assert_int_equal(synth_write(rec, dir, "e.frec", 4 * SEC + MS), 0);
	/* the same generation */
	assert_int_equal(snapshot_drops(dir, "e.frec"), nospc[0] + nospc[1] + 1000);
	frec_recorder__free(rec);
	synth_rmdir(dir);
}

/* With no event after them, what was discarded is written at the next seal
 * that finds room, with the discards' span, stamped where they began. */
static void test_discards_paid_at_seal(void **state)
{
	struct frec_recorder *rec = small_rec();
	struct frec_recorder_stats st;
	struct frec_pin *pin;
	__u64 lost[2], nospc = 0, misses, i, first = 0;
	char dir[64];

	assert_int_equal(synth_tmpdir(dir), 0);
	pin = pin_full_window(rec);
	for (i = 0; i < 5000; i++) {
		int rc = synth_switch(rec, 2 * SEC + i * 1000, 0, 20 + i % 50, 1, "x", 1,
				      20 + (i + 1) % 50, 1, "y");

		nospc += rc != 0;
		if (rc && !first)
			first = 2 * SEC + i * 1000;
	}
	assert_true(nospc > 100);
	/* Still pinned: nothing to pay with, and asking costs no pool miss. */
	frec_recorder__stats(rec, &st);
	misses = st.pool_misses;
	frec_recorder__tick(rec, 3 * SEC);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.pool_misses, misses);
	frec_recorder__unpin(rec, pin);
	assert_int_equal(synth_write(rec, dir, "s.frec", 4 * SEC), 0);

	snapshot_lost(dir, "s.frec", first, lost);
	assert_int_equal(lost[0], nospc);
	assert_int_equal(lost[1], 0);
	frec_recorder__free(rec);
	synth_rmdir(dir);
}

/* A generation whose tables find no chunk cannot be sealed: its events are
 * owed too, on the CPUs they were recorded on. */
static void test_failed_seal_owed(void **state)
{
	struct frec_recorder *rec = small_rec();
	struct frec_recorder_stats st;
	struct frec_pin *pin;
	__u64 nospc[2] = { 0, 0 }, open[2] = { 0, 0 }, lost[2], sealed, i;
	char dir[64], comm[32];
	int rc;

	assert_int_equal(synth_tmpdir(dir), 0);
	pin = pin_full_window(rec);
	/* Switches among 40 threads with long names, so that a generation's
	 * tables need a chunk of their own, until the first event that finds
	 * no room. */
	for (i = 0; i < 3000 && !nospc[0] && !nospc[1]; i++) {
		__u32 cpu = i % 3 == 0, a = 1000 + i % 40, b = 1000 + (i + 1) % 40;

		frec_recorder__stats(rec, &st);
		sealed = st.generations_sealed;
		snprintf(comm, sizeof(comm), "thread-%u-long", a);
		rc = synth_switch(rec, 2 * SEC + i * 1000, cpu, a, a, comm, 1, b, b, comm);
		frec_recorder__stats(rec, &st);
		if (st.generations_sealed != sealed)
			open[0] = open[1] = 0;	/* it went into a new generation */
		if (rc)
			nospc[cpu]++;
		else
			open[cpu]++;
	}
	assert_true(open[0] + open[1] > 0 && nospc[0] + nospc[1] > 0);
	/* The seal that fails: all of the open generation is discarded. */
	assert_int_equal(frec_recorder__seal(rec, 3 * SEC), -ENOSPC);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.events_discarded, nospc[0] + nospc[1] + open[0] + open[1]);
	frec_recorder__unpin(rec, pin);
	assert_int_equal(synth_write(rec, dir, "f.frec", 4 * SEC), 0);

	snapshot_lost(dir, "f.frec", 0, lost);
	assert_int_equal(lost[0], nospc[0] + open[0]);
	assert_int_equal(lost[1], nospc[1] + open[1]);
	frec_recorder__free(rec);
	synth_rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ceiling),
		cmocka_unit_test(test_default_chunk),
		cmocka_unit_test(test_bound),
		cmocka_unit_test(test_tiny_generations),
		cmocka_unit_test(test_pinned_not_freed),
		cmocka_unit_test(test_written_reused),
		cmocka_unit_test(test_early_eviction),
		cmocka_unit_test(test_discard_counted),
		cmocka_unit_test(test_discards_in_snapshot),
		cmocka_unit_test(test_discards_paid_at_seal),
		cmocka_unit_test(test_failed_seal_owed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
