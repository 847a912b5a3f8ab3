// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * frec report: the usual questions answered without a UI.
 *  1. on-CPU time and switches per thread and per process (top N);
 *  2. run-queue latency, from sched_waking (or _wakeup, _wakeup_new) of a task
 *     to its sched_switch onto a CPU, overall and for the worst threads;
 *  3. per probe: hits; per probed function: calls and entry -> return latency;
 *  4. records lost, per CPU and per generation;
 *  5. broken switch chains (cpu_chain.h): a switch naming another prev than
 *     the thread switched in before ends that thread's run at its last event
 *     seen on the CPU; the time from there to the switch is nobody's.
 *
 * Streams the snapshot a generation at a time in time order; what it carries
 * across generations is per-CPU current task, pending wakeups, open calls,
 * and the per-thread totals it reports. --pid/--tid narrow to threads,
 * --since/--until to a time range (intervals are clipped to it).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "calls.h"
#include "cpu_chain.h"
#include "hist.h"
#include "json.h"
#include "map.h"
#include "out.h"
#include "table.h"
#include "tools.h"
#include "walk.h"

struct tstat {
	__u32 tid, tgid;
	char comm[FREC_COMM_LEN];
	__u64 oncpu_ns;
	__u64 switches;		/* times switched out */
	__u64 preempted;	/* of which while runnable (R, R+) */
	struct frec_hist *rq;	/* run-queue latency, allocated at its first sample */
};

struct pstat {
	__u32 tgid;
	__u32 nthreads;
	char comm[FREC_COMM_LEN];
	char *cmdline;
	__u64 oncpu_ns;
	__u64 switches;
	__u64 preempted;
};

struct cpu_state {
	bool valid;		/* since is known: a generation covered this CPU */
	bool tid_known;		/* a switch on it has been seen since */
	__u32 tid;
	__u32 tgid;
	__u64 since;		/* when tid went on the CPU (or coverage began) */
	char comm[FREC_COMM_LEN];	/* its name then, should a later table not know it */
};

struct fnstat {
	__u64 calls;		/* entries (pushed or instant) */
	__u64 returns;		/* returns matched with their entry */
	__u64 unfinished;	/* entries abandoned or still open at the end */
	__u64 unmatched;	/* returns without an entry seen */
	__u64 hits;		/* USDT hits */
	struct frec_hist lat;
};

struct probe_hits {
	char *name;
	__u32 kind;
	__u64 hits;
};

struct lost_span {
	__u64 start, end, count;
};

struct report {
	const struct frec_report_opts *o;
	struct frec_walk *w;
	__u64 lo, hi;		/* the time range, inclusive */
	__u64 t0, tend;		/* first and last covered ts */
	bool have_t0;
	__u64 events, in_range;

	struct tstat *threads;
	size_t nthreads, tcap;
	struct frec_map tidx;		/* tid -> index into threads */
	struct frec_map pcmd;		/* tgid -> char *cmdline (first seen) */

	struct cpu_state *cpus;
	__u32 ncpus;
	struct frec_map running;	/* tid -> cpu + 1, tasks on a CPU now */
	struct frec_map pending;	/* tid -> ts of the first wakeup not yet served */

	struct frec_hist rq;
	struct frec_calls *calls;
	struct fnstat *fns;
	unsigned int nfns;
	struct frec_map probe_ids;	/* probe id -> index + 1 into hits, this generation */
	struct probe_hits *hits;
	size_t nhits;

	__u64 *lost_cpu;
	__u32 nlost_cpu;
	__u64 lost_total;
	__u64 lost_nocpu;	/* lost on no CPU in range: FREC_CPU_UNKNOWN */
	__u64 gaps, gap_ns;	/* nothing recorded (FREC_EV_GAP), in range */
	struct frec_chain *chain;
	__u64 breaks;		/* broken switch chains in range */
	__u64 break_ns;		/* time after them not counted as anyone's */
	struct lost_span *spans;
	size_t nspans;
	__u64 gens;
	__u64 gen_start;		/* start of the current generation */
	__u64 last_gen_end;		/* end of the last intact generation walked */
	__u32 ncpus_out;		/* CPUs listed under drops */
	int err;
};

void frec_report__usage(FILE *f)
{
	fprintf(f,
		"Usage: frec report [OPTIONS] FILE\n"
		"\n"
		"Answer the usual questions about a snapshot without a UI:\n"
		"  - on-CPU time and switches per thread and per process (top N);\n"
		"  - run-queue latency (sched_waking or sched_wakeup_new until the task is\n"
		"    switched in on any CPU): log2 histogram, p50, p99, max, overall and for\n"
		"    the worst threads;\n"
		"  - hits per probe; calls per probed function with entry -> return latency\n"
		"    on the same thread (uprobe paired with the uretprobe of the same\n"
		"    function): log2 histogram, p50, p99, max;\n"
		"  - records lost, per CPU and per generation (\"cpu unknown\" for records\n"
		"    that named no CPU in range);\n"
		"  - broken switch chains: a sched_switch naming another prev than the\n"
		"    thread switched in before on that CPU (the kernel reported no switch\n"
		"    out of it). That thread's run ends at its last event seen on the CPU;\n"
		"    the time from there to the switch counts for no thread.\n"
		"Times are in ms (on-CPU) and us (latencies) with ns precision; percentiles\n"
		"are the nearest-rank sample, rounded down by at most 0.8%%. Where records\n"
		"were lost (or a generation is damaged) nothing is guessed: a CPU's time\n"
		"counts again from its next switch, and waits that began before are dropped.\n"
		"\n"
		"  -j, --json       one JSON object instead of text (times in ns)\n"
		"  -p, --pid PID    only threads of process PID\n"
		"  -t, --tid TID    only thread TID\n"
		"  -s, --since S    start at S seconds: the boot-time clock as `frec dump`\n"
		"                   prints it, or +S for S seconds after the first event\n"
		"  -u, --until S    stop at S seconds (same forms as --since)\n"
		"  -n, --top N      rows in the per-thread and per-process tables (10; 0: all)\n"
		"  -h, --help       this help\n"
		"\n"
		"EXAMPLES\n"
		"  frec report snap.frec\n"
		"  frec report --pid 1234 --since +2.5 --until +3 snap.frec\n");
	frec_usage__exit_status(f);
}

