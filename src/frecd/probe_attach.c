// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Load probe.bpf.c into frecd's ring buffer and attach every probe id, all
 * or nothing. Each program is attached once per probe id (and per -p pid)
 * with the id as its cookie, so one program serves any number of probes.
 * Func and probe triggers reuse frecd's trigger maps and get, per probe id,
 * the triggers its hits concern (probe_triggers).
 *
 * A kernel without BPF cookies (before 5.15) gets, per uprobe and uretprobe
 * id, a copy of the loaded program with the id as an immediate, attached
 * through the perf event's ioctl (see clone_prog()). USDT needs none of
 * that: libbpf's usdt.bpf.h then finds its spec by the probe's address.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "../../bpf/frec.h"
#include "frecd/bpf_rings.h"
#include "frecd/bpf_triggers.h"
#include "frecd/log.h"
#include "frecd/probe_set.h"
#include "frecd/recursion.h"
#include "probe.skel.h"

/* The set attached last, for frec_probes__current(): written by the thread
 * that attaches (main's, then the loop's), cleared when it is freed
 * (probe_set__forget()); a detached set stays current until then. */
static struct frec_probes *current_set;
static __u64 current_gen;

static int has_kind(const struct frec_probes *p, __u32 kind)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->ents[i].kind == kind)
			return 1;
	return 0;
}

static bool have_cookies(void);

static void attach_error(const struct probe_entry *e, int pid, int err, char *buf, size_t len)
{
	char where[64] = "";

	if (pid >= 0)
		snprintf(where, sizeof(where), " in pid %d", pid);
	if (err == EPERM || err == EACCES)
		snprintf(buf, len,
			 "probe '%s': attaching to %s:%s%s: %s: recent kernels require CAP_SYS_ADMIN "
			 "for uprobes: run frecd as root or give it CAP_SYS_ADMIN",
			 e->name, e->path, e->func, where, strerror(err));
	else if (err == ESRCH && pid >= 0)
		snprintf(buf, len, "probe '%s': no process %d: check the -p PID", e->name, pid);
	else if (err == ENOENT)
		snprintf(buf, len, "probe '%s': %s is gone since frecd checked it: check the path",
			 e->name, e->path);
	else if (err == EOPNOTSUPP && e->kind == FREC_PROBE_USDT && pid < 0 && !have_cookies())
		/* libbpf finds a USDT's spec by its address without cookies:
		 * per process for a shared object (a library, a PIE) */
		snprintf(buf, len, "probe '%s': %s: a USDT probe in a shared object (a library or a "
			 "PIE executable) for every process needs BPF cookies (Linux 5.15): name the "
			 "process with -p PID", e->name, e->path);
	else if (err == ESTALE)
		snprintf(buf, len, "probe '%s': %s: the file frecd validated is no longer the one it holds open: restart frecd",
			 e->name, e->path);
	else
		snprintf(buf, len, "probe '%s': attaching to %s:%s%s: %s: run frecd -v for libbpf's "
			 "details", e->name, e->path, e->func, where, strerror(err));
}

/*
 * The kernel resolves a uprobe's path when the link is made, and libbpf's
 * USDT attach opens it again: both are given /proc/self/fd/N, the file
 * validated, whatever its name points to by now. The magic link must still
 * show that (dev, ino): ESTALE otherwise.
 */
static const char *attach_path(const struct probe_entry *e)
{
	struct stat st;

	if (stat(e->attach_path, &st) || st.st_dev != e->dev || st.st_ino != e->ino) {
		errno = ESTALE;
		return NULL;
	}
	return e->attach_path;
}

