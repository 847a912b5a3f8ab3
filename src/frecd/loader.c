// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "frec.skel.h"
#include "../../bpf/frec.h"
#include "frecd/bpf_filter.h"
#include "frecd/bpf_rings.h"
#include "frecd/bpf_triggers.h"
#include "frecd/caps.h"
#include "frecd/clock.h"
#include "frecd/kversion.h"
#include "frecd/loader.h"
#include "frecd/log.h"
#include "frecd/recursion.h"

#define MAX_LINKS	32
/* sched_switch's stack twins (bpf/frec.bpf.c) */
#define STK_PREFIX	FREC_PROG_PREFIX "stk_"

struct frecd_bpf {
	struct frec_bpf *skel;
	bool raw_tp;
	bool has_state;			/* sched_switch passes prev_state */
	struct frecd_bpf_opts opts;	/* as started; pids and btf_path not kept */
	char *btf_path;
	/* The maps, as fds of our own: the same maps outlive a reload of the
	 * programs (frecd_bpf__set_filter()), so these never change. */
	int rings_fd, counters_fd, filter_fd, cgroup_filter_fd;
	struct frecd_bpf_rings *rings;	/* one per possible CPU, in rings_fd */
	struct frecd_bpf_filter *filter;	/* what filter_fd holds */
	struct frecd_bpf_triggers *trig;	/* the triggers' maps; opts.triggers is its table */
	size_t nlinks;
	struct bpf_link *links[MAX_LINKS];
	const struct bpf_program *progs[MAX_LINKS];
	__u64 swap_first, swap_last;	/* the last swap's hole, CLOCK_BOOTTIME */
	__u32 kskip;			/* stack_kskip, for every set */
};

int frecd_bpf__preflight(const struct frecd_bpf_opts *opts, char *err, size_t errlen)
{
	if (!frecd_caps__enough(frecd_caps__effective()))
		return frecd_caps__error(err, errlen);
	if (opts->btf_path)
		return 0;	/* checked with the options */
	if (access(FRECD_KERNEL_BTF, R_OK)) {
		snprintf(err, errlen,
			 "this kernel has no BTF (%s is missing): run a kernel built with CONFIG_DEBUG_INFO_BTF=y, or pass --btf FILE with its BTF",
			 FRECD_KERNEL_BTF);
		return -ENOENT;
	}
	return 0;
}

/*
 * Does the sched_switch tracepoint pass prev_state as its 4th argument (5.18,
 * "sched/tracing: Don't re-read p->state when emitting sched_switch event")?
 * The tracepoint's prototype is in BTF as the typedef btf_trace_sched_switch:
 * a pointer to a function of (void *, bool, prev, next[, prev_state]).
 */
static bool switch_has_state_arg(const char *btf_path)
{
	const struct btf_type *t;
	struct btf *btf;
	bool has = false;
	int id;

	btf = btf_path ? btf__parse(btf_path, NULL) : btf__load_vmlinux_btf();
	if (!btf)
		return false;	/* then read task_struct's state: right everywhere */
	id = btf__find_by_name_kind(btf, "btf_trace_sched_switch", BTF_KIND_TYPEDEF);
	if (id > 0) {
		t = btf__type_by_id(btf, id);
		t = btf__type_by_id(btf, t->type);		/* the pointer */
		if (t && btf_is_ptr(t))
			t = btf__type_by_id(btf, t->type);	/* the prototype */
		if (t && btf_is_func_proto(t))
			has = btf_vlen(t) >= 5;
	}
	btf__free(btf);
	return has;
}

static bool is_raw_tp(const struct bpf_program *prog)
{
	return !strncmp(bpf_program__section_name(prog), "raw_tp/", 7);
}

static const char *tracepoint_of(const struct bpf_program *prog)
{
	return strchr(bpf_program__section_name(prog), '/') + 1;
}

static void detach_all(struct frecd_bpf *b)
{
	while (b->nlinks) {
		bpf_link__destroy(b->links[--b->nlinks]);
		/* detached, still loaded: its last misses are read now */
		frecd_recursion__untrack(bpf_program__fd(b->progs[b->nlinks]));
	}
}

