// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The tools on a snapshot that records cgroups: the walker's cgroup of a
 * thread as of each event (a move applied in time order), dump's keys (text
 * and JSON), info's lines and table, report --by cgroup|container and
 * --cgroup, the exporters' labels and moves, and frec status's lines. And a
 * file without cgroups: none of it appears.
 *
 * The snapshot (synth.h's namer: id i is /synth.slice/cg-<i>.scope, odd ids
 * name container <i>, 64 is not named), on 2 CPUs. Generation 1, at
 * T = 1 s + n us... in ns steps of 1000:
 *   T+0     cpu0 switch swapper/0 -> worker (101, tgid 100), next in 3
 *   T+1000  cpu0 worker wakes helper (102, tgid 100), target 1
 *   T+2000  cpu1 switch swapper/1 -> helper, next in 3
 *   T+3000  cpu0 switch worker (S) -> other (201, tgid 200), next in 4
 *   T+4000  cpu1 switch helper (S) -> anon (301, tgid 300), next in 64
 *   T+5000  cpu0 switch other (R) -> worker, next in 5: worker moved
 *   T+6000  cpu1 switch anon (S) -> swapper/1
 *   T+7000  cpu0 switch worker (S) -> swapper/0
 * Generation 2, at U = 1.001 s: U+0 cpu0 swapper/0 -> worker (in 5), U+1000
 * worker (S) -> swapper/0. The header: v2, --cgroup /synth.slice.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "synth.h"
#include "tools_test.h"
#include "../../tools/walk.h"

#define T	1000000000ull
#define U	1001000000ull
#define C3	"0000000000000000000000000000000000000000000000000000000000000003"
#define C5	"0000000000000000000000000000000000000000000000000000000000000005"

static int write_hdr(struct frec_recorder *rec, const char *dir, const char *name, __u64 now,
		     bool cgroups)
{
	struct frec_header hdr;
	struct frec_pin *pin;
	int dfd, err;

	frec_recorder__seal(rec, now);
	frec_header__init(&hdr);
	snprintf(hdr.reason, sizeof(hdr.reason), "synth");
	if (cgroups) {
		snprintf(hdr.config.cgroup_hierarchy, sizeof(hdr.config.cgroup_hierarchy), "v2");
		hdr.config.flags |= FREC_CFG_CGROUPS;
		hdr.config.ncgroups = 1;
		snprintf(hdr.config.cgroups[0], sizeof(hdr.config.cgroups[0]), "/synth.slice");
	}
	pin = frec_recorder__pin(rec);
	if (!pin)
		return -1;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	err = frec_snapshot__write(dfd, name, &hdr, pin);
	close(dfd);
	frec_recorder__unpin(rec, pin);
	return err;
}

static int make_snapshot(const char *dir, const char *name, bool cgroups)
{
	struct synth_namer nctx;
	struct frec_cgroup_namer namer = synth_cgroup_namer(&nctx);
	struct frec_recorder *rec = synth_recorder(2);
	int err;

	if (!rec)
		return -1;
	memset(&nctx, 0, sizeof(nctx));
	frec_recorder__set_cgroup_namer(rec, &namer);
	frec_recorder__tick(rec, T);
	synth_switch_cg(rec, T + 0, 0, 0, 0, "swapper/0", 0, 101, 100, "worker", 3);
	synth_wake(rec, FREC_EV_SCHED_WAKING, T + 1000, 0, 101, 100, 102, 100, "helper", 1);
	synth_switch_cg(rec, T + 2000, 1, 0, 0, "swapper/1", 0, 102, 100, "helper", 3);
	synth_switch_cg(rec, T + 3000, 0, 101, 100, "worker", 1, 201, 200, "other", 4);
	synth_switch_cg(rec, T + 4000, 1, 102, 100, "helper", 1, 301, 300, "anon", 64);
	synth_switch_cg(rec, T + 5000, 0, 201, 200, "other", 0, 101, 100, "worker", 5);
	synth_switch(rec, T + 6000, 1, 301, 300, "anon", 1, 0, 0, "swapper/1");
	synth_switch(rec, T + 7000, 0, 101, 100, "worker", 1, 0, 0, "swapper/0");
	frec_recorder__seal(rec, T + 10000);
	synth_switch_cg(rec, U + 0, 0, 0, 0, "swapper/0", 0, 101, 100, "worker", 5);
	synth_switch(rec, U + 1000, 0, 101, 100, "worker", 1, 0, 0, "swapper/0");
	err = write_hdr(rec, dir, name, U + 10000, cgroups);
	frec_recorder__free(rec);
	return err;
}

