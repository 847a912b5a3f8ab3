// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* frecd's configuration file: keys, values, comments, every error with its
 * line number, precedence of the command line, and the file checks. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include <frec/recorder.h>
#include "frecd/config.h"

static struct frecd_options o;
static struct frecd_config *cfg;
static char err[1024];

static int parse_text(const char *text)
{
	frecd_config__free(cfg);
	cfg = NULL;
	frecd_options__init(&o);
	err[0] = '\0';
	return frecd_config__parse("frecd.conf", text, strlen(text), &o, &cfg, err, sizeof(err));
}

#define assert_config_error(text, msg) do {			\
	assert_int_equal(parse_text(text), -EINVAL);		\
	assert_string_equal(err, msg);				\
	assert_null(cfg);					\
} while (0)

static int teardown(void **state)
{
	frecd_config__free(cfg);
	cfg = NULL;
	return 0;
}

static void test_every_key(void **state)
{
	assert_int_equal(parse_text(
		"# frecd.conf\n"
		"output = /srv/frec\n"
		"window = 2.5\n"
		"max-size = 256K\n"
		"period = 500\n"
		"ring-size = 4M\n"
		"pid = 1\n"
		"probe = uprobe:/bin/true:main\n"
		"probe-args = 2\n"
		"wakeup = yes\n"
		"attach = raw_tp\n"
		"btf = /boot/vmlinux.btf\n"
		"keep = 7\n"
		"keep-size = 3G\n"
		"compress = zstd\n"
		"socket = /run/x.sock\n"
		"verbose = on\n"), 0);
	assert_non_null(cfg);
	assert_string_equal(o.output_dir, "/srv/frec");
	assert_int_equal(o.window_ns, 2500000000ull);
	assert_int_equal(o.max_bytes, 256ull << 10);
	assert_int_equal(o.period_ns, 500000000ull);
	assert_int_equal(o.ring_bytes, 4ull << 20);
	assert_int_equal(o.npids, 1);
	assert_int_equal(o.pids[0], 1);
	assert_int_equal(o.nprobes, 1);
	assert_string_equal(o.probes[0], "uprobe:/bin/true:main");
	assert_int_equal(o.probe_args, 2);
	assert_true(o.wakeup);
	assert_int_equal(o.attach, FRECD_ATTACH_RAW_TP);
	assert_string_equal(o.btf_path, "/boot/vmlinux.btf");
	assert_int_equal(o.keep, 7);
	assert_int_equal(o.keep_bytes, 3ull << 30);
	assert_int_equal(o.compress, FREC_COMPRESS_ZSTD);
	assert_string_equal(o.socket_path, "/run/x.sock");
	assert_int_equal(o.verbose, 1);
	assert_string_equal(frecd_config__path(cfg), "frecd.conf");
}

static void test_defaults_and_empty(void **state)
{
	assert_int_equal(parse_text(""), 0);
	assert_non_null(cfg);
	assert_int_equal(o.keep, 100);
	assert_int_equal(o.keep_bytes, 1ull << 30);
	assert_int_equal(o.compress, FREC_COMPRESS_NONE);
	assert_string_equal(o.socket_path, "/run/frec/frecd.sock");
	assert_null(o.config_path);
	assert_false(o.check);
	/* comments, blank lines, spaces, tabs and CRLF */
	assert_int_equal(parse_text("\n   \n# a comment = not a key\n\t# indented\r\n"
				    "  window\t=\t30  \r\n\nwakeup=no\n"), 0);
	assert_int_equal(o.window_ns, 30000000000ull);
	assert_false(o.wakeup);
	/* no newline at the end; '#' inside a value is kept */
	assert_int_equal(parse_text("output = /srv/a#b"), 0);
	assert_string_equal(o.output_dir, "/srv/a#b");
}

