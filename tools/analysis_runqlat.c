// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * frec report's run-queue latency: from the first sched_waking (or
 * sched_wakeup, sched_wakeup_new) of a task not on a CPU to its switch onto
 * a CPU, overall and per thread (the worst threads by max, then p99).
 *
 * A wakeup of a task still on its CPU never queued it; neither did one
 * answered by the task's own switch out (it had not left the CPU yet).
 * Where the CPUs' state became unknown (records lost, a gap, a skipped
 * generation) the waits begun before are dropped: a bogus wait is worse
 * than a missing one. A thread that exits waits no more.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "analysis.h"
#include "hist.h"
#include "json.h"
#include "map.h"
#include "table.h"
#include "walk.h"

struct runqlat {
	struct frec_map pending;	/* tid -> ts of the first wakeup not yet served */
	struct frec_hist all;
	struct frec_hist **th;		/* by thread index, allocated at its first sample */
	size_t nth;
	/* after finish */
	const struct frec_report_threads *threads;
	size_t *worst;			/* thread indices with samples, worst first */
	size_t nworst;
	int err;
};

static void *runqlat_new(void)
{
	struct runqlat *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	frec_map__init(&a->pending);
	frec_hist__init(&a->all);
	return a;
}

static void runqlat_free(void *p)
{
	struct runqlat *a = p;

	if (!a)
		return;
	for (size_t i = 0; i < a->nth; i++) {
		if (a->th[i]) {
			frec_hist__fini(a->th[i]);
			free(a->th[i]);
		}
	}
	free(a->th);
	free(a->worst);
	frec_hist__fini(&a->all);
	frec_map__fini(&a->pending);
	free(a);
}

/* The histogram of thread index i, NULL when memory ran out. */
static struct frec_hist *hist_of(struct runqlat *a, const struct frec_report_ctx *ctx, int i)
{
	if ((size_t)i >= a->nth) {
		size_t n = frec_report_threads__count(ctx->threads);
		struct frec_hist **th = realloc(a->th, n * sizeof(*th));

		if (!th) {
			a->err = -ENOMEM;
			return NULL;
		}
		memset(th + a->nth, 0, (n - a->nth) * sizeof(*th));
		a->th = th;
		a->nth = n;
	}
	if (!a->th[i]) {
		a->th[i] = malloc(sizeof(*a->th[i]));
		if (!a->th[i])
			return NULL;
		frec_hist__init(a->th[i]);
	}
	return a->th[i];
}

static void on_switch(struct runqlat *a, const struct frec_report_ctx *ctx,
		      const struct frec_event *ev)
{
	__u32 prev = ev->sw.prev_pid, next = ev->sw.next_pid;
	struct frec_hist *h;
	uint64_t *wake;
	__u64 lat;
	int i;

	/* a wakeup of a task that had not yet left the CPU never queued it */
	if (prev)
		frec_map__del(&a->pending, prev);
	if (!next)
		return;
	wake = frec_map__get(&a->pending, next);
	if (!wake)
		return;
	lat = ev->ts >= *wake ? ev->ts - *wake : 0;
	frec_map__del(&a->pending, next);
	if (!frec_report__in_range(ctx, ev->ts) ||
	    !frec_report__selected(ctx, next, frec_walk__tgid(ctx->walk, next)))
		return;
	i = frec_report_threads__get(ctx->threads, next, NULL, 0);
	frec_hist__add(&a->all, lat);
	if (i < 0) {
		a->err = i;
		return;
	}
	h = hist_of(a, ctx, i);
	if (h)
		frec_hist__add(h, lat);
}

static void on_wake(struct runqlat *a, const struct frec_report_ctx *ctx,
		    const struct frec_event *ev)
{
	uint64_t *slot;
	bool created;

	if (!ev->wake.pid || frec_cpu_state__running(ctx->cpus, ev->wake.pid))
		return;		/* woken before it got off its CPU: not queued */
	slot = frec_map__put(&a->pending, ev->wake.pid, &created);
	if (slot && created)
		*slot = ev->ts;	/* runnable since the first wakeup */
}

static int runqlat_feed(void *p, const struct frec_report_ctx *ctx, const struct frec_event *ev)
{
	struct runqlat *a = p;

	switch (ev->type) {
	case FREC_EV_SCHED_SWITCH:
		on_switch(a, ctx, ev);
		break;
	case FREC_EV_SCHED_WAKING:
	case FREC_EV_SCHED_WAKEUP:
	case FREC_EV_SCHED_WAKEUP_NEW:
		on_wake(a, ctx, ev);
		break;
	case FREC_EV_PROCESS_EXIT:
		frec_map__del(&a->pending, ev->exit.pid);
		break;
	case FREC_EV_LOST:
	case FREC_EV_GAP:
		frec_map__clear(&a->pending);	/* who runs where may be stale */
		break;
	default:
		break;
	}
	return a->err;
}