static int make_cg(const char *dir, const char *name)
{
	return make_snapshot(dir, name, true);
}

static int setup(void **state)
{
	return tools_fixture_setup(state, "cg.frec", make_cg, "out");
}

/* The walker: each thread's cgroup as of each event, the move in between. */
static void test_walk(void **state)
{
	struct tools_fixture *f = *state;
	struct frec_walk_opts wo = { .sorted = true };
	const struct frec_cgroup_info *c;
	const struct frec_event *ev;
	struct frec_walk *w;
	int status, n = 0, moves = 0;

	w = frec_walk__open(f->path, &wo, stderr, &status);
	assert_non_null(w);
	assert_int_equal(frec_walk__next_gen(w), 1);
	/* as the generation starts: each thread where it was first seen */
	assert_int_equal(frec_walk__cgroup_id(w, 101), 3);
	assert_int_equal(frec_walk__cgroup_id(w, 102), 3);
	assert_int_equal(frec_walk__cgroup_id(w, 201), 4);
	assert_int_equal(frec_walk__cgroup_id(w, 301), 64);
	assert_int_equal(frec_walk__cgroup_id(w, 0), 0);
	assert_int_equal(frec_walk__cgroup_id(w, 999), 0);
	assert_null(frec_walk__cgroup(w, 0));
	c = frec_walk__cgroup(w, 101);
	assert_non_null(c);
	assert_string_equal(c->path, "/synth.slice/cg-3.scope");
	assert_string_equal(c->container, C3);
	/* 64 is in the table, unnamed */
	c = frec_walk__cgroup(w, 301);
	assert_true(!c || !c->path[0]);
	while ((ev = frec_walk__next_event(w))) {
		n++;
		if (ev->type == FREC_EV_CGROUP) {
			moves++;
			assert_int_equal(ev->tid, 101);
			assert_int_equal(ev->cgroup.id, 5);
			assert_int_equal(ev->ts, T + 5000);
			/* applied once handled, as a rename */
			assert_int_equal(frec_walk__cgroup_id(w, 101), 3);
			ev = frec_walk__next_event(w);
			assert_non_null(ev);
			n++;
			assert_int_equal(ev->type, FREC_EV_SCHED_SWITCH);
			assert_int_equal(ev->sw.next_pid, 101);
			assert_int_equal(frec_walk__cgroup_id(w, 101), 5);
			c = frec_walk__process_cgroup(w, 100);
			assert_non_null(c);
			assert_string_equal(c->path, "/synth.slice/cg-5.scope");
		} else if (ev->ts < T + 5000) {
			assert_int_equal(frec_walk__cgroup_id(w, 101), 3);
		}
	}
	assert_int_equal(moves, 1);
	assert_int_equal(n, 9);
	assert_int_equal(frec_walk__cgroup_id(w, 101), 5);
	/* the next generation starts where the last left the thread */
	assert_int_equal(frec_walk__next_gen(w), 1);
	assert_int_equal(frec_walk__cgroup_id(w, 101), 5);
	assert_int_equal(frec_walk__gen_info(w)->ncgroups, 1);
	assert_int_equal(frec_walk__next_gen(w), 0);
	assert_int_equal(frec_walk__close(w), FREC_EXIT_OK);
}

