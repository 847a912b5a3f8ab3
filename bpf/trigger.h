/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the trigger code of frec.bpf.c and probe.bpf.c (trigger.bpf.h) and
 * frecd (src/frecd/bpf_triggers.c) agree on: the armed triggers as the
 * programs see them, and the state the programs keep per trigger. The
 * record a firing writes is struct frec_rec_trigger (frec/record.h).
 *
 * With no --trigger none of this is loaded: the knobs (trigger.bpf.h) stay
 * 0 and the verifier removes the trigger code as dead, so the programs cost
 * what they cost without triggers.
 */
#ifndef FREC_BPF_TRIGGER_H
#define FREC_BPF_TRIGGER_H

#include "frec/record.h"

/*
 * One armed trigger: the "triggers" array map, index id - 1, written by
 * frecd after load and before attach, read-only to the programs after.
 */
struct frec_trigger_bpf {
	__u32 kind;		/* enum frec_trigger_kind; 0: slot unused */
	__u32 tgid;		/* pid=: only this process; 0: any */
	__u64 threshold_ns;	/* runq, offcpu, oncpu, func: fires above this */
	__u64 cooldown_ns;	/* cooldown=: no record (no wakeup) sooner */
	char comm[FREC_COMM_LEN]; /* comm=: only threads of this name; "": any */
	/* comm='s bytes that count: its name and the NUL after it (all 16
	 * when the name fills 15). Before 5.17 ("fs/exec: replace strlcpy
	 * with strscpy_pad in __set_task_comm") a rename leaves the old
	 * name's tail after the NUL in task->comm, so the bytes past it are
	 * not compared. frecd fills it with comm (trigger_setup.c). */
	__u64 comm_mask[FREC_COMM_LEN / 8];
	__u32 probe_id;		/* func: its entry probe's id; probe: the probe's id */
	__u32 cgroup_level;	/* cgroup=: the cgroup's level (the root is 0) */
	__u64 cgroup_id;	/* cgroup=: only threads in it or below; 0: any */
};

/*
 * What the programs keep per trigger: the "trigger_state" array map, index
 * id - 1, one for all CPUs. A firing inside the cooldown writes no record:
 * it is counted here, and frecd turns what it reads into the generation's
 * suppressed aggregate (frec_recorder__add_suppressed()).
 *  - last_fire_ts: the time of the last record written. A plain store: two
 *    CPUs may both write a record in one cooldown; frecd's own cooldown
 *    check on the records makes the second a suppressed one.
 *  - suppressed: firings inside the cooldown, ever (atomic adds; frecd
 *    keeps the value it last read).
 *  - supp_first_ts: the first since frecd last set it to 0.
 *  - supp_worst and its thread: the largest value since frecd last set
 *    supp_worst to 0 (plain stores: a nested or concurrent firing may
 *    leave a value a little below the worst, never one that did not occur).
 */
struct frec_trigger_state {
	__u64 last_fire_ts;
	__u64 suppressed;
	__u64 supp_first_ts;
	__u64 supp_worst;
	__u32 supp_tid;
	__u32 supp_tgid;
};

/*
 * oncpu>DUR while a thread still runs: the "oncpu" per-CPU array (one
 * entry) says who runs since when, for frecd's tick to check (a thread
 * that never leaves the CPU has no switch-out to fire at). The programs
 * only write it; frecd only reads it. A run frecd fired for from its tick
 * fires again at its switch-out, in BPF: frecd knows that record for the
 * same run (its cpu, and h.ts - value == since_ts) and drops it. Only with
 * an oncpu trigger armed.
 */
struct frec_oncpu {
	__u64 since_ts;		/* switch-in; 0: idle, or not known yet */
	__u32 pid;
	__u32 tgid;
	char comm[FREC_COMM_LEN];
};

/*
 * Which triggers a probe's hit concerns: the probe object's "probe_triggers"
 * array, index probe id, filled by frecd (probe_attach.c) from the table
 * before attach.
 */
struct frec_probe_trig {
	__u32 mask;		/* bit id - 1: probe triggers on this probe; for a
				 * func return, also the func triggers it ends */
	__u32 entry_id;		/* a func return: its entry probe's id; else 0 */
	__u32 func_entry;	/* 1: a func trigger times calls from this entry */
	__u32 __pad;
};

#endif /* FREC_BPF_TRIGGER_H */
