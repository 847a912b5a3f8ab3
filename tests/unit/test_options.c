// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* frecd's command line: defaults, sizes, and every bad input's message. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <frec/recorder.h>
#include <frec/snapshot.h>
#include "frecd/options.h"
#include "frecd/snapname.h"

static struct frecd_options o;
static char err[512];

/* parse "frecd ARGS..." (NULL-terminated); returns what parse returns */
static int parse(const char *first, ...)
{
	char *argv[32];
	int argc = 0;
	va_list ap;
	const char *a;

	argv[argc++] = "frecd";
	va_start(ap, first);
	for (a = first; a; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	frecd_options__init(&o);
	err[0] = '\0';
	return frecd_options__parse(&o, argc, argv, err, sizeof(err));
}

#define assert_usage_error(msg, ...) do {				\
	assert_int_equal(parse(__VA_ARGS__, NULL), -EINVAL);		\
	assert_string_equal(err, msg);					\
} while (0)

static void test_defaults(void **state)
{
	assert_int_equal(parse(NULL), 0);
	assert_string_equal(o.output_dir, "/var/lib/frec");
	assert_int_equal(o.window_ns, 10000000000ull);
	assert_int_equal(o.max_bytes, 64ull << 20);
	assert_int_equal(o.period_ns, 1000000000ull);
	assert_int_equal(o.ring_bytes, 16ull << 20);
	assert_int_equal(o.npids, 0);
	assert_int_equal(o.nprobes, 0);
	assert_int_equal(o.probe_args, 3);
	assert_int_equal(o.attach, FRECD_ATTACH_AUTO);
	assert_false(o.wakeup);
	assert_false(o.dry_run);
	assert_int_equal(o.verbose, 0);
	assert_null(o.btf_path);
	assert_int_equal(o.debug_stall_ms, 0);
	assert_int_equal(o.debug_writer_delay_ms, 0);
	assert_int_equal(o.compress, FREC_COMPRESS_NONE);
}

static void test_all_options(void **state)
{
	assert_int_equal(parse("-o", "/tmp/x", "--window", "2.5", "--max-size", "256K",
			       "--period", "500", "--ring-size", "4M", "-p", "42", "--pid", "7",
			       "-p", "42", "--probe", "uprobe:/bin/true:main", "--probe-args", "6",
			       "--wakeup", "--attach", "raw_tp", "--btf", "/tmp/btf", "--dry-run",
			       "-v", "-v", NULL), 0);
	assert_string_equal(o.output_dir, "/tmp/x");
	assert_int_equal(o.window_ns, 2500000000ull);
	assert_int_equal(o.max_bytes, 256 << 10);
	assert_int_equal(o.period_ns, 500000000ull);
	assert_int_equal(o.ring_bytes, 4 << 20);
	assert_int_equal(o.npids, 2);	/* the repeated 42 counts once */
	assert_int_equal(o.pids[0], 42);
	assert_int_equal(o.pids[1], 7);
	assert_int_equal(o.nprobes, 1);
	assert_string_equal(o.probes[0], "uprobe:/bin/true:main");
	assert_int_equal(o.probe_args, 6);
	assert_true(o.wakeup);
	assert_int_equal(o.attach, FRECD_ATTACH_RAW_TP);
	assert_string_equal(o.btf_path, "/tmp/btf");
	assert_true(o.dry_run);
	assert_int_equal(o.verbose, 2);

	assert_int_equal(parse("--output=/d", "--window=1", "--attach=tp_btf", NULL), 0);
	assert_string_equal(o.output_dir, "/d");
	assert_int_equal(o.window_ns, 1000000000ull);
	assert_int_equal(o.attach, FRECD_ATTACH_TP_BTF);
	assert_int_equal(parse("--compress", "none", NULL), 0);
	assert_int_equal(o.compress, FREC_COMPRESS_NONE);
	assert_int_equal(parse("--compress=zstd", NULL), 0);
	assert_int_equal(o.compress, FREC_COMPRESS_ZSTD);
	assert_int_equal(parse("--help", NULL), 0);
	assert_true(o.help);
	assert_int_equal(parse("--version", NULL), 0);
	assert_true(o.version);
}