static void test_dump_json(void **state)
{
	struct tools_fixture *f = *state;
	struct captured c = run_dump(f->path, true);

	assert_int_equal(c.status, FREC_EXIT_OK);
	assert_int_equal(count_lines(c.out), 11);
	expect(c.out, "{\"ts\":1000000000,\"cpu\":0,\"type\":\"sched_switch\",\"prev_comm\":\"swapper/0\","
		      "\"prev_pid\":0,\"prev_prio\":120,\"prev_state\":0,\"next_comm\":\"worker\","
		      "\"next_pid\":101,\"next_prio\":120,\"prev_cgroup\":null,\"prev_cgroup_id\":0,"
		      "\"next_cgroup\":\"/synth.slice/cg-3.scope\",\"next_cgroup_id\":3,"
		      "\"next_container\":\"" C3 "\"}\n");
	/* the woken's cgroup, filled in from its later switch */
	expect(c.out, "\"waker\":101,\"cgroup\":\"/synth.slice/cg-3.scope\",\"cgroup_id\":3,"
		      "\"container\":\"" C3 "\"}\n");
	/* an unnamed cgroup: its id, a null path, no container */
	expect(c.out, "\"next_pid\":301,\"next_prio\":120,\"prev_cgroup\":\"/synth.slice/cg-3.scope\","
		      "\"prev_cgroup_id\":3,\"prev_container\":\"" C3 "\","
		      "\"next_cgroup\":null,\"next_cgroup_id\":64}\n");
	/* the move, then the switch that revealed it, in the new cgroup */
	expect(c.out, "{\"ts\":1000005000,\"cpu\":0,\"type\":\"cgroup\",\"pid\":101,\"comm\":\"worker\","
		      "\"cgroup\":\"/synth.slice/cg-5.scope\",\"cgroup_id\":5,\"container\":\"" C5 "\"}\n"
		      "{\"ts\":1000005000,\"cpu\":0,\"type\":\"sched_switch\",\"prev_comm\":\"other\","
		      "\"prev_pid\":201,\"prev_prio\":120,\"prev_state\":0,\"next_comm\":\"worker\","
		      "\"next_pid\":101,\"next_prio\":120,\"prev_cgroup\":\"/synth.slice/cg-4.scope\","
		      "\"prev_cgroup_id\":4,\"next_cgroup\":\"/synth.slice/cg-5.scope\","
		      "\"next_cgroup_id\":5,\"next_container\":\"" C5 "\"}\n");
	assert_int_equal(count_substr(c.out, "\"type\":\"cgroup\""), 1);
	captured_free(&c);
}

static void test_dump_text(void **state)
{
	struct tools_fixture *f = *state;
	struct captured c = run_dump(f->path, false);

	assert_int_equal(c.status, FREC_EXIT_OK);
	expect(c.out, "1.000005000 0 cgroup pid=101 comm=worker cgroup=/synth.slice/cg-5.scope "
		      "cgroup_id=5 container=" C5 "\n");
	expect(c.out, " next_comm=anon next_pid=301 next_prio=120 prev_cgroup=/synth.slice/cg-3.scope "
		      "prev_cgroup_id=3 prev_container=" C3 " next_cgroup=? next_cgroup_id=64\n");
	expect(c.out, "1.000006000 1 sched_switch prev_comm=anon prev_pid=301 prev_prio=120 "
		      "prev_state=S next_comm=swapper/1 next_pid=0 next_prio=120 prev_cgroup=? "
		      "prev_cgroup_id=64 next_cgroup=? next_cgroup_id=0\n");
	captured_free(&c);
}

