/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What frec.bpf.c and frecd agree on besides the records themselves
 * (include/frec/record.h): map sizes and the defaults of the knobs frecd sets
 * in the object's read-only data before it loads it.
 */
#ifndef FREC_BPF_FREC_H
#define FREC_BPF_FREC_H

/* Capacity of the pid_filter hash map (-p PID, repeatable). */
#define FREC_MAX_PID_FILTER	1024

/*
 * The programs submit with BPF_RB_NO_WAKEUP: waking the consumer for every
 * record makes the consumer's own wakeups generate scheduler events that wake
 * it again. frecd drains on a timer instead, and the programs force one
 * wakeup each time a CPU has written this much more to its ring
 * (ring.bpf.h, ring_wakeup_flags()), so that a burst cannot fill the ring
 * between two timer ticks: a quarter of the ring (FREC_WAKEUP_SHARE).
 * Not less: every wakeup is a drain's fixed cost and, on a VM, an idle
 * vCPU woken by an interrupt. On 2 CPUs with 8 MiB rings, a pinned
 * `perf bench sched pipe` (430 k events/s) cost frecd 98 ns of CPU per
 * event with 256 KiB and 83 ns with 2 MiB, 9 and 5 of them system time.
 * FREC_WAKEUP_THRESHOLD is the programs' default, before frecd sets it.
 */
#define FREC_WAKEUP_SHARE	4
#define FREC_WAKEUP_THRESHOLD	(256u * 1024)

/*
 * Triggers (trigger.bpf.h): threads whose per-thread timestamps the LRU hash
 * keeps where task storage is not used, and calls in flight a func trigger
 * times. Past these, the least recently used entry goes, and with it one
 * measurement, never a wrong one.
 */
#define FREC_TRIG_THREADS	16384
#define FREC_TRIG_CALLS		16384

/*
 * Cgroups (bpf/cgroup.bpf.h). The knob cgroup_mode says which hierarchy's
 * ids the programs read: none (the read is dead code), the v2 default
 * hierarchy, or the v1 hierarchy of controller cgroup_v1_ssid.
 */
#define FREC_CGROUP_NONE	0
#define FREC_CGROUP_V2		1
#define FREC_CGROUP_V1		2

/* --cgroup PATH, repeatable: entries of the "cgroup_filter" array map, the
 * list ended by an entry of id 0. A task is kept when its cgroup's
 * ancestor at an entry's level has the entry's id. */
#define FREC_MAX_CGROUP_FILTER	16
/* The array's slot after the list's room: its id is the list's generation,
 * which frecd raises after each change of the list (never 0 once set), so
 * that the programs' memo of verdicts (filter_cgroup.bpf.h) forgets the
 * verdicts of an older list. */
#define FREC_CGROUP_FILTER_GEN	FREC_MAX_CGROUP_FILTER

struct frec_cgroup_filter {
	__u64 id;		/* kernfs id of the cgroup */
	__u32 level;		/* its depth in the hierarchy: the root is 0 */
	__u32 __pad;
};

/* Program names all start with this, so that tests and operators can tell
 * frec's programs apart in `bpftool prog show`. */
#define FREC_PROG_PREFIX	"frec_"

/*
 * Kernels without BPF cookies (before 5.15): the probe programs take their
 * probe id from this immediate, which frecd replaces with the id in a copy
 * of the program per probe (probe_attach.c). Any value no other
 * instruction of theirs loads; it fits a BPF_MOV's signed 32-bit imm.
 */
#define FREC_PROBE_ID_IMM	0x7fec1d00

#endif /* FREC_BPF_FREC_H */
