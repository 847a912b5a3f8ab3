// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <frec/recorder.h>
#include <frec/snapshot.h>
#include "frecd/options.h"
#include "frecd/trigger_spec.h"

/* Bounds. The window's bytes are preallocated, so keep the ceiling sane; the
 * ring is a power of two (a kernel rule) of at least 64 KiB. */
#define MIN_MAX_BYTES		(64ull << 10)
#define MAX_MAX_BYTES		(64ull << 30)
#define MIN_RING_BYTES		(64ull << 10)
#define MAX_RING_BYTES		(1ull << 30)
#define MIN_RING_MIN_BYTES	(4ull << 10)
#define MAX_RING_MIN_BYTES	(256ull << 20)
#define MAX_WINDOW_NS		(86400ull * 1000000000)
#define MIN_PERIOD_MS		10
#define MAX_PERIOD_MS		600000
#define MAX_PID			4194304	/* PID_MAX_LIMIT on 64-bit */
#define MAX_STALL_MS		600000
#define MAX_WRITER_DELAY_MS	600000
#define MAX_KEEP		1000000
#define MAX_KEEP_BYTES		(1ull << 50)
#define SOCKET_PATH_MAX		107	/* sizeof(sockaddr_un.sun_path) - 1 */
#define MAX_ON_SNAPSHOT_TIMEOUT_NS	(86400ull * 1000000000)

enum {
	OPT_WINDOW = 0x100,
	OPT_MAX_SIZE,
	OPT_PERIOD,
	OPT_RING_SIZE,
	OPT_RING_MIN,
	OPT_PROBE,
	OPT_PROBE_ARGS,
	OPT_WAKEUP,
	OPT_ATTACH,
	OPT_BTF,
	OPT_DRY_RUN,
	OPT_VERSION,
	OPT_CONFIG,
	OPT_CHECK,
	OPT_KEEP,
	OPT_KEEP_SIZE,
	OPT_COMPRESS,
	OPT_SOCKET,
	OPT_DEBUG_STALL_MS,
	OPT_DEBUG_WRITER_DELAY_MS,
	OPT_DEBUG_ATTACH_DELAY_MS,
	OPT_DEBUG_PROBES_ONLY,
	OPT_TRIGGER,
	OPT_ON_SNAPSHOT,
	OPT_ON_SNAPSHOT_TIMEOUT,
	OPT_STACKS,
	OPT_STACK_DEPTH,
	OPT_CGROUP,
	OPT_CGROUP_HIERARCHY,
	OPT_MAX_THREADS,
	OPT_MAX_PROCESSES,
};

