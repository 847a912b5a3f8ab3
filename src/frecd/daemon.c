// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <bpf/libbpf.h>
#include <frec/recorder.h>
#include "frecd/bpf_rings.h"
#include "frecd/cgroup_state.h"
#include "frecd/clock.h"
#include "frecd/daemon.h"
#include "frecd/drops.h"
#include "frecd/hostview.h"
#include "frecd/log.h"
#include "frecd/loader.h"
#include "frecd/losslog.h"
#include "frecd/on_snapshot.h"
#include "frecd/options.h"
#include "frecd/probes.h"
#include "frecd/procinfo.h"
#include "frecd/recursion.h"
#include "frecd/ring.h"
#include "frecd/service.h"
#include "frecd/snapshots.h"
#include "frecd/stall.h"
#include "frecd/status.h"
#include "frecd/symbolizer.h"
#include "frecd/trigger_setup.h"
#include "frecd/triggers.h"

enum { TAG_TIMER = 1, TAG_RING, TAG_SIGNAL, TAG_WRITER, TAG_PROC };
/* How often the online CPUs are read again, and how often each of the
 * warnings that --max-size cuts the window or --max-threads is too small
 * may repeat. */
#define ONLINE_CHECK_NS		1000000000ull
#define WARN_REPEAT_NS		600000000000ull
/* The on-snapshot program's pipes: clear of the service's tags (service.h). */
#define TAG_ON_SNAPSHOT	0x300

struct frecd_daemon {
	const struct frecd_daemon_opts *opts;
	struct frec_recorder *rec;
	struct frecd_rings *rings;
	struct frecd_drops *drops;
	struct frecd_snapshots *snaps;
	struct frecd_procinfo *procinfo;	/* reads /proc, which may block */
	struct frecd_triggers *trig;		/* --trigger's policy, NULL: none */
	struct frecd_on_snapshot *on_snapshot;
	bool has_oncpu;				/* an oncpu trigger: read "oncpu" each drain */
	struct frec_trigger_state trig_state[FREC_MAX_TRIGGERS];
	struct frec_oncpu *oncpu;		/* per CPU, for frecd_bpf__read_oncpu() */
	size_t noncpu;
	struct frecd_trigger_stats trig_stats[FREC_MAX_TRIGGERS]; /* for status */
	int epfd, tfd, sfd;
	int ring_epfd;			/* the rings' own epoll, in epfd as one fd */
	struct frecd_bpf_rings *ring_set;	/* NULL without BPF */
	__u64 online_checked;		/* CLOCK_MONOTONIC of the last read */
	__u64 window_warned;		/* CLOCK_MONOTONIC of the last warning, 0: none */
	__u64 tasks_warned;		/* the same for the full task table */
	__u64 untracked_warned;		/* threads_untracked when it was said */
	bool stopping;
	__u64 probe_hits[FREC_MAX_PROBES];	/* records per probe id, for status */
	__u64 malformed;		/* records the recorder refused */
	struct frecd_losslog drop_log, discard_log;	/* CLOCK_BOOTTIME */
	struct frecd_stall stall;	/* --debug-stall-ms */
	__u64 read_to;			/* the cut of the last drain that read the rings */
	/* Waits between drains, CLOCK_MONOTONIC: a ring overflows when one
	 * is longer than the ring takes to fill, so the drop message and
	 * frec status say how long the loop left the rings alone. */
	__u64 last_drain_ns;
	__u64 gap_max_ns;		/* since start */
	__u64 slow_gaps;		/* longer than FRECD_SLOW_GAP_MS */
	bool kskip_done;		/* the stacks' tracing frames were counted */
	__u64 kskip_ts;			/* when the programs were told to skip them */
	/* --stacks probes: the last uprobe hit read, for the stack after it,
	 * and the probe set whose files the symbolizer was told of */
	__u64 hit_ts;
	__u32 hit_tid, hit_id;
	__u64 probes_gen;
	/* a stack record less its tracing frames (see strip_kskip) */
	__u64 stack_buf[(sizeof(struct frec_rec_stack) + 16 * FREC_MAX_STACK_DEPTH) / 8 + 1];
};

void frecd_daemon__signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGUSR1);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGUSR2);
}

/*
 * The first kernel stack of a switch says how many frames the tracing path
 * adds above __schedule (its build decides): the programs skip them from
 * then on. The stacks before keep them: true frames, only more.
 */