static void test_sizes(void **state)
{
	__u64 v;

	assert_int_equal(frecd_parse_size("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(frecd_parse_size("123", &v), 0);
	assert_int_equal(v, 123);
	assert_int_equal(frecd_parse_size("64k", &v), 0);
	assert_int_equal(v, 64 << 10);
	assert_int_equal(frecd_parse_size("16M", &v), 0);
	assert_int_equal(v, 16 << 20);
	assert_int_equal(frecd_parse_size("2G", &v), 0);
	assert_int_equal(v, 2ull << 30);
	assert_int_equal(frecd_parse_size("", &v), -EINVAL);
	assert_int_equal(frecd_parse_size("M", &v), -EINVAL);
	assert_int_equal(frecd_parse_size("-1M", &v), -EINVAL);
	assert_int_equal(frecd_parse_size(" 1M", &v), -EINVAL);
	assert_int_equal(frecd_parse_size("1MB", &v), -EINVAL);
	assert_int_equal(frecd_parse_size("1T", &v), -EINVAL);
	assert_int_equal(frecd_parse_size("1.5M", &v), -EINVAL);
	assert_int_equal(frecd_parse_size("99999999999999999999", &v), -ERANGE);
	assert_int_equal(frecd_parse_size("99999999999999G", &v), -ERANGE);
}

static void test_seconds(void **state)
{
	__u64 v;

	assert_int_equal(frecd_parse_seconds("10", &v), 0);
	assert_int_equal(v, 10000000000ull);
	assert_int_equal(frecd_parse_seconds("0.5", &v), 0);
	assert_int_equal(v, 500000000ull);
	assert_int_equal(frecd_parse_seconds("1.000000001", &v), 0);
	assert_int_equal(v, 1000000001ull);
	assert_int_equal(frecd_parse_seconds("1.0000000019", &v), 0);
	assert_int_equal(v, 1000000001ull);
	assert_int_equal(frecd_parse_seconds("1.", &v), -EINVAL);
	assert_int_equal(frecd_parse_seconds(".5", &v), -EINVAL);
	assert_int_equal(frecd_parse_seconds("10s", &v), -EINVAL);
	assert_int_equal(frecd_parse_seconds("1e3", &v), -EINVAL);
	assert_int_equal(frecd_parse_seconds("-1", &v), -EINVAL);
	assert_int_equal(frecd_parse_seconds("", &v), -EINVAL);
}

static void test_format_size(void **state)
{
	char buf[32];

	assert_string_equal(frecd_format_size(64ull << 20, buf, sizeof(buf)), "64M");
	assert_string_equal(frecd_format_size(1ull << 30, buf, sizeof(buf)), "1G");
	assert_string_equal(frecd_format_size(1536 << 10, buf, sizeof(buf)), "1536K");
	assert_string_equal(frecd_format_size(100, buf, sizeof(buf)), "100");
	assert_string_equal(frecd_format_size(0, buf, sizeof(buf)), "0");
}

static void test_bad_input(void **state)
{
	assert_usage_error("unknown option '--frobnicate'; see frecd --help", "--frobnicate");
	assert_usage_error("unknown option '-x'; see frecd --help", "-x");
	assert_usage_error("option '--window' needs a value; see frecd --help", "--window");
	assert_usage_error("option '-o' needs a value; see frecd --help", "-o");
	assert_usage_error("unexpected argument 'extra'; frecd takes options only, see frecd --help",
			   "extra");
	assert_usage_error("-o '': empty directory name; use e.g. -o /var/lib/frec", "-o", "");
	assert_usage_error("--window 'abc': not a number of seconds; use e.g. --window 10 or --window 2.5",
			   "--window", "abc");
	assert_usage_error("--window 0: out of range; use more than 0 and at most 86400 seconds",
			   "--window", "0");
	assert_usage_error("--window 86401: out of range; use more than 0 and at most 86400 seconds",
			   "--window", "86401");
	assert_usage_error("--max-size '12X': not a size; use a number of bytes with an optional K, M or G suffix, e.g. --max-size 64M",
			   "--max-size", "12X");
	assert_usage_error("--max-size 1K: out of range; use 64K to 64G", "--max-size", "1K");
	assert_usage_error("--max-size 65G: out of range; use 64K to 64G", "--max-size", "65G");
	assert_usage_error("--ring-size '-4M': not a size; use a number of bytes with an optional K, M or G suffix, e.g. --ring-size 64M",
			   "--ring-size", "-4M");
	assert_usage_error("--ring-size 3M: not a power of two (a kernel rule); use e.g. 4M, 16M or 64M",
			   "--ring-size", "3M");
	assert_usage_error("--ring-size 4K: out of range; use 64K to 1G", "--ring-size", "4K");
	assert_usage_error("--ring-size 2G: out of range; use 64K to 1G", "--ring-size", "2G");
	assert_usage_error("--period 'soon': not a number of milliseconds; use e.g. --period 1000",
			   "--period", "soon");
	assert_usage_error("--period 5: out of range; use 10 to 600000 ms", "--period", "5");
	assert_usage_error("--period 600001: out of range; use 10 to 600000 ms", "--period", "600001");
	assert_usage_error("-p 'abc': not a process id; use a number from 1 to 4194304, e.g. -p $(pidof myapp)",
			   "-p", "abc");
	assert_usage_error("-p '0': not a process id; use a number from 1 to 4194304, e.g. -p $(pidof myapp)",
			   "-p", "0");
	assert_usage_error("-p '-5': not a process id; use a number from 1 to 4194304, e.g. -p $(pidof myapp)",
			   "-p", "-5");
	assert_usage_error("--probe '': empty spec; use e.g. --probe uprobe:/usr/bin/app:main",
			   "--probe", "");
	assert_usage_error("--probe-args '7': use a number from 0 to 6", "--probe-args", "7");
	assert_usage_error("--attach 'kprobe': unknown; use auto, tp_btf or raw_tp",
			   "--attach", "kprobe");
	assert_usage_error("--btf '': empty file name; use --btf FILE", "--btf", "");
	assert_usage_error("--compress 'gzip': not a method; use --compress zstd or --compress none",
			   "--compress", "gzip");
	assert_usage_error("--compress '': not a method; use --compress zstd or --compress none",
			   "--compress", "");
}

static void test_too_many_pids(void **state)
{
	char *argv[2 * FRECD_MAX_PIDS + 4];
	static char nums[FRECD_MAX_PIDS + 1][16];
	int argc = 0, i;

	argv[argc++] = "frecd";
	for (i = 0; i <= FRECD_MAX_PIDS; i++) {
		snprintf(nums[i], sizeof(nums[i]), "%d", i + 1);
		argv[argc++] = "-p";
		argv[argc++] = nums[i];
	}
	argv[argc] = NULL;
	frecd_options__init(&o);
	assert_int_equal(frecd_options__parse(&o, argc, argv, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "-p 1025: too many processes; at most 1024 -p options");
}

/* --cgroup: repeatable up to 16, a repeated path once, absolute only;
 * --cgroup-hierarchy: a word (checked against the mounts later). */
static void test_cgroups(void **state)
{
	char *argv[2 * FRECD_MAX_CGROUPS + 4];
	static char paths[FRECD_MAX_CGROUPS + 1][16];
	int argc = 0, i;

	assert_int_equal(parse(NULL), 0);
	assert_int_equal(o.ncgroups, 0);
	assert_string_equal(o.cgroup_hierarchy, "auto");
	assert_int_equal(parse("--cgroup", "/a", "--cgroup", "/sys/fs/cgroup/b", "--cgroup", "/a",
			       "--cgroup-hierarchy", "pids", NULL), 0);
	assert_int_equal(o.ncgroups, 2);
	assert_string_equal(o.cgroups[0], "/a");
	assert_string_equal(o.cgroups[1], "/sys/fs/cgroup/b");
	assert_string_equal(o.cgroup_hierarchy, "pids");
	assert_int_equal(parse("--cgroup-hierarchy", "v2", NULL), 0);
	assert_string_equal(o.cgroup_hierarchy, "v2");
	assert_usage_error("--cgroup 'a/b': not a cgroup path; give the path /proc/PID/cgroup shows for a process in it, e.g. --cgroup /system.slice/app.service",
			   "--cgroup", "a/b");
	assert_usage_error("--cgroup-hierarchy 'name=systemd': use auto, v2, none or a v1 controller's name, e.g. pids",
			   "--cgroup-hierarchy", "name=systemd");
	assert_usage_error("--cgroup-hierarchy '': use auto, v2, none or a v1 controller's name, e.g. pids",
			   "--cgroup-hierarchy", "");

	argv[argc++] = "frecd";
	for (i = 0; i <= FRECD_MAX_CGROUPS; i++) {
		snprintf(paths[i], sizeof(paths[i]), "/c%d", i + 1);
		argv[argc++] = "--cgroup";
		argv[argc++] = paths[i];
	}
	argv[argc] = NULL;
	frecd_options__init(&o);
	assert_int_equal(frecd_options__parse(&o, argc, argv, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "--cgroup /c17: too many cgroups; at most 16 --cgroup");
}

/* The test options: their bounds, and never from the configuration file. */
static void test_debug_options(void **state)
{
	assert_int_equal(parse("--debug-stall-ms", "250", "--debug-writer-delay-ms", "3000",
			       NULL), 0);
	assert_int_equal(o.debug_stall_ms, 250);
	assert_int_equal(o.debug_writer_delay_ms, 3000);
	assert_int_equal(parse("--debug-writer-delay-ms=600000", NULL), 0);
	assert_int_equal(o.debug_writer_delay_ms, 600000);

	assert_usage_error("--debug-stall-ms '0': use a number of milliseconds from 1 to 600000",
			   "--debug-stall-ms", "0");
	assert_usage_error("--debug-writer-delay-ms '0': use a number of milliseconds from 1 to 600000",
			   "--debug-writer-delay-ms", "0");
	assert_usage_error("--debug-writer-delay-ms '600001': use a number of milliseconds from 1 to 600000",
			   "--debug-writer-delay-ms", "600001");
	assert_usage_error("--debug-writer-delay-ms '3s': use a number of milliseconds from 1 to 600000",
			   "--debug-writer-delay-ms", "3s");
	assert_usage_error("--debug-writer-delay-ms '-1': use a number of milliseconds from 1 to 600000",
			   "--debug-writer-delay-ms", "-1");
	assert_usage_error("option '--debug-writer-delay-ms' needs a value; see frecd --help",
			   "--debug-writer-delay-ms");

	frecd_options__init(&o);
	assert_int_equal(frecd_options__set(&o, "debug-writer-delay-ms", "3000", err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "'debug-writer-delay-ms' is a command-line option, not a configuration key; remove the line");
	assert_int_equal(o.debug_writer_delay_ms, 0);
	assert_int_equal(frecd_options__set(&o, "debug-stall-ms", "3000", err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "'debug-stall-ms' is a command-line option, not a configuration key; remove the line");
}

/* --trigger, --on-snapshot, --on-snapshot-timeout, and the checks across options. */
static void test_triggers(void **state)
{
	static char specs[FREC_MAX_TRIGGERS + 1][32];
	char *argv[2 * FREC_MAX_TRIGGERS + 4];
	const char *bad;
	int argc = 0, i;

	assert_int_equal(o.ntriggers, 0);
	assert_int_equal(parse("--trigger", "runq>5ms", "--trigger", "manual:oops,delay=9.5s",
			       "--on-snapshot", "/usr/local/bin/up", "--on-snapshot-timeout", "2.5",
			       NULL), 0);
	assert_int_equal(o.ntriggers, 2);
	assert_string_equal(o.triggers[0], "runq>5ms");
	assert_string_equal(o.triggers[1], "manual:oops,delay=9.5s");
	assert_string_equal(o.on_snapshot, "/usr/local/bin/up");
	assert_int_equal(o.on_snapshot_timeout_ns, 2500000000ull);
	assert_int_equal(frecd_options__check(&o, &bad, err, sizeof(err)), 0);
	assert_null(bad);

	assert_int_equal(parse(NULL), 0);
	assert_null(o.on_snapshot);
	assert_int_equal(o.on_snapshot_timeout_ns, 60000000000ull);
	assert_int_equal(parse("--on-snapshot-timeout", "30s", NULL), 0);
	assert_int_equal(o.on_snapshot_timeout_ns, 30000000000ull);
	assert_int_equal(parse("--on-snapshot-timeout", "500ms", NULL), 0);
	assert_int_equal(o.on_snapshot_timeout_ns, 500000000ull);
	/* the trigger's parser: a fraction with its unit, and over a day */
	assert_int_equal(parse("--on-snapshot-timeout", "1.5ms", NULL), 0);
	assert_int_equal(o.on_snapshot_timeout_ns, 1500000ull);
	assert_usage_error("--on-snapshot-timeout 86401s: out of range; use more than 0 and at most 86400 seconds",
			   "--on-snapshot-timeout", "86401s");

	/* the spec's own message, as is */
	assert_usage_error("trigger 'runq>5': runq>5: not a duration; use a number with us, ms or s, e.g. runq>50ms",
			   "--trigger", "runq>5");
	assert_usage_error("trigger 'runq>1ms,cgroup=x': cgroup=x: not a cgroup path; give the path /proc/PID/cgroup shows for a process in it, e.g. cgroup=/system.slice/app.service",
			   "--trigger", "runq>1ms,cgroup=x");
	/* a cgroup= path is resolved later, with the hierarchy */
	assert_int_equal(parse("--trigger", "runq>1ms,cgroup=/x", NULL), 0);
	assert_usage_error("--on-snapshot 'up.sh': not an absolute path (it is run without a shell or PATH); use e.g. --on-snapshot /usr/local/bin/frec-upload",
			   "--on-snapshot", "up.sh");
	assert_usage_error("--on-snapshot-timeout 'soon': not a duration; use seconds or a number with s or ms, e.g. --on-snapshot-timeout 60",
			   "--on-snapshot-timeout", "soon");
	assert_usage_error("--on-snapshot-timeout 0: out of range; use more than 0 and at most 86400 seconds",
			   "--on-snapshot-timeout", "0");
	assert_usage_error("--on-snapshot-timeout 86401: out of range; use more than 0 and at most 86400 seconds",
			   "--on-snapshot-timeout", "86401");

	/* delay < --window, whichever comes first on the line */
	assert_int_equal(parse("--trigger", "lost,delay=10s", NULL), 0);
	assert_int_equal(frecd_options__check(&o, &bad, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "trigger 'lost,delay=10s': delay 10 s is not shorter than --window 10 s, so its snapshot could miss the firing; lower delay= or raise --window");
	assert_ptr_equal(bad, o.triggers[0]);
	assert_int_equal(parse("--trigger", "lost,delay=10s", "--window", "10.5", NULL), 0);
	assert_int_equal(frecd_options__check(&o, &bad, err, sizeof(err)), 0);
	/* names are unique */
	assert_int_equal(parse("--trigger", "runq>1ms,name=a", "--trigger", "lost",
			       "--trigger", "oncpu>1s,name=a", NULL), 0);
	assert_int_equal(frecd_options__check(&o, &bad, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "trigger 'oncpu>1s,name=a': the name 'a' is taken by trigger 'runq>1ms,name=a'; give one of them another name=");
	assert_ptr_equal(bad, o.triggers[2]);
	assert_int_equal(parse("--trigger", "manual:x", "--trigger", "manual:x,cooldown=0", NULL), 0);
	assert_int_equal(frecd_options__check(&o, &bad, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "trigger 'manual:x,cooldown=0': 'frec trigger x' already fires trigger 'manual:x'; give one of them another manual:NAME");

	/* at most 32 */
	argv[argc++] = "frecd";
	for (i = 0; i <= FREC_MAX_TRIGGERS; i++) {
		snprintf(specs[i], sizeof(specs[i]), "runq>%dms", i + 1);
		argv[argc++] = "--trigger";
		argv[argc++] = specs[i];
	}
	argv[argc] = NULL;
	frecd_options__init(&o);
	assert_int_equal(frecd_options__parse(&o, argc, argv, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "--trigger runq>33ms: too many triggers; at most 32");
	assert_int_equal(o.ntriggers, 32);

	/* the configuration keys */
	frecd_options__init(&o);
	assert_int_equal(frecd_options__set(&o, "trigger", "lost", err, sizeof(err)), 0);
	assert_int_equal(frecd_options__set(&o, "trigger", "runq>1ms", err, sizeof(err)), 0);
	assert_int_equal(frecd_options__set(&o, "on-snapshot", "/bin/true", err, sizeof(err)), 0);
	assert_int_equal(frecd_options__set(&o, "on-snapshot-timeout", "5", err, sizeof(err)), 0);
	assert_int_equal(o.ntriggers, 2);
	assert_string_equal(o.on_snapshot, "/bin/true");
	assert_int_equal(o.on_snapshot_timeout_ns, 5000000000ull);
}

/* The snapshot file names sort by time and never collide. */
/* --stacks and --stack-depth, on the command line and as keys */
static void test_stacks(void **state)
{
	assert_int_equal(parse(NULL), 0);
	assert_int_equal(o.stacks, 0);
	assert_int_equal(o.stack_depth, 64);
	assert_string_equal(frecd_format_stacks(o.stacks), "none");
	assert_int_equal(parse("--stacks", "offcpu", NULL), 0);
	assert_int_equal(o.stacks, FRECD_STACKS_OFFCPU);
	assert_int_equal(parse("--stacks", "probes,offcpu", "--stack-depth", "127", NULL), 0);
	assert_int_equal(o.stacks, FRECD_STACKS_OFFCPU | FRECD_STACKS_PROBES);
	assert_string_equal(frecd_format_stacks(o.stacks), "offcpu,probes");
	assert_int_equal(o.stack_depth, 127);
	assert_int_equal(frecd_stacks__config_flags(o.stacks),
			 FREC_CFG_STACKS_OFFCPU | FREC_CFG_STACKS_PROBES);
	/* the last --stacks wins, as for every option with one value */
	assert_int_equal(parse("--stacks", "offcpu", "--stacks", "none", NULL), 0);
	assert_int_equal(o.stacks, 0);
	assert_int_equal(frecd_stacks__config_flags(o.stacks), 0);

	assert_usage_error("--stacks 'offcpu,stack': 'stack' is not offcpu, probes or none (which stands alone); use e.g. --stacks offcpu,probes",
			   "--stacks", "offcpu,stack");
	assert_usage_error("--stacks 'none,probes': 'probes' is not offcpu, probes or none (which stands alone); use e.g. --stacks offcpu,probes",
			   "--stacks", "none,probes");
	assert_usage_error("--stacks 'offcpu,': an empty item; use offcpu, probes, offcpu,probes or none",
			   "--stacks", "offcpu,");
	assert_usage_error("--stacks '': an empty item; use offcpu, probes, offcpu,probes or none",
			   "--stacks", "");
	assert_usage_error("--stack-depth '0': use a number of frames from 1 to 127 (default 64)",
			   "--stack-depth", "0");
	assert_usage_error("--stack-depth '128': use a number of frames from 1 to 127 (default 64)",
			   "--stack-depth", "128");
	assert_usage_error("--stack-depth 'deep': use a number of frames from 1 to 127 (default 64)",
			   "--stack-depth", "deep");

	frecd_options__init(&o);
	assert_int_equal(frecd_options__set(&o, "stacks", "probes", err, sizeof(err)), 0);
	assert_int_equal(o.stacks, FRECD_STACKS_PROBES);
	assert_int_equal(frecd_options__set(&o, "stack_depth", "8", err, sizeof(err)), 0);
	assert_int_equal(o.stack_depth, 8);
	assert_int_equal(frecd_options__set(&o, "stack-depth", "9", err, sizeof(err)), 0);
	assert_int_equal(o.stack_depth, 9);
	assert_int_equal(frecd_options__set(&o, "stacks", "all", err, sizeof(err)), -EINVAL);
}

static void test_snapshot_names(void **state)
{
	char a[FRECD_SNAPSHOT_NAME_MAX], b[FRECD_SNAPSHOT_NAME_MAX];
	__u64 t = 1767225599123456789ull;	/* 2025-12-31T23:59:59.123456789Z */

	assert_int_equal(frecd_snapname__make(a, sizeof(a), t, 0), 0);
	assert_string_equal(a, "frec-20251231T235959.123Z.frec");
	assert_int_equal(frecd_snapname__make(b, sizeof(b), t, 1), 0);
	assert_string_equal(b, "frec-20251231T235959.123Z_01.frec");
	assert_true(strcmp(a, b) < 0);
	assert_int_equal(frecd_snapname__make(a, sizeof(a), t, 2), 0);
	assert_true(strcmp(b, a) < 0);
	assert_int_equal(frecd_snapname__make(b, sizeof(b), t + 1000000, 0), 0);
	assert_string_equal(b, "frec-20251231T235959.124Z.frec");
	assert_true(strcmp(a, b) < 0);
	assert_int_equal(frecd_snapname__make(a, sizeof(a), t, 100), -EEXIST);
	assert_int_equal(frecd_snapname__make(a, 10, t, 0), -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_all_options),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_seconds),
		cmocka_unit_test(test_format_size),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_too_many_pids),
		cmocka_unit_test(test_debug_options),
		cmocka_unit_test(test_snapshot_names),
		cmocka_unit_test(test_triggers),
		cmocka_unit_test(test_stacks),
		cmocka_unit_test(test_cgroups),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
