// SPDX-License-Identifier: GPL-2.0
/*
 * The test VM's own BPF smoke: proves, before and independently of frecd,
 * that a CO-RE object built against the build host's vmlinux.h loads and runs
 * on the guest kernel through both attach paths frecd uses (tp_btf and
 * raw_tp) and that uprobes count exactly there.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

/* Set by the loader before load: only its own process is counted. */
const volatile int target_tgid = 0;

__u64 switches = 0;
__u64 uprobe_hits = 0;

SEC("tp_btf/sched_switch")
int BPF_PROG(smoke_tp_btf, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	/* tp_btf arguments are typed: plain loads are checked by the verifier. */
	if (prev->tgid == target_tgid)
		__sync_fetch_and_add(&switches, 1);
	return 0;
}

SEC("raw_tp/sched_switch")
int BPF_PROG(smoke_raw_tp, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	/* raw_tp arguments are untyped: read through CO-RE probe reads. */
	if (BPF_CORE_READ(prev, tgid) == target_tgid)
		__sync_fetch_and_add(&switches, 1);
	return 0;
}

SEC("uprobe")
int smoke_uprobe(struct pt_regs *ctx)
{
	__sync_fetch_and_add(&uprobe_hits, 1);
	return 0;
}
