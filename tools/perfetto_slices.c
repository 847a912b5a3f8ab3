// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Probe hits in the Perfetto trace (perfetto.h): TrackEvents on one track
 * per thread. SLICE_BEGIN at a uprobe whose function has a uretprobe,
 * SLICE_END at its return (END closes the innermost open slice of the
 * track, and the call stacks of calls.c keep them matched), INSTANT for
 * USDT and unpaired hits. Entry arguments and the return value go in debug
 * annotations.
 *
 * Calls are written when they end (calls.c decides then what an entry was):
 * SLICE_BEGIN at the entry's timestamp and SLICE_END at the return's, one
 * after the other. trace_processor sorts packets by timestamp (ties keep
 * file order), so the slices of a thread nest as its calls did.
 */
#include <errno.h>
#include <stdio.h>
#include "calls.h"
#include "perfetto.h"
#include "walk.h"

/* TrackDescriptor, ThreadDescriptor */
#define TD_UUID			1
#define TD_THREAD		4
#define THD_PID			1
#define THD_TID			2
#define THD_NAME		5
/* TrackEvent, DebugAnnotation */
#define TE_DEBUG_ANNOTATIONS	4
#define TE_TYPE			9
#define TE_TRACK_UUID		11
#define TE_NAME			23
#define TE_SLICE_BEGIN		1
#define TE_SLICE_END		2
#define TE_INSTANT		3
#define DA_BOOL			2
#define DA_UINT			3
#define DA_INT			4
#define DA_NAME			10

static __u64 track_uuid(__u32 tgid, __u32 tid)
{
	/* one track per thread; a tid reused by another process gets another */
	return ((__u64)tgid << 32) | tid;
}