static void count_kskip(struct frecd_daemon *d, const void *data, size_t len)
{
	const struct frec_rec_stack *r = data;
	int skip;

	if (!r->kframes || !d->opts->symbolizer || !d->opts->bpf ||
	    len < sizeof(*r) + 8ull * r->kframes)
		return;
	d->kskip_done = true;
	skip = frecd_symbolizer__kernel_skip(d->opts->symbolizer, r->ips, r->kframes);
	if (skip < 0) {
		log_debug("stacks: the tracing path was not found in a kernel stack; its frames stay");
		return;
	}
	log_debug("stacks: the kernel stacks' first %d frames are the tracing path: skipped", skip);
	frecd_bpf__set_kskip(d->opts->bpf, skip);
	d->kskip_ts = frecd_clock__boot_ns();
}

/*
 * The stacks the programs took before they were told to skip the tracing
 * path (those in the rings then, and any a program was taking meanwhile)
 * still have its frames: the same stack would be stored twice, once with
 * them. Those are cut here, found by name, so that every stack of a run
 * starts at the same frame. Returns the record to push: data, or a copy
 * in d->stack_buf.
 */
static const void *strip_kskip(struct frecd_daemon *d, const void *data, size_t *len)
{
	/* a program runs for microseconds: 10 ms is a wide margin */
	const __u64 margin_ns = 10000000;
	const struct frec_rec_stack *r = data;
	struct frec_rec_stack *c = (struct frec_rec_stack *)d->stack_buf;
	size_t n;
	int skip;

	/* no skip found (then none is cut), or a stack taken after it */
	if (!d->kskip_ts || r->h.ts > d->kskip_ts + margin_ns)
		return data;
	if (!r->kframes || *len < sizeof(*r) + 8ull * (r->kframes + r->uframes) ||
	    *len > sizeof(d->stack_buf))
		return data;
	skip = frecd_symbolizer__kernel_skip(d->opts->symbolizer, r->ips, r->kframes);
	if (skip <= 0)
		return data;
	n = r->kframes + r->uframes - skip;
	memcpy(c, r, sizeof(*c));
	memcpy(c->ips, r->ips + skip, 8 * n);
	c->kframes = r->kframes - skip;
	c->h.size = sizeof(*c) + 8 * n;
	*len = c->h.size;
	return c;
}

/* The probe set attached last; the symbolizer reads its probed files
 * when it is new to the drain. */
static const struct frec_probes *probe_files(struct frecd_daemon *d)
{
	const struct frec_probes *p;
	const char *path, *build_id;
	__u64 gen, off;

	p = frec_probes__current(&gen);
	if (gen != d->probes_gen) {
		d->probes_gen = gen;
		for (__u32 id = 1; id <= frec_probes__count(p); id++)
			if (!frec_probes__site(p, id, &path, &build_id, &off))
				frecd_symbolizer__probe_file(d->opts->symbolizer, path, build_id);
	}
	return p;
}

/*
 * A uprobe hit's user stack starts at the probed instruction, whose file
 * offset frecd attached the probe at: that tells the symbolizer where the
 * probed file is in the process, which may be gone before its maps can be
 * read (frecd_symbolizer__probe_hit()). Not a uretprobe's, which starts at
 * the return address; not USDT's, whose sites libbpf resolves. The probed
 * files are read as soon as a new probe set is attached: at the next
 * drain (drain_until()), or at the record if that comes first.
 */
static void note_probe_stack(struct frecd_daemon *d, const void *data, size_t len)
{
	const struct frec_rec_stack *r = data;
	const struct frec_rec_hdr *h = data;
	const struct frec_probes *p = probe_files(d);
	const char *path, *build_id;
	__u64 off;

	if (h->type == FREC_EV_UPROBE && len >= sizeof(struct frec_rec_probe)) {
		d->hit_ts = h->ts;
		d->hit_tid = h->tid;
		d->hit_id = ((const struct frec_rec_probe *)data)->probe_id;
		return;
	}
	if (h->type != FREC_EV_STACK || !d->hit_ts || h->ts != d->hit_ts || h->tid != d->hit_tid)
		return;
	d->hit_ts = 0;
	if (len < sizeof(*r) || !r->uframes || (r->flags & FREC_STACK_USER_ERR) ||
	    len < sizeof(*r) + 8ull * (r->kframes + r->uframes))
		return;
	if (!frec_probes__site(p, d->hit_id, &path, &build_id, &off)) {
		struct frec_image_id image = { r->proc_start_ns, r->exec_id };

		frecd_symbolizer__probe_hit(d->opts->symbolizer, h->tgid, &image, h->ts, path,
					    build_id, off, r->ips[r->kframes]);
	}
}

/* data as a fork record, or NULL: another type, or too short for one. */
static const struct frec_rec_fork *fork_record(const void *data, size_t len)
{
	const struct frec_rec_hdr *h = data;

	return len >= sizeof(struct frec_rec_fork) && h->type == FREC_EV_PROCESS_FORK ? data : NULL;
}

