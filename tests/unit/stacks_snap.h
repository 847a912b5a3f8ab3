/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A snapshot with stacks for the tools' tests (after synth.h): one
 * generation on 2 CPUs, written with the header flags of --stacks
 * offcpu,probes and synth.h's fake symbolizer. ms = 1000000 ns from T0.
 *
 *   cpu0  0 ms  swapper/0 -> worker (101, tgid 100)
 *   cpu0  2 ms  worker -> swapper/0, S, stack A (kernel K1 K2, user U1 U2 U3)
 *   cpu1  2 ms  swapper/1 -> helper (102, tgid 100)   (between the switch
 *               at 2 ms on cpu0 and its stack record, with the same ts)
 *   cpu0  5 ms  swapper/0 -> worker                    block 1: 3 ms
 *   cpu1  6 ms  helper -> swapper/1, D, stack B (kernel K3 only)
 *   cpu0  6 ms  worker -> swapper/0, S, stack A
 *   cpu1  7 ms  swapper/1 -> helper                    helper: 1 ms
 *   cpu1  8 ms  uprobe "handle" by helper, stack C (user U1 only)
 *   cpu0 10 ms  swapper/0 -> worker                    block 2: 4 ms
 *   cpu0 11 ms  worker -> swapper/0, R+ (preempted), stack A: not a block
 *   cpu0 12 ms  swapper/0 -> worker
 * K1 = k_ffffffff81001+0x10, K2 = k_ffffffff81002+0x20, K3 unnamed kernel;
 * U1 = app_4010+0x10, U2 = app+0x2090 (in /bin/app, build-id b1ab, not named),
 * U3 = app_4030+0x20 (file offsets 0x1010, 0x2090, 0x3020).
 */
#ifndef FREC_TEST_STACKS_SNAP_H
#define FREC_TEST_STACKS_SNAP_H

#define SS_T0	1000000000ull
#define SS_MS	1000000ull

static const __u64 ss_kstack_a[] = { SYNTH_KBASE + 0x1010, SYNTH_KBASE + 0x2020 };
static const __u64 ss_ustack_a[] = { SYNTH_APP + 0x1010, SYNTH_APP + 0x2090, SYNTH_APP + 0x3020 };
static const __u64 ss_kstack_b[] = { 0x1234 };
static const __u64 ss_ustack_c[] = { SYNTH_APP + 0x1010 };

static inline int ss_write(struct frec_recorder *rec, const char *dir, const char *name,
			   __u64 now, __u32 flags)
{
	struct frec_header hdr;
	struct frec_pin *pin;
	int dfd, err;

	frec_recorder__seal(rec, now);
	frec_header__init(&hdr);
	snprintf(hdr.reason, sizeof(hdr.reason), "synth");
	hdr.config.flags = flags;
	pin = frec_recorder__pin(rec);
	if (!pin)
		return -1;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	err = frec_snapshot__write(dfd, name, &hdr, pin);
	close(dfd);
	frec_recorder__unpin(rec, pin);
	return err;
}

static struct synth_sym ss_sym;

static inline int stacks_snapshot(const char *dir, const char *name)
{
	static const struct frec_probe_info probes[] = {
		{ .id = 1, .kind = FREC_PROBE_UPROBE, .name = "uprobe:/bin/app:handle",
		  .path = "/bin/app", .func = "handle", .build_id = "", .nargs = 0 },
	};
	struct frec_recorder *rec = synth_recorder(2);
	struct frec_symbolizer sy;
	__u64 t = SS_T0, ms = SS_MS;
	int err;

	if (!rec)
		return -1;
	memset(&ss_sym, 0, sizeof(ss_sym));
	sy = synth_symbolizer(&ss_sym);
	frec_recorder__set_symbolizer(rec, &sy);
	frec_recorder__set_probes(rec, probes, 1);
	frec_recorder__tick(rec, t);
	synth_switch(rec, t, 0, 0, 0, "swapper/0", 0, 101, 100, "worker");
	synth_switch(rec, t + 2 * ms, 0, 101, 100, "worker", 1, 0, 0, "swapper/0");
	synth_switch(rec, t + 2 * ms, 1, 0, 0, "swapper/1", 0, 102, 100, "helper");
	synth_stack(rec, t + 2 * ms, 0, 101, 100, ss_kstack_a, 2, ss_ustack_a, 3, 0);
	synth_switch(rec, t + 5 * ms, 0, 0, 0, "swapper/0", 0, 101, 100, "worker");
	synth_switch(rec, t + 6 * ms, 1, 102, 100, "helper", 2, 0, 0, "swapper/1");
	synth_stack(rec, t + 6 * ms, 1, 102, 100, ss_kstack_b, 1, NULL, 0, 0);
	synth_switch(rec, t + 6 * ms, 0, 101, 100, "worker", 1, 0, 0, "swapper/0");
	synth_stack(rec, t + 6 * ms, 0, 101, 100, ss_kstack_a, 2, ss_ustack_a, 3, 0);
	synth_switch(rec, t + 7 * ms, 1, 0, 0, "swapper/1", 0, 102, 100, "helper");
	synth_probe(rec, FREC_EV_UPROBE, t + 8 * ms, 1, 102, 100, 1, 0, NULL, 0);
	synth_stack(rec, t + 8 * ms, 1, 102, 100, NULL, 0, ss_ustack_c, 1, 0);
	synth_switch(rec, t + 10 * ms, 0, 0, 0, "swapper/0", 0, 101, 100, "worker");
	synth_switch(rec, t + 11 * ms, 0, 101, 100, "worker", 0x100, 0, 0, "swapper/0");
	synth_stack(rec, t + 11 * ms, 0, 101, 100, ss_kstack_a, 2, ss_ustack_a, 3, 0);
	synth_switch(rec, t + 12 * ms, 0, 0, 0, "swapper/0", 0, 101, 100, "worker");
	err = ss_write(rec, dir, name, t + 13 * ms, FREC_CFG_STACKS_OFFCPU | FREC_CFG_STACKS_PROBES);
	frec_recorder__free(rec);
	return err;
}

#endif /* FREC_TEST_STACKS_SNAP_H */
