// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Stacks in the frec command: the walker pairs a stack event with its
 * event (across interleaved CPUs, sorted and unsorted), dump shows it on
 * the event and never by itself, info names the header's flags and the
 * stack tables, report --offcpu sums blocking switch-outs to the next
 * switch-in per thread and stack (text, JSON, --folded, --tid/--pid, --top).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "synth.h"
#include "tools_test.h"
#include "stacks_snap.h"
#include "../../tools/walk.h"

static int setup(void **state)
{
	return tools_fixture_setup(state, "stacks.frec", stacks_snapshot, NULL);
}

/* The stacks each switch and probe event comes with, in both walk modes. */
static void walk_pairs(const char *path, bool sorted)
{
	struct frec_walk_opts wo = { .sorted = sorted };
	const struct frec_stack *k, *u;
	const struct frec_event *ev;
	struct frec_walk *w;
	unsigned int with = 0, stacks = 0, n = 0;
	int status;

	w = frec_walk__open(path, &wo, stderr, &status);
	assert_non_null(w);
	assert_int_equal(frec_walk__next_gen(w), 1);
	while ((ev = frec_walk__next_event(w))) {
		bool has = frec_walk__stacks(w, &k, &u);

		n++;
		assert_int_not_equal(ev->type, FREC_EV_STACK);
		if (!has)
			continue;
		with++;
		if (ev->type == FREC_EV_SCHED_SWITCH && ev->sw.prev_pid == 101) {
			assert_non_null(k);
			assert_non_null(u);
			assert_int_equal(k->nframes, 2);
			assert_int_equal(u->nframes, 3);
			assert_string_equal(k->frames[0].sym, "k_ffffffff81001");
			assert_int_equal(k->frames[0].sym_offset, 0x10);
			assert_string_equal(u->frames[0].sym, "app_4010");
			assert_null(u->frames[1].sym);
			assert_int_equal(u->frames[1].file_offset, 0x2090);
		} else if (ev->type == FREC_EV_SCHED_SWITCH && ev->sw.prev_pid == 102) {
			assert_non_null(k);
			assert_null(u);
			assert_int_equal(k->nframes, 1);
			assert_null(k->frames[0].sym);
		} else if (ev->type == FREC_EV_UPROBE) {
			assert_null(k);
			assert_non_null(u);
			assert_int_equal(u->nframes, 1);
		} else {
			fail_msg("a stack on event type %u at %llu", ev->type,
				 (unsigned long long)ev->ts);
		}
		stacks++;
	}
	/* 11 events, 5 of them with stacks; the 5 stack events are not returned */
	assert_int_equal(n, 11);
	assert_int_equal(with, 5);
	assert_int_equal(stacks, 5);
	assert_int_equal(frec_walk__close(w), FREC_EXIT_OK);
}

static void test_walk_sorted(void **state)
{
	walk_pairs(((struct tools_fixture *)*state)->path, true);
}

static void test_walk_unsorted(void **state)
{
	walk_pairs(((struct tools_fixture *)*state)->path, false);
}

static void test_walk_stack_events(void **state)
{
	struct tools_fixture *f = *state;
	struct frec_walk_opts wo = { .sorted = true, .stack_events = true };
	const struct frec_event *ev;
	struct frec_walk *w;
	unsigned int nstack = 0;
	int status;

	w = frec_walk__open(f->path, &wo, stderr, &status);
	assert_non_null(w);
	assert_int_equal(frec_walk__next_gen(w), 1);
	while ((ev = frec_walk__next_event(w)))
		nstack += ev->type == FREC_EV_STACK;
	assert_int_equal(nstack, 5);
	frec_walk__close(w);
}

