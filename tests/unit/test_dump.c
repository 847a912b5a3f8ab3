// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * frec dump: the exact lines for a snapshot of known content (text and
 * JSON), time order across CPUs, names as of each event, escaping of hostile
 * names, and bad input: one line naming the file and the problem, exit 1 for
 * a file that cannot be read, exit 3 with the intact generations printed for
 * a damaged or cut one, and never a crash at any cut.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <cmocka.h>
#include "synth.h"
#include "tools_test.h"

static const char *const known_text[] = {
	"1.000000000 0 sched_switch prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R next_comm=worker next_pid=101 next_prio=120",
	"1.000001000 0 sched_waking comm=helper pid=102 prio=120 target_cpu=1 waker=101",
	"1.000002000 1 sched_switch prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R next_comm=helper next_pid=102 next_prio=120",
	"1.000003000 0 sched_switch prev_comm=worker prev_pid=101 prev_prio=120 prev_state=S next_comm=swapper/0 next_pid=0 next_prio=120",
	"1.000004000 1 uprobe probe=uprobe:/bin/app:handle pid=100 tid=102 comm=helper args=7,8",
	"1.000005000 1 uretprobe probe=uretprobe:/bin/app:handle pid=100 tid=102 comm=helper args= ret=-5",
	"1.000006000 1 sched_process_fork parent_comm=helper parent_pid=102 child_comm=child child_pid=103",
	"1.000007000 1 sched_process_exec filename=/bin/true pid=103 old_pid=103 comm=true",
	"1.001000000 0 sched_switch prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R next_comm=true next_pid=103 next_prio=120",
	"1.001001000 0 task_rename pid=103 oldcomm=true newcomm=renamed",
	"1.001002000 0 sched_process_exit comm=renamed pid=103 tgid=103",
	"1.001003000 1 lost cpu=1 count=3",
};

static const char *const known_json[] = {
	"{\"ts\":1000000000,\"cpu\":0,\"type\":\"sched_switch\",\"prev_comm\":\"swapper/0\",\"prev_pid\":0,\"prev_prio\":120,\"prev_state\":0,\"next_comm\":\"worker\",\"next_pid\":101,\"next_prio\":120}",
	"{\"ts\":1000001000,\"cpu\":0,\"type\":\"sched_waking\",\"comm\":\"helper\",\"pid\":102,\"prio\":120,\"target_cpu\":1,\"waker\":101}",
	"{\"ts\":1000002000,\"cpu\":1,\"type\":\"sched_switch\",\"prev_comm\":\"swapper/1\",\"prev_pid\":0,\"prev_prio\":120,\"prev_state\":0,\"next_comm\":\"helper\",\"next_pid\":102,\"next_prio\":120}",
	"{\"ts\":1000003000,\"cpu\":0,\"type\":\"sched_switch\",\"prev_comm\":\"worker\",\"prev_pid\":101,\"prev_prio\":120,\"prev_state\":1,\"next_comm\":\"swapper/0\",\"next_pid\":0,\"next_prio\":120}",
	"{\"ts\":1000004000,\"cpu\":1,\"type\":\"uprobe\",\"probe\":\"uprobe:/bin/app:handle\",\"pid\":100,\"tid\":102,\"comm\":\"helper\",\"args\":[7,8]}",
	"{\"ts\":1000005000,\"cpu\":1,\"type\":\"uretprobe\",\"probe\":\"uretprobe:/bin/app:handle\",\"pid\":100,\"tid\":102,\"comm\":\"helper\",\"args\":[],\"ret\":-5}",
	"{\"ts\":1000006000,\"cpu\":1,\"type\":\"sched_process_fork\",\"parent_comm\":\"helper\",\"parent_pid\":102,\"child_comm\":\"child\",\"child_pid\":103}",
	"{\"ts\":1000007000,\"cpu\":1,\"type\":\"sched_process_exec\",\"filename\":\"/bin/true\",\"pid\":103,\"old_pid\":103,\"comm\":\"true\"}",
	"{\"ts\":1001000000,\"cpu\":0,\"type\":\"sched_switch\",\"prev_comm\":\"swapper/0\",\"prev_pid\":0,\"prev_prio\":120,\"prev_state\":0,\"next_comm\":\"true\",\"next_pid\":103,\"next_prio\":120}",
	"{\"ts\":1001001000,\"cpu\":0,\"type\":\"task_rename\",\"pid\":103,\"oldcomm\":\"true\",\"newcomm\":\"renamed\"}",
	"{\"ts\":1001002000,\"cpu\":0,\"type\":\"sched_process_exit\",\"comm\":\"renamed\",\"pid\":103,\"tgid\":103}",
	"{\"ts\":1001003000,\"cpu\":1,\"type\":\"lost\",\"count\":3}",
};

