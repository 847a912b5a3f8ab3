// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <linux/bpf.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "frecd/bpf_triggers.h"
#include "frecd/caps.h"
#include "frecd/cgroupfs.h"
#include "frecd/check.h"
#include "frecd/check_prog.h"
#include "frecd/hostview.h"
#include "frecd/ksyms.h"
#include "frecd/loader.h"
#include "frecd/log.h"
#include "frecd/probe_path.h"
#include "frecd/recursion.h"

#define UPROBE_COOKIE	0x5eedull
#define TRACEFS		"/sys/kernel/tracing"
#define DEBUGFS_TRACING	"/sys/kernel/debug/tracing"
#define UPROBE_PMU_TYPE	"/sys/bus/event_source/devices/uprobe/type"

struct check {
	FILE *out;
	char why[512];		/* the parenthesis of the current item */
};

static void report(struct check *c, bool ok, const char *item)
{
	fprintf(c->out, "%-7s  %-13s  (%s)\n", ok ? "ok" : "missing", item, c->why);
	c->why[0] = '\0';
}

__attribute__((format(printf, 2, 3)))
static void why(struct check *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->why, sizeof(c->why), fmt, ap);
	va_end(ap);
}

/* --- the items -------------------------------------------------------- */

static void check_kernel(struct check *c)
{
	struct utsname u;

	if (uname(&u)) {
		why(c, "uname: %s", strerror(errno));
		report(c, false, "kernel");
		return;
	}
	why(c, "%s %s", u.release, u.machine);
	report(c, true, "kernel");
}

static bool check_caps(struct check *c)
{
	static const struct {
		int cap;
		const char *name, *use;
	} caps[] = {
		{ CAP_BPF, "CAP_BPF", "BPF programs and maps" },
		{ CAP_PERFMON, "CAP_PERFMON", "tracing programs and reading kernel memory" },
		{ CAP_SYS_ADMIN, "CAP_SYS_ADMIN", "uprobes and USDT probes (and all of BPF before 5.8)" },
	};
	__u64 eff = frecd_caps__effective();
	size_t i;
	bool has;

	for (i = 0; i < 3; i++) {
		has = eff & (1ull << caps[i].cap);
		if (has)
			why(c, "effective; needed for %s", caps[i].use);
		else
			why(c, "not in the effective set (CapEff %016llx), needed for %s; run frecd as root or grant it (AmbientCapabilities= in the unit)",
			    (unsigned long long)eff, caps[i].use);
		report(c, has, caps[i].name);
	}
	return frecd_caps__enough(eff);
}

static struct btf *check_btf(struct check *c, const char *btf_path)
{
	struct btf *btf;

	if (btf_path) {
		btf = btf__parse(btf_path, NULL);
		if (!btf)
			why(c, "--btf %s: %s; give the BTF of the running kernel", btf_path, strerror(errno));
		else
			why(c, "--btf %s, %u types", btf_path, btf__type_cnt(btf));
		report(c, btf != NULL, "btf");
		return btf;
	}
	if (access(FRECD_KERNEL_BTF, R_OK)) {
		why(c, "%s: %s; run a kernel built with CONFIG_DEBUG_INFO_BTF=y, or give frecd --btf FILE (raw_tp only)",
		    FRECD_KERNEL_BTF, strerror(errno));
		report(c, false, "btf");
		return NULL;
	}
	btf = btf__load_vmlinux_btf();
	if (!btf)
		why(c, "%s does not parse: %s; the kernel's BTF is damaged or newer than libbpf %s",
		    FRECD_KERNEL_BTF, strerror(errno), libbpf_version_string());
	else
		why(c, "%s, %u types", FRECD_KERNEL_BTF, btf__type_cnt(btf));
	report(c, btf != NULL, "btf");
	return btf;
}

