// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * frec report's triggers: each firing recorded (a trigger's condition held:
 * when, for which thread, what was measured), and per trigger the firings
 * suppressed (during its delay, its cooldown or past its rate limit), which
 * the recorder writes as one aggregate per trigger and generation: their
 * count, the first, and the worst with its thread. Names and kinds come
 * from each generation's trigger table (section 6); a trigger is one entry
 * per id and name, so that a reload that gave an id to another trigger
 * keeps them apart.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "analysis.h"
#include "json.h"
#include "table.h"
#include "walk.h"

/* A trigger as the snapshot names it, with its suppressed firings. */
struct trig {
	__u32 id, kind;
	char *name;
	__u64 fired;
	__u64 supp_count;
	__u64 supp_first;	/* ts of the first, when supp_count */
	__u64 supp_worst;
	__u32 supp_tid, supp_tgid;
	char supp_comm[FREC_COMM_LEN];
};

struct firing {
	__u64 ts, value;
	size_t trig;		/* index into triggers */
	__u32 tid, tgid;
	char comm[FREC_COMM_LEN];
};

struct triggers {
	struct trig *trigs;
	size_t ntrigs;
	struct firing *firings;
	size_t nfirings, cap;
};

static void *triggers_new(void)
{
	return calloc(1, sizeof(struct triggers));
}

static void triggers_free(void *p)
{
	struct triggers *a = p;

	if (!a)
		return;
	for (size_t i = 0; i < a->ntrigs; i++)
		free(a->trigs[i].name);
	free(a->trigs);
	free(a->firings);
	free(a);
}

/* The entry of the event's trigger: by id and name, added at first sight. */
static int trig_of(struct triggers *a, const struct frec_report_ctx *ctx, __u32 id)
{
	const struct frec_trigger_info *ti = frec_walk__trigger(ctx->walk, id);
	char buf[16];
	const char *name = frec_walk__trigger_name(ctx->walk, id, buf);
	struct trig *t;

	for (size_t i = 0; i < a->ntrigs; i++)
		if (a->trigs[i].id == id && !strcmp(a->trigs[i].name, name))
			return (int)i;
	t = realloc(a->trigs, (a->ntrigs + 1) * sizeof(*t));
	if (!t)
		return -ENOMEM;
	a->trigs = t;
	t += a->ntrigs;
	memset(t, 0, sizeof(*t));
	t->id = id;
	t->kind = ti ? ti->kind : 0;
	t->name = strdup(name);
	if (!t->name)
		return -ENOMEM;
	return (int)a->ntrigs++;
}

/* The thread's name at the event; "" for none (tid and tgid 0). */
static void comm_of(const struct frec_report_ctx *ctx, const struct frec_event *ev,
		    char comm[FREC_COMM_LEN])
{
	char buf[FREC_COMM_LEN + 8];
	const char *c = "";

	if (ev->tid || ev->tgid)
		c = frec_walk__comm(ctx->walk, ev->tid, ev->cpu, buf);
	snprintf(comm, FREC_COMM_LEN, "%s", c);
}

static int triggers_feed(void *p, const struct frec_report_ctx *ctx, const struct frec_event *ev)
{
	struct triggers *a = p;
	struct firing *f;
	struct trig *t;
	int k;

	if (ev->type != FREC_EV_TRIGGER || !frec_report__in_range(ctx, ev->ts) ||
	    !frec_report__selected(ctx, ev->tid, ev->tgid))
		return 0;
	k = trig_of(a, ctx, ev->trigger.id);
	if (k < 0)
		return k;
	t = &a->trigs[k];
	if (ev->trigger.flags & FREC_TRIGGER_SUPPRESSED) {
		if (!t->supp_count || ev->ts < t->supp_first)
			t->supp_first = ev->ts;
		if (!t->supp_count || ev->trigger.value > t->supp_worst) {
			t->supp_worst = ev->trigger.value;
			t->supp_tid = ev->tid;
			t->supp_tgid = ev->tgid;
			comm_of(ctx, ev, t->supp_comm);
		}
		t->supp_count += ev->trigger.count;
		return 0;
	}
	if (a->nfirings == a->cap) {
		size_t ncap = a->cap ? a->cap * 2 : 16;

		f = realloc(a->firings, ncap * sizeof(*f));
		if (!f)
			return -ENOMEM;
		a->firings = f;
		a->cap = ncap;
	}
	f = &a->firings[a->nfirings++];
	f->ts = ev->ts;
	f->value = ev->trigger.value;
	f->trig = (size_t)k;
	f->tid = ev->tid;
	f->tgid = ev->tgid;
	comm_of(ctx, ev, f->comm);
	t->fired++;
	return 0;
}