static void expect_lines(const char *out, const char *const *lines, size_t n, size_t first)
{
	char buf[1024];
	size_t i;

	for (i = 0; i < n; i++) {
		assert_non_null(line_at(out, i, buf, sizeof(buf)));
		assert_string_equal(buf, lines[first + i]);
	}
	assert_int_equal(count_lines(out), n);
}

static void test_known_text(void **state)
{
	struct tools_fixture *f = *state;
	struct captured c = run_dump(f->path, false);

	assert_int_equal(c.status, FREC_EXIT_OK);
	assert_int_equal(c.errlen, 0);
	expect_lines(c.out, known_text, SYNTH_KNOWN_EVENTS, 0);
	captured_free(&c);
}

static void test_known_json(void **state)
{
	struct tools_fixture *f = *state;
	struct captured c = run_dump(f->path, true);

	assert_int_equal(c.status, FREC_EXIT_OK);
	assert_int_equal(c.errlen, 0);
	expect_lines(c.out, known_json, SYNTH_KNOWN_EVENTS, 0);
	captured_free(&c);
}

/* Records drained from one ring come in reservation order, which across
 * CPUs is not quite time order: dump sorts each generation, stably. */
static void test_time_order(void **state)
{
	struct tools_fixture *f = *state;
	struct frec_recorder *rec = synth_recorder(2);
	char path[128], buf[512];
	struct captured c;

	assert_non_null(rec);
	frec_recorder__tick(rec, 5000);
	synth_switch(rec, 5000, 0, 0, 0, "swapper/0", 0, 11, 11, "a");
	synth_switch(rec, 9000, 1, 0, 0, "swapper/1", 0, 12, 12, "b");
	synth_switch(rec, 7000, 0, 11, 11, "a", 1, 0, 0, "swapper/0");
	synth_wake(rec, FREC_EV_SCHED_WAKING, 7000, 1, 12, 12, 11, 11, "a", 0);
	synth_switch(rec, 6000, 1, 12, 12, "b", 0x100, 0, 0, "swapper/1");
	assert_int_equal(synth_write(rec, f->dir, "order.frec", 20000), 0);
	frec_recorder__free(rec);
	snprintf(path, sizeof(path), "%s/order.frec", f->dir);

	c = run_dump(path, false);
	assert_int_equal(c.status, FREC_EXIT_OK);
	assert_int_equal(count_lines(c.out), 5);
	assert_string_equal(line_at(c.out, 0, buf, sizeof(buf)),
			    "0.000005000 0 sched_switch prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R next_comm=a next_pid=11 next_prio=120");
	assert_string_equal(line_at(c.out, 1, buf, sizeof(buf)),
			    "0.000006000 1 sched_switch prev_comm=b prev_pid=12 prev_prio=120 prev_state=R+ next_comm=swapper/1 next_pid=0 next_prio=120");
	/* equal timestamps keep their recorded order */
	assert_string_equal(line_at(c.out, 2, buf, sizeof(buf)),
			    "0.000007000 0 sched_switch prev_comm=a prev_pid=11 prev_prio=120 prev_state=S next_comm=swapper/0 next_pid=0 next_prio=120");
	assert_string_equal(line_at(c.out, 3, buf, sizeof(buf)),
			    "0.000007000 1 sched_waking comm=a pid=11 prio=120 target_cpu=0 waker=12");
	assert_string_equal(line_at(c.out, 4, buf, sizeof(buf)),
			    "0.000009000 1 sched_switch prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R next_comm=b next_pid=12 next_prio=120");
	captured_free(&c);
}

