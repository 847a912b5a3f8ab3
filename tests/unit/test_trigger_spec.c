// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* --trigger SPEC: every form, the defaults, and every error's message. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "frecd/trigger_spec.h"
#include "frecd/bpf_triggers.h"

#define MS	1000000ull
#define S	1000000000ull

static struct trigger_spec ts;
static char err[512];

static int parse(const char *text)
{
	trigger_spec__free(&ts);
	err[0] = '\0';
	return trigger_spec__parse(text, &ts, err, sizeof(err));
}

#define assert_error(text, msg) do {				\
	assert_int_equal(parse(text), -EINVAL);			\
	assert_string_equal(err, msg);				\
	assert_null(ts.buf_);					\
} while (0)

static int teardown(void **state)
{
	trigger_spec__free(&ts);
	return 0;
}

/* Whether comm (16 bytes as the task holds them) matches t as the
 * programs compare (bpf/trigger.bpf.h trig_match()). */
static bool comm_matches(const struct frec_trigger_bpf *t, const char comm[16])
{
	uint64_t want[2], have[2];

	memcpy(want, t->comm, 16);
	memcpy(have, comm, 16);
	return !(((want[0] ^ have[0]) & t->comm_mask[0]) | ((want[1] ^ have[1]) & t->comm_mask[1]));
}

static void test_comm_mask(void **state)
{
	struct frec_trigger_bpf t = {0};
	/* "victim" after a rename from "runq_spike" before 5.17: the old
	 * name's tail stays after the NUL */
	const char stale[16] = "victim\0ike";
	const char other[16] = "victims";
	const char full[16] = "abcdefghijklmno";

	strcpy(t.comm, "victim");
	frecd_bpf_triggers__comm_mask(&t);
	assert_int_equal(t.comm_mask[0], 0x00ffffffffffffffull);
	assert_int_equal(t.comm_mask[1], 0);
	assert_true(comm_matches(&t, stale));
	assert_false(comm_matches(&t, other));

	memcpy(t.comm, full, 16);
	frecd_bpf_triggers__comm_mask(&t);
	assert_int_equal(t.comm_mask[0], ~0ull);
	assert_int_equal(t.comm_mask[1], ~0ull);
	assert_true(comm_matches(&t, full));
	strcpy(t.comm, "abcdefghijklmnp");
	assert_false(comm_matches(&t, full));

	strcpy(t.comm, "abcdefgh");	/* the NUL starts the second word */
	frecd_bpf_triggers__comm_mask(&t);
	assert_int_equal(t.comm_mask[0], ~0ull);
	assert_int_equal(t.comm_mask[1], 0xffull);
}

static void test_durations(void **state)
{
	assert_int_equal(parse("runq>50ms"), 0);
	assert_int_equal(ts.kind, FREC_TRIG_RUNQ);
	assert_int_equal(ts.threshold_ns, 50 * MS);
	assert_null(ts.probe);
	assert_string_equal(ts.name, "runq>50ms");
	assert_string_equal(ts.spec, "runq>50ms");
	assert_string_equal(ts.comm, "");
	assert_int_equal(ts.pid, 0);
	/* the defaults */
	assert_int_equal(ts.delay_ns, 1 * S);
	assert_int_equal(ts.cooldown_ns, 10 * S);
	assert_int_equal(ts.max_count, 6);
	assert_int_equal(ts.max_period_ns, 3600 * S);

	assert_int_equal(parse("offcpu>1.5s"), 0);
	assert_int_equal(ts.kind, FREC_TRIG_OFFCPU);
	assert_int_equal(ts.threshold_ns, 1500 * MS);
	assert_int_equal(parse("oncpu>200us"), 0);
	assert_int_equal(ts.kind, FREC_TRIG_ONCPU);
	assert_int_equal(ts.threshold_ns, 200000);
	assert_int_equal(parse("runq>0"), 0);
	assert_int_equal(ts.threshold_ns, 0);
	assert_int_equal(parse("runq>0.0000000019s"), 0);	/* below a ns: dropped */
	assert_int_equal(ts.threshold_ns, 1);
	assert_int_equal(parse("runq>86400s"), 0);
	assert_int_equal(ts.threshold_ns, 86400 * S);
}