static const struct option long_options[] = {
	{ "output",	required_argument, NULL, 'o' },
	{ "window",	required_argument, NULL, OPT_WINDOW },
	{ "max-size",	required_argument, NULL, OPT_MAX_SIZE },
	{ "period",	required_argument, NULL, OPT_PERIOD },
	{ "ring-size",	required_argument, NULL, OPT_RING_SIZE },
	{ "max-threads", required_argument, NULL, OPT_MAX_THREADS },
	{ "max-processes", required_argument, NULL, OPT_MAX_PROCESSES },
	{ "ring-min",	required_argument, NULL, OPT_RING_MIN },
	{ "pid",	required_argument, NULL, 'p' },
	{ "cgroup",	required_argument, NULL, OPT_CGROUP },
	{ "cgroup-hierarchy", required_argument, NULL, OPT_CGROUP_HIERARCHY },
	{ "probe",	required_argument, NULL, OPT_PROBE },
	{ "probe-args",	required_argument, NULL, OPT_PROBE_ARGS },
	{ "trigger",	required_argument, NULL, OPT_TRIGGER },
	{ "on-snapshot", required_argument, NULL, OPT_ON_SNAPSHOT },
	{ "on-snapshot-timeout", required_argument, NULL, OPT_ON_SNAPSHOT_TIMEOUT },
	{ "stacks",	required_argument, NULL, OPT_STACKS },
	{ "stack-depth", required_argument, NULL, OPT_STACK_DEPTH },
	{ "wakeup",	no_argument,	   NULL, OPT_WAKEUP },
	{ "attach",	required_argument, NULL, OPT_ATTACH },
	{ "btf",	required_argument, NULL, OPT_BTF },
	{ "config",	required_argument, NULL, OPT_CONFIG },
	{ "check",	no_argument,	   NULL, OPT_CHECK },
	{ "keep",	required_argument, NULL, OPT_KEEP },
	{ "keep-size",	required_argument, NULL, OPT_KEEP_SIZE },
	{ "compress",	required_argument, NULL, OPT_COMPRESS },
	{ "socket",	required_argument, NULL, OPT_SOCKET },
	{ "dry-run",	no_argument,	   NULL, OPT_DRY_RUN },
	{ "debug-stall-ms", required_argument, NULL, OPT_DEBUG_STALL_MS },
	{ "debug-writer-delay-ms", required_argument, NULL, OPT_DEBUG_WRITER_DELAY_MS },
	{ "debug-attach-delay-ms", required_argument, NULL, OPT_DEBUG_ATTACH_DELAY_MS },
	{ "debug-probes-only", no_argument, NULL, OPT_DEBUG_PROBES_ONLY },
	{ "verbose",	no_argument,	   NULL, 'v' },
	{ "version",	no_argument,	   NULL, OPT_VERSION },
	{ "help",	no_argument,	   NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

void frecd_options__init(struct frecd_options *o)
{
	memset(o, 0, sizeof(*o));
	o->output_dir = FRECD_DEFAULT_DIR;
	o->window_ns = FRECD_DEFAULT_WINDOW_NS;
	o->max_bytes = FRECD_DEFAULT_MAX_BYTES;
	o->period_ns = FRECD_DEFAULT_PERIOD_NS;
	o->ring_bytes = FRECD_DEFAULT_RING_BYTES;
	o->ring_min_bytes = FRECD_DEFAULT_RING_MIN_BYTES;
	o->probe_args = FRECD_DEFAULT_PROBE_ARGS;
	o->stack_depth = FREC_DEFAULT_STACK_DEPTH;
	o->attach = FRECD_ATTACH_AUTO;
	o->socket_path = FRECD_DEFAULT_SOCKET;
	o->keep = FRECD_DEFAULT_KEEP;
	o->keep_bytes = FRECD_DEFAULT_KEEP_BYTES;
	o->compress = FREC_COMPRESS_NONE;
	o->on_snapshot_timeout_ns = FRECD_DEFAULT_ON_SNAPSHOT_TIMEOUT_NS;
	o->cgroup_hierarchy = "auto";
}

int frecd_parse_size(const char *s, __u64 *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	switch (*end) {
	case '\0': break;
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	default: return -EINVAL;
	}
	if (*end)
		return -EINVAL;
	if (shift && v > (ULLONG_MAX >> shift))
		return -ERANGE;
	*out = (__u64)v << shift;
	return 0;
}

int frecd_parse_seconds(const char *s, __u64 *out_ns)
{
	unsigned long long whole, frac = 0, scale = 1000000000ull;
	const char *p;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	whole = strtoull(s, &end, 10);
	if (errno == ERANGE || whole > MAX_WINDOW_NS / 1000000000ull * 2)
		return -ERANGE;
	if (*end == '.') {
		p = end + 1;
		if (*p < '0' || *p > '9')
			return -EINVAL;
		/* digits past the ninth are below a nanosecond: ignore them */
		for (; *p >= '0' && *p <= '9'; p++) {
			if (scale > 1) {
				scale /= 10;
				frac += (unsigned long long)(*p - '0') * scale;
			}
		}
		end = (char *)p;
	}
	if (*end)
		return -EINVAL;
	*out_ns = whole * 1000000000ull + frac;
	return 0;
}

/*
 * The one parser of durations with a unit (--trigger's DUR,
 * --on-snapshot-timeout with one): declared in options.h.
 */
int frecd_parse_duration(const char *s, __u64 *out)
{
	unsigned long long whole = 0, frac = 0, fscale = 1, unit;
	const char *p = s;

	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++) {
		if (whole > FRECD_MAX_DURATION_NS)	/* keeps the sum below overflow */
			return -ERANGE;
		whole = whole * 10 + (*p - '0');
	}
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		for (; isdigit((unsigned char)*p); p++) {
			if (fscale < 1000000000ull) {
				frac = frac * 10 + (*p - '0');
				fscale *= 10;
			}
		}
	}
	if (!strcmp(p, "us"))
		unit = 1000;
	else if (!strcmp(p, "ms"))
		unit = 1000000;
	else if (!strcmp(p, "s"))
		unit = 1000000000;
	else if (!*p && !whole && !frac && p == s + 1)
		unit = 0;	/* "0" alone */
	else
		return -EINVAL;
	if (whole > FRECD_MAX_DURATION_NS / (unit ? unit : 1))
		return -ERANGE;
	*out = whole * unit + frac * unit / fscale;
	if (*out > FRECD_MAX_DURATION_NS)
		return -ERANGE;
	return 0;
}

const char *frecd_format_size(__u64 bytes, char *buf, size_t len)
{
	if (bytes && !(bytes & ((1ull << 30) - 1)))
		snprintf(buf, len, "%lluG", (unsigned long long)(bytes >> 30));
	else if (bytes && !(bytes & ((1ull << 20) - 1)))
		snprintf(buf, len, "%lluM", (unsigned long long)(bytes >> 20));
	else if (bytes && !(bytes & ((1ull << 10) - 1)))
		snprintf(buf, len, "%lluK", (unsigned long long)(bytes >> 10));
	else
		snprintf(buf, len, "%llu", (unsigned long long)bytes);
	return buf;
}

__attribute__((format(printf, 3, 4)))
static int usage_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int parse_size_option(const char *name, const char *arg, __u64 min, __u64 max,
			     __u64 *out, char *err, size_t errlen)
{
	char lo[32], hi[32];
	int ret;

	ret = frecd_parse_size(arg, out);
	if (ret == -EINVAL)
		return usage_error(err, errlen,
				   "%s '%s': not a size; use a number of bytes with an optional K, M or G suffix, e.g. %s 64M",
				   name, arg, name);
	if (ret || *out < min || *out > max)
		return usage_error(err, errlen, "%s %s: out of range; use %s to %s", name, arg,
				   frecd_format_size(min, lo, sizeof(lo)),
				   frecd_format_size(max, hi, sizeof(hi)));
	return 0;
}