static bool check_ringbuf(struct check *c)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "frec_check", 0, 0, 64 * 1024, NULL);

	if (fd < 0) {
		why(c, "creating a BPF ring buffer: %s", frecd_test_prog__refusal(errno, "Linux 5.8 (BPF_MAP_TYPE_RINGBUF)"));
		report(c, false, "ringbuf");
		return false;
	}
	close(fd);
	why(c, "a 64K BPF ring buffer map was created");
	report(c, true, "ringbuf");
	return true;
}

/* Attach, switch out, count; fills why. */
static bool fired(struct check *c, struct frecd_test_prog *t, int link_fd, const char *what)
{
	__u64 n;

	if (link_fd < 0) {
		why(c, "%s loaded but did not attach: %s", what, frecd_test_prog__refusal(errno, "a newer kernel"));
		return false;
	}
	frecd_test_prog__switch_out();
	n = frecd_test_prog__count(t);
	close(link_fd);
	if (!n) {
		why(c, "%s attached but never ran while this thread slept", what);
		return false;
	}
	why(c, "%s loaded, attached and ran %llu times", what, (unsigned long long)n);
	return true;
}

static bool check_tp_btf(struct check *c, const struct btf *btf)
{
	struct frecd_test_prog t;
	bool ok = false;
	int id;

	if (!btf) {
		why(c, "needs kernel BTF (see btf); frecd falls back to raw_tp with --btf FILE");
		report(c, false, "tp_btf");
		return false;
	}
	id = btf__find_by_name_kind(btf, "btf_trace_sched_switch", BTF_KIND_TYPEDEF);
	if (id <= 0) {
		why(c, "no btf_trace_sched_switch in the BTF; frecd falls back to raw_tp");
		report(c, false, "tp_btf");
		return false;
	}
	if (frecd_test_prog__load(&t, BPF_PROG_TYPE_TRACING, BPF_TRACE_RAW_TP, id, false))
		why(c, "loading a tp_btf program on sched_switch: %s; frecd falls back to raw_tp",
		    frecd_test_prog__refusal(errno, "Linux 5.5 (BTF-typed tracepoints)"));
	else
		ok = fired(c, &t, bpf_raw_tracepoint_open(NULL, t.prog_fd), "a tp_btf program on sched_switch");
	frecd_test_prog__close(&t);
	report(c, ok, "tp_btf");
	return ok;
}

static bool check_raw_tp(struct check *c)
{
	struct frecd_test_prog t;
	bool ok = false;

	if (frecd_test_prog__load(&t, BPF_PROG_TYPE_RAW_TRACEPOINT, 0, 0, false))
		why(c, "loading a raw_tp program: %s", frecd_test_prog__refusal(errno, "Linux 4.17 (raw tracepoints)"));
	else
		ok = fired(c, &t, bpf_raw_tracepoint_open("sched_switch", t.prog_fd),
			   "a raw_tp program on sched_switch");
	frecd_test_prog__close(&t);
	report(c, ok, "raw_tp");
	return ok;
}

static const char *check_tracefs(struct check *c)
{
	static const char *const dirs[] = { TRACEFS, DEBUGFS_TRACING };
	char path[128];
	size_t i;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/events", dirs[i]);
		if (!access(path, R_OK)) {
			why(c, "mounted at %s", dirs[i]);
			report(c, true, "tracefs");
			return dirs[i];
		}
		if (errno == EACCES || errno == EPERM) {
			why(c, "%s: %s; run frecd --check as root", path, strerror(errno));
			report(c, false, "tracefs");
			return NULL;
		}
	}
	why(c, "not mounted at %s; only classic tracepoints need it, frecd does not: mount -t tracefs nodev %s",
	    TRACEFS, TRACEFS);
	report(c, false, "tracefs");
	return NULL;
}