static void test_func_probe_lost_manual(void **state)
{
	assert_int_equal(parse("func:/usr/bin/app:handle>10ms"), 0);
	assert_int_equal(ts.kind, FREC_TRIG_FUNC);
	assert_string_equal(ts.probe, "func:/usr/bin/app:handle");
	assert_int_equal(ts.threshold_ns, 10 * MS);
	assert_string_equal(ts.name, "func:/usr/bin/app:handle>10ms");
	/* a path holding '>' and ':' */
	assert_int_equal(parse("func:/opt/a>b:c/app:f>1s"), 0);
	assert_string_equal(ts.probe, "func:/opt/a>b:c/app:f");
	assert_int_equal(ts.threshold_ns, 1 * S);

	assert_int_equal(parse("probe:usdt:/usr/bin/app:app:error"), 0);
	assert_int_equal(ts.kind, FREC_TRIG_PROBE);
	assert_string_equal(ts.probe, "usdt:/usr/bin/app:app:error");
	assert_int_equal(ts.threshold_ns, 0);

	assert_int_equal(parse("lost"), 0);
	assert_int_equal(ts.kind, FREC_TRIG_LOST);
	assert_string_equal(ts.name, "lost");

	assert_int_equal(parse("manual:oops"), 0);
	assert_int_equal(ts.kind, FREC_TRIG_MANUAL);
	assert_string_equal(ts.manual, "oops");
	assert_string_equal(ts.name, "manual:oops");	/* fired by frec trigger oops */
	assert_string_equal(ts.spec, "manual:oops");
}

static void test_options(void **state)
{
	assert_int_equal(parse("runq>5ms,comm=nginx,pid=42,delay=2s,cooldown=30s,max=3/d,name=slow"), 0);
	assert_int_equal(ts.kind, FREC_TRIG_RUNQ);
	assert_int_equal(ts.threshold_ns, 5 * MS);
	assert_string_equal(ts.comm, "nginx");
	assert_int_equal(ts.pid, 42);
	assert_int_equal(ts.delay_ns, 2 * S);
	assert_int_equal(ts.cooldown_ns, 30 * S);
	assert_int_equal(ts.max_count, 3);
	assert_int_equal(ts.max_period_ns, 86400 * S);
	assert_string_equal(ts.name, "slow");
	assert_string_equal(ts.spec, "runq>5ms,comm=nginx,pid=42,delay=2s,cooldown=30s,max=3/d,name=slow");

	assert_int_equal(parse("lost,delay=0,cooldown=0,max=1000/h"), 0);
	assert_int_equal(ts.delay_ns, 0);
	assert_int_equal(ts.cooldown_ns, 0);
	assert_int_equal(ts.max_count, 1000);
	assert_int_equal(ts.max_period_ns, 3600 * S);
	assert_int_equal(parse("manual:x,name=other"), 0);
	assert_string_equal(ts.name, "other");
	assert_string_equal(ts.manual, "x");
	assert_int_equal(parse("oncpu>1s,comm=123456789012345"), 0);	/* 15: the most */
	assert_string_equal(ts.comm, "123456789012345");
	assert_int_equal(parse("probe:uprobe:/bin/x:f,pid=4194304"), 0);
	assert_int_equal(ts.pid, 4194304);
	assert_int_equal(parse("runq>1ms,delay=500us"), 0);
	assert_int_equal(ts.delay_ns, 500000);
	assert_null(ts.cgroup);
	/* the path is only checked for form here: frecd resolves it */
	assert_int_equal(parse("offcpu>1ms,cgroup=/system.slice/a.service,comm=x"), 0);
	assert_string_equal(ts.cgroup, "/system.slice/a.service");
	assert_string_equal(ts.comm, "x");
}

