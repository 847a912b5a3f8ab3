// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * frec report's losses: records lost, per CPU ("cpu unknown" for records
 * that named no CPU in range) and per generation; gaps (nothing recorded
 * on any CPU, as when the programs are replaced); and broken switch chains
 * (cpu_chain.h) with the time after them that counts for no thread: from
 * the last event seen of the thread switched in to the switch that named
 * another prev.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "analysis.h"
#include "table.h"
#include "walk.h"

struct lost_span {
	__u64 start, end, count;
};

struct losses {
	__u64 *lost_cpu;
	__u32 nlost_cpu;
	__u64 lost_total;
	__u64 lost_nocpu;	/* lost on no CPU in range: FREC_CPU_UNKNOWN */
	__u64 gaps, gap_ns;	/* nothing recorded (FREC_EV_GAP), in range */
	__u64 breaks;		/* broken switch chains in range */
	__u64 break_ns;		/* time after them not counted as anyone's */
	struct lost_span *spans;	/* one per generation walked */
	size_t nspans;
	__u32 ncpus_out;	/* CPUs listed */
};

static void *losses_new(void)
{
	return calloc(1, sizeof(struct losses));
}

static void losses_free(void *p)
{
	struct losses *a = p;

	if (!a)
		return;
	free(a->lost_cpu);
	free(a->spans);
	free(a);
}

static int losses_gen(void *p, const struct frec_report_ctx *ctx)
{
	const struct frec_gen_info *gi = frec_walk__gen_info(ctx->walk);
	struct losses *a = p;
	struct lost_span *sp;

	sp = realloc(a->spans, (a->nspans + 1) * sizeof(*sp));
	if (!sp)
		return -ENOMEM;
	a->spans = sp;
	sp[a->nspans].start = gi->start_ts;
	sp[a->nspans].end = gi->end_ts;
	sp[a->nspans].count = 0;
	a->nspans++;
	return 0;
}

static int on_lost(struct losses *a, const struct frec_event *ev)
{
	if (ev->cpu < FREC_MAX_CPUS && ev->cpu >= a->nlost_cpu) {
		__u64 *l = realloc(a->lost_cpu, (ev->cpu + 1) * sizeof(*l));

		if (!l)
			return -ENOMEM;
		memset(l + a->nlost_cpu, 0, (ev->cpu + 1 - a->nlost_cpu) * sizeof(*l));
		a->lost_cpu = l;
		a->nlost_cpu = ev->cpu + 1;
	}
	if (ev->cpu < a->nlost_cpu)
		a->lost_cpu[ev->cpu] += ev->lost.count;
	else
		a->lost_nocpu += ev->lost.count;
	a->lost_total += ev->lost.count;
	if (a->nspans)
		a->spans[a->nspans - 1].count += ev->lost.count;
	return 0;
}

static int losses_feed(void *p, const struct frec_report_ctx *ctx, const struct frec_event *ev)
{
	struct losses *a = p;

	if (!frec_report__in_range(ctx, ev->ts))
		return 0;
	switch (ev->type) {
	case FREC_EV_SCHED_SWITCH:
		if (ctx->chain != FREC_CHAIN_BREAK || !frec_cpu_state__cpu(ctx->cpus, ev->cpu))
			break;
		a->breaks++;
		/* who ran from the last event seen of the thread switched in
		 * until this switch is not known */
		if (frec_cpu_state__break_ends_run(ctx->cpus, ev, &ctx->run))
			a->break_ns += ev->ts - ctx->run.last_ts;
		break;
	case FREC_EV_LOST:
		return on_lost(a, ev);
	case FREC_EV_GAP:
		a->gaps++;
		a->gap_ns += ev->gap.last_ts - ev->gap.first_ts;
		break;
	default:
		break;
	}
	return 0;
}

static int losses_finish(void *p, const struct frec_report_ctx *ctx)
{
	struct losses *a = p;

	a->ncpus_out = frec_walk__header(ctx->walk)->ncpus;
	if (a->ncpus_out > FREC_MAX_CPUS)
		a->ncpus_out = FREC_MAX_CPUS;
	if (a->nlost_cpu > a->ncpus_out)
		a->ncpus_out = a->nlost_cpu;
	return 0;
}

static void losses_text(void *p, const struct frec_report_ctx *ctx, struct frec_out *o)
{
	struct losses *a = p;
	size_t i;

	(void)ctx;
	frec_out__printf(o, "\nDrops: %llu records lost\n", (unsigned long long)a->lost_total);
	for (i = 0; i < a->ncpus_out; i++)
		frec_out__printf(o, "  cpu %zu: %llu\n", i,
				 (unsigned long long)(i < a->nlost_cpu ? a->lost_cpu[i] : 0));
	if (a->lost_nocpu)
		frec_out__printf(o, "  cpu unknown: %llu\n", (unsigned long long)a->lost_nocpu);
	if (a->gaps)
		frec_out__printf(o, "  gaps (nothing recorded, programs replaced): %llu, %.3f ms\n",
				 (unsigned long long)a->gaps, (double)a->gap_ns / 1e6);
	for (i = 0; i < a->nspans; i++) {
		if (!a->spans[i].count)
			continue;
		frec_out__str(o, "  ");
		frec_out__secs(o, a->spans[i].start);
		frec_out__str(o, " .. ");
		frec_out__secs(o, a->spans[i].end);
		frec_out__printf(o, ": %llu\n", (unsigned long long)a->spans[i].count);
	}
	frec_out__printf(o, "\nBroken switch chains: %llu (", (unsigned long long)a->breaks);
	frec_table__ms(o, a->break_ns, 0);
	frec_out__str(o, " ms counted for no thread)\n");
}

static void losses_json(void *p, const struct frec_report_ctx *ctx, struct frec_out *o)
{
	struct losses *a = p;
	size_t i, n;

	(void)ctx;
	frec_out__printf(o, ",\"drops\":{\"total\":%llu,\"by_cpu\":[",
			 (unsigned long long)a->lost_total);
	for (i = 0; i < a->ncpus_out; i++)
		frec_out__printf(o, "%s%llu", i ? "," : "",
				 (unsigned long long)(i < a->nlost_cpu ? a->lost_cpu[i] : 0));
	frec_out__printf(o, "],\"unknown_cpu\":%llu,\"gaps\":%llu,\"gap_ns\":%llu,\"by_generation\":[",
			 (unsigned long long)a->lost_nocpu, (unsigned long long)a->gaps,
			 (unsigned long long)a->gap_ns);
	n = 0;
	for (i = 0; i < a->nspans; i++) {
		if (!a->spans[i].count)
			continue;
		frec_out__printf(o, "%s{\"start_ns\":%llu,\"end_ns\":%llu,\"count\":%llu}",
				 n++ ? "," : "", (unsigned long long)a->spans[i].start,
				 (unsigned long long)a->spans[i].end,
				 (unsigned long long)a->spans[i].count);
	}
	frec_out__printf(o, "]},\"chain_breaks\":%llu,\"chain_break_unknown_ns\":%llu",
			 (unsigned long long)a->breaks, (unsigned long long)a->break_ns);
}

const struct frec_analysis_ops frec_analysis_losses = {
	.name = "losses",
	.new = losses_new,
	.gen = losses_gen,
	.feed = losses_feed,
	.finish = losses_finish,
	.text = losses_text,
	.json = losses_json,
	.free = losses_free,
};
