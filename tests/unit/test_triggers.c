// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The triggers' policy with a fake clock: delay, cooldown, the rolling rate
 * limit, the oncpu tick and its dedupe, lost, manual, the programs' state,
 * reasons, and a reload's reset of changed ids.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "frecd/triggers.h"

#define MS	1000000ull
#define S	1000000000ull
#define T0	(1000 * S)	/* the fake clock's start */

/* What the hooks saw. */
static struct {
	struct frec_rec_trigger pushed[16];
	int npushed;
	struct {
		__u32 id, tid, tgid;
		__u64 ts, value, count;
	} supp[16];
	int nsupp;
	__u32 snap_id[16];
	char snap_reason[16][FRECD_TRIGGER_REASON_MAX];
	int nsnap;
} seen;

static void on_push(void *ctx, const struct frec_rec_trigger *r)
{
	seen.pushed[seen.npushed++ & 15] = *r;
}

static void on_suppressed(void *ctx, __u32 id, __u32 tid, __u32 tgid, __u64 ts, __u64 value,
			  __u64 count)
{
	int i = seen.nsupp++ & 15;

	seen.supp[i].id = id;
	seen.supp[i].tid = tid;
	seen.supp[i].tgid = tgid;
	seen.supp[i].ts = ts;
	seen.supp[i].value = value;
	seen.supp[i].count = count;
}

static void on_snapshot(void *ctx, __u32 id, const char *reason)
{
	int i = seen.nsnap++ & 15;

	seen.snap_id[i] = id;
	snprintf(seen.snap_reason[i], sizeof(seen.snap_reason[i]), "%s", reason);
}

static const struct frecd_triggers_hooks hooks = {
	.push = on_push,
	.suppressed = on_suppressed,
	.snapshot = on_snapshot,
};

static struct trigger_spec specs[4];
static size_t nspecs;
static struct frecd_triggers *t;

static struct frecd_triggers *make(const char *first, ...)
{
	char err[512];
	const char *s;
	va_list ap;

	memset(&seen, 0, sizeof(seen));
	nspecs = 0;
	va_start(ap, first);
	for (s = first; s; s = va_arg(ap, const char *)) {
		assert_int_equal(trigger_spec__parse(s, &specs[nspecs], err, sizeof(err)), 0);
		nspecs++;
	}
	va_end(ap);
	t = frecd_triggers__new(specs, nspecs, &hooks);
	assert_non_null(t);
	return t;
}

static int teardown(void **state)
{
	size_t i;

	frecd_triggers__free(t);
	t = NULL;
	for (i = 0; i < nspecs; i++)
		trigger_spec__free(&specs[i]);
	nspecs = 0;
	return 0;
}

/* A firing as the programs write it. */
static struct frec_rec_trigger rec(__u32 id, __u64 ts, __u32 cpu, __u32 tid, const char *comm,
				   __u64 value)
{
	struct frec_rec_trigger r;

	memset(&r, 0, sizeof(r));
	r.h.ts = ts;
	r.h.cpu = cpu;
	r.h.type = FREC_EV_TRIGGER;
	r.h.size = sizeof(r);
	r.trigger_id = id;
	r.pid = tid;
	r.tgid = tid;
	r.value = value;
	snprintf(r.comm, sizeof(r.comm), "%s", comm);
	return r;
}

static enum frecd_trigger_verdict fire_at(__u32 id, __u64 ts, __u64 value)
{
	struct frec_rec_trigger r = rec(id, ts, 0, 77, "worker", value);

	return frecd_triggers__on_record(t, &r);
}

static struct frecd_trigger_stats stats(__u32 id)
{
	struct frecd_trigger_stats st[FREC_MAX_TRIGGERS];

	assert_true(frecd_triggers__stats(t, st, FREC_MAX_TRIGGERS) >= id);
	return st[id - 1];
}

