// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * User probes: one program per kind (uprobe, uretprobe, usdt), each attached
 * once per probe id with the id as its BPF cookie. They write struct
 * frec_rec_probe into frecd's ring buffer of the current CPU: frecd hands its
 * "rings" and "counters" maps over with bpf_map__reuse_fd() before this
 * object is loaded, so the maps in ring.bpf.h and counters.bpf.h are only
 * placeholders here.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>
#include "frec/record.h"
#include "ring.bpf.h"
#include "filter_self.bpf.h"

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
	struct frec_rec_probe *r;
	void *ring;
	__u32 n = nargs;

	r = reserve(&ring, FREC_EV_UPROBE, (__u32)bpf_get_attach_cookie(ctx));
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
	ring_submit(ring, r);
	return 0;
}

SEC("uretprobe")
int frec_uretprobe(struct pt_regs *ctx)
{
	struct frec_rec_probe *r;
	void *ring;

	r = reserve(&ring, FREC_EV_URETPROBE, (__u32)bpf_get_attach_cookie(ctx));
	if (!r)
		return 0;
	r->ret = (__s64)PT_REGS_RC(ctx);
	ring_submit(ring, r);
	return 0;
}

SEC("usdt")
int frec_usdt(struct pt_regs *ctx)
{
	struct frec_rec_probe *r;
	void *ring;
	int i, n;

	r = reserve(&ring, FREC_EV_USDT, (__u32)bpf_usdt_cookie(ctx));
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
	ring_submit(ring, r);
	return 0;
}
