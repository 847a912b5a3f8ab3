/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A CPU's memo of the v1 cgroup ids it read last: task_cgroup_id_memo(),
 * for sched_switch, which reads next's cgroup at every switch.
 *
 * Why: the walk to a v1 id crosses five objects in as many slab pages
 * (task -> css_set -> css -> cgroup -> kernfs_node). Measured on a 6.18 VM
 * (2 CPUs, the memory controller's hierarchy) on the pinned pipe
 * benchmark, it cost about 80 ns of the switch program's 300, and the memo
 * took 50 of them back. On v2 the walk is one object shorter and the memo's
 * lookup cost what it saved there, so v2 reads the id as before.
 *
 * Why it is never wrong: the memo stops the walk at the css and is keyed
 * by the css's serial_nr and its cgroup pointer. No two css ever get the
 * same serial_nr (a 64-bit counter, css_serial_nr_next in
 * kernel/cgroup/cgroup.c, that only grows), so the key tells a css from any
 * that had its memory before, as slab reuse gives it when containers come
 * and go (tests/integration/test_cgroup_v1_churn.sh): the css's address
 * alone would not. A css keeps its cgroup for life, but for a
 * controller's root css, which moves to the root of whichever hierarchy
 * the controller is bound to (rebind_subsystems()): the cgroup pointer in
 * the key covers that. The cgroup and its kernfs node, the two objects
 * the walk no longer touches, are what the memo saves.
 *
 * Direct-mapped, four entries per CPU: a CPU runs the tasks of a few
 * cgroups at a time. Only sched_switch's programs use it, and sched_switch
 * fires in __schedule() with interrupts off, so nothing else runs on the
 * CPU while one of them reads or fills an entry: its stores need no lock
 * and no order.
 *
 * For frec.bpf.c; expects cgroup.bpf.h.
 */
#ifndef FREC_CGROUP_MEMO_BPF_H
#define FREC_CGROUP_MEMO_BPF_H

#include "cgroup.bpf.h"

#define CGROUP_MEMO_WAYS	4	/* a power of two */

struct cgroup_memo_ent {
	__u64 serial;		/* 0: empty (the counter starts at 1) */
	__u64 cgroup;		/* the css's cgroup, an address */
	__u64 id;
};

struct cgroup_memo {
	struct cgroup_memo_ent e[CGROUP_MEMO_WAYS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cgroup_memo);
} cgroup_memo SEC(".maps");

/* The kernfs id of css's cgroup, through the memo; a miss fills its entry. */
static __always_inline __u64 memo_id(struct cgroup_subsys_state *css, const bool btf)
{
	__u32 zero = 0;
	struct cgroup_memo *m = bpf_map_lookup_elem(&cgroup_memo, &zero);
	struct cgroup_memo_ent *e = NULL;
	struct cgroup *cg;
	__u64 serial, id;

	if (!css)
		return 0;
	serial = RD(btf, css, serial_nr);
	cg = RD(btf, css, cgroup);
	if (!cg)
		return 0;
	if (m && serial) {	/* 0: never memoised, as in the filter's memo */
		e = &m->e[serial & (CGROUP_MEMO_WAYS - 1)];
		if (e->serial == serial && e->cgroup == (__u64)cg)
			return e->id;
	}
	id = btf ? cg->kn->id : BPF_CORE_READ(cg, kn, id);
	if (e && id) {	/* 0: not read; try again next time */
		e->serial = serial;
		e->cgroup = (__u64)cg;
		e->id = id;
	}
	return id;
}

/* task_cgroup_id(), through the memo on v1. */
static __always_inline __u64 task_cgroup_id_memo(struct task_struct *t, const bool btf)
{
	struct cgroup_subsys_state *css;

	if (cgroup_mode != FREC_CGROUP_V1)
		return task_cgroup_id(t, btf);
	/* the mask bounds the constant for the reader, as in task_cgroup_id() */
	if (btf)
		css = t->cgroups->subsys[cgroup_v1_ssid & FREC_CGROUP_SSID_MASK];
	else
		css = (struct cgroup_subsys_state *)task_cgroup_v1_css(t);
	return memo_id(css, btf);
}

#endif /* FREC_CGROUP_MEMO_BPF_H */
