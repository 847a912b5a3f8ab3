// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * User probes: one program per kind (uprobe, uretprobe, usdt), each attached
 * once per probe id with the id as its BPF cookie. They write struct
 * frec_rec_probe into frecd's ring buffer: frecd's loader hands its "events"
 * and "counters" maps over with bpf_map__reuse_fd() before this object is
 * loaded, so the maps below are only placeholders with the same definitions.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>
#include "frec/record.h"
#include "frec.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Knobs, set before load (probe_attach.c). */
const volatile __u32 nargs = 3;		/* integer arguments read at entry */
const volatile __u32 self_pid = 0;	/* frecd: its own hits are never recorded */
/* Submit without waking the consumer (frecd drains on a timer); wake it only
 * when this much is waiting, so a burst cannot fill the ring between drains.
 * The same threshold as frecd's own programs (bpf/frec.h); probe_attach.c
 * lowers it for a small ring the way frecd does. */
const volatile __u64 wakeup_bytes = FREC_WAKEUP_THRESHOLD;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 * 1024 * 1024);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FREC_CNT__MAX);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

/* libbpf 1.1's bpf_tracing.h stops at PARM5. */
#if defined(__TARGET_ARCH_x86)
#define FREC_PARM6(x) (__PT_REGS_CAST(x)->r9)
#elif defined(__TARGET_ARCH_arm64)
#define FREC_PARM6(x) (__PT_REGS_CAST(x)->regs[5])
#else
#define FREC_PARM6(x) 0
#endif

static __always_inline void count(__u32 which)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &which);

	/* Per-CPU slot, and programs do not nest on one CPU here: no atomics. */
	if (c)
		*c += 1;
}

static __always_inline struct frec_rec_probe *reserve(__u16 type, __u32 probe_id)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tgid = pid_tgid >> 32;
	struct frec_rec_probe *r;

	if (self_pid && tgid == self_pid) {
		count(FREC_CNT_FILTERED);
		return NULL;
	}
	r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	if (!r) {
		count(FREC_CNT_DROPPED);
		return NULL;
	}
	r->h.ts = bpf_ktime_get_boot_ns();
	r->h.tid = (__u32)pid_tgid;
	r->h.tgid = tgid;
	r->h.type = type;
	r->h.cpu = bpf_get_smp_processor_id();
	r->h.size = sizeof(*r);
	r->probe_id = probe_id;
	r->nargs = 0;
	__builtin_memset(r->args, 0, sizeof(r->args));
	r->ret = 0;
	return r;
}

/* Bytes a record takes in the ring: the kernel's 8-byte header, rounded up to 8. */
#define RING_REC_BYTES ((sizeof(struct frec_rec_probe) + 8 + 7) / 8 * 8)

/*
 * Wake the consumer once each time the waiting data crosses another multiple
 * of wakeup_bytes, not on every record above it: a forced wakeup costs an
 * irq_work, several microseconds in a VM, and when the consumer lags (busy
 * writing a snapshot, or descheduled) every record would pay it, slowing the
 * traced program most exactly when the machine is busiest (measured here:
 * 0.6 us per uprobe hit became 5-17 us). AVAIL_DATA already counts this
 * record (reserve moved the producer position), so the crossing is between
 * avail - RING_REC_BYTES and avail. A crossing missed in a race with another
 * CPU only defers the drain to the next one or to frecd's timer.
 */
static __always_inline void submit(struct frec_rec_probe *r)
{
	__u64 avail = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);
	__u64 thr = wakeup_bytes;
	__u64 flags = BPF_RB_NO_WAKEUP;

	if (thr && avail >= thr && avail / thr != (avail - RING_REC_BYTES) / thr)
		flags = BPF_RB_FORCE_WAKEUP;
	bpf_ringbuf_submit(r, flags);
}

SEC("uprobe")
int frec_uprobe(struct pt_regs *ctx)
{
	struct frec_rec_probe *r;
	__u32 n = nargs;

	r = reserve(FREC_EV_UPROBE, (__u32)bpf_get_attach_cookie(ctx));
	if (!r)
		return 0;
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
	submit(r);
	return 0;
}

SEC("uretprobe")
int frec_uretprobe(struct pt_regs *ctx)
{
	struct frec_rec_probe *r;

	r = reserve(FREC_EV_URETPROBE, (__u32)bpf_get_attach_cookie(ctx));
	if (!r)
		return 0;
	r->ret = (__s64)PT_REGS_RC(ctx);
	submit(r);
	return 0;
}

SEC("usdt")
int frec_usdt(struct pt_regs *ctx)
{
	struct frec_rec_probe *r;
	int i, n;

	r = reserve(FREC_EV_USDT, (__u32)bpf_usdt_cookie(ctx));
	if (!r)
		return 0;
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
	submit(r);
	return 0;
}