static void test_info(void **state)
{
	struct tools_fixture *f = *state;
	struct captured c = run_info(f->path, false);

	assert_int_equal(c.status, FREC_EXIT_OK);
	expect(c.out, "\ncgroups:      v2\n  generation 1: 4 cgroups\n  generation 2: 1 cgroups\n"
		      "cgroup filter: /synth.slice\n");
	expect(c.out, "  cgroup               1\n");
	/* events by the event's thread (a switch is its prev's); most first */
	expect(c.out, "cgroups seen: 4\n"
		      "  /synth.slice/cg-3.scope (id 3, container 000000000000): 2 threads, 3 events\n"
		      "  /synth.slice/cg-5.scope (id 5, container 000000000000): 1 threads, 3 events\n"
		      "  /synth.slice/cg-4.scope (id 4): 1 threads, 1 events\n"
		      "  ? (id 64): 1 threads, 1 events\n");
	captured_free(&c);

	c = run_info(f->path, true);
	assert_int_equal(c.status, FREC_EXIT_OK);
	expect(c.out, ",\"cgroup_hierarchy\":\"v2\",\"cgroup_filters\":[\"/synth.slice\"],"
		      "\"ncgroup_filters\":1,\"cgroup_tables\":[{\"generation\":1,\"ncgroups\":4},"
		      "{\"generation\":2,\"ncgroups\":1}],\"cgroups\":[{\"id\":3,"
		      "\"path\":\"/synth.slice/cg-3.scope\",\"container\":\"" C3 "\",\"threads\":2,"
		      "\"events\":3},{\"id\":5,\"path\":\"/synth.slice/cg-5.scope\",\"container\":\""
		      C5 "\",\"threads\":1,\"events\":3},{\"id\":4,\"path\":\"/synth.slice/cg-4.scope\","
		      "\"container\":\"\",\"threads\":1,\"events\":1},{\"id\":64,\"path\":null,"
		      "\"container\":\"\",\"threads\":1,\"events\":1}],\"triggers\":[");
	expect(c.out, "\"cgroup\":1");
	captured_free(&c);
}

/* By cgroup: runs and waits by the cgroup at the switch-in. */
static void test_report_by_cgroup(void **state)
{
	struct tools_fixture *f = *state;
	struct frec_report_opts o = { .json = true, .by = FREC_REPORT_BY_CGROUP };
	struct captured c = run_report(f->path, &o);

	assert_int_equal(c.status, FREC_EXIT_OK);
	expect(c.out, ",\"by_cgroup\":["
		      "{\"cgroup\":\"/synth.slice/cg-3.scope\",\"cgroup_id\":3,\"runtime\":null,"
		      "\"threads\":2,\"oncpu_ns\":5000,\"switches\":2,\"runq\":{\"count\":1,"
		      "\"p50_ns\":1000,\"p99_ns\":1000,\"max_ns\":1000}},"
		      "{\"cgroup\":\"/synth.slice/cg-5.scope\",\"cgroup_id\":5,\"runtime\":null,"
		      "\"threads\":1,\"oncpu_ns\":3000,\"switches\":2,\"runq\":{\"count\":0,"
		      "\"p50_ns\":0,\"p99_ns\":0,\"max_ns\":0}},"
		      "{\"cgroup\":\"/synth.slice/cg-4.scope\",\"cgroup_id\":4,\"runtime\":null,"
		      "\"threads\":1,\"oncpu_ns\":2000,\"switches\":1,\"runq\":{\"count\":0,"
		      "\"p50_ns\":0,\"p99_ns\":0,\"max_ns\":0}},"
		      "{\"cgroup\":null,\"cgroup_id\":64,\"runtime\":null,"
		      "\"threads\":1,\"oncpu_ns\":2000,\"switches\":1,\"runq\":{\"count\":0,"
		      "\"p50_ns\":0,\"p99_ns\":0,\"max_ns\":0}}]");
	captured_free(&c);

	o.json = false;
	c = run_report(f->path, &o);
	assert_int_equal(c.status, FREC_EXIT_OK);
	expect(c.out, "\nBy cgroup (top 4 of 4)\n");
	expect(c.out, "  /synth.slice/cg-3.scope\n");
	expect(c.out, "  ? (id 64)\n");
	captured_free(&c);

	/* without --by: no such section */
	o.by = FREC_REPORT_BY_NONE;
	c = run_report(f->path, &o);
	assert_null(strstr(c.out, "By cgroup"));
	captured_free(&c);
}