static void destroy_skel(struct frecd_bpf *b)
{
	detach_all(b);
	frec_bpf__destroy(b->skel);
	b->skel = NULL;
}

/*
 * Open and load one set of programs into *skelp. With reuse, the maps are
 * reuse's (a reload of the programs: the ring, the counters and the filter
 * stay, with what they hold); otherwise new ones.
 */
static int load_skel(const struct frecd_bpf *b, struct frec_bpf **skelp,
		     const struct frecd_bpf_opts *opts, bool raw_tp, bool has_state,
		     const struct frecd_bpf *reuse, char *err, size_t errlen)
{
	LIBBPF_OPTS(bpf_object_open_opts, open_opts, .btf_custom_path = opts->btf_path);
	struct bpf_program *prog;
	struct frec_bpf *skel;
	const int *ring_fds;
	__u64 ring_bytes;
	size_t nrings;
	__u32 kinds;
	int ret;

	ring_fds = frecd_bpf_rings__fds(b->rings, &nrings, &ring_bytes);
	*skelp = skel = frec_bpf__open_opts(&open_opts);
	if (!skel) {
		ret = -errno;
		snprintf(err, errlen, "cannot open the BPF object: %s", strerror(-ret));
		return ret;
	}
	kinds = frecd_bpf_triggers__kinds(opts->triggers, opts->ntriggers);
	bpf_object__for_each_program(prog, skel->obj) {
		bool wanted = is_raw_tp(prog) == raw_tp;
		const char *name = bpf_program__name(prog);
		bool stk = !strncmp(name, STK_PREFIX, strlen(STK_PREFIX));
		char plain[64];

		if (!strcmp(tracepoint_of(prog), "sched_wakeup"))
			wanted = wanted && opts->wakeup;
		/* a stack twin (--stacks offcpu), or the program without */
		if (stk) {
			snprintf(plain, sizeof(plain), FREC_PROG_PREFIX "%s", name + strlen(STK_PREFIX));
			name = plain;
		}
		if (!strcmp(tracepoint_of(prog), "sched_switch"))
			wanted = wanted && stk == opts->stack_offcpu;
		/* a trigger twin, or the plain program: one of each pair */
		wanted = wanted && frecd_bpf_triggers__wanted(name, tracepoint_of(prog), kinds);
		bpf_program__set_autoload(prog, wanted);
	}
	if (reuse) {
		if ((ret = bpf_map__reuse_fd(skel->maps.rings, reuse->rings_fd)) ||
		    (ret = bpf_map__reuse_fd(skel->maps.counters, reuse->counters_fd)) ||
		    (ret = bpf_map__reuse_fd(skel->maps.pid_filter, reuse->filter_fd)) ||
		    (ret = bpf_map__reuse_fd(skel->maps.cgroup_filter, reuse->cgroup_filter_fd))) {
			snprintf(err, errlen, "cannot share the maps with the new programs: %s",
				 strerror(-ret));
			return ret;
		}
	} else if ((ret = bpf_map__set_max_entries(skel->maps.rings,
							  frecd_bpf_rings__slots(b->rings))) ||
		   /* A ring of ours as the template of the array's values:
		    * libbpf 1.1 crashes sizing the inner map it would make
		    * (bpf_map__set_max_entries() on bpf_map__inner_map()),
		    * and does not take ownership of this fd. */
		   (ret = bpf_map__set_inner_map_fd(skel->maps.rings, ring_fds[0]))) {
		snprintf(err, errlen, "cannot size the ring buffers: %s", strerror(-ret));
		return ret;
	}
	skel->rodata->wakeup_threshold = frecd_bpf_rings__wakeup_threshold(ring_bytes);
	skel->rodata->self_tgid = opts->self_tgid;
	skel->rodata->filter_pids = opts->npids > 0;
	skel->rodata->filter_cgroups = opts->ncgroups > 0;
	skel->rodata->cgroup_mode = opts->cgroup_mode;
	skel->rodata->cgroup_v1_ssid = opts->cgroup_v1_ssid;
	skel->rodata->switch_has_state_arg = has_state;
	skel->rodata->kernel_version = frecd_kversion__get();
	skel->rodata->stack_offcpu = opts->stack_offcpu;
	skel->rodata->stack_depth = opts->stack_depth ? opts->stack_depth : FREC_DEFAULT_STACK_DEPTH;
	skel->bss->stack_kskip = b->kskip;
	ret = frecd_bpf_triggers__prepare(b->trig, skel, opts->triggers, opts->ntriggers, raw_tp,
					  err, errlen);
	if (ret)
		return ret;

	ret = frec_bpf__load(skel);
	if (ret) {
		if (ret == -EPERM)
			return frecd_caps__error(err, errlen);
		snprintf(err, errlen, "the %s programs did not load: %s%s",
			 raw_tp ? "raw_tp" : "tp_btf", strerror(-ret),
			 frecd_log__level() < FRECD_LOG_DEBUG ? " (run with -v for libbpf's log)" : "");
		return ret;
	}
	/* Before attach: the table the programs read (the shared map, also
	 * the old set's while swapping: see set_triggers()) and this set's
	 * masks. */
	return frecd_bpf_triggers__fill(b->trig, skel, opts->triggers, opts->ntriggers, err, errlen);
}