static int triggers_finish(void *p, const struct frec_report_ctx *ctx)
{
	(void)p;
	(void)ctx;
	return 0;
}

static void triggers_text(void *p, const struct frec_report_ctx *ctx, struct frec_out *o)
{
	struct triggers *a = p;
	__u64 supp = 0;
	char v[48];
	size_t i;

	(void)ctx;
	for (i = 0; i < a->ntrigs; i++)
		supp += a->trigs[i].supp_count;
	frec_out__printf(o, "\nTriggers: %zu fired, %llu suppressed\n", a->nfirings,
			 (unsigned long long)supp);
	for (i = 0; i < a->nfirings; i++) {
		const struct firing *f = &a->firings[i];
		const struct trig *t = &a->trigs[f->trig];

		frec_out__str(o, "  ");
		frec_out__secs(o, f->ts);
		frec_out__str(o, "  ");
		frec_text__str(o, t->name, 4096);
		if (f->tid || f->tgid) {
			frec_out__printf(o, "  tid %u ", f->tid);
			frec_table__comm(o, f->comm, 0);
		} else {
			frec_out__str(o, "  no thread");
		}
		frec_fmt__trigger_value(t->kind, f->value, v, sizeof(v));
		frec_out__printf(o, "  %s\n", v);
	}
	for (i = 0; i < a->ntrigs; i++) {
		const struct trig *t = &a->trigs[i];

		if (!t->supp_count)
			continue;
		frec_out__str(o, "  suppressed ");
		frec_text__str(o, t->name, 4096);
		frec_fmt__trigger_value(t->kind, t->supp_worst, v, sizeof(v));
		frec_out__printf(o, ": %llu, the first at ", (unsigned long long)t->supp_count);
		frec_out__secs(o, t->supp_first);
		frec_out__printf(o, ", the worst %s", v);
		if (t->supp_tid || t->supp_tgid) {
			frec_out__printf(o, " on tid %u ", t->supp_tid);
			frec_table__comm(o, t->supp_comm, 0);
		}
		frec_out__char(o, '\n');
	}
}

static void triggers_json(void *p, const struct frec_report_ctx *ctx, struct frec_out *o)
{
	struct triggers *a = p;
	char v[48];
	size_t i, n;

	(void)ctx;
	frec_out__str(o, ",\"triggers\":[");
	for (i = 0; i < a->nfirings; i++) {
		const struct firing *f = &a->firings[i];
		const struct trig *t = &a->trigs[f->trig];

		frec_out__printf(o, "%s{\"ts\":%llu,\"name\":", i ? "," : "",
				 (unsigned long long)f->ts);
		frec_json__str(o, t->name, 4096);
		frec_out__printf(o, ",\"trigger_id\":%u,\"kind\":\"%s\",\"tid\":%u,\"pid\":%u,\"comm\":",
				 t->id, frec_trigger__kind_name(t->kind), f->tid, f->tgid);
		frec_json__str(o, f->comm, FREC_COMM_LEN);
		frec_fmt__trigger_value(t->kind, f->value, v, sizeof(v));
		frec_out__printf(o, ",\"value_ns\":%llu,\"value\":\"%s\"}",
				 (unsigned long long)f->value, v);
	}
	frec_out__str(o, "],\"triggers_suppressed\":[");
	for (i = n = 0; i < a->ntrigs; i++) {
		const struct trig *t = &a->trigs[i];

		if (!t->supp_count)
			continue;
		frec_out__str(o, n++ ? ",{\"name\":" : "{\"name\":");
		frec_json__str(o, t->name, 4096);
		frec_out__printf(o, ",\"trigger_id\":%u,\"kind\":\"%s\",\"count\":%llu,\"first_ts\":%llu,"
				 "\"worst_value_ns\":%llu,\"worst_tid\":%u,\"worst_pid\":%u,"
				 "\"worst_comm\":",
				 t->id, frec_trigger__kind_name(t->kind),
				 (unsigned long long)t->supp_count, (unsigned long long)t->supp_first,
				 (unsigned long long)t->supp_worst, t->supp_tid, t->supp_tgid);
		frec_json__str(o, t->supp_comm, FREC_COMM_LEN);
		frec_out__char(o, '}');
	}
	frec_out__char(o, ']');
}

const struct frec_analysis_ops frec_analysis_triggers = {
	.name = "triggers",
	.new = triggers_new,
	.feed = triggers_feed,
	.finish = triggers_finish,
	.text = triggers_text,
	.json = triggers_json,
	.free = triggers_free,
};
