/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Records written by the BPF programs into the ring buffer and read by
 * frecd. This header is shared by bpf/ and src/: fixed-width types only, no
 * libc. Every record starts with struct frec_rec_hdr, whose type says which
 * struct follows. The ring record is the wide, easy-to-write form; the core
 * re-encodes it compactly (see docs/FORMAT.md), so its size matters only for
 * ring buffer bandwidth.
 */
#ifndef FREC_RECORD_H
#define FREC_RECORD_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define FREC_COMM_LEN		16
#define FREC_FILENAME_LEN	256
#define FREC_MAX_PROBE_ARGS	6
/* Probe ids are BPF cookies; 0 is never a valid id. */
#define FREC_MAX_PROBES		256

/* The kinds of event. The values are part of the file format: never reuse one. */
enum frec_type {
	FREC_EV_NONE		 = 0,
	FREC_EV_SCHED_SWITCH	 = 1,
	FREC_EV_SCHED_WAKING	 = 2,
	FREC_EV_SCHED_WAKEUP	 = 3,
	FREC_EV_SCHED_WAKEUP_NEW = 4,
	FREC_EV_PROCESS_FORK	 = 5,
	FREC_EV_PROCESS_EXEC	 = 6,
	FREC_EV_PROCESS_EXIT	 = 7,
	FREC_EV_TASK_RENAME	 = 8,
	FREC_EV_MIGRATE_TASK	 = 9,
	FREC_EV_UPROBE		 = 10,	/* function entry, with arguments */
	FREC_EV_URETPROBE	 = 11,	/* function return, with return value */
	FREC_EV_USDT		 = 12,	/* USDT probe, with its arguments */
	FREC_EV_LOST		 = 13,	/* records the ring buffer could not take */
	/* Format version 2 (docs/FORMAT.md "Type space"). 15 is never a
	 * type: it is the tag's escape to the extended types, 16 and up. */
	FREC_EV_STACK		 = 14,	/* the stacks of the event before it */
	FREC_EV_TRIGGER		 = 16,	/* a trigger's condition held */
	FREC_EV_GAP		 = 17,	/* nothing was recorded for a while */
	/* A thread is in another cgroup from now on. Never a ring record:
	 * the recorder writes it when a record reveals the move. */
	FREC_EV_CGROUP		 = 18,
	FREC_EV__MAX
};

/* The tag's type nibble that says "an extended type follows". */
#define FREC_EV_ESCAPE		15

/* hdr.cpu of a record on no CPU: one frecd writes itself (a lost or
 * manual trigger); it decodes as FREC_CPU_UNKNOWN (event.h). */
#define FREC_REC_CPU_NONE	0xffff

/* Common header. tid/tgid are those of the current task when the event fired. */
struct frec_rec_hdr {
	__u64 ts;		/* CLOCK_BOOTTIME ns, bpf_ktime_get_boot_ns() */
	__u32 tid;
	__u32 tgid;
	__u16 type;		/* enum frec_type */
	__u16 cpu;
	__u32 size;		/* bytes of the whole record, header included */
};

struct frec_rec_switch {
	struct frec_rec_hdr h;
	__u32 prev_pid;
	__u32 prev_tgid;
	__u32 next_pid;
	__u32 next_tgid;
	__s32 prev_prio;
	__s32 next_prio;
	__u64 prev_state;	/* TASK_* bits, as the kernel's sched_switch reports them */
	char prev_comm[FREC_COMM_LEN];
	char next_comm[FREC_COMM_LEN];
	/* next's cgroup id (kernfs id of its cgroup in the hierarchy frecd
	 * chose: v2, or one v1 controller's); 0 when not read. Every thread
	 * that runs is switched in, so this names its cgroup from its first
	 * run, and a move shows at its next switch-in. */
	__u64 next_cgroup;
};

/* sched_waking, sched_wakeup, sched_wakeup_new; the waker is h.tid/h.tgid. */
struct frec_rec_wake {
	struct frec_rec_hdr h;
	__u32 pid;
	__u32 tgid;
	__s32 prio;
	__s32 target_cpu;
	char comm[FREC_COMM_LEN];
};

struct frec_rec_fork {
	struct frec_rec_hdr h;
	__u32 parent_pid;
	__u32 parent_tgid;
	__u32 child_pid;
	__u32 child_tgid;	/* == parent_tgid for a new thread */
	char parent_comm[FREC_COMM_LEN];
	char child_comm[FREC_COMM_LEN];
	/* the child's cgroup id, 0 when not read: sched_process_fork fires
	 * after cgroup_post_fork(), and CLONE_INTO_CGROUP can start the
	 * child in another cgroup than its parent's */
	__u64 child_cgroup;
};

struct frec_rec_exec {
	struct frec_rec_hdr h;
	__u32 pid;
	__u32 old_pid;
	/* the program it now runs, as struct frec_rec_stack says it */
	__u64 proc_start_ns;
	__u64 exec_id;
	char comm[FREC_COMM_LEN];	/* the new comm, after exec */
	char filename[FREC_FILENAME_LEN];	/* NUL-terminated, may be truncated */
};

struct frec_rec_exit {
	struct frec_rec_hdr h;
	__u32 pid;
	__u32 tgid;
	__s32 prio;
	__u32 __pad;
	char comm[FREC_COMM_LEN];
};

