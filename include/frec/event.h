/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The decoded form of one event, as the recorder takes it in and as the
 * snapshot reader gives it back, plus the tables that name what events
 * mention (threads, processes, probes). Userspace only.
 */
#ifndef FREC_EVENT_H
#define FREC_EVENT_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "record.h"

/* The cpu of a lost event whose records' CPUs are not known: records
 * that named a CPU beyond the recorder's. Readers take it as data lost on
 * every CPU. */
#define FREC_CPU_UNKNOWN	0xffffffffu

/* lost.flags */
#define FREC_LOST_SPAN		(1u << 0)	/* first_ts and last_ts are known */
#define FREC_LOST_UNKNOWN	(1u << 1)	/* count is not known (a lower bound) */

/* gap.kind */
enum frec_gap_kind {
	FREC_GAP_RELOAD = 1,	/* the programs were replaced (SIGHUP) */
};

/* trigger.flags */
/* Not a firing that took a snapshot: an aggregate of the firings that came
 * during a trigger's delay, its cooldown or past its rate limit, one per
 * trigger per generation: ts is the first of them, value the worst (largest),
 * tid/tgid the worst one's thread, count how many. */
#define FREC_TRIGGER_SUPPRESSED	(1u << 0)

/*
 * One event. Which union member is valid depends on type. Strings point into
 * memory owned by whoever produced the event (the ring record being pushed,
 * or the reader's current generation) and stay valid only until the next
 * event or generation is requested.
 */
struct frec_event {
	__u64 ts;		/* CLOCK_BOOTTIME ns */
	__u32 type;		/* enum frec_type */
	__u32 cpu;
	__u32 tid;		/* the current thread when the event fired */
	__u32 tgid;
	union {
		struct {
			__u32 prev_pid;
			__u32 next_pid;
			__s32 prev_prio;
			__s32 next_prio;
			__u64 prev_state;
		} sw;		/* FREC_EV_SCHED_SWITCH */
		struct {
			__u32 pid;
			__s32 prio;
			__u32 target_cpu;
			__u32 waker;	/* tid of the waker (== tid above) */
		} wake;		/* FREC_EV_SCHED_WAKING, _WAKEUP, _WAKEUP_NEW */
		struct {
			__u32 parent_pid;
			__u32 child_pid;
		} fork;		/* FREC_EV_PROCESS_FORK */
		struct {
			__u32 pid;
			__u32 old_pid;
			const char *filename;
			const char *comm;	/* the comm after exec */
		} exec;		/* FREC_EV_PROCESS_EXEC */
		struct {
			__u32 pid;
			__u32 tgid;
		} exit;		/* FREC_EV_PROCESS_EXIT */
		struct {
			__u32 pid;
			const char *newcomm;
		} rename;	/* FREC_EV_TASK_RENAME */
		struct {
			__u32 pid;
			__s32 prio;
			__u32 orig_cpu;
			__u32 dest_cpu;
		} migrate;	/* FREC_EV_MIGRATE_TASK */
		struct {
			__u32 probe_id;
			__u32 nargs;
			__u64 args[FREC_MAX_PROBE_ARGS];
			__s64 ret;	/* FREC_EV_URETPROBE */
		} probe;	/* FREC_EV_UPROBE, _URETPROBE, _USDT; thread is tid/tgid */
		struct {
			__u64 count;	/* a lower bound with FREC_LOST_UNKNOWN */
			/* The span the records were lost in, when known
			 * (FREC_LOST_SPAN); ts is then the later of first_ts
			 * and its generation's start. */
			__u64 first_ts;
			__u64 last_ts;
			__u32 flags;	/* FREC_LOST_* */
		} lost;		/* FREC_EV_LOST, on cpu */
		struct {
			__u32 kind;	/* enum frec_gap_kind */
			/* Nothing was recorded in [first_ts, last_ts]; ts is
			 * the later of first_ts and its generation's start. */
			__u64 first_ts;
			__u64 last_ts;
		} gap;		/* FREC_EV_GAP, on FREC_CPU_UNKNOWN (every CPU) */
		struct {
			__u32 id;	/* the generation's trigger table */
			__u32 flags;	/* FREC_TRIGGER_* */
			__u64 value;	/* what was measured, ns for durations */
			__u64 count;	/* 1; firings aggregated when SUPPRESSED */
		} trigger;	/* FREC_EV_TRIGGER; the thread it fired on is tid/tgid */
		struct {
			__u32 kstack;	/* stack table index + 1, 0 = none */
			__u32 ustack;
		} stack;	/* FREC_EV_STACK: of the event before it on its cpu */
		struct {
			__u64 id;	/* never 0 */
		} cgroup;	/* FREC_EV_CGROUP: tid/tgid is in cgroup id from ts on */
	};
};

/* A thread as a generation names it. comm is the name at its first mention
 * in the generation; the reader updates it as exec/rename events pass. */
struct frec_thread {
	__u32 tid;
	__u32 tgid;
	char comm[FREC_COMM_LEN];
	/* its cgroup id (section 3) as of the last event returned: the
	 * reader applies FREC_EV_CGROUP as it applies renames; 0 unknown */
	__u64 cgroup;
};

/* A cgroup as a generation names it (section 2). Strings are "" when
 * unknown: path is as /proc/PID/cgroup shows it in frecd's cgroup
 * namespace ("/" the root), container the id its path names. */
struct frec_cgroup_info {
	__u64 id;
	const char *path;
	const char *container;
};

struct frec_process {
	__u32 tgid;
	__u32 ppid;		/* its parent's tgid; 0 when unknown (version 1 files) */
	const char *cmdline;	/* arguments joined by spaces; "" when unknown */
};

enum frec_probe_kind {
	FREC_PROBE_UPROBE = 1,
	FREC_PROBE_URETPROBE = 2,
	FREC_PROBE_USDT = 3,
};

struct frec_probe_info {
	__u32 id;		/* the BPF cookie; events carry it in probe.probe_id */
	__u32 kind;		/* enum frec_probe_kind */
	const char *name;	/* the spec as the user wrote it, e.g. "uprobe:/bin/x:f" */
	const char *path;	/* resolved absolute path of the binary or library */
	const char *func;	/* function, or "provider:name" for USDT */
	const char *build_id;	/* hex, "" when the file has none */
	__u64 offset;		/* offset within func (uprobe), else 0 */
	__u32 nargs;		/* integer arguments recorded at entry */
};

/* A trigger as a generation names it (summary section 6). */
struct frec_trigger_info {
	__u32 id;		/* events carry it in trigger.id */
	__u32 kind;		/* enum frec_trigger_kind */
	const char *name;	/* name=, else the spec */
	const char *spec;	/* as the user wrote it */
};

/* Names of types as the kernel's tracepoints and frec dump use them:
 * "sched_switch", ..., "uprobe", "uretprobe", "usdt", "lost"; NULL if unknown. */
const char *frec_type__name(unsigned int type);

/* The condition's word of enum frec_trigger_kind, as --trigger spells it:
 * "runq", ..., "manual"; NULL if unknown. */
const char *frec_trigger_kind__name(unsigned int kind);

/* Decode one ring buffer record (struct frec_rec_*) into ev. Strings in ev
 * point into data. Returns 0, or -EINVAL when len is short for the type or the
 * type is unknown. */
int frec_record__decode(const void *data, size_t len, struct frec_event *ev);

#endif /* FREC_EVENT_H */
