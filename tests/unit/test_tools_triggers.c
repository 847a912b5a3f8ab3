// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Trigger events through the frec command: dump (text and JSON), info's
 * table, report's Triggers section (text and JSON), the Perfetto instant on
 * the thread's track (decoded with protoc against tests/proto's schema) and
 * the Chrome JSON instant. One snapshot of two generations: a runq firing
 * for a thread that is not the current one, a manual one, suppressed
 * firings of runq (with their worst thread) and of lost (no thread), and a
 * trigger id the table does not name.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "synth.h"
#include "tools_test.h"

#define FREC_PROTO_SCHEMA "tests/proto/frec_perfetto.proto"	/* make runs tests at the top */

static int make_triggers(const char *dir, const char *name)
{
	static const struct frec_trigger_info table[] = {
		{ .id = 1, .kind = FREC_TRIG_RUNQ, .name = "slow-wake",
		  .spec = "runq>20ms,name=slow-wake" },
		{ .id = 2, .kind = FREC_TRIG_LOST, .name = "lost", .spec = "lost" },
		{ .id = 3, .kind = FREC_TRIG_MANUAL, .name = "manual:dump", .spec = "manual:dump" },
	};
	struct frec_recorder *rec = synth_recorder(2);
	struct frec_event ev = { .type = FREC_EV_TRIGGER, .cpu = 1, .tid = 21, .tgid = 20 };
	__u64 t = 1000000000;
	int err;

	if (!rec)
		return -1;
	frec_recorder__set_triggers(rec, table, 3);
	frec_recorder__tick(rec, t);
	synth_switch(rec, t, 0, 0, 0, "swapper/0", 0, 20, 20, "server");
	synth_switch(rec, t + 100, 1, 0, 0, "swapper/1", 0, 21, 20, "client");
	/* runq for 22, recorded while 20 runs */
	synth_trigger(rec, t + 1000, 0, 20, 20, 1, 22, 20, "waiter", 52300000);
	frec_recorder__add_suppressed(rec, 1, 21, 20, t + 2000, 30000000, 2);
	frec_recorder__add_suppressed(rec, 1, 22, 20, t + 3000, 61000000, 1);
	ev.ts = t + 4000;
	ev.trigger.id = 3;
	ev.trigger.count = 1;
	frec_recorder__push_event(rec, &ev);
	frec_recorder__seal(rec, t + 10000);
	synth_switch(rec, t + 20000, 0, 20, 20, "server", 1, 0, 0, "swapper/0");
	frec_recorder__add_suppressed(rec, 2, 0, 0, t + 21000, 7, 3);
	ev.ts = t + 22000;
	ev.trigger.id = 9;	/* not in the table */
	ev.trigger.value = 5;
	frec_recorder__push_event(rec, &ev);
	err = synth_write(rec, dir, name, t + 30000);
	frec_recorder__free(rec);
	return err;
}

static int setup(void **state)
{
	return tools_fixture_setup(state, "trig.frec", make_triggers, "trig.out");
}

static void test_dump(void **state)
{
	struct tools_fixture *f = *state;
	struct captured c;

	c = run_dump(f->path, false);
	assert_int_equal(c.status, FREC_EXIT_OK);
	expect(c.out, "1.000001000 0 trigger name=slow-wake trigger_id=1 tid=22 pid=20 comm=waiter "
		      "value_ns=52300000 suppressed=no count=1\n");
	expect(c.out, "1.000002000 4294967295 trigger name=slow-wake trigger_id=1 tid=22 pid=20 "
		      "comm=waiter value_ns=61000000 suppressed=yes count=3\n");
	expect(c.out, "1.000004000 1 trigger name=manual:dump trigger_id=3 tid=21 pid=20 comm=client "
		      "value_ns=0 suppressed=no count=1\n");
	expect(c.out, "1.000021000 4294967295 trigger name=lost trigger_id=2 tid=0 pid=0 comm=\"\" "
		      "value_ns=7 suppressed=yes count=3\n");
	expect(c.out, "1.000022000 1 trigger name=#9 trigger_id=9 tid=21 pid=20 comm=client "
		      "value_ns=5 suppressed=no count=1\n");
	captured_free(&c);

	c = run_dump(f->path, true);
	assert_int_equal(c.status, FREC_EXIT_OK);
	expect(c.out, "{\"ts\":1000001000,\"cpu\":0,\"type\":\"trigger\",\"name\":\"slow-wake\","
		      "\"trigger_id\":1,\"tid\":22,\"pid\":20,\"comm\":\"waiter\",\"value_ns\":52300000,"
		      "\"suppressed\":false,\"count\":1}\n");
	expect(c.out, "{\"ts\":1000002000,\"cpu\":4294967295,\"type\":\"trigger\",\"name\":\"slow-wake\","
		      "\"trigger_id\":1,\"tid\":22,\"pid\":20,\"comm\":\"waiter\",\"value_ns\":61000000,"
		      "\"suppressed\":true,\"count\":3}\n");
	expect(c.out, "{\"ts\":1000021000,\"cpu\":4294967295,\"type\":\"trigger\",\"name\":\"lost\","
		      "\"trigger_id\":2,\"tid\":0,\"pid\":0,\"comm\":\"\",\"value_ns\":7,"
		      "\"suppressed\":true,\"count\":3}\n");
	captured_free(&c);
}