static void test_dump(void **state)
{
	struct tools_fixture *f = *state;
	struct captured c = run_dump(f->path, true);

	assert_int_equal(c.status, FREC_EXIT_OK);
	assert_int_equal(count_lines(c.out), 11);
	assert_null(strstr(c.out, "\"type\":\"stack\""));
	assert_int_equal(count_substr(c.out, "\"stack\":["), 5);
	expect(c.out, "\"prev_pid\":101,\"prev_prio\":120,\"prev_state\":1,\"next_comm\":\"swapper/0\","
		      "\"next_pid\":0,\"next_prio\":120,\"stack\":["
		      "{\"sym\":\"k_ffffffff81001\",\"sym_offset\":16,\"module\":\"[kernel]\"},"
		      "{\"sym\":\"k_ffffffff81002\",\"sym_offset\":32,\"module\":\"[kernel]\"},"
		      "{\"sym\":\"app_4010\",\"sym_offset\":16,\"module\":\"/bin/app\",\"file_offset\":4112,"
		      "\"build_id\":\"b1ab\"},"
		      "{\"module\":\"/bin/app\",\"file_offset\":8336,\"build_id\":\"b1ab\"},"
		      "{\"sym\":\"app_4030\",\"sym_offset\":32,\"module\":\"/bin/app\",\"file_offset\":12320,"
		      "\"build_id\":\"b1ab\"}]}");
	expect(c.out, "\"prev_pid\":102,\"prev_prio\":120,\"prev_state\":2,\"next_comm\":\"swapper/1\","
		      "\"next_pid\":0,\"next_prio\":120,\"stack\":[{\"module\":\"[kernel]\"}]}");
	expect(c.out, "\"type\":\"uprobe\",\"probe\":\"uprobe:/bin/app:handle\",\"pid\":100,\"tid\":102,"
		      "\"comm\":\"helper\",\"args\":[],\"stack\":[{\"sym\":\"app_4010\"");
	captured_free(&c);

	c = run_dump(f->path, false);
	assert_int_equal(c.status, FREC_EXIT_OK);
	assert_int_equal(count_lines(c.out), 11);
	expect(c.out, " stack=k_ffffffff81001+0x10;k_ffffffff81002+0x20;app_4010+0x10;"
		      "app+0x2090;app_4030+0x20\n");
	expect(c.out, " stack=[kernel]\n");
	captured_free(&c);
}

static void test_info(void **state)
{
	struct tools_fixture *f = *state;
	struct captured c = run_info(f->path, false);

	assert_int_equal(c.status, FREC_EXIT_OK);
	expect(c.out, "\nstacks:       offcpu,probes\n  generation 1: 4 stacks, 1 mappings\n");
	expect(c.out, "  stack                5\n");
	captured_free(&c);
	c = run_info(f->path, true);
	expect(c.out, "\"stacks\":\"offcpu,probes\"}");
	expect(c.out, "\"stack_tables\":[{\"generation\":1,\"nstacks\":4,\"nmappings\":1}]");
	captured_free(&c);
}

static void test_info_none(void **state)
{
	struct tools_fixture *f = *state;
	struct captured c;
	char path[600];

	(void)f;
	snprintf(path, sizeof(path), "%s/known.frec", f->dir);
	assert_int_equal(synth_known_snapshot(f->dir, "known.frec"), 0);
	c = run_info(path, false);
	expect(c.out, "\nstacks:       none\n");
	assert_null(strstr(c.out, "  generation "));
	captured_free(&c);
}

static struct captured report(const char *path, bool json, bool folded, unsigned top,
			      int tid, int pid)
{
	struct frec_report_opts o = { .top = top, .offcpu = true, .json = json, .folded = folded };

	if (tid >= 0) {
		o.has_tid = true;
		o.tid = (__u32)tid;
	}
	if (pid >= 0) {
		o.has_pid = true;
		o.pid = (__u32)pid;
	}
	return run_report(path, &o);
}

static void test_offcpu_json(void **state)
{
	struct tools_fixture *f = *state;
	struct captured c = report(f->path, true, false, 10, -1, -1);

	assert_int_equal(c.status, FREC_EXIT_OK);
	/* worker: 3 ms + 4 ms on stack A (the preempted switch is not a block);
	 * helper 1 ms on stack B */
	expect(c.out, ",\"offcpu_blocks\":3,\"offcpu_blocks_with_stack\":3,\"offcpu_total_ns\":8000000,"
		      "\"offcpu_with_stack_ns\":8000000,\"offcpu\":[{\"tid\":101,\"pid\":100,\"comm\":\"worker\",\"count\":2,"
		      "\"total_ns\":7000000,\"max_ns\":4000000,\"stack\":["
		      "{\"sym\":\"k_ffffffff81001\",\"sym_offset\":16,\"module\":\"[kernel]\"},");
	expect(c.out, "{\"tid\":102,\"pid\":100,\"comm\":\"helper\",\"count\":1,\"total_ns\":1000000,"
		      "\"max_ns\":1000000,\"stack\":[{\"module\":\"[kernel]\"}]}]");
	captured_free(&c);

	c = report(f->path, true, false, 1, -1, -1);
	assert_non_null(strstr(c.out, "\"offcpu\":["));
	assert_int_equal(count_substr(strstr(c.out, "\"offcpu\":["), "\"tid\":10"), 1);
	captured_free(&c);
	c = report(f->path, true, false, 10, 102, -1);
	expect(c.out, ",\"offcpu\":[{\"tid\":102,");
	assert_null(strstr(c.out, "\"tid\":101"));
	captured_free(&c);
	c = report(f->path, true, false, 10, -1, 999);
	expect(c.out, ",\"offcpu\":[]");
	captured_free(&c);
}