/* on_record() for every record but the scheduler's switches and wakeups. */
static __attribute__((noinline)) void on_other_record(struct frecd_daemon *d, const void *data,
						      size_t len)
{
	const struct frec_rec_hdr *h = data;
	const struct frec_rec_fork *f = fork_record(data, len);
	int ret;

	if (d->trig && len >= sizeof(struct frec_rec_trigger) && h->type == FREC_EV_TRIGGER &&
	    frecd_triggers__on_record(d->trig, data) != FRECD_TRIGGER_ACCEPTED)
		return;
	/* Stacks of a process after its exec, or of a new process under a
	 * pid seen before, belong to a new image (its mappings are others):
	 * before the record, so that the stacks after it see the new one. */
	if (d->opts->symbolizer && len >= sizeof(*h)) {
		if (h->type == FREC_EV_PROCESS_EXEC && len >= sizeof(struct frec_rec_exec)) {
			const struct frec_rec_exec *e = data;
			struct frec_image_id id = { e->proc_start_ns, e->exec_id };

			frecd_symbolizer__new_image(d->opts->symbolizer, h->tgid, h->ts, &id);
		} else if (f && f->child_tgid != f->parent_tgid) {
			frecd_symbolizer__new_image(d->opts->symbolizer, f->child_tgid, h->ts, NULL);
		}
	}
	if (d->opts->symbolizer && d->opts->bpf && h->type == FREC_EV_STACK &&
	    len >= sizeof(struct frec_rec_stack)) {
		if (!d->kskip_done)
			count_kskip(d, data, len);
		data = strip_kskip(d, data, &len);
	}
	if (d->opts->symbolizer && len >= sizeof(*h))
		note_probe_stack(d, data, len);
	ret = frec_recorder__push(d->rec, data, len);
	if (ret == -EINVAL)
		d->malformed++;
	if (h->type >= FREC_EV_UPROBE && h->type <= FREC_EV_USDT &&
	    len >= sizeof(struct frec_rec_probe)) {
		__u32 id = ((const struct frec_rec_probe *)data)->probe_id;

		if (id < FREC_MAX_PROBES)
			d->probe_hits[id]++;
	}
	/* The exec'd program's arguments, for the process table: read by the
	 * /proc reader, as that can block, some milliseconds late (a process
	 * that exits that fast keeps the command line it had before exec). */
	if (len >= sizeof(*h) && h->type == FREC_EV_PROCESS_EXEC)
		frecd_procinfo__want_cmdline(d->procinfo, h->tgid);
	/* A new process: a command line read for its pid before now may be
	 * the previous owner's (pid reuse), and must not name it. */
	if (f && f->child_pid == f->child_tgid)
		frecd_procinfo__forget(d->procinfo, f->child_pid);
}

/*
 * The ring buffer callback: one record, straight into the recorder (a
 * trigger's after the policy's verdict). The scheduler's switches and
 * wakeups, nearly every record, need nothing else: none is a trigger's
 * firing, a probe's hit, an exec, a fork or a stack. Their path stays
 * apart so that it saves few registers.
 */
static void on_record(void *ctx, const void *data, size_t len)
{
	struct frecd_daemon *d = ctx;
	const struct frec_rec_hdr *h = data;

	if (__builtin_expect(len >= sizeof(*h) && h->type >= FREC_EV_SCHED_SWITCH &&
			     h->type <= FREC_EV_SCHED_WAKEUP_NEW, 1)) {
		if (frec_recorder__push(d->rec, data, len) == -EINVAL)
			d->malformed++;
		return;
	}
	on_other_record(d, data, len);
}

/* Processes the seals named without a command line (forked and not
 * exec'd, or forgotten while they slept): their /proc cmdline, read by the
 * /proc reader, names them from the next seal on. */
static void want_unnamed(struct frecd_daemon *d)
{
	__u32 tgids[FREC_UNNAMED_MAX], n;

	if (!d->procinfo)
		return;
	n = frec_recorder__take_unnamed(d->rec, tgids, FREC_UNNAMED_MAX);
	for (__u32 i = 0; i < n; i++)
		frecd_procinfo__want_cmdline(d->procinfo, tgids[i]);
}

/* Drops and discards, rate-limited (losslog.h); the snapshots count them all. */
static void log_losses(struct frecd_daemon *d, __u64 now, bool force)
{
	struct frec_recorder_stats st;

	frecd_losslog__drops(&d->drop_log, frecd_drops__total(d->drops), now, force,
			     d->opts->ring_bytes);
	frec_recorder__stats(d->rec, &st);
	frecd_losslog__discards(&d->discard_log, st.events_discarded, now, force,
				d->opts->config.max_bytes);
}

static void note_gap(struct frecd_daemon *d)
{
	__u64 now = frecd_clock__mono_ns(), gap = now - d->last_drain_ns;

	if (gap > d->gap_max_ns)
		d->gap_max_ns = gap;
	frecd_losslog__drain_gap(&d->drop_log, gap);
	if (gap > FRECD_SLOW_GAP_MS * 1000000ull)
		d->slow_gaps++;
	d->last_drain_ns = now;
}