static void test_delay(void **state)
{
	make("runq>5ms,cooldown=0,delay=2s", NULL);
	assert_int_equal(frecd_triggers__deadline(t), 0);
	assert_int_equal(fire_at(1, T0, 52300000), FRECD_TRIGGER_ACCEPTED);
	/* the programs' record is the caller's to push */
	assert_int_equal(seen.npushed, 0);
	assert_int_equal(frecd_triggers__deadline(t), T0 + 2 * S);
	assert_true(stats(1).pending);

	/* during the delay: suppressed, handed on with its thread and value */
	assert_int_equal(fire_at(1, T0 + 1 * S, 9 * MS), FRECD_TRIGGER_DELAY);
	assert_int_equal(seen.nsupp, 1);
	assert_int_equal(seen.supp[0].id, 1);
	assert_int_equal(seen.supp[0].tid, 77);
	assert_int_equal(seen.supp[0].ts, T0 + 1 * S);
	assert_int_equal(seen.supp[0].value, 9 * MS);
	assert_int_equal(seen.supp[0].count, 1);

	frecd_triggers__tick(t, T0 + 2 * S - 1);
	assert_int_equal(seen.nsnap, 0);
	frecd_triggers__tick(t, T0 + 2 * S);
	assert_int_equal(seen.nsnap, 1);
	assert_int_equal(seen.snap_id[0], 1);
	assert_string_equal(seen.snap_reason[0],
			    "trigger runq>5ms,cooldown=0,delay=2s: tid 77 comm worker value 52.3 ms");
	assert_int_equal(frecd_triggers__deadline(t), 0);
	frecd_triggers__tick(t, T0 + 3 * S);
	assert_int_equal(seen.nsnap, 1);	/* once */

	/* the delay is over: the next firing is accepted */
	assert_int_equal(fire_at(1, T0 + 2 * S + 1, 6 * MS), FRECD_TRIGGER_ACCEPTED);
	assert_int_equal(stats(1).fired, 2);
	assert_int_equal(stats(1).snapshots, 1);
	assert_int_equal(stats(1).suppressed_delay, 1);
	assert_int_equal(stats(1).suppressed_cooldown, 0);
}

static void test_cooldown(void **state)
{
	make("offcpu>1s,delay=0,cooldown=10s,max=1000/h", NULL);
	assert_int_equal(fire_at(1, T0, 2 * S), FRECD_TRIGGER_ACCEPTED);
	frecd_triggers__tick(t, T0);
	assert_int_equal(seen.nsnap, 1);
	assert_string_equal(seen.snap_reason[0],
			    "trigger offcpu>1s,delay=0,cooldown=10s,max=1000/h: tid 77 comm worker value 2.00 s");
	assert_int_equal(fire_at(1, T0 + 10 * S - 1, 3 * S), FRECD_TRIGGER_COOLDOWN);
	/* a record a little older than the last firing: inside it too */
	assert_int_equal(fire_at(1, T0 - 1, 3 * S), FRECD_TRIGGER_COOLDOWN);
	assert_int_equal(fire_at(1, T0 + 10 * S, 4 * S), FRECD_TRIGGER_ACCEPTED);
	frecd_triggers__tick(t, T0 + 10 * S);
	/* from the last accepted firing, not the suppressed ones */
	assert_int_equal(fire_at(1, T0 + 19 * S, 4 * S), FRECD_TRIGGER_COOLDOWN);
	assert_int_equal(fire_at(1, T0 + 20 * S, 4 * S), FRECD_TRIGGER_ACCEPTED);
	/* not ticked yet: its snapshot (delay 0) is still pending */
	assert_int_equal(fire_at(1, T0 + 40 * S, 4 * S), FRECD_TRIGGER_DELAY);
	assert_int_equal(stats(1).suppressed_cooldown, 3);
	assert_int_equal(stats(1).suppressed_delay, 1);
	assert_int_equal(stats(1).fired, 3);
}