/* Cgroup 7 is named only from the second generation on (the namer had not
 * named it by the first seal): worker's 1000 ns there stay on the "(id 7)"
 * row, its 2000 ns of the second generation go to the named one. */
static int make_late(const char *dir, const char *name)
{
	struct synth_namer nctx;
	struct frec_cgroup_namer namer = synth_cgroup_namer(&nctx);
	struct frec_recorder *rec = synth_recorder(2);
	int err;

	if (!rec)
		return -1;
	memset(&nctx, 0, sizeof(nctx));
	nctx.late_id = 7;
	frec_recorder__set_cgroup_namer(rec, &namer);
	frec_recorder__tick(rec, T);
	synth_switch_cg(rec, T + 0, 0, 0, 0, "swapper/0", 0, 101, 100, "worker", 7);
	synth_switch(rec, T + 1000, 0, 101, 100, "worker", 1, 0, 0, "swapper/0");
	frec_recorder__seal(rec, T + 10000);
	synth_switch_cg(rec, U + 0, 0, 0, 0, "swapper/0", 0, 101, 100, "worker", 7);
	synth_switch(rec, U + 2000, 0, 101, 100, "worker", 1, 0, 0, "swapper/0");
	err = write_hdr(rec, dir, name, U + 10000, true);
	frec_recorder__free(rec);
	return err;
}

static int setup_late(void **state)
{
	return tools_fixture_setup(state, "late.frec", make_late, "out");
}

static void test_report_named_later(void **state)
{
	struct tools_fixture *f = *state;
	struct frec_report_opts o = { .json = true, .by = FREC_REPORT_BY_CGROUP };
	struct captured c = run_report(f->path, &o);

	assert_int_equal(c.status, FREC_EXIT_OK);
	expect(c.out, "{\"cgroup\":\"/synth.slice/cg-7.scope\",\"cgroup_id\":7,\"runtime\":null,"
		      "\"threads\":1,\"oncpu_ns\":2000,");
	expect(c.out, "{\"cgroup\":null,\"cgroup_id\":7,\"runtime\":null,"
		      "\"threads\":1,\"oncpu_ns\":1000,");
	captured_free(&c);
}

static void test_report_by_container(void **state)
{
	struct tools_fixture *f = *state;
	struct frec_report_opts o = { .json = true, .by = FREC_REPORT_BY_CONTAINER };
	struct captured c = run_report(f->path, &o);

	assert_int_equal(c.status, FREC_EXIT_OK);
	expect(c.out, ",\"by_container\":["
		      "{\"container\":\"" C3 "\",\"cgroup_id\":3,\"runtime\":null,\"threads\":2,"
		      "\"oncpu_ns\":5000,\"switches\":2,");
	expect(c.out, "{\"container\":\"" C5 "\",\"cgroup_id\":5,\"runtime\":null,\"threads\":1,"
		      "\"oncpu_ns\":3000,\"switches\":2,");
	/* a named cgroup with no container is the host's */
	expect(c.out, "{\"container\":\"(host)\",\"cgroup_id\":4,\"runtime\":null,\"threads\":1,"
		      "\"oncpu_ns\":2000,\"switches\":1,");
	expect(c.out, "{\"container\":null,\"cgroup_id\":64,\"runtime\":null,\"threads\":1,"
		      "\"oncpu_ns\":2000,\"switches\":1,");
	captured_free(&c);
}

