// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * frec export --format chrome: the output is JSON that a real parser (Python's
 * json module) accepts, even with hostile names, and it holds what the
 * snapshot holds: a "running" slice per stretch a thread spent on a CPU (on
 * its own lane and on its CPU's lane), a complete slice per probe call, an
 * instant per USDT hit, fork, exec, exit and lost-records event, and names
 * for every process and thread (a process's again once its command line
 * is known).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <cmocka.h>
#include "synth.h"
#include "synth_chain.h"
#include "tools_test.h"

/* Counts by kind of event, printed by Python as "key=count" lines. */
static const char census_py[] =
	"import json, sys, collections\n"
	"d = json.load(open(sys.argv[1], encoding='utf-8'))\n"
	"c = collections.Counter()\n"
	"for e in d['traceEvents']:\n"
	"    ph = e['ph']\n"
	"    if ph == 'M':\n"
	"        c['M.' + e['name']] += 1\n"
	"    elif ph == 'X':\n"
	"        c['X.' + e['cat']] += 1\n"
	"        assert e['dur'] >= 0\n"
	"    elif ph == 'i':\n"
	"        c['i.' + e['cat'] + '.' + e['name']] += 1\n"
	"    else:\n"
	"        c[ph] += 1\n"
	"for k in sorted(c):\n"
	"    print('%s=%d' % (k, c[k]))\n";

/* The fixture: snapshot name made by make, and census.py beside it. */
static int setup_census(void **state, const char *name, int (*make)(const char *, const char *))
{
	struct tools_fixture *f;
	char py[128];

	tools_fixture_setup(state, name, make, "out.json");
	f = *state;
	snprintf(py, sizeof(py), "%s/census.py", f->dir);
	write_file(py, census_py, strlen(census_py));
	return 0;
}

static int setup(void **state)
{
	return setup_census(state, "known.frec", synth_known_snapshot);
}

/* Python's counts for the export in f->out; NULL (test skipped) without python3. */
static char *census(struct tools_fixture *f)
{
	char cmd[512], *out = NULL;
	size_t len;

	if (!have_program("python3"))
		return NULL;
	snprintf(cmd, sizeof(cmd), "python3 %s/census.py %s", f->dir, f->out);
	assert_int_equal(run_cmd(cmd, &out, &len), 0);
	return out;
}

static unsigned long census_get(const char *census, const char *key)
{
	char needle[128];
	const char *p;

	snprintf(needle, sizeof(needle), "%s=", key);
	for (p = census; (p = strstr(p, needle)); p++)
		if (p == census || p[-1] == '\n')
			return strtoul(p + strlen(needle), NULL, 10);
	return 0;
}

static void test_known(void **state)
{
	struct tools_fixture *f = *state;
	struct captured cap;
	char *c;
	unsigned char *json;
	size_t n;

	assert_int_equal(run_export(f->path, FREC_EXPORT_CHROME, false, f->out, &cap), 0);
	assert_int_equal(cap.errlen, 0);
	captured_free(&cap);

	json = read_file(f->out, &n);
	/* the call, its arguments and return value, on helper's probes lane */
	assert_non_null(strstr((char *)json, "{\"name\":\"handle\",\"cat\":\"probe\",\"ph\":\"X\","
					     "\"ts\":1000004.000,\"dur\":1.000,\"pid\":100,\"tid\":8388710,"
					     "\"args\":{\"arg0\":7,\"arg1\":8,\"ret\":-5}}"));
	assert_non_null(strstr((char *)json, "{\"name\":\"running\",\"cat\":\"sched\",\"ph\":\"X\","
					     "\"ts\":1000000.000,\"dur\":3.000,\"pid\":100,\"tid\":101,"
					     "\"args\":{\"cpu\":0}}"));
	assert_non_null(strstr((char *)json, "\"name\":\"process_name\",\"pid\":100,\"tid\":100,"
					     "\"args\":{\"name\":\"app --serve\"}"));
	/* the last name of 103 wins */
	assert_non_null(strstr((char *)json, "\"name\":\"thread_name\",\"pid\":103,\"tid\":103,"
					     "\"args\":{\"name\":\"renamed\"}"));
	free(json);

	c = census(f);
	if (!c) {
		print_message("python3 missing: JSON parse check skipped\n");
		return;
	}
	/* worker 0..3000 on cpu 0; helper from 2000 on cpu 1 and 103 from
	 * 1001000000 on cpu 0, both until the last event */
	assert_int_equal(census_get(c, "X.sched"), 3);
	assert_int_equal(census_get(c, "X.cpu"), 3);
	assert_int_equal(census_get(c, "X.probe"), 1);
	assert_int_equal(census_get(c, "i.sched.fork"), 1);
	assert_int_equal(census_get(c, "i.sched.exec"), 1);
	assert_int_equal(census_get(c, "i.sched.exit"), 1);
	assert_int_equal(census_get(c, "i.lost.lost records"), 1);
	assert_int_equal(census_get(c, "M.process_name"), 3);	/* CPUs, 100, 103 */
	assert_int_equal(census_get(c, "M.thread_name"), 8);	/* 2 CPUs, 101, 102, its probes, 103 x3 */
	assert_int_equal(census_get(c, "B") + census_get(c, "E"), 0);
	free(c);
}

/* Expected running slices of the busy recording: one per switch away from a
 * task (the first switch on each CPU is away from idle), plus the task each
 * CPU runs at the end. */
static unsigned long busy_running(const char *path)
{
	struct frec_reader *r;
	struct frec_gen *g;
	struct frec_event ev;
	__u32 cur[BUSY_CPUS] = { 0 }, i;
	unsigned long n = 0;

	assert_int_equal(frec_reader__open(path, &r), 0);
	while (frec_reader__next_gen(r, &g) > 0) {
		while (frec_gen__next_event(g, &ev) > 0) {
			if (ev.type != FREC_EV_SCHED_SWITCH)
				continue;
			n += ev.sw.prev_pid != 0;
			cur[ev.cpu] = ev.sw.next_pid;
		}
	}
	frec_reader__free(r);
	for (i = 0; i < BUSY_CPUS; i++)
		n += cur[i] != 0;
	return n;
}

static void test_busy(void **state)
{
	struct tools_fixture *f = *state;
	struct busy_counts want;
	struct captured cap;
	char path[128], *c;
	unsigned long running;

	assert_int_equal(make_busy_snapshot(f->dir, "busy.frec", 50000, 99, &want), 0);
	snprintf(path, sizeof(path), "%s/busy.frec", f->dir);
	running = busy_running(path);
	assert_int_equal(run_export(path, FREC_EXPORT_CHROME, false, f->out, &cap), 0);
	captured_free(&cap);
	c = census(f);
	if (!c) {
		print_message("python3 missing: JSON parse check skipped\n");
		return;
	}
	assert_int_equal(census_get(c, "X.sched"), running);
	assert_int_equal(census_get(c, "X.cpu"), running);
	assert_int_equal(census_get(c, "X.probe"), want.by_type[FREC_EV_UPROBE]);
	assert_int_equal(want.by_type[FREC_EV_UPROBE], want.by_type[FREC_EV_URETPROBE]);
	assert_int_equal(census_get(c, "i.probe.app:mark"), want.by_type[FREC_EV_USDT]);
	assert_int_equal(census_get(c, "i.sched.fork"), want.by_type[FREC_EV_PROCESS_FORK]);
	assert_int_equal(census_get(c, "i.sched.exec"), want.by_type[FREC_EV_PROCESS_EXEC]);
	assert_int_equal(census_get(c, "i.sched.exit"), want.by_type[FREC_EV_PROCESS_EXIT]);
	assert_int_equal(census_get(c, "i.lost.lost records"), want.by_type[FREC_EV_LOST]);
	free(c);
}

/* A switch-in the kernel never switched out (synth_chain.h): agent's running
 * slice ends at its last event, 1 us, not at the next switch 40 ms later;
 * an instant on the CPU lane marks the break. */
static int setup_chain(void **state)
{
	return setup_census(state, "chain.frec", synth_chain_break_snapshot);
}

static void test_chain_break(void **state)
{
	struct tools_fixture *f = *state;
	struct captured cap;
	unsigned char *json;
	size_t n;
	char *c;

	assert_int_equal(run_export(f->path, FREC_EXPORT_CHROME, false, f->out, &cap), 0);
	assert_int_equal(cap.errlen, 0);
	captured_free(&cap);
	json = read_file(f->out, &n);
	assert_non_null(strstr((char *)json, "{\"name\":\"running\",\"cat\":\"sched\",\"ph\":\"X\","
					     "\"ts\":3000000.000,\"dur\":1.000,\"pid\":300,\"tid\":301,"
					     "\"args\":{\"cpu\":0}}"));
	assert_non_null(strstr((char *)json, "{\"name\":\"switch chain break\",\"cat\":\"sched\","
					     "\"ph\":\"i\",\"s\":\"t\",\"ts\":3040000.000,"
					     "\"pid\":4194304,\"tid\":4194305,"
					     "\"args\":{\"switched_in\":301,\"prev\":302,"
					     "\"unknown_since\":3000001.000}}"));
	free(json);
	c = census(f);
	if (!c) {
		print_message("python3 missing: JSON parse check skipped\n");
		return;
	}
	assert_int_equal(census_get(c, "X.sched"), 2);	/* agent and worker */
	assert_int_equal(census_get(c, "i.sched.switch chain break"), 1);
	free(c);
}

/*
 * Export dir/name (a snapshot the test wrote) as Chrome JSON to f->out and
 * run the Python loop body over its events (e, one at a time): what it
 * prints, to free; NULL (check skipped) without python3.
 */
static char *export_py(struct tools_fixture *f, const char *name, const char *body)
{
	char path[128], cmd[1024], *out = NULL;
	struct captured cap;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	assert_int_equal(run_export(path, FREC_EXPORT_CHROME, false, f->out, &cap), 0);
	captured_free(&cap);
	if (!have_program("python3")) {
		print_message("python3 missing: JSON parse check skipped\n");
		return NULL;
	}
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json,sys\n"
		 "d = json.load(open(sys.argv[1], encoding=\"utf-8\"))\n"
		 "for e in d[\"traceEvents\"]:\n%s' %s", body, f->out);
	assert_int_equal(run_cmd(cmd, &out, &len), 0);
	return out;
}