/* Attach every program skel loaded, into b's links. */
static int attach_all(struct frecd_bpf *b, struct frec_bpf *skel, char *err, size_t errlen)
{
	struct bpf_program *prog;
	int ret;

	bpf_object__for_each_program(prog, skel->obj) {
		struct bpf_link *link;

		if (!bpf_program__autoload(prog))
			continue;
		if (b->nlinks == MAX_LINKS) {
			snprintf(err, errlen, "too many programs (internal limit %d)", MAX_LINKS);
			return -E2BIG;
		}
		/* from its count before it can first run (best effort) */
		frecd_recursion__track(bpf_program__fd(prog));
		link = bpf_program__attach(prog);
		if (!link) {
			ret = -errno;
			frecd_recursion__untrack(bpf_program__fd(prog));
			snprintf(err, errlen, "cannot attach %s to %s: %s",
				 bpf_program__name(prog), bpf_program__section_name(prog),
				 strerror(-ret));
			return ret;
		}
		b->progs[b->nlinks] = prog;
		b->links[b->nlinks++] = link;
		log_info("attached %s (%s)", bpf_program__section_name(prog),
			 bpf_program__name(prog));
	}
	return 0;
}

/* One attempt with one set of programs: open, load, fill the filter, attach. */
static int try_start(struct frecd_bpf *b, const struct frecd_bpf_opts *opts, bool raw_tp,
		     bool has_state, char *err, size_t errlen)
{
	int ret;

	b->raw_tp = raw_tp;
	ret = load_skel(b, &b->skel, opts, raw_tp, has_state, NULL, err, errlen);
	if (ret)
		return ret;
	ret = frecd_bpf_rings__fill(b->rings, bpf_map__fd(b->skel->maps.rings), err, errlen);
	if (ret)
		return ret;
	frecd_bpf_filter__reset(b->filter);	/* this set's map is new */
	ret = frecd_bpf_filter__set(b->filter, bpf_map__fd(b->skel->maps.pid_filter), opts->pids,
				    opts->npids, err, errlen);
	if (ret)
		return ret;
	ret = frecd_bpf_filter__set_cgroups(b->filter, bpf_map__fd(b->skel->maps.cgroup_filter),
					    opts->cgroups, opts->ncgroups, err, errlen);
	if (ret)
		return ret;
	return attach_all(b, b->skel, err, errlen);
}

struct frecd_bpf *frecd_bpf__start(const struct frecd_bpf_opts *opts, char *err, size_t errlen)
{
	bool has_state = switch_has_state_arg(opts->btf_path);
	struct frecd_bpf *b;
	int ret;