/* ---- state ------------------------------------------------------------ */

static bool thread_selected(const struct report *r, __u32 tid, __u32 tgid)
{
	if (r->o->has_tid && tid != r->o->tid)
		return false;
	if (r->o->has_pid && tgid != r->o->pid)
		return false;
	return true;
}

/* The stats of a thread, created on first use; hint names a thread the
 * current generation may not (one that ran before a skipped generation). */
static struct tstat *tstat_get(struct report *r, __u32 tid, const struct cpu_state *hint)
{
	uint64_t *slot = frec_map__get(&r->tidx, tid);
	const struct frec_thread *t;
	struct tstat *s;
	bool created;

	if (slot)
		return &r->threads[*slot];
	if (r->nthreads == r->tcap) {
		size_t ncap = r->tcap ? r->tcap * 2 : 256;

		s = realloc(r->threads, ncap * sizeof(*s));
		if (!s)
			goto oom;
		r->threads = s;
		r->tcap = ncap;
	}
	slot = frec_map__put(&r->tidx, tid, &created);
	if (!slot)
		goto oom;
	*slot = r->nthreads;
	s = &r->threads[r->nthreads++];
	memset(s, 0, sizeof(*s));
	s->tid = tid;
	s->tgid = frec_walk__tgid(r->w, tid);
	t = frec_walk__thread(r->w, tid);
	if (t) {
		memcpy(s->comm, t->comm, FREC_COMM_LEN);
	} else if (hint && hint->tid == tid && hint->comm[0]) {
		memcpy(s->comm, hint->comm, FREC_COMM_LEN);
		s->tgid = hint->tgid;
	} else {
		strcpy(s->comm, "<...>");
	}
	s->comm[FREC_COMM_LEN - 1] = '\0';
	/* the process's command line, as the first generation naming it had it */
	slot = frec_map__get(&r->pcmd, s->tgid);
	if (!slot) {
		struct frec_gen *g = frec_walk__gen(r->w);
		const struct frec_process *p = g ? frec_gen__process(g, s->tgid) : NULL;

		slot = frec_map__put(&r->pcmd, s->tgid, NULL);
		if (!slot)
			goto oom;
		*slot = (uint64_t)(uintptr_t)(p && p->cmdline && p->cmdline[0] ?
					       strdup(p->cmdline) : NULL);
	}
	return s;
oom:
	r->err = -ENOMEM;
	return NULL;
}

/* Per generation: names and thread groups as of the newest generation. */
static void refresh_names(struct report *r)
{
	size_t i;

	for (i = 0; i < r->nthreads; i++) {
		const struct frec_thread *t = frec_walk__thread(r->w, r->threads[i].tid);

		if (!t)
			continue;
		memcpy(r->threads[i].comm, t->comm, FREC_COMM_LEN);
		r->threads[i].comm[FREC_COMM_LEN - 1] = '\0';
		if (t->tgid)
			r->threads[i].tgid = t->tgid;
	}
}

static void add_oncpu(struct report *r, __u32 tid, const struct cpu_state *hint, __u64 a, __u64 b)
{
	const struct frec_thread *t;
	struct tstat *s;
	__u32 tgid;

	if (!tid)
		return;		/* the idle task */
	if (a < r->lo)
		a = r->lo;
	if (b > r->hi)
		b = r->hi;
	if (b <= a)
		return;
	t = frec_walk__thread(r->w, tid);
	tgid = t && t->tgid ? t->tgid : hint && hint->tid == tid && hint->tgid ? hint->tgid : tid;
	if (!thread_selected(r, tid, tgid))
		return;
	s = tstat_get(r, tid, hint);
	if (s)
		s->oncpu_ns += b - a;
}

static struct cpu_state *cpu_of(struct report *r, __u32 cpu)
{
	if (cpu >= FREC_MAX_CPUS)
		return NULL;
	if (cpu >= r->ncpus) {
		__u32 n = cpu + 1;
		struct cpu_state *c = realloc(r->cpus, n * sizeof(*c));

		if (!c) {
			r->err = -ENOMEM;
			return NULL;
		}
		memset(c + r->ncpus, 0, (n - r->ncpus) * sizeof(*c));
		/* a CPU seen for the first time has been covered since the
		 * current generation began */
		for (; r->ncpus < n; r->ncpus++) {
			c[r->ncpus].valid = true;
			c[r->ncpus].since = r->gen_start;
		}
		r->cpus = c;
	}
	return &r->cpus[cpu];
}

static bool in_range(const struct report *r, __u64 ts)
{
	return ts >= r->lo && ts <= r->hi;
}

static void on_switch(struct report *r, const struct frec_event *ev,
		      enum frec_chain_verdict v, const struct frec_chain_run *run)
{
	struct cpu_state *c = cpu_of(r, ev->cpu);
	__u32 prev = ev->sw.prev_pid, next = ev->sw.next_pid;
	const struct frec_thread *t;
	uint64_t *wake;

