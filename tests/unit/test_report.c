// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * frec report on a snapshot of known content: the exact on-CPU times,
 * switch counts, run-queue latencies, call latencies (including a call that
 * spans two generations and one that never returns), probe hits and drops,
 * in text and JSON, whole and narrowed by --pid, --tid, --since and --until.
 *
 * The recording (T = 2 s; threads A=201 and B=202 of process 200 "server",
 * C=301 of process 300 "gamma"; probes 1 uprobe and 2 uretprobe on
 * /bin/srv:work, 3 USDT /bin/srv:app:tick):
 *
 *   generation 1
 *   T+0      cpu0 switch idle -> A
 *   T+0      cpu1 switch idle -> C
 *   T+1000   cpu0 A wakes B
 *   T+5000   cpu1 switch C (preempted, R+) -> B        B waited 4000
 *   T+6000   cpu1 B enters work(1)
 *   T+9000   cpu0 switch A (S) -> idle
 *   T+10000  cpu1 B wakes A
 *   T+18000  cpu0 switch idle -> A                      A waited 8000
 *   T+19000  cpu0 A enters work(2)
 *   sealed at T+20000
 *   generation 2
 *   T+22000  cpu1 B returns from work: 0                16000, across generations
 *   T+27000  cpu0 A returns from work: 1                8000
 *   T+28000, T+29000  cpu0 A hits USDT tick
 *   T+30000  cpu1 switch B (S) -> C
 *   T+31000  cpu0 A enters work(3)
 *   T+32000  cpu0 A returns from work: 7                1000
 *   T+33000  cpu0 A enters work(4)                      never returns
 *   T+34000  5 records lost on cpu0
 *   T+35000  cpu0 A wakes B                             B never runs again
 *   sealed at T+50000
 *
 * So A ran 9000 ns, then 16000 until records were lost on its CPU (what ran
 * there after is unknown): 25000 ns; B 25000; C 5000 + 20000 = 25000 until
 * the end (T+50000). The run-queue latencies are 4000 and 8000 ns; the calls
 * took 16000, 8000 and 1000 ns. All of these have at most 8 significant
 * bits, so the percentiles are exact.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <cmocka.h>
#include "synth.h"
#include "synth_chain.h"
#include "tools_test.h"

#define T 2000000000ull

static int make_snapshot(const char *dir, const char *name)
{
	static const struct frec_probe_info probes[] = {
		{ .id = 1, .kind = FREC_PROBE_UPROBE, .name = "uprobe:/bin/srv:work",
		  .path = "/bin/srv", .func = "work", .build_id = "", .nargs = 1 },
		{ .id = 2, .kind = FREC_PROBE_URETPROBE, .name = "uretprobe:/bin/srv:work",
		  .path = "/bin/srv", .func = "work", .build_id = "" },
		{ .id = 3, .kind = FREC_PROBE_USDT, .name = "usdt:/bin/srv:app:tick",
		  .path = "/bin/srv", .func = "app:tick", .build_id = "" },
	};
	static const __u64 a1[] = { 1 }, a2[] = { 2 }, a3[] = { 3 }, a4[] = { 4 };
	struct frec_recorder *rec = synth_recorder(2);
	int err;

	if (!rec)
		return -1;
	frec_recorder__set_probes(rec, probes, 3);
	frec_recorder__set_cmdline(rec, 200, "/usr/bin/server -x");
	frec_recorder__tick(rec, T);
	synth_switch(rec, T + 0, 0, 0, 0, "swapper/0", 0, 201, 200, "alpha");
	synth_switch(rec, T + 0, 1, 0, 0, "swapper/1", 0, 301, 300, "gamma");
	synth_wake(rec, FREC_EV_SCHED_WAKING, T + 1000, 0, 201, 200, 202, 200, "beta", 1);
	synth_switch(rec, T + 5000, 1, 301, 300, "gamma", 0x100, 202, 200, "beta");
	synth_probe(rec, FREC_EV_UPROBE, T + 6000, 1, 202, 200, 1, 1, a1, 0);
	synth_switch(rec, T + 9000, 0, 201, 200, "alpha", 1, 0, 0, "swapper/0");
	synth_wake(rec, FREC_EV_SCHED_WAKING, T + 10000, 1, 202, 200, 201, 200, "alpha", 0);
	synth_switch(rec, T + 18000, 0, 0, 0, "swapper/0", 0, 201, 200, "alpha");
	synth_probe(rec, FREC_EV_UPROBE, T + 19000, 0, 201, 200, 1, 1, a2, 0);
	frec_recorder__seal(rec, T + 20000);
	synth_probe(rec, FREC_EV_URETPROBE, T + 22000, 1, 202, 200, 2, 0, NULL, 0);
	synth_probe(rec, FREC_EV_URETPROBE, T + 27000, 0, 201, 200, 2, 0, NULL, 1);
	synth_probe(rec, FREC_EV_USDT, T + 28000, 0, 201, 200, 3, 0, NULL, 0);
	synth_probe(rec, FREC_EV_USDT, T + 29000, 0, 201, 200, 3, 0, NULL, 0);
	synth_switch(rec, T + 30000, 1, 202, 200, "beta", 1, 301, 300, "gamma");
	synth_probe(rec, FREC_EV_UPROBE, T + 31000, 0, 201, 200, 1, 1, a3, 0);
	synth_probe(rec, FREC_EV_URETPROBE, T + 32000, 0, 201, 200, 2, 0, NULL, 7);
	synth_probe(rec, FREC_EV_UPROBE, T + 33000, 0, 201, 200, 1, 1, a4, 0);
	frec_recorder__add_lost(rec, 0, 5, T + 34000);
	synth_wake(rec, FREC_EV_SCHED_WAKING, T + 35000, 0, 201, 200, 202, 200, "beta", 1);
	err = synth_write(rec, dir, name, T + 50000);
	frec_recorder__free(rec);
	return err;
}

