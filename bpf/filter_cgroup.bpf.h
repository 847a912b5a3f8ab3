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
	__uint(max_entries, FREC_MAX_CGROUP_FILTER);
	__type(key, __u32);
	__type(value, struct frec_cgroup_filter);
} cgroup_filter SEC(".maps");

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

/* Whether task t is in one of the filter's cgroups or below one. */
static __always_inline bool task_in_cgroups(struct task_struct *t, const bool btf)
{
	const struct frec_cgroup_filter *e;
	struct cgroup *cg;
	__u32 i, level;

	cg = task_cgroup(t, btf);
	if (!cg)
		return false;
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

#endif /* FREC_FILTER_CGROUP_BPF_H */
