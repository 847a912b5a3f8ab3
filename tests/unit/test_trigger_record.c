// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Trigger events in the core: the ring record decoded (the subject's
 * thread, its name learned), the xtype 16 body and summary section 6 through
 * a file and the reader, the trigger table's checks, and the suppressed
 * aggregate a seal writes per trigger: its time, worst value and thread,
 * count, one per generation, counted when it finds no room.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <cmocka.h>
#include "synth.h"

#define MS 1000000ull
#define SEC 1000000000ull

static const struct frec_trigger_info table[] = {
	{ .id = 1, .kind = FREC_TRIG_RUNQ, .name = "slow-wake", .spec = "runq>5ms,name=slow-wake" },
	{ .id = 2, .kind = FREC_TRIG_MANUAL, .name = "manual:dump", .spec = "manual:dump" },
	{ .id = 5, .kind = FREC_TRIG_FUNC, .name = "func:/bin/app:handle>20ms",
	  .spec = "func:/bin/app:handle>20ms" },
};

static void test_decode(void **state)
{
	struct frec_rec_trigger r;
	struct frec_event ev;

	(void)state;
	memset(&r, 0, sizeof(r));
	synth_hdr(&r.h, 1234, 3, 50, 50, FREC_EV_TRIGGER, sizeof(r));
	r.trigger_id = 7;
	r.pid = 61;
	r.tgid = 60;
	r.flags = 0;
	r.value = 5500000;
	synth_comm(r.comm, "victim");
	assert_int_equal(frec_record__decode(&r, sizeof(r), &ev), 0);
	assert_int_equal(ev.type, FREC_EV_TRIGGER);
	assert_int_equal(ev.ts, 1234);
	assert_int_equal(ev.cpu, 3);
	/* the thread the condition held for, not the current one */
	assert_int_equal(ev.tid, 61);
	assert_int_equal(ev.tgid, 60);
	assert_int_equal(ev.trigger.id, 7);
	assert_int_equal(ev.trigger.flags, 0);
	assert_int_equal(ev.trigger.value, 5500000);
	assert_int_equal(ev.trigger.count, 1);
	assert_string_equal(frec_type__name(FREC_EV_TRIGGER), "trigger");
	/* one frecd wrote on no CPU (lost, manual) */
	r.h.cpu = FREC_REC_CPU_NONE;
	assert_int_equal(frec_record__decode(&r, sizeof(r), &ev), 0);
	assert_int_equal(ev.cpu, FREC_CPU_UNKNOWN);
	assert_string_equal(frec_trigger_kind__name(FREC_TRIG_OFFCPU), "offcpu");
	assert_null(frec_trigger_kind__name(FREC_TRIG__MAX));

	assert_int_equal(frec_record__decode(&r, sizeof(r) - 1, &ev), -EINVAL);
	r.trigger_id = 0;
	assert_int_equal(frec_record__decode(&r, sizeof(r), &ev), -EINVAL);
	r.trigger_id = FREC_MAX_TRIGGERS + 1;
	assert_int_equal(frec_record__decode(&r, sizeof(r), &ev), -EINVAL);
}

static void test_set_triggers_checks(void **state)
{
	struct frec_recorder *rec = synth_recorder(2);
	struct frec_trigger_info t[FREC_MAX_TRIGGERS + 1];

	(void)state;
	assert_non_null(rec);
	memset(t, 0, sizeof(t));
	for (unsigned i = 0; i <= FREC_MAX_TRIGGERS; i++) {
		t[i].id = i + 1;
		t[i].name = t[i].spec = "x";
	}
	assert_int_equal(frec_recorder__set_triggers(rec, t, FREC_MAX_TRIGGERS), 0);
	assert_int_equal(frec_recorder__set_triggers(rec, t, FREC_MAX_TRIGGERS + 1), -EINVAL);
	assert_int_equal(frec_recorder__set_triggers(rec, NULL, 1), -EINVAL);
	t[1].id = 1;	/* twice */
	assert_int_equal(frec_recorder__set_triggers(rec, t, 2), -EINVAL);
	t[1].id = 0;
	assert_int_equal(frec_recorder__set_triggers(rec, t, 2), -EINVAL);
	assert_int_equal(frec_recorder__set_triggers(rec, NULL, 0), 0);
	/* no table, no id */
	assert_int_equal(frec_recorder__add_suppressed(rec, 1, 1, 1, 10, 1, 1), -EINVAL);
	assert_int_equal(frec_recorder__set_triggers(rec, table, 3), 0);
	assert_int_equal(frec_recorder__add_suppressed(rec, 3, 1, 1, 10, 1, 1), -EINVAL);
	assert_int_equal(frec_recorder__add_suppressed(rec, 0, 1, 1, 10, 1, 1), -EINVAL);
	assert_int_equal(frec_recorder__add_suppressed(rec, 5, 1, 1, 10, 1, 0), 0);
	frec_recorder__free(rec);
}

/* Open the one file of dir and read its next generation. */
static struct frec_reader *open_snap(const char *dir, const char *name)
{
	struct frec_reader *r;
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(frec_reader__open(path, &r), 0);
	return r;
}