static int setup(void **state)
{
	return tools_fixture_setup(state, "report.frec", make_snapshot, NULL);
}

static void test_text(void **state)
{
	struct tools_fixture *f = *state;
	struct frec_report_opts o = { .top = 10 };
	struct captured c = run_report(f->path, &o);

	assert_int_equal(c.status, FREC_EXIT_OK);
	assert_int_equal(c.errlen, 0);
	expect(c.out, ": 2.000000000 .. 2.000050000 (0.000050000 s), 2 generations, 19 events (19 in range)\n");
	/* on-CPU by thread: all tie on time and switches, tid decides */
	expect(c.out, "On-CPU time by thread (top 3 of 3)\n"
		      "     TID      PID COMM                   ON-CPU(ms)   SWITCHES  PREEMPTED\n"
		      "     201      200 alpha                    0.025000          1          0\n"
		      "     202      200 beta                     0.025000          1          0\n"
		      "     301      300 gamma                    0.025000          1          1\n");
	expect(c.out, "On-CPU time by process (top 2 of 2)\n"
		      "     PID  THREADS COMM                   ON-CPU(ms)   SWITCHES  PREEMPTED\n"
		      "     200        2 server                   0.050000          2          0\n"
		      "     300        1 gamma                    0.025000          1          1\n");
	expect(c.out, "Run-queue latency (waking -> on CPU): 2 samples, p50 4.000 us, p99 8.000 us, max 8.000 us, mean 6.000 us\n"
		      "                 usecs : count      distribution\n"
		      "                4 -> 7 : 1          |****************************************|\n"
		      "               8 -> 15 : 1          |****************************************|\n");
	expect(c.out, "Worst threads by run-queue latency (top 2 of 2)\n"
		      "     TID      PID COMM                  COUNT        P50(us)        P99(us)        MAX(us)\n"
		      "     201      200 alpha                     1          8.000          8.000          8.000\n"
		      "     202      200 beta                      1          4.000          4.000          4.000\n");
	expect(c.out, "Probe hits (3 probes)\n"
		      "  uprobe:/bin/srv:work: 4\n"
		      "  uretprobe:/bin/srv:work: 3\n"
		      "  usdt:/bin/srv:app:tick: 2\n");
	expect(c.out, "  /bin/srv:work: calls 4, returned 3, unfinished 1, returns without entry 0\n"
		      "    latency: 3 samples, p50 8.000 us, p99 16.000 us, max 16.000 us, mean 8.333 us\n"
		      "                   usecs : count      distribution\n"
		      "                  0 -> 1 : 1          |****************************************|\n"
		      "                  2 -> 3 : 0          |                                        |\n"
		      "                  4 -> 7 : 0          |                                        |\n"
		      "                 8 -> 15 : 1          |****************************************|\n"
		      "                16 -> 31 : 1          |****************************************|\n");
	expect(c.out, "  /bin/srv:app:tick: usdt hits 2\n");
	expect(c.out, "Drops: 5 records lost\n"
		      "  cpu 0: 5\n"
		      "  cpu 1: 0\n"
		      "  2.000022000 .. 2.000050000: 5\n");
	expect(c.out, "\nBroken switch chains: 0 (0.000000 ms counted for no thread)\n");
	captured_free(&c);
}