static int runqlat_gen(void *p, const struct frec_report_ctx *ctx)
{
	struct runqlat *a = p;

	if (ctx->damaged)
		frec_map__clear(&a->pending);
	return 0;
}

/* qsort has no context argument: the one being sorted */
static const struct runqlat *sorting;

/* worst run-queue latency first: by max, then p99, then tid */
static int cmp_worst(const void *x, const void *y)
{
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	const struct frec_hist *a = sorting->th[i], *b = sorting->th[j];
	__u32 ta = frec_report_threads__at(sorting->threads, i)->tid;
	__u32 tb = frec_report_threads__at(sorting->threads, j)->tid;
	__u64 pa, pb;

	if (a->max != b->max)
		return a->max > b->max ? -1 : 1;
	pa = frec_hist__percentile(a, 99);
	pb = frec_hist__percentile(b, 99);
	if (pa != pb)
		return pa > pb ? -1 : 1;
	return ta < tb ? -1 : ta > tb;
}

static int runqlat_finish(void *p, const struct frec_report_ctx *ctx)
{
	struct runqlat *a = p;

	a->threads = ctx->threads;
	a->worst = calloc(a->nth ? a->nth : 1, sizeof(*a->worst));
	if (!a->worst)
		return -ENOMEM;
	for (size_t i = 0; i < a->nth; i++)
		if (a->th[i] && a->th[i]->count)
			a->worst[a->nworst++] = i;
	sorting = a;
	qsort(a->worst, a->nworst, sizeof(*a->worst), cmp_worst);
	sorting = NULL;
	return 0;
}

static void runqlat_text(void *p, const struct frec_report_ctx *ctx, struct frec_out *o)
{
	struct runqlat *a = p;
	size_t i, n;

	frec_out__str(o, "\nRun-queue latency (waking -> on CPU): ");
	frec_hist__text(o, &a->all);
	frec_hist__text_log2(o, &a->all, "  ");
	n = frec_report__rows(ctx, a->nworst);
	frec_out__printf(o, "\nWorst threads by run-queue latency (top %zu of %zu)\n", n, a->nworst);
	frec_out__printf(o, "%8s %8s %-16s %10s %14s %14s %14s\n", "TID", "PID", "COMM", "COUNT",
			 "P50(us)", "P99(us)", "MAX(us)");
	for (i = 0; i < n; i++) {
		const struct frec_report_thread *t = frec_report_threads__at(a->threads, a->worst[i]);
		const struct frec_hist *h = a->th[a->worst[i]];

		frec_out__printf(o, "%8u %8u ", t->tid, t->tgid);
		frec_table__comm(o, t->comm, 16);
		frec_out__printf(o, " %10llu ", (unsigned long long)h->count);
		frec_table__us(o, frec_hist__percentile(h, 50), 14);
		frec_out__char(o, ' ');
		frec_table__us(o, frec_hist__percentile(h, 99), 14);
		frec_out__char(o, ' ');
		frec_table__us(o, h->max, 14);
		frec_out__char(o, '\n');
	}
}

static void runqlat_json(void *p, const struct frec_report_ctx *ctx, struct frec_out *o)
{
	struct runqlat *a = p;
	size_t i, n;

	frec_out__str(o, ",\"runqlat\":");
	frec_hist__json(o, &a->all);
	frec_out__str(o, ",\"runqlat_threads\":[");
	n = frec_report__rows(ctx, a->nworst);
	for (i = 0; i < n; i++) {
		const struct frec_report_thread *t = frec_report_threads__at(a->threads, a->worst[i]);

		frec_out__printf(o, "%s{\"tid\":%u,\"pid\":%u,\"comm\":", i ? "," : "", t->tid,
				 t->tgid);
		frec_json__str(o, t->comm, FREC_COMM_LEN);
		frec_out__str(o, ",\"latency\":");
		frec_hist__json(o, a->th[a->worst[i]]);
		frec_out__char(o, '}');
	}
	frec_out__char(o, ']');
}

const struct frec_analysis_ops frec_analysis_runqlat = {
	.name = "runqlat",
	.new = runqlat_new,
	.gen = runqlat_gen,
	.feed = runqlat_feed,
	.finish = runqlat_finish,
	.text = runqlat_text,
	.json = runqlat_json,
	.free = runqlat_free,
};