/*
 * Every record from before now, then the drop counters. The time it read up
 * to (CLOCK_BOOTTIME, the clock of the records), where a generation sealed
 * next must end: every CPU's ring was read up to it and no further. Lost
 * events are stamped no later than the cut either, so that a seal there
 * leaves the records after it for the next generation (docs/FORMAT.md,
 * "Time order"). While a debug stall reads nothing, the last cut stays.
 */
/* After a drain, at now (its cut): what the triggers learn besides the
 * records. The programs' state and "oncpu" are maps: a system call each. */
static void feed_triggers(struct frecd_daemon *d, long long lost, __u64 now)
{
	size_t n;

	if (!d->trig)
		return;
	if (lost > 0)
		frecd_triggers__lost(d->trig, lost, now);
	if (!d->opts->bpf)
		return;
	n = frecd_triggers__count(d->trig);
	if (n && !frecd_bpf__take_trigger_state(d->opts->bpf, d->trig_state, n))
		frecd_triggers__take_state(d->trig, d->trig_state, n, now);
	if (d->has_oncpu && d->oncpu) {
		n = d->noncpu;
		if (!frecd_bpf__read_oncpu(d->opts->bpf, d->oncpu, &n))
			frecd_triggers__check_oncpu(d->trig, d->oncpu, n, now);
	}
}

/* The drain's look ahead: the task table slot a record will need. */
static void on_peek(void *ctx, const void *data, size_t len)
{
	const struct frecd_daemon *d = ctx;

	frec_recorder__prefetch(d->rec, data, len);
}

static __u64 drain_until(struct frecd_daemon *d, __u64 cut)
{
	long long lost;
	__u64 now;

	if (frecd_stall__holds(&d->stall))
		return d->read_to;
	note_gap(d);
	if (d->opts->symbolizer)
		probe_files(d);
	/* Only while the table is big enough for it to pay: the look costs */
	frecd_rings__set_peek(d->rings, frec_recorder__prefetch_useful(d->rec) ? on_peek : NULL);
	frecd_rings__consume(d->rings, cut, on_record, d);
	now = frecd_clock__boot_ns();
	if (cut < now)
		now = cut;
	d->read_to = now;
	/* before any seal names a frame: the execs before now are known */
	if (d->opts->symbolizer)
		frecd_symbolizer__drained(d->opts->symbolizer, now);
	lost = frecd_drops__poll(d->drops, d->rec, now);
	feed_triggers(d, lost, now);
	log_losses(d, now, false);
	return cut;
}

static __u64 drain(struct frecd_daemon *d)
{
	return drain_until(d, frecd_clock__boot_ns());
}

/* The snapshots' hooks (snapshots.h). The window a snapshot pins ends at
 * the cut: every record before it is in, the kernel's skipped runs too. */
static void seal_for_snapshot(void *ctx)
{
	struct frecd_daemon *d = ctx;

	frecd_drops__poll_recursion(d->drops, d->rec, frecd_clock__boot_ns());
	frec_recorder__seal(d->rec, drain(d));
}

static void snapshot_done(void *ctx, __u64 seq, int err, const char *dir, const char *name,
			  const char *reason)
{
	struct frecd_daemon *d = ctx;
	char path[PATH_MAX];

	frecd_service__snapshot_done(d->opts->svc, seq, err, dir, name);
	if (err || !name)
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	frecd_on_snapshot__run(d->on_snapshot, path, reason);
}

/* The policy's hooks (triggers.h). */
static void trigger_push(void *ctx, const struct frec_rec_trigger *r)
{
	struct frecd_daemon *d = ctx;

	if (frec_recorder__push(d->rec, r, sizeof(*r)) == -EINVAL)
		d->malformed++;
}

static void trigger_suppressed(void *ctx, __u32 id, __u32 tid, __u32 tgid, __u64 ts, __u64 value,
			       __u64 count)
{
	struct frecd_daemon *d = ctx;

	frec_recorder__add_suppressed(d->rec, id, tid, tgid, ts, value, count);
}

static void trigger_snapshot(void *ctx, __u32 id, const char *reason)
{
	struct frecd_daemon *d = ctx;
	__u64 seq = 0;
	int ret;

	log_info("%s: taking a snapshot", reason);
	ret = frecd_snapshots__request(d->snaps, reason, &seq);
	frecd_service__trigger_snapshot(d->opts->svc, id, ret, seq);
}

int frecd_daemon__snapshot(struct frecd_daemon *d, const char *reason, __u64 *seq)
{
	return frecd_snapshots__request(d->snaps, reason, seq);
}