/* Names with quotes, backslashes, control characters and bytes that are not
 * UTF-8 still make valid JSON, and read back as what they were. */
static void test_hostile_names(void **state)
{
	struct tools_fixture *f = *state;
	struct frec_recorder *rec = synth_recorder(1);
	static const char evil[] = "a\"b\\c\n\x01\xff\xc3\xa9";
	char *out;

	assert_non_null(rec);
	frec_recorder__set_cmdline(rec, 42, "/bin/\"x\" \\y");
	frec_recorder__tick(rec, 1000);
	synth_switch(rec, 1000, 0, 0, 0, "swapper/0", 0, 42, 42, evil);
	synth_exec(rec, 2000, 0, 42, 42, evil, "/tmp/\x7f\"\\");
	synth_switch(rec, 3000, 0, 42, 42, evil, 1, 0, 0, "swapper/0");
	assert_int_equal(synth_write(rec, f->dir, "evil.frec", 5000), 0);
	frec_recorder__free(rec);
	out = export_py(f, "evil.frec",
			"    if e[\"ph\"] == \"M\" and e.get(\"tid\") == 42 and e[\"name\"] == \"thread_name\":\n"
			"        print(ascii(e[\"args\"][\"name\"]))\n"
			"    if e[\"ph\"] == \"i\":\n"
			"        print(ascii(e[\"args\"][\"filename\"]))");
	if (!out)
		return;
	/* each invalid byte reads as its Latin-1 character; valid UTF-8 (é) stays */
	assert_string_equal(out, "'a\"b\\\\c\\n\\x01\\xff\\xe9'\n'/tmp/\\x7f\"\\\\'\n");
	free(out);
}