static int parse_uint(const char *arg, unsigned long long max, unsigned long long *out)
{
	char *end;

	if (!arg || *arg < '0' || *arg > '9')
		return -EINVAL;
	errno = 0;
	*out = strtoull(arg, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || *out > max)
		return -ERANGE;
	return 0;
}

static int add_pid(struct frecd_options *o, const char *arg, char *err, size_t errlen)
{
	unsigned long long v;
	size_t i;

	if (parse_uint(arg, MAX_PID, &v) || v == 0)
		return usage_error(err, errlen,
				   "-p '%s': not a process id; use a number from 1 to %d, e.g. -p $(pidof myapp)",
				   arg, MAX_PID);
	for (i = 0; i < o->npids; i++)
		if (o->pids[i] == v)
			return 0;
	if (o->npids == FRECD_MAX_PIDS)
		return usage_error(err, errlen, "-p %s: too many processes; at most %d -p options",
				   arg, FRECD_MAX_PIDS);
	o->pids[o->npids++] = v;
	return 0;
}

/* --cgroup PATH: a path as /proc/PID/cgroup shows it, or one under the
 * cgroup mount; resolved once the hierarchy is chosen (cgroupfs.h). */
static int add_cgroup(struct frecd_options *o, const char *arg, char *err, size_t errlen)
{
	size_t i;

	if (*arg != '/')
		return usage_error(err, errlen,
				   "--cgroup '%s': not a cgroup path; give the path /proc/PID/cgroup shows for a process in it, e.g. --cgroup /system.slice/app.service",
				   arg);
	for (i = 0; i < o->ncgroups; i++)
		if (!strcmp(o->cgroups[i], arg))
			return 0;
	if (o->ncgroups == FRECD_MAX_CGROUPS)
		return usage_error(err, errlen, "--cgroup %s: too many cgroups; at most %d --cgroup",
				   arg, FRECD_MAX_CGROUPS);
	o->cgroups[o->ncgroups++] = arg;
	return 0;
}

/* --cgroup-hierarchy: auto, v2, none, or a v1 controller's name. */
static int set_hierarchy(struct frecd_options *o, const char *arg, char *err, size_t errlen)
{
	size_t i, n = strlen(arg);

	for (i = 0; i < n; i++)
		if (!islower((unsigned char)arg[i]) && !isdigit((unsigned char)arg[i]) && arg[i] != '_')
			break;
	if (!n || i < n || n > 15)
		return usage_error(err, errlen,
				   "--cgroup-hierarchy '%s': use auto, v2, none or a v1 controller's name, e.g. pids",
				   arg);
	o->cgroup_hierarchy = arg;
	return 0;
}

/* "60", "2.5" (seconds), "30s", "500ms". 0, -EINVAL, -ERANGE. */
/* Seconds ("60", "2.5"), or a duration with its unit ("60s", "500ms"). */
static int parse_timeout(const char *arg, __u64 *out_ns)
{
	size_t len = strlen(arg);

	if (len && arg[len - 1] == 's')
		return frecd_parse_duration(arg, out_ns);
	return frecd_parse_seconds(arg, out_ns);
}

static int add_trigger(struct frecd_options *o, const char *arg, char *err, size_t errlen)
{
	struct trigger_spec ts;
	int ret;

	if (o->ntriggers == FREC_MAX_TRIGGERS)
		return usage_error(err, errlen, "--trigger %s: too many triggers; at most %d",
				   arg, FREC_MAX_TRIGGERS);
	ret = trigger_spec__parse(arg, &ts, err, errlen);
	if (ret)
		return ret;
	trigger_spec__free(&ts);
	o->triggers[o->ntriggers++] = arg;
	return 0;
}

int frecd_parse_stacks(const char *list, __u32 *out, const char **bad, size_t *badlen)
{
	const char *p = list, *end;
	bool none = false;
	__u32 v = 0;
	size_t n;

	do {
		end = strchr(p, ',');
		n = end ? (size_t)(end - p) : strlen(p);
		if (n == 6 && !strncmp(p, "offcpu", n) && !none) {
			v |= FRECD_STACKS_OFFCPU;
		} else if (n == 6 && !strncmp(p, "probes", n) && !none) {
			v |= FRECD_STACKS_PROBES;
		} else if (n == 4 && !strncmp(p, "none", n) && !v && !none) {
			none = true;
		} else {
			*bad = p;
			*badlen = n;
			return -EINVAL;
		}
		p = end + 1;
	} while (end);
	*out = v;
	return 0;
}

const char *frecd_format_stacks(__u32 stacks)
{
	switch (stacks & (FRECD_STACKS_OFFCPU | FRECD_STACKS_PROBES)) {
	case FRECD_STACKS_OFFCPU | FRECD_STACKS_PROBES:
		return "offcpu,probes";
	case FRECD_STACKS_OFFCPU:
		return "offcpu";
	case FRECD_STACKS_PROBES:
		return "probes";
	}
	return "none";
}

const char *frecd_format_compress(__u32 compress)
{
	return compress == FREC_COMPRESS_ZSTD ? "zstd" : "none";
}

__u32 frecd_stacks__config_flags(__u32 stacks)
{
	return (stacks & FRECD_STACKS_OFFCPU ? FREC_CFG_STACKS_OFFCPU : 0) |
	       (stacks & FRECD_STACKS_PROBES ? FREC_CFG_STACKS_PROBES : 0);
}