static void test_offcpu_text(void **state)
{
	struct tools_fixture *f = *state;
	struct captured c = report(f->path, false, false, 10, -1, -1);

	assert_int_equal(c.status, FREC_EXIT_OK);
	expect(c.out, "\nOff-CPU time by stack (blocking switch-out until the next switch-in): 2 of 2\n"
		      "  3 blocks, 3 with a stack: 8000.000 of 8000.000 us off-CPU\n"
		      "  tid 101 pid 100 worker  2 blocks, total 7000.000 us, max 4000.000 us\n"
		      "      k_ffffffff81001+0x10\n"
		      "      k_ffffffff81002+0x20\n"
		      "      app_4010+0x10  /bin/app\n"
		      "      app+0x2090  /bin/app  build-id b1ab\n"
		      "      app_4030+0x20  /bin/app\n"
		      "  tid 102 pid 100 helper  1 blocks, total 1000.000 us, max 1000.000 us\n"
		      "      [kernel]\n");
	captured_free(&c);
}

static void test_folded(void **state)
{
	struct tools_fixture *f = *state;
	struct captured c = report(f->path, false, true, 1, -1, -1);

	assert_int_equal(c.status, FREC_EXIT_OK);
	/* outermost first, all rows whatever --top says, sorted */
	assert_string_equal(c.out, "helper;[kernel] 1000\n"
				   "worker;app_4030;app+0x2090;app_4010;k_ffffffff81002;"
				   "k_ffffffff81001 7000\n");
	captured_free(&c);
}

/* A snapshot taken without stacks says so. */
static void test_offcpu_no_stacks(void **state)
{
	struct tools_fixture *f = *state;
	struct captured c;
	char path[600];

	snprintf(path, sizeof(path), "%s/known.frec", f->dir);
	assert_int_equal(synth_known_snapshot(f->dir, "known.frec"), 0);
	c = report(path, false, false, 10, -1, -1);
	assert_int_equal(c.status, FREC_EXIT_OK);
	expect(c.out, "\nOff-CPU time by stack (blocking switch-out until the next switch-in): 0 of 0\n"
		      "  none: this snapshot was taken without off-CPU stacks (frecd --stacks offcpu "
		      "captures them)\n");
	captured_free(&c);
	/* its one block never ends (worker is not switched in again) */
	c = report(path, true, false, 10, -1, -1);
	assert_int_equal(c.status, FREC_EXIT_OK);
	assert_non_null(strstr(c.out, ",\"offcpu_blocks\":0,\"offcpu_blocks_with_stack\":0,"
				      "\"offcpu_total_ns\":0,\"offcpu_with_stack_ns\":0,\"offcpu\":[]"));
	captured_free(&c);
	c = report(path, false, true, 10, -1, -1);
	assert_int_equal(c.status, FREC_EXIT_OK);
	assert_string_equal(c.out, "");
	captured_free(&c);
}

/* Without --offcpu the report has no such section. */
static void test_no_offcpu(void **state)
{
	struct tools_fixture *f = *state;
	struct frec_report_opts o = { .top = 10, .json = true };
	struct captured c = run_report(f->path, &o);

	assert_null(strstr(c.out, "offcpu"));
	captured_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_walk_sorted, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_walk_unsorted, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_walk_stack_events, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_dump, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_info, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_info_none, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_offcpu_json, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_offcpu_text, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_folded, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_no_offcpu, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_offcpu_no_stacks, setup, tools_fixture_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