	ret = frecd_bpf_filter__check(opts->npids, err, errlen);
	if (!ret)
		ret = frecd_bpf_filter__check_cgroups(opts->ncgroups, err, errlen);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->rings_fd = b->counters_fd = b->filter_fd = b->cgroup_filter_fd = -1;
	b->has_state = has_state;
	b->opts = *opts;
	if (!b->opts.stack_depth)
		b->opts.stack_depth = FREC_DEFAULT_STACK_DEPTH;
	b->opts.pids = NULL;
	b->opts.npids = 0;
	b->opts.cgroups = NULL;	/* b->filter keeps them */
	b->opts.ncgroups = 0;
	b->opts.btf_path = NULL;
	b->opts.triggers = NULL;	/* the caller's: b->trig keeps a copy */
	b->opts.ntriggers = 0;
	if (opts->btf_path && !(b->btf_path = strdup(opts->btf_path))) {
		free(b);
		return NULL;
	}
	b->filter = frecd_bpf_filter__new();
	b->trig = frecd_bpf_triggers__new();
	if (!b->filter || !b->trig) {
		frecd_bpf__destroy(b);
		errno = ENOMEM;
		return NULL;
	}
	log_debug("sched_switch %s prev_state as an argument", has_state ? "passes" : "does not pass");
	log_debug("kernel version %u.%u.%u", frecd_kversion__get() >> 16,
		  frecd_kversion__get() >> 8 & 0xff, frecd_kversion__get() & 0xff);
	b->rings = frecd_bpf_rings__new(opts->ring_bytes, opts->ring_min_bytes, err, errlen);
	if (!b->rings) {
		ret = -errno;
		goto done;
	}
	/* Even without kernel BTF (--btf), auto tries tp_btf first: the attempt
	 * is cheap, and the fallback path is then the one every kernel takes. */
	if (opts->attach == FRECD_ATTACH_RAW_TP) {
		ret = try_start(b, opts, true, has_state, err, errlen);
		goto done;
	}
	ret = try_start(b, opts, false, has_state, err, errlen);
	if (!ret || ret == -EPERM || opts->attach == FRECD_ATTACH_TP_BTF)
		goto done;
	log_info("%s; falling back to raw_tp", err);
	destroy_skel(b);
	frecd_log__forget_libbpf();
	ret = try_start(b, opts, true, has_state, err, errlen);
done:
	if (ret) {
		if (ret != -EPERM)
			frecd_log__replay_libbpf();
		frecd_bpf__destroy(b);
		errno = -ret;
		return NULL;
	}
	frecd_log__forget_libbpf();
	b->opts.btf_path = b->btf_path;
	if (frecd_bpf_triggers__kinds(opts->triggers, opts->ntriggers) & FRECD_TRIG_THREAD_KINDS)
		log_info("triggers: per-thread times in %s",
			 frecd_bpf_triggers__uses_task_storage(b->skel) ? "task storage" : "an LRU hash");
	b->rings_fd = fcntl(bpf_map__fd(b->skel->maps.rings), F_DUPFD_CLOEXEC, 3);
	b->counters_fd = fcntl(bpf_map__fd(b->skel->maps.counters), F_DUPFD_CLOEXEC, 3);
	b->filter_fd = fcntl(bpf_map__fd(b->skel->maps.pid_filter), F_DUPFD_CLOEXEC, 3);
	b->cgroup_filter_fd = fcntl(bpf_map__fd(b->skel->maps.cgroup_filter), F_DUPFD_CLOEXEC, 3);
	if (b->rings_fd < 0 || b->counters_fd < 0 || b->filter_fd < 0 || b->cgroup_filter_fd < 0) {
		ret = errno;
		snprintf(err, errlen, "cannot keep the maps' descriptors: %s", strerror(ret));
		frecd_bpf__destroy(b);
		errno = ret;
		return NULL;
	}
	return b;
}

void frecd_bpf__destroy(struct frecd_bpf *b)
{
	if (!b)
		return;
	destroy_skel(b);
	if (b->rings_fd >= 0)
		close(b->rings_fd);
	frecd_bpf_rings__free(b->rings);
	if (b->counters_fd >= 0)
		close(b->counters_fd);
	if (b->filter_fd >= 0)
		close(b->filter_fd);
	if (b->cgroup_filter_fd >= 0)
		close(b->cgroup_filter_fd);
	frecd_bpf_filter__free(b->filter);
	frecd_bpf_triggers__free(b->trig);
	free(b->btf_path);
	free(b);
}

int frecd_bpf__rings_fd(const struct frecd_bpf *b)
{
	return b->rings_fd;
}

const int *frecd_bpf__rings(const struct frecd_bpf *b, size_t *n, __u64 *bytes)
{
	return frecd_bpf_rings__fds(b->rings, n, bytes);
}