static void test_info(void **state)
{
	struct tools_fixture *f = *state;
	struct captured c;

	c = run_info(f->path, false);
	assert_int_equal(c.status, FREC_EXIT_OK);
	expect(c.out, "\ntriggers:     3\n"
		      "  1 slow-wake (runq: runq>20ms,name=slow-wake): 1 fired, 3 suppressed\n"
		      "  3 manual:dump (manual): 1 fired, 0 suppressed\n"
		      "  2 lost (lost): 0 fired, 3 suppressed\n"
		      "  (unnamed trigger ids): 1\n");
	expect(c.out, "  trigger              5\n");
	captured_free(&c);

	c = run_info(f->path, true);
	assert_int_equal(c.status, FREC_EXIT_OK);
	expect(c.out, ",\"triggers\":[{\"id\":1,\"name\":\"slow-wake\",\"kind\":\"runq\","
		      "\"spec\":\"runq>20ms,name=slow-wake\",\"fired\":1,\"suppressed\":3},"
		      "{\"id\":3,\"name\":\"manual:dump\",\"kind\":\"manual\",\"spec\":\"manual:dump\","
		      "\"fired\":1,\"suppressed\":0},{\"id\":2,\"name\":\"lost\",\"kind\":\"lost\","
		      "\"spec\":\"lost\",\"fired\":0,\"suppressed\":3}],\"unnamed_trigger_events\":1,");
	expect(c.out, "\"trigger\":5");
	captured_free(&c);
}

static void test_report(void **state)
{
	struct tools_fixture *f = *state;
	struct frec_report_opts o = { .top = 10 };
	struct captured c;

	c = run_report(f->path, &o);
	assert_int_equal(c.status, FREC_EXIT_OK);
	expect(c.out, "\nTriggers: 3 fired, 6 suppressed\n"
		      "  1.000001000  slow-wake  tid 22 waiter  52.3 ms\n"
		      "  1.000004000  manual:dump  tid 21 client  -\n"
		      "  1.000022000  #9  tid 21 client  5\n"
		      "  suppressed slow-wake: 3, the first at 1.000002000, the worst 61.0 ms on tid 22 waiter\n"
		      "  suppressed lost: 3, the first at 1.000021000, the worst 7 records\n");
	captured_free(&c);

	o.json = true;
	c = run_report(f->path, &o);
	assert_int_equal(c.status, FREC_EXIT_OK);
	expect(c.out, ",\"triggers\":[{\"ts\":1000001000,\"name\":\"slow-wake\",\"trigger_id\":1,"
		      "\"kind\":\"runq\",\"tid\":22,\"pid\":20,\"comm\":\"waiter\",\"value_ns\":52300000,"
		      "\"value\":\"52.3 ms\"},");
	expect(c.out, "\"triggers_suppressed\":[{\"name\":\"slow-wake\",\"trigger_id\":1,\"kind\":\"runq\","
		      "\"count\":3,\"first_ts\":1000002000,\"worst_value_ns\":61000000,\"worst_tid\":22,"
		      "\"worst_pid\":20,\"worst_comm\":\"waiter\"},{\"name\":\"lost\",\"trigger_id\":2,"
		      "\"kind\":\"lost\",\"count\":3,\"first_ts\":1000021000,\"worst_value_ns\":7,"
		      "\"worst_tid\":0,\"worst_pid\":0,\"worst_comm\":\"\"}]");
	captured_free(&c);

	/* --tid narrows the firings to that thread */
	o.has_tid = true;
	o.tid = 21;
	c = run_report(f->path, &o);
	assert_int_equal(c.status, FREC_EXIT_OK);
	assert_null(strstr(c.out, "slow-wake\",\"trigger_id\":1,\"kind\":\"runq\",\"tid\":22"));
	expect(c.out, "\"name\":\"manual:dump\"");
	captured_free(&c);
}

