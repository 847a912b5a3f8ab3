// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What `frec status` prints and STATUS= says, byte for byte. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <frec/recorder.h>
#include "frecd/options.h"
#include "frecd/status.h"

static const __u64 lost_by_cpu[4] = { 0, 7, 0, 2 };
static const struct frecd_status_probe probes[] = {
	{ .id = 1, .kind = FREC_PROBE_UPROBE, .name = "func:/bin/app:handle", .hits = 40 },
	{ .id = 2, .kind = FREC_PROBE_URETPROBE, .name = "func:/bin/app:handle", .hits = 39 },
	{ .id = 3, .kind = FREC_PROBE_USDT, .name = "usdt:/bin/\"q\"\n:p:n", .hits = 0 },
};

static const struct frecd_trigger_stats triggers[] = {
	{ .id = 1, .kind = FREC_TRIG_RUNQ, .name = "runq>5ms", .spec = "runq>5ms", .fired = 2,
	  .snapshots = 1, .suppressed_delay = 3, .suppressed_cooldown = 40, .suppressed_rate = 5,
	  .pending = true },
	{ .id = 2, .kind = FREC_TRIG_MANUAL, .name = "oops", .spec = "manual:oops,delay=0" },
};

static void fill(struct frecd_status *st)
{
	memset(st, 0, sizeof(*st));
	st->pid = 4321;
	st->host_pid = 98765;
	st->pidns_own = true;
	st->proc_own = true;
	st->uptime_ns = 3725400000000ull;
	st->npids = 2;
	st->rec.events = 123456;
	st->rec.events_by_type[FREC_EV_SCHED_SWITCH] = 100000;
	st->rec.events_by_type[FREC_EV_SCHED_WAKING] = 23377;
	st->rec.events_by_type[FREC_EV_UPROBE] = 40;
	st->rec.events_by_type[FREC_EV_URETPROBE] = 39;
	st->rec.window_start_ts = 1000000000ull;
	st->rec.window_end_ts = 10876000000ull;
	st->rec.window_bytes = 654321;
	st->rec.window_generations = 10;
	st->rec.open_events = 12;
	st->rec.open_bytes = 70;
	st->rec.chunks_in_use = 12;
	st->rec.chunks_total = 1024;
	st->rec.pool_bytes = 67108864;
	st->rec.pool_misses = 1;
	st->rec.window_events = 117988;
	st->rec.mem_bytes = 12 * 65536;
	st->rec.window_mem_max = 62652416;
	st->rec.tables_bytes = 7654321;
	st->rec.events_discarded = 17;
	st->rec.generations_sealed = 123;
	st->rec.generations_evicted = 113;
	st->rec.late = 2;
	st->rec.gaps = 1;
	st->min_age_ns = 10000000000ull;
	st->max_bytes = 67108864;
	/* --max-size cuts the window: 9.876 s of the 10 */
	st->rec.window_cut = 1;
	/* 4 CPUs of 240, 64K raised to 256K each by --ring-min */
	st->rings.cpus = 4;
	st->rings.possible = 240;
	st->rings.each = 262144;
	st->rings.total = 1048576;
	st->rings.asked = 65536;
	st->rings.floor = 262144;
	st->rings.late_cpus = 1;
	st->rate_ns = 1000000000ull;
	st->events_per_s = 10234.4;
	st->events_per_s_by_type[FREC_EV_SCHED_SWITCH] = 9000;
	st->events_per_s_by_type[FREC_EV_SCHED_WAKING] = 1234.4;
	st->lost = 9;
	st->lost_per_s = 0;
	st->ncpus = 4;
	st->lost_by_cpu = lost_by_cpu;
	st->filtered = 5;
	st->recursion_misses = 4;
	st->recursion_counted = 1;
	st->stacks = FRECD_STACKS_OFFCPU | FRECD_STACKS_PROBES;
	st->rec.stacks = 800;
	st->rec.stacks_distinct = 61;
	st->rec.stacks_unstored = 2;
	st->rec.stacks_orphaned = 3;
	st->stack_capture_errors = 7;
	st->stack_programs_unannounced = 1;
	st->drain_period_ms = 50;
	st->drain_gap_max_ns = 243456789;
	st->drain_slow_gaps = 3;
	st->snapshots = 3;
	st->snapshot_failures = 1;
	st->snapshot_in_progress = true;
	st->output_dir = "/var/lib/frec";
	st->last_snapshot = "/var/lib/frec/frec-20250101T000000.000Z.frec";
	st->keep = 100;
	st->keep_bytes = 1073741824;
	st->compress = FREC_COMPRESS_ZSTD;
	st->nprobes = 3;
	st->probes = probes;
	st->ntriggers = 2;
	st->triggers = triggers;
	st->on_snapshot = "/usr/local/bin/up";
	st->on_snapshot_stats.runs = 4;
	st->on_snapshot_stats.failures = 1;
	st->on_snapshot_stats.skipped = 2;
	st->on_snapshot_stats.running = 1;
	st->cgroups.hierarchy = "v2";
	st->cgroups.nfilters = 2;
	st->cgroups.filters[0] = "/system.slice/a.service";
	st->cgroups.filters[1] = "/b\"q\"";
	st->cgroups.known = 40;
	st->cgroups.pending = 1;
	st->cgroups.unnamed = 2;
	st->rec.cgroup_moves = 6;
	st->rec.threads = 312;
	st->rec.max_threads = 1048576;
	st->rec.processes = 97;
	st->rec.max_processes = 262144;
	st->rec.tasks_bytes = 1572864;
	st->rec.threads_evicted = 5;
	st->rec.processes_evicted = 2;
	st->rec.threads_untracked = 11;
}