static int parse_one(struct frecd_options *o, int c, const char *arg, char *err, size_t errlen)
{
	unsigned long long v;
	int ret;

	switch (c) {
	case 'o':
		if (!*arg)
			return usage_error(err, errlen, "-o '': empty directory name; use e.g. -o %s",
					   FRECD_DEFAULT_DIR);
		o->output_dir = arg;
		return 0;
	case OPT_WINDOW:
		ret = frecd_parse_seconds(arg, &o->window_ns);
		if (ret == -EINVAL)
			return usage_error(err, errlen,
					   "--window '%s': not a number of seconds; use e.g. --window 10 or --window 2.5",
					   arg);
		if (ret || o->window_ns == 0 || o->window_ns > MAX_WINDOW_NS)
			return usage_error(err, errlen,
					   "--window %s: out of range; use more than 0 and at most 86400 seconds",
					   arg);
		return 0;
	case OPT_MAX_SIZE:
		return parse_size_option("--max-size", arg, MIN_MAX_BYTES, MAX_MAX_BYTES,
					 &o->max_bytes, err, errlen);
	case OPT_RING_SIZE:
		ret = parse_size_option("--ring-size", arg, MIN_RING_BYTES, MAX_RING_BYTES,
					&o->ring_bytes, err, errlen);
		if (ret)
			return ret;
		if (o->ring_bytes & (o->ring_bytes - 1))
			return usage_error(err, errlen,
					   "--ring-size %s: not a power of two (a kernel rule); use e.g. 4M, 16M or 64M",
					   arg);
		return 0;
	case OPT_RING_MIN:
		ret = parse_size_option("--ring-min", arg, MIN_RING_MIN_BYTES, MAX_RING_MIN_BYTES,
					&o->ring_min_bytes, err, errlen);
		if (ret)
			return ret;
		if (o->ring_min_bytes & (o->ring_min_bytes - 1))
			return usage_error(err, errlen,
					   "--ring-min %s: not a power of two (a kernel rule); use e.g. 64K, 256K or 1M",
					   arg);
		return 0;
	case OPT_PERIOD:
		ret = parse_uint(arg, ULLONG_MAX, &v);
		if (ret == -EINVAL)
			return usage_error(err, errlen,
					   "--period '%s': not a number of milliseconds; use e.g. --period 1000",
					   arg);
		if (ret || v < MIN_PERIOD_MS || v > MAX_PERIOD_MS)
			return usage_error(err, errlen, "--period %s: out of range; use %d to %d ms",
					   arg, MIN_PERIOD_MS, MAX_PERIOD_MS);
		o->period_ns = v * 1000000ull;
		return 0;
	case OPT_MAX_THREADS:
	case OPT_MAX_PROCESSES: {
		const char *name = c == OPT_MAX_THREADS ? "--max-threads" : "--max-processes";

		/* The recorder's limit (1 << 22, PID_MAX_LIMIT): no more tids exist. */
		if (parse_uint(arg, MAX_PID, &v) || v < 64)
			return usage_error(err, errlen, "%s '%s': use a number from 64 to %d, e.g. %s 200000",
					   name, arg, MAX_PID, name);
		*(c == OPT_MAX_THREADS ? &o->max_threads : &o->max_processes) = (__u32)v;
		return 0;
	}
	case 'p':
		return add_pid(o, arg, err, errlen);
	case OPT_CGROUP:
		return add_cgroup(o, arg, err, errlen);
	case OPT_CGROUP_HIERARCHY:
		return set_hierarchy(o, arg, err, errlen);
	case OPT_PROBE:
		if (!*arg)
			return usage_error(err, errlen,
					   "--probe '': empty spec; use e.g. --probe uprobe:/usr/bin/app:main");
		if (o->nprobes == FREC_MAX_PROBES - 1)
			return usage_error(err, errlen, "--probe %s: too many probes; at most %d",
					   arg, FREC_MAX_PROBES - 1);
		o->probes[o->nprobes++] = arg;
		return 0;
	case OPT_TRIGGER:
		return add_trigger(o, arg, err, errlen);
	case OPT_ON_SNAPSHOT:
		if (*arg != '/')
			return usage_error(err, errlen,
					   "--on-snapshot '%s': not an absolute path (it is run without a shell or PATH); use e.g. --on-snapshot /usr/local/bin/frec-upload",
					   arg);
		o->on_snapshot = arg;
		return 0;
	case OPT_ON_SNAPSHOT_TIMEOUT:
		ret = parse_timeout(arg, &o->on_snapshot_timeout_ns);
		if (ret == -EINVAL)
			return usage_error(err, errlen,
					   "--on-snapshot-timeout '%s': not a duration; use seconds or a number with s or ms, e.g. --on-snapshot-timeout 60",
					   arg);
		if (ret || !o->on_snapshot_timeout_ns ||
		    o->on_snapshot_timeout_ns > MAX_ON_SNAPSHOT_TIMEOUT_NS)
			return usage_error(err, errlen,
					   "--on-snapshot-timeout %s: out of range; use more than 0 and at most 86400 seconds",
					   arg);
		return 0;
	case OPT_PROBE_ARGS:
		ret = parse_uint(arg, FREC_MAX_PROBE_ARGS, &v);
		if (ret)
			return usage_error(err, errlen, "--probe-args '%s': use a number from 0 to %d",
					   arg, FREC_MAX_PROBE_ARGS);
		o->probe_args = v;
		return 0;
	case OPT_STACKS: {
		const char *bad;
		size_t badlen;

		if (frecd_parse_stacks(arg, &o->stacks, &bad, &badlen)) {
			if (!badlen)
				return usage_error(err, errlen,
						   "--stacks '%s': an empty item; use offcpu, probes, offcpu,probes or none",
						   arg);
			return usage_error(err, errlen,
					   "--stacks '%s': '%.*s' is not offcpu, probes or none (which stands alone); use e.g. --stacks offcpu,probes",
					   arg, (int)badlen, bad);
		}
		return 0;
	}
	case OPT_STACK_DEPTH:
		ret = parse_uint(arg, FREC_MAX_STACK_DEPTH, &v);
		if (ret || v < 1)
			return usage_error(err, errlen,
					   "--stack-depth '%s': use a number of frames from 1 to %d (default %d)",
					   arg, FREC_MAX_STACK_DEPTH, FREC_DEFAULT_STACK_DEPTH);
		o->stack_depth = v;
		return 0;
	case OPT_WAKEUP:
		o->wakeup = true;
		return 0;
	case OPT_ATTACH:
		if (!strcmp(arg, "auto"))
			o->attach = FRECD_ATTACH_AUTO;
		else if (!strcmp(arg, "tp_btf"))
			o->attach = FRECD_ATTACH_TP_BTF;
		else if (!strcmp(arg, "raw_tp"))
			o->attach = FRECD_ATTACH_RAW_TP;
		else
			return usage_error(err, errlen, "--attach '%s': unknown; use auto, tp_btf or raw_tp",
					   arg);
		return 0;
	case OPT_BTF:
		if (!*arg)
			return usage_error(err, errlen, "--btf '': empty file name; use --btf FILE");
		o->btf_path = arg;
		return 0;
	case OPT_CONFIG:
		if (!*arg)
			return usage_error(err, errlen, "--config '': empty file name; use e.g. --config %s",
					   FRECD_DEFAULT_CONFIG);
		o->config_path = arg;
		return 0;
	case OPT_CHECK:
		o->check = true;
		return 0;
	case OPT_KEEP:
		if (parse_uint(arg, MAX_KEEP, &v))
			return usage_error(err, errlen,
					   "--keep '%s': use a number of snapshots from 0 (no limit) to %d",
					   arg, MAX_KEEP);
		o->keep = v;
		return 0;
	case OPT_KEEP_SIZE:
		return parse_size_option("--keep-size", arg, 0, MAX_KEEP_BYTES, &o->keep_bytes,
					 err, errlen);
	case OPT_COMPRESS:
		if (!strcmp(arg, "zstd"))
			o->compress = FREC_COMPRESS_ZSTD;
		else if (!strcmp(arg, "none"))
			o->compress = FREC_COMPRESS_NONE;
		else
			return usage_error(err, errlen,
					   "--compress '%s': not a method; use --compress zstd or --compress none",
					   arg);
		return 0;
	case OPT_SOCKET:
		if (*arg != '/')
			return usage_error(err, errlen,
					   "--socket '%s': not an absolute path; use e.g. --socket %s",
					   arg, FRECD_DEFAULT_SOCKET);
		if (strlen(arg) > SOCKET_PATH_MAX)
			return usage_error(err, errlen,
					   "--socket %s: longer than a unix socket path may be (%d bytes); choose a shorter path",
					   arg, SOCKET_PATH_MAX);
		o->socket_path = arg;
		return 0;
	case OPT_DRY_RUN:
		o->dry_run = true;
		return 0;
	case OPT_DEBUG_STALL_MS:
		if (parse_uint(arg, MAX_STALL_MS, &v) || v == 0)
			return usage_error(err, errlen,
					   "--debug-stall-ms '%s': use a number of milliseconds from 1 to %d",
					   arg, MAX_STALL_MS);
		o->debug_stall_ms = v;
		return 0;
	case OPT_DEBUG_WRITER_DELAY_MS:
		if (parse_uint(arg, MAX_WRITER_DELAY_MS, &v) || v == 0)
			return usage_error(err, errlen,
					   "--debug-writer-delay-ms '%s': use a number of milliseconds from 1 to %d",
					   arg, MAX_WRITER_DELAY_MS);
		o->debug_writer_delay_ms = v;
		return 0;
	case OPT_DEBUG_ATTACH_DELAY_MS:
		if (parse_uint(arg, MAX_WRITER_DELAY_MS, &v) || v == 0)
			return usage_error(err, errlen,
					   "--debug-attach-delay-ms '%s': use a number of milliseconds from 1 to %d",
					   arg, MAX_WRITER_DELAY_MS);
		o->debug_attach_delay_ms = v;
		return 0;
	case OPT_DEBUG_PROBES_ONLY:
		o->debug_probes_only = true;
		return 0;
	case 'v':
		o->verbose++;
		return 0;
	case OPT_VERSION:
		o->version = true;
		return 0;
	case 'h':
		o->help = true;
		return 0;
	}
	return usage_error(err, errlen, "internal error: option %d not handled", c);
}

