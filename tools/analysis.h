/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The analyses of frec report, each in a file of its own behind one
 * interface. report.c owns the options, the walk and the time range, and
 * keeps a table of analyses (a new analysis is one file, its ops declared
 * here, and one line in that table). For every analysis, in table order:
 *
 *   new()            its state, or NULL on ENOMEM;
 *   gen(a, ctx)      a generation begins (ctx->damaged: one was skipped
 *                    just before it); may be NULL;
 *   feed(a, ctx, ev) each event, in time order, with its chain verdict in
 *                    ctx; the shared state (ctx->cpus, ctx->threads) is as
 *                    it was before the event;
 *   finish(a, ctx)   the end of the data: ctx->lo and ctx->hi are now the
 *                    range actually covered; sort, build the tables;
 *   text(a, ctx, o), json(a, ctx, o)
 *                    its sections, in table order after the headline: text
 *                    begins with the blank line before its first title;
 *                    JSON writes its members, each preceded by a comma,
 *                    into the report's one object;
 *   free(a)          (NULL is fine).
 * gen, feed and finish return 0 or -errno (-ENOMEM): the report then fails
 * with that error and prints nothing. Intervals and counts are clipped to
 * [ctx->lo, ctx->hi] by each analysis (frec_report__in_range) and narrowed
 * to the threads --pid and --tid select (frec_report__selected).
 *
 * Everything runs on the one thread that walks the snapshot.
 */
#ifndef FREC_TOOLS_ANALYSIS_H
#define FREC_TOOLS_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <frec/snapshot.h>
#include "cpu_chain.h"
#include "cpu_state.h"
#include "out.h"
#include "report_threads.h"
#include "tools.h"

struct frec_walk;

/* What the report shares with its analyses; read-only to them, except for
 * the thread table (they add the threads they count). */
struct frec_report_ctx {
	const struct frec_report_opts *opts;
	struct frec_walk *walk;
	__u64 lo, hi;			/* the time range, inclusive */
	__u64 tend;			/* last covered ts so far (in finish: the end) */
	__u64 last_gen_end;		/* end of the last intact generation walked */
	bool damaged;			/* gen(): a damaged generation was skipped before */
	enum frec_chain_verdict chain;	/* feed(): the event's switch chain verdict */
	struct frec_chain_run run;	/* feed(): for FREC_CHAIN_BREAK, the run it ends */
	struct frec_cpu_state *cpus;	/* who is on each CPU */
	struct frec_report_threads *threads;	/* the threads the report lists */
};

static inline bool frec_report__in_range(const struct frec_report_ctx *ctx, __u64 ts)
{
	return ts >= ctx->lo && ts <= ctx->hi;
}

/* Whether the thread is in --cgroup PATH or below, as of the current event
 * (analysis_cgroups.c). */
bool frec_report__in_cgroup(const struct frec_report_ctx *ctx, __u32 tid);

/* Whether --pid, --tid and --cgroup select the thread. */
static inline bool frec_report__selected(const struct frec_report_ctx *ctx, __u32 tid, __u32 tgid)
{
	if (ctx->opts->has_tid && tid != ctx->opts->tid)
		return false;
	if (ctx->opts->has_pid && tgid != ctx->opts->pid)
		return false;
	if (ctx->opts->cgroup && !frec_report__in_cgroup(ctx, tid))
		return false;
	return true;
}

/* Rows of a table of n: --top of them (0: all). */
static inline size_t frec_report__rows(const struct frec_report_ctx *ctx, size_t n)
{
	return ctx->opts->top && ctx->opts->top < n ? ctx->opts->top : n;
}

struct frec_analysis_ops {
	const char *name;
	void *(*new)(void);
	int (*gen)(void *a, const struct frec_report_ctx *ctx);
	int (*feed)(void *a, const struct frec_report_ctx *ctx, const struct frec_event *ev);
	int (*finish)(void *a, const struct frec_report_ctx *ctx);
	void (*text)(void *a, const struct frec_report_ctx *ctx, struct frec_out *o);
	void (*json)(void *a, const struct frec_report_ctx *ctx, struct frec_out *o);
	void (*free)(void *a);
};

/* The analyses, in the order report prints them. */
extern const struct frec_analysis_ops frec_analysis_cpu_time;	/* analysis_cpu_time.c */
extern const struct frec_analysis_ops frec_analysis_runqlat;	/* analysis_runqlat.c */
extern const struct frec_analysis_ops frec_analysis_cgroups;	/* analysis_cgroups.c */
extern const struct frec_analysis_ops frec_analysis_calls;	/* analysis_calls.c */
extern const struct frec_analysis_ops frec_analysis_losses;	/* analysis_losses.c */
extern const struct frec_analysis_ops frec_analysis_triggers;	/* analysis_triggers.c */
extern const struct frec_analysis_ops frec_analysis_offcpu;	/* analysis_offcpu.c */
/* --folded: the off-CPU analysis's lines, instead of the report. 0 or -ENOMEM. */
int frec_analysis_offcpu__folded(void *a, const struct frec_report_ctx *ctx, struct frec_out *o);

#endif /* FREC_TOOLS_ANALYSIS_H */