/*
 * A ring record through the recorder and a file: the event is on the
 * subject's thread, whose name the record gave; section 6 names the
 * triggers the generation mentions and no other; a generation without
 * trigger events has no table.
 */
static void test_record_and_section(void **state)
{
	struct frec_recorder *rec = synth_recorder(2);
	const struct frec_trigger_info *ti;
	const struct frec_thread *th;
	struct frec_reader *r;
	struct frec_gen *g;
	struct frec_event ev;
	char dir[64];
	int n = 0;

	(void)state;
	assert_non_null(rec);
	assert_int_equal(synth_tmpdir(dir), 0);
	assert_int_equal(frec_recorder__set_triggers(rec, table, 3), 0);
	frec_recorder__tick(rec, SEC);
	synth_switch(rec, SEC + 100, 0, 0, 0, "swapper/0", 0, 70, 70, "cur");
	/* current is 70 on cpu 0; the subject is 71, named only here */
	assert_int_equal(synth_trigger(rec, SEC + 200, 0, 70, 70, 5, 71, 70, "subject", 25 * MS), 0);
	assert_int_equal(frec_recorder__seal(rec, SEC + MS), 1);
	synth_switch(rec, SEC + 2 * MS, 1, 0, 0, "swapper/1", 0, 72, 72, "other");
	assert_int_equal(synth_write(rec, dir, "t.frec", SEC + 3 * MS), 0);

	r = open_snap(dir, "t.frec");
	assert_int_equal(frec_reader__next_gen(r, &g), 1);
	assert_int_equal(frec_gen__info(g)->ntriggers, 1);
	assert_int_equal(frec_gen__info(g)->nevents_by_type[FREC_EV_TRIGGER], 1);
	ti = frec_gen__trigger(g, 5);
	assert_non_null(ti);
	assert_int_equal(ti->id, 5);
	assert_int_equal(ti->kind, FREC_TRIG_FUNC);
	assert_string_equal(ti->name, "func:/bin/app:handle>20ms");
	assert_string_equal(ti->spec, "func:/bin/app:handle>20ms");
	assert_ptr_equal(frec_gen__trigger_at(g, 0), ti);
	assert_null(frec_gen__trigger_at(g, 1));
	assert_null(frec_gen__trigger(g, 1));
	while (frec_gen__next_event(g, &ev) == 1) {
		if (ev.type != FREC_EV_TRIGGER)
			continue;
		n++;
		assert_int_equal(ev.ts, SEC + 200);
		assert_int_equal(ev.cpu, 0);
		assert_int_equal(ev.tid, 71);
		assert_int_equal(ev.tgid, 70);
		assert_int_equal(ev.trigger.id, 5);
		assert_int_equal(ev.trigger.flags, 0);
		assert_int_equal(ev.trigger.value, 25 * MS);
		assert_int_equal(ev.trigger.count, 1);
	}
	assert_int_equal(n, 1);
	th = frec_gen__thread(g, 71);
	assert_non_null(th);
	assert_string_equal(th->comm, "subject");
	assert_int_equal(th->tgid, 70);

	assert_int_equal(frec_reader__next_gen(r, &g), 1);
	assert_int_equal(frec_gen__info(g)->ntriggers, 0);
	assert_null(frec_gen__trigger(g, 5));
	assert_int_equal(frec_reader__next_gen(r, &g), 0);
	frec_reader__free(r);
	frec_recorder__free(rec);
	synth_rmdir(dir);
}

/* The suppressed events of a file, in order, into out (at most max). */
static int read_suppressed(const char *dir, const char *name, struct frec_event *out, int max,
			   __u64 *gen_start, __u64 *gen_end)
{
	struct frec_reader *r = open_snap(dir, name);
	struct frec_gen *g;
	struct frec_event ev;
	int n = 0;

	while (frec_reader__next_gen(r, &g) == 1) {
		const struct frec_gen_info *in = frec_gen__info(g);

		while (frec_gen__next_event(g, &ev) == 1) {
			if (ev.type != FREC_EV_TRIGGER || !(ev.trigger.flags & FREC_TRIGGER_SUPPRESSED))
				continue;
			assert_true(n < max);
			/* the trigger it aggregates is named */
			assert_non_null(frec_gen__trigger(g, ev.trigger.id));
			gen_start[n] = in->start_ts;
			gen_end[n] = in->end_ts;
			out[n++] = ev;
		}
	}
	frec_reader__free(r);
	return n;
}

/*
 * Suppressed firings per trigger and generation: one event at the seal,
 * stamped at the first firing (never before the generation, nor after the
 * seal), with the worst value and its thread and the sum of the counts;
 * the next generation starts afresh.
 */