static void test_condition_errors(void **state)
{
	assert_error("", "trigger '': no condition; start with runq>DUR, offcpu>DUR, oncpu>DUR, func:PATH:FUNC>DUR, probe:SPEC, lost or manual:NAME");
	assert_error(",name=x", "trigger ',name=x': no condition; start with runq>DUR, offcpu>DUR, oncpu>DUR, func:PATH:FUNC>DUR, probe:SPEC, lost or manual:NAME");
	assert_error("sched>5ms", "trigger 'sched>5ms': unknown condition 'sched>5ms'; use runq>DUR, offcpu>DUR, oncpu>DUR, func:PATH:FUNC>DUR, probe:SPEC, lost or manual:NAME");
	assert_error("runq", "trigger 'runq': runq needs a threshold; use e.g. runq>50ms");
	assert_error("oncpu<5ms", "trigger 'oncpu<5ms': oncpu needs a threshold; use e.g. oncpu>50ms");
	assert_error("runq>5", "trigger 'runq>5': runq>5: not a duration; use a number with us, ms or s, e.g. runq>50ms");
	assert_error("offcpu>5ns", "trigger 'offcpu>5ns': offcpu>5ns: not a duration; use a number with us, ms or s, e.g. offcpu>50ms");
	assert_error("runq>", "trigger 'runq>': runq>: not a duration; use a number with us, ms or s, e.g. runq>50ms");
	assert_error("runq>1.ms", "trigger 'runq>1.ms': runq>1.ms: not a duration; use a number with us, ms or s, e.g. runq>50ms");
	assert_error("runq>-1ms", "trigger 'runq>-1ms': runq>-1ms: not a duration; use a number with us, ms or s, e.g. runq>50ms");
	assert_error("runq>00", "trigger 'runq>00': runq>00: not a duration; use a number with us, ms or s, e.g. runq>50ms");
	assert_error("runq>86401s", "trigger 'runq>86401s': runq>86401s: longer than a day; use a threshold of at most 86400s");
	assert_error("runq>99999999999999999999999s", "trigger 'runq>99999999999999999999999s': runq>99999999999999999999999s: longer than a day; use a threshold of at most 86400s");
	assert_error("func:/bin/app:f", "trigger 'func:/bin/app:f': func: needs a threshold; use func:PATH:FUNC>DUR, e.g. func:/usr/bin/app:handle>10ms");
	assert_error("func:/bin/app>1ms", "trigger 'func:/bin/app>1ms': 'func:/bin/app' names no function; use func:PATH:FUNC>DUR, e.g. func:/usr/bin/app:handle>10ms");
	assert_error("func:/bin/app:>1ms", "trigger 'func:/bin/app:>1ms': 'func:/bin/app:' names no function; use func:PATH:FUNC>DUR, e.g. func:/usr/bin/app:handle>10ms");
	assert_error("func:/bin/app:f>1", "trigger 'func:/bin/app:f>1': func:...>1: not a duration; use a number with us, ms or s, e.g. func:...>50ms");
	assert_error("probe:", "trigger 'probe:': probe: names no probe; use probe:SPEC with a --probe spec, e.g. probe:usdt:/usr/bin/app:app:error");
	assert_error("manual", "trigger 'manual': manual needs a name of 1 to 64 characters without spaces; use e.g. manual:oops (fired by frec trigger oops)");
	assert_error("manual:", "trigger 'manual:': manual needs a name of 1 to 64 characters without spaces; use e.g. manual:oops (fired by frec trigger oops)");
	assert_error("manual:a b", "trigger 'manual:a b': manual needs a name of 1 to 64 characters without spaces; use e.g. manual:oops (fired by frec trigger oops)");
	assert_error("lost\n", "trigger '...': a control character at byte 5; write the spec on one line");
}