struct frecd_bpf_rings *frecd_bpf__ring_set(const struct frecd_bpf *b)
{
	return b->rings;
}

int frecd_bpf__counters_fd(const struct frecd_bpf *b)
{
	return b->counters_fd;
}

int frecd_bpf__pid_filter_fd(const struct frecd_bpf *b)
{
	return b->filter_fd;
}

int frecd_bpf__cgroup_filter_fd(const struct frecd_bpf *b)
{
	return b->cgroup_filter_fd;
}

void frecd_bpf__cgroup_mode(const struct frecd_bpf *b, __u32 *mode, __u32 *v1_ssid)
{
	*mode = b->opts.cgroup_mode;
	*v1_ssid = b->opts.cgroup_v1_ssid;
}

/*
 * Swap the attached set for skel, loaded on the same maps: between the old
 * set's detach and the new set's attach no event is recorded (attaching
 * both at once would record some twice); the hole is kept for last_swap().
 * On failure the old set is attached again, after undo(b, arg) has put
 * back what the caller changed for the new one. Takes skel either way.
 */
static int swap_in(struct frecd_bpf *b, struct frec_bpf *skel,
		   void (*undo)(struct frecd_bpf *b, void *arg), void *arg, char *err, size_t errlen)
{
	char ignored[256];
	int ret;

	b->swap_first = frecd_clock__boot_ns();
	detach_all(b);
	ret = attach_all(b, skel, err, errlen);
	if (ret) {
		/* Back to the old set, as it was. */
		detach_all(b);
		undo(b, arg);
		if (attach_all(b, b->skel, ignored, sizeof(ignored)))
			log_error("cannot attach the previous scheduler programs again: %s; restart frecd",
				  ignored);
		b->swap_last = frecd_clock__boot_ns();
		frecd_log__replay_libbpf();
		frec_bpf__destroy(skel);
		return ret;
	}
	b->swap_last = frecd_clock__boot_ns();
	frec_bpf__destroy(b->skel);
	b->skel = skel;
	frecd_log__forget_libbpf();
	return 0;
}

struct old_filter {
	__u32 pids[FREC_MAX_PID_FILTER];
	size_t n;
	struct frec_cgroup_filter cgroups[FREC_MAX_CGROUP_FILTER];
	size_t ncgroups;
};

static void undo_filter(struct frecd_bpf *b, void *arg)
{
	struct old_filter *old = arg;
	char ignored[256];

	frecd_bpf_filter__set(b->filter, b->filter_fd, old->pids, old->n, ignored,
			      sizeof(ignored));
	frecd_bpf_filter__set_cgroups(b->filter, b->cgroup_filter_fd, old->cgroups, old->ncgroups,
				      ignored, sizeof(ignored));
}

/* Both maps in place: the pids, then the cgroups. */
static int set_maps(struct frecd_bpf *b, const __u32 *pids, size_t npids,
		    const struct frec_cgroup_filter *cgroups, size_t ncgroups, char *err,
		    size_t errlen)
{
	int ret = frecd_bpf_filter__set(b->filter, b->filter_fd, pids, npids, err, errlen);

	if (ret)
		return ret;
	return frecd_bpf_filter__set_cgroups(b->filter, b->cgroup_filter_fd, cgroups, ncgroups,
					     err, errlen);
}