	if (c && v == FREC_CHAIN_BREAK && c->valid && c->tid_known && c->tid == run->tid) {
		/* the thread switched in ran until its last event seen; who ran
		 * from then until this switch is not known: nobody's time */
		add_oncpu(r, run->tid, c, c->since, run->last_ts);
		frec_map__del(&r->running, run->tid);
		if (in_range(r, ev->ts)) {
			r->breaks++;
			r->break_ns += ev->ts - run->last_ts;
		}
	} else if (c && v == FREC_CHAIN_BREAK && in_range(r, ev->ts)) {
		r->breaks++;
	}
	if (c) {
		if (v == FREC_CHAIN_BREAK)
			;	/* prev's run began at a switch the kernel did not report */
		else if (c->valid)
			add_oncpu(r, prev, c, ev->ts >= c->since ? c->since : ev->ts, ev->ts);
		c->valid = true;
		c->tid_known = true;
		c->tid = next;
		c->tgid = frec_walk__tgid(r->w, next);
		c->since = ev->ts;
		if ((t = frec_walk__thread(r->w, next)))
			memcpy(c->comm, t->comm, FREC_COMM_LEN);
		else
			c->comm[0] = '\0';
	}
	if (prev) {
		frec_map__del(&r->running, prev);
		/* a wakeup of a task that had not yet left the CPU never queued it */
		frec_map__del(&r->pending, prev);
		if (in_range(r, ev->ts) && thread_selected(r, prev, frec_walk__tgid(r->w, prev))) {
			struct tstat *s = tstat_get(r, prev, NULL);

			if (s) {
				s->switches++;
				if (!(ev->sw.prev_state & 0xff))
					s->preempted++;
			}
		}
	}
	if (!next)
		return;
	{
		uint64_t *run = frec_map__put(&r->running, next, NULL);

		if (run)
			*run = (uint64_t)ev->cpu + 1;
	}
	wake = frec_map__get(&r->pending, next);
	if (wake) {
		__u64 lat = ev->ts >= *wake ? ev->ts - *wake : 0;

		frec_map__del(&r->pending, next);
		if (in_range(r, ev->ts) && thread_selected(r, next, frec_walk__tgid(r->w, next))) {
			struct tstat *s = tstat_get(r, next, NULL);

			frec_hist__add(&r->rq, lat);
			if (s && !s->rq) {
				s->rq = malloc(sizeof(*s->rq));
				if (s->rq)
					frec_hist__init(s->rq);
			}
			if (s && s->rq)
				frec_hist__add(s->rq, lat);
		}
	}
}

static void on_wake(struct report *r, const struct frec_event *ev)
{
	uint64_t *slot;
	bool created;

	if (!ev->wake.pid || frec_map__get(&r->running, ev->wake.pid))
		return;		/* woken before it got off its CPU: not queued */
	slot = frec_map__put(&r->pending, ev->wake.pid, &created);
	if (slot && created)
		*slot = ev->ts;	/* runnable since the first wakeup */
}

static int hits_index(struct report *r, const struct frec_probe_info *p)
{
	const char *name = p->name && p->name[0] ? p->name : "?";
	struct probe_hits *h;
	size_t i;

	for (i = 0; i < r->nhits; i++)
		if (r->hits[i].kind == p->kind && !strcmp(r->hits[i].name, name))
			return (int)i;
	h = realloc(r->hits, (r->nhits + 1) * sizeof(*h));
	if (!h)
		return -ENOMEM;
	r->hits = h;
	h[r->nhits].name = strdup(name);
	if (!h[r->nhits].name)
		return -ENOMEM;
	h[r->nhits].kind = p->kind;
	h[r->nhits].hits = 0;
	return (int)r->nhits++;
}

static int grow_fns(struct report *r)
{
	unsigned int n = frec_calls__nfns(r->calls), i;
	struct fnstat *f;

	if (n <= r->nfns)
		return 0;
	f = realloc(r->fns, n * sizeof(*f));
	if (!f)
		return -ENOMEM;
	for (i = r->nfns; i < n; i++) {
		memset(&f[i], 0, sizeof(f[i]));
		frec_hist__init(&f[i].lat);
	}
	r->fns = f;
	r->nfns = n;
	return 0;
}

/* Entries that left their stack without a return: unfinished calls of a
 * function with a return probe; plain hits (already counted) otherwise. */
static void count_unfinished(struct report *r, const struct frec_call *c, __u32 tid, __u32 tgid)
{
	unsigned int i;

	if (!thread_selected(r, tid, tgid))
		return;
	for (i = 0; i < c->nabandoned; i++) {
		const struct frec_frame *f = &c->abandoned[i];
		const struct frec_fn *fn = frec_calls__fn(r->calls, f->fn);

		if (fn && fn->has_return && in_range(r, f->ts))
			r->fns[f->fn].unfinished++;
	}
}

static void on_probe(struct report *r, const struct frec_event *ev)
{
	struct frec_call c;
	uint64_t *slot;
	bool sel = thread_selected(r, ev->tid, ev->tgid);

	frec_calls__event(r->calls, ev, &c);
	if (sel && in_range(r, ev->ts)) {
		slot = frec_map__get(&r->probe_ids, ev->probe.probe_id);
		if (slot)
			r->hits[*slot - 1].hits++;
	}
	count_unfinished(r, &c, ev->tid, ev->tgid);
	if (c.fn < 0 || !sel || !in_range(r, ev->ts))
		return;
	switch (c.kind) {
	case FREC_CALL_ENTRY:
		r->fns[c.fn].calls++;
		break;
	case FREC_CALL_RETURN:
		r->fns[c.fn].returns++;
		frec_hist__add(&r->fns[c.fn].lat, ev->ts - c.entry->ts);
		break;
	case FREC_CALL_INSTANT:
		if (ev->type == FREC_EV_USDT)
			r->fns[c.fn].hits++;
		else if (ev->type == FREC_EV_UPROBE)
			r->fns[c.fn].calls++;	/* inside a function: a hit */
		else
			r->fns[c.fn].unmatched++;
		break;
	default:
		break;
	}
}

static void on_exit_ev(struct report *r, const struct frec_event *ev)
{
	struct frec_call c;

	frec_calls__exit(r->calls, ev->exit.pid, &c);
	count_unfinished(r, &c, ev->exit.pid, ev->exit.tgid);
	frec_map__del(&r->pending, ev->exit.pid);
}

static void cpu_lost(struct report *r, struct cpu_state *c, __u64 ts)
{
	if (c && c->valid) {
		if (c->tid_known)
			add_oncpu(r, c->tid, c, c->since, ts);
		c->valid = false;
	}
}

