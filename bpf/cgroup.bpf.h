/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A task's cgroup, as the kernfs id of its cgroup directory: on 64-bit that
 * is also the directory's inode number and its FILEID_KERNFS handle, so
 * frecd names it from cgroupfs (src/frecd/cgroupfs.h). One hierarchy,
 * chosen by frecd between open and load:
 * - FREC_CGROUP_V2: t->cgroups->dfl_cgrp->kn->id, four loads through RD()
 *   (plain loads on tp_btf, probe reads on raw_tp), no helper on tp_btf;
 * - FREC_CGROUP_V1: the cgroup of the css of controller cgroup_v1_ssid,
 *   t->cgroups->subsys[ssid]->cgroup->kn->id: on tp_btf five plain loads,
 *   on raw_tp five probe reads. A variable index into a typed pointer is
 *   refused by the verifier, but cgroup_v1_ssid is not one: .rodata is
 *   frozen before load, and since 5.2 the verifier reads a value of a
 *   frozen read-only map as a known constant (its bpf_map_direct_read()),
 *   so the index is a constant offset;
 * - FREC_CGROUP_NONE: nothing is read (dead code), the id is 0.
 * The fields are the same from 5.10 on; kernfs_node.id is a u64 since 5.5.
 *
 * For any tracing program. No maps; the knobs are this header's. Expects
 * vmlinux.h, bpf_helpers.h and bpf_core_read.h, and task.bpf.h for RD().
 */
#ifndef FREC_CGROUP_BPF_H
#define FREC_CGROUP_BPF_H

#include "frec.h"
#include "task.bpf.h"

const volatile __u32 cgroup_mode = FREC_CGROUP_NONE;
const volatile __u32 cgroup_v1_ssid = 0;	/* enum cgroup_subsys_id, from the kernel's BTF */

/* css_set.subsys[] has CGROUP_SUBSYS_COUNT entries, never near this: the
 * mask only bounds the index for the verifier (frecd checks the ssid). */
#define FREC_CGROUP_SSID_MASK	15

/* t's css of controller cgroup_v1_ssid, as a number (only ever read
 * through probe reads); 0 if it cannot be read. */
static __always_inline __u64 task_cgroup_v1_css(struct task_struct *t)
{
	struct cgroup_subsys_state *css = NULL;
	struct css_set *cset;
	__u64 slot;

	cset = BPF_CORE_READ(t, cgroups);
	if (!cset)
		return 0;
	slot = (__u64)cset + bpf_core_field_offset(struct css_set, subsys) +
	       (cgroup_v1_ssid & FREC_CGROUP_SSID_MASK) * sizeof(void *);
	if (bpf_probe_read_kernel(&css, sizeof(css), (const void *)slot))
		return 0;
	return (__u64)css;
}

/* The v1 cgroup of t in the hierarchy of controller cgroup_v1_ssid, as a
 * number (only ever read through probe reads); 0 if it cannot be read. */
static __always_inline __u64 task_cgroup_v1(struct task_struct *t)
{
	struct cgroup_subsys_state *css = (void *)task_cgroup_v1_css(t);

	return css ? (__u64)BPF_CORE_READ(css, cgroup) : 0;
}

/*
 * The cgroup of t in frecd's hierarchy, or NULL (mode none). On tp_btf with
 * v2 a typed pointer; otherwise a number for probe reads only: callers read
 * it with RD(btf && cgroup_mode == FREC_CGROUP_V2, ...), see task_cgroup_id().
 */
static __always_inline struct cgroup *task_cgroup(struct task_struct *t, const bool btf)
{
	if (cgroup_mode == FREC_CGROUP_V2)
		return btf ? t->cgroups->dfl_cgrp : BPF_CORE_READ(t, cgroups, dfl_cgrp);
	if (cgroup_mode == FREC_CGROUP_V1)
		return (struct cgroup *)task_cgroup_v1(t);
	return NULL;
}

/* Whether task_cgroup()'s pointer may be dereferenced with plain loads. */
#define CGROUP_BTF(btf)		((btf) && cgroup_mode == FREC_CGROUP_V2)

/* The kernfs id of t's cgroup in frecd's hierarchy; 0 with mode none. */
static __always_inline __u64 task_cgroup_id(struct task_struct *t, const bool btf)
{
	struct cgroup *cg;

	if (cgroup_mode == FREC_CGROUP_NONE)
		return 0;
	if (CGROUP_BTF(btf))
		return t->cgroups->dfl_cgrp->kn->id;
	/* the mask changes nothing (frecd checks the ssid); it bounds the
	 * constant for the reader */
	if (btf && cgroup_mode == FREC_CGROUP_V1)
		return t->cgroups->subsys[cgroup_v1_ssid & FREC_CGROUP_SSID_MASK]->cgroup->kn->id;
	cg = task_cgroup(t, btf);
	if (!cg)
		return 0;
	return BPF_CORE_READ(cg, kn, id);
}

#endif /* FREC_CGROUP_BPF_H */