static void test_rate_limit(void **state)
{
	int i;

	make("runq>1ms,delay=0,cooldown=0,max=3/h", "lost,delay=0,cooldown=0,max=2/d", NULL);
	/* three in the hour are taken, the fourth is not */
	for (i = 0; i < 3; i++) {
		assert_int_equal(fire_at(1, T0 + i * 60 * S, 2 * MS), FRECD_TRIGGER_ACCEPTED);
		frecd_triggers__tick(t, T0 + i * 60 * S);
	}
	assert_int_equal(fire_at(1, T0 + 3 * 60 * S, 2 * MS), FRECD_TRIGGER_RATE);
	/* rolling: an hour after the first, one more */
	assert_int_equal(fire_at(1, T0 + 3600 * S - 1, 2 * MS), FRECD_TRIGGER_RATE);
	assert_int_equal(fire_at(1, T0 + 3600 * S, 2 * MS), FRECD_TRIGGER_ACCEPTED);
	frecd_triggers__tick(t, T0 + 3600 * S);
	assert_int_equal(fire_at(1, T0 + 3600 * S + 1, 2 * MS), FRECD_TRIGGER_RATE);
	assert_int_equal(fire_at(1, T0 + 3660 * S, 2 * MS), FRECD_TRIGGER_ACCEPTED);
	frecd_triggers__tick(t, T0 + 3660 * S);
	assert_int_equal(stats(1).fired, 5);
	assert_int_equal(stats(1).snapshots, 5);
	assert_int_equal(stats(1).suppressed_rate, 3);

	/* per day, for frecd's own lost firings */
	frecd_triggers__lost(t, 5, T0);
	frecd_triggers__tick(t, T0);
	frecd_triggers__lost(t, 0, T0 + S);	/* nothing lost: nothing fires */
	frecd_triggers__lost(t, 7, T0 + 3600 * S);
	frecd_triggers__tick(t, T0 + 3600 * S);
	frecd_triggers__lost(t, 9, T0 + 86399 * S);
	assert_int_equal(stats(2).fired, 2);
	assert_int_equal(stats(2).suppressed_rate, 1);
	frecd_triggers__lost(t, 11, T0 + 86400 * S);
	assert_int_equal(stats(2).fired, 3);
}

static void test_lost_and_reasons(void **state)
{
	char buf[FRECD_TRIGGER_REASON_MAX];

	make("lost,delay=0,name=lost", NULL);
	frecd_triggers__lost(t, 120, T0);
	assert_int_equal(seen.npushed, 1);
	assert_int_equal(seen.pushed[0].h.type, FREC_EV_TRIGGER);
	assert_int_equal(seen.pushed[0].h.size, sizeof(struct frec_rec_trigger));
	assert_int_equal(seen.pushed[0].h.ts, T0);
	assert_int_equal(seen.pushed[0].trigger_id, 1);
	assert_int_equal(seen.pushed[0].pid, 0);
	assert_int_equal(seen.pushed[0].h.cpu, FREC_REC_CPU_NONE);
	assert_int_equal(seen.pushed[0].value, 120);
	frecd_triggers__tick(t, T0);
	assert_string_equal(seen.snap_reason[0], "trigger lost: tid 0 comm - value 120 records");
	/* suppressed by the cooldown: not pushed, handed on */
	frecd_triggers__lost(t, 3, T0 + S);
	assert_int_equal(seen.npushed, 1);
	assert_int_equal(seen.nsupp, 1);
	assert_int_equal(seen.supp[0].value, 3);

	frecd_trigger__reason(buf, sizeof(buf), "slow", FREC_TRIG_FUNC, 5, "a\tb", 999);
	assert_string_equal(buf, "trigger slow: tid 5 comm a?b value 1.0 us");
	frecd_trigger__reason(buf, sizeof(buf), "slow", FREC_TRIG_ONCPU, 5, "x", 1000000);
	assert_string_equal(buf, "trigger slow: tid 5 comm x value 1.0 ms");
	frecd_trigger__reason(buf, sizeof(buf), "err", FREC_TRIG_PROBE, 5, "x", 42);
	assert_string_equal(buf, "trigger err: tid 5 comm x value 42");
	frecd_trigger__reason(buf, sizeof(buf), "m", FREC_TRIG_MANUAL, 9, "0123456789abcdefXX", 0);
	assert_string_equal(buf, "trigger m: tid 9 comm 0123456789abcde value 0");
	/* a long name (the default: the whole spec) loses its middle, never
	 * the facts */
	{
		char name[200], big[FRECD_TRIGGER_REASON_MAX];
		const char *facts = ": tid 4294967295 comm 0123456789abcde value 1.0 ms";
		size_t n;

		memset(name, 'p', sizeof(name) - 1);
		name[sizeof(name) - 1] = '\0';
		memcpy(name, "func:/", 6);
		memcpy(name + sizeof(name) - 7, ">30ms", 6);
		frecd_trigger__reason(big, sizeof(big), name, FREC_TRIG_FUNC, 4294967295u,
				      "0123456789abcdefXX", 1000000);
		n = strlen(big);
		assert_int_equal(n, sizeof(big) - 1);
		assert_memory_equal(big, "trigger func:/", 14);
		assert_string_equal(big + n - strlen(facts), facts);
		assert_non_null(strstr(big, "...pp"));
		assert_memory_equal(big + n - strlen(facts) - 5, ">30ms", 5);
		/* one that just fits is whole */
		n = sizeof(big) - 1 - strlen("trigger ") - strlen(facts);
		name[n] = '\0';
		frecd_trigger__reason(big, sizeof(big), name, FREC_TRIG_FUNC, 4294967295u,
				      "0123456789abcdefXX", 1000000);
		assert_int_equal(strlen(big), sizeof(big) - 1);
		assert_null(strstr(big, "..."));
	}
}