static char *format(int (*fn)(const struct frecd_status *, FILE *), const struct frecd_status *st)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(fn(st, f), 0);
	fclose(f);
	return buf;
}

static void test_text(void **state)
{
	struct frecd_status st;
	char *s;

	fill(&st);
	s = format(frecd_status__text, &st);
	assert_string_equal(s,
		"frecd         pid 4321, up 3725.4 s\n"
		"namespaces    pid own (host pid 98765), /proc own, cgroup host\n"
		"recording     2 processes (-p), tp_btf programs\n"
		"events        123456, 10234/s over the last 1.0 s\n"
		"  sched_switch       100000, 9000/s\n"
		"  sched_waking       23377, 1234/s\n"
		"  uprobe             40, 0/s\n"
		"  uretprobe          39, 0/s\n"
		"lost          9, 0/s (cpu1 7, cpu3 2)\n"
		"filtered      5 events left out by -p\n"
		"recursion     4 runs the kernel skipped (a program fired on a CPU where it was running), in the snapshot as lost\n"
		"stacks        offcpu,probes: 800 captured, 61 distinct, 2 unstored, 3 orphaned, 7 capture errors, 1 unannounced programs\n"
		"drain         every 50 ms; longest wait 243.5 ms, 3 waits over 100 ms\n"
		"window        9.876 s, 654321 bytes in 10 generations (at least 10 s, at most 67108864 bytes)\n"
		"window cut    9.876 s, not 10 s: --max-size cuts it; about 68157440 bytes would hold it\n"
		"open          12 events, 70 bytes (the generation being recorded)\n"
		"pool          12 of 1024 chunks in use, 67108864 bytes, 1 misses\n"
		"memory        786432 bytes held for 118000 events, 6.66 bytes/event (at most 67108864 bytes, the window 62652416 of them), 17 events found no room\n"
		"tables        7654321 bytes allocated for threads, processes and names (mapped as they fill)\n"
		"tasks         312 threads of 1048576, 97 processes of 262144, 1572864 bytes; evicted 5 threads, 2 processes unseen for a window; 11 thread mentions found the table full: raise --max-threads\n"
		"rings         1048576 bytes: 4 CPUs online of 240 possible, 262144 bytes each (--ring-size 65536, raised for --ring-min 262144); 1 CPUs came online later and are not recorded (restart frecd)\n"
		"generations   123 sealed, 113 evicted, 0 evicted early; 2 events came after theirs was sealed (in the snapshot as lost), 1 gaps marked\n"
		"snapshots     3 written, 1 failed, one in progress\n"
		"last          /var/lib/frec/frec-20250101T000000.000Z.frec\n"
		"directory     /var/lib/frec\n"
		"compress      zstd\n"
		"retention     keep 100 snapshots, 1073741824 bytes at most\n"
		"probes        3\n"
		"  probe 1     func:/bin/app:handle (uprobe), 40 hits\n"
		"  probe 2     func:/bin/app:handle (uretprobe), 39 hits\n"
		"  probe 3     usdt:/bin/\"q\"?:p:n (usdt), 0 hits\n"
		"triggers      2\n"
		"  trigger 1   runq>5ms: 2 fired, 1 snapshots (one pending); suppressed 3 by delay, 40 by cooldown, 5 by rate\n"
		"  trigger 2   oops (manual:oops,delay=0): 0 fired, 0 snapshots; suppressed 0 by delay, 0 by cooldown, 0 by rate\n"
		"on-snapshot   /usr/local/bin/up: 4 runs, 1 failed, 2 skipped, 1 running\n");
	free(s);

	/* just started: no rates, no filter, nothing lost, no snapshot yet */
	memset(&st, 0, sizeof(st));
	st.pid = 1;
	st.raw_tp = true;
	st.output_dir = "/srv";
	st.min_age_ns = 2500000000ull;
	st.max_bytes = 65536;
	st.ncpus = 2;
	st.lost_by_cpu = (const __u64[]){ 0, 0 };
	s = format(frecd_status__text, &st);
	assert_string_equal(s,
		"frecd         pid 1, up 0.0 s\n"
		"recording     all processes, raw_tp programs\n"
		"events        0\n"
		"lost          0\n"
		"filtered      0 events left out by -p\n"
		"recursion     not counted: this kernel's bpf_prog_info has no recursion_misses (Linux 5.12)\n"
		"stacks        none: 0 captured, 0 distinct, 0 unstored, 0 orphaned, 0 capture errors, 0 unannounced programs\n"
		"drain         every 0 ms; longest wait 0.0 ms, 0 waits over 100 ms\n"
		"window        0.000 s, 0 bytes in 0 generations (at least 2.5 s, at most 65536 bytes)\n"
		"open          0 events, 0 bytes (the generation being recorded)\n"
		"pool          0 of 0 chunks in use, 0 bytes, 0 misses\n"
		"memory        0 bytes held for 0 events (at most 0 bytes, the window 0 of them), 0 events found no room\n"
		"tables        0 bytes allocated for threads, processes and names (mapped as they fill)\n"
		"tasks         0 threads of 0, 0 processes of 0, 0 bytes; evicted 0 threads, 0 processes unseen for a window; 0 thread mentions found the table full\n"
		"generations   0 sealed, 0 evicted, 0 evicted early; 0 events came after theirs was sealed (in the snapshot as lost), 0 gaps marked\n"
		"snapshots     0 written, 0 failed, none in progress\n"
		"directory     /srv\n"
		"compress      none\n"
		"retention     keep any number of snapshots, of any size\n"
		"probes        0\n"
		"triggers      0\n");
	free(s);

	/* before anything is attached, whether the kernel counts is not known */
	st.recursion_counted = -1;
	s = format(frecd_status__text, &st);
	assert_non_null(strstr(s, "\nrecursion     not known yet (no program attached)\nstacks "));
	free(s);

	/* an hour's window is "3600 s", not "3.6e+03 s" */
	st.min_age_ns = 3600000000000ull;
	s = format(frecd_status__text, &st);
	assert_non_null(strstr(s, "(at least 3600 s, at most 65536 bytes)\n"));
	free(s);
}