static struct bpf_link *attach_one(struct probe_bpf *skel, const struct probe_entry *e,
				   __u32 id, int pid)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uopts, .bpf_cookie = id);
	LIBBPF_OPTS(bpf_usdt_opts, sopts, .usdt_cookie = id);
	/* the stack twins when they were loaded (--stacks probes) */
	bool stk = skel->rodata->stack_probes;
	const char *path = attach_path(e);

	if (!path)
		return NULL;

	switch (e->kind) {
	case FREC_PROBE_UPROBE:
		return bpf_program__attach_uprobe_opts(stk ? skel->progs.frec_stk_uprobe :
						       skel->progs.frec_uprobe, pid, path,
						       e->file_off, &uopts);
	case FREC_PROBE_URETPROBE:
		uopts.retprobe = true;
		return bpf_program__attach_uprobe_opts(stk ? skel->progs.frec_stk_uretprobe :
						       skel->progs.frec_uretprobe, pid, path,
						       e->file_off, &uopts);
	case FREC_PROBE_USDT:
		return bpf_program__attach_usdt(stk ? skel->progs.frec_stk_usdt : skel->progs.frec_usdt,
						pid, path, e->provider, e->usdt_name, &sopts);
	}
	errno = EINVAL;
	return NULL;
}

/*
 * BPF cookies came with Linux 5.15: bpf_get_attach_cookie() (commit
 * 7adfc6c9b315, "bpf: Add bpf_get_attach_cookie() BPF helper to access
 * bpf_cookie value") and the perf link that carries the cookie (82e6b1eee6a8,
 * "bpf: Allow to specify user-provided bpf_cookie for BPF perf links").
 * The helper's presence says both.
 */
static bool have_cookies(void)
{
	return libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_get_attach_cookie, NULL) == 1;
}

/*
 * Without cookies one program cannot tell its probes apart: the uprobe's
 * address is per process (ASLR) and a uretprobe sees only the return
 * address. So each id gets a copy of the program as libbpf loaded it (map
 * fds in place) whose FREC_PROBE_ID_IMM (probe.bpf.c's probe_id()) is the
 * id. A program fd, or -1 with errno.
 */
static int clone_prog(const struct bpf_program *prog, __u32 id)
{
	const struct bpf_insn *insns = bpf_program__insns(prog);
	size_t i, n = bpf_program__insn_cnt(prog), patched = 0;
	struct bpf_insn *copy;
	int fd, err;

	if (!insns || !n) {
		errno = ENOEXEC;
		return -1;
	}
	copy = malloc(n * sizeof(*copy));
	if (!copy)
		return -1;
	memcpy(copy, insns, n * sizeof(*copy));
	for (i = 0; i < n; i++) {
		if (copy[i].code == (BPF_LD | BPF_IMM | BPF_DW)) {
			i++;	/* a 64-bit load's second half is no instruction */
			continue;
		}
		if (copy[i].code == (BPF_ALU64 | BPF_MOV | BPF_K) && copy[i].imm == FREC_PROBE_ID_IMM) {
			copy[i].imm = (__s32)id;
			patched++;
		}
	}
	if (!patched) {
		free(copy);
		errno = ENOEXEC;	/* the object is not the one probe.bpf.c builds */
		return -1;
	}
	fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, bpf_program__name(prog), "Dual BSD/GPL", copy, n,
			   NULL);
	err = errno;
	free(copy);
	errno = err;
	return fd;
}

/* A number from the uprobe PMU's sysfs files: its type, or from
 * format/retprobe ("config:0") the bit that asks for a return probe. */
static int uprobe_pmu_read(const char *file, const char *prefix)
{
	char path[128], buf[64];
	size_t len = strlen(prefix);
	FILE *f;
	int v = -1;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/uprobe/%s", file);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f) && !strncmp(buf, prefix, len))
		v = atoi(buf + len);
	fclose(f);
	return v;
}

/* Attach prog_fd at e for pid (-1: every process) through a uprobe perf
 * event: the perf event fd, which holds the program, or -1 with errno. */
static int attach_perf(const struct probe_entry *e, int prog_fd, int pid)
{
	struct perf_event_attr attr = { .size = sizeof(attr) };
	int type = uprobe_pmu_read("type", ""), bit = 0, pfd, err;
	const char *path = attach_path(e);

	if (!path)
		return -1;
	if (e->kind == FREC_PROBE_URETPROBE)
		bit = uprobe_pmu_read("format/retprobe", "config:");
	if (type < 0 || bit < 0 || bit > 63) {
		errno = EOPNOTSUPP;	/* no uprobe PMU (before 4.17) */
		return -1;
	}
	attr.type = (__u32)type;
	attr.config = e->kind == FREC_PROBE_URETPROBE ? 1ull << bit : 0;
	attr.config1 = (__u64)(unsigned long)path;	/* uprobe_path */
	attr.config2 = e->file_off;			/* probe_offset */
	/* For every process: cpu 0 names the event, the probe fires on all. */
	pfd = syscall(__NR_perf_event_open, &attr, pid, pid < 0 ? 0 : -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0)
		return -1;
	if (ioctl(pfd, PERF_EVENT_IOC_SET_BPF, prog_fd) || ioctl(pfd, PERF_EVENT_IOC_ENABLE, 0)) {
		err = errno;
		close(pfd);
		errno = err;
		return -1;
	}
	return pfd;
}