/*
 * A process first seen without a command line (forked, not exec'd: frecd
 * reads it from /proc after a seal names it) is named by its thread's comm,
 * then again by its command line from the generation that knows it; the
 * later process_name is the one a viewer keeps. The same command line
 * again names it no more; another (an exec's) names it again.
 */
static void test_late_cmdline(void **state)
{
	struct tools_fixture *f = *state;
	struct frec_recorder *rec = synth_recorder(1);
	char *out;

	assert_non_null(rec);
	frec_recorder__tick(rec, 1000);
	synth_switch(rec, 1000, 0, 0, 0, "swapper/0", 0, 77, 77, "worker");
	synth_switch(rec, 2000, 0, 77, 77, "worker", 1, 0, 0, "swapper/0");
	assert_true(frec_recorder__seal(rec, 2500) > 0);
	assert_int_equal(frec_recorder__set_cmdline(rec, 77, "server --worker"), 0);
	synth_switch(rec, 3000, 0, 0, 0, "swapper/0", 0, 77, 77, "worker");
	synth_switch(rec, 4000, 0, 77, 77, "worker", 1, 0, 0, "swapper/0");
	assert_true(frec_recorder__seal(rec, 4500) > 0);
	synth_switch(rec, 5000, 0, 0, 0, "swapper/0", 0, 77, 77, "worker");
	synth_switch(rec, 6000, 0, 77, 77, "worker", 1, 0, 0, "swapper/0");
	assert_true(frec_recorder__seal(rec, 6500) > 0);
	assert_int_equal(frec_recorder__set_cmdline(rec, 77, "/bin/new -x"), 0);
	synth_switch(rec, 7000, 0, 0, 0, "swapper/0", 0, 77, 77, "new");
	synth_switch(rec, 8000, 0, 77, 77, "new", 1, 0, 0, "swapper/0");
	assert_int_equal(synth_write(rec, f->dir, "late.frec", 9000), 0);
	frec_recorder__free(rec);
	out = export_py(f, "late.frec",
			"    if e[\"ph\"] == \"M\" and e.get(\"pid\") == 77 and e[\"name\"] == \"process_name\":\n"
			"        print(e[\"args\"][\"name\"])");
	if (!out)
		return;
	assert_string_equal(out, "worker\nserver --worker\n/bin/new -x\n");
	free(out);
}

