// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Time order across generations (docs/FORMAT.md "Time order"): a record
 * older than the end of the newest sealed generation is late and becomes a
 * lost event at its own time, so that generations never overlap; lost and
 * gap events carry the span they cover and are stamped no earlier than
 * their generation's start; within a generation, time may go backwards in
 * stream order and a reader sorts.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <cmocka.h>
#include "synth.h"
#include "tools_test.h"
#include "../../tools/walk.h"

#define SEC 1000000000ull
#define US 1000ull

struct read_back {
	struct frec_event ev[64];
	__u64 gen_start[8], gen_end[8];
	unsigned gen_of[64];
	unsigned n, ngens;
};

static void read_all(const char *dir, const char *name, struct read_back *b)
{
	struct frec_reader *rd;
	struct frec_gen *g;
	char path[128];
	int rc;

	memset(b, 0, sizeof(*b));
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(frec_reader__open(path, &rd), 0);
	while ((rc = frec_reader__next_gen(rd, &g)) == 1) {
		assert_true(b->ngens < 8);
		b->gen_start[b->ngens] = frec_gen__info(g)->start_ts;
		b->gen_end[b->ngens] = frec_gen__info(g)->end_ts;
		while (b->n < 64 && frec_gen__next_event(g, &b->ev[b->n]) == 1)
			b->gen_of[b->n++] = b->ngens;
		b->ngens++;
	}
	assert_int_equal(rc, 0);
	frec_reader__free(rd);
}

static void switches(struct frec_recorder *rec, __u64 t0, unsigned n, __u32 cpu)
{
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(synth_switch(rec, t0 + i * US, cpu, 10 + (i & 1), 10, "a", 1,
					      11 - (i & 1), 10, "b"),
				 0);
}

/* A record stamped before the end of the sealed generation: counted as
 * late, written as a lost event with its own time as the span, stamped at
 * the next generation's start; no generation starts before the previous
 * one ended. */
static void test_late_record(void **state)
{
	struct frec_recorder *rec = synth_recorder(2);
	struct frec_recorder_stats st;
	struct read_back b;
	char dir[64];
	unsigned lost = 0;

	assert_int_equal(synth_tmpdir(dir), 0);
	switches(rec, SEC, 10, 0);
	assert_int_equal(frec_recorder__seal(rec, SEC + 100 * US), 1);
	/* reserved before the cut, handed over after it */
	assert_int_equal(synth_switch(rec, SEC + 50 * US, 1, 20, 20, "c", 1, 21, 21, "d"),
			 -ESTALE);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.late, 1);
	switches(rec, SEC + 200 * US, 4, 0);
	assert_int_equal(synth_write(rec, dir, "o.frec", SEC + 300 * US), 0);

	read_all(dir, "o.frec", &b);
	assert_int_equal(b.ngens, 2);
	assert_int_equal(b.gen_end[0], SEC + 100 * US);
	assert_true(b.gen_start[1] >= b.gen_end[0]);
	for (unsigned i = 0; i < b.n; i++) {
		const struct frec_event *ev = &b.ev[i];

		/* inside its own generation's span */
		assert_true(ev->ts >= b.gen_start[b.gen_of[i]]);
		assert_true(ev->ts <= b.gen_end[b.gen_of[i]]);
		assert_true(ev->type != FREC_EV_SCHED_SWITCH || ev->ts != SEC + 50 * US);
		if (ev->type != FREC_EV_LOST)
			continue;
		lost++;
		assert_int_equal(b.gen_of[i], 1);
		assert_int_equal(ev->cpu, 1);
		assert_int_equal(ev->lost.count, 1);
		assert_int_equal(ev->lost.flags, FREC_LOST_SPAN);
		assert_int_equal(ev->lost.first_ts, SEC + 50 * US);
		assert_int_equal(ev->lost.last_ts, SEC + 50 * US);
		/* the later of first_ts and the generation's start */
		assert_int_equal(ev->ts, SEC + 100 * US);
	}
	assert_int_equal(lost, 1);
	frec_recorder__free(rec);
	synth_rmdir(dir);
}

