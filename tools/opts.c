// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Option parsing and formatting helpers shared by the subcommands. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "json.h"
#include "tools.h"

int frec_opt__parse_secs(const char *s, __u64 *ns)
{
	__u64 whole = 0, frac = 0;
	int digits = 0, any = 0;

	for (; *s >= '0' && *s <= '9'; s++, any = 1) {
		if (whole > (UINT64_MAX / 1000000000ull - 9) / 10)
			return -ERANGE;
		whole = whole * 10 + (__u64)(*s - '0');
	}
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++, any = 1) {
			if (digits == 9)
				return -EINVAL;	/* finer than a nanosecond */
			frac = frac * 10 + (__u64)(*s - '0');
			digits++;
		}
	}
	if (*s || !any)
		return -EINVAL;
	for (; digits < 9; digits++)
		frac *= 10;
	*ns = whole * 1000000000ull + frac;
	return 0;
}

int frec_opt__parse_u32(const char *s, __u32 *v)
{
	unsigned long long x;
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end || x > UINT_MAX)
		return -EINVAL;
	*v = (__u32)x;
	return 0;
}

int frec_opt__cgroup_path(const char *cmd, const char *arg, char *out, size_t len)
{
	size_t n = 0;
	const char *p;

	if (arg[0] != '/') {
		fprintf(stderr, "frec %s: --cgroup '%s': want a path as /proc/PID/cgroup shows it "
			"(\"/system.slice/x.service\"), starting with /\n", cmd, arg);
		return -1;
	}
	for (p = arg; *p; p++) {
		if (*p == '/' && (p[1] == '/' || (p[1] == '\0' && n)))
			continue;
		if (n + 1 >= len) {
			fprintf(stderr, "frec %s: --cgroup '%.32s...': longer than %zu bytes\n", cmd,
				arg, len - 1);
			return -1;
		}
		out[n++] = *p;
	}
	if (!n)
		out[n++] = '/';
	out[n] = '\0';
	return 0;
}

int frec_opt__debug_dir(const char *cmd, const char *dir)
{
	struct stat st;
	const char *why;

	if (stat(dir, &st))
		why = errno == ENOENT ? "no such directory" : strerror(errno);
	else if (!S_ISDIR(st.st_mode))
		why = "not a directory";
	else
		return 0;
	fprintf(stderr, "frec %s: --debug-dir %s: %s; give the directory that holds .build-id/ "
		"(such as /usr/lib/debug)\n", cmd, dir, why);
	return -1;
}

int frec_opt__parse_json_file(int argc, char **argv, const char *cmd,
			      void (*usage)(FILE *f), bool *json, const char **file)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 0;
	while ((c = getopt_long(argc, argv, "jh", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			*json = true;
			break;
		case 'h':
			usage(stdout);
			return FREC_EXIT_OK;
		default:
			fprintf(stderr, "Try 'frec %s --help'.\n", cmd);
			return FREC_EXIT_USAGE;
		}
	}
	if (argc - optind != 1) {
		fprintf(stderr, "frec %s: expected one FILE, got %d; try 'frec %s --help'\n",
			cmd, argc - optind, cmd);
		return FREC_EXIT_USAGE;
	}
	*file = argv[optind];
	return -1;
}

/*
 * The sched_switch tracepoint reports prev_state as one bit per state in the
 * order of the "RSDTtXZPI" letters (TASK_REPORT, include/linux/sched.h, since
 * v4.14), plus TASK_REPORT_MAX (0x100) when the task was preempted while
 * runnable. Its TP_printk prints the set bits joined by "|", "R" when none,
 * and a "+" for preemption; so do we.
 */
void frec_fmt__prev_state(__u64 state, char *buf, size_t len)
{
	static const char letters[] = "SDTtXZPI";
	size_t n = 0;
	int i;

	if (!len)
		return;
	buf[0] = '\0';
	for (i = 0; i < 8; i++) {
		if (!(state & (1u << i)))
			continue;
		if (n && n + 1 < len)
			buf[n++] = '|';
		if (n + 1 < len)
			buf[n++] = letters[i];
	}
	if (!n && n + 1 < len)
		buf[n++] = 'R';
	if ((state & 0x100) && n + 1 < len)
		buf[n++] = '+';
	buf[n] = '\0';
}

void frec_usage__exit_status(FILE *f)
{
	fprintf(f,
		"\nEXIT STATUS\n"
		"  0  success\n"
		"  1  the file cannot be read: missing, unreadable, not a frec snapshot,\n"
		"     written by a newer frec, cut short inside its header; or output failed\n"
		"  2  bad command line\n"
		"  3  the snapshot has damaged generations (bad checksum, cut short); each\n"
		"     is named on stderr and skipped, the intact ones are still output\n");
}

const char *frec_probe__kind_name(__u32 kind)
{
	switch (kind) {
	case FREC_PROBE_UPROBE: return "uprobe";
	case FREC_PROBE_URETPROBE: return "uretprobe";
	case FREC_PROBE_USDT: return "usdt";
	default: return "probe";
	}
}

void frec_probe__label(struct frec_out *o, const char *name, __u32 kind)
{
	const char *k = frec_probe__kind_name(kind);
	size_t n = strlen(k);

	frec_text__str(o, name, 4096);
	/* "func:PATH:F" names both the entry and the return probe: say which */
	if (strncmp(name, k, n) || name[n] != ':')
		frec_out__printf(o, " (%s)", k);
}

const char *frec_trigger__kind_name(__u32 kind)
{
	const char *name = frec_trigger_kind__name(kind);

	return name ? name : "trigger";
}

void frec_fmt__trigger_value(__u32 kind, __u64 v, char *buf, size_t len)
{
	switch (kind) {
	case FREC_TRIG_RUNQ:
	case FREC_TRIG_OFFCPU:
	case FREC_TRIG_ONCPU:
	case FREC_TRIG_FUNC:
		if (v < 1000)
			snprintf(buf, len, "%llu ns", (unsigned long long)v);
		else if (v < 1000000)
			snprintf(buf, len, "%.1f us", (double)v / 1e3);
		else if (v < 1000000000)
			snprintf(buf, len, "%.1f ms", (double)v / 1e6);
		else
			snprintf(buf, len, "%.2f s", (double)v / 1e9);
		break;
	case FREC_TRIG_LOST:
		snprintf(buf, len, "%llu records", (unsigned long long)v);
		break;
	case FREC_TRIG_MANUAL:
		snprintf(buf, len, "-");
		break;
	default:
		snprintf(buf, len, "%llu", (unsigned long long)v);
		break;
	}
}
