/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The process filter of -p PID: when frecd sets filter_pids, an event is
 * kept only if it concerns one of the tgids in pid_filter, and the others
 * are counted (FREC_CNT_FILTERED). frecd sets the knob between open and
 * load and fills the map after load and before attach; a reload hands the
 * map over to the new object (bpf_map__reuse_fd), and a new -p list updates
 * it in place (src/frecd/loader.c).
 *
 * For programs whose events concern processes other than the current one
 * (a switch, a wakeup, a fork); a program about the current task only
 * may use it too. Expects vmlinux.h and bpf_helpers.h first.
 */
#ifndef FREC_FILTER_PID_BPF_H
#define FREC_FILTER_PID_BPF_H

#include "frec/record.h"
#include "frec.h"
#include "counters.bpf.h"

const volatile bool filter_pids = false;	/* -p given: keep only pid_filter tgids */

/* tgids given with -p; filled by frecd after load and before attach. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FREC_MAX_PID_FILTER);
	__type(key, __u32);
	__type(value, __u8);
} pid_filter SEC(".maps");

/*
 * Whether an event that concerns processes a and b (b == a when it concerns
 * one) is left out because of -p: it concerns none of those processes.
 */
static __always_inline bool filtered(__u32 a, __u32 b)
{
	if (!filter_pids)
		return false;
	if (bpf_map_lookup_elem(&pid_filter, &a) || (b != a && bpf_map_lookup_elem(&pid_filter, &b)))
		return false;
	count(FREC_CNT_FILTERED);
	return true;
}

#endif /* FREC_FILTER_PID_BPF_H */
