/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The process filter of -p PID: when frecd sets filter_pids, an event is
 * kept only if it concerns one of the tgids in pid_filter, and the others
 * are counted (FREC_CNT_FILTERED). frecd sets the knob between open and
 * load and fills the map after load and before attach; a reload hands the
 * map over to the new object (bpf_map__reuse_fd), and a new -p list updates
 * it in place (src/frecd/loader.c).
 *
 * With --cgroup too (filter_cgroup.bpf.h), an event is kept when -p or
 * --cgroup keeps it: the union, so that "-p C --cgroup /a" records both.
 * With neither knob set the checks are dead code: no instruction is added.
 *
 * For programs whose events concern processes other than the current one
 * (a switch, a wakeup, a fork); a program about the current task only
 * may use it too. Expects vmlinux.h, bpf_helpers.h and bpf_core_read.h
 * first.
 */
#ifndef FREC_FILTER_PID_BPF_H
#define FREC_FILTER_PID_BPF_H

#include "frec/record.h"
#include "frec.h"
#include "counters.bpf.h"
#include "filter_cgroup.bpf.h"

const volatile bool filter_pids = false;	/* -p given: keep only pid_filter tgids */

/* tgids given with -p; filled by frecd after load and before attach. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FREC_MAX_PID_FILTER);
	__type(key, __u32);
	__type(value, __u8);
} pid_filter SEC(".maps");

/* Whether -p or --cgroup keeps the thread t of process tgid. */
static __always_inline bool kept(__u32 tgid, struct task_struct *t, const bool btf)
{
	if (filter_pids && bpf_map_lookup_elem(&pid_filter, &tgid))
		return true;
	if (filter_cgroups && task_in_cgroups(t, btf))
		return true;
	return !filter_pids && !filter_cgroups;
}

/*
 * Whether an event that concerns threads ta of process a and tb of process
 * b (b == a and tb == ta when it concerns one) is left out because of -p
 * and --cgroup: it concerns none of their processes and cgroups.
 */
static __always_inline bool filtered(__u32 a, struct task_struct *ta, __u32 b,
				     struct task_struct *tb, const bool btf)
{
	if (!filter_pids && !filter_cgroups)
		return false;
	if (filter_pids &&
	    (bpf_map_lookup_elem(&pid_filter, &a) || (b != a && bpf_map_lookup_elem(&pid_filter, &b))))
		return false;
	if (filter_cgroups && (task_in_cgroups(ta, btf) || (tb != ta && task_in_cgroups(tb, btf))))
		return false;
	count(FREC_CNT_FILTERED);
	return true;
}

#endif /* FREC_FILTER_PID_BPF_H */
