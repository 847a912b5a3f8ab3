/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The probe programs' bodies, included twice by probe.bpf.c: with PROBE_STK
 * 0 as frec_uprobe, frec_uretprobe and frec_usdt, and with PROBE_STK 1 as
 * their stack twins frec_stk_*, which also write the hit's user stack
 * after its record (--stacks probes, stack.bpf.h). frecd loads one of each
 * pair. Bodies included rather than one inline function called by both:
 * clang then compiles the programs without stacks exactly as it did before
 * the twins existed, instruction for instruction.
 *
 * Expects everything probe.bpf.c defines before it; no include guard.
 */

SEC("uprobe")
int PROBE_PROG(uprobe)(struct pt_regs *ctx)
{
	const bool stk = PROBE_STK;
	__u32 id = probe_id(ctx);
	struct frec_rec_probe *r;
	__u64 ts = 0;
	__u32 n = nargs;

	r = reserve(FREC_EV_UPROBE, id);
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
	if (stk && stack_probes)
		stack_emit_probe(ctx, ts);
	if (PROBE_TRIGGERS)
		on_hit(id, false, PT_REGS_PARM1(ctx), ts);
	ring_submit(r);	/* after its followers (ring.bpf.h) */
	return 0;
}

SEC("uretprobe")
int PROBE_PROG(uretprobe)(struct pt_regs *ctx)
{
	const bool stk = PROBE_STK;
	__u32 id = probe_id(ctx);
	struct frec_rec_probe *r;
	__u64 ts = 0;

	r = reserve(FREC_EV_URETPROBE, id);
	if (r) {
		r->ret = (__s64)PT_REGS_RC(ctx);
		ts = r->h.ts;
		if (stk && stack_probes)
			stack_emit_probe(ctx, ts);
	}
	/* a return has no arguments: a probe trigger's value is 0 */
	if (PROBE_TRIGGERS)
		on_hit(id, true, 0, ts);
	if (r)
		ring_submit(r);	/* after its followers (ring.bpf.h) */
	return 0;
}

SEC("usdt")
int PROBE_PROG(usdt)(struct pt_regs *ctx)
{
	const bool stk = PROBE_STK;
	__u32 id = (__u32)bpf_usdt_cookie(ctx);
	struct frec_rec_probe *r;
	long first = 0;
	__u64 ts = 0;
	int i, n;

	r = reserve(FREC_EV_USDT, id);
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
	if (stk && stack_probes)
		stack_emit_probe(ctx, ts);
	if (PROBE_TRIGGERS)
		on_hit(id, false, first, ts);
	ring_submit(r);	/* after its followers (ring.bpf.h) */
	return 0;
}
