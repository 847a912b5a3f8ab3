/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Probe calls as both exporters write them: what calls.c says of each probe
 * event, thread exit and the end of the walk, turned into the two things a
 * trace shows, a call that ended (a slice) and a hit (an instant), handed to
 * the exporter's writers in the order they are to be written.
 *
 *  - An entry is written when it ends: at its return (with the return
 *    value), or when it leaves the stack without one. Then it is a call
 *    whose return was lost if its function has a return probe (unfinished),
 *    else a hit; an entry evicted from a full stack is a hit, marked
 *    unfinished when its function has a return probe.
 *  - USDT, uprobes inside a function, returns without their entry and
 *    unknown probe ids are hits, named after the function (" (return)"
 *    for a return) or "probe #ID".
 *  - At the end of the walk a call still open is a slice that never ended
 *    (open), an entry of a function without return probe a hit.
 *
 * Same thread as the walk; the ops are called synchronously.
 */
#ifndef FREC_TOOLS_EXPORT_CALLS_H
#define FREC_TOOLS_EXPORT_CALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <frec/snapshot.h>

struct frec_calls;
struct frec_call_frame;

struct frec_export_call_ops {
	/* The thread's track, before anything of a probe event, or of an
	 * exit that abandons calls, is written: its id for the writers. */
	__u64 (*track)(void *ctx, __u32 tgid, __u32 tid, __u64 ts, __u32 cpu);
	/* The track of a thread's calls left open at the end, without
	 * announcing anything (it was, at their entry). */
	__u64 (*open_track)(void *ctx, __u32 tgid, __u32 tid);
	/* A call that began at f and ended at end (ret NULL: its return was
	 * lost); open: it was still running at the end (end is 0). */
	void (*slice)(void *ctx, __u64 track, __u32 tgid, __u32 tid, const struct frec_call_frame *f,
		      __u64 end, const __s64 *ret, bool open);
	/* A hit at ts; ret for a return; unfinished: an entry evicted whose
	 * function has a return probe. */
	void (*hit)(void *ctx, __u64 track, __u32 tgid, __u32 tid, const char *name, __u64 ts,
		    __u32 nargs, const __u64 *args, const __s64 *ret, bool unfinished);
	/* Nonzero once the export failed: the open calls are not walked on
	 * (NULL: never). */
	int (*error)(void *ctx);
};

/* A function's name for a slice, or "probe #probe_id" in buf. */
const char *frec_export_calls__name(const struct frec_calls *calls, int fn, __u32 probe_id,
				    char *buf, size_t len);
/* A uprobe, uretprobe or USDT event. */
void frec_export_calls__event(struct frec_calls *calls, const struct frec_event *ev,
			      const struct frec_export_call_ops *ops, void *ctx);
/* A thread's exit (tgid: its thread group as the exporter names it). */
void frec_export_calls__exit(struct frec_calls *calls, const struct frec_event *ev, __u32 tgid,
			     const struct frec_export_call_ops *ops, void *ctx);
/* The end of the walk: every call still open. */
void frec_export_calls__open(struct frec_calls *calls, const struct frec_export_call_ops *ops,
			     void *ctx);

#endif /* FREC_TOOLS_EXPORT_CALLS_H */