static struct bpf_program *entry_prog(struct probe_bpf *skel, const struct probe_entry *e)
{
	bool stk = skel->rodata->stack_probes;

	if (e->kind == FREC_PROBE_URETPROBE)
		return stk ? skel->progs.frec_stk_uretprobe : skel->progs.frec_uretprobe;
	return stk ? skel->progs.frec_stk_uprobe : skel->progs.frec_uprobe;
}

#define PROBE_TRIG_KINDS ((1u << FREC_TRIG_FUNC) | (1u << FREC_TRIG_PROBE))

/*
 * From the triggers table, which triggers each probe id concerns: a probe
 * trigger its probe's hits; a func trigger its entry's (which keeps the
 * call's start) and its return's, the id after the entry (probes.c pushes
 * func's two ids together). pt has FREC_MAX_PROBES entries. -EINVAL with
 * the cause in err for a trigger on an id that is not in p.
 */
static int probe_trig_table(const struct frec_probes *p, const struct frec_probes_attach_opts *o,
			    struct frec_probe_trig *pt, char *err, size_t errlen)
{
	__u32 i;

	memset(pt, 0, FREC_MAX_PROBES * sizeof(*pt));
	for (i = 0; i < o->ntriggers; i++) {
		const struct frec_trigger_bpf *t = &o->triggers[i];
		__u32 id = t->probe_id;

		if (t->kind != FREC_TRIG_FUNC && t->kind != FREC_TRIG_PROBE)
			continue;
		if (!id || id > p->n || (t->kind == FREC_TRIG_FUNC &&
					 (id >= p->n || p->ents[id - 1].kind != FREC_PROBE_UPROBE ||
					  p->ents[id].kind != FREC_PROBE_URETPROBE))) {
			snprintf(err, errlen, "trigger %u: probe id %u is not %s", i + 1, id,
				 t->kind == FREC_TRIG_FUNC ? "a func: probe's entry" : "a probe");
			return -EINVAL;
		}
		if (t->kind == FREC_TRIG_PROBE) {
			pt[id].mask |= 1u << i;
			continue;
		}
		pt[id].func_entry = 1;
		pt[id + 1].mask |= 1u << i;
		pt[id + 1].entry_id = id;
	}
	return 0;
}

static int fill_probe_triggers(struct probe_bpf *skel, const struct frec_probe_trig *pt,
			       char *err, size_t errlen)
{
	int fd = bpf_map__fd(skel->maps.probe_triggers);
	__u32 id;

	for (id = 0; id < FREC_MAX_PROBES; id++) {
		if (!pt[id].mask && !pt[id].func_entry)
			continue;
		if (bpf_map_update_elem(fd, &id, &pt[id], BPF_ANY)) {
			snprintf(err, errlen, "writing the probes' triggers: %s", strerror(errno));
			return -errno;
		}
	}
	return 0;
}

/* The recursion misses of the loaded programs (recursion.h): counted from
 * load, until they are detached. */
static void track_programs(struct probe_bpf *skel, bool track)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, skel->obj) {
		if (!bpf_program__autoload(prog))
			continue;
		if (track)
			frecd_recursion__track(bpf_program__fd(prog));
		else
			frecd_recursion__untrack(bpf_program__fd(prog));
	}
}

/* With --cgroup a probe traps in every process: for a library that is
 * every process that maps it, which costs each of them. Said once per
 * library probe. */
static void warn_library(const struct probe_entry *e)
{
	const char *base = strrchr(e->path, '/');

	base = base ? base + 1 : e->path;
	if (strstr(base, ".so"))
		log_warn("every process that maps %s traps at probe '%s'; only the cgroup's hits are recorded",
			 base, e->name);
}

