// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * frec report's on-CPU time: per thread and per process, the time on a CPU
 * (from a switch in to the switch out, clipped to the range), the times
 * switched out and how many of those while still runnable (preempted).
 *
 * A CPU's time counts only while it is known (cpu_state.h): records lost on
 * it, a gap or a skipped generation end the run of its thread at that
 * point, and its time counts again from its next switch. A broken switch
 * chain (cpu_chain.h) ends the run of the thread switched in at its last
 * event seen on the CPU; the rest is nobody's (analysis_losses.c counts
 * it). Tasks still on a CPU at the end ran until the end of the data.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "analysis.h"
#include "json.h"
#include "map.h"
#include "table.h"
#include "walk.h"

struct tcpu {
	__u64 oncpu_ns;
	__u64 switches;		/* times switched out */
	__u64 preempted;	/* of which while runnable (R, R+) */
};

struct pstat {
	__u32 tgid;
	__u32 nthreads;
	char comm[FREC_COMM_LEN];
	const char *cmdline;
	struct tcpu sum;	/* of its threads */
};

struct cpu_time {
	struct tcpu *t;			/* by thread index (report_threads.h) */
	size_t nt;
	/* after finish */
	const struct frec_report_threads *threads;
	size_t *order;			/* thread indices, most time first */
	size_t norder;
	struct pstat *ps;		/* processes, most time first */
	size_t np;
	int err;
};

static void *cpu_time_new(void)
{
	return calloc(1, sizeof(struct cpu_time));
}

static void cpu_time_free(void *p)
{
	struct cpu_time *a = p;

	if (!a)
		return;
	free(a->t);
	free(a->order);
	free(a->ps);
	free(a);
}

/* The numbers of a thread, added to the report's table on first use; c
 * names a thread the current generation may not (one that ran before a
 * skipped generation). */
static struct tcpu *stat_of(struct cpu_time *a, const struct frec_report_ctx *ctx, __u32 tid,
			    const struct frec_cpu *c)
{
	bool hint = c && c->tid == tid;
	int i = frec_report_threads__get(ctx->threads, tid, hint ? c->comm : NULL,
					 hint ? c->tgid : 0);

	if (i < 0) {
		a->err = i;
		return NULL;
	}
	if ((size_t)i >= a->nt) {
		size_t n = frec_report_threads__count(ctx->threads);
		struct tcpu *t = realloc(a->t, n * sizeof(*t));

		if (!t) {
			a->err = -ENOMEM;
			return NULL;
		}
		memset(t + a->nt, 0, (n - a->nt) * sizeof(*t));
		a->t = t;
		a->nt = n;
	}
	return &a->t[i];
}

static void add_oncpu(struct cpu_time *a, const struct frec_report_ctx *ctx, __u32 tid,
		      const struct frec_cpu *hint, __u64 from, __u64 to)
{
	const struct frec_thread *t;
	struct tcpu *s;
	__u32 tgid;

	if (!tid)
		return;		/* the idle task */
	if (from < ctx->lo)
		from = ctx->lo;
	if (to > ctx->hi)
		to = ctx->hi;
	if (to <= from)
		return;
	t = frec_walk__thread(ctx->walk, tid);
	tgid = t && t->tgid ? t->tgid : hint && hint->tid == tid && hint->tgid ? hint->tgid : tid;
	if (!frec_report__selected(ctx, tid, tgid))
		return;
	s = stat_of(a, ctx, tid, hint);
	if (s)
		s->oncpu_ns += to - from;
}

/* The run on c ends at ts, if its thread is known. */
static void end_run(struct cpu_time *a, const struct frec_report_ctx *ctx,
		    const struct frec_cpu *c, __u64 ts)
{
	if (c && c->valid && c->tid_known)
		add_oncpu(a, ctx, c->tid, c, c->since, ts);
}

static void end_all_runs(struct cpu_time *a, const struct frec_report_ctx *ctx, __u64 ts)
{
	for (__u32 i = 0; i < frec_cpu_state__ncpus(ctx->cpus); i++)
		end_run(a, ctx, frec_cpu_state__cpu(ctx->cpus, i), ts);
}

static void on_switch(struct cpu_time *a, const struct frec_report_ctx *ctx,
		      const struct frec_event *ev)
{
	struct frec_cpu *c = frec_cpu_state__cpu(ctx->cpus, ev->cpu);
	__u32 prev = ev->sw.prev_pid;

	if (ctx->chain == FREC_CHAIN_BREAK) {
		/* the thread switched in ran until its last event seen; prev's
		 * run began at a switch the kernel did not report */
		if (frec_cpu_state__break_ends_run(ctx->cpus, ev, &ctx->run))
			add_oncpu(a, ctx, ctx->run.tid, c, c->since, ctx->run.last_ts);
	} else if (c && c->valid) {
		add_oncpu(a, ctx, prev, c, ev->ts >= c->since ? c->since : ev->ts, ev->ts);
	}
	if (prev && frec_report__in_range(ctx, ev->ts) &&
	    frec_report__selected(ctx, prev, frec_walk__tgid(ctx->walk, prev))) {
		struct tcpu *s = stat_of(a, ctx, prev, NULL);

		if (s) {
			s->switches++;
			if (!(ev->sw.prev_state & 0xff))
				s->preempted++;
		}
	}
}