/*
 * Pid reuse within one generation: the generation's table names the tid
 * twice (docs/FORMAT.md), and each event must be named by the entry it
 * used, never by the earlier owner's: a fork's child of the same tgid (the
 * usual reuse, found only through the fork), and a thread that turns up in
 * another process without a fork (its record's tgid).
 */
static void test_pid_reuse_names(void **state)
{
	static const char *const want[] = {
		"0.000001000 0 sched_process_fork parent_comm=parent parent_pid=100 child_comm=parent child_pid=101",
		"0.000002000 0 task_rename pid=101 oldcomm=parent newcomm=old",
		"0.000003000 0 sched_process_exit comm=old pid=101 tgid=101",
		"0.000004000 0 sched_process_fork parent_comm=parent parent_pid=100 child_comm=parent child_pid=101",
		"0.000005000 0 sched_switch prev_comm=parent prev_pid=100 prev_prio=120 prev_state=S next_comm=parent next_pid=101 next_prio=120",
		"0.000006000 0 task_rename pid=101 oldcomm=parent newcomm=new",
		"0.000007000 0 sched_switch prev_comm=new prev_pid=101 prev_prio=120 prev_state=S next_comm=a next_pid=300 next_prio=120",
		"0.000008000 0 sched_switch prev_comm=a prev_pid=300 prev_prio=120 prev_state=S next_comm=swapper/0 next_pid=0 next_prio=120",
		"0.000009000 0 sched_switch prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R next_comm=b next_pid=300 next_prio=120",
	};
	struct tools_fixture *f = *state;
	struct frec_recorder *rec = synth_recorder(1);
	char path[128];
	struct captured c;

	assert_non_null(rec);
	frec_recorder__tick(rec, 1000);
	synth_fork(rec, 1000, 0, 100, 100, "parent", 101, 101, "parent");
	synth_rename(rec, 2000, 0, 101, 101, "parent", "old");
	synth_exit(rec, 3000, 0, 101, 101, "old");
	synth_fork(rec, 4000, 0, 100, 100, "parent", 101, 101, "parent");
	synth_switch(rec, 5000, 0, 100, 100, "parent", 1, 101, 101, "parent");
	synth_rename(rec, 6000, 0, 101, 101, "parent", "new");
	synth_switch(rec, 7000, 0, 101, 101, "new", 1, 300, 300, "a");
	synth_switch(rec, 8000, 0, 300, 300, "a", 1, 0, 0, "swapper/0");
	synth_switch(rec, 9000, 0, 0, 0, "swapper/0", 0, 300, 400, "b");
	assert_int_equal(synth_write(rec, f->dir, "reuse.frec", 20000), 0);
	frec_recorder__free(rec);
	snprintf(path, sizeof(path), "%s/reuse.frec", f->dir);

	c = run_dump(path, false);
	assert_int_equal(c.status, FREC_EXIT_OK);
	expect_lines(c.out, want, sizeof(want) / sizeof(want[0]), 0);
	captured_free(&c);
}

/* Names come from the traced programs: nothing in them may split a text
 * field or break a JSON string. */
