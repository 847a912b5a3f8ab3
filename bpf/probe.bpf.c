// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * User probes: one program per kind (uprobe, uretprobe, usdt), each attached
 * once per probe id with the id as its BPF cookie. They write struct
 * frec_rec_probe into frecd's ring buffer of the current CPU: frecd hands its
 * "rings" and "counters" maps over with bpf_map__reuse_fd() before this
 * object is loaded, so the maps in ring.bpf.h and counters.bpf.h are only
 * placeholders here.
 *
 * Triggers (trigger.bpf.h): after its own record, a hit fires the probe
 * triggers on its id (value: its first argument), and a func entry keeps
 * its time for the return to fire the func triggers above their
 * threshold. frecd's "triggers" and "trigger_state" maps are handed over
 * like the rings; "probe_triggers" says which triggers each id concerns.
 * With trig_kinds 0 none of it is loaded.
 *
 * Filters: probes attached to every process (pid -1: with --cgroup, or -p
 * where perf's pid would be read in frecd's pid namespace) keep only the
 * hits of current's process and cgroup that -p and --cgroup keep, with
 * frecd's "pid_filter" and "cgroup_filter" handed over like the rings.
 * With neither knob set the check is dead code. (A frecd in a pid
 * namespace of its own attaches for every process even for -p alone.)
 *
 * Stacks (--stacks probes): each program has a stack twin that also writes
 * the hit's user stack (probe_progs.bpf.h, stack.bpf.h).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/usdt.bpf.h>
#include "frec/record.h"
#include "ring.bpf.h"
#include "filter_self.bpf.h"
#include "filter_pid.bpf.h"
#include "trigger.bpf.h"
#include "stack.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Knobs, set before load (probe_attach.c). */
const volatile __u32 nargs = 3;		/* integer arguments read at entry */
const volatile __u32 self_pid = 0;	/* frecd: its own hits are never recorded */
const volatile bool stack_probes = false;	/* --stacks probes: the user stack of each hit */
/* The kernel has no BPF cookies (before 5.15, "bpf: Add
 * bpf_get_attach_cookie() BPF helper to access bpf_cookie value"): each
 * uprobe and uretprobe id gets a copy of its program in which frecd has
 * replaced FREC_PROBE_ID_IMM with the id. The verifier knows this value
 * (read-only data) and never looks at the helper it would not know. */
const volatile bool no_cookies = false;
/* libbpf 1.1's bpf_tracing.h stops at PARM5. */
#if defined(__TARGET_ARCH_x86)
#define FREC_PARM6(x) (__PT_REGS_CAST(x)->r9)
#elif defined(__TARGET_ARCH_arm64)
#define FREC_PARM6(x) (__PT_REGS_CAST(x)->regs[5])
#else
#define FREC_PARM6(x) 0
#endif

/* Index probe id; filled by frecd before attach. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FREC_MAX_PROBES);
	__type(key, __u32);
	__type(value, struct frec_probe_trig);
} probe_triggers SEC(".maps");

/* A call in flight: its thread and its entry probe's id. */
struct call_key {
	__u32 tid;
	__u32 entry_id;
};

/* When each call a func trigger times began. LRU: a call that never
 * returns (longjmp, a thread that exits inside it) is pushed out in time.
 * A recursive call overwrites its caller's entry and the first return
 * deletes it: the innermost call is timed, the outer ones are not. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);			/* frecd sets FREC_TRIG_CALLS when used */
	__type(key, struct call_key);
	__type(value, __u64);
} trig_calls SEC(".maps");

/* Whether -p and --cgroup keep current's hits; current is a number to the
 * verifier here, read with probe reads. */
static __always_inline bool current_kept(void)
{
	if (!filter_pids && !filter_cgroups)
		return true;
	return kept(bpf_get_current_pid_tgid() >> 32,
		    (struct task_struct *)bpf_get_current_task(), false);
}

#define TRIG_PROBE_KINDS	((1u << FREC_TRIG_FUNC) | (1u << FREC_TRIG_PROBE))

/* Whether the probes evaluate any trigger: each call of on_hit() is under
 * it, so that with none even its arguments are pruned. */
#define PROBE_TRIGGERS		(trig_kinds & TRIG_PROBE_KINDS)

/*
 * The triggers of probe id's hit by the current thread at now (its
 * record's time, 0 when it has none), after its record:
 * at a func entry, the call's start; at a func return, the call's time
 * against the func triggers; at any probe, its probe triggers with value.
 */
static __always_inline void on_hit(__u32 id, bool ret, __u64 value, __u64 now)
{
	const struct frec_probe_trig *pt;
	__u64 id_tgid, comm[2] = {}, *start, begin = 0;
	struct call_key k;
	__u32 tid, tgid;

	if (current_is_self(&self_pid) || !current_kept())
		return;
	pt = bpf_map_lookup_elem(&probe_triggers, &id);
	if (!pt || !(pt->mask | pt->func_entry))
		return;
	if (!now)	/* the hit has no record: its own time */
		now = bpf_ktime_get_boot_ns();
	id_tgid = bpf_get_current_pid_tgid();
	tid = (__u32)id_tgid;
	tgid = id_tgid >> 32;
	if (TRIG_ARMED(FREC_TRIG_FUNC) && !ret && pt->func_entry) {
		k.tid = tid;
		k.entry_id = id;
		bpf_map_update_elem(&trig_calls, &k, &now, BPF_ANY);
	}
	if (!pt->mask)
		return;
	bpf_get_current_comm(comm, sizeof(comm));
	if (TRIG_ARMED(FREC_TRIG_FUNC) && ret && pt->entry_id) {
		k.tid = tid;
		k.entry_id = pt->entry_id;
		start = bpf_map_lookup_elem(&trig_calls, &k);
		if (start) {
			begin = *start;
			bpf_map_delete_elem(&trig_calls, &k);
		}
		if (begin)
			trig_eval(FREC_TRIG_FUNC, pt->mask, now, begin, 0, tid, tgid, comm, NULL, false);
	}
	if (TRIG_ARMED(FREC_TRIG_PROBE))
		trig_eval(FREC_TRIG_PROBE, pt->mask, now, 0, value, tid, tgid, comm, NULL,
			  false);
}

static __always_inline struct frec_rec_probe *reserve(__u16 type, __u32 probe_id)
{
	struct frec_rec_probe *r;

	if (current_is_self(&self_pid) || !current_kept()) {
		count(FREC_CNT_FILTERED);
		return NULL;
	}
	r = ring_reserve(sizeof(*r), type);
	if (!r)
		return NULL;
	r->probe_id = probe_id;
	r->nargs = 0;
	__builtin_memset(r->args, 0, sizeof(r->args));
	r->ret = 0;
	return r;
}

/* The probe id of a uprobe or uretprobe hit: its BPF cookie, or the
 * immediate of the program's copy (no_cookies). The asm keeps the
 * immediate one instruction of its own, which frecd finds and patches. */
static __always_inline __u32 probe_id(struct pt_regs *ctx)
{
	__u64 id;

	if (!no_cookies)
		return (__u32)bpf_get_attach_cookie(ctx);
	asm volatile("%[id] = %[imm]" : [id] "=r"(id) : [imm] "i"(FREC_PROBE_ID_IMM));
	return (__u32)id;
}

#define PROBE_STK		0
#define PROBE_PROG(name)	frec_##name
#include "probe_progs.bpf.h"
#undef PROBE_STK
#undef PROBE_PROG

#define PROBE_STK		1
#define PROBE_PROG(name)	frec_stk_##name
#include "probe_progs.bpf.h"
#undef PROBE_STK
#undef PROBE_PROG