static void test_oncpu_tick_and_dedupe(void **state)
{
	struct frec_oncpu cpus[2];
	struct frec_rec_trigger r;

	make("oncpu>100ms,delay=0,cooldown=0,max=1000/h", "oncpu>1s,comm=other,delay=0", NULL);
	memset(cpus, 0, sizeof(cpus));
	cpus[1].since_ts = T0;
	cpus[1].pid = 50;
	cpus[1].tgid = 49;
	snprintf(cpus[1].comm, sizeof(cpus[1].comm), "spin");
	/* cpu 0 idle (since 0); cpu 1 not past the threshold yet */
	frecd_triggers__check_oncpu(t, cpus, 2, T0 + 100 * MS);
	assert_int_equal(seen.npushed, 0);
	frecd_triggers__check_oncpu(t, cpus, 2, T0 + 150 * MS);
	assert_int_equal(seen.npushed, 1);
	assert_int_equal(seen.pushed[0].trigger_id, 1);
	assert_int_equal(seen.pushed[0].h.cpu, 1);
	assert_int_equal(seen.pushed[0].h.ts, T0 + 150 * MS);
	assert_int_equal(seen.pushed[0].pid, 50);
	assert_int_equal(seen.pushed[0].tgid, 49);
	assert_int_equal(seen.pushed[0].value, 150 * MS);
	assert_string_equal(seen.pushed[0].comm, "spin");
	frecd_triggers__tick(t, T0 + 150 * MS);
	assert_string_equal(seen.snap_reason[0],
			    "trigger oncpu>100ms,delay=0,cooldown=0,max=1000/h: tid 50 comm spin value 150.0 ms");
	/* the same run, later: once per run */
	frecd_triggers__check_oncpu(t, cpus, 2, T0 + 2 * S);
	assert_int_equal(seen.npushed, 1);	/* comm=other never matched */
	/* a run that started after the cut is not judged */
	cpus[0].since_ts = T0 + 3 * S;
	frecd_triggers__check_oncpu(t, cpus, 2, T0 + 2 * S);
	assert_int_equal(seen.npushed, 1);

	/* its switch-out in BPF: the same run (same cpu, ts - value == since) */
	r = rec(1, T0 + 2500 * MS, 1, 50, "spin", 2500 * MS);
	assert_int_equal(frecd_triggers__on_record(t, &r), FRECD_TRIGGER_DUPLICATE);
	assert_int_equal(seen.nsupp, 0);
	/* another run on that cpu, or the same times on another cpu: judged */
	r = rec(1, T0 + 2600 * MS, 1, 50, "spin", 2500 * MS);
	assert_int_equal(frecd_triggers__on_record(t, &r), FRECD_TRIGGER_ACCEPTED);
	r = rec(1, T0 + 2700 * MS, 0, 50, "spin", 2700 * MS);
	frecd_triggers__tick(t, T0 + 2600 * MS);
	assert_int_equal(frecd_triggers__on_record(t, &r), FRECD_TRIGGER_ACCEPTED);
	assert_int_equal(stats(1).fired, 3);

	/* a new run on cpu 1 fires again */
	cpus[1].since_ts = T0 + 3 * S;
	frecd_triggers__tick(t, T0 + 4 * S);
	frecd_triggers__check_oncpu(t, cpus, 2, T0 + 4 * S);
	assert_int_equal(seen.npushed, 2);
	assert_int_equal(seen.pushed[1].value, 1 * S);
	/* the filtered trigger fires for its thread only, past its 1 s */
	snprintf(cpus[1].comm, sizeof(cpus[1].comm), "other");
	cpus[1].since_ts = T0 + 4 * S;
	frecd_triggers__check_oncpu(t, cpus, 2, T0 + 5 * S + 1);
	assert_int_equal(stats(2).fired, 1);
}