static void test_json(void **state)
{
	struct tools_fixture *f = *state;
	struct frec_report_opts o = { .json = true, .top = 10 };
	struct captured c = run_report(f->path, &o);

	assert_int_equal(c.status, FREC_EXIT_OK);
	assert_int_equal(count_lines(c.out), 1);
	expect(c.out, "\"start_ns\":2000000000,\"end_ns\":2000050000,\"generations\":2,\"events\":19,");
	expect(c.out, "\"threads\":[{\"tid\":201,\"pid\":200,\"comm\":\"alpha\",\"oncpu_ns\":25000,\"switches\":1,\"preempted\":0},"
		      "{\"tid\":202,\"pid\":200,\"comm\":\"beta\",\"oncpu_ns\":25000,\"switches\":1,\"preempted\":0},"
		      "{\"tid\":301,\"pid\":300,\"comm\":\"gamma\",\"oncpu_ns\":25000,\"switches\":1,\"preempted\":1}]");
	expect(c.out, "\"processes\":[{\"pid\":200,\"threads\":2,\"comm\":\"server\",\"cmdline\":\"/usr/bin/server -x\",\"oncpu_ns\":50000,\"switches\":2,\"preempted\":0},"
		      "{\"pid\":300,\"threads\":1,\"comm\":\"gamma\",\"cmdline\":\"\",\"oncpu_ns\":25000,\"switches\":1,\"preempted\":1}]");
	expect(c.out, "\"runqlat\":{\"count\":2,\"p50_ns\":4000,\"p99_ns\":8000,\"max_ns\":8000,\"mean_ns\":6000,"
		      "\"log2_us\":[{\"lo\":4,\"hi\":7,\"count\":1},{\"lo\":8,\"hi\":15,\"count\":1}]}");
	expect(c.out, "{\"func\":\"/bin/srv:work\",\"usdt\":false,\"calls\":4,\"returns\":3,\"unfinished\":1,"
		      "\"unmatched_returns\":0,\"hits\":0,\"latency\":{\"count\":3,\"p50_ns\":8000,\"p99_ns\":16000,"
		      "\"max_ns\":16000,\"mean_ns\":8333,");
	expect(c.out, "\"drops\":{\"total\":5,\"by_cpu\":[5,0],\"unknown_cpu\":0,\"gaps\":0,\"gap_ns\":0,\"by_generation\":[{\"start_ns\":2000022000,\"end_ns\":2000050000,\"count\":5}]},"
		      "\"chain_breaks\":0,\"chain_break_unknown_ns\":0,"
		      "\"triggers\":[],\"triggers_suppressed\":[]}\n");
	captured_free(&c);

	/* and it is JSON */
	if (have_program("python3")) {
		char cmd[512], json[160], *out = NULL;
		size_t len;

		c = run_report(f->path, &o);
		snprintf(json, sizeof(json), "%s/report.json", f->dir);
		write_file(json, c.out, c.outlen);
		snprintf(cmd, sizeof(cmd), "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); "
			 "print(d[\"threads\"][0][\"oncpu_ns\"], d[\"calls\"][0][\"returns\"])' %s", json);
		assert_int_equal(run_cmd(cmd, &out, &len), 0);
		assert_string_equal(out, "25000 3\n");
		free(out);
		captured_free(&c);
	}
}

