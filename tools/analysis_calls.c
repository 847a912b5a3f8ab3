// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * frec report's probe calls: the hits of each probe (by name and kind,
 * across generations), and per probed function the calls, returns,
 * unfinished calls, returns without an entry, USDT hits and the entry ->
 * return latency on the same thread (calls.h pairs them).
 *
 * An entry that leaves its thread's stack without a return is an
 * unfinished call when the function has a return probe, and a plain hit
 * (already counted) when it has none; entries still open at the end count
 * the same way.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "analysis.h"
#include "calls.h"
#include "hist.h"
#include "json.h"
#include "map.h"
#include "walk.h"

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

struct probe_calls {
	struct frec_calls *calls;
	struct fnstat *fns;		/* by function (calls.h) */
	unsigned int nfns;
	struct frec_map probe_ids;	/* probe id -> index + 1 into hits, this generation */
	struct probe_hits *hits;
	size_t nhits;
};

static void probe_calls_free(void *p)
{
	struct probe_calls *a = p;
	size_t i;

	if (!a)
		return;
	for (i = 0; i < a->nfns; i++)
		frec_hist__fini(&a->fns[i].lat);
	free(a->fns);
	frec_calls__free(a->calls);
	for (i = 0; i < a->nhits; i++)
		free(a->hits[i].name);
	free(a->hits);
	frec_map__fini(&a->probe_ids);
	free(a);
}

static void *probe_calls_new(void)
{
	struct probe_calls *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	frec_map__init(&a->probe_ids);
	a->calls = frec_calls__new();
	if (!a->calls) {
		probe_calls_free(a);
		return NULL;
	}
	return a;
}

static int hits_index(struct probe_calls *a, const struct frec_probe_info *p)
{
	const char *name = p->name && p->name[0] ? p->name : "?";
	struct probe_hits *h;
	size_t i;

	for (i = 0; i < a->nhits; i++)
		if (a->hits[i].kind == p->kind && !strcmp(a->hits[i].name, name))
			return (int)i;
	h = realloc(a->hits, (a->nhits + 1) * sizeof(*h));
	if (!h)
		return -ENOMEM;
	a->hits = h;
	h[a->nhits].name = strdup(name);
	if (!h[a->nhits].name)
		return -ENOMEM;
	h[a->nhits].kind = p->kind;
	h[a->nhits].hits = 0;
	return (int)a->nhits++;
}

static int grow_fns(struct probe_calls *a)
{
	unsigned int n = frec_calls__nfns(a->calls), i;
	struct fnstat *f;

	if (n <= a->nfns)
		return 0;
	f = realloc(a->fns, n * sizeof(*f));
	if (!f)
		return -ENOMEM;
	for (i = a->nfns; i < n; i++) {
		memset(&f[i], 0, sizeof(f[i]));
		frec_hist__init(&f[i].lat);
	}
	a->fns = f;
	a->nfns = n;
	return 0;
}

static int probe_calls_gen(void *p, const struct frec_report_ctx *ctx)
{
	struct probe_calls *a = p;
	struct frec_gen *g = frec_walk__gen(ctx->walk);
	const struct frec_gen_info *gi = frec_gen__info(g);
	__u32 i;
	int rc;

	if ((rc = frec_calls__gen(a->calls, g)) || (rc = grow_fns(a)))
		return rc;
	frec_map__clear(&a->probe_ids);
	for (i = 0; i < gi->nprobes; i++) {
		const struct frec_probe_info *pi = frec_gen__probe_at(g, i);
		uint64_t *slot;
		int k;

		if (!pi)
			continue;
		k = hits_index(a, pi);
		slot = frec_map__put(&a->probe_ids, pi->id, NULL);
		if (k < 0 || !slot)
			return -ENOMEM;
		*slot = (uint64_t)k + 1;
	}
	return 0;
}

/* An entry counts as unfinished when its function has a return probe. */
static void count_unfinished(struct probe_calls *a, const struct frec_report_ctx *ctx,
			     const struct frec_call_frame *frames, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		const struct frec_fn *fn = frec_calls__fn(a->calls, frames[i].fn);

		if (fn && fn->has_return && frec_report__in_range(ctx, frames[i].ts))
			a->fns[frames[i].fn].unfinished++;
	}
}