/*
 * A spin the kernel's stopper preempts: two runs past the threshold, the
 * second in the first one's delay and then its cooldown. One firing and
 * one suppression: the tick counts no suppression of its own, the second
 * run's switch-out is the one (the programs' cooldown, or its record).
 */
static void test_oncpu_suppressed_once(void **state)
{
	struct frec_trigger_state st = { 0 };
	struct frec_oncpu cpu = { 0 };
	struct frec_rec_trigger r;

	make("oncpu>100ms,delay=300ms,cooldown=1s", NULL);
	cpu.since_ts = T0;
	cpu.pid = 50;
	cpu.tgid = 50;
	snprintf(cpu.comm, sizeof(cpu.comm), "spin");
	frecd_triggers__check_oncpu(t, &cpu, 1, T0 + 150 * MS);
	assert_int_equal(seen.npushed, 1);
	r = rec(1, T0 + 200 * MS, 0, 50, "spin", 200 * MS);
	assert_int_equal(frecd_triggers__on_record(t, &r), FRECD_TRIGGER_DUPLICATE);
	/* the second run, in the delay, then in the cooldown: not yet */
	cpu.since_ts = T0 + 201 * MS;
	frecd_triggers__check_oncpu(t, &cpu, 1, T0 + 350 * MS);
	frecd_triggers__tick(t, T0 + 450 * MS);
	frecd_triggers__check_oncpu(t, &cpu, 1, T0 + 500 * MS);
	assert_int_equal(seen.npushed, 1);
	assert_int_equal(seen.nsupp, 0);
	/* its switch-out, in the programs' cooldown: counted there, once */
	st.suppressed = 1;
	st.supp_first_ts = T0 + 600 * MS;
	st.supp_worst = 399 * MS;
	st.supp_tid = 50;
	frecd_triggers__take_state(t, &st, 1, T0 + 610 * MS);
	assert_int_equal(stats(1).suppressed_delay + stats(1).suppressed_cooldown, 1);
	assert_int_equal(seen.nsupp, 1);

	/* a third run's switch-out as a record (no cooldown in the programs
	 * after a reload, say): judged, and the one suppression of the run */
	cpu.since_ts = T0 + 700 * MS;
	frecd_triggers__check_oncpu(t, &cpu, 1, T0 + 900 * MS);
	r = rec(1, T0 + 950 * MS, 0, 50, "spin", 250 * MS);
	assert_int_equal(frecd_triggers__on_record(t, &r), FRECD_TRIGGER_COOLDOWN);
	assert_int_equal(stats(1).suppressed_delay + stats(1).suppressed_cooldown, 2);

	/* a run that outlasts the cooldown fires from the tick, once */
	cpu.since_ts = T0 + 1 * S;
	frecd_triggers__check_oncpu(t, &cpu, 1, T0 + 1100 * MS);
	assert_int_equal(seen.npushed, 1);
	frecd_triggers__check_oncpu(t, &cpu, 1, T0 + 1200 * MS);
	assert_int_equal(seen.npushed, 2);
	assert_int_equal(seen.pushed[1].value, 200 * MS);
	frecd_triggers__check_oncpu(t, &cpu, 1, T0 + 1300 * MS);
	r = rec(1, T0 + 1400 * MS, 0, 50, "spin", 400 * MS);
	assert_int_equal(frecd_triggers__on_record(t, &r), FRECD_TRIGGER_DUPLICATE);
	assert_int_equal(stats(1).fired, 2);
	assert_int_equal(stats(1).suppressed_delay + stats(1).suppressed_cooldown, 2);
	assert_int_equal(seen.nsupp, 2);
}