int frecd_options__parse(struct frecd_options *o, int argc, char **argv, char *err, size_t errlen)
{
	const char *bad;
	int c, ret;

	opterr = 0;	/* our own one-line messages instead of getopt's */
	optind = 0;	/* 0, not 1: also resets getopt's state (glibc) */
	while ((c = getopt_long(argc, argv, ":o:p:vh", long_options, NULL)) != -1) {
		bad = argv[optind - 1];
		if (c == '?') {
			if (optopt && optopt < 0x100 && strncmp(bad, "--", 2))
				return usage_error(err, errlen, "unknown option '-%c'; see frecd --help",
						   optopt);
			return usage_error(err, errlen, "unknown option '%s'; see frecd --help", bad);
		}
		if (c == ':') {
			if (optopt && optopt < 0x100 && strncmp(bad, "--", 2))
				return usage_error(err, errlen, "option '-%c' needs a value; see frecd --help",
						   optopt);
			return usage_error(err, errlen, "option '%s' needs a value; see frecd --help", bad);
		}
		ret = parse_one(o, c, optarg, err, errlen);
		if (ret)
			return ret;
	}
	if (optind < argc)
		return usage_error(err, errlen,
				   "unexpected argument '%s'; frecd takes options only, see frecd --help",
				   argv[optind]);
	return 0;
}

