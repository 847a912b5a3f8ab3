/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The cgroup filter of --cgroup PATH: when frecd sets filter_cgroups, a
 * task is in the filter if its cgroup (in frecd's hierarchy, cgroup.bpf.h)
 * is one of the "cgroup_filter" entries or below one. The entries are
 * {id, level}, ended by an id of 0; frecd fills them after load and before
 * attach, and updates them in place (src/frecd/bpf_filter.c).
 *
 * The check is exact at any depth and on any task, not only current: the
 * kernel keeps every cgroup's ancestors by level, so the task's ancestor at
 * an entry's level is compared with the entry's id. A list of descendant
 * ids kept by frecd would race with new child cgroups. The ancestors are
 * indexed by a variable, which the verifier refuses on a typed pointer, so
 * even tp_btf reads them with bpf_probe_read_kernel(): the helpers are paid
 * per entry, and only with --cgroup (without it the code is dead).
 *
 * Those reads are paid per event and per task an event concerns (a
 * switch's two), so in the scheduler's programs (FREC_FILTER_MEMO, set by
 * frec.bpf.c) each CPU keeps a memo of its last verdicts
 * (cgroup_filter_memo), keyed as cgroup_memo.bpf.h keys its ids: by the
 * css's serial_nr (v1; on v2 the cgroup's own css; the roots' are 0, never
 * memoised) and cgroup, which no later cgroup can share, and by the list's
 * generation (FREC_CGROUP_FILTER_GEN). frecd raises the generation once a
 * change of the list is complete and an RCU grace period has passed
 * (src/frecd/bpf_filter.c), so a program that reads the new generation
 * also reads the new list, on any architecture; a verdict reached while
 * frecd rewrote the list is filed under the generation read before the
 * list was, and forgotten. A cgroup's ancestors never change (a v1 rename
 * stays in its parent), so neither does its verdict for one list.
 *
 * filter_pid.bpf.h makes the union with -p. Expects vmlinux.h,
 * bpf_helpers.h, bpf_core_read.h and cgroup.bpf.h first.
 */
#ifndef FREC_FILTER_CGROUP_BPF_H
#define FREC_FILTER_CGROUP_BPF_H

#include "frec.h"
#include "cgroup.bpf.h"

const volatile bool filter_cgroups = false;	/* --cgroup given */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FREC_MAX_CGROUP_FILTER + 1);	/* + the generation */
	__type(key, __u32);
	__type(value, struct frec_cgroup_filter);
} cgroup_filter SEC(".maps");

#define CGROUP_FILTER_MEMO_WAYS	4	/* a power of two */

struct cgroup_filter_memo_ent {
	__u64 serial;		/* 0: empty */
	__u64 cgroup;		/* an address */
	__u64 gen_in;		/* the list's generation << 1 | the verdict:
				 * one word, written and read at once */
};

/*
 * 6.0, "cgroup: Replace cgroup->ancestor_ids[] with ->ancestors[]": before,
 * struct cgroup ended in the ancestors' ids; since, in their pointers.
 */
struct cgroup___pre60 {
	__u64 ancestor_ids[0];
} __attribute__((preserve_access_index));

/* The id of cg's ancestor at level (cg's own id at its level); 0 when it
 * cannot be read. cg is only ever a number here. */
static __always_inline __u64 cgroup_ancestor_id(const struct cgroup *cg, __u32 level)
{
	struct cgroup *anc = NULL;
	__u64 addr, id = 0;

	if (bpf_core_field_exists(struct cgroup, ancestors)) {
		addr = (__u64)cg + bpf_core_field_offset(struct cgroup, ancestors) +
		       (__u64)level * sizeof(void *);
		if (bpf_probe_read_kernel(&anc, sizeof(anc), (const void *)addr) || !anc)
			return 0;
		return BPF_CORE_READ(anc, kn, id);
	}
	addr = (__u64)cg + bpf_core_field_offset(struct cgroup___pre60, ancestor_ids) +
	       (__u64)level * sizeof(__u64);
	if (bpf_probe_read_kernel(&id, sizeof(id), (const void *)addr))
		return 0;
	return id;
}

/* Whether t's cgroup (at its level) is cgroup (id, level) or below it. */
static __always_inline bool cgroup_under(const struct cgroup *cg, __u32 cg_level, __u64 id,
					 __u32 level)
{
	return level <= cg_level && cgroup_ancestor_id(cg, level) == id;
}

/* The level of cg (the root is 0). */
static __always_inline __u32 cgroup_level_of(const struct cgroup *cg, const bool btf)
{
	return CGROUP_BTF(btf) ? cg->level : BPF_CORE_READ(cg, level);
}