/* --cgroup: every section narrowed to the threads in it, by component. */
static void test_report_cgroup_filter(void **state)
{
	struct tools_fixture *f = *state;
	struct frec_report_opts o = { .json = true, .by = FREC_REPORT_BY_CGROUP,
				      .cgroup = "/synth.slice/cg-5.scope" };
	struct captured c = run_report(f->path, &o);

	assert_int_equal(c.status, FREC_EXIT_OK);
	expect(c.out, ",\"by_cgroup\":[{\"cgroup\":\"/synth.slice/cg-5.scope\",\"cgroup_id\":5,"
		      "\"runtime\":null,\"threads\":1,\"oncpu_ns\":3000,\"switches\":2,");
	assert_int_equal(count_substr(c.out, "{\"cgroup\":"), 1);
	/* the thread table: worker's runs while in 5 only */
	expect(c.out, "\"tid\":101,");
	assert_null(strstr(c.out, "\"tid\":201,"));
	assert_null(strstr(c.out, "\"tid\":102,"));
	captured_free(&c);

	/* a prefix that is not a whole component selects nothing */
	o.cgroup = "/synth.slice/cg";
	c = run_report(f->path, &o);
	assert_int_equal(c.status, FREC_EXIT_OK);
	expect(c.out, ",\"by_cgroup\":[]");
	captured_free(&c);

	/* a parent selects the named ones below it, never the unnamed */
	o.cgroup = "/synth.slice";
	c = run_report(f->path, &o);
	assert_int_equal(count_substr(c.out, "{\"cgroup\":"), 3);
	assert_null(strstr(c.out, "\"cgroup_id\":64"));
	captured_free(&c);
	o.cgroup = "/";
	c = run_report(f->path, &o);
	assert_int_equal(count_substr(c.out, "{\"cgroup\":"), 3);
	captured_free(&c);
}

static void test_cgroup_path_opt(void **state)
{
	char out[64];

	(void)state;
	assert_int_equal(frec_opt__cgroup_path("report", "/a//b/", out, sizeof(out)), 0);
	assert_string_equal(out, "/a/b");
	assert_int_equal(frec_opt__cgroup_path("report", "/", out, sizeof(out)), 0);
	assert_string_equal(out, "/");
	assert_int_equal(frec_opt__cgroup_path("report", "//", out, sizeof(out)), 0);
	assert_string_equal(out, "/");
	assert_int_equal(frec_opt__cgroup_path("report", "a/b", out, sizeof(out)), -1);
	assert_int_equal(frec_opt__cgroup_path("report", "/aaaaaaaaaa", out, 8), -1);
}

static void test_chrome(void **state)
{
	struct tools_fixture *f = *state;
	struct captured c;
	unsigned char *out;
	size_t len;

	assert_int_equal(run_export(f->path, FREC_EXPORT_CHROME, false, f->out, &c), FREC_EXIT_OK);
	captured_free(&c);
	out = read_file(f->out, &len);
	assert_non_null(out);
	/* process 100 is labelled by its main thread's cgroup, else its first
	 * placed thread's: worker's (101, in 3 then), as 100 is no thread (and
	 * so not named) */
	expect((char *)out, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":100,\"tid\":100,"
			    "\"args\":{\"name\":\"<...> [000000000000]\"}}");
	expect((char *)out, "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":100,\"tid\":100,"
			    "\"args\":{\"labels\":\"container=000000000000,cgroup=/synth.slice/cg-3.scope\"}}");
	/* no container: the cgroup's last component */
	expect((char *)out, "\"args\":{\"name\":\"<...> [cg-4.scope]\"}}");
	expect((char *)out, "{\"name\":\"cgroup /synth.slice/cg-5.scope\",\"cat\":\"cgroup\","
			    "\"ph\":\"i\",\"s\":\"t\",\"ts\":1000005.000,\"pid\":100,\"tid\":101,"
			    "\"args\":{\"cgroup_id\":5}}");
	/* the unnamed cgroup's process has no label */
	assert_int_equal(count_substr((char *)out, "\"process_labels\""), 2);
	free(out);
}