static void test_manual(void **state)
{
	char err[256], names[64];
	__u32 id = 0;

	make("runq>1ms", "manual:oops,delay=1s,cooldown=5s", "manual:two,name=second", NULL);
	assert_string_equal(frecd_triggers__manual_names(t, names, sizeof(names)), "oops, two");
	assert_int_equal(frecd_triggers__manual(t, "nope", 123, "frec", T0, &id, err, sizeof(err)),
			 -ENOENT);
	assert_string_equal(err, "no manual trigger 'nope'; the armed ones: oops, two");
	/* a runq trigger is not fired by name */
	assert_int_equal(frecd_triggers__manual(t, "runq>1ms", 123, "frec", T0, &id, err,
						sizeof(err)), -ENOENT);

	assert_int_equal(frecd_triggers__manual(t, "oops", 123, "frec", T0, &id, err, sizeof(err)), 0);
	assert_int_equal(id, 2);
	assert_int_equal(seen.npushed, 1);
	assert_int_equal(seen.pushed[0].h.tid, 123);
	assert_int_equal(seen.pushed[0].pid, 123);
	assert_int_equal(seen.pushed[0].tgid, 123);
	assert_int_equal(seen.pushed[0].value, 0);
	assert_int_equal(seen.pushed[0].h.cpu, FREC_REC_CPU_NONE);
	/* during its delay: answered by the pending snapshot */
	assert_int_equal(frecd_triggers__manual(t, "oops", 124, "frec", T0 + 1, &id, err, sizeof(err)), 0);
	assert_int_equal(seen.npushed, 1);
	assert_int_equal(stats(2).suppressed_delay, 1);
	frecd_triggers__tick(t, T0 + S);
	assert_string_equal(seen.snap_reason[0], "trigger manual:oops,delay=1s,cooldown=5s: tid 123 comm frec value 0");
	/* its cooldown: refused, with the time left */
	assert_int_equal(frecd_triggers__manual(t, "oops", 123, "frec", T0 + 2 * S, &id, err,
						sizeof(err)), -EBUSY);
	assert_string_equal(err, "trigger manual:oops,delay=1s,cooldown=5s is in its cooldown for another 3.0 s (cooldown=5s); no snapshot taken");
	/* by its name= too */
	assert_int_equal(frecd_triggers__manual(t, "second", 1, "x", T0, &id, err, sizeof(err)), 0);
	assert_int_equal(id, 3);

	teardown(NULL);
	make("runq>1ms", NULL);
	assert_int_equal(frecd_triggers__manual(t, "x", 1, "x", T0, &id, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "no manual trigger 'x': none is armed; start frecd with --trigger manual:x");
}

static void test_manual_rate(void **state)
{
	char err[256];
	__u32 id;

	make("manual:m,delay=0,cooldown=0,max=1/h", NULL);
	assert_int_equal(frecd_triggers__manual(t, "m", 1, "x", T0, &id, err, sizeof(err)), 0);
	frecd_triggers__tick(t, T0);
	assert_int_equal(frecd_triggers__manual(t, "m", 1, "x", T0 + 1, &id, err, sizeof(err)), -EBUSY);
	assert_string_equal(err, "trigger manual:m,delay=0,cooldown=0,max=1/h took its 1 snapshots of the last hour (max=1/h); no snapshot taken");
}

static void test_bpf_state(void **state)
{
	struct frec_trigger_state st[2];

	make("runq>1ms", "offcpu>1s", NULL);
	memset(st, 0, sizeof(st));
	frecd_triggers__take_state(t, st, 2, T0);
	assert_int_equal(seen.nsupp, 0);
	st[1].suppressed = 4;
	st[1].supp_first_ts = T0 - S;
	st[1].supp_worst = 3 * S;
	st[1].supp_tid = 8;
	st[1].supp_tgid = 7;
	frecd_triggers__take_state(t, st, 2, T0);
	assert_int_equal(seen.nsupp, 1);
	assert_int_equal(seen.supp[0].id, 2);
	assert_int_equal(seen.supp[0].tid, 8);
	assert_int_equal(seen.supp[0].tgid, 7);
	assert_int_equal(seen.supp[0].ts, T0 - S);
	assert_int_equal(seen.supp[0].value, 3 * S);
	assert_int_equal(seen.supp[0].count, 4);
	/* cumulative: only the growth counts; a lost first time is now */
	st[1].suppressed = 6;
	st[1].supp_first_ts = 0;
	frecd_triggers__take_state(t, st, 2, T0 + S);
	assert_int_equal(seen.nsupp, 2);
	assert_int_equal(seen.supp[1].count, 2);
	assert_int_equal(seen.supp[1].ts, T0 + S);
	frecd_triggers__take_state(t, st, 2, T0 + 2 * S);
	assert_int_equal(seen.nsupp, 2);
	assert_int_equal(stats(2).suppressed_cooldown, 6);
	/* zeroed (a reset): counted from there */
	st[1].suppressed = 1;
	frecd_triggers__take_state(t, st, 2, T0 + 3 * S);
	assert_int_equal(seen.nsupp, 2);
	st[1].suppressed = 2;
	frecd_triggers__take_state(t, st, 2, T0 + 3 * S);
	assert_int_equal(seen.supp[2].count, 1);
}

static void test_reload(void **state)
{
	struct trigger_spec next[3];
	char err[256];
	__u32 changed;
	size_t i;

	make("runq>1ms,delay=0,cooldown=0", "offcpu>1s", NULL);
	assert_int_equal(fire_at(1, T0, 2 * MS), FRECD_TRIGGER_ACCEPTED);
	assert_int_equal(fire_at(2, T0, 2 * S), FRECD_TRIGGER_ACCEPTED);
	assert_int_equal(trigger_spec__parse("runq>1ms,delay=0,cooldown=0", &next[0], err, sizeof(err)), 0);
	assert_int_equal(trigger_spec__parse("offcpu>2s", &next[1], err, sizeof(err)), 0);
	assert_int_equal(trigger_spec__parse("lost", &next[2], err, sizeof(err)), 0);
	assert_int_equal(frecd_triggers__set(t, next, 3, &changed), 0);
	assert_int_equal(changed, 0x6);	/* id 2 changed, id 3 is new */
	assert_int_equal(frecd_triggers__count(t), 3);
	assert_int_equal(stats(1).fired, 1);	/* kept */
	assert_true(stats(1).pending);
	assert_int_equal(stats(2).fired, 0);	/* started over */
	assert_false(stats(2).pending);
	assert_string_equal(stats(2).spec, "offcpu>2s");
	frecd_triggers__tick(t, T0);
	assert_int_equal(seen.nsnap, 1);
	assert_int_equal(seen.snap_id[0], 1);
	/* fewer: the ids that go away count as changed */
	assert_int_equal(frecd_triggers__set(t, next, 1, &changed), 0);
	assert_int_equal(changed, 0x6);
	assert_int_equal(frecd_triggers__count(t), 1);
	for (i = 0; i < 3; i++)
		trigger_spec__free(&next[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_delay, teardown),
		cmocka_unit_test_teardown(test_cooldown, teardown),
		cmocka_unit_test_teardown(test_rate_limit, teardown),
		cmocka_unit_test_teardown(test_lost_and_reasons, teardown),
		cmocka_unit_test_teardown(test_oncpu_tick_and_dedupe, teardown),
		cmocka_unit_test_teardown(test_oncpu_suppressed_once, teardown),
		cmocka_unit_test_teardown(test_manual, teardown),
		cmocka_unit_test_teardown(test_manual_rate, teardown),
		cmocka_unit_test_teardown(test_bpf_state, teardown),
		cmocka_unit_test_teardown(test_reload, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