/* Whether cgroup cg is one of the filter's cgroups or below one. */
static __always_inline bool cgroup_in_list(struct cgroup *cg, const bool btf)
{
	const struct frec_cgroup_filter *e;
	__u32 i, level;

	level = cgroup_level_of(cg, btf);
#pragma clang loop unroll(disable)
	for (i = 0; i < FREC_MAX_CGROUP_FILTER; i++) {
		__u32 key = i;

		e = bpf_map_lookup_elem(&cgroup_filter, &key);
		if (!e || !e->id)
			break;
		if (cgroup_under(cg, level, e->id, e->level))
			return true;
	}
	return false;
}

/* t's cgroup in frecd's hierarchy (NULL if none) and the serial_nr of the
 * css that stands for it in the memo's key: the controller's css on v1,
 * the cgroup's own on v2 (0 if it cannot be read). */
static __always_inline struct cgroup *filter_cgroup_of(struct task_struct *t, const bool btf,
							__u64 *serial)
{
	struct cgroup_subsys_state *css;
	struct cgroup *cg;

	*serial = 0;
	if (cgroup_mode == FREC_CGROUP_V1) {
		css = (struct cgroup_subsys_state *)task_cgroup_v1_css(t);
		if (!css)
			return NULL;
		*serial = BPF_CORE_READ(css, serial_nr);
		return BPF_CORE_READ(css, cgroup);
	}
	cg = task_cgroup(t, btf);
	if (cg)
		*serial = CGROUP_BTF(btf) ? cg->self.serial_nr : BPF_CORE_READ(cg, self.serial_nr);
	return cg;
}

#ifdef FREC_FILTER_MEMO
/*
 * The scheduler's tracepoints run with preemption off, so on one CPU a
 * program using the memo can be interrupted only by another that runs to
 * its end (a wakeup in an interrupt, where the first was a fork, an exit,
 * a rename or a waking of current, which run with interrupts on). An
 * entry is therefore written serial first (cleared) and last (set), and
 * read serial first and last, each access volatile so that the compiler
 * keeps the order (a CPU sees its own accesses in program order), with the
 * generation and the verdict in one word:
 * - a reader interrupted by a writer matches only if both its serial reads
 *   give its own: the writer wrote for the same css, and a generation
 *   equal to the reader's comes with that generation's verdict;
 * - a writer interrupted by another ends with its own serial and either
 *   its own other words, or the other's for the same css (whose verdict
 *   goes with its generation), or the other's cgroup for another css: a
 *   key no task has.
 * Probe programs can be preempted in the middle (since sleepable uprobe
 * programs came, uprobes run theirs with migration, not preemption,
 * disabled), and two writers interleaved at will could leave a wrong
 * verdict: probe.bpf.c has no memo.
 */
#define MEMO_RD(x)	(*(volatile __u64 *)&(x))
#define MEMO_WR(x, v)	(*(volatile __u64 *)&(x) = (v))

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cgroup_filter_memo_ent[CGROUP_FILTER_MEMO_WAYS]);
} cgroup_filter_memo SEC(".maps");

/* Whether task t is in one of the filter's cgroups or below one. */
static __always_inline bool task_in_cgroups(struct task_struct *t, const bool btf)
{
	__u32 zero = 0, gen_key = FREC_CGROUP_FILTER_GEN;
	struct cgroup_filter_memo_ent *m, *e = NULL;
	const struct frec_cgroup_filter *g;
	__u64 serial, gen = 0, gen_in;
	struct cgroup *cg;
	bool in;

	cg = filter_cgroup_of(t, btf, &serial);
	if (!cg)
		return false;
	/* the generation before the list: see the header */
	g = bpf_map_lookup_elem(&cgroup_filter, &gen_key);
	if (g)
		gen = *(volatile __u64 *)&g->id;
	m = bpf_map_lookup_elem(&cgroup_filter_memo, &zero);
	if (m && gen && serial) {
		e = &m[serial & (CGROUP_FILTER_MEMO_WAYS - 1)];
		if (MEMO_RD(e->serial) == serial && MEMO_RD(e->cgroup) == (__u64)cg) {
			gen_in = MEMO_RD(e->gen_in);
			if (gen_in >> 1 == gen && MEMO_RD(e->serial) == serial)
				return gen_in & 1;
		}
	}
	in = cgroup_in_list(cg, btf);
	if (e) {
		MEMO_WR(e->serial, 0);
		MEMO_WR(e->cgroup, (__u64)cg);
		MEMO_WR(e->gen_in, gen << 1 | in);
		MEMO_WR(e->serial, serial);
	}
	return in;
}
#else
/* Whether task t is in one of the filter's cgroups or below one. */
static __always_inline bool task_in_cgroups(struct task_struct *t, const bool btf)
{
	struct cgroup *cg = task_cgroup(t, btf);

	return cg && cgroup_in_list(cg, btf);
}
#endif /* FREC_FILTER_MEMO */

#endif /* FREC_FILTER_CGROUP_BPF_H */