static void test_time_range(void **state)
{
	struct tools_fixture *f = *state;
	struct frec_report_opts o = { .json = true, .top = 10 };
	struct captured c;

	/* relative: T+4000 .. T+20000 */
	o.has_since = o.since_rel = true;
	o.since_ns = 4000;
	o.has_until = o.until_rel = true;
	o.until_ns = 20000;
	c = run_report(f->path, &o);
	assert_int_equal(c.status, FREC_EXIT_OK);
	expect(c.out, "\"start_ns\":2000004000,\"end_ns\":2000020000,");
	expect(c.out, "\"threads\":[{\"tid\":202,\"pid\":200,\"comm\":\"beta\",\"oncpu_ns\":15000,\"switches\":0,\"preempted\":0},"
		      "{\"tid\":201,\"pid\":200,\"comm\":\"alpha\",\"oncpu_ns\":7000,\"switches\":1,\"preempted\":0},"
		      "{\"tid\":301,\"pid\":300,\"comm\":\"gamma\",\"oncpu_ns\":1000,\"switches\":1,\"preempted\":1}]");
	expect(c.out, "\"runqlat\":{\"count\":2,\"p50_ns\":4000,\"p99_ns\":8000,");
	expect(c.out, "\"calls\":2,\"returns\":0,\"unfinished\":0,");
	expect(c.out, "\"probes\":[{\"name\":\"uprobe:/bin/srv:work\",\"kind\":\"uprobe\",\"hits\":2},"
		      "{\"name\":\"uretprobe:/bin/srv:work\",\"kind\":\"uretprobe\",\"hits\":0},"
		      "{\"name\":\"usdt:/bin/srv:app:tick\",\"kind\":\"usdt\",\"hits\":0}]");
	expect(c.out, "\"drops\":{\"total\":0,\"by_cpu\":[0,0],\"unknown_cpu\":0,\"gaps\":0,\"gap_ns\":0,\"by_generation\":[]}");
	captured_free(&c);

	/* absolute, as dump prints it: the same window */
	o.since_rel = o.until_rel = false;
	o.since_ns = T + 4000;
	o.until_ns = T + 20000;
	c = run_report(f->path, &o);
	assert_int_equal(c.status, FREC_EXIT_OK);
	expect(c.out, "\"start_ns\":2000004000,\"end_ns\":2000020000,");
	expect(c.out, "\"oncpu_ns\":15000,");
	captured_free(&c);
}

static void test_pid_tid(void **state)
{
	struct tools_fixture *f = *state;
	struct frec_report_opts o = { .json = true, .top = 10 };
	struct captured c;

	o.has_pid = true;
	o.pid = 300;
	c = run_report(f->path, &o);
	assert_int_equal(c.status, FREC_EXIT_OK);
	expect(c.out, "\"threads\":[{\"tid\":301,\"pid\":300,\"comm\":\"gamma\",\"oncpu_ns\":25000,\"switches\":1,\"preempted\":1}],\"threads_total\":1,");
	expect(c.out, "\"runqlat\":{\"count\":0,");
	expect(c.out, "\"calls\":0,\"returns\":0,\"unfinished\":0,");
	captured_free(&c);

	o.has_pid = false;
	o.has_tid = true;
	o.tid = 201;
	c = run_report(f->path, &o);
	assert_int_equal(c.status, FREC_EXIT_OK);
	expect(c.out, "\"threads\":[{\"tid\":201,\"pid\":200,\"comm\":\"alpha\",\"oncpu_ns\":25000,\"switches\":1,\"preempted\":0}],\"threads_total\":1,");
	expect(c.out, "\"runqlat\":{\"count\":1,\"p50_ns\":8000,\"p99_ns\":8000,\"max_ns\":8000,");
	expect(c.out, "\"calls\":3,\"returns\":2,\"unfinished\":1,\"unmatched_returns\":0,\"hits\":0,"
		      "\"latency\":{\"count\":2,\"p50_ns\":1000,\"p99_ns\":8000,\"max_ns\":8000,\"mean_ns\":4500,");
	expect(c.out, "{\"name\":\"uprobe:/bin/srv:work\",\"kind\":\"uprobe\",\"hits\":3},"
		      "{\"name\":\"uretprobe:/bin/srv:work\",\"kind\":\"uretprobe\",\"hits\":2},"
		      "{\"name\":\"usdt:/bin/srv:app:tick\",\"kind\":\"usdt\",\"hits\":2}");
	captured_free(&c);
}

