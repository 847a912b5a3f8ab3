// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Probe calls as the exporters write them; see export_calls.h. */
#include <stdio.h>
#include "calls.h"
#include "export_calls.h"

const char *frec_export_calls__name(const struct frec_calls *calls, int fn, __u32 probe_id,
				    char *buf, size_t len)
{
	const struct frec_fn *f = frec_calls__fn(calls, fn);

	if (f)
		return f->short_name;
	snprintf(buf, len, "probe #%u", probe_id);
	return buf;
}

/* Entries that left the stack at ts without their return. */
static void abandoned(struct frec_calls *calls, const struct frec_call *c, __u64 ts, __u64 track,
		      __u32 tgid, __u32 tid, const struct frec_export_call_ops *ops, void *ctx)
{
	unsigned int i;
	char buf[32];

	for (i = 0; i < c->nabandoned; i++) {
		const struct frec_call_frame *f = &c->abandoned[i];
		const struct frec_fn *fn = frec_calls__fn(calls, f->fn);

		if (fn && fn->has_return && c->why != FREC_ABANDON_EVICT) {
			ops->slice(ctx, track, tgid, tid, f, ts, NULL, false);
			continue;
		}
		/* no return probe: the entry was just a hit */
		ops->hit(ctx, track, tgid, tid, frec_export_calls__name(calls, f->fn, 0, buf, sizeof(buf)),
			 f->ts, f->nargs, f->args, NULL, fn && fn->has_return);
	}
}

void frec_export_calls__event(struct frec_calls *calls, const struct frec_event *ev,
			      const struct frec_export_call_ops *ops, void *ctx)
{
	const struct frec_fn *fn;
	struct frec_call c;
	__u64 track;
	char name[160], buf[32];

	frec_calls__event(calls, ev, &c);
	track = ops->track(ctx, ev->tgid, ev->tid, ev->ts, ev->cpu);
	/* inner calls end before the one returning: they come first */
	abandoned(calls, &c, ev->ts, track, ev->tgid, ev->tid, ops, ctx);
	switch (c.kind) {
	case FREC_CALL_ENTRY:
		break;		/* written when it ends */
	case FREC_CALL_RETURN:
		ops->slice(ctx, track, ev->tgid, ev->tid, c.entry, ev->ts, &ev->probe.ret, false);
		break;
	default:
		fn = frec_calls__fn(calls, c.fn);
		snprintf(name, sizeof(name), "%s%s",
			 frec_export_calls__name(calls, c.fn, ev->probe.probe_id, buf, sizeof(buf)),
			 fn && ev->type == FREC_EV_URETPROBE ? " (return)" : "");
		ops->hit(ctx, track, ev->tgid, ev->tid, name, ev->ts, ev->probe.nargs, ev->probe.args,
			 ev->type == FREC_EV_URETPROBE ? &ev->probe.ret : NULL, false);
		break;
	}
}

void frec_export_calls__exit(struct frec_calls *calls, const struct frec_event *ev, __u32 tgid,
			     const struct frec_export_call_ops *ops, void *ctx)
{
	struct frec_call c;
	__u64 track;

	frec_calls__exit(calls, ev->exit.pid, &c);
	if (!c.nabandoned)
		return;
	track = ops->track(ctx, tgid, ev->exit.pid, ev->ts, ev->cpu);
	abandoned(calls, &c, ev->ts, track, tgid, ev->exit.pid, ops, ctx);
}

void frec_export_calls__open(struct frec_calls *calls, const struct frec_export_call_ops *ops,
			     void *ctx)
{
	const struct frec_call_frame *frames;
	unsigned int n, i;
	size_t pos = 0;
	__u32 tid, tgid;
	char buf[32];

	while (!(ops->error && ops->error(ctx)) &&
	       frec_calls__next_open(calls, &pos, &tid, &tgid, &frames, &n)) {
		__u64 track = ops->open_track(ctx, tgid, tid);

		for (i = 0; i < n; i++) {
			const struct frec_fn *fn = frec_calls__fn(calls, frames[i].fn);

			if (fn && fn->has_return)
				ops->slice(ctx, track, tgid, tid, &frames[i], 0, NULL, true);
			else
				ops->hit(ctx, track, tgid, tid,
					 frec_export_calls__name(calls, frames[i].fn, 0, buf, sizeof(buf)),
					 frames[i].ts, frames[i].nargs, frames[i].args, NULL, false);
		}
	}
}