static void test_option_errors(void **state)
{
	char text[128];

	assert_error("runq>1ms,cgroup=x", "trigger 'runq>1ms,cgroup=x': cgroup=x: not a cgroup path; give the path /proc/PID/cgroup shows for a process in it, e.g. cgroup=/system.slice/app.service");
	assert_error("runq>1ms,cgroup=/a,cgroup=/b", "trigger 'runq>1ms,cgroup=/a,cgroup=/b': cgroup= given twice; keep one");
	assert_error("lost,cgroup=/a", "trigger 'lost,cgroup=/a': cgroup= does not apply to lost (it concerns no thread); remove it");
	assert_error("runq>1ms,", "trigger 'runq>1ms,': empty option (two commas, or one at the end); remove it");
	assert_error("runq>1ms,,pid=1", "trigger 'runq>1ms,,pid=1': empty option (two commas, or one at the end); remove it");
	assert_error("runq>1ms,comm", "trigger 'runq>1ms,comm': option 'comm' has no value; use KEY=VALUE: comm=, pid=, cgroup=, delay=, cooldown=, max=, name=");
	assert_error("runq>1ms,color=red", "trigger 'runq>1ms,color=red': unknown option 'color'; the options are comm=, pid=, cgroup=, delay=, cooldown=, max= and name=");
	assert_error("runq>1ms,pid=1,pid=2", "trigger 'runq>1ms,pid=1,pid=2': pid= given twice; keep one");
	assert_error("lost,comm=x", "trigger 'lost,comm=x': comm= does not apply to lost (it concerns no thread); remove it");
	assert_error("manual:a,pid=1", "trigger 'manual:a,pid=1': pid= does not apply to manual (it concerns no thread); remove it");
	assert_error("runq>1ms,comm=", "trigger 'runq>1ms,comm=': comm=: a thread name has 1 to 15 characters (the kernel's limit); use the name ps -L shows");
	assert_error("runq>1ms,comm=1234567890123456", "trigger 'runq>1ms,comm=1234567890123456': comm=1234567890123456: a thread name has 1 to 15 characters (the kernel's limit); use the name ps -L shows");
	assert_error("runq>1ms,pid=0", "trigger 'runq>1ms,pid=0': pid=0: not a process id; use a number from 1 to 4194304, e.g. pid=$(pidof app)");
	assert_error("runq>1ms,pid=x", "trigger 'runq>1ms,pid=x': pid=x: not a process id; use a number from 1 to 4194304, e.g. pid=$(pidof app)");
	assert_error("runq>1ms,pid=4194305", "trigger 'runq>1ms,pid=4194305': pid=4194305: not a process id; use a number from 1 to 4194304, e.g. pid=$(pidof app)");
	assert_error("runq>1ms,delay=2", "trigger 'runq>1ms,delay=2': delay=2: not a duration; use a number with us, ms or s, e.g. delay=2s");
	assert_error("runq>1ms,cooldown=1m", "trigger 'runq>1ms,cooldown=1m': cooldown=1m: not a duration; use a number with us, ms or s, e.g. cooldown=30s");
	assert_error("runq>1ms,cooldown=2d", "trigger 'runq>1ms,cooldown=2d': cooldown=2d: not a duration; use a number with us, ms or s, e.g. cooldown=30s");
	assert_error("runq>1ms,delay=90000s", "trigger 'runq>1ms,delay=90000s': delay=90000s: longer than a day; use at most 86400s");
	assert_error("runq>1ms,max=6", "trigger 'runq>1ms,max=6': max=6: use N/h or N/d with N from 1 to 1000 snapshots, e.g. max=6/h");
	assert_error("runq>1ms,max=0/h", "trigger 'runq>1ms,max=0/h': max=0/h: use N/h or N/d with N from 1 to 1000 snapshots, e.g. max=6/h");
	assert_error("runq>1ms,max=1001/h", "trigger 'runq>1ms,max=1001/h': max=1001/h: use N/h or N/d with N from 1 to 1000 snapshots, e.g. max=6/h");
	assert_error("runq>1ms,max=6/m", "trigger 'runq>1ms,max=6/m': max=6/m: use N/h or N/d with N from 1 to 1000 snapshots, e.g. max=6/h");
	assert_error("runq>1ms,max=6/hour", "trigger 'runq>1ms,max=6/hour': max=6/hour: use N/h or N/d with N from 1 to 1000 snapshots, e.g. max=6/h");
	assert_error("runq>1ms,max=/h", "trigger 'runq>1ms,max=/h': max=/h: use N/h or N/d with N from 1 to 1000 snapshots, e.g. max=6/h");
	assert_error("runq>1ms,name=", "trigger 'runq>1ms,name=': name=: use 1 to 64 characters without spaces or control characters");
	assert_error("runq>1ms,name=a b", "trigger 'runq>1ms,name=a b': name=a b: use 1 to 64 characters without spaces or control characters");
	snprintf(text, sizeof(text), "lost,name=%065d", 0);
	assert_int_equal(parse(text), -EINVAL);
	assert_non_null(strstr(err, "use 1 to 64 characters"));
	snprintf(text, sizeof(text), "lost,name=%064d", 0);
	assert_int_equal(parse(text), 0);
}

static void test_kind_names(void **state)
{
	assert_string_equal(trigger_kind__name(FREC_TRIG_RUNQ), "runq");
	assert_string_equal(trigger_kind__name(FREC_TRIG_OFFCPU), "offcpu");
	assert_string_equal(trigger_kind__name(FREC_TRIG_ONCPU), "oncpu");
	assert_string_equal(trigger_kind__name(FREC_TRIG_FUNC), "func");
	assert_string_equal(trigger_kind__name(FREC_TRIG_PROBE), "probe");
	assert_string_equal(trigger_kind__name(FREC_TRIG_LOST), "lost");
	assert_string_equal(trigger_kind__name(FREC_TRIG_MANUAL), "manual");
	assert_string_equal(trigger_kind__name(0), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_durations, teardown),
		cmocka_unit_test_teardown(test_func_probe_lost_manual, teardown),
		cmocka_unit_test_teardown(test_options, teardown),
		cmocka_unit_test_teardown(test_condition_errors, teardown),
		cmocka_unit_test_teardown(test_option_errors, teardown),
		cmocka_unit_test(test_kind_names),
		cmocka_unit_test(test_comm_mask),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