static bool check_tracepoint(struct check *c, const char *tracefs)
{
	struct perf_event_attr attr = { .size = sizeof(attr), .type = PERF_TYPE_TRACEPOINT,
					.sample_period = 1, .wakeup_events = 1 };
	char path[160], buf[32];
	struct frecd_test_prog t;
	bool ok = false, cookie;
	FILE *f;
	int pfd, fd;

	if (!tracefs) {
		why(c, "needs tracefs for the tracepoint's id (see tracefs); frecd uses tp_btf or raw_tp instead");
		report(c, false, "tracepoint");
		return false;
	}
	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/id", tracefs);
	f = fopen(path, "re");
	if (!f || !fgets(buf, sizeof(buf), f)) {
		why(c, "%s: %s; the kernel has no sched tracepoints (CONFIG_TRACEPOINTS?)", path,
		    strerror(errno));
		if (f)
			fclose(f);
		report(c, false, "tracepoint");
		return false;
	}
	fclose(f);
	attr.config = strtoull(buf, NULL, 10);
	if (frecd_test_prog__load(&t, BPF_PROG_TYPE_TRACEPOINT, 0, 0, false)) {
		why(c, "loading a tracepoint program: %s", frecd_test_prog__refusal(errno, "Linux 4.7"));
	} else {
		pfd = frecd_test_prog__perf_open(&attr, 0, -1);
		if (pfd < 0) {
			why(c, "perf_event_open on sched/sched_switch: %s",
			    frecd_test_prog__refusal(errno, "CONFIG_PERF_EVENTS"));
		} else {
			fd = frecd_test_prog__attach_perf(pfd, t.prog_fd, 0, &cookie);
			if (fd < 0)
				close(pfd);
			ok = fired(c, &t, fd, "a tracepoint program on sched/sched_switch");
		}
	}
	frecd_test_prog__close(&t);
	report(c, ok, "tracepoint");
	return ok;
}

__attribute__((noinline, used))
void frecd_check__target(void)
{
	/* Something the compiler cannot drop or merge. */
	__asm__ __volatile__("" ::: "memory");
}

/* Where a function of ours lies in its file: from /proc/self/maps, so that
 * it works on a stripped frecd too. 0 or -errno. */
