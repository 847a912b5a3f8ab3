/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The Perfetto exporter's shared state, for its own files only (the command
 * calls frec_export_perfetto__run() of tools.h):
 *
 *   export_perfetto.c   the driver: one sorted walk, each event to its writer
 *   perfetto_trace.c    trace-level packets: system_info, clock, ftrace stats
 *   perfetto_ftrace.c   per-CPU FtraceEventBundles: compact sched_switch and
 *                       sched_waking, the other scheduler events, losses
 *   perfetto_tasks.c    the process tree, the threads' lifetimes and the
 *                       processes' cgroup labels
 *   perfetto_slices.c   probe hits and triggers as TrackEvents on one track
 *                       per thread
 *   perfetto_stacks.c   off-CPU stacks: PerfSamples of interned callstacks
 *                       and sched_blocked_reason
 *
 * Contract: one struct pexport per export, used by one thread. A writer
 * builds a TracePacket in x->pkt and hands it to pexport__emit(), or adds
 * to a CPU's bundle, which perfetto_ftrace.c alone flushes. A failure
 * (ENOMEM, a write error) is kept in x->err; writers may go on after it,
 * and the driver stops at the next event and reports it once.
 */
#ifndef FREC_TOOLS_PERFETTO_H
#define FREC_TOOLS_PERFETTO_H

#include <stdbool.h>
#include <frec/snapshot.h>
#include "cpu_chain.h"
#include "export_walk.h"
#include "lost.h"
#include "map.h"
#include "pb.h"

/* TracePacket (the Trace's repeated field 1) */
#define TRACE_PACKET		1
#define TP_FTRACE_EVENTS	1
#define TP_PROCESS_TREE		2
#define TP_CLOCK_SNAPSHOT	6
#define TP_TIMESTAMP		8
#define TP_SEQ_ID		10
#define TP_TRACK_EVENT		11
#define TP_SEQ_FLAGS		13
#define TP_FTRACE_STATS		34
#define TP_SYSTEM_INFO		45
#define TP_TRACK_DESCRIPTOR	60
#define SEQ_INCREMENTAL_STATE_CLEARED	1

#define SEQ_TRACKS		1	/* track descriptors and track events */
#define SEQ_KERNEL		2	/* ftrace bundles and process trees */
#define SEQ_STACKS		3	/* perf samples and their interned stacks */

/* FtraceStats phases */
#define FS_START_OF_TRACE	1
#define FS_END_OF_TRACE		2

struct pbundle;
struct pstacks;

struct pexport {
	struct frec_export_walk ew;	/* the walk, the output, calls, chains */
	struct frec_pb pkt;		/* the packet being built */
	struct pbundle *cpus;		/* perfetto_ftrace.c's, per CPU */
	__u32 ncpus;
	struct frec_map tracks;		/* tid -> track uuid announced */
	bool seq_started;		/* SEQ_TRACKS has its first packet */
	struct frec_map seen;		/* tgids in the current process tree */
	struct frec_map ppids;		/* tgid -> ppid, from the forks walked */
	struct frec_map labeled;	/* tgid: UINT64_MAX labelled, or seq + 1 of the
					 * generation that could not name its cgroup */
	struct frec_lost lost;		/* records lost, per CPU */
	struct pstacks *stacks;		/* perfetto_stacks.c's, made on first use */
	const char *debug_dir;		/* --debug-dir, NULL: the default */
	int err;
};

/* export_perfetto.c: write x->pkt as one packet and reset it. */
void pexport__emit(struct pexport *x);

/* perfetto_trace.c */
void pexport__system_info(struct pexport *x);
/* BOOTTIME t paired with REALTIME; nothing when the offset is not known. */
void pexport__clock_snapshot(struct pexport *x, __u64 t);
/* FS_START_OF_TRACE: zeros; FS_END_OF_TRACE: x->lost per CPU. */
void pexport__ftrace_stats(struct pexport *x, int phase, __u64 ts);

/* perfetto_ftrace.c: every event of a CPU goes through its bundle. */
void pexport__switch(struct pexport *x, const struct frec_event *ev, enum frec_chain_verdict v,
		     const struct frec_chain_run *run);
void pexport__waking(struct pexport *x, const struct frec_event *ev);
/* sched_wakeup, sched_wakeup_new, sched_migrate_task as full FtraceEvents */
void pexport__sched_event(struct pexport *x, const struct frec_event *ev);
void pexport__lost(struct pexport *x, const struct frec_event *ev);
void pexport__gap(struct pexport *x, const struct frec_event *ev);
/* A thread's name changes: no bundle may use its old interned name again. */
void pexport__forget_comm(struct pexport *x, __u32 tid);
/* A full FtraceEvent (ts, pid) in cpu's bundle: the message to write its
 * one event field into, then pexport__event_end(); NULL when the CPU is out
 * of range or memory ran out (x->err). */
struct frec_pb *pexport__event_begin(struct pexport *x, __u32 cpu, __u64 ts, __u32 pid);
void pexport__event_end(struct pexport *x, __u32 cpu);
/* After the FtraceEvents of one input event: flush the bundle when full. */
void pexport__event_done(struct pexport *x, __u32 cpu);
/* The end of a generation: memory stays bounded by one. */
void pexport__flush_all(struct pexport *x);
void pexport__bundles_free(struct pexport *x);

/* perfetto_tasks.c */
/* At a generation's start: every process and thread of its task table. */
void pexport__process_tree(struct pexport *x);
/* fork (with task_newtask), exec, exit (with sched_process_free), rename */
void pexport__task_event(struct pexport *x, const struct frec_event *ev);
/* A fork that made a process: its parent, for the next process trees. */
void pexport__learn_parent(struct pexport *x, const struct frec_event *ev);
/* After a process tree: a TrackDescriptor for each process placed in a
 * cgroup for the first time, labelled with it. */
void pexport__process_labels(struct pexport *x);

/* perfetto_slices.c */
void pexport__probe(struct pexport *x, const struct frec_event *ev);
/* A thread moved to another cgroup: an instant on its thread. */
void pexport__cgroup_move(struct pexport *x, const struct frec_event *ev);
/* A trigger's firing (or suppressed ones): an instant on its thread. */
void pexport__trigger(struct pexport *x, const struct frec_event *ev);
/* A thread's exit: the calls it left open. */
void pexport__thread_exit(struct pexport *x, const struct frec_event *ev);
/* The end of the recording: calls still open begin and never end. */
void pexport__open_calls(struct pexport *x);

/* perfetto_stacks.c: after a switch's own packets, its stacks (if it
 * blocked and has any): a perf sample and a sched_blocked_reason. */
void pexport__stacks_switch(struct pexport *x, const struct frec_event *ev);
void pexport__stacks_free(struct pexport *x);

#endif /* FREC_TOOLS_PERFETTO_H */