/* Nothing was recorded on any CPU: as for records lost on no known CPU,
 * but with no count. */
static void on_gap(struct report *r, const struct frec_event *ev)
{
	for (__u32 i = 0; i < r->ncpus; i++)
		cpu_lost(r, &r->cpus[i], ev->ts);
	frec_map__clear(&r->pending);
	frec_map__clear(&r->running);
	if (!in_range(r, ev->ts))
		return;
	r->gaps++;
	r->gap_ns += ev->gap.last_ts - ev->gap.first_ts;
}

static void on_lost(struct report *r, const struct frec_event *ev)
{
	/* What happened on the CPU while records were lost is unknown: its
	 * task counts until now and no longer; wakeups and who runs where may
	 * be stale (a bogus wait is worse than a missing one). Records lost
	 * on no known CPU (FREC_CPU_UNKNOWN) make every CPU unknown. */
	if (ev->cpu == FREC_CPU_UNKNOWN) {
		for (__u32 i = 0; i < r->ncpus; i++)
			cpu_lost(r, &r->cpus[i], ev->ts);
	} else {
		cpu_lost(r, cpu_of(r, ev->cpu), ev->ts);
	}
	frec_map__clear(&r->pending);
	frec_map__clear(&r->running);
	if (!in_range(r, ev->ts))
		return;
	if (ev->cpu < FREC_MAX_CPUS && ev->cpu >= r->nlost_cpu) {
		__u64 *l = realloc(r->lost_cpu, (ev->cpu + 1) * sizeof(*l));

		if (!l) {
			r->err = -ENOMEM;
			return;
		}
		memset(l + r->nlost_cpu, 0, (ev->cpu + 1 - r->nlost_cpu) * sizeof(*l));
		r->lost_cpu = l;
		r->nlost_cpu = ev->cpu + 1;
	}
	if (ev->cpu < r->nlost_cpu)
		r->lost_cpu[ev->cpu] += ev->lost.count;
	else
		r->lost_nocpu += ev->lost.count;
	r->lost_total += ev->lost.count;
	if (r->nspans)
		r->spans[r->nspans - 1].count += ev->lost.count;
}

static int begin_gen(struct report *r, __u64 damaged_before)
{
	const struct frec_gen_info *gi = frec_walk__gen_info(r->w);
	struct frec_gen *g = frec_walk__gen(r->w);
	struct lost_span *sp;
	__u32 i;
	int rc;

	r->gens++;
	if (!r->have_t0) {
		r->have_t0 = true;
		r->t0 = gi->start_ts;
		/* +S forms are relative to the first generation's first event */
		if (r->o->has_since)
			r->lo = r->o->since_rel ? r->t0 + r->o->since_ns : r->o->since_ns;
		if (r->o->has_until)
			r->hi = r->o->until_rel ? r->t0 + r->o->until_ns : r->o->until_ns;
	}
	r->gen_start = gi->start_ts;
	/* After a skipped generation the per-CPU state is unknown: what ran
	 * was seen running until the end of the last intact generation; start
	 * again from this one's beginning. Pending wakeups are stale too. */
	if (frec_walk__damaged(r->w) != damaged_before) {
		for (i = 0; i < r->ncpus; i++) {
			if (r->cpus[i].valid && r->cpus[i].tid_known)
				add_oncpu(r, r->cpus[i].tid, &r->cpus[i], r->cpus[i].since,
					  r->last_gen_end);
			r->cpus[i].valid = false;
		}
		frec_map__clear(&r->pending);
		frec_map__clear(&r->running);
	}
	for (i = 0; i < r->ncpus; i++) {
		if (!r->cpus[i].valid) {
			r->cpus[i].valid = true;
			r->cpus[i].tid_known = false;
			r->cpus[i].since = gi->start_ts;
		}
	}
	refresh_names(r);
	if ((rc = frec_calls__gen(r->calls, g)) || (rc = grow_fns(r)))
		return rc;
	frec_map__clear(&r->probe_ids);
	for (i = 0; i < gi->nprobes; i++) {
		const struct frec_probe_info *p = frec_gen__probe_at(g, i);
		uint64_t *slot;
		int k;

		if (!p)
			continue;
		k = hits_index(r, p);
		slot = frec_map__put(&r->probe_ids, p->id, NULL);
		if (k < 0 || !slot)
			return -ENOMEM;
		*slot = (uint64_t)k + 1;
	}
	sp = realloc(r->spans, (r->nspans + 1) * sizeof(*sp));
	if (!sp)
		return -ENOMEM;
	r->spans = sp;
	sp[r->nspans].start = gi->start_ts;
	sp[r->nspans].end = gi->end_ts;
	sp[r->nspans].count = 0;
	r->nspans++;
	return 0;
}

static int walk(struct report *r)
{
	const struct frec_gen_info *gi;
	const struct frec_event *ev;
	__u64 damaged = 0;
	int rc;

	while (frec_walk__next_gen(r->w) > 0) {
		if ((rc = begin_gen(r, damaged)))
			return rc;
		gi = frec_walk__gen_info(r->w);
		damaged = frec_walk__damaged(r->w);
		frec_chain__gen(r->chain, r->w);
		while ((ev = frec_walk__next_event(r->w))) {
			struct frec_chain_run run;
			enum frec_chain_verdict v = frec_chain__event(r->chain, ev, &run);

			r->events++;
			if (in_range(r, ev->ts))
				r->in_range++;
			if (ev->ts > r->tend)
				r->tend = ev->ts;
			switch (ev->type) {
			case FREC_EV_SCHED_SWITCH:
				on_switch(r, ev, v, &run);
				break;
			case FREC_EV_SCHED_WAKING:
			case FREC_EV_SCHED_WAKEUP:
			case FREC_EV_SCHED_WAKEUP_NEW:
				on_wake(r, ev);
				break;
			case FREC_EV_UPROBE:
			case FREC_EV_URETPROBE:
			case FREC_EV_USDT:
				on_probe(r, ev);
				break;
			case FREC_EV_PROCESS_EXIT:
				on_exit_ev(r, ev);
				break;
			case FREC_EV_LOST:
				on_lost(r, ev);
				break;
			case FREC_EV_GAP:
				on_gap(r, ev);
				break;
			default:
				break;
			}
			if (r->err)
				return r->err;
			if (frec_chain__error(r->chain))
				return frec_chain__error(r->chain);
		}
		/* update the end only now: a gap found at the next generation
		 * closes the intervals at this one's end */
		if (gi->end_ts > r->tend)
			r->tend = gi->end_ts;
		r->last_gen_end = r->tend;
		/* nothing after --until can change the report */
		if (r->have_t0 && frec_walk__gen_info(r->w) &&
		    frec_walk__gen_info(r->w)->end_ts > r->hi && r->o->has_until)
			break;
	}
	return 0;
}

