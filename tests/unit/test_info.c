// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * frec info on a snapshot of known content: time span, generations, events
 * by type, hits per probe, drops per CPU (listed even when 0), bytes per
 * event, broken switch chains, in text and JSON; damaged generations
 * counted and the status 3.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <cmocka.h>
#include "synth.h"
#include "synth_chain.h"
#include "tools_test.h"

static void test_text(void **state)
{
	struct tools_fixture *f = *state;
	struct captured c = run_info(f->path, false);
	struct stat st;
	char line[128];

	assert_int_equal(c.status, FREC_EXIT_OK);
	assert_int_equal(c.errlen, 0);
	assert_int_equal(stat(f->path, &st), 0);
	expect(c.out, "format:       6\n");
	expect(c.out, "cpus:         2\n");
	expect(c.out, "reason:       \"synth\"\n");
	expect(c.out, "time span:    1.000000000 .. 1.001003000 (0.001003000 s)\n");
	expect(c.out, "generations:  2 (0 damaged, skipped)\n");
	expect(c.out, "events:       12\n"
		      "  sched_switch         4\n"
		      "  sched_waking         1\n"
		      "  sched_wakeup         0\n"
		      "  sched_wakeup_new     0\n"
		      "  sched_process_fork   1\n"
		      "  sched_process_exec   1\n"
		      "  sched_process_exit   1\n"
		      "  task_rename          1\n"
		      "  sched_migrate_task   0\n"
		      "  uprobe               1\n"
		      "  uretprobe            1\n"
		      "  usdt                 0\n"
		      "  lost                 1\n");
	expect(c.out, "probes:       2\n"
		      "  uprobe:/bin/app:handle: 1\n"
		      "  uretprobe:/bin/app:handle: 1\n");
	expect(c.out, "drops:        3\n"
		      "  cpu 0                0\n"
		      "  cpu 1                3\n"
		      "chain breaks: 0\n");
	snprintf(line, sizeof(line), "bytes/event:  %.2f (", (double)st.st_size / 12);
	expect(c.out, line);
	captured_free(&c);
}

static void test_json(void **state)
{
	struct tools_fixture *f = *state;
	struct captured c = run_info(f->path, true);

	assert_int_equal(c.status, FREC_EXIT_OK);
	assert_int_equal(count_lines(c.out), 1);
	expect(c.out, "\"format_version\":6,");
	expect(c.out, "\"ncpus\":2,");
	expect(c.out, "\"reason\":\"synth\",");
	expect(c.out, "\"first_ts\":1000000000,\"last_ts\":1001003000,\"duration_ns\":1003000,\"end_ts\":1001010000,"
		      "\"generations\":2,\"damaged\":0,\"events\":12,");
	expect(c.out, "\"events_by_type\":{\"sched_switch\":4,\"sched_waking\":1,\"sched_wakeup\":0,"
		      "\"sched_wakeup_new\":0,\"sched_process_fork\":1,\"sched_process_exec\":1,"
		      "\"sched_process_exit\":1,\"task_rename\":1,\"sched_migrate_task\":0,\"uprobe\":1,"
		      "\"uretprobe\":1,\"usdt\":0,\"lost\":1,\"stack\":0,\"trigger\":0,\"gap\":0}");
	expect(c.out, "\"probes\":[{\"name\":\"uprobe:/bin/app:handle\",\"kind\":\"uprobe\",\"hits\":1},"
		      "{\"name\":\"uretprobe:/bin/app:handle\",\"kind\":\"uretprobe\",\"hits\":1}]");
	expect(c.out, "\"drops\":3,\"drops_by_cpu\":[0,3],\"chain_breaks\":0,");
	if (have_program("python3")) {
		char json[160], cmd[512], *out = NULL;
		size_t len;

		snprintf(json, sizeof(json), "%s/info.json", f->dir);
		write_file(json, c.out, c.outlen);
		snprintf(cmd, sizeof(cmd), "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); "
			 "print(d[\"events\"], d[\"drops_by_cpu\"], d[\"config\"][\"pids\"])' %s", json);
		assert_int_equal(run_cmd(cmd, &out, &len), 0);
		assert_string_equal(out, "12 [0, 3] []\n");
		free(out);
	}
	captured_free(&c);
}

static void test_damaged(void **state)
{
	struct tools_fixture *f = *state;
	size_t offs[8], n;
	unsigned char *b;
	char path[128];
	struct captured c;

	b = read_file(f->path, &n);
	assert_int_equal(block_offsets(b, n, offs, 8), 2);
	b[offs[1] + 29] ^= 1;
	snprintf(path, sizeof(path), "%s/bad.frec", f->dir);
	write_file(path, b, n);
	free(b);
	c = run_info(path, false);
	assert_int_equal(c.status, FREC_EXIT_DAMAGED);
	assert_int_equal(count_lines(c.err), 1);
	expect(c.out, "generations:  1 (1 damaged, skipped)\n");
	expect(c.out, "events:       8\n");
	/* the CPUs of the header are listed even with no drops left */
	expect(c.out, "drops:        0\n  cpu 0                0\n  cpu 1                0\n");
	captured_free(&c);
}

/* A switch naming another prev than the thread switched in is counted. */
static void test_chain_break(void **state)
{
	struct tools_fixture *f = *state;
	struct captured c = run_info(f->path, false);

	assert_int_equal(c.status, FREC_EXIT_OK);
	expect(c.out, "chain breaks: 1\n");
	captured_free(&c);
	c = run_info(f->path, true);
	expect(c.out, "\"chain_breaks\":1,");
	captured_free(&c);
}

static int setup_chain(void **state)
{
	return tools_fixture_setup(state, "chain.frec", synth_chain_break_snapshot, "out");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_text, tools_fixture_setup_known, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_json, tools_fixture_setup_known, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_damaged, tools_fixture_setup_known, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_chain_break, setup_chain, tools_fixture_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