static void test_perfetto(void **state)
{
	struct tools_fixture *f = *state;
	struct captured c;
	char cmd[512], *out = NULL;
	size_t len;
	int rc;

	assert_int_equal(run_export(f->path, FREC_EXPORT_PERFETTO, false, f->out, &c), FREC_EXIT_OK);
	captured_free(&c);
	if (!have_program("protoc"))
		fail_msg("protoc missing: install protobuf-compiler (scripts/deps.sh)");
	snprintf(cmd, sizeof(cmd), "protoc --proto_path=tests/proto --decode=frec_test.Trace %s < %s 2>&1",
		 FREC_PROTO_SCHEMA, f->out);
	rc = run_cmd(cmd, &out, &len);
	assert_int_equal(rc, 0);
	/* the instant on 22's track (uuid tgid << 32 | tid), its annotations */
	expect(out, "  track_descriptor {\n    uuid: 85899345942\n    thread {\n      pid: 20\n"
		    "      tid: 22\n      thread_name: \"waiter\"\n");
	expect(out, "  track_event {\n    debug_annotations {\n      uint_value: 1\n      name: \"trigger_id\"\n"
		    "    }\n    debug_annotations {\n      uint_value: 52300000\n      name: \"value_ns\"\n"
		    "    }\n    debug_annotations {\n      uint_value: 1\n      name: \"count\"\n    }\n"
		    "    type: 3\n    track_uuid: 85899345942\n    name: \"trigger slow-wake\"\n  }\n");
	expect(out, "      uint_value: 3\n      name: \"count\"\n    }\n    debug_annotations {\n"
		    "      bool_value: true\n      name: \"suppressed\"\n    }\n    type: 3\n"
		    "    track_uuid: 85899345942\n    name: \"trigger slow-wake\"\n");
	/* no thread: the global track, no uuid */
	expect(out, "      bool_value: true\n      name: \"suppressed\"\n    }\n    type: 3\n"
		    "    name: \"trigger lost\"\n");
	expect(out, "name: \"trigger #9\"");
	assert_int_equal(count_substr(out, "name: \"trigger "), 5);
	free(out);
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
	expect((char *)out, "{\"name\":\"trigger slow-wake\",\"cat\":\"trigger\",\"ph\":\"i\",\"s\":\"t\","
			    "\"ts\":1000001.000,\"pid\":20,\"tid\":22,\"args\":{\"trigger_id\":1,"
			    "\"value_ns\":52300000,\"count\":1,\"suppressed\":false}}");
	expect((char *)out, "{\"name\":\"trigger slow-wake\",\"cat\":\"trigger\",\"ph\":\"i\",\"s\":\"t\","
			    "\"ts\":1000002.000,\"pid\":20,\"tid\":22,\"args\":{\"trigger_id\":1,"
			    "\"value_ns\":61000000,\"count\":3,\"suppressed\":true}}");
	expect((char *)out, "{\"name\":\"trigger lost\",\"cat\":\"trigger\",\"ph\":\"i\",\"s\":\"g\","
			    "\"ts\":1000021.000,\"pid\":0,\"tid\":0,");
	/* the thread's lane is named */
	expect((char *)out, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":20,\"tid\":22,"
			    "\"args\":{\"name\":\"waiter\"}}");
	assert_int_equal(count_substr((char *)out, "\"cat\":\"trigger\""), 5);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_dump, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_info, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_report, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_perfetto, setup, tools_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_chrome, setup, tools_fixture_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