static void test_suppressed_across_seals(void **state)
{
	struct frec_recorder *rec = synth_recorder(2);
	struct frec_recorder_stats st;
	struct frec_event ev[8];
	__u64 start[8], end[8];
	char dir[64];
	int n;

	(void)state;
	assert_non_null(rec);
	assert_int_equal(synth_tmpdir(dir), 0);
	assert_int_equal(frec_recorder__set_triggers(rec, table, 3), 0);
	frec_recorder__tick(rec, SEC);
	synth_switch(rec, SEC + 100, 0, 0, 0, "swapper/0", 0, 80, 80, "a");
	assert_int_equal(frec_recorder__add_suppressed(rec, 1, 81, 80, SEC + 500, 5 * MS, 1), 0);
	assert_int_equal(frec_recorder__add_suppressed(rec, 1, 82, 80, SEC + 300, 9 * MS, 2), 0);
	assert_int_equal(frec_recorder__add_suppressed(rec, 1, 83, 80, SEC + 700, 7 * MS, 4), 0);
	assert_int_equal(frec_recorder__add_suppressed(rec, 2, 0, 0, SEC + 800, 0, 1), 0);
	assert_int_equal(frec_recorder__seal(rec, SEC + MS), 1);
	/* generation 2: the only firing is dated before it began */
	synth_switch(rec, SEC + 2 * MS, 0, 80, 80, "a", 1, 0, 0, "swapper/0");
	assert_int_equal(frec_recorder__add_suppressed(rec, 1, 84, 80, SEC + 10, 3 * MS, 1), 0);
	assert_int_equal(frec_recorder__seal(rec, SEC + 3 * MS), 1);
	/* generation 3: nothing suppressed, nothing written; and an
	 * aggregate alone makes a generation (4) */
	synth_switch(rec, SEC + 4 * MS, 0, 0, 0, "swapper/0", 0, 80, 80, "a");
	assert_int_equal(frec_recorder__seal(rec, SEC + 5 * MS), 1);
	assert_int_equal(frec_recorder__add_suppressed(rec, 5, 85, 85, SEC + 9 * MS, 1, 1), 0);
	assert_int_equal(synth_write(rec, dir, "s.frec", SEC + 6 * MS), 0);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.suppressed, 4);
	assert_int_equal(st.suppressed_unstored, 0);

	n = read_suppressed(dir, "s.frec", ev, 8, start, end);
	assert_int_equal(n, 4);
	/* generation 1, trigger 1: first at +300, worst 9 ms on 82, 7 firings */
	assert_int_equal(ev[0].trigger.id, 1);
	assert_int_equal(ev[0].ts, SEC + 300);
	assert_int_equal(ev[0].trigger.value, 9 * MS);
	assert_int_equal(ev[0].tid, 82);
	assert_int_equal(ev[0].tgid, 80);
	assert_int_equal(ev[0].trigger.count, 7);
	assert_int_equal(ev[0].cpu, FREC_CPU_UNKNOWN);
	assert_int_equal(end[0], SEC + MS);
	/* trigger 2, no thread */
	assert_int_equal(ev[1].trigger.id, 2);
	assert_int_equal(ev[1].tid, 0);
	assert_int_equal(ev[1].trigger.count, 1);
	assert_int_equal(ev[1].ts, SEC + 800);
	/* generation 2: not before the end of the one before */
	assert_int_equal(ev[2].trigger.id, 1);
	assert_int_equal(ev[2].trigger.count, 1);
	assert_int_equal(ev[2].tid, 84);
	assert_int_equal(ev[2].ts, SEC + MS);
	assert_true(ev[2].ts >= start[2] && ev[2].ts <= end[2]);
	/* generation 4: dated after its seal, stamped at it */
	assert_int_equal(ev[3].trigger.id, 5);
	assert_int_equal(ev[3].ts, SEC + 6 * MS);
	assert_true(ev[3].ts <= end[3]);
	frec_recorder__free(rec);
	synth_rmdir(dir);
}

/* A seal with no chunk left for the aggregate counts it. */
static void test_suppressed_unstored(void **state)
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
	struct frec_recorder_stats st;
	struct frec_pin *pin;
	__u64 t = SEC;
	int rc = 0;

	(void)state;
	assert_non_null(rec);
	assert_int_equal(frec_recorder__set_triggers(rec, table, 3), 0);
	/* a pinned window and an open generation fill every chunk */
	for (unsigned i = 0; i < 12; i++, t += 10 * MS) {
		synth_switch(rec, t, 0, 0, 0, "swapper/0", 0, 10, 10, "a");
		frec_recorder__seal(rec, t + MS);
	}
	pin = frec_recorder__pin(rec);
	assert_non_null(pin);
	for (unsigned i = 0; i < 100000 && rc != -ENOSPC; i++, t += 1000)
		rc = synth_switch(rec, t, 0, 10 + (i & 1), 10, "a", 0, 10 + !(i & 1), 10, "a");
	assert_int_equal(rc, -ENOSPC);
	assert_int_equal(frec_recorder__add_suppressed(rec, 1, 10, 10, t, 1, 3), 0);
	frec_recorder__seal(rec, t + MS);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.suppressed_unstored, 1);
	assert_int_equal(st.suppressed, 0);
	frec_recorder__unpin(rec, pin);
	frec_recorder__free(rec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_set_triggers_checks),
		cmocka_unit_test(test_record_and_section),
		cmocka_unit_test(test_suppressed_across_seals),
		cmocka_unit_test(test_suppressed_unstored),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
