// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * frecd's self-probe (src/frecd/hostview.c): one program, never attached,
 * run once with BPF_PROG_TEST_RUN. Without BPF_F_TEST_RUN_ON_CPU a raw_tp
 * test run executes on the calling thread, so current is frecd's thread, and
 * the kernel's view of it lands in .bss: its host pid and tid, which
 * getpid() cannot give inside a pid namespace, and its cgroups' ids and
 * levels, which /proc/self/cgroup gives only relative to frecd's cgroup
 * namespace.
 *
 * An object of its own, so that the recording programs stay untouched.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Knob: the v1 controller whose hierarchy to read too (enum
 * cgroup_subsys_id, checked by frecd against the kernel's BTF), -1 none. */
const volatile int cgroup_v1_ssid = -1;

/* What the run found; ran is 1 once it has. */
__u64 pid_tgid;
__u64 cgroup_id;
__u32 cgroup_level;
__u64 v1_cgroup_id;
__u32 v1_cgroup_level;
__u32 ran;

/* The slots of css_set.subsys[] a variable index may reach. */
#define SUBSYS_SLOTS	16

SEC("raw_tp")
int frec_self(void *ctx)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	struct cgroup_subsys_state *css = NULL;
	struct css_set *cs;
	struct cgroup *cg;
	int ssid = cgroup_v1_ssid;

	pid_tgid = bpf_get_current_pid_tgid();
	cs = BPF_CORE_READ(t, cgroups);
	cg = BPF_CORE_READ(cs, dfl_cgrp);
	cgroup_id = BPF_CORE_READ(cg, kn, id);
	cgroup_level = BPF_CORE_READ(cg, level);
	/* The index is a variable: the address is computed and read with
	 * the helper, which a CO-RE read cannot do. */
	if (ssid >= 0 && ssid < SUBSYS_SLOTS) {
		bpf_probe_read_kernel(&css, sizeof(css), (void *)cs +
				      bpf_core_field_offset(struct css_set, subsys) +
				      ssid * sizeof(css));
		if (css) {
			cg = BPF_CORE_READ(css, cgroup);
			v1_cgroup_id = BPF_CORE_READ(cg, kn, id);
			v1_cgroup_level = BPF_CORE_READ(cg, level);
		}
	}
	ran = 1;
	return 0;
}