static void test_top(void **state)
{
	struct tools_fixture *f = *state;
	struct frec_report_opts o = { .top = 1 };
	struct captured c = run_report(f->path, &o);

	assert_int_equal(c.status, FREC_EXIT_OK);
	expect(c.out, "On-CPU time by thread (top 1 of 3)\n"
		      "     TID      PID COMM                   ON-CPU(ms)   SWITCHES  PREEMPTED\n"
		      "     201      200 alpha                    0.025000          1          0\n\n");
	captured_free(&c);
}

/* The state carried across generations must survive a skipped one without
 * inventing latencies across the gap. */
static void test_damaged_middle(void **state)
{
	struct tools_fixture *f = *state;
	struct frec_recorder *rec = synth_recorder(1);
	struct frec_report_opts o = { .json = true, .top = 10 };
	size_t offs[8], n;
	unsigned char *b;
	char path[128];
	struct captured c;

	assert_non_null(rec);
	frec_recorder__tick(rec, T);
	synth_switch(rec, T, 0, 0, 0, "swapper/0", 0, 11, 11, "a");
	synth_wake(rec, FREC_EV_SCHED_WAKING, T + 1000, 0, 11, 11, 12, 12, "b", 0);
	frec_recorder__seal(rec, T + 2000);
	synth_switch(rec, T + 3000, 0, 11, 11, "a", 1, 0, 0, "swapper/0");	/* damaged below */
	frec_recorder__seal(rec, T + 4000);
	synth_switch(rec, T + 6000, 0, 0, 0, "swapper/0", 0, 12, 12, "b");
	assert_int_equal(synth_write(rec, f->dir, "gap.frec", T + 10000), 0);
	frec_recorder__free(rec);
	snprintf(path, sizeof(path), "%s/gap.frec", f->dir);
	b = read_file(path, &n);
	assert_int_equal(block_offsets(b, n, offs, 8), 3);
	b[offs[1] + 30] ^= 0xff;
	write_file(path, b, n);
	free(b);

	c = run_report(path, &o);
	assert_int_equal(c.status, FREC_EXIT_DAMAGED);
	assert_int_equal(count_lines(c.err), 1);
	/* a was seen running until the end of generation 1; b from the switch
	 * in generation 3 to the end */
	expect(c.out, "\"threads\":[{\"tid\":12,\"pid\":12,\"comm\":\"b\",\"oncpu_ns\":4000,\"switches\":0,\"preempted\":0},"
		      "{\"tid\":11,\"pid\":11,\"comm\":\"a\",\"oncpu_ns\":2000,\"switches\":0,\"preempted\":0}]");
	/* the wakeup of b before the gap is forgotten, not paired across it */
	expect(c.out, "\"runqlat\":{\"count\":0,");
	captured_free(&c);
}

/* A and B ran 10000 ns each, not 20000 (synth_unknown_cpu_snapshot). */
static int setup_unknown_cpu(void **state)
{
	return tools_fixture_setup(state, "unknown.frec", synth_unknown_cpu_snapshot, NULL);
}

static void test_lost_unknown_cpu(void **state)
{
	struct tools_fixture *f = *state;
	struct frec_report_opts o = { .top = 10 };
	struct captured c = run_report(f->path, &o);

	assert_int_equal(c.status, FREC_EXIT_OK);
	expect(c.out, "     201      200 alpha                    0.010000          0          0\n"
		      "     202      200 beta                     0.010000          0          0\n");
	expect(c.out, "Drops: 7 records lost\n"
		      "  cpu 0: 0\n"
		      "  cpu 1: 0\n"
		      "  cpu unknown: 7\n");
	captured_free(&c);

	o.json = true;
	c = run_report(f->path, &o);
	assert_int_equal(c.status, FREC_EXIT_OK);
	expect(c.out, "\"drops\":{\"total\":7,\"by_cpu\":[0,0],\"unknown_cpu\":7,");
	captured_free(&c);
}