struct frec_rec_rename {
	struct frec_rec_hdr h;
	__u32 pid;
	__u32 tgid;
	char oldcomm[FREC_COMM_LEN];
	char newcomm[FREC_COMM_LEN];
};

struct frec_rec_migrate {
	struct frec_rec_hdr h;
	__u32 pid;
	__u32 tgid;
	__s32 prio;
	__u32 orig_cpu;
	__u32 dest_cpu;
	__u32 __pad;
	char comm[FREC_COMM_LEN];
};

/* uprobe, uretprobe and USDT hits; the thread is h.tid/h.tgid. */
struct frec_rec_probe {
	struct frec_rec_hdr h;
	__u32 probe_id;		/* BPF cookie, index into the probe table */
	__u32 nargs;		/* valid entries of args[] */
	__u64 args[FREC_MAX_PROBE_ARGS];
	__s64 ret;		/* FREC_EV_URETPROBE only */
};

/*
 * Triggers (--trigger SPEC): conditions evaluated on the events frec records.
 * Ids are 1..FREC_MAX_TRIGGERS; 0 is never a valid id. The kinds are part of
 * the file format (the trigger table, docs/FORMAT.md): never reuse one.
 */
#define FREC_MAX_TRIGGERS	32

enum frec_trigger_kind {
	FREC_TRIG_RUNQ	 = 1,	/* runq>DUR: waking to switch-in (BPF) */
	FREC_TRIG_OFFCPU = 2,	/* offcpu>DUR: blocked switch-out to switch-in (BPF) */
	FREC_TRIG_ONCPU	 = 3,	/* oncpu>DUR: switch-in to switch-out (BPF, and frecd's tick) */
	FREC_TRIG_FUNC	 = 4,	/* func:PATH:FUNC>DUR: entry to return (BPF) */
	FREC_TRIG_PROBE	 = 5,	/* probe:SPEC: a probe fired (BPF) */
	FREC_TRIG_LOST	 = 6,	/* lost: records were lost (frecd) */
	FREC_TRIG_MANUAL = 7,	/* manual:NAME: `frec trigger NAME` (frecd) */
	FREC_TRIG__MAX
};

/*
 * A trigger's condition held (FREC_EV_TRIGGER). h.tid/h.tgid is the current
 * thread; pid/tgid/comm the thread the condition held for (for runq, the
 * thread switched in, which is not current at sched_switch). The programs
 * write one and force a wakeup, unless the trigger is in its cooldown
 * (struct frec_trigger_state, bpf/trigger.h); frecd writes those of lost,
 * manual and a still-running oncpu itself.
 */
struct frec_rec_trigger {
	struct frec_rec_hdr h;
	__u32 trigger_id;	/* 1..FREC_MAX_TRIGGERS */
	__u32 pid;
	__u32 tgid;
	__u32 flags;		/* FREC_TRIGGER_* (event.h); 0 from the programs */
	__u64 value;		/* what was measured: ns for durations */
	char comm[FREC_COMM_LEN];
};

/*
 * Stacks (--stacks): the stacks of the record before it in the same CPU's
 * ring, with the same h.ts and h.tid: a sched_switch whose prev blocked
 * (h.tid is prev; frames are prev's) or a probe hit. kframes kernel
 * addresses, then uframes user addresses, each innermost first. A
 * capture that failed has 0 frames of that kind and its FREC_STACK_*_ERR
 * bit (also counted in FREC_CNT_STACK_ERR). The record is sized to its
 * frames: h.size == sizeof(struct frec_rec_stack) + 8 x (kframes + uframes).
 */
#define FREC_MAX_STACK_DEPTH	127	/* frames of each kind, at most */
#define FREC_DEFAULT_STACK_DEPTH 64

#define FREC_STACK_KERN_ERR	(1u << 0)	/* the kernel stack could not be captured */
#define FREC_STACK_USER_ERR	(1u << 1)	/* the user stack could not be captured */

struct frec_rec_stack {
	struct frec_rec_hdr h;	/* type FREC_EV_STACK */
	__u16 kframes;
	__u16 uframes;
	__u32 flags;		/* FREC_STACK_* */
	/*
	 * Which program the thread ran when captured, read from the task
	 * itself, so that it holds when the exec or fork record that said so
	 * was lost: its process leader's start_time (ns of the monotonic
	 * clock; a pid reused is another process, another time) and its
	 * self_exec_id (one more at every exec). Both 0: not known.
	 */
	__u64 proc_start_ns;
	__u64 exec_id;
	__u64 ips[];		/* kframes + uframes */
};

/* Counters the BPF side keeps per CPU, in a BPF_MAP_TYPE_PERCPU_ARRAY. */
enum frec_counter {
	FREC_CNT_DROPPED = 0,	/* bpf_ringbuf_reserve() failed */
	FREC_CNT_FILTERED,	/* events skipped by the pid filter (not drops) */
	/* CLOCK_BOOTTIME of the first failed reserve since frecd last set
	 * this slot to 0, and of the latest one (never reset). */
	FREC_CNT_DROP_FIRST_TS,
	FREC_CNT_DROP_LAST_TS,
	/* stack captures (either kind) that failed: bpf_get_stack() < 0 */
	FREC_CNT_STACK_ERR,
	/* ring bytes written since the last forced wakeup of frecd (the
	 * programs' own: frecd neither reads nor resets it) */
	FREC_CNT_RING_BYTES,
	FREC_CNT__MAX
};

#endif /* FREC_RECORD_H */