static void test_repeated_keys(void **state)
{
	assert_int_equal(parse_text("pid = 3\npid = 1\npid = 3\n"
				    "probe = uprobe:/a:f\nprobe = usdt:/a:p:n\n"
				    "window = 1\nwindow = 2\n"), 0);
	assert_int_equal(o.npids, 2);
	assert_int_equal(o.pids[0], 3);
	assert_int_equal(o.pids[1], 1);
	assert_int_equal(o.nprobes, 2);
	assert_string_equal(o.probes[1], "usdt:/a:p:n");
	assert_int_equal(o.window_ns, 2000000000ull);	/* the last one wins */
}

static void test_booleans(void **state)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };
	char text[64];
	size_t i;

	for (i = 0; i < 4; i++) {
		snprintf(text, sizeof(text), "wakeup = %s\nverbose = %s\n", yes[i], yes[i]);
		assert_int_equal(parse_text(text), 0);
		assert_true(o.wakeup);
		assert_int_equal(o.verbose, 1);
		snprintf(text, sizeof(text), "wakeup = yes\nwakeup = %s\nverbose = %s\n", no[i], no[i]);
		assert_int_equal(parse_text(text), 0);
		assert_false(o.wakeup);
		assert_int_equal(o.verbose, 0);
	}
	assert_config_error("\n\nwakeup = maybe\n",
			    "frecd.conf:3: wakeup 'maybe': not yes or no; use wakeup = yes or wakeup = no");
}

static void test_errors_name_the_line(void **state)
{
	assert_config_error("window = 10\nwindow 10\n",
			    "frecd.conf:2: expected 'key = value', got 'window 10'");
	assert_config_error("# long\nthis line has no equals sign and goes on and on and on and on and on\n",
			    "frecd.conf:2: expected 'key = value', got 'this line has no equals sign and goes on and on and on and o...'");
	assert_config_error("= 10\n", "frecd.conf:1: no key before '='; write key = value");
	assert_config_error("\n\n\nwindow =   \n",
			    "frecd.conf:4: window: no value; write window = VALUE or remove the line");
	assert_config_error("windows = 10\n",
			    "frecd.conf:1: unknown key 'windows'; the keys are frecd's long options without the dashes (see frecd --help)");
	assert_config_error("--window = 10\n",
			    "frecd.conf:1: unknown key '--window'; the keys are frecd's long options without the dashes (see frecd --help)");
	/* the option parser's messages, with the key instead of the option */
	assert_config_error("window = abc\n",
			    "frecd.conf:1: window 'abc': not a number of seconds; use e.g. --window 10 or --window 2.5");
	assert_config_error("max-size = 1K\n", "frecd.conf:1: max-size 1K: out of range; use 64K to 64G");
	assert_config_error("ring-size = 3M\n",
			    "frecd.conf:1: ring-size 3M: not a power of two (a kernel rule); use e.g. 4M, 16M or 64M");
	assert_config_error("pid = 1\npid = x\n",
			    "frecd.conf:2: pid 'x': not a process id; use a number from 1 to 4194304, e.g. -p $(pidof myapp)");
	assert_config_error("attach = kprobe\n", "frecd.conf:1: attach 'kprobe': unknown; use auto, tp_btf or raw_tp");
	assert_config_error("keep = -1\n",
			    "frecd.conf:1: keep '-1': use a number of snapshots from 0 (no limit) to 1000000");
	assert_config_error("keep-size = 10X\n",
			    "frecd.conf:1: keep-size '10X': not a size; use a number of bytes with an optional K, M or G suffix, e.g. --keep-size 64M");
	assert_config_error("socket = run/x.sock\n",
			    "frecd.conf:1: socket 'run/x.sock': not an absolute path; use e.g. --socket /run/frec/frecd.sock");
	/* command-line only */
	assert_config_error("dry-run = yes\n",
			    "frecd.conf:1: 'dry-run' is a command-line option, not a configuration key; remove the line");
	assert_config_error("config = /etc/other.conf\n",
			    "frecd.conf:1: 'config' is a command-line option, not a configuration key; remove the line");
	assert_config_error("check = yes\n",
			    "frecd.conf:1: 'check' is a command-line option, not a configuration key; remove the line");
	assert_config_error("help = yes\n",
			    "frecd.conf:1: 'help' is a command-line option, not a configuration key; remove the line");
	/* a NUL byte */
	frecd_options__init(&o);
	assert_int_equal(frecd_config__parse("frecd.conf", "window = 1\nwin\0dow = 2\n", 22, &o, &cfg,
					     err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "frecd.conf:2: a NUL byte; the file must be text");
}

static void test_where(void **state)
{
	char buf[128];

	assert_int_equal(parse_text("# probes\nprobe = uprobe:/a:f\n\nprobe = uprobe:/b:g\npid = 42\npid = 7\n"), 0);
	assert_string_equal(frecd_config__where(cfg, o.probes[0], buf, sizeof(buf)), "frecd.conf:2: ");
	assert_string_equal(frecd_config__where(cfg, o.probes[1], buf, sizeof(buf)), "frecd.conf:4: ");
	assert_string_equal(frecd_config__where(cfg, "uprobe:/a:f", buf, sizeof(buf)), "");
	assert_string_equal(frecd_config__where(NULL, o.probes[0], buf, sizeof(buf)), "");
	assert_string_equal(frecd_config__where_pid(cfg, 7, buf, sizeof(buf)), "frecd.conf:6: ");
	assert_string_equal(frecd_config__where_pid(cfg, 42, buf, sizeof(buf)), "frecd.conf:5: ");
	assert_string_equal(frecd_config__where_pid(cfg, 4, buf, sizeof(buf)), "");
}

/* A file in a private temporary directory; returns its path. */
static char dir[64];
static const char *write_file(const char *name, const char *text, mode_t mode)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
	return path;
}