static int cpu_time_feed(void *p, const struct frec_report_ctx *ctx, const struct frec_event *ev)
{
	struct cpu_time *a = p;

	switch (ev->type) {
	case FREC_EV_SCHED_SWITCH:
		on_switch(a, ctx, ev);
		break;
	case FREC_EV_LOST:
		/* what ran on the CPU while records were lost is unknown: its
		 * task counts until now and no longer */
		if (ev->cpu == FREC_CPU_UNKNOWN)
			end_all_runs(a, ctx, ev->ts);
		else
			end_run(a, ctx, frec_cpu_state__cpu(ctx->cpus, ev->cpu), ev->ts);
		break;
	case FREC_EV_GAP:
		end_all_runs(a, ctx, ev->ts);
		break;
	default:
		break;
	}
	return a->err;
}

static int cpu_time_gen(void *p, const struct frec_report_ctx *ctx)
{
	struct cpu_time *a = p;

	/* after a skipped generation what ran was seen running until the end
	 * of the last intact one */
	if (ctx->damaged)
		end_all_runs(a, ctx, ctx->last_gen_end);
	return a->err;
}

/* ---- tables ----------------------------------------------------------- */

static const struct tcpu zero;

static const struct tcpu *tcpu_at(const struct cpu_time *a, size_t i)
{
	return i < a->nt ? &a->t[i] : &zero;
}

/* qsort has no context argument: the one being sorted */
static const struct cpu_time *sorting;