static void on_signals(struct frecd_daemon *d)
{
	struct signalfd_siginfo si;

	while (read(d->sfd, &si, sizeof(si)) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGUSR1: {
			__u64 seq;

			frecd_snapshots__request(d->snaps, "SIGUSR1", &seq);
			break;
		}
		case SIGTERM:
		case SIGINT:
			if (!d->stopping) {
				log_info("%s: stopping%s", strsignal(si.ssi_signo),
					 frecd_snapshots__busy(d->snaps) ?
					 " after the snapshot in progress" : "");
				frecd_service__stopping(d->opts->svc);
			}
			d->stopping = true;
			frecd_snapshots__stop(d->snaps);
			break;
		case SIGUSR2:
			/* a stall of the drain, for tests (stall.h) */
			if (frecd_stall__signal(&d->stall))
				drain(d);
			break;
		case SIGHUP:
			frecd_service__reload(d->opts->svc);
			break;
		}
	}
}

static int add_fd(struct frecd_daemon *d, int fd, __u32 events, __u64 tag)
{
	struct epoll_event ev = { .events = events, .data.u64 = tag };

	return epoll_ctl(d->epfd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

/* The policy's hooks into this loop, for frecd_triggers__new(). */
static struct frecd_triggers_hooks trigger_hooks(struct frecd_daemon *d)
{
	return (struct frecd_triggers_hooks){
		.push = trigger_push,
		.suppressed = trigger_suppressed,
		.snapshot = trigger_snapshot,
		.ctx = d,
	};
}

/*
 * Said when --max-size cuts the window below --window, at most every
 * WARN_REPEAT_NS (a window at the edge may be cut and not by turns, every
 * period): the span the memory holds and what would hold the window. frec
 * status shows it all along.
 */
static void check_window(struct frecd_daemon *d, __u64 mono, const struct frec_recorder_stats *rs)
{
	struct frecd_status st;
	char have[32], need[32];

	if (!rs->window_cut || (d->window_warned && mono - d->window_warned < WARN_REPEAT_NS))
		return;
	memset(&st, 0, sizeof(st));
	st.rec = *rs;
	d->window_warned = mono;
	st.min_age_ns = d->opts->config.min_age_ns;
	st.max_bytes = d->opts->config.max_bytes;
	log_warn("the window holds %.3f s, not the %.9g s of --window: --max-size %s cuts it; about --max-size %s would hold it",
		 st.rec.window_start_ts && st.rec.window_end_ts > st.rec.window_start_ts ?
		 (st.rec.window_end_ts - st.rec.window_start_ts) / 1e9 : 0.0,
		 st.min_age_ns / 1e9, frecd_format_size(st.max_bytes, have, sizeof(have)),
		 frecd_format_size(frecd_status__window_needed(&st), need, sizeof(need)));
}

/*
 * Said when the task table was full for a thread (threads_untracked grew),
 * at most every WARN_REPEAT_NS: on a machine that runs more threads than
 * --max-threads it would grow all the time. frec status shows the count.
 */
static void check_tasks(struct frecd_daemon *d, __u64 mono, const struct frec_recorder_stats *rs)
{
	if (rs->threads_untracked <= d->untracked_warned ||
	    (d->tasks_warned && mono - d->tasks_warned < WARN_REPEAT_NS))
		return;
	d->tasks_warned = mono;
	d->untracked_warned = rs->threads_untracked;
	log_warn("the thread table is full (--max-threads %u, %u threads held): %llu thread mentions since start found no room, and those threads are named from their own records only; raise --max-threads",
		 rs->max_threads, rs->threads, (unsigned long long)rs->threads_untracked);
}

/* On the tick: what changes slowly. */
static void tick_checks(struct frecd_daemon *d)
{
	__u64 mono = frecd_clock__mono_ns();
	struct frec_recorder_stats rs;

	if (d->ring_set && mono - d->online_checked >= ONLINE_CHECK_NS) {
		d->online_checked = mono;
		frecd_bpf_rings__check_online(d->ring_set);
	}
	/* read once for both warnings */
	frec_recorder__stats(d->rec, &rs);
	check_window(d, mono, &rs);
	check_tasks(d, mono, &rs);
}

/*
 * The rings report readiness to an epoll of their own, which is one fd in
 * the loop's: however many rings woke, the loop sees one event and drains
 * once, every ring up to one cut. With the rings in the loop's epoll, each
 * ring's wakeup was an event, and each event a drain over all the rings
 * and the drop counters, both as long as the CPUs are many: O(CPUs^2) work
 * for one round of wakeups. Here the ready list is emptied (edge-triggered:
 * reporting an entry takes it off) before the drain, so that a ring that
 * fills again while it runs wakes the loop once more, not never.
 */
static void take_ring_events(struct frecd_daemon *d)
{
	struct epoll_event evs[64];
	int n;

	do
		n = epoll_wait(d->ring_epfd, evs, 64, 0);
	while (n == 64);
}

/* Whether set has an oncpu trigger, for each drain to read "oncpu", and
 * the buffer frecd_bpf__read_oncpu() fills (kept once made). 0, -ENOMEM. */
static int arm_oncpu(struct frecd_daemon *d, const struct frecd_trigger_set *set)
{
	size_t i;
	int n;

	d->has_oncpu = false;
	for (i = 0; i < set->n; i++)
		d->has_oncpu |= set->specs[i].kind == FREC_TRIG_ONCPU;
	if (!d->has_oncpu || d->oncpu)
		return 0;
	n = libbpf_num_possible_cpus();
	d->noncpu = n > 0 ? n : 1;
	d->oncpu = calloc(d->noncpu, sizeof(*d->oncpu));
	return d->oncpu ? 0 : -ENOMEM;
}

/* Whether frecd's /proc names the host's processes, which the events name:
 * in a pid namespace of its own it would name others (hostview.h). */
static bool proc_is_hosts(const struct frecd_daemon_opts *o)
{
	return !o->hv || o->hv->proc_host;
}

static int setup(struct frecd_daemon *d)
{
	struct itimerspec its = {
		.it_interval = { .tv_nsec = FRECD_DRAIN_MS * 1000000L },
		.it_value = { .tv_nsec = FRECD_DRAIN_MS * 1000000L },
	};
	struct frecd_snapshots_opts sopts = {
		.sz = sizeof(sopts),
		.rec = d->rec,
		.dopts = d->opts,
		.running = d->opts->running,
		.seal = seal_for_snapshot,
		.done = snapshot_done,
		.ctx = d,
	};
	sigset_t set;
	size_t i;
	int ret;

	/* The first wait counts from here: the loop cannot drain earlier. */
	d->last_drain_ns = frecd_clock__mono_ns();
	if (d->opts->triggers && d->opts->triggers->n) {
		const struct frecd_trigger_set *ts = d->opts->triggers;
		struct frecd_triggers_hooks hooks = trigger_hooks(d);

		d->trig = frecd_triggers__new(ts->specs, ts->n, &hooks);
		if (!d->trig)
			return -errno;
		ret = arm_oncpu(d, ts);
		if (ret)
			return ret;
	}
	/* First: it seeds the names and command lines of what runs. */
	if (proc_is_hosts(d->opts)) {
		d->procinfo = frecd_procinfo__new();
		if (!d->procinfo)
			return -errno;
	}
	d->rings = frecd_rings__new(d->opts->ring_fds, d->opts->nrings, d->opts->ring_bytes_each);
	if (!d->rings)
		return -errno;
	d->drops = frecd_drops__new(d->opts->counters_fd);
	if (!d->drops)
		return -errno;
	d->snaps = frecd_snapshots__new(&sopts);
	if (!d->snaps)
		return -errno;
	d->epfd = epoll_create1(EPOLL_CLOEXEC);
	d->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	frecd_daemon__signals(&set);
	d->sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (d->epfd < 0 || d->tfd < 0 || d->sfd < 0)
		return -errno;
	if (timerfd_settime(d->tfd, 0, &its, NULL))
		return -errno;
	/* The ring maps themselves, edge-triggered: level-triggered would
	 * report one ready as long as any data waits, which with timer
	 * draining is almost always, and turn the loop into a busy poll.
	 * In an epoll of their own: see take_ring_events(). */
	d->ring_epfd = epoll_create1(EPOLL_CLOEXEC);
	if (d->ring_epfd < 0)
		return -errno;
	for (i = 0; i < d->opts->nrings; i++) {
		struct epoll_event ev = { .events = EPOLLIN | EPOLLET, .data.u64 = TAG_RING };

		if (epoll_ctl(d->ring_epfd, EPOLL_CTL_ADD, d->opts->ring_fds[i], &ev))
			return -errno;
	}
	if ((ret = add_fd(d, d->ring_epfd, EPOLLIN, TAG_RING)))
		return ret;
	d->ring_set = d->opts->bpf ? frecd_bpf__ring_set(d->opts->bpf) : NULL;
	d->on_snapshot = frecd_on_snapshot__new(d->opts->running, d->epfd, TAG_ON_SNAPSHOT);
	if (!d->on_snapshot)
		return -ENOMEM;
	if ((ret = add_fd(d, d->tfd, EPOLLIN, TAG_TIMER)) ||
	    (ret = add_fd(d, d->sfd, EPOLLIN, TAG_SIGNAL)) ||
	    (ret = add_fd(d, frecd_snapshots__fd(d->snaps), EPOLLIN, TAG_WRITER)) ||
	    (d->procinfo && (ret = add_fd(d, frecd_procinfo__fd(d->procinfo), EPOLLIN, TAG_PROC))))
		return ret;
	/* The control socket, and READY=1: from here on requests are served. */
	return frecd_service__start(d->opts->svc, d, d->epfd);
}

static void teardown(struct frecd_daemon *d)
{
	/* joins the writer thread after the job in progress, if any */
	frecd_snapshots__free(d->snaps);
	frecd_procinfo__free(d->procinfo);
	frecd_on_snapshot__free(d->on_snapshot);
	frecd_triggers__free(d->trig);
	free(d->oncpu);
	frecd_rings__free(d->rings);
	frecd_drops__free(d->drops);
	if (d->epfd >= 0)
		close(d->epfd);
	if (d->tfd >= 0)
		close(d->tfd);
	if (d->sfd >= 0)
		close(d->sfd);
	if (d->ring_epfd >= 0)
		close(d->ring_epfd);
}

static void log_summary(struct frecd_daemon *d)
{
	struct frecd_status st;
	__u64 waits, missed;

	frecd_daemon__status(d, &st);
	log_info("recorded %llu events, %llu lost, %llu filtered out; %llu snapshots written, %llu failed",
		 (unsigned long long)st.rec.events, (unsigned long long)st.lost,
		 (unsigned long long)st.filtered, (unsigned long long)st.snapshots,
		 (unsigned long long)st.snapshot_failures);
	if (frecd_procinfo__misses(d->procinfo))
		log_warn("%llu command lines were not read (the /proc reader was behind)",
			 (unsigned long long)frecd_procinfo__misses(d->procinfo));
	if (d->malformed || frecd_rings__skipped(d->rings))
		log_warn("%llu malformed records were refused",
			 (unsigned long long)(d->malformed + frecd_rings__skipped(d->rings)));
	frecd_rings__busy(d->rings, &waits, &missed);
	if (missed)
		log_info("%llu of %llu drains gave up waiting for a record still being written (its CPU was held up): a record stamped before a seal then counts as lost",
			 (unsigned long long)missed, (unsigned long long)waits);
}

int frecd_daemon__run(const struct frecd_daemon_opts *opts)
{
	struct frecd_daemon d = { .opts = opts, .rec = opts->rec, .epfd = -1, .tfd = -1, .sfd = -1,
				  .ring_epfd = -1, .stall.length_ns = opts->debug_stall_ns };
	struct epoll_event evs[8];
	__u64 expirations, deadline, now, cut;
	bool rings_ready, tick;
	int i, n, ret, timeout;

	ret = setup(&d);
	if (ret) {
		log_error("cannot start the event loop: %s", strerror(-ret));
		goto out;
	}
	while (!(d.stopping && !frecd_snapshots__busy(d.snaps))) {
		/* A trigger's snapshot is due at its deadline, not at the
		 * next drain after it. */
		timeout = -1;
		deadline = frecd_triggers__deadline(d.trig);
		if (deadline) {
			now = frecd_clock__boot_ns();
			timeout = deadline <= now ? 0 :
				  (deadline - now + 999999) / 1000000 > INT_MAX ? INT_MAX :
				  (int)((deadline - now + 999999) / 1000000);
		}
		n = epoll_wait(d.epfd, evs, 8, timeout);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			log_error("epoll_wait: %s", strerror(-ret));
			break;
		}
		/* One drain for the batch, whether the timer, the rings or
		 * both woke the loop: see take_ring_events(). */
		rings_ready = tick = false;
		for (i = 0; i < n; i++) {
			switch (evs[i].data.u64) {
			case TAG_TIMER:
				if (read(d.tfd, &expirations, sizeof(expirations)) < 0) {
					/* EAGAIN: raced with another read; drain anyway */
				}
				tick = true;
				break;
			case TAG_RING:
				take_ring_events(&d);
				rings_ready = true;
				break;
			case TAG_SIGNAL:
				on_signals(&d);
				break;
			case TAG_WRITER:
				frecd_snapshots__collect(d.snaps);
				break;
			case TAG_PROC:
				frecd_procinfo__apply(d.procinfo, d.rec);
				break;
			default:
				if (frecd_on_snapshot__owns(d.on_snapshot, evs[i].data.u64))
					frecd_on_snapshot__event(d.on_snapshot, evs[i].data.u64,
								 evs[i].events);
				else
					frecd_service__event(opts->svc, evs[i].data.u64,
							     evs[i].events);
				break;
			}
		}
		if (tick || rings_ready) {
			cut = drain(&d);
			if (tick) {
				frec_recorder__tick(d.rec, cut);
				want_unnamed(&d);
				frecd_procinfo__tick(d.procinfo);
				frecd_service__tick(opts->svc);
				frecd_on_snapshot__tick(d.on_snapshot, frecd_clock__mono_ns());
				tick_checks(&d);
			}
		}
		if (d.trig && !d.stopping)
			frecd_triggers__tick(d.trig, frecd_clock__boot_ns());
	}
	if (!ret) {
		frecd_stall__cancel(&d.stall);	/* the last drain always happens, and takes all */
		frecd_drops__poll_recursion(d.drops, d.rec, frecd_clock__boot_ns());
		drain_until(&d, FRECD_RING_NO_CUT);
		log_losses(&d, frecd_clock__boot_ns(), true);
		log_summary(&d);
	}
out:
	frecd_service__stop(opts->svc);
	teardown(&d);
	return ret;
}

void frecd_daemon__status(struct frecd_daemon *d, struct frecd_status *st)
{
	memset(st, 0, sizeof(*st));
	frec_recorder__stats(d->rec, &st->rec);
	st->raw_tp = d->opts->config.flags & FREC_CFG_RAW_TP;
	st->npids = d->opts->config.npids;
	st->min_age_ns = d->opts->config.min_age_ns;
	st->max_bytes = d->opts->config.max_bytes;
	frecd_bpf_rings__info(d->ring_set, &st->rings);
	st->lost = frecd_drops__total(d->drops);
	st->lost_by_cpu = frecd_drops__by_cpu(d->drops, &st->ncpus);
	st->filtered = frecd_drops__filtered(d->drops);
	st->stacks = d->opts->running ? d->opts->running->stacks : 0;
	st->stack_capture_errors = frecd_drops__stack_errors(d->drops);
	if (d->opts->symbolizer) {
		struct frecd_symbolizer_stats sst;

		frecd_symbolizer__stats(d->opts->symbolizer, &sst);
		st->stack_programs_unannounced = sst.images_unannounced;
	}
	st->recursion_misses = frecd_recursion__total();
	st->recursion_counted = frecd_recursion__counted();
	frecd_snapshots__status(d->snaps, st);
	st->ntriggers = frecd_triggers__stats(d->trig, d->trig_stats, FREC_MAX_TRIGGERS);
	st->triggers = d->trig_stats;
	st->on_snapshot = d->opts->running ? d->opts->running->on_snapshot : NULL;
	frecd_on_snapshot__stats(d->on_snapshot, &st->on_snapshot_stats);
	frecd_cgroup_state__status(&st->cgroups);
	st->drain_period_ms = FRECD_DRAIN_MS;
	st->drain_gap_max_ns = d->gap_max_ns;
	st->drain_slow_gaps = d->slow_gaps;
}

const __u64 *frecd_daemon__probe_hits(const struct frecd_daemon *d)
{
	return d->probe_hits;
}

void frecd_daemon__reset_probe_hits(struct frecd_daemon *d)
{
	memset(d->probe_hits, 0, sizeof(d->probe_hits));
}

void frecd_daemon__flush(struct frecd_daemon *d)
{
	frec_recorder__seal(d->rec, drain(d));
}

int frecd_daemon__trigger(struct frecd_daemon *d, const char *name, __u32 pid, __u32 *id,
			  char *err, size_t errlen)
{
	char comm[FREC_COMM_LEN] = "", path[64];
	ssize_t n;
	int fd;

	if (!d->trig) {
		snprintf(err, errlen,
			 "no manual trigger '%s': none is armed; start frecd with --trigger manual:%s",
			 name, name);
		return -ENOENT;
	}
	if (d->stopping) {
		snprintf(err, errlen, "frecd is stopping; no more snapshots");
		return -ECANCELED;
	}
	/* The client's name, for the reason: a comm read never blocks. */
	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, comm, sizeof(comm) - 1);
		close(fd);
		comm[n > 0 ? n : 0] = '\0';
		comm[strcspn(comm, "\n")] = '\0';
	}
	drain(d);
	return frecd_triggers__manual(d->trig, name, pid, comm, d->read_to, id, err, errlen);
}

int frecd_daemon__set_triggers(struct frecd_daemon *d, const struct frecd_trigger_set *set,
			       __u32 *changed)
{
	struct frecd_triggers_hooks hooks = trigger_hooks(d);

	*changed = 0;
	/* What came before the change is judged by the old triggers. */
	drain(d);
	if (!d->trig) {
		if (!set->n)
			return 0;
		d->trig = frecd_triggers__new(set->specs, set->n, &hooks);
		if (!d->trig)
			return -errno;
		*changed = set->n == 32 ? ~0u : (1u << set->n) - 1;
	} else {
		int ret = frecd_triggers__set(d->trig, set->specs, set->n, changed);

		if (ret)
			return ret;
	}
	/* Without its buffer (no memory), oncpu is judged at switch-outs only. */
	arm_oncpu(d, set);
	return 0;
}