int frecd_options__check(const struct frecd_options *o, const char **bad, char *err,
			 size_t errlen)
{
	struct trigger_spec ts[FREC_MAX_TRIGGERS];
	size_t i, j, n = 0;
	int ret = 0;

	*bad = NULL;
	for (n = 0; n < o->ntriggers; n++) {
		ret = trigger_spec__parse(o->triggers[n], &ts[n], err, errlen);
		if (ret) {
			*bad = o->triggers[n];
			goto out;
		}
	}
	for (i = 0; i < n; i++) {
		if (ts[i].delay_ns >= o->window_ns) {
			*bad = o->triggers[i];
			ret = usage_error(err, errlen,
					  "trigger '%s': delay %.9g s is not shorter than --window %.9g s, so its snapshot could miss the firing; lower delay= or raise --window",
					  ts[i].spec, ts[i].delay_ns / 1e9, o->window_ns / 1e9);
			goto out;
		}
		for (j = 0; j < i; j++) {
			if (strcmp(ts[i].name, ts[j].name))
				continue;
			*bad = o->triggers[i];
			ret = usage_error(err, errlen,
					  "trigger '%s': the name '%s' is taken by trigger '%s'; give one of them another name=",
					  ts[i].spec, ts[i].name, ts[j].spec);
			goto out;
		}
		/* frec trigger NAME must say which one it fires */
		for (j = 0; j < i && ts[i].manual; j++) {
			if (!ts[j].manual || strcmp(ts[i].manual, ts[j].manual))
				continue;
			*bad = o->triggers[i];
			ret = usage_error(err, errlen,
					  "trigger '%s': 'frec trigger %s' already fires trigger '%s'; give one of them another manual:NAME",
					  ts[i].spec, ts[i].manual, ts[j].spec);
			goto out;
		}
	}
out:
	for (i = 0; i < n; i++)
		trigger_spec__free(&ts[i]);
	return ret;
}

/* yes/no and their synonyms: 1, 0, or -1 when value is neither. */
static int parse_bool(const char *value)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };
	size_t i;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcmp(value, yes[i]))
			return 1;
		if (!strcmp(value, no[i]))
			return 0;
	}
	return -1;
}

int frecd_options__set(struct frecd_options *o, const char *key, const char *value,
		       char *err, size_t errlen)
{
	const struct option *opt;
	char name[64];
	size_t i;
	int b;

	/* stack_depth and stack-depth are one key: files are often written
	 * with underscores */
	for (i = 0; key[i] && i < sizeof(name) - 1; i++)
		name[i] = key[i] == '_' ? '-' : key[i];
	name[i] = '\0';
	for (opt = long_options; opt->name; opt++)
		if (!strcmp(opt->name, name))
			break;
	if (!opt->name)
		return usage_error(err, errlen,
				   "unknown key '%s'; the keys are frecd's long options without the dashes (see frecd --help)",
				   key);
	switch (opt->val) {
	case OPT_CONFIG:
	case OPT_CHECK:
	case OPT_DRY_RUN:
	case OPT_VERSION:
	case OPT_DEBUG_STALL_MS:
	case OPT_DEBUG_WRITER_DELAY_MS:
	case OPT_DEBUG_ATTACH_DELAY_MS:
	case OPT_DEBUG_PROBES_ONLY:
	case 'h':
		return usage_error(err, errlen,
				   "'%s' is a command-line option, not a configuration key; remove the line",
				   key);
	}
	if (opt->has_arg == required_argument)
		return parse_one(o, opt->val, value, err, errlen);
	/* The switches: wakeup and verbose. */
	b = parse_bool(value);
	if (b < 0)
		return usage_error(err, errlen, "%s '%s': not yes or no; use %s = yes or %s = no",
				   key, value, key, key);
	if (opt->val == OPT_WAKEUP)
		o->wakeup = b;
	else if (opt->val == 'v')
		o->verbose = b;
	return 0;
}