static void test_hostile_names(void **state)
{
	struct tools_fixture *f = *state;
	struct frec_recorder *rec = synth_recorder(1);
	static const char evil[] = "a b\t\"c\\\xff";
	char path[128], buf[512];
	struct captured c;

	assert_non_null(rec);
	frec_recorder__tick(rec, 1000);
	synth_switch(rec, 1000, 0, 0, 0, "swapper/0", 0, 42, 42, evil);
	synth_exec(rec, 2000, 0, 42, 42, "x y", "/tmp/dir with space/\"q\"\n");
	assert_int_equal(synth_write(rec, f->dir, "evil.frec", 5000), 0);
	frec_recorder__free(rec);
	snprintf(path, sizeof(path), "%s/evil.frec", f->dir);

	c = run_dump(path, false);
	assert_int_equal(c.status, FREC_EXIT_OK);
	assert_string_equal(line_at(c.out, 0, buf, sizeof(buf)),
			    "0.000001000 0 sched_switch prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R next_comm=a\\x20b\\x09\"c\\\\\\xff next_pid=42 next_prio=120");
	assert_string_equal(line_at(c.out, 1, buf, sizeof(buf)),
			    "0.000002000 0 sched_process_exec filename=/tmp/dir\\x20with\\x20space/\"q\"\\x0a pid=42 old_pid=42 comm=x\\x20y");
	captured_free(&c);

	c = run_dump(path, true);
	assert_int_equal(c.status, FREC_EXIT_OK);
	assert_non_null(strstr(c.out, "\"next_comm\":\"a b\\t\\\"c\\\\\\u00ff\""));
	assert_non_null(strstr(c.out, "\"filename\":\"/tmp/dir with space/\\\"q\\\"\\n\""));
	captured_free(&c);
}

static void expect_one_line_error(const struct captured *c, const char *path, const char *words)
{
	char prefix[256];

	snprintf(prefix, sizeof(prefix), "frec: %s: ", path);
	assert_int_equal(count_lines(c->err), 1);
	assert_true(!strncmp(c->err, prefix, strlen(prefix)));
	assert_non_null(strstr(c->err, words));
}

static void test_missing_file(void **state)
{
	struct tools_fixture *f = *state;
	char path[128];
	struct captured c;

	snprintf(path, sizeof(path), "%s/nothere.frec", f->dir);
	c = run_dump(path, false);
	assert_int_equal(c.status, FREC_EXIT_FAIL);
	assert_int_equal(c.outlen, 0);
	expect_one_line_error(&c, path, "No such file or directory");
	captured_free(&c);
}

static void test_garbage(void **state)
{
	struct tools_fixture *f = *state;
	char path[128], junk[4096];
	struct captured c;
	size_t i;

	for (i = 0; i < sizeof(junk); i++)
		junk[i] = (char)(i * 7919 + 13);
	snprintf(path, sizeof(path), "%s/junk.frec", f->dir);
	write_file(path, junk, sizeof(junk));
	c = run_dump(path, false);
	assert_int_equal(c.status, FREC_EXIT_FAIL);
	assert_int_equal(c.outlen, 0);
	expect_one_line_error(&c, path, "not a frec snapshot");
	captured_free(&c);

	/* a text file */
	write_file(path, "hello\n", 6);
	c = run_dump(path, true);
	assert_int_equal(c.status, FREC_EXIT_FAIL);
	expect_one_line_error(&c, path, "not a frec snapshot");
	captured_free(&c);
}

static void test_newer_version(void **state)
{
	struct tools_fixture *f = *state;
	unsigned char *b;
	char path[128];
	struct captured c;
	size_t n;

	b = read_file(f->path, &n);
	/* the format version: a little-endian u32 after the 8-byte magic */
	assert_int_equal(b[8], FREC_FORMAT_VERSION);	/* what the writer makes */
	b[8] = FREC_FORMAT_VERSION + 1;
	snprintf(path, sizeof(path), "%s/newer.frec", f->dir);
	write_file(path, b, n);
	free(b);
	c = run_dump(path, false);
	assert_int_equal(c.status, FREC_EXIT_FAIL);
	assert_int_equal(c.outlen, 0);
	expect_one_line_error(&c, path, "upgrade frec");
	captured_free(&c);
}

