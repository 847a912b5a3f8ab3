// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Probe hits, trigger firings and cgroup moves in the Perfetto trace (perfetto.h):
 * TrackEvents on one track per thread. SLICE_BEGIN at a uprobe whose function has a uretprobe,
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
#include <stdlib.h>
#include <string.h>
#include "calls.h"
#include "export_calls.h"
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
	frec_pb__string(p, THD_NAME, frec_walk__comm(x->ew.w, tid, cpu, buf));
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

/* A call that began at f and ended at ts (ret, or unfinished when NULL). */
static void slice(struct pexport *x, __u64 uuid, const struct frec_call_frame *f, __u64 ts,
		  const __s64 *ret, bool end)
{
	char buf[32];

	track_event_begin(x, f->ts, uuid, TE_SLICE_BEGIN,
			  frec_export_calls__name(x->ew.calls, f->fn, 0, buf, sizeof(buf)));
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

static __u64 track_of(void *ctx, __u32 tgid, __u32 tid, __u64 ts, __u32 cpu)
{
	return thread_track(ctx, tgid, tid, ts, cpu);
}

static __u64 open_track(void *ctx, __u32 tgid, __u32 tid)
{
	(void)ctx;
	return track_uuid(tgid, tid);
}

static void call_slice(void *ctx, __u64 uuid, __u32 tgid, __u32 tid, const struct frec_call_frame *f,
		       __u64 end, const __s64 *ret, bool open)
{
	(void)tgid;
	(void)tid;
	slice(ctx, uuid, f, end, ret, !open);
}

static void hit(void *ctx, __u64 uuid, __u32 tgid, __u32 tid, const char *name, __u64 ts,
		__u32 nargs, const __u64 *args, const __s64 *ret, bool unfinished)
{
	struct pexport *x = ctx;

	(void)tgid;
	(void)tid;
	track_event_begin(x, ts, uuid, TE_INSTANT, name);
	annotate_args(&x->pkt, nargs, args);
	if (ret)
		annotate_int(&x->pkt, "ret", *ret);
	if (unfinished)
		annotate_true(&x->pkt, "unfinished");
	track_event_end(x);
}

static int export_error(void *ctx)
{
	return ((struct pexport *)ctx)->err;
}

static const struct frec_export_call_ops slice_ops = {
	.track = track_of,
	.open_track = open_track,
	.slice = call_slice,
	.hit = hit,
	.error = export_error,
};

void pexport__probe(struct pexport *x, const struct frec_event *ev)
{
	frec_export_calls__event(x->ew.calls, ev, &slice_ops, x);
}

/*
 * A trigger's firing: an INSTANT named "trigger NAME" on the track of the
 * thread the condition held for, with what was measured; an aggregate of
 * suppressed firings says so and how many. One with no thread (lost
 * records) goes on the trace-global track: the event then names none.
 */
void pexport__trigger(struct pexport *x, const struct frec_event *ev)
{
	struct frec_pb *p = &x->pkt;
	char buf[16], *name;
	const char *tn = frec_walk__trigger_name(x->ew.w, ev->trigger.id, buf);
	size_t n = strlen(tn) + sizeof("trigger ");
	__u64 uuid = 0;

	name = malloc(n);
	if (!name) {
		x->err = -ENOMEM;
		return;
	}
	snprintf(name, n, "trigger %s", tn);
	if (ev->tid || ev->tgid)
		uuid = thread_track(x, ev->tgid, ev->tid, ev->ts, ev->cpu);
	frec_pb__begin(p, TRACE_PACKET);
	frec_pb__uint(p, TP_TIMESTAMP, ev->ts);
	frec_pb__uint(p, TP_SEQ_ID, SEQ_TRACKS);
	if (!x->seq_started) {
		frec_pb__uint(p, TP_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
		x->seq_started = true;
	}
	frec_pb__begin(p, TP_TRACK_EVENT);
	frec_pb__uint(p, TE_TYPE, TE_INSTANT);
	if (uuid)
		frec_pb__uint(p, TE_TRACK_UUID, uuid);
	frec_pb__string(p, TE_NAME, name);
	annotate_uint(p, "trigger_id", ev->trigger.id);
	annotate_uint(p, "value_ns", ev->trigger.value);
	annotate_uint(p, "count", ev->trigger.count);
	if (ev->trigger.flags & FREC_TRIGGER_SUPPRESSED)
		annotate_true(p, "suppressed");
	track_event_end(x);
	free(name);
}

/* A move: an INSTANT "cgroup PATH" (the id when unnamed) on the moved
 * thread's track. */
void pexport__cgroup_move(struct pexport *x, const struct frec_event *ev)
{
	const struct frec_cgroup_info *c = frec_walk__cgroup_info(x->ew.w, ev->cgroup.id);
	char name[4096 + 32];
	__u64 uuid;

	if (!ev->tid)
		return;
	if (c && c->path && c->path[0])
		snprintf(name, sizeof(name), "cgroup %s", c->path);
	else
		snprintf(name, sizeof(name), "cgroup id %llu", (unsigned long long)ev->cgroup.id);
	uuid = thread_track(x, frec_walk__tgid(x->ew.w, ev->tid), ev->tid, ev->ts, ev->cpu);
	track_event_begin(x, ev->ts, uuid, TE_INSTANT, name);
	annotate_uint(&x->pkt, "cgroup_id", ev->cgroup.id);
	track_event_end(x);
}

void pexport__thread_exit(struct pexport *x, const struct frec_event *ev)
{
	frec_export_calls__exit(x->ew.calls, ev, ev->exit.tgid, &slice_ops, x);
}

void pexport__open_calls(struct pexport *x)
{
	frec_export_calls__open(x->ew.calls, &slice_ops, x);
}