/* What is attached later is this file, whatever its name points to then. */
static void log_validated(const struct frec_probes *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		const struct probe_entry *e = &p->ents[i];

		log_info("probe %zu: validated %s (dev %u:%u, inode %llu, build-id %s)", i + 1,
			 e->path, major(e->dev), minor(e->dev), (unsigned long long)e->ino,
			 e->build_id[0] ? e->build_id : "none");
	}
}

/* --debug-attach-delay-ms: a window between validating and attaching, for tests. */
static void attach_delay(__u32 ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 };

	if (!ms)
		return;
	log_warn("--debug-attach-delay-ms: waiting %u ms before attaching the probes (a test option)",
		 ms);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * The filters in BPF rather than per-pid attaches: with --cgroup, or -p
 * from a pid namespace of frecd's own (pids_in_bpf). The probes then
 * attach for every process (*npids 0) and keep the hits that frecd's
 * "pid_filter" and "cgroup_filter" maps keep. 0 or -errno with err.
 */
static int filter_in_bpf(struct probe_bpf *skel, const struct frec_probes_attach_opts *o,
			 size_t *npids, char *err, size_t errlen)
{
	/* With --cgroup the pid map is shared even without -p: a reload that
	 * adds -p fills it in place and keeps the probes attached, so they
	 * must already look at it (an empty map keeps nothing). */
	bool pids = (*npids && o->pids_in_bpf) || o->filter_cgroups;
	int ret = 0;

	if (!pids && !o->filter_cgroups)
		return 0;
	if (pids)
		ret = bpf_map__reuse_fd(skel->maps.pid_filter, o->pid_filter_fd);
	if (!ret && o->filter_cgroups)
		ret = bpf_map__reuse_fd(skel->maps.cgroup_filter, o->cgroup_filter_fd);
	if (ret) {
		snprintf(err, errlen, "sharing frecd's filters with the probes: %s", strerror(-ret));
		return ret;
	}
	skel->rodata->filter_pids = pids;
	skel->rodata->filter_cgroups = o->filter_cgroups;
	*npids = 0;
	return 0;
}