/* A flipped byte in the first generation's payload: its block is reported
 * and skipped, the second generation is still printed, exit 3. */
static void test_bad_crc(void **state)
{
	struct tools_fixture *f = *state;
	size_t offs[8], n, nb;
	unsigned char *b;
	char path[128];
	struct captured c;

	b = read_file(f->path, &n);
	nb = block_offsets(b, n, offs, 8);
	assert_int_equal(nb, SYNTH_KNOWN_GENS);
	b[offs[0] + 28 + 5] ^= 0x40;	/* inside the compressed payload */
	snprintf(path, sizeof(path), "%s/crc.frec", f->dir);
	write_file(path, b, n);
	free(b);

	c = run_dump(path, false);
	assert_int_equal(c.status, FREC_EXIT_DAMAGED);
	expect_one_line_error(&c, path, "generation block 1 is damaged");
	/* generation 2 is intact; its names come from its own task table */
	expect_lines(c.out, known_text, 4, 8);
	captured_free(&c);
}

/* Cut inside the second generation: the first is printed, exit 3. */
static void test_truncated(void **state)
{
	struct tools_fixture *f = *state;
	size_t offs[8], n;
	unsigned char *b;
	char path[128];
	struct captured c;

	b = read_file(f->path, &n);
	assert_int_equal(block_offsets(b, n, offs, 8), SYNTH_KNOWN_GENS);
	snprintf(path, sizeof(path), "%s/cut.frec", f->dir);
	write_file(path, b, offs[1] + 40);
	free(b);

	c = run_dump(path, false);
	assert_int_equal(c.status, FREC_EXIT_DAMAGED);
	expect_one_line_error(&c, path, "generation block 2 is cut short");
	expect_lines(c.out, known_text, 8, 0);
	captured_free(&c);

	/* inside the header: nothing can be read */
	write_file(path, "\x89" "FREC\r\n\x1a\x01\x00", 10);
	c = run_dump(path, false);
	assert_int_equal(c.status, FREC_EXIT_FAIL);
	expect_one_line_error(&c, path, "truncated inside the header");
	captured_free(&c);
}

/* Every cut of the file: dump never crashes, prints only whole intact
 * generations, and its status says whether anything was lost. */
static void test_every_cut(void **state)
{
	struct tools_fixture *f = *state;
	size_t offs[8], n, cut, nb;
	unsigned char *b;
	char path[128];

	b = read_file(f->path, &n);
	nb = block_offsets(b, n, offs, 8);
	assert_int_equal(nb, 2);
	snprintf(path, sizeof(path), "%s/cut.frec", f->dir);
	for (cut = 0; cut < n; cut++) {
		struct captured c;

		write_file(path, b, cut);
		c = run_dump(path, false);
		if (cut < offs[0]) {
			assert_int_equal(c.status, FREC_EXIT_FAIL);
			assert_int_equal(c.outlen, 0);
			assert_int_equal(count_lines(c.err), 1);
		} else if (cut == offs[0] || cut == offs[1]) {
			assert_int_equal(c.status, FREC_EXIT_OK);
			assert_int_equal(c.errlen, 0);
			assert_int_equal(count_lines(c.out), cut == offs[0] ? 0 : 8);
		} else {
			assert_int_equal(c.status, FREC_EXIT_DAMAGED);
			assert_int_equal(count_lines(c.err), 1);
			assert_int_equal(count_lines(c.out), cut < offs[1] ? 0 : 8);
		}
		captured_free(&c);
	}
	free(b);
}

/* Random events of every kind with every field at its extremes (huge
 * CPUs, prios, states, probe ids that name nothing, out-of-order times):
 * every command reads them without a crash (ASan/UBSan watch) and dump
 * prints each once. */