static void test_json(void **state)
{
	struct frecd_status st;
	char *s;

	fill(&st);
	s = format(frecd_status__json, &st);
	assert_string_equal(s,
		"{\"pid\":4321,\"host_pid\":98765,"
		"\"namespaces\":{\"pid\":\"own\",\"proc\":\"own\",\"cgroup\":\"host\",\"host_pid\":98765},"
		"\"uptime_s\":3725.400,\"programs\":\"tp_btf\",\"pid_filter\":2,"
		"\"rate_interval_s\":1.000,\"events\":123456,\"events_per_s\":10234.4,"
		"\"events_by_type\":{\"sched_switch\":{\"count\":100000,\"per_s\":9000.0},"
		"\"sched_waking\":{\"count\":23377,\"per_s\":1234.4},"
		"\"uprobe\":{\"count\":40,\"per_s\":0.0},\"uretprobe\":{\"count\":39,\"per_s\":0.0}},"
		"\"lost\":9,\"lost_per_s\":0.0,\"lost_by_cpu\":[0,7,0,2],\"filtered\":5,\"recursion_misses\":4,"
		"\"stacks\":{\"enabled\":\"offcpu,probes\",\"captured\":800,\"distinct\":61,\"unstored\":2,\"orphaned\":3,\"capture_errors\":7,\"programs_unannounced\":1},"
		"\"drain\":{\"period_ms\":50,\"max_wait_ns\":243456789,\"slow_waits\":3,\"slow_ms\":100},"
		"\"window\":{\"span_s\":9.876,\"bytes\":654321,\"generations\":10,\"min_age_s\":10.000,\"max_bytes\":67108864,"
		"\"cut\":true,\"needed_bytes\":68157440},"
		"\"rings\":{\"cpus\":4,\"possible\":240,\"bytes_each\":262144,\"bytes\":1048576,"
		"\"ring_size\":65536,\"ring_min\":262144,\"late_cpus\":1},"
		"\"open\":{\"events\":12,\"bytes\":70},"
		"\"pool\":{\"chunks_total\":1024,\"chunks_in_use\":12,\"bytes\":67108864,\"misses\":1},"
		"\"memory\":{\"bytes\":786432,\"events\":118000,\"bytes_per_event\":6.66,"
		"\"max_bytes\":67108864,\"window_max_bytes\":62652416,\"tables_bytes\":7654321,"
		"\"rings_bytes\":1048576,\"events_discarded\":17},"
		"\"tasks\":{\"threads\":312,\"max_threads\":1048576,\"processes\":97,\"max_processes\":262144,"
		"\"bytes\":1572864,\"threads_evicted\":5,\"processes_evicted\":2,\"threads_untracked\":11},"
		"\"generations\":{\"sealed\":123,\"evicted\":113,\"early_evictions\":0,\"late_events\":2,\"gaps\":1},"
		"\"snapshots\":{\"written\":3,\"failed\":1,\"in_progress\":true,"
		"\"last\":\"/var/lib/frec/frec-20250101T000000.000Z.frec\",\"directory\":\"/var/lib/frec\",\"compress\":\"zstd\"},"
		"\"retention\":{\"keep\":100,\"keep_bytes\":1073741824},"
		"\"probes\":[{\"id\":1,\"name\":\"func:/bin/app:handle\",\"kind\":\"uprobe\",\"hits\":40},"
		"{\"id\":2,\"name\":\"func:/bin/app:handle\",\"kind\":\"uretprobe\",\"hits\":39},"
		"{\"id\":3,\"name\":\"usdt:/bin/\\\"q\\\"\\u000a:p:n\",\"kind\":\"usdt\",\"hits\":0}],"
		"\"triggers\":[{\"id\":1,\"name\":\"runq>5ms\",\"spec\":\"runq>5ms\",\"kind\":\"runq\","
		"\"fired\":2,\"snapshots\":1,\"pending\":true,\"suppressed_delay\":3,"
		"\"suppressed_cooldown\":40,\"suppressed_rate\":5},"
		"{\"id\":2,\"name\":\"oops\",\"spec\":\"manual:oops,delay=0\",\"kind\":\"manual\","
		"\"fired\":0,\"snapshots\":0,\"pending\":false,\"suppressed_delay\":0,"
		"\"suppressed_cooldown\":0,\"suppressed_rate\":0}],"
		"\"cgroups\":{\"hierarchy\":\"v2\",\"filters\":[\"/system.slice/a.service\",\"/b\\\"q\\\"\"],"
		"\"known\":40,\"pending\":1,\"unnamed\":2,\"moves\":6},"
		"\"on_snapshot\":{\"program\":\"/usr/local/bin/up\",\"runs\":4,\"failures\":1,"
		"\"skipped\":2,\"running\":1}}\n");
	free(s);

	memset(&st, 0, sizeof(st));
	st.output_dir = "/srv";
	s = format(frecd_status__json, &st);
	assert_string_equal(s,
		"{\"pid\":0,\"host_pid\":0,"
		"\"namespaces\":{\"pid\":\"host\",\"proc\":\"host\",\"cgroup\":\"host\",\"host_pid\":0},"
		"\"uptime_s\":0.000,\"programs\":\"tp_btf\",\"pid_filter\":0,"
		"\"rate_interval_s\":0.000,\"events\":0,\"events_per_s\":null,\"events_by_type\":{},"
		"\"lost\":0,\"lost_per_s\":null,\"lost_by_cpu\":[],\"filtered\":0,\"recursion_misses\":null,"
		"\"stacks\":{\"enabled\":\"none\",\"captured\":0,\"distinct\":0,\"unstored\":0,\"orphaned\":0,\"capture_errors\":0,\"programs_unannounced\":0},"
		"\"drain\":{\"period_ms\":0,\"max_wait_ns\":0,\"slow_waits\":0,\"slow_ms\":100},"
		"\"window\":{\"span_s\":0.000,\"bytes\":0,\"generations\":0,\"min_age_s\":0.000,\"max_bytes\":0,"
		"\"cut\":false,\"needed_bytes\":0},"
		"\"rings\":{\"cpus\":0,\"possible\":0,\"bytes_each\":0,\"bytes\":0,"
		"\"ring_size\":0,\"ring_min\":0,\"late_cpus\":0},"
		"\"open\":{\"events\":0,\"bytes\":0},"
		"\"pool\":{\"chunks_total\":0,\"chunks_in_use\":0,\"bytes\":0,\"misses\":0},"
		"\"memory\":{\"bytes\":0,\"events\":0,\"bytes_per_event\":null,"
		"\"max_bytes\":0,\"window_max_bytes\":0,\"tables_bytes\":0,\"rings_bytes\":0,\"events_discarded\":0},"
		"\"tasks\":{\"threads\":0,\"max_threads\":0,\"processes\":0,\"max_processes\":0,"
		"\"bytes\":0,\"threads_evicted\":0,\"processes_evicted\":0,\"threads_untracked\":0},"
		"\"generations\":{\"sealed\":0,\"evicted\":0,\"early_evictions\":0,\"late_events\":0,\"gaps\":0},"
		"\"snapshots\":{\"written\":0,\"failed\":0,\"in_progress\":false,\"last\":null,\"directory\":\"/srv\",\"compress\":\"none\"},"
		"\"retention\":{\"keep\":0,\"keep_bytes\":0},\"probes\":[],\"triggers\":[],"
		"\"cgroups\":{\"hierarchy\":\"\",\"filters\":[],\"known\":0,\"pending\":0,\"unnamed\":0,\"moves\":0},"
		"\"on_snapshot\":null}\n");
	free(s);
}

static void test_summary(void **state)
{
	struct frecd_status st;
	char buf[256];

	fill(&st);
	frecd_status__summary(&st, buf, sizeof(buf));
	assert_string_equal(buf, "recording 10234 events/s, 9 lost (0/s), window 9.9 s 0.6 MiB, 3 snapshots");
	st.rate_ns = 0;
	frecd_status__summary(&st, buf, sizeof(buf));
	assert_string_equal(buf, "recording 123456 events, 9 lost, window 9.9 s 0.6 MiB, 3 snapshots");
	/* cut, never overrun */
	frecd_status__summary(&st, buf, 10);
	assert_string_equal(buf, "recording");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_summary),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