static void on_probe(struct probe_calls *a, const struct frec_report_ctx *ctx,
		     const struct frec_event *ev)
{
	bool sel = frec_report__selected(ctx, ev->tid, ev->tgid);
	struct frec_call c;
	uint64_t *slot;

	frec_calls__event(a->calls, ev, &c);
	if (sel && frec_report__in_range(ctx, ev->ts)) {
		slot = frec_map__get(&a->probe_ids, ev->probe.probe_id);
		if (slot)
			a->hits[*slot - 1].hits++;
	}
	if (sel)
		count_unfinished(a, ctx, c.abandoned, c.nabandoned);
	if (c.fn < 0 || !sel || !frec_report__in_range(ctx, ev->ts))
		return;
	switch (c.kind) {
	case FREC_CALL_ENTRY:
		a->fns[c.fn].calls++;
		break;
	case FREC_CALL_RETURN:
		a->fns[c.fn].returns++;
		frec_hist__add(&a->fns[c.fn].lat, ev->ts - c.entry->ts);
		break;
	case FREC_CALL_INSTANT:
		if (ev->type == FREC_EV_USDT)
			a->fns[c.fn].hits++;
		else if (ev->type == FREC_EV_UPROBE)
			a->fns[c.fn].calls++;	/* inside a function: a hit */
		else
			a->fns[c.fn].unmatched++;
		break;
	default:
		break;
	}
}

static int probe_calls_feed(void *p, const struct frec_report_ctx *ctx,
			    const struct frec_event *ev)
{
	struct probe_calls *a = p;
	struct frec_call c;

	switch (ev->type) {
	case FREC_EV_UPROBE:
	case FREC_EV_URETPROBE:
	case FREC_EV_USDT:
		on_probe(a, ctx, ev);
		break;
	case FREC_EV_PROCESS_EXIT:
		frec_calls__exit(a->calls, ev->exit.pid, &c);
		if (frec_report__selected(ctx, ev->exit.pid, ev->exit.tgid))
			count_unfinished(a, ctx, c.abandoned, c.nabandoned);
		break;
	default:
		break;
	}
	return 0;
}

static int probe_calls_finish(void *p, const struct frec_report_ctx *ctx)
{
	struct probe_calls *a = p;
	const struct frec_call_frame *frames;
	size_t pos = 0;
	unsigned int n;
	__u32 tid, tgid;

	/* calls still open at the end never returned */
	while (frec_calls__next_open(a->calls, &pos, &tid, &tgid, &frames, &n))
		if (frec_report__selected(ctx, tid, tgid))
			count_unfinished(a, ctx, frames, n);
	return 0;
}

static void probe_calls_text(void *p, const struct frec_report_ctx *ctx, struct frec_out *o)
{
	struct probe_calls *a = p;
	size_t i;

	(void)ctx;
	frec_out__printf(o, "\nProbe hits (%zu probes)\n", a->nhits);
	for (i = 0; i < a->nhits; i++) {
		frec_out__str(o, "  ");
		frec_probe__label(o, a->hits[i].name, a->hits[i].kind);
		frec_out__printf(o, ": %llu\n", (unsigned long long)a->hits[i].hits);
	}
	frec_out__printf(o, "\nCalls (entry -> return on the same thread)\n");
	for (i = 0; i < a->nfns; i++) {
		const struct frec_fn *fn = frec_calls__fn(a->calls, (int)i);
		const struct fnstat *f = &a->fns[i];

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
}

static void probe_calls_json(void *p, const struct frec_report_ctx *ctx, struct frec_out *o)
{
	struct probe_calls *a = p;
	size_t i;

	(void)ctx;
	frec_out__str(o, ",\"probes\":[");
	for (i = 0; i < a->nhits; i++) {
		frec_out__str(o, i ? ",{\"name\":" : "{\"name\":");
		frec_json__str(o, a->hits[i].name, 4096);
		frec_out__printf(o, ",\"kind\":\"%s\",\"hits\":%llu}",
				 frec_probe__kind_name(a->hits[i].kind),
				 (unsigned long long)a->hits[i].hits);
	}
	frec_out__str(o, "],\"calls\":[");
	for (i = 0; i < a->nfns; i++) {
		const struct frec_fn *fn = frec_calls__fn(a->calls, (int)i);
		const struct fnstat *f = &a->fns[i];

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
	frec_out__char(o, ']');
}

const struct frec_analysis_ops frec_analysis_calls = {
	.name = "calls",
	.new = probe_calls_new,
	.gen = probe_calls_gen,
	.feed = probe_calls_feed,
	.finish = probe_calls_finish,
	.text = probe_calls_text,
	.json = probe_calls_json,
	.free = probe_calls_free,
};