int frec_probes__attach(struct frec_probes *p, const struct frec_probes_attach_opts *opts,
			char *err, size_t errlen)
{
	struct frec_probes_attach_opts o = { .rings_fd = -1, .counters_fd = -1, .triggers_fd = -1,
					     .trigger_state_fd = -1, .pid_filter_fd = -1 };
	struct frec_probe_trig *pt = NULL;
	struct probe_bpf *skel = NULL;
	size_t i, j, npids, nlinks = 0;
	__u32 kinds;
	struct bpf_link **links = NULL;
	int *pfds = NULL;
	bool loaded = false;
	int ret = 0;

	if (opts)
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	if (p->skel) {
		snprintf(err, errlen, "probes are already attached");
		return -EBUSY;
	}
	if (!p->n)
		return 0;
	if (o.nargs > FREC_MAX_PROBE_ARGS) {
		snprintf(err, errlen, "--probe-args %u: at most %d arguments: use 0 to %d", o.nargs,
			 FREC_MAX_PROBE_ARGS, FREC_MAX_PROBE_ARGS);
		return -EINVAL;
	}
	npids = o.npids && o.pids ? o.npids : 0;
	kinds = frecd_bpf_triggers__kinds(o.triggers, o.ntriggers) & PROBE_TRIG_KINDS;
	if (kinds && (o.triggers_fd < 0 || o.trigger_state_fd < 0)) {
		snprintf(err, errlen, "probe triggers need frecd's trigger maps");
		return -EINVAL;
	}
	if (kinds) {
		pt = calloc(FREC_MAX_PROBES, sizeof(*pt));
		if (!pt) {
			snprintf(err, errlen, "attaching probes: out of memory");
			return -ENOMEM;
		}
		ret = probe_trig_table(p, &o, pt, err, errlen);
		if (ret)
			goto err_out;
	}

	skel = probe_bpf__open();
	if (!skel) {
		ret = -errno;
		snprintf(err, errlen, "opening the probe BPF object: %s", strerror(errno));
		goto err_out;
	}
	skel->rodata->nargs = o.nargs;
	skel->rodata->self_pid = o.self_pid;
	skel->rodata->wakeup_threshold = frecd_bpf_rings__wakeup_threshold(o.ring_bytes);
	skel->rodata->stack_probes = o.stack_probes;
	skel->rodata->no_cookies = !have_cookies();
	skel->rodata->stack_depth = o.stack_depth && o.stack_depth <= FREC_MAX_STACK_DEPTH ?
				    o.stack_depth : FREC_DEFAULT_STACK_DEPTH;
	/* Load only what is used: fewer programs to verify, and a kernel
	 * without USDT support still takes plain uprobes. */
	bpf_program__set_autoload(skel->progs.frec_uprobe,
				  !o.stack_probes && has_kind(p, FREC_PROBE_UPROBE));
	bpf_program__set_autoload(skel->progs.frec_uretprobe,
				  !o.stack_probes && has_kind(p, FREC_PROBE_URETPROBE));
	bpf_program__set_autoload(skel->progs.frec_usdt,
				  !o.stack_probes && has_kind(p, FREC_PROBE_USDT));
	bpf_program__set_autoload(skel->progs.frec_stk_uprobe,
				  o.stack_probes && has_kind(p, FREC_PROBE_UPROBE));
	bpf_program__set_autoload(skel->progs.frec_stk_uretprobe,
				  o.stack_probes && has_kind(p, FREC_PROBE_URETPROBE));
	bpf_program__set_autoload(skel->progs.frec_stk_usdt,
				  o.stack_probes && has_kind(p, FREC_PROBE_USDT));
	/* The same rings as the scheduler's: frecd's maps replace ours before load. */
	if (o.rings_fd >= 0 && (ret = bpf_map__reuse_fd(skel->maps.rings, o.rings_fd))) {
		snprintf(err, errlen, "sharing frecd's ring buffers with the probes: %s", strerror(-ret));
		goto err_out;
	}
	if (o.counters_fd >= 0 && (ret = bpf_map__reuse_fd(skel->maps.counters, o.counters_fd))) {
		snprintf(err, errlen, "sharing frecd's counters with the probes: %s", strerror(-ret));
		goto err_out;
	}
	if ((ret = filter_in_bpf(skel, &o, &npids, err, errlen)))
		goto err_out;
	skel->rodata->trig_kinds = kinds;
	skel->rodata->trig_cgroups = kinds && frecd_bpf_triggers__cgroups(o.triggers, o.ntriggers);
	skel->rodata->cgroup_mode = o.cgroup_mode;
	skel->rodata->cgroup_v1_ssid = o.cgroup_v1_ssid;
	if (kinds) {
		/* frecd's table and state: the scheduler's and the probes'
		 * firings share one cooldown per trigger */
		if ((ret = bpf_map__reuse_fd(skel->maps.triggers, o.triggers_fd)) ||
		    (ret = bpf_map__reuse_fd(skel->maps.trigger_state, o.trigger_state_fd))) {
			snprintf(err, errlen, "sharing frecd's triggers with the probes: %s",
				 strerror(-ret));
			goto err_out;
		}
		if ((kinds & (1u << FREC_TRIG_FUNC)) &&
		    (ret = bpf_map__set_max_entries(skel->maps.trig_calls, FREC_TRIG_CALLS))) {
			snprintf(err, errlen, "sizing the func triggers' map: %s", strerror(-ret));
			goto err_out;
		}
	}
	ret = probe_bpf__load(skel);
	if (ret) {
		if (ret == -EPERM || ret == -EACCES)
			snprintf(err, errlen, "loading the probe BPF programs: %s: run frecd as root "
				 "(it needs CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN)", strerror(-ret));
		else
			snprintf(err, errlen, "loading the probe BPF programs: %s: run frecd -v for "
				 "the verifier's log", strerror(-ret));
		goto err_out;
	}
	track_programs(skel, true);
	loaded = true;
	if (pt && (ret = fill_probe_triggers(skel, pt, err, errlen)))
		goto err_out;

	links = calloc(p->n * (npids ? npids : 1), sizeof(*links));
	pfds = malloc(p->n * (npids ? npids : 1) * sizeof(*pfds));
	if (!links || !pfds) {
		ret = -ENOMEM;
		snprintf(err, errlen, "attaching probes: out of memory");
		goto err_out;
	}
	log_validated(p);
	attach_delay(o.attach_delay_ms);
	for (i = 0; i < p->n; i++) {
		const struct probe_entry *e = &p->ents[i];
		int prog_fd = -1;

		if (o.filter_cgroups)
			warn_library(e);
		if (skel->rodata->no_cookies && e->kind != FREC_PROBE_USDT) {
			prog_fd = clone_prog(entry_prog(skel, e), (__u32)(i + 1));
			if (prog_fd < 0) {
				ret = -errno;
				snprintf(err, errlen, "probe '%s': loading its program (this kernel has no "
					 "BPF cookies, Linux 5.15): %s: run frecd -v for the verifier's log",
					 e->name, strerror(errno));
				goto err_out;
			}
		}
		for (j = 0; j < (npids ? npids : 1); j++) {
			int pid = npids ? (int)o.pids[j] : -1;
			struct bpf_link *l = NULL;
			int pfd = -1;

			if (prog_fd >= 0)
				pfd = attach_perf(e, prog_fd, pid);
			else
				l = attach_one(skel, e, (__u32)(i + 1), pid);
			if (!l && pfd < 0) {
				ret = -errno;
				attach_error(e, pid, errno, err, errlen);
				if (prog_fd >= 0)
					close(prog_fd);
				goto err_out;
			}
			pfds[nlinks] = pfd;
			links[nlinks++] = l;
		}
		/* each perf event holds the program now */
		if (prog_fd >= 0)
			close(prog_fd);
	}

	p->skel = skel;
	p->links = links;
	p->pfds = pfds;
	p->nlinks = nlinks;
	p->nargs = o.nargs;
	probe_set__sync_table(p);
	free(pt);
	__atomic_store_n(&current_set, p, __ATOMIC_RELAXED);
	current_gen++;
	return 0;

err_out:
	/* Nothing stays attached half-way. */
	while (nlinks) {
		bpf_link__destroy(links[--nlinks]);
		if (pfds[nlinks] >= 0)
			close(pfds[nlinks]);
	}
	free(links);
	free(pfds);
	free(pt);
	if (loaded)
		track_programs(skel, false);
	probe_bpf__destroy(skel);
	return ret ? ret : -EINVAL;
}