static int cmp_thread(const void *x, const void *y)
{
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	const struct tcpu *a = tcpu_at(sorting, i), *b = tcpu_at(sorting, j);
	__u32 ta = frec_report_threads__at(sorting->threads, i)->tid;
	__u32 tb = frec_report_threads__at(sorting->threads, j)->tid;

	if (a->oncpu_ns != b->oncpu_ns)
		return a->oncpu_ns > b->oncpu_ns ? -1 : 1;
	if (a->switches != b->switches)
		return a->switches > b->switches ? -1 : 1;
	return ta < tb ? -1 : ta > tb;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct pstat *x = a, *y = b;

	if (x->sum.oncpu_ns != y->sum.oncpu_ns)
		return x->sum.oncpu_ns > y->sum.oncpu_ns ? -1 : 1;
	if (x->sum.switches != y->sum.switches)
		return x->sum.switches > y->sum.switches ? -1 : 1;
	return x->tgid < y->tgid ? -1 : x->tgid > y->tgid;
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

/* The processes of the threads, in the threads' order until sorted: a
 * process without a command line is named after its first thread. */
static int build_procs(struct cpu_time *a)
{
	struct frec_map idx;
	size_t i, n = 0;
	int rc = 0;

	a->ps = calloc(a->norder ? a->norder : 1, sizeof(*a->ps));
	if (!a->ps)
		return -ENOMEM;
	frec_map__init(&idx);
	for (i = 0; i < a->norder; i++) {
		const struct frec_report_thread *t = frec_report_threads__at(a->threads, a->order[i]);
		const struct tcpu *s = tcpu_at(a, a->order[i]);
		uint64_t *slot;
		bool created;
		struct pstat *p;

		slot = frec_map__put(&idx, t->tgid, &created);
		if (!slot) {
			rc = -ENOMEM;
			goto out;
		}
		if (created) {
			*slot = n;
			p = &a->ps[n++];
			p->tgid = t->tgid;
			p->cmdline = frec_report_threads__cmdline(a->threads, t->tgid);
			if (p->cmdline)
				argv0_name(p->cmdline, p->comm);
			else
				memcpy(p->comm, t->comm, FREC_COMM_LEN);
		}
		p = &a->ps[*slot];
		/* the process is named after its main thread when it ran */
		if (t->tid == t->tgid)
			memcpy(p->comm, t->comm, FREC_COMM_LEN);
		p->nthreads++;
		p->sum.oncpu_ns += s->oncpu_ns;
		p->sum.switches += s->switches;
		p->sum.preempted += s->preempted;
	}
	qsort(a->ps, n, sizeof(*a->ps), cmp_proc);
	a->np = n;
out:
	frec_map__fini(&idx);
	return rc;
}

static int cpu_time_finish(void *p, const struct frec_report_ctx *ctx)
{
	struct cpu_time *a = p;
	size_t i;

	/* tasks still on their CPU ran until the end of the data */
	end_all_runs(a, ctx, ctx->tend);
	if (a->err)
		return a->err;
	a->threads = ctx->threads;
	a->norder = frec_report_threads__count(ctx->threads);
	a->order = calloc(a->norder ? a->norder : 1, sizeof(*a->order));
	if (!a->order)
		return -ENOMEM;
	for (i = 0; i < a->norder; i++)
		a->order[i] = i;
	sorting = a;
	qsort(a->order, a->norder, sizeof(*a->order), cmp_thread);
	sorting = NULL;
	return build_procs(a);
}

/* A row of either table: two ids, a name, the numbers. */
static void text_row(struct frec_out *o, __u32 id, __u32 id2, const char *comm,
		     const struct tcpu *s)
{
	frec_out__printf(o, "%8u %8u ", id, id2);
	frec_table__comm(o, comm, 16);
	frec_out__char(o, ' ');
	frec_table__ms(o, s->oncpu_ns, 16);
	frec_out__printf(o, " %10llu %10llu\n", (unsigned long long)s->switches,
			 (unsigned long long)s->preempted);
}

/* The numbers that end either table's JSON object. */
static void json_numbers(struct frec_out *o, const struct tcpu *s)
{
	frec_out__printf(o, ",\"oncpu_ns\":%llu,\"switches\":%llu,\"preempted\":%llu}",
			 (unsigned long long)s->oncpu_ns, (unsigned long long)s->switches,
			 (unsigned long long)s->preempted);
}

static void cpu_time_text(void *p, const struct frec_report_ctx *ctx, struct frec_out *o)
{
	struct cpu_time *a = p;
	size_t i, n;

	n = frec_report__rows(ctx, a->norder);
	frec_out__printf(o, "\nOn-CPU time by thread (top %zu of %zu)\n", n, a->norder);
	frec_out__printf(o, "%8s %8s %-16s %16s %10s %10s\n", "TID", "PID", "COMM", "ON-CPU(ms)",
			 "SWITCHES", "PREEMPTED");
	for (i = 0; i < n; i++) {
		const struct frec_report_thread *t = frec_report_threads__at(a->threads, a->order[i]);

		text_row(o, t->tid, t->tgid, t->comm, tcpu_at(a, a->order[i]));
	}

	n = frec_report__rows(ctx, a->np);
	frec_out__printf(o, "\nOn-CPU time by process (top %zu of %zu)\n", n, a->np);
	frec_out__printf(o, "%8s %8s %-16s %16s %10s %10s\n", "PID", "THREADS", "COMM",
			 "ON-CPU(ms)", "SWITCHES", "PREEMPTED");
	for (i = 0; i < n; i++)
		text_row(o, a->ps[i].tgid, a->ps[i].nthreads, a->ps[i].comm, &a->ps[i].sum);
}

static void cpu_time_json(void *p, const struct frec_report_ctx *ctx, struct frec_out *o)
{
	struct cpu_time *a = p;
	size_t i, n;

	frec_out__str(o, ",\"threads\":[");
	n = frec_report__rows(ctx, a->norder);
	for (i = 0; i < n; i++) {
		const struct frec_report_thread *t = frec_report_threads__at(a->threads, a->order[i]);

		frec_out__printf(o, "%s{\"tid\":%u,\"pid\":%u,\"comm\":", i ? "," : "", t->tid, t->tgid);
		frec_json__str(o, t->comm, FREC_COMM_LEN);
		json_numbers(o, tcpu_at(a, a->order[i]));
	}
	frec_out__printf(o, "],\"threads_total\":%zu,\"processes\":[", a->norder);
	n = frec_report__rows(ctx, a->np);
	for (i = 0; i < n; i++) {
		const struct pstat *ps = &a->ps[i];

		frec_out__printf(o, "%s{\"pid\":%u,\"threads\":%u,\"comm\":", i ? "," : "",
				 ps->tgid, ps->nthreads);
		frec_json__str(o, ps->comm, FREC_COMM_LEN);
		frec_out__str(o, ",\"cmdline\":");
		frec_json__str(o, ps->cmdline ? ps->cmdline : "", 65536);
		json_numbers(o, &ps->sum);
	}
	frec_out__printf(o, "],\"processes_total\":%zu", a->np);
}

const struct frec_analysis_ops frec_analysis_cpu_time = {
	.name = "cpu-time",
	.new = cpu_time_new,
	.gen = cpu_time_gen,
	.feed = cpu_time_feed,
	.finish = cpu_time_finish,
	.text = cpu_time_text,
	.json = cpu_time_json,
	.free = cpu_time_free,
};