/* Records lost on no known CPU: one mark across the CPU lanes. */
static void test_lost_unknown_cpu(void **state)
{
	struct tools_fixture *f = *state;
	struct captured cap;
	unsigned char *json;
	size_t n;
	char *c;

	assert_int_equal(run_export(f->path, FREC_EXPORT_CHROME, false, f->out, &cap), 0);
	captured_free(&cap);
	json = read_file(f->out, &n);
	assert_non_null(strstr((char *)json, "{\"name\":\"lost records\",\"cat\":\"lost\",\"ph\":\"i\","
					     "\"s\":\"p\",\"ts\":2000010.000,"));
	assert_non_null(strstr((char *)json, "\"args\":{\"cpu\":\"unknown\",\"count\":7}}"));
	free(json);
	c = census(f);
	if (!c)
		return;
	assert_int_equal(census_get(c, "i.lost.lost records"), 1);
	assert_int_equal(census_get(c, "X.cpu"), 2);
	free(c);
}

static int setup_unknown_cpu(void **state)
{
	return setup_census(state, "unknown.frec", synth_unknown_cpu_snapshot);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_chain_break, setup_chain, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_known, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_busy, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_hostile_names, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_late_cmdline, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_lost_unknown_cpu, setup_unknown_cpu,
						tools_fixture_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