static int code_offset(const void *fn, char *path, size_t pathlen, __u64 *offset)
{
	unsigned long long start, end, off;
	uintptr_t addr = (uintptr_t)fn;
	char line[512], perms[8], file[400];
	int ret = -ENOENT;
	FILE *f;

	f = fopen("/proc/self/maps", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		file[0] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %399s", &start, &end, perms, &off, file) < 4)
			continue;
		if (addr < start || addr >= end || file[0] != '/')
			continue;
		snprintf(path, pathlen, "%s", file);
		*offset = addr - start + off;
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

static bool check_uprobe(struct check *c, bool *cookies)
{
	struct perf_event_attr attr = { .size = sizeof(attr), .sample_period = 1, .wakeup_events = 1 };
	char path[400], buf[32];
	struct frecd_test_prog t = { .map_fd = -1, .prog_fd = -1 };
	__u64 offset = 0, n;
	bool ok = false, with_cookie = false;
	FILE *f;
	int pfd, fd;

	*cookies = false;
	f = fopen(UPROBE_PMU_TYPE, "re");
	if (!f || !fgets(buf, sizeof(buf), f)) {
		why(c, "%s: %s; build the kernel with CONFIG_UPROBE_EVENTS=y", UPROBE_PMU_TYPE,
		    strerror(errno));
		if (f)
			fclose(f);
		goto out;
	}
	fclose(f);
	attr.type = strtoul(buf, NULL, 10);
	if (code_offset((const void *)frecd_check__target, path, sizeof(path), &offset)) {
		why(c, "cannot find frecd's own code in /proc/self/maps");
		goto out;
	}
	attr.config1 = (__u64)(uintptr_t)path;
	attr.config2 = offset;
	/* The program reads its BPF cookie, as frecd's probes do (5.15). */
	if (frecd_test_prog__load(&t, BPF_PROG_TYPE_KPROBE, 0, 0, true)) {
		frecd_test_prog__close(&t);
		if (frecd_test_prog__load(&t, BPF_PROG_TYPE_KPROBE, 0, 0, false)) {
			why(c, "loading a uprobe program: %s", frecd_test_prog__refusal(errno, "Linux 4.17"));
			goto out;
		}
	}
	pfd = frecd_test_prog__perf_open(&attr, 0, -1);
	if (pfd < 0) {
		if (errno == EPERM || errno == EACCES)
			why(c, "perf_event_open on %s+0x%llx: %s; recent kernels require CAP_SYS_ADMIN for uprobes: run frecd as root or give it CAP_SYS_ADMIN",
			    path, (unsigned long long)offset, strerror(errno));
		else
			why(c, "perf_event_open on %s+0x%llx: %s", path, (unsigned long long)offset,
			    strerror(errno));
		goto out;
	}
	fd = frecd_test_prog__attach_perf(pfd, t.prog_fd, UPROBE_COOKIE, &with_cookie);
	if (fd < 0) {
		why(c, "a uprobe loaded but did not attach: %s", strerror(errno));
		close(pfd);
		goto out;
	}
	frecd_check__target();
	n = frecd_test_prog__count(&t);
	close(fd);
	if (with_cookie && n == UPROBE_COOKIE) {
		*cookies = true;
		ok = true;
		why(c, "a uprobe on frecd's own frecd_check__target fired once, with its BPF cookie");
	} else if (!with_cookie && n == 1) {
		ok = true;
		why(c, "a uprobe on frecd's own frecd_check__target fired once; no BPF cookies (Linux 5.15): "
		       "frecd loads a copy of a probe's program for each --probe");
	} else {
		why(c, "a uprobe on frecd's own frecd_check__target counted %llu, expected %s",
		    (unsigned long long)n, with_cookie ? "the cookie 0x5eed" : "1 hit");
	}
out:
	frecd_test_prog__close(&t);
	report(c, ok, "uprobe");
	return ok;
}

static bool check_usdt(struct check *c, bool uprobe, bool cookies)
{
	bool ok = uprobe;

	if (ok && cookies)
		why(c, "uprobes with BPF cookies work; frecd reads .note.stapsdt itself, no semaphores needed");
	else if (ok)
		why(c, "uprobes work, without BPF cookies (Linux 5.15): libbpf finds each USDT by its address, "
		       "so one in a library or a PIE executable needs -p PID");
	else
		why(c, "USDT probes are uprobes (see uprobe)");
	report(c, ok, "usdt");
	return ok;
}

/* frecd's own scheduler programs, as the options configure them. */
static bool check_programs(struct check *c, const struct frecd_options *o, bool have_btf,
			   const struct frecd_hostview *hv, bool *raw_tp)
{
	struct frecd_bpf_opts bopts = {
		.sz = sizeof(bopts),
		.ring_bytes = o->ring_bytes,
		.ring_min_bytes = o->ring_min_bytes,
		.self_tgid = hv->host_tgid,
		.wakeup = o->wakeup,
		.attach = o->attach,
		.btf_path = o->btf_path,
		.stack_offcpu = o->stacks & FRECD_STACKS_OFFCPU,
		.stack_depth = o->stack_depth,
	};
	char err[512];
	struct frecd_bpf *b;

	if (!have_btf) {
		why(c, "CO-RE needs BTF (see btf)");
		report(c, false, "programs");
		return false;
	}
	if (frecd_bpf__preflight(&bopts, err, sizeof(err))) {
		why(c, "%s", err);
		report(c, false, "programs");
		return false;
	}
	b = frecd_bpf__start(&bopts, err, sizeof(err));
	if (!b) {
		why(c, "%s", err);
		report(c, false, "programs");
		return false;
	}
	*raw_tp = frecd_bpf__raw_tp(b);
	why(c, "frecd's %zu scheduler programs loaded and attached with %s",
	    frecd_bpf__nattached(b), *raw_tp ? "raw_tp" : "tp_btf");
	frecd_bpf__destroy(b);
	report(c, true, "programs");
	return true;
}

/*
 * Where runq and offcpu triggers keep per-thread times with the programs
 * frecd loads here (programs_raw_tp: the set the programs check loaded).
 * Both work: said either way, with why.
 */
static void check_triggers(struct check *c, bool progs, bool programs_raw_tp)
{
	if (!progs) {
		why(c, "triggers are evaluated by the scheduler programs (see programs)");
		report(c, false, "triggers");
		return;
	}
	frecd_bpf_triggers__task_storage(programs_raw_tp, c->why, sizeof(c->why));
	report(c, true, "triggers");
}

/*
 * Does the kernel say how often it skipped a program: recursion_misses in
 * bpf_prog_info (5.12), read as frecd reads it, on a raw_tp test program.
 * Not needed to run: without it, skipped runs are not counted.
 */
static bool check_recursion(struct check *c)
{
	struct frecd_test_prog t;
	__u64 misses;
	bool ok = false;
	__u32 id;
	int ret;

	if (frecd_test_prog__load(&t, BPF_PROG_TYPE_RAW_TRACEPOINT, 0, 0, false)) {
		why(c, "loading a raw_tp program to read its bpf_prog_info: %s",
		    frecd_test_prog__refusal(errno, "Linux 4.17 (raw tracepoints)"));
	} else if ((ret = frecd_recursion__read(t.prog_fd, &id, &misses)) == -EOPNOTSUPP) {
		why(c, "this kernel's bpf_prog_info ends before recursion_misses (Linux 5.12): runs it skips because a program re-entered on its CPU are not counted");
	} else if (ret) {
		why(c, "reading a program's bpf_prog_info: %s", strerror(-ret));
	} else {
		ok = true;
		why(c, "bpf_prog_info has recursion_misses: runs the kernel skips because a program re-entered on its CPU (raw_tp and tp_btf from Linux 6.1) are counted as lost");
	}
	frecd_test_prog__close(&t);
	report(c, ok, "recursion");
	return ok;
}

/*
 * Can the kernel frames of --stacks be named: /proc/kallsyms shows
 * addresses only to a reader with CAP_SYSLOG (and kptr_restrict below 2).
 * Not needed to run: without it kernel frames stay unnamed.
 */
static bool check_kallsyms(struct check *c)
{
	struct frecd_ksyms *ks = frecd_ksyms__load(FRECD_KALLSYMS, NULL);
	bool ok = frecd_ksyms__readable(ks);

	if (!ks)
		why(c, "kernel frames cannot be named: %s: %s", FRECD_KALLSYMS, strerror(errno));
	else if (!ok)
		why(c, "kernel frames cannot be named: %s shows no addresses without CAP_SYSLOG; run as root or add CAP_SYSLOG",
		    FRECD_KALLSYMS);
	else
		why(c, "%zu kernel functions with their addresses: the kernel frames of --stacks are named",
		    frecd_ksyms__count(ks));
	frecd_ksyms__free(ks);
	report(c, ok, "kallsyms");
	return ok;
}

/*
 * Which hierarchy's cgroups events would carry (--cgroup-hierarchy, auto
 * by default), and how their ids are named: by handle needs
 * CAP_DAC_READ_SEARCH, else the hierarchy is walked. Not needed to run.
 */
static void check_cgroups(struct check *c, const struct frecd_options *o)
{
	const char *want = o->cgroup_hierarchy ? o->cgroup_hierarchy : "auto";
	struct frecd_cgroupfs fs;
	char line[PATH_MAX + 64], err[512];
	bool ok;

	if (frecd_cgroupfs__open(&fs, want, NULL, err, sizeof(err))) {
		why(c, "--cgroup-hierarchy %s: %s", want, err);
		report(c, false, "cgroups");
		why(c, "no cgroup hierarchy is recorded");
		report(c, false, "cgroup_names");
		return;
	}
	frecd_cgroupfs__describe(&fs, line, sizeof(line));
	why(c, "%s", line);
	report(c, fs.mode != FREC_CGROUP_NONE, "cgroups");
	ok = fs.mount_fd >= 0 && fs.by_handle;
	if (ok)
		why(c, "by handle");
	else if (fs.mount_fd >= 0)
		why(c, "by walking (no CAP_DAC_READ_SEARCH, or no file handles here)");
	else if (fs.mode != FREC_CGROUP_NONE)
		why(c, "by id only: no cgroup filesystem in view");
	else
		why(c, "no cgroup hierarchy is recorded");
	report(c, ok, "cgroup_names");
	frecd_cgroupfs__close(&fs);
}

/* frecd seen from the host: informative, frecd runs in any namespaces. */
static void check_namespaces(struct check *c, struct frecd_hostview *hv)
{
	char err[512];

	if (frecd_hostview__probe(hv, err, sizeof(err))) {
		memset(hv, 0, sizeof(*hv));
		hv->host_tgid = hv->host_tid = getpid();
		hv->pidns_host = hv->proc_host = hv->cgroupns_host = true;
		hv->v1_ssid = -1;
		why(c, "not known: %s", err);
		report(c, false, "namespaces");
		return;
	}
	frecd_hostview__describe(hv, c->why, sizeof(c->why));
	report(c, true, "namespaces");
}

/* /proc/PID/root/... probe paths resolve in the process's root (probe_path.h). */
static bool check_openat2(struct check *c)
{
	int ret = probe_path__in_root_works();

	if (!ret)
		why(c, "container probes: openat2 RESOLVE_IN_ROOT: yes");
	else if (ret == -ENOSYS)
		why(c, "container probes: openat2 RESOLVE_IN_ROOT: no (Linux 5.6): probes on /proc/PID/root/... paths fail");
	else
		why(c, "container probes: openat2 RESOLVE_IN_ROOT: no (%s)", strerror(-ret));
	report(c, !ret, "containers");
	return !ret;
}

int frecd_check__run(const struct frecd_options *o, FILE *out)
{
	enum frecd_log_level level = frecd_log__level();
	struct check c = { .out = out };
	struct frecd_hostview hv;
	bool caps, ring, tp_btf, raw_tp, uprobe, cookies, usdt, progs, progs_raw_tp, can;
	const char *tracefs, *first = NULL;
	struct btf *btf;

	/* The programs' own "attached" lines would drown the report. */
	if (!o->verbose)
		frecd_log__set_level(FRECD_LOG_WARN);
	check_kernel(&c);
	caps = check_caps(&c);
	btf = check_btf(&c, o->btf_path);
	ring = check_ringbuf(&c);
	tp_btf = check_tp_btf(&c, btf);
	raw_tp = check_raw_tp(&c);
	tracefs = check_tracefs(&c);
	check_tracepoint(&c, tracefs);
	uprobe = check_uprobe(&c, &cookies);
	usdt = check_usdt(&c, uprobe, cookies);
	progs_raw_tp = o->attach == FRECD_ATTACH_RAW_TP;
	check_namespaces(&c, &hv);
	progs = check_programs(&c, o, btf != NULL, &hv, &progs_raw_tp);
	check_triggers(&c, progs, progs_raw_tp);
	check_recursion(&c);
	check_kallsyms(&c);
	check_cgroups(&c, o);
	check_openat2(&c);
	frecd_log__set_level(level);

	if (!caps)
		first = "privileges (CAP_BPF and CAP_PERFMON, or root)";
	else if (!btf)
		first = o->btf_path ? "BTF (--btf)" : "kernel BTF";
	else if (!ring)
		first = "the BPF ring buffer";
	else if (o->attach == FRECD_ATTACH_TP_BTF && !tp_btf)
		first = "tp_btf (forced by --attach tp_btf)";
	else if (o->attach == FRECD_ATTACH_RAW_TP && !raw_tp)
		first = "raw_tp (forced by --attach raw_tp)";
	else if (!tp_btf && !raw_tp)
		first = "tp_btf and raw_tp";
	else if (!progs)
		first = "frecd's scheduler programs";
	else if (o->nprobes && !(uprobe && usdt))
		first = "uprobes (for the configured --probe)";
	btf__free(btf);
	can = !first;
	if (can)
		fprintf(out, "frecd can run here%s\n", o->nprobes ? ", with its probes" : "");
	else
		fprintf(out, "frecd cannot run here: %s missing\n", first);
	return can ? 0 : 1;
}