int frecd_bpf__set_filter(struct frecd_bpf *b, const __u32 *pids, size_t npids,
			  const struct frec_cgroup_filter *cgroups, size_t ncgroups, bool wakeup,
			  char *err, size_t errlen)
{
	struct frecd_bpf_opts opts = b->opts;
	const struct frec_cgroup_filter *curc;
	struct frec_bpf *skel = NULL;
	struct old_filter *old;
	size_t old_npids, old_ncgroups;
	const __u32 *cur;
	int ret;

	b->swap_first = b->swap_last = 0;
	ret = frecd_bpf_filter__check(npids, err, errlen);
	if (!ret)
		ret = frecd_bpf_filter__check_cgroups(ncgroups, err, errlen);
	if (ret)
		return ret;
	frecd_bpf_filter__pids(b->filter, &old_npids);
	frecd_bpf_filter__cgroups(b->filter, &old_ncgroups);
	/* Same programs: only the maps change, in place. */
	if ((npids > 0) == (old_npids > 0) && (ncgroups > 0) == (old_ncgroups > 0) &&
	    wakeup == b->opts.wakeup)
		return set_maps(b, pids, npids, cgroups, ncgroups, err, errlen);

	/*
	 * Whether to filter at all, and sched_wakeup, are fixed when the
	 * programs load (read-only data, so the verifier drops what is not
	 * used): load a new set on the same maps, then swap the links.
	 */
	old = malloc(sizeof(*old));
	if (!old) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	opts.pids = pids;
	opts.npids = npids;
	opts.cgroups = cgroups;
	opts.ncgroups = ncgroups;
	opts.wakeup = wakeup;
	opts.triggers = frecd_bpf_triggers__table(b->trig, &opts.ntriggers);
	ret = load_skel(b, &skel, &opts, b->raw_tp, b->has_state, b, err, errlen);
	if (ret)
		goto fail;
	cur = frecd_bpf_filter__pids(b->filter, &old->n);
	memcpy(old->pids, cur, old->n * sizeof(*old->pids));
	curc = frecd_bpf_filter__cgroups(b->filter, &old->ncgroups);
	memcpy(old->cgroups, curc, old->ncgroups * sizeof(*old->cgroups));
	ret = set_maps(b, pids, npids, cgroups, ncgroups, err, errlen);
	if (ret)
		goto fail;
	ret = swap_in(b, skel, undo_filter, old, err, errlen);
	if (!ret)
		b->opts.wakeup = wakeup;
	free(old);
	return ret;
fail:
	frecd_log__replay_libbpf();
	frec_bpf__destroy(skel);
	free(old);
	return ret;
}

void frecd_bpf__set_kskip(struct frecd_bpf *b, __u32 skip)
{
	b->kskip = skip;
	/* a plain store into the mapped data: the next capture takes it */
	if (b->skel && b->skel->bss)
		b->skel->bss->stack_kskip = skip;
}

static void undo_nothing(struct frecd_bpf *b, void *arg)
{
}

int frecd_bpf__set_stacks(struct frecd_bpf *b, bool offcpu, __u32 depth, char *err,
			  size_t errlen)
{
	struct frecd_bpf_opts opts = b->opts;
	struct frec_bpf *skel = NULL;
	int ret;

	b->swap_first = b->swap_last = 0;
	if (!depth)
		depth = FREC_DEFAULT_STACK_DEPTH;
	if (depth > FREC_MAX_STACK_DEPTH) {
		snprintf(err, errlen, "--stack-depth %u: at most %d", depth, FREC_MAX_STACK_DEPTH);
		return -EINVAL;
	}
	/* The depth only matters to programs that capture. */
	if (offcpu == b->opts.stack_offcpu && (!offcpu || depth == b->opts.stack_depth))
		return 0;
	/* Both knobs are read-only data: a new set, swapped in. */
	opts.stack_offcpu = offcpu;
	opts.stack_depth = depth;
	opts.pids = frecd_bpf_filter__pids(b->filter, &opts.npids);
	opts.cgroups = frecd_bpf_filter__cgroups(b->filter, &opts.ncgroups);
	opts.triggers = frecd_bpf_triggers__table(b->trig, &opts.ntriggers);
	ret = load_skel(b, &skel, &opts, b->raw_tp, b->has_state, b, err, errlen);
	if (ret) {
		frecd_log__replay_libbpf();
		frec_bpf__destroy(skel);
		return ret;
	}
	ret = swap_in(b, skel, undo_nothing, NULL, err, errlen);
	if (!ret) {
		b->opts.stack_offcpu = offcpu;
		b->opts.stack_depth = depth;
	}
	return ret;
}

struct old_table {
	struct frec_trigger_bpf t[FREC_MAX_TRIGGERS];
	__u32 n;
	struct frec_bpf *skel;		/* the set they go back to */
};

static void undo_triggers(struct frecd_bpf *b, void *arg)
{
	struct old_table *old = arg;
	char ignored[256];

	frecd_bpf_triggers__fill(b->trig, old->skel, old->t, old->n, ignored, sizeof(ignored));
}