static __u64 thread_track(struct pexport *x, __u32 tgid, __u32 tid, __u64 ts, __u32 cpu)
{
	__u64 uuid = track_uuid(tgid, tid);
	uint64_t *slot;
	bool created;
	char buf[FREC_COMM_LEN + 8];
	struct frec_pb *p = &x->pkt;

	slot = frec_map__put(&x->tracks, tid, &created);
	if (!slot) {
		x->err = -ENOMEM;
		return uuid;
	}
	if (!created && *slot == uuid)
		return uuid;
	*slot = uuid;
	frec_pb__begin(p, TRACE_PACKET);
	frec_pb__uint(p, TP_TIMESTAMP, ts);
	frec_pb__uint(p, TP_SEQ_ID, SEQ_TRACKS);
	if (!x->seq_started) {
		frec_pb__uint(p, TP_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
		x->seq_started = true;
	}
	frec_pb__begin(p, TP_TRACK_DESCRIPTOR);
	frec_pb__uint(p, TD_UUID, uuid);
	frec_pb__begin(p, TD_THREAD);
	frec_pb__int(p, THD_PID, (__s32)tgid);
	frec_pb__int(p, THD_TID, (__s32)tid);
	frec_pb__string(p, THD_NAME, frec_walk__comm(x->w, tid, cpu, buf));
	frec_pb__end(p);
	frec_pb__end(p);
	frec_pb__end(p);
	pexport__emit(x);
	return uuid;
}

static void track_event_begin(struct pexport *x, __u64 ts, __u64 uuid, int type, const char *name)
{
	struct frec_pb *p = &x->pkt;

	frec_pb__begin(p, TRACE_PACKET);
	frec_pb__uint(p, TP_TIMESTAMP, ts);
	frec_pb__uint(p, TP_SEQ_ID, SEQ_TRACKS);
	frec_pb__begin(p, TP_TRACK_EVENT);
	frec_pb__uint(p, TE_TYPE, (__u64)type);
	frec_pb__uint(p, TE_TRACK_UUID, uuid);
	if (name)
		frec_pb__string(p, TE_NAME, name);
}

static void track_event_end(struct pexport *x)
{
	frec_pb__end(&x->pkt);
	frec_pb__end(&x->pkt);
	pexport__emit(x);
}

static void annotate_uint(struct frec_pb *p, const char *name, __u64 v)
{
	frec_pb__begin(p, TE_DEBUG_ANNOTATIONS);
	frec_pb__string(p, DA_NAME, name);
	frec_pb__uint(p, DA_UINT, v);
	frec_pb__end(p);
}

static void annotate_int(struct frec_pb *p, const char *name, __s64 v)
{
	frec_pb__begin(p, TE_DEBUG_ANNOTATIONS);
	frec_pb__string(p, DA_NAME, name);
	frec_pb__int(p, DA_INT, v);
	frec_pb__end(p);
}

static void annotate_true(struct frec_pb *p, const char *name)
{
	frec_pb__begin(p, TE_DEBUG_ANNOTATIONS);
	frec_pb__string(p, DA_NAME, name);
	frec_pb__uint(p, DA_BOOL, 1);
	frec_pb__end(p);
}

static void annotate_args(struct frec_pb *p, __u32 nargs, const __u64 *args)
{
	static const char *const names[FREC_MAX_PROBE_ARGS] = {
		"arg0", "arg1", "arg2", "arg3", "arg4", "arg5",
	};
	__u32 i, n = nargs > FREC_MAX_PROBE_ARGS ? FREC_MAX_PROBE_ARGS : nargs;

	for (i = 0; i < n; i++)
		annotate_uint(p, names[i], args[i]);
}

static const char *fn_name(struct pexport *x, int fn, __u32 probe_id, char *buf, size_t len)
{
	const struct frec_fn *f = frec_calls__fn(x->calls, fn);

	if (f)
		return f->short_name;
	snprintf(buf, len, "probe #%u", probe_id);
	return buf;
}

/* A call that began at f and ended at ts (ret, or unfinished when NULL). */
static void slice(struct pexport *x, __u64 uuid, const struct frec_frame *f, __u64 ts,
		  const __s64 *ret, bool end)
{
	char buf[32];

	track_event_begin(x, f->ts, uuid, TE_SLICE_BEGIN, fn_name(x, f->fn, 0, buf, sizeof(buf)));
	annotate_args(&x->pkt, f->nargs, f->args);
	track_event_end(x);
	if (!end)
		return;		/* still running when the recording ends */
	track_event_begin(x, ts, uuid, TE_SLICE_END, NULL);
	if (ret)
		annotate_int(&x->pkt, "ret", *ret);
	else
		annotate_true(&x->pkt, "unfinished");
	track_event_end(x);
}

/* An entry that left the stack without its return. */
static void abandoned(struct pexport *x, __u64 uuid, const struct frec_call *c, __u64 ts)
{
	unsigned int i;
	char buf[32];

	for (i = 0; i < c->nabandoned; i++) {
		const struct frec_frame *f = &c->abandoned[i];
		const struct frec_fn *fn = frec_calls__fn(x->calls, f->fn);

		if (fn && fn->has_return && c->why != FREC_ABANDON_EVICT) {
			slice(x, uuid, f, ts, NULL, true);
			continue;
		}
		/* no return probe: the entry was just a hit */
		track_event_begin(x, f->ts, uuid, TE_INSTANT, fn_name(x, f->fn, 0, buf, sizeof(buf)));
		annotate_args(&x->pkt, f->nargs, f->args);
		if (fn && fn->has_return)
			annotate_true(&x->pkt, "unfinished");
		track_event_end(x);
	}
}

void pexport__probe(struct pexport *x, const struct frec_event *ev)
{
	const struct frec_fn *fn;
	struct frec_call c;
	__u64 uuid;
	char name[160], buf[32];

	frec_calls__event(x->calls, ev, &c);
	uuid = thread_track(x, ev->tgid, ev->tid, ev->ts, ev->cpu);
	/* inner calls end before the one returning: their ENDs come first */
	abandoned(x, uuid, &c, ev->ts);
	switch (c.kind) {
	case FREC_CALL_ENTRY:
		break;		/* written when it ends */
	case FREC_CALL_RETURN:
		slice(x, uuid, c.entry, ev->ts, &ev->probe.ret, true);
		break;
	default:
		fn = frec_calls__fn(x->calls, c.fn);
		snprintf(name, sizeof(name), "%s%s", fn_name(x, c.fn, ev->probe.probe_id, buf, sizeof(buf)),
			 fn && ev->type == FREC_EV_URETPROBE ? " (return)" : "");
		track_event_begin(x, ev->ts, uuid, TE_INSTANT, name);
		annotate_args(&x->pkt, ev->probe.nargs, ev->probe.args);
		if (ev->type == FREC_EV_URETPROBE)
			annotate_int(&x->pkt, "ret", ev->probe.ret);
		track_event_end(x);
		break;
	}
}

void pexport__thread_exit(struct pexport *x, const struct frec_event *ev)
{
	struct frec_call c;

	frec_calls__exit(x->calls, ev->exit.pid, &c);
	if (c.nabandoned)
		abandoned(x, thread_track(x, ev->exit.tgid, ev->exit.pid, ev->ts, ev->cpu), &c,
			  ev->ts);
}

void pexport__open_calls(struct pexport *x)
{
	const struct frec_frame *frames;
	unsigned int n, i;
	size_t pos = 0;
	__u32 tid, tgid;
	char buf[32];

	while (!x->err && frec_calls__next_open(x->calls, &pos, &tid, &tgid, &frames, &n)) {
		__u64 uuid = track_uuid(tgid, tid);

		for (i = 0; i < n; i++) {
			const struct frec_fn *fn = frec_calls__fn(x->calls, frames[i].fn);

			if (fn && fn->has_return) {
				slice(x, uuid, &frames[i], 0, NULL, false);
				continue;
			}
			track_event_begin(x, frames[i].ts, uuid, TE_INSTANT,
					  fn_name(x, frames[i].fn, 0, buf, sizeof(buf)));
			annotate_args(&x->pkt, frames[i].nargs, frames[i].args);
			track_event_end(x);
		}
	}
}
