/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The scheduler object's trigger maps and knobs (bpf/trigger.bpf.h,
 * bpf/trigger_sched.bpf.h), for loader.c: which programs and knobs a table
 * needs before load, the table and its per-kind masks written after load
 * and before attach, and the maps read back (per-trigger state, oncpu).
 * The "triggers" and "trigger_state" maps are created once, by the first
 * object loaded, and handed to every later one (a program swap, the probes'
 * object) with bpf_map__reuse_fd(); the others are each object's own.
 *
 * Threads: as loader.h (main's at start, the loop's after).
 */
#ifndef FRECD_BPF_TRIGGERS_H
#define FRECD_BPF_TRIGGERS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "../../bpf/trigger.h"

struct frec_bpf;
struct frecd_bpf_triggers;

/* The kinds the scheduler programs evaluate, as bits 1 << kind. */
#define FRECD_TRIG_SCHED_KINDS \
	((1u << FREC_TRIG_RUNQ) | (1u << FREC_TRIG_OFFCPU) | (1u << FREC_TRIG_ONCPU))
#define FRECD_TRIG_THREAD_KINDS	((1u << FREC_TRIG_RUNQ) | (1u << FREC_TRIG_OFFCPU))

struct frecd_bpf_triggers *frecd_bpf_triggers__new(void);
void frecd_bpf_triggers__free(struct frecd_bpf_triggers *bt);

/* The kinds of table t (n entries) as bits 1 << kind; kind 0 and those
 * past FREC_TRIG__MAX are not counted. */
__u32 frecd_bpf_triggers__kinds(const struct frec_trigger_bpf *t, __u32 n);
/*
 * Trigger spec's cgroup= path (NULL: none) into t's cgroup_id and
 * cgroup_level, in the hierarchy frecd records (cgroup_state.h). 0, or
 * -errno with "trigger 'SPEC': cgroup /x: no cgroup ..." in err.
 */
int frecd_bpf_triggers__set_cgroup(struct frec_trigger_bpf *t, const char *spec,
				   const char *cgroup, char *err, size_t errlen);
/* t->comm_mask from t->comm: 0xff for each byte of the name and the NUL
 * after it (all 16 when the name fills 15), 0 for the bytes past it, which
 * a renamed task's comm may hold stale before 5.17. Pure. */
void frecd_bpf_triggers__comm_mask(struct frec_trigger_bpf *t);
/* Whether a trigger of t has cgroup= (the programs' trig_cgroups knob). */
bool frecd_bpf_triggers__cgroups(const struct frec_trigger_bpf *t, __u32 n);

/*
 * Whether a tp_btf object keeps per-thread state in task storage here (else
 * an LRU hash by tid); why says which and why, for frecd --check. raw_tp:
 * never (no typed task pointer to give the helper).
 */
bool frecd_bpf_triggers__task_storage(bool raw_tp, char *why, size_t whylen);

/* Whether program prog (of skel) is one to load for the scheduler kinds
 * kinds (FRECD_TRIG_SCHED_KINDS bits): where a tracepoint has a trigger
 * twin, exactly one of the two is. */
bool frecd_bpf_triggers__wanted(const char *prog_name, const char *tracepoint, __u32 kinds);

/*
 * Between open and load: the knobs and the per-thread maps for table t,
 * and bt's maps handed over if an object was loaded before. 0 or -errno
 * with the cause in err.
 */
int frecd_bpf_triggers__prepare(struct frecd_bpf_triggers *bt, struct frec_bpf *skel,
				const struct frec_trigger_bpf *t, __u32 n, bool raw_tp,
				char *err, size_t errlen);
/*
 * After load, before attach: table t written into the shared map (the
 * slots past n cleared), its masks into skel's own data, and the shared
 * maps kept by bt from the first object on. A copy of t is kept
 * (frecd_bpf_triggers__table()). 0 or -errno with the cause in err.
 */
int frecd_bpf_triggers__fill(struct frecd_bpf_triggers *bt, struct frec_bpf *skel,
			     const struct frec_trigger_bpf *t, __u32 n, char *err, size_t errlen);
/* The table last filled (bt's copy), n entries. */
const struct frec_trigger_bpf *frecd_bpf_triggers__table(const struct frecd_bpf_triggers *bt,
							 __u32 *n);
/* Whether loaded skel keeps per-thread state in task storage. */
bool frecd_bpf_triggers__uses_task_storage(const struct frec_bpf *skel);

/* loader.h's frecd_bpf__take_trigger_state(), __reset_trigger(), __read_oncpu(). */
int frecd_bpf_triggers__take_state(struct frecd_bpf_triggers *bt, struct frec_trigger_state *st,
				   __u32 n);
int frecd_bpf_triggers__reset(struct frecd_bpf_triggers *bt, __u32 id);
int frecd_bpf_triggers__read_oncpu(struct frecd_bpf_triggers *bt, const struct frec_bpf *skel,
				   struct frec_oncpu *out, size_t *n);
int frecd_bpf_triggers__triggers_fd(const struct frecd_bpf_triggers *bt);
int frecd_bpf_triggers__state_fd(const struct frecd_bpf_triggers *bt);

#endif /* FRECD_BPF_TRIGGERS_H */