void frec_probes__unlink(struct frec_probes *p)
{
	if (!p)
		return;
	while (p->nlinks) {
		bpf_link__destroy(p->links[--p->nlinks]);
		if (p->pfds[p->nlinks] >= 0)
			close(p->pfds[p->nlinks]);
	}
	free(p->links);
	free(p->pfds);
	p->links = NULL;
	p->pfds = NULL;
}

/* The set stays current (its hits' stacks still named through it while
 * its records drain) until another is attached or it is freed. The
 * recursion counts are the loop's: untracked here, never on the thread
 * that unlinked. */
void frec_probes__detach(struct frec_probes *p)
{
	if (!p || !p->skel)
		return;
	frec_probes__unlink(p);
	track_programs(p->skel, false);
	probe_bpf__destroy(p->skel);
	p->skel = NULL;
}

void probe_set__forget(struct frec_probes *p)
{
	struct frec_probes *cur = p;

	__atomic_compare_exchange_n(&current_set, &cur, NULL, false, __ATOMIC_RELAXED,
				    __ATOMIC_RELAXED);
}

const struct frec_probes *frec_probes__current(__u64 *gen)
{
	*gen = current_gen;
	return __atomic_load_n(&current_set, __ATOMIC_RELAXED);
}

int frec_probes__site(const struct frec_probes *p, __u32 id, const char **path,
		      const char **build_id, __u64 *file_off)
{
	const struct probe_entry *e;

	if (!p || !id || id > p->n)
		return -ENOENT;
	e = &p->ents[id - 1];
	if (e->kind != FREC_PROBE_UPROBE)
		return -ENOENT;
	*path = e->path;
	*build_id = e->build_id;
	*file_off = e->file_off;
	return 0;
}