static int setup_dir(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/frec-test-config.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown_dir(void **state)
{
	char cmd[128];

	teardown(state);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static void test_read(void **state)
{
	char expect[512], missing[128];
	const char *path;

	path = write_file("ok.conf", "window = 3\nprobe = uprobe:/x:f\n", 0644);
	frecd_options__init(&o);
	assert_int_equal(frecd_config__read(path, true, &o, &cfg, err, sizeof(err)), 0);
	assert_int_equal(o.window_ns, 3000000000ull);
	assert_string_equal(frecd_config__path(cfg), path);
	snprintf(expect, sizeof(expect), "%s:2: ", path);
	assert_string_equal(frecd_config__where(cfg, o.probes[0], missing, sizeof(missing)), expect);
	frecd_config__free(cfg);
	cfg = NULL;

	/* a missing file: fine unless it was asked for */
	snprintf(missing, sizeof(missing), "%s/none.conf", dir);
	assert_int_equal(frecd_config__read(missing, false, &o, &cfg, err, sizeof(err)), 0);
	assert_null(cfg);
	assert_int_equal(frecd_config__read(missing, true, &o, &cfg, err, sizeof(err)), -ENOENT);
	snprintf(expect, sizeof(expect),
		 "--config %s: No such file or directory; give a readable configuration file", missing);
	assert_string_equal(err, expect);

	/* /dev/null: an empty configuration */
	assert_int_equal(frecd_config__read("/dev/null", true, &o, &cfg, err, sizeof(err)), 0);
	assert_non_null(cfg);
	assert_string_equal(frecd_config__path(cfg), "/dev/null");
	frecd_config__free(cfg);
	cfg = NULL;

	/* not a regular file */
	assert_int_equal(frecd_config__read(dir, true, &o, &cfg, err, sizeof(err)), -EINVAL);
	snprintf(expect, sizeof(expect), "--config %s: not a regular file; give a configuration file", dir);
	assert_string_equal(err, expect);

	/* writable by others */
	path = write_file("open.conf", "window = 3\n", 0666);
	assert_int_equal(frecd_config__read(path, true, &o, &cfg, err, sizeof(err)), -EPERM);
	snprintf(expect, sizeof(expect),
		 "--config %s: others may change it (owner uid %u, mode 0666); make it root's and not writable by group or others: chown root %s; chmod go-w %s",
		 path, (unsigned int)geteuid(), path, path);
	assert_string_equal(err, expect);
	assert_null(cfg);

	/* an error inside names the file and the line */
	path = write_file("bad.conf", "window = 3\n\nperiod = 5\n", 0600);
	assert_int_equal(frecd_config__read(path, true, &o, &cfg, err, sizeof(err)), -EINVAL);
	snprintf(expect, sizeof(expect), "%s:3: period 5: out of range; use 10 to 600000 ms", path);
	assert_string_equal(err, expect);
}

static void test_too_large(void **state)
{
	char expect[512], path[128];
	FILE *f;
	size_t i;

	snprintf(path, sizeof(path), "%s/big.conf", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	for (i = 0; i <= FRECD_CONFIG_MAX_BYTES / 8; i++)
		fputs("# 45678\n", f);
	fclose(f);
	chmod(path, 0600);
	frecd_options__init(&o);
	assert_int_equal(frecd_config__read(path, true, &o, &cfg, err, sizeof(err)), -EFBIG);
	snprintf(expect, sizeof(expect),
		 "--config %s: %u bytes, larger than a configuration can be (%u); check the file",
		 path, FRECD_CONFIG_MAX_BYTES + 8, FRECD_CONFIG_MAX_BYTES);
	assert_string_equal(err, expect);
}

static int load(const char *first, ...)
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
	frecd_config__free(cfg);
	cfg = NULL;
	err[0] = '\0';
	return frecd_config__load_options(&o, &cfg, argc, argv, err, sizeof(err));
}

static void test_command_line_wins(void **state)
{
	const char *path;
	char expect[512];

	path = write_file("main.conf",
			  "window = 30\nkeep = 5\npid = 1\nprobe = uprobe:/a:f\noutput = /srv/file\n", 0600);
	assert_int_equal(load("--config", path, "--keep", "9", "-p", "2", "--probe", "uprobe:/b:g", NULL), 0);
	assert_non_null(cfg);
	assert_int_equal(o.window_ns, 30000000000ull);	/* from the file */
	assert_int_equal(o.keep, 9);			/* the command line wins */
	assert_int_equal(o.npids, 2);			/* -p adds */
	assert_int_equal(o.pids[0], 1);
	assert_int_equal(o.pids[1], 2);
	assert_int_equal(o.nprobes, 2);			/* --probe adds */
	assert_string_equal(o.probes[0], "uprobe:/a:f");
	assert_string_equal(o.probes[1], "uprobe:/b:g");
	assert_string_equal(o.output_dir, "/srv/file");
	assert_string_equal(o.config_path, path);
	assert_int_equal(load("--config", path, "-o", "/srv/cli", NULL), 0);
	assert_string_equal(o.output_dir, "/srv/cli");

	/* --help and --version do not read the file, even a broken one */
	path = write_file("broken.conf", "window = never\n", 0600);
	assert_int_equal(load("--config", path, "--help", NULL), 0);
	assert_true(o.help);
	assert_null(cfg);
	assert_int_equal(load("--version", "--config", path, NULL), 0);
	assert_true(o.version);
	assert_int_equal(load("--config", path, NULL), -EINVAL);
	snprintf(expect, sizeof(expect),
		 "%s:1: window 'never': not a number of seconds; use e.g. --window 10 or --window 2.5", path);
	assert_string_equal(err, expect);
	assert_null(cfg);

	/* a usage error on the command line is reported as such */
	assert_int_equal(load("--config", path, "--bogus", NULL), -EINVAL);
	assert_string_equal(err, "unknown option '--bogus'; see frecd --help");
	assert_int_equal(load("--config", "", NULL), -EINVAL);
	assert_string_equal(err, "--config '': empty file name; use e.g. --config /etc/frec/frecd.conf");
}

/* trigger = repeats; a delay checked against the file's window, with its line. */
static void test_triggers(void **state)
{
	const char *path;
	char expect[512];

	path = write_file("trig.conf",
			  "window = 30\ntrigger = runq>5ms,delay=20s\ntrigger = lost\n"
			  "on-snapshot = /usr/local/bin/up\non-snapshot-timeout = 10\n", 0600);
	assert_int_equal(load("--config", path, "--trigger", "manual:oops", NULL), 0);
	assert_int_equal(o.ntriggers, 3);		/* --trigger adds */
	assert_string_equal(o.triggers[0], "runq>5ms,delay=20s");
	assert_string_equal(o.triggers[2], "manual:oops");
	assert_string_equal(o.on_snapshot, "/usr/local/bin/up");
	assert_int_equal(o.on_snapshot_timeout_ns, 10000000000ull);
	/* the command line's window is checked against the file's delay */
	assert_int_equal(load("--config", path, "--window", "20", NULL), -EINVAL);
	snprintf(expect, sizeof(expect),
		 "%s:2: trigger 'runq>5ms,delay=20s': delay 20 s is not shorter than --window 20 s, so its snapshot could miss the firing; lower delay= or raise --window",
		 path);
	assert_string_equal(err, expect);
	assert_null(cfg);
	/* and a command-line trigger has no line */
	assert_int_equal(load("--config", path, "--trigger", "lost,delay=31s", NULL), -EINVAL);
	assert_string_equal(err, "trigger 'lost,delay=31s': delay 31 s is not shorter than --window 30 s, so its snapshot could miss the firing; lower delay= or raise --window");
	/* a bad spec in the file: its line */
	path = write_file("bad.conf", "\ntrigger = runq>5\n", 0600);
	assert_int_equal(load("--config", path, NULL), -EINVAL);
	snprintf(expect, sizeof(expect),
		 "%s:2: trigger 'runq>5': runq>5: not a duration; use a number with us, ms or s, e.g. runq>50ms",
		 path);
	assert_string_equal(err, expect);
}

static void test_new_options(void **state)
{
	char longpath[160];

	/* the command-line side of the keys the file also takes */
	assert_int_equal(load("--config", "/dev/null", "--keep", "0", "--keep-size", "0",
			      "--socket", "/run/x/y.sock", "--check", NULL), 0);
	assert_int_equal(o.keep, 0);
	assert_int_equal(o.keep_bytes, 0);
	assert_string_equal(o.socket_path, "/run/x/y.sock");
	assert_true(o.check);
	assert_int_equal(load("--config", "/dev/null", "--keep", "1000001", NULL), -EINVAL);
	assert_string_equal(err, "--keep '1000001': use a number of snapshots from 0 (no limit) to 1000000");
	assert_int_equal(load("--config", "/dev/null", "--keep-size", "2048G", NULL), 0);
	assert_int_equal(o.keep_bytes, 2048ull << 30);
	assert_int_equal(load("--config", "/dev/null", "--keep-size", "1048577G", NULL), -EINVAL);
	assert_string_equal(err, "--keep-size 1048577G: out of range; use 0 to 1048576G");
	assert_int_equal(load("--config", "/dev/null", "--socket", "frecd.sock", NULL), -EINVAL);
	assert_string_equal(err, "--socket 'frecd.sock': not an absolute path; use e.g. --socket /run/frec/frecd.sock");
	memset(longpath, 'a', sizeof(longpath));
	longpath[0] = '/';
	longpath[108] = '\0';	/* 108 bytes: one more than sun_path holds */
	assert_int_equal(load("--config", "/dev/null", "--socket", longpath, NULL), -EINVAL);
	assert_memory_equal(err, "--socket /aaa", 13);
	assert_non_null(strstr(err, ": longer than a unix socket path may be (107 bytes); choose a shorter path"));
	longpath[107] = '\0';
	assert_int_equal(load("--config", "/dev/null", "--socket", longpath, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_every_key, teardown),
		cmocka_unit_test_teardown(test_defaults_and_empty, teardown),
		cmocka_unit_test_teardown(test_repeated_keys, teardown),
		cmocka_unit_test_teardown(test_booleans, teardown),
		cmocka_unit_test_teardown(test_errors_name_the_line, teardown),
		cmocka_unit_test_teardown(test_where, teardown),
		cmocka_unit_test_setup_teardown(test_read, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_too_large, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_command_line_wins, setup_dir, teardown_dir),
		cmocka_unit_test_teardown(test_new_options, teardown),
		cmocka_unit_test_setup_teardown(test_triggers, setup_dir, teardown_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