/* The end of the data: tasks still on their CPU ran until then. */
static void finish(struct report *r)
{
	size_t pos = 0;
	const struct frec_frame *frames;
	unsigned int n, i;
	__u32 tid, tgid, c;

	for (c = 0; c < r->ncpus; c++)
		if (r->cpus[c].valid && r->cpus[c].tid_known)
			add_oncpu(r, r->cpus[c].tid, &r->cpus[c], r->cpus[c].since, r->tend);
	while (frec_calls__next_open(r->calls, &pos, &tid, &tgid, &frames, &n)) {
		if (!thread_selected(r, tid, tgid))
			continue;
		for (i = 0; i < n; i++) {
			const struct frec_fn *fn = frec_calls__fn(r->calls, frames[i].fn);

			if (fn && fn->has_return && in_range(r, frames[i].ts))
				r->fns[frames[i].fn].unfinished++;
		}
	}
}

/* ---- output ----------------------------------------------------------- */

static int cmp_thread(const void *a, const void *b)
{
	const struct tstat *x = a, *y = b;

	if (x->oncpu_ns != y->oncpu_ns)
		return x->oncpu_ns > y->oncpu_ns ? -1 : 1;
	if (x->switches != y->switches)
		return x->switches > y->switches ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct pstat *x = a, *y = b;

	if (x->oncpu_ns != y->oncpu_ns)
		return x->oncpu_ns > y->oncpu_ns ? -1 : 1;
	if (x->switches != y->switches)
		return x->switches > y->switches ? -1 : 1;
	return x->tgid < y->tgid ? -1 : x->tgid > y->tgid;
}