int frecd_bpf__set_triggers(struct frecd_bpf *b, const struct frec_trigger_bpf *t, __u32 n,
			    char *err, size_t errlen)
{
	__u32 kinds = frecd_bpf_triggers__kinds(t, n) & FRECD_TRIG_SCHED_KINDS;
	struct frecd_bpf_opts opts = b->opts;
	const struct frec_trigger_bpf *cur;
	struct frec_bpf *skel = NULL;
	struct old_table *old;
	int ret;

	b->swap_first = b->swap_last = 0;
	if (n > FREC_MAX_TRIGGERS) {
		snprintf(err, errlen, "%u triggers: at most %d", n, FREC_MAX_TRIGGERS);
		return -E2BIG;
	}
	cur = frecd_bpf_triggers__table(b->trig, &opts.ntriggers);
	/* The same kinds: the same programs, a new table in place. */
	if (kinds == (frecd_bpf_triggers__kinds(cur, opts.ntriggers) & FRECD_TRIG_SCHED_KINDS) &&
	    frecd_bpf_triggers__cgroups(t, n) == frecd_bpf_triggers__cgroups(cur, opts.ntriggers))
		return frecd_bpf_triggers__fill(b->trig, b->skel, t, n, err, errlen);

	/* Which kinds are evaluated is fixed at load (trig_kinds, and which
	 * programs), and whether cgroup= is checked (trig_cgroups): a new set, swapped in as set_filter() does. Its fill
	 * writes the shared table, which the old set reads until the swap:
	 * entries of a kind it does not evaluate are not its concern, and
	 * its masks only name ids of its own kinds. */
	old = malloc(sizeof(*old));
	if (!old) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (cur)
		memcpy(old->t, cur, opts.ntriggers * sizeof(*cur));
	old->n = opts.ntriggers;
	old->skel = b->skel;
	/* b->opts keeps no pids: the filter map has them, and a set loaded
	 * without them would not filter at all */
	opts.pids = frecd_bpf_filter__pids(b->filter, &opts.npids);
	opts.cgroups = frecd_bpf_filter__cgroups(b->filter, &opts.ncgroups);
	opts.triggers = t;
	opts.ntriggers = n;
	ret = load_skel(b, &skel, &opts, b->raw_tp, b->has_state, b, err, errlen);
	if (ret) {
		undo_triggers(b, old);
		frecd_log__replay_libbpf();
		frec_bpf__destroy(skel);
		goto out;
	}
	ret = swap_in(b, skel, undo_triggers, old, err, errlen);
out:
	free(old);
	return ret;
}

int frecd_bpf__take_trigger_state(struct frecd_bpf *b, struct frec_trigger_state *st, __u32 n)
{
	return frecd_bpf_triggers__take_state(b->trig, st, n);
}

int frecd_bpf__reset_trigger(struct frecd_bpf *b, __u32 id)
{
	return frecd_bpf_triggers__reset(b->trig, id);
}

int frecd_bpf__read_oncpu(struct frecd_bpf *b, struct frec_oncpu *out, size_t *n)
{
	return frecd_bpf_triggers__read_oncpu(b->trig, b->skel, out, n);
}

int frecd_bpf__triggers_fd(const struct frecd_bpf *b)
{
	return frecd_bpf_triggers__triggers_fd(b->trig);
}

int frecd_bpf__trigger_state_fd(const struct frecd_bpf *b)
{
	return frecd_bpf_triggers__state_fd(b->trig);
}

void frecd_bpf__last_swap(const struct frecd_bpf *b, __u64 *first_ts, __u64 *last_ts)
{
	*first_ts = b->swap_first;
	*last_ts = b->swap_last;
}

bool frecd_bpf__raw_tp(const struct frecd_bpf *b)
{
	return b->raw_tp;
}

size_t frecd_bpf__nattached(const struct frecd_bpf *b)
{
	return b->nlinks;
}

void frecd_bpf__print(const struct frecd_bpf *b, FILE *out)
{
	size_t i;

	for (i = 0; i < b->nlinks; i++)
		fprintf(out, "sched: %s (%s)\n", bpf_program__section_name(b->progs[i]),
			bpf_program__name(b->progs[i]));
}