/* frec dump shows every event in time order, across generations too. */
static void test_dump_in_order(void **state)
{
	struct frec_recorder *rec = synth_recorder(2);
	struct captured c;
	char dir[64], path[128];
	unsigned long long prev = 0, sec, ns;
	const char *line;
	unsigned lines = 0;

	assert_int_equal(synth_tmpdir(dir), 0);
	/* within a generation, stream order is not time order */
	switches(rec, SEC + 10 * US, 3, 1);
	switches(rec, SEC, 3, 0);
	assert_int_equal(frec_recorder__seal(rec, SEC + 100 * US), 1);
	assert_int_equal(synth_switch(rec, SEC + 90 * US, 1, 20, 20, "c", 1, 21, 21, "d"),
			 -ESTALE);
	switches(rec, SEC + 300 * US, 3, 1);
	switches(rec, SEC + 200 * US, 3, 0);
	assert_int_equal(synth_write(rec, dir, "d.frec", SEC + 400 * US), 0);
	snprintf(path, sizeof(path), "%s/d.frec", dir);

	c = run_dump(path, false);
	assert_int_equal(c.status, 0);
	for (line = c.out; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		assert_int_equal(sscanf(line, "%llu.%llu", &sec, &ns), 2);
		assert_true(sec * SEC + ns >= prev);
		prev = sec * SEC + ns;
		lines++;
	}
	assert_int_equal(lines, 13);	/* 12 switches and the late one's lost */
	expect(c.out, " lost cpu=1 count=1 first_ts=1000090000 last_ts=1000090000\n");
	captured_free(&c);
	frec_recorder__free(rec);
	synth_rmdir(dir);
}

/* The kernel's drops, with the span BPF saw: stamped at first_ts, or at
 * the generation's start when they began before it, and never after the
 * time they were noticed. */
static void test_lost_span(void **state)
{
	struct frec_recorder *rec = synth_recorder(2);
	struct read_back b;
	char dir[64];
	unsigned seen = 0;

	assert_int_equal(synth_tmpdir(dir), 0);
	switches(rec, SEC, 4, 0);
	assert_int_equal(frec_recorder__seal(rec, SEC + 100 * US), 1);
	switches(rec, SEC + 200 * US, 4, 0);
	assert_int_equal(frec_recorder__add_lost_span(rec, 0, 7, SEC + 150 * US, SEC + 160 * US,
						      SEC + 250 * US), 0);
	/* began in the sealed generation */
	assert_int_equal(frec_recorder__add_lost_span(rec, 1, 3, SEC + 20 * US, SEC + 120 * US,
						      SEC + 250 * US), 0);
	assert_int_equal(frec_recorder__add_lost_span(rec, 1, 3, 0, SEC, SEC + 250 * US), -EINVAL);
	assert_int_equal(frec_recorder__add_lost_span(rec, 1, 3, SEC + 5, SEC, SEC + 250 * US),
			 -EINVAL);
	assert_int_equal(synth_write(rec, dir, "l.frec", SEC + 300 * US), 0);

	read_all(dir, "l.frec", &b);
	for (unsigned i = 0; i < b.n; i++) {
		const struct frec_event *ev = &b.ev[i];

		if (ev->type != FREC_EV_LOST)
			continue;
		seen++;
		assert_int_equal(ev->lost.flags, FREC_LOST_SPAN);
		if (ev->cpu == 0) {
			assert_int_equal(ev->lost.count, 7);
			assert_int_equal(ev->ts, SEC + 150 * US);
			assert_int_equal(ev->lost.last_ts, SEC + 160 * US);
		} else {
			assert_int_equal(ev->lost.count, 3);
			assert_int_equal(ev->ts, SEC + 100 * US);
			assert_int_equal(ev->lost.first_ts, SEC + 20 * US);
			assert_int_equal(ev->lost.last_ts, SEC + 120 * US);
		}
		assert_true(ev->ts >= b.gen_start[b.gen_of[i]]);
	}
	assert_int_equal(seen, 2);
	frec_recorder__free(rec);
	synth_rmdir(dir);
}

/* A gap (programs replaced at a reload) is an event of its own, on every
 * CPU, with its span; frec dump names it. */