static void test_random_streams(void **state)
{
	struct tools_fixture *f = *state;
	struct synth_rand s = { .x = 0x2545f4914f6cdd1dull, .ts = 1000000000, .ncpus = 8 };
	struct frec_recorder_opts ro = {
		.sz = sizeof(ro), .max_bytes = 64u << 20, .min_age_ns = 1000ull * 1000000000ull,
		.chunk_bytes = 64 * 1024, .ncpus = 16, .max_threads = 4096, .max_processes = 1024,
	};
	static const struct frec_probe_info probes[] = {
		{ .id = 1, .kind = FREC_PROBE_UPROBE, .name = "uprobe:/r:f", .path = "/r", .func = "f", .build_id = "" },
		{ .id = 2, .kind = FREC_PROBE_URETPROBE, .name = "uretprobe:/r:f", .path = "/r", .func = "f", .build_id = "" },
		{ .id = 3, .kind = FREC_PROBE_USDT, .name = "usdt:/r:p:n", .path = "/r", .func = "p:n", .build_id = "" },
		{ .id = 4, .kind = FREC_PROBE_UPROBE, .name = "uprobe:/r:g+4", .path = "/r", .func = "g", .build_id = "", .offset = 4 },
		{ .id = 5, .kind = FREC_PROBE_URETPROBE, .name = "uretprobe:/r:g", .path = "/r", .func = "g", .build_id = "" },
	};
	struct frec_recorder *rec = frec_recorder__new(&ro);
	struct frec_report_opts ro2 = { .top = 0 };
	struct frec_event ev;
	char path[128], out[160];
	struct captured c;
	unsigned long long n = 0;
	size_t i;

	assert_non_null(rec);
	synth_rand_threads(rec);
	frec_recorder__set_probes(rec, probes, 5);
	for (i = 0; i < 20000; i++) {
		synth_rand_event(&s, &ev);
		if (frec_recorder__push_event(rec, &ev) == 0)
			n++;
		if (i % 4000 == 3999)
			frec_recorder__seal(rec, s.ts);
	}
	assert_int_equal(synth_write(rec, f->dir, "rand.frec", s.ts + 1), 0);
	frec_recorder__free(rec);
	snprintf(path, sizeof(path), "%s/rand.frec", f->dir);
	snprintf(out, sizeof(out), "%s/rand.out", f->dir);

	c = run_dump(path, false);
	assert_int_equal(c.status, FREC_EXIT_OK);
	assert_int_equal(count_lines(c.out), n);
	captured_free(&c);
	c = run_dump(path, true);
	assert_int_equal(c.status, FREC_EXIT_OK);
	assert_int_equal(count_lines(c.out), n);
	captured_free(&c);
	c = run_info(path, true);
	assert_int_equal(c.status, FREC_EXIT_OK);
	captured_free(&c);
	c = run_report(path, &ro2);
	assert_int_equal(c.status, FREC_EXIT_OK);
	captured_free(&c);
	ro2.json = true;
	c = run_report(path, &ro2);
	assert_int_equal(c.status, FREC_EXIT_OK);
	captured_free(&c);
	assert_int_equal(run_export(path, FREC_EXPORT_PERFETTO, false, out, &c), FREC_EXIT_OK);
	captured_free(&c);
	assert_int_equal(run_export(path, FREC_EXPORT_CHROME, true, out, &c), FREC_EXIT_OK);
	captured_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_known_text, tools_fixture_setup_known, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_known_json, tools_fixture_setup_known, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_time_order, tools_fixture_setup_known, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_pid_reuse_names, tools_fixture_setup_known, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_hostile_names, tools_fixture_setup_known, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_missing_file, tools_fixture_setup_known, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_garbage, tools_fixture_setup_known, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_newer_version, tools_fixture_setup_known, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_bad_crc, tools_fixture_setup_known, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_truncated, tools_fixture_setup_known, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_every_cut, tools_fixture_setup_known, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_random_streams, tools_fixture_setup_known, tools_fixture_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