/*
 * The kernel switched agent in and never out (synth_chain.h): agent ran
 * until its last event (1 us), not until the next switch on its CPU, which
 * names another prev; other's switch is counted but no time before it.
 */
static int setup_chain(void **state)
{
	return tools_fixture_setup(state, "chain.frec", synth_chain_break_snapshot, NULL);
}

static void test_chain_break(void **state)
{
	struct tools_fixture *f = *state;
	struct frec_report_opts o = { .top = 10 };
	struct captured c = run_report(f->path, &o);

	assert_int_equal(c.status, FREC_EXIT_OK);
	assert_int_equal(c.errlen, 0);
	expect(c.out, "On-CPU time by thread (top 3 of 3)\n"
		      "     TID      PID COMM                   ON-CPU(ms)   SWITCHES  PREEMPTED\n"
		      "     303      303 worker                  39.999000          1          0\n"
		      "     301      300 agent                    0.001000          0          0\n"
		      "     302      300 other                    0.000000          1          0\n");
	expect(c.out, "\nBroken switch chains: 1 (39.999000 ms counted for no thread)\n");
	captured_free(&c);

	o.json = true;
	c = run_report(f->path, &o);
	assert_int_equal(c.status, FREC_EXIT_OK);
	expect(c.out, "{\"tid\":301,\"pid\":300,\"comm\":\"agent\",\"oncpu_ns\":1000,\"switches\":0,");
	expect(c.out, "\"chain_breaks\":1,\"chain_break_unknown_ns\":39999000,"
		      "\"triggers\":[],\"triggers_suppressed\":[]}\n");
	captured_free(&c);
}

/*
 * A process that execs between two generations: the report names it by
 * the program it became, as it names its thread by its latest comm.
 */
static int make_exec_snapshot(const char *dir, const char *name)
{
	struct frec_recorder *rec = synth_recorder(2);
	int err;

	if (!rec)
		return -1;
	frec_recorder__set_cmdline(rec, 200, "/usr/bin/server -x");
	frec_recorder__tick(rec, T);
	synth_switch(rec, T + 0, 0, 0, 0, "swapper/0", 0, 200, 200, "server");
	synth_switch(rec, T + 4000, 0, 200, 200, "server", 1, 0, 0, "swapper/0");
	frec_recorder__seal(rec, T + 5000);
	synth_switch(rec, T + 6000, 0, 0, 0, "swapper/0", 0, 200, 200, "server");
	synth_exec(rec, T + 7000, 0, 200, 200, "other", "/usr/bin/other");
	synth_switch(rec, T + 9000, 0, 200, 200, "other", 1, 0, 0, "swapper/0");
	frec_recorder__seal(rec, T + 10000);
	/* frecd reads the new command line after the exec's seal asked */
	frec_recorder__set_cmdline(rec, 200, "/usr/bin/other -y");
	synth_switch(rec, T + 11000, 0, 0, 0, "swapper/0", 0, 200, 200, "other");
	synth_switch(rec, T + 12000, 0, 200, 200, "other", 1, 0, 0, "swapper/0");
	err = synth_write(rec, dir, name, T + 20000);
	frec_recorder__free(rec);
	return err;
}

static int setup_exec(void **state)
{
	return tools_fixture_setup(state, "exec.frec", make_exec_snapshot, NULL);
}

static void test_exec_renames_process(void **state)
{
	struct tools_fixture *f = *state;
	struct frec_report_opts o = { .json = true, .top = 10 };
	struct captured c = run_report(f->path, &o);

	assert_int_equal(c.status, FREC_EXIT_OK);
	expect(c.out, "\"threads\":[{\"tid\":200,\"pid\":200,\"comm\":\"other\",");
	expect(c.out, "\"processes\":[{\"pid\":200,\"threads\":1,\"comm\":\"other\","
		      "\"cmdline\":\"/usr/bin/other -y\",\"oncpu_ns\":8000,");
	captured_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_text, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_json, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_time_range, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_pid_tid, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_top, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_damaged_middle, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_lost_unknown_cpu, setup_unknown_cpu,
						tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_chain_break, setup_chain, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_exec_renames_process, setup_exec,
						tools_fixture_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