/* worst run-queue latency first: by max, then p99, then tid */
static int cmp_rq(const void *a, const void *b)
{
	const struct tstat *x = *(const struct tstat *const *)a, *y = *(const struct tstat *const *)b;
	__u64 px, py;

	if (x->rq->max != y->rq->max)
		return x->rq->max > y->rq->max ? -1 : 1;
	px = frec_hist__percentile(x->rq, 99);
	py = frec_hist__percentile(y->rq, 99);
	if (px != py)
		return px > py ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* The program name in a command line: the base name of its first word. */
static void argv0_name(const char *cmdline, char comm[FREC_COMM_LEN])
{
	size_t n = strcspn(cmdline, " ");
	const char *base = cmdline, *p;

	for (p = cmdline; p < cmdline + n; p++)
		if (*p == '/' && p + 1 < cmdline + n)
			base = p + 1;
	n -= (size_t)(base - cmdline);
	if (n > FREC_COMM_LEN - 1)
		n = FREC_COMM_LEN - 1;
	memcpy(comm, base, n);
	comm[n] = '\0';
}

static struct pstat *build_procs(struct report *r, size_t *np)
{
	struct frec_map idx;
	struct pstat *ps;
	size_t i, n = 0;

	ps = calloc(r->nthreads ? r->nthreads : 1, sizeof(*ps));
	if (!ps)
		return NULL;
	frec_map__init(&idx);
	for (i = 0; i < r->nthreads; i++) {
		const struct tstat *t = &r->threads[i];
		uint64_t *slot;
		bool created;
		struct pstat *p;

		slot = frec_map__put(&idx, t->tgid, &created);
		if (!slot) {
			free(ps);
			ps = NULL;
			goto out;
		}
		if (created) {
			uint64_t *cmd = frec_map__get(&r->pcmd, t->tgid);

			*slot = n;
			p = &ps[n++];
			p->tgid = t->tgid;
			p->cmdline = cmd ? (char *)(uintptr_t)*cmd : NULL;
			if (p->cmdline)
				argv0_name(p->cmdline, p->comm);
			else
				memcpy(p->comm, t->comm, FREC_COMM_LEN);
		}
		p = &ps[*slot];
		/* the process is named after its main thread when it ran */
		if (t->tid == t->tgid)
			memcpy(p->comm, t->comm, FREC_COMM_LEN);
		p->nthreads++;
		p->oncpu_ns += t->oncpu_ns;
		p->switches += t->switches;
		p->preempted += t->preempted;
	}
	qsort(ps, n, sizeof(*ps), cmp_proc);
	*np = n;
out:
	frec_map__fini(&idx);
	return ps;
}

static size_t rows(const struct report *r, size_t n)
{
	return r->o->top && r->o->top < n ? r->o->top : n;
}

static void print_text(struct report *r, struct frec_out *o, struct pstat *ps, size_t np,
		       struct tstat **rqs, size_t nrq)
{
	size_t i, n;

	frec_out__str(o, "snapshot ");
	frec_text__str(o, frec_walk__path(r->w), 4096);
	frec_out__str(o, ": ");
	frec_out__secs(o, r->lo);
	frec_out__str(o, " .. ");
	frec_out__secs(o, r->hi);
	frec_out__str(o, " (");
	frec_out__secs(o, r->hi - r->lo);
	frec_out__printf(o, " s), %llu generations, %llu events (%llu in range)",
			 (unsigned long long)r->gens, (unsigned long long)r->events,
			 (unsigned long long)r->in_range);
	if (r->o->has_pid)
		frec_out__printf(o, ", pid %u", r->o->pid);
	if (r->o->has_tid)
		frec_out__printf(o, ", tid %u", r->o->tid);
	frec_out__str(o, "\n");

	n = rows(r, r->nthreads);
	frec_out__printf(o, "\nOn-CPU time by thread (top %zu of %zu)\n", n, r->nthreads);
	frec_out__printf(o, "%8s %8s %-16s %16s %10s %10s\n", "TID", "PID", "COMM", "ON-CPU(ms)",
			 "SWITCHES", "PREEMPTED");
	for (i = 0; i < n; i++) {
		const struct tstat *t = &r->threads[i];

		frec_out__printf(o, "%8u %8u ", t->tid, t->tgid);
		frec_table__comm(o, t->comm, 16);
		frec_out__char(o, ' ');
		frec_table__ms(o, t->oncpu_ns, 16);
		frec_out__printf(o, " %10llu %10llu\n", (unsigned long long)t->switches,
				 (unsigned long long)t->preempted);
	}

	n = rows(r, np);
	frec_out__printf(o, "\nOn-CPU time by process (top %zu of %zu)\n", n, np);
	frec_out__printf(o, "%8s %8s %-16s %16s %10s %10s\n", "PID", "THREADS", "COMM",
			 "ON-CPU(ms)", "SWITCHES", "PREEMPTED");
	for (i = 0; i < n; i++) {
		frec_out__printf(o, "%8u %8u ", ps[i].tgid, ps[i].nthreads);
		frec_table__comm(o, ps[i].comm, 16);
		frec_out__char(o, ' ');
		frec_table__ms(o, ps[i].oncpu_ns, 16);
		frec_out__printf(o, " %10llu %10llu\n", (unsigned long long)ps[i].switches,
				 (unsigned long long)ps[i].preempted);
	}

	frec_out__str(o, "\nRun-queue latency (waking -> on CPU): ");
	frec_hist__text(o, &r->rq);
	frec_hist__text_log2(o, &r->rq, "  ");
	n = rows(r, nrq);
	frec_out__printf(o, "\nWorst threads by run-queue latency (top %zu of %zu)\n", n, nrq);
	frec_out__printf(o, "%8s %8s %-16s %10s %14s %14s %14s\n", "TID", "PID", "COMM", "COUNT",
			 "P50(us)", "P99(us)", "MAX(us)");
	for (i = 0; i < n; i++) {
		const struct tstat *t = rqs[i];

		frec_out__printf(o, "%8u %8u ", t->tid, t->tgid);
		frec_table__comm(o, t->comm, 16);
		frec_out__printf(o, " %10llu ", (unsigned long long)t->rq->count);
		frec_table__us(o, frec_hist__percentile(t->rq, 50), 14);
		frec_out__char(o, ' ');
		frec_table__us(o, frec_hist__percentile(t->rq, 99), 14);
		frec_out__char(o, ' ');
		frec_table__us(o, t->rq->max, 14);
		frec_out__char(o, '\n');
	}

	frec_out__printf(o, "\nProbe hits (%zu probes)\n", r->nhits);
	for (i = 0; i < r->nhits; i++) {
		frec_out__str(o, "  ");
		frec_probe__label(o, r->hits[i].name, r->hits[i].kind);
		frec_out__printf(o, ": %llu\n", (unsigned long long)r->hits[i].hits);
	}
	frec_out__printf(o, "\nCalls (entry -> return on the same thread)\n");
	for (i = 0; i < r->nfns; i++) {
		const struct frec_fn *fn = frec_calls__fn(r->calls, (int)i);
		const struct fnstat *f = &r->fns[i];

		frec_out__str(o, "  ");
		frec_text__str(o, fn->label, 4096);
		if (fn->usdt) {
			frec_out__printf(o, ": usdt hits %llu\n", (unsigned long long)f->hits);
			continue;
		}
		frec_out__printf(o, ": calls %llu, returned %llu, unfinished %llu, returns without entry %llu",
				 (unsigned long long)f->calls, (unsigned long long)f->returns,
				 (unsigned long long)f->unfinished, (unsigned long long)f->unmatched);
		if (!fn->has_return) {
			frec_out__str(o, " (no uretprobe: no latency)\n");
			continue;
		}
		frec_out__str(o, "\n    latency: ");
		frec_hist__text(o, &f->lat);
		frec_hist__text_log2(o, &f->lat, "    ");
	}

	frec_out__printf(o, "\nDrops: %llu records lost\n", (unsigned long long)r->lost_total);
	for (i = 0; i < r->ncpus_out; i++)
		frec_out__printf(o, "  cpu %zu: %llu\n", i,
				 (unsigned long long)(i < r->nlost_cpu ? r->lost_cpu[i] : 0));
	if (r->lost_nocpu)
		frec_out__printf(o, "  cpu unknown: %llu\n", (unsigned long long)r->lost_nocpu);
	if (r->gaps)
		frec_out__printf(o, "  gaps (nothing recorded, programs replaced): %llu, %.3f ms\n",
				 (unsigned long long)r->gaps, (double)r->gap_ns / 1e6);
	for (i = 0; i < r->nspans; i++) {
		if (!r->spans[i].count)
			continue;
		frec_out__str(o, "  ");
		frec_out__secs(o, r->spans[i].start);
		frec_out__str(o, " .. ");
		frec_out__secs(o, r->spans[i].end);
		frec_out__printf(o, ": %llu\n", (unsigned long long)r->spans[i].count);
	}
	frec_out__printf(o, "\nBroken switch chains: %llu (", (unsigned long long)r->breaks);
	frec_table__ms(o, r->break_ns, 0);
	frec_out__str(o, " ms counted for no thread)\n");
}

static void print_json(struct report *r, struct frec_out *o, struct pstat *ps, size_t np,
		       struct tstat **rqs, size_t nrq)
{
	size_t i, n;

	frec_out__str(o, "{\"file\":");
	frec_json__str(o, frec_walk__path(r->w), 4096);
	frec_out__printf(o, ",\"start_ns\":%llu,\"end_ns\":%llu,\"generations\":%llu,"
			 "\"events\":%llu,\"events_in_range\":%llu",
			 (unsigned long long)r->lo, (unsigned long long)r->hi,
			 (unsigned long long)r->gens, (unsigned long long)r->events,
			 (unsigned long long)r->in_range);
	frec_out__str(o, ",\"threads\":[");
	n = rows(r, r->nthreads);
	for (i = 0; i < n; i++) {
		const struct tstat *t = &r->threads[i];

		frec_out__printf(o, "%s{\"tid\":%u,\"pid\":%u,\"comm\":", i ? "," : "", t->tid, t->tgid);
		frec_json__str(o, t->comm, FREC_COMM_LEN);
		frec_out__printf(o, ",\"oncpu_ns\":%llu,\"switches\":%llu,\"preempted\":%llu}",
				 (unsigned long long)t->oncpu_ns, (unsigned long long)t->switches,
				 (unsigned long long)t->preempted);
	}
	frec_out__printf(o, "],\"threads_total\":%zu,\"processes\":[", r->nthreads);
	n = rows(r, np);
	for (i = 0; i < n; i++) {
		frec_out__printf(o, "%s{\"pid\":%u,\"threads\":%u,\"comm\":", i ? "," : "",
				 ps[i].tgid, ps[i].nthreads);
		frec_json__str(o, ps[i].comm, FREC_COMM_LEN);
		frec_out__str(o, ",\"cmdline\":");
		frec_json__str(o, ps[i].cmdline ? ps[i].cmdline : "", 65536);
		frec_out__printf(o, ",\"oncpu_ns\":%llu,\"switches\":%llu,\"preempted\":%llu}",
				 (unsigned long long)ps[i].oncpu_ns, (unsigned long long)ps[i].switches,
				 (unsigned long long)ps[i].preempted);
	}
	frec_out__printf(o, "],\"processes_total\":%zu,\"runqlat\":", np);
	frec_hist__json(o, &r->rq);
	frec_out__str(o, ",\"runqlat_threads\":[");
	n = rows(r, nrq);
	for (i = 0; i < n; i++) {
		frec_out__printf(o, "%s{\"tid\":%u,\"pid\":%u,\"comm\":", i ? "," : "", rqs[i]->tid,
				 rqs[i]->tgid);
		frec_json__str(o, rqs[i]->comm, FREC_COMM_LEN);
		frec_out__str(o, ",\"latency\":");
		frec_hist__json(o, rqs[i]->rq);
		frec_out__char(o, '}');
	}
	frec_out__str(o, "],\"probes\":[");
	for (i = 0; i < r->nhits; i++) {
		frec_out__str(o, i ? ",{\"name\":" : "{\"name\":");
		frec_json__str(o, r->hits[i].name, 4096);
		frec_out__printf(o, ",\"kind\":\"%s\",\"hits\":%llu}",
				 frec_probe__kind_name(r->hits[i].kind),
				 (unsigned long long)r->hits[i].hits);
	}
	frec_out__str(o, "],\"calls\":[");
	for (i = 0; i < r->nfns; i++) {
		const struct frec_fn *fn = frec_calls__fn(r->calls, (int)i);
		const struct fnstat *f = &r->fns[i];

		frec_out__str(o, i ? ",{\"func\":" : "{\"func\":");
		frec_json__str(o, fn->label, 4096);
		frec_out__printf(o, ",\"usdt\":%s,\"calls\":%llu,\"returns\":%llu,\"unfinished\":%llu,"
				 "\"unmatched_returns\":%llu,\"hits\":%llu,\"latency\":",
				 fn->usdt ? "true" : "false", (unsigned long long)f->calls,
				 (unsigned long long)f->returns, (unsigned long long)f->unfinished,
				 (unsigned long long)f->unmatched, (unsigned long long)f->hits);
		frec_hist__json(o, &f->lat);
		frec_out__char(o, '}');
	}
	frec_out__printf(o, "],\"drops\":{\"total\":%llu,\"by_cpu\":[",
			 (unsigned long long)r->lost_total);
	for (i = 0; i < r->ncpus_out; i++)
		frec_out__printf(o, "%s%llu", i ? "," : "",
				 (unsigned long long)(i < r->nlost_cpu ? r->lost_cpu[i] : 0));
	frec_out__printf(o, "],\"unknown_cpu\":%llu,\"gaps\":%llu,\"gap_ns\":%llu,\"by_generation\":[",
			 (unsigned long long)r->lost_nocpu, (unsigned long long)r->gaps,
			 (unsigned long long)r->gap_ns);
	n = 0;
	for (i = 0; i < r->nspans; i++) {
		if (!r->spans[i].count)
			continue;
		frec_out__printf(o, "%s{\"start_ns\":%llu,\"end_ns\":%llu,\"count\":%llu}",
				 n++ ? "," : "", (unsigned long long)r->spans[i].start,
				 (unsigned long long)r->spans[i].end,
				 (unsigned long long)r->spans[i].count);
	}
	frec_out__printf(o, "]},\"chain_breaks\":%llu,\"chain_break_unknown_ns\":%llu}\n",
			 (unsigned long long)r->breaks, (unsigned long long)r->break_ns);
}

static void report_free(struct report *r)
{
	size_t pos = 0, i;
	uint64_t v;

	for (i = 0; i < r->nthreads; i++) {
		if (r->threads[i].rq) {
			frec_hist__fini(r->threads[i].rq);
			free(r->threads[i].rq);
		}
	}
	free(r->threads);
	while (frec_map__next(&r->pcmd, &pos, NULL, &v))
		free((char *)(uintptr_t)v);
	frec_map__fini(&r->pcmd);
	frec_map__fini(&r->tidx);
	frec_map__fini(&r->running);
	frec_map__fini(&r->pending);
	frec_map__fini(&r->probe_ids);
	free(r->cpus);
	frec_hist__fini(&r->rq);
	for (i = 0; i < r->nfns; i++)
		frec_hist__fini(&r->fns[i].lat);
	free(r->fns);
	frec_calls__free(r->calls);
	for (i = 0; i < r->nhits; i++)
		free(r->hits[i].name);
	free(r->hits);
	free(r->lost_cpu);
	free(r->spans);
	frec_chain__free(r->chain);
}

int frec_report__run(const char *path, const struct frec_report_opts *opts, FILE *out, FILE *err)
{
	struct frec_walk_opts wo = { .sorted = true };
	struct report r;
	struct frec_out *o = NULL;
	struct pstat *ps = NULL;
	struct tstat **rqs = NULL;
	size_t np = 0, nrq = 0, i;
	int status, rc;

	memset(&r, 0, sizeof(r));
	r.o = opts;
	r.lo = 0;
	r.hi = UINT64_MAX;
	frec_map__init(&r.tidx);
	frec_map__init(&r.pcmd);
	frec_map__init(&r.running);
	frec_map__init(&r.pending);
	frec_map__init(&r.probe_ids);
	frec_hist__init(&r.rq);
	r.calls = frec_calls__new();
	r.chain = frec_chain__new();
	r.w = frec_walk__open(path, &wo, err, &status);
	if (!r.w) {
		report_free(&r);
		return status;
	}
	rc = r.calls && r.chain ? walk(&r) : -ENOMEM;
	if (rc) {
		fprintf(err, "frec: %s: %s\n", path, strerror(-rc));
		frec_walk__fail(r.w);
		goto out;
	}
	if (!r.have_t0)
		r.t0 = r.tend = 0;
	/* the range actually covered, for the headline and the clipping */
	if (r.lo < r.t0)
		r.lo = r.t0;
	if (r.hi > r.tend)
		r.hi = r.tend;
	if (r.hi < r.lo)
		r.hi = r.lo;
	finish(&r);
	r.ncpus_out = frec_walk__header(r.w)->ncpus;
	if (r.ncpus_out > FREC_MAX_CPUS)
		r.ncpus_out = FREC_MAX_CPUS;
	if (r.nlost_cpu > r.ncpus_out)
		r.ncpus_out = r.nlost_cpu;

	if (r.nthreads)	/* qsort's base must not be NULL, even for 0 items */
		qsort(r.threads, r.nthreads, sizeof(*r.threads), cmp_thread);
	/* the map of indices is stale after sorting; nothing uses it past here */
	ps = build_procs(&r, &np);
	rqs = calloc(r.nthreads ? r.nthreads : 1, sizeof(*rqs));
	if (!ps || !rqs) {
		fprintf(err, "frec: %s: %s\n", path, strerror(ENOMEM));
		frec_walk__fail(r.w);
		goto out;
	}
	for (i = 0; i < r.nthreads; i++)
		if (r.threads[i].rq && r.threads[i].rq->count)
			rqs[nrq++] = &r.threads[i];
	qsort(rqs, nrq, sizeof(*rqs), cmp_rq);

	o = frec_out__new(out, false);
	if (!o) {
		fprintf(err, "frec: %s\n", strerror(errno));
		frec_walk__fail(r.w);
		goto out;
	}
	if (opts->json)
		print_json(&r, o, ps, np, rqs, nrq);
	else
		print_text(&r, o, ps, np, rqs, nrq);
	rc = frec_out__close(o, NULL);
	if (rc) {
		fprintf(err, "frec: writing the output: %s\n", strerror(-rc));
		frec_walk__fail(r.w);
	}
out:
	free(ps);
	free(rqs);
	status = frec_walk__close(r.w);
	report_free(&r);
	return status;
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "since", required_argument, NULL, 's' },
		{ "until", required_argument, NULL, 'u' },
		{ "top", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct frec_report_opts o = { .top = 10 };
	const char *arg;
	int c;

	optind = 0;
	while ((c = getopt_long(argc, argv, "jp:t:s:u:n:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			o.json = true;
			break;
		case 'p':
			if (frec_opt__parse_u32(optarg, &o.pid))
				goto bad;
			o.has_pid = true;
			break;
		case 't':
			if (frec_opt__parse_u32(optarg, &o.tid))
				goto bad;
			o.has_tid = true;
			break;
		case 's':
		case 'u':
			arg = optarg[0] == '+' ? optarg + 1 : optarg;
			if (frec_opt__parse_secs(arg, c == 's' ? &o.since_ns : &o.until_ns))
				goto bad;
			if (c == 's') {
				o.has_since = true;
				o.since_rel = optarg[0] == '+';
			} else {
				o.has_until = true;
				o.until_rel = optarg[0] == '+';
			}
			break;
		case 'n':
			if (frec_opt__parse_u32(optarg, &o.top))
				goto bad;
			break;
		case 'h':
			frec_report__usage(stdout);
			return FREC_EXIT_OK;
		default:
			fprintf(stderr, "Try 'frec report --help'.\n");
			return FREC_EXIT_USAGE;
		}
	}
	if (argc - optind != 1) {
		fprintf(stderr, "frec report: expected one FILE, got %d; try 'frec report --help'\n",
			argc - optind);
		return FREC_EXIT_USAGE;
	}
	return frec_report__run(argv[optind], &o, stdout, stderr);
bad:
	fprintf(stderr, "frec report: bad value '%s' for -%c: %s; try 'frec report --help'\n",
		optarg, c, c == 's' || c == 'u' ? "want seconds like 12.5 or +0.25" :
		"want a non-negative integer");
	return FREC_EXIT_USAGE;
}
