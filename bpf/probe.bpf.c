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
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>
#include "frec/record.h"
#include "ring.bpf.h"
#include "filter_self.bpf.h"
#include "trigger.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Knobs, set before load (probe_attach.c). */
const volatile __u32 nargs = 3;		/* integer arguments read at entry */
const volatile __u32 self_pid = 0;	/* frecd: its own hits are never recorded */
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

	if (current_is_self(&self_pid))
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
			trig_eval(FREC_TRIG_FUNC, pt->mask, now, begin, 0, tid, tgid, comm);
	}
	if (TRIG_ARMED(FREC_TRIG_PROBE))
		trig_eval(FREC_TRIG_PROBE, pt->mask, now, 0, value, tid, tgid, comm);
}

static __always_inline struct frec_rec_probe *reserve(void **ring, __u16 type, __u32 probe_id)
{
	struct frec_rec_probe *r;

	if (current_is_self(&self_pid)) {
		count(FREC_CNT_FILTERED);
		return NULL;
	}
	r = ring_reserve(ring, sizeof(*r), type);
	if (!r)
		return NULL;
	r->probe_id = probe_id;
	r->nargs = 0;
	__builtin_memset(r->args, 0, sizeof(r->args));
	r->ret = 0;
	return r;
}

SEC("uprobe")
int frec_uprobe(struct pt_regs *ctx)
{
	__u32 id = (__u32)bpf_get_attach_cookie(ctx);
	struct frec_rec_probe *r;
	void *ring;
	__u64 ts = 0;
	__u32 n = nargs;

	r = reserve(&ring, FREC_EV_UPROBE, id);
	if (!r) {
		if (PROBE_TRIGGERS)
			on_hit(id, false, PT_REGS_PARM1(ctx), 0);
		return 0;
	}
	if (n > FREC_MAX_PROBE_ARGS)
		n = FREC_MAX_PROBE_ARGS;
	r->nargs = n;
	if (n > 0)
		r->args[0] = PT_REGS_PARM1(ctx);
	if (n > 1)
		r->args[1] = PT_REGS_PARM2(ctx);
	if (n > 2)
		r->args[2] = PT_REGS_PARM3(ctx);
	if (n > 3)
		r->args[3] = PT_REGS_PARM4(ctx);
	if (n > 4)
		r->args[4] = PT_REGS_PARM5(ctx);
	if (n > 5)
		r->args[5] = FREC_PARM6(ctx);
	ts = r->h.ts;
	ring_submit(ring, r);
	if (PROBE_TRIGGERS)
		on_hit(id, false, PT_REGS_PARM1(ctx), ts);
	return 0;
}

SEC("uretprobe")
int frec_uretprobe(struct pt_regs *ctx)
{
	__u32 id = (__u32)bpf_get_attach_cookie(ctx);
	struct frec_rec_probe *r;
	void *ring;
	__u64 ts = 0;

	r = reserve(&ring, FREC_EV_URETPROBE, id);
	if (r) {
		r->ret = (__s64)PT_REGS_RC(ctx);
		ts = r->h.ts;
		ring_submit(ring, r);
	}
	/* a return has no arguments: a probe trigger's value is 0 */
	if (PROBE_TRIGGERS)
		on_hit(id, true, 0, ts);
	return 0;
}

SEC("usdt")
int frec_usdt(struct pt_regs *ctx)
{
	__u32 id = (__u32)bpf_usdt_cookie(ctx);
	struct frec_rec_probe *r;
	long first = 0;
	void *ring;
	__u64 ts = 0;
	int i, n;

	r = reserve(&ring, FREC_EV_USDT, id);
	if (!r) {
		if (PROBE_TRIGGERS) {
			if (bpf_usdt_arg_cnt(ctx) > 0)
				bpf_usdt_arg(ctx, 0, &first);
			on_hit(id, false, first, 0);
		}
		return 0;
	}
	n = bpf_usdt_arg_cnt(ctx);
	if (n < 0)
		n = 0;
	if (n > FREC_MAX_PROBE_ARGS)
		n = FREC_MAX_PROBE_ARGS;
	r->nargs = n;
	for (i = 0; i < FREC_MAX_PROBE_ARGS; i++) {
		long v = 0;

		if (i >= n)
			break;
		if (bpf_usdt_arg(ctx, i, &v) == 0)
			r->args[i] = v;
	}
	if (PROBE_TRIGGERS)
		first = n > 0 ? r->args[0] : 0;
	ts = r->h.ts;
	ring_submit(ring, r);
	if (PROBE_TRIGGERS)
		on_hit(id, false, first, ts);
	return 0;
}