static void test_perfetto(void **state)
{
	struct tools_fixture *f = *state;
	struct captured c;
	char cmd[512], *out = NULL;
	size_t len;

	assert_int_equal(run_export(f->path, FREC_EXPORT_PERFETTO, false, f->out, &c), FREC_EXIT_OK);
	captured_free(&c);
	if (!have_program("protoc"))
		fail_msg("protoc missing: install protobuf-compiler (scripts/deps.sh)");
	snprintf(cmd, sizeof(cmd), "protoc --proto_path=tests/proto --decode=frec_test.Trace "
		 "tests/proto/frec_perfetto.proto < %s 2>&1", f->out);
	assert_int_equal(run_cmd(cmd, &out, &len), 0);
	/* 100's track: 1 << 63 | 100 */
	expect(out, "  track_descriptor {\n    uuid: 9223372036854775908\n    process {\n"
		    "      pid: 100\n      process_name: \"worker\"\n"
		    "      process_labels: \"container=000000000000\"\n"
		    "      process_labels: \"cgroup=/synth.slice/cg-3.scope\"\n    }\n  }\n");
	expect(out, "      process_labels: \"cgroup=/synth.slice/cg-4.scope\"\n");
	assert_int_equal(count_substr(out, "    process {\n"), 2);
	/* the move on worker's track (100 << 32 | 101) */
	expect(out, "  track_event {\n    debug_annotations {\n      uint_value: 5\n"
		    "      name: \"cgroup_id\"\n    }\n    type: 3\n    track_uuid: 429496729701\n"
		    "    name: \"cgroup /synth.slice/cg-5.scope\"\n  }\n");
	free(out);
}

/* A file without cgroups: no key, line or label of them anywhere. */
static void test_older_file(void **state)
{
	struct tools_fixture *f = *state;
	char path[160];
	struct captured c;
	unsigned char *out;
	size_t len;

	snprintf(path, sizeof(path), "%s/known.frec", f->dir);
	assert_int_equal(synth_known_snapshot(f->dir, "known.frec"), 0);
	c = run_dump(path, true);
	assert_int_equal(c.status, FREC_EXIT_OK);
	assert_null(strstr(c.out, "cgroup"));
	captured_free(&c);
	c = run_dump(path, false);
	assert_null(strstr(c.out, "cgroup"));
	captured_free(&c);
	c = run_info(path, false);
	assert_null(strstr(c.out, "cgroup"));
	captured_free(&c);
	c = run_info(path, true);
	assert_null(strstr(c.out, "cgroup"));
	captured_free(&c);
	assert_int_equal(run_export(path, FREC_EXPORT_CHROME, false, f->out, &c), FREC_EXIT_OK);
	captured_free(&c);
	out = read_file(f->out, &len);
	assert_null(strstr((char *)out, "cgroup"));
	assert_null(strstr((char *)out, "process_labels"));
	free(out);
}

static void test_status_lines(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m;

	(void)state;
	m = open_memstream(&buf, &len);
	assert_int_equal(frec_status__cgroup_lines(
		"{\"pid\":1,\"probes\":[{\"name\":\"cgroups\"}],\"cgroups\":{\"hierarchy\":\"v2\","
		"\"filters\":[\"/a\",\"/b\"],\"known\":12,\"pending\":1,\"unnamed\":2,\"moves\":3},"
		"\"namespaces\":{\"pid\":\"own\",\"proc\":\"host\",\"cgroup\":\"host\",\"host_pid\":4242}}",
		m), 2);
	assert_int_equal(frec_status__cgroup_lines("{\"cgroups\":{\"hierarchy\":\"none\","
						   "\"filters\":[],\"known\":0}}", m), 1);
	assert_int_equal(frec_status__cgroup_lines("{\"pid\":1}", m), 0);
	fclose(m);
	assert_string_equal(buf,
		"cgroups       v2, filtered by /a /b: 12 known, 1 pending, 2 unnamed; 3 moves\n"
		"namespaces    pid own (host pid 4242), /proc host, cgroup host\n"
		"cgroups       none: 0 known, 0 pending, 0 unnamed; 0 moves\n");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_walk, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_dump_json, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_dump_text, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_info, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_report_by_cgroup, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_report_by_container, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_report_named_later, setup_late,
						tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_report_cgroup_filter, setup, tools_fixture_teardown),
		cmocka_unit_test(test_cgroup_path_opt),
		cmocka_unit_test_setup_teardown(test_chrome, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_perfetto, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_older_file, setup, tools_fixture_teardown),
		cmocka_unit_test(test_status_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