static void test_gap(void **state)
{
	struct frec_recorder *rec = synth_recorder(2);
	struct frec_recorder_stats st;
	struct read_back b;
	struct captured c;
	char dir[64], path[128];
	unsigned gaps = 0;

	assert_int_equal(synth_tmpdir(dir), 0);
	switches(rec, SEC, 4, 0);
	assert_int_equal(frec_recorder__add_gap(rec, FREC_GAP_RELOAD, SEC + 10 * US, SEC + 30 * US),
			 0);
	assert_int_equal(frec_recorder__add_gap(rec, FREC_GAP_RELOAD, SEC + 30 * US, SEC), -EINVAL);
	switches(rec, SEC + 40 * US, 2, 0);
	assert_int_equal(synth_write(rec, dir, "g.frec", SEC + 100 * US), 0);
	frec_recorder__stats(rec, &st);
	assert_int_equal(st.gaps, 1);

	read_all(dir, "g.frec", &b);
	for (unsigned i = 0; i < b.n; i++) {
		if (b.ev[i].type != FREC_EV_GAP)
			continue;
		gaps++;
		assert_int_equal(b.ev[i].cpu, FREC_CPU_UNKNOWN);
		assert_int_equal(b.ev[i].tid, 0);
		assert_int_equal(b.ev[i].ts, SEC + 10 * US);
		assert_int_equal(b.ev[i].gap.kind, FREC_GAP_RELOAD);
		assert_int_equal(b.ev[i].gap.first_ts, SEC + 10 * US);
		assert_int_equal(b.ev[i].gap.last_ts, SEC + 30 * US);
	}
	assert_int_equal(gaps, 1);
	snprintf(path, sizeof(path), "%s/g.frec", dir);
	c = run_dump(path, false);
	assert_int_equal(c.status, 0);
	expect(c.out, "1.000010000 4294967295 gap reason=reload first_ts=1000010000 last_ts=1000030000\n");
	captured_free(&c);
	/* frec report says so, and the tools' exports mark it */
	{
		struct frec_report_opts ro = { .json = false, .top = 10 };
		char out[160], *data;
		size_t len;

		c = run_report(path, &ro);
		assert_int_equal(c.status, 0);
		expect(c.out, "  gaps (nothing recorded, programs replaced): 1, 0.020 ms\n");
		captured_free(&c);
		ro.json = true;
		c = run_report(path, &ro);
		expect(c.out, "\"gaps\":1,\"gap_ns\":20000,");
		captured_free(&c);
		snprintf(out, sizeof(out), "%s/g.json", dir);
		assert_int_equal(run_export(path, FREC_EXPORT_CHROME, false, out, &c), 0);
		captured_free(&c);
		data = (char *)read_file(out, &len);
		assert_non_null(data);
		expect(data, "\"name\":\"gap: nothing recorded\"");
		expect(data, "\"reason\":\"reload\",\"duration_ns\":20000");
		free(data);
	}
	frec_recorder__free(rec);
	synth_rmdir(dir);
}

/* A generation too big to sort in memory (a few KiB of deflate can claim
 * millions of valid events) is walked in recorded order, said once, and
 * every event is still counted. */
static void test_too_big_to_sort(void **state)
{
	struct frec_recorder_opts o = {
		.sz = sizeof(o),
		.min_age_ns = 3600 * SEC,
		.max_bytes = 128 << 20,	/* a generation may take an eighth */
		.gen_max_bytes = 16 << 20,
		.ncpus = 2,
	};
	struct frec_recorder *rec = frec_recorder__new(&o);
	const unsigned n = FREC_WALK_SORT_MAX + 1000;
	struct captured c;
	char dir[64], path[128], want[64];

	assert_non_null(rec);
	assert_int_equal(synth_tmpdir(dir), 0);
	switches(rec, SEC, n, 0);
	assert_int_equal(synth_write(rec, dir, "big.frec", SEC + (__u64)n * US), 0);
	snprintf(path, sizeof(path), "%s/big.frec", dir);
	assert_int_equal(synth_deflate_file(path, 1), 0);
	c = run_info(path, false);
	assert_int_equal(c.status, 0);
	expect(c.err, "more than 2097152: it and any other this large are shown in recorded order");
	assert_int_equal(count_lines(c.err), 1);
	snprintf(want, sizeof(want), "events:       %u\n", n);
	expect(c.out, want);
	captured_free(&c);
	frec_recorder__free(rec);
	synth_rmdir(dir);
}

/* Version 1 files stay readable: the v1 seeds kept in the fuzz corpus and
 * the same content written in version 2 dump and report alike. */
static void test_v1_reads_as_v2(void **state)
{
	static const char *const names[] = {
		"known", "known-deflate", "pingpong", "lifecycle", "probes", "strings", "cpus",
	};
	struct frec_report_opts ro = { .json = true, .top = 10 };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct captured a, b;
		char p1[128], p2[128];
		const char *r1, *r2;

		snprintf(p1, sizeof(p1), "tests/fuzz/corpus/v1/%s.frec", names[i]);
		snprintf(p2, sizeof(p2), "tests/fuzz/corpus/seeds/%s.frec", names[i]);
		a = run_dump(p1, true);
		b = run_dump(p2, true);
		assert_int_equal(a.status, 0);
		assert_int_equal(b.status, 0);
		assert_true(a.outlen > 0);
		assert_string_equal(a.out, b.out);
		captured_free(&a);
		captured_free(&b);
		a = run_report(p1, &ro);
		b = run_report(p2, &ro);
		assert_int_equal(a.status, 0);
		/* the same but for the file's name */
		r1 = strchr(a.out, ',');
		r2 = strchr(b.out, ',');
		assert_non_null(r1);
		assert_non_null(r2);
		assert_string_equal(r1, r2);
		captured_free(&a);
		captured_free(&b);
		a = run_info(p1, false);
		expect(a.out, "format:       1\n");
		captured_free(&a);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_late_record),
		cmocka_unit_test(test_dump_in_order),
		cmocka_unit_test(test_lost_span),
		cmocka_unit_test(test_gap),
		cmocka_unit_test(test_too_big_to_sort),
		cmocka_unit_test(test_v1_reads_as_v2),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