void frecd_options__usage(FILE *out)
{
	fprintf(out,
"Usage: frecd [OPTIONS]\n"
"       frecd --check\n"
"\n"
"frecd records what the scheduler (and chosen user functions) did over the\n"
"last seconds into memory, all the time, and writes it to a snapshot file\n"
"when asked: SIGUSR1 or `frec snapshot`. Runs in the foreground; needs root\n"
"(or CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN).\n"
"\n"
"OPTIONS\n"
"  -o, --output DIR     snapshot directory, created 0700 if missing\n"
"                       (default " FRECD_DEFAULT_DIR ")\n"
"      --window SECONDS keep at least this much history (default 10)\n"
"      --max-size SIZE  ... but with at most this much memory for events (the\n"
"                       window and the generation being recorded), K/M/G\n"
"                       suffixes (default 64M)\n"
"      --period MS      seal a generation this often (default 1000)\n"
"      --ring-size SIZE BPF ring buffers, all online CPUs together (an equal\n"
"                       share each), a power of two (default 16M)\n"
"      --ring-min SIZE  ... but at least this much for each CPU's ring, which\n"
"                       raises the total on many CPUs; a power of two\n"
"                       (default 256K)\n"
"      --max-threads N  threads (tids) frecd names at once: its table grows to\n"
"                       this as threads come (default: kernel.threads-max,\n"
"                       at most kernel.pid_max, from 65536 to 1048576)\n"
"      --max-processes N  processes whose command line it keeps (default:\n"
"                       --max-threads)\n"
"  -p, --pid PID        record only events that concern this process and its\n"
"                       threads, also those it starts later; not the processes\n"
"                       it forks (their fork is recorded), nor a process that\n"
"                       replaces it under a new pid; repeatable. A host pid,\n"
"                       also when frecd runs in a container\n"
"      --cgroup PATH    record only events that concern threads in this cgroup\n"
"                       or below it (the path /proc/PID/cgroup shows, or one\n"
"                       under the cgroup mount); with -p, the events of either;\n"
"                       repeatable, at most 16\n"
"      --cgroup-hierarchy auto|v2|none|CONTROLLER\n"
"                       whose cgroups events carry: the v2 hierarchy, a v1\n"
"                       controller's (e.g. pids), or none (default auto)\n"
"      --probe SPEC     also record a user function or USDT probe; repeatable:\n"
"                       uprobe:PATH:FUNC[+OFF], uretprobe:PATH:FUNC,\n"
"                       func:PATH:FUNC (entry and return), usdt:PATH:PROV:NAME;\n"
"                       a file in a container is /proc/PID/root/PATH\n"
"      --probe-args N   integer arguments recorded per entry (0-6, default 3)\n"
"      --trigger SPEC   take a snapshot by itself when a condition holds;\n"
"                       repeatable (at most 32), see TRIGGERS\n"
"      --on-snapshot PROGRAM  run PROGRAM (an absolute path, no shell) after\n"
"                       each snapshot, with its path as the argument and\n"
"                       FREC_REASON set; its output goes to frecd's log\n"
"      --on-snapshot-timeout DUR  kill PROGRAM after this long: seconds, or\n"
"                       a number with s or ms (default 60)\n"
"      --stacks LIST    also capture stacks, a comma list: offcpu (the kernel\n"
"                       and user stacks of a thread that blocks), probes (the\n"
"                       user stack at each --probe hit), or none (default).\n"
"                       User stacks need frame pointers in the program\n"
"      --stack-depth N  frames of each stack kind, 1-127 (default 64)\n"
"      --wakeup         also record sched_wakeup (sched_waking is always on)\n"
"      --attach MODE    auto (default): tp_btf, falling back to raw_tp;\n"
"                       tp_btf or raw_tp to force one\n"
"      --btf FILE       kernel BTF for CO-RE when /sys/kernel/btf/vmlinux is\n"
"                       missing (raw_tp only)\n"
"      --keep N         keep at most N snapshots in DIR, removing the oldest\n"
"                       after each new one; 0: no limit (default %d)\n"
"      --keep-size SIZE ... and at most SIZE bytes of them; 0: no limit\n"
"                       (default 1G). The newest snapshot is always kept,\n"
"                       and only files named like frecd's snapshots are removed\n"
"      --compress zstd|none  snapshot files: none (default), blocks as\n"
"                       recorded, written fastest; zstd,\n"
"                       a fifth to three quarters smaller, compressed by the\n"
"                       thread that writes them, several times slower\n"
"      --socket PATH    control socket for frec snapshot and frec status\n"
"                       (default " FRECD_DEFAULT_SOCKET "; its directory is\n"
"                       created 0700 if missing)\n"
"      --config FILE    read options from FILE at start and on SIGHUP\n"
"                       (default " FRECD_DEFAULT_CONFIG ", when it exists;\n"
"                       /dev/null: no file)\n"
"      --check          report which kernel features and privileges frecd\n"
"                       needs and has, one line each, and exit\n"
"      --dry-run        load and attach, list what was attached, exit\n"
"  -v, --verbose        debug output, including libbpf's\n"
"      --version        print the version and exit\n"
"  -h, --help           print this help and exit\n"
"\n"
"TESTING (command line only; frecd loses events or writes late on purpose)\n"
"      --debug-stall-ms MS  SIGUSR2 stops draining the ring buffer for MS ms\n"
"                       (a second SIGUSR2 ends the stall), so that it overflows\n"
"      --debug-writer-delay-ms MS  the snapshot writer waits MS ms before it\n"
"                       writes each file (the window is pinned, recording goes\n"
"                       on), so that requests arrive while one is written\n"
"      --debug-attach-delay-ms MS  frecd waits MS ms between validating the\n"
"                       --probe files and attaching them\n"
"      --debug-probes-only  the scheduler programs record nothing (their pid\n"
"                       filter matches no process): only --probe records use\n"
"                       the ring, so that their drops can be counted exactly\n"
"\n"
"TRIGGERS\n"
"  SPEC is a condition, then options after commas:\n"
"    runq>DUR           a thread waited longer than DUR to run after waking\n"
"    offcpu>DUR         a thread was blocked (off CPU) longer than DUR\n"
"    oncpu>DUR          a thread ran longer than DUR without leaving its CPU\n"
"                       (one still running is seen within 50 ms)\n"
"    func:PATH:FUNC>DUR a call of FUNC took longer than DUR (adds the probe)\n"
"    probe:SPEC         the --probe SPEC fired (added when not given)\n"
"    lost               events were lost\n"
"    manual:NAME        `frec trigger NAME` asked for it\n"
"  DUR: a number with us, ms or s, e.g. 50ms. Options: comm=NAME, pid=PID,\n"
"  cgroup=PATH (only that thread name, process, or cgroup and those below\n"
"  it), delay=DUR (the snapshot is taken this\n"
"  long after the firing, default 1s, less than --window), cooldown=DUR (no\n"
"  new firing for this long, default 10s), max=N/h or N/d (at most N\n"
"  snapshots per hour or day, default 6/h), name=NAME (default: the spec).\n"
"  Firings that take no snapshot are counted in the recording and in\n"
"  frec status. E.g. --trigger 'runq>20ms,comm=nginx,name=nginx-runq'\n"
"\n"
"CONFIGURATION FILE\n"
"  One `key = value` a line; the keys are the long options without dashes:\n"
"  output, window, max-size, period, ring-size, ring-min, max-threads,\n"
"  max-processes, pid, cgroup, cgroup-hierarchy, probe, probe-args,\n"
"  trigger, on-snapshot, on-snapshot-timeout, stacks, stack-depth, wakeup\n"
"  (yes/no), attach, btf, keep, keep-size, compress, socket, verbose\n"
"  (yes/no); an underscore may stand for a dash (stack_depth).\n"
"  pid, cgroup, probe and trigger may be repeated. Lines starting with #\n"
"  are comments. The file must be root's and not writable by group or\n"
"  others. Command-line options override the file; -p, --cgroup, --probe\n"
"  and --trigger add to it. SIGHUP reads the file again and applies pid,\n"
"  cgroup, probe, probe-args, trigger, on-snapshot, on-snapshot-timeout,\n"
"  stacks, stack-depth, wakeup, output, keep, keep-size, compress and\n"
"  verbose without losing the recorded window; the others need a restart.\n"
"  A file with an error is reported with its line number and the running\n"
"  configuration stays.\n"
"\n"
"CONTROL SOCKET\n"
"  Root only (checked with SO_PEERCRED; socket 0600). One request line:\n"
"  `snapshot [REASON]`, `trigger NAME`, `status` or `status json`; the\n"
"  answer ends with one line `ok [TEXT]` or `error TEXT`. `frec snapshot`,\n"
"  `frec trigger` and `frec status` use it.\n"
"\n"
"SIGNALS\n"
"  SIGUSR1   write a snapshot DIR/frec-YYYYMMDDTHHMMSS.mmmZ.frec; requests that\n"
"            arrive while one is written (signals or frec snapshot) are merged\n"
"            into one more snapshot\n"
"  SIGHUP    reload the configuration file (see above)\n"
"  SIGTERM, SIGINT   finish a snapshot in progress, detach, exit 0\n"
"  SIGUSR2   --debug-stall-ms only; otherwise ignored\n"
"  All of them are blocked from the start: during start-up SIGTERM stops frecd\n"
"  cleanly (what is attached is detached, exit 0) and SIGUSR1 is honoured\n"
"  once frecd is ready.\n"
"\n"
"SYSTEMD\n"
"  With NOTIFY_SOCKET set (Type=notify), frecd sends READY=1 once every\n"
"  program is attached, STATUS= with events/s and drops every 5 s,\n"
"  RELOADING=1 and READY=1 around a reload, and STOPPING=1.\n"
"\n"
"EXIT STATUS\n"
"  0 success, 1 runtime failure (no privileges, no BTF, load or attach\n"
"  error, control socket in use; --check: frecd cannot run here), 2 usage\n"
"  error (bad option, configuration file, probe spec or -o directory)\n"
"\n"
"EXAMPLES\n"
"  sudo frecd                          record everything, 10 s / 64M window\n"
"  sudo frec snapshot --reason spike   take a snapshot, print its path\n"
"  sudo kill -USR1 $(pidof frecd)      the same, by signal\n"
"  frec info /var/lib/frec/*.frec      read it\n"
"  sudo frecd -p $(pidof myapp) --window 30 --max-size 256M\n"
"  sudo frecd --probe func:/usr/bin/myapp:handle_request\n"
"  sudo frecd --trigger 'runq>50ms' --trigger manual:oops\n"
"  sudo frecd --check                  what works on this machine\n"
"  sudo frecd --dry-run -v             check that everything loads\n",
		FRECD_DEFAULT_KEEP);
}
