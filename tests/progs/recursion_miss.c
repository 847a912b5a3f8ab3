// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Makes the kernel skip a program for re-entry, and counts the skips as
 * frecd does (src/frecd/recursion.c), for test_sched_recursion.sh.
 *
 * A raw_tp program on the bpf_trace_printk tracepoint calls
 * bpf_trace_printk. Run once by BPF_PROG_TEST_RUN (not through the
 * tracepoint, so not guarded), its printk fires the tracepoint, which runs
 * the program (guarded now); that run's printk fires the tracepoint again
 * while the program runs on this CPU: the kernel skips it and adds one to
 * recursion_misses. One miss per test run, exactly. Linux 6.1 and later
 * only: before the guard this recursion is unbounded.
 *
 *   recursion_miss RUNS_A RUNS_AFTER RUNS_B
 * A runs RUNS_A times, is polled, runs RUNS_AFTER more times and is
 * untracked and detached (a reload's swap), then B is loaded, tracked and
 * run RUNS_B times; each poll's increase and the recorder's lost total are
 * printed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <frec/recorder.h>
#include "frecd/recursion.h"

static struct bpf_insn insn(__u8 code, __u8 dst, __u8 src, __s16 off, __s32 imm)
{
	struct bpf_insn i = { .code = code, .dst_reg = dst, .src_reg = src, .off = off, .imm = imm };

	return i;
}

/* bpf_trace_printk("x\n"); return 0; attached to bpf_trace_printk. fd of
 * the program, *link the attachment's. */
static int load(int *link)
{
	struct bpf_insn p[8];
	int n = 0, fd;

	p[n++] = insn(BPF_ST | BPF_MEM | BPF_W, BPF_REG_10, 0, -8, 0x0a78);	/* "x\n" */
	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, BPF_REG_10, 0, 0);
	p[n++] = insn(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_1, 0, 0, -8);
	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, 4);
	p[n++] = insn(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_trace_printk);
	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0);
	p[n++] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	fd = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, "frec_recmiss", "GPL", p, n, NULL);
	if (fd < 0) {
		fprintf(stderr, "recursion_miss: loading: %s\n", strerror(errno));
		exit(1);
	}
	*link = bpf_raw_tracepoint_open("bpf_trace_printk", fd);
	if (*link < 0) {
		fprintf(stderr, "recursion_miss: attaching to bpf_trace_printk: %s\n", strerror(errno));
		exit(1);
	}
	return fd;
}

static void run(int fd, int times)
{
	while (times-- > 0) {
		LIBBPF_OPTS(bpf_test_run_opts, o);

		if (bpf_prog_test_run_opts(fd, &o)) {
			fprintf(stderr, "recursion_miss: test run: %s\n", strerror(errno));
			exit(1);
		}
	}
}

static void poll(struct frec_recorder *rec, const char *what)
{
	struct frec_recorder_stats st;
	__u64 delta = frecd_recursion__poll(rec, 1);

	frec_recorder__stats(rec, &st);
	printf("%s: poll %llu, lost %llu, total %llu\n", what, (unsigned long long)delta,
	       (unsigned long long)st.lost, (unsigned long long)frecd_recursion__total());
}

int main(int argc, char **argv)
{
	struct frec_recorder_opts ro = { .sz = sizeof(ro), .ncpus = 1, .max_bytes = 1 << 20 };
	struct frec_recorder *rec;
	int a, b, la, lb, ret;

	if (argc != 4) {
		fprintf(stderr, "usage: recursion_miss RUNS_A RUNS_AFTER RUNS_B\n");
		return 2;
	}
	rec = frec_recorder__new(&ro);
	if (!rec)
		return 1;
	a = load(&la);
	ret = frecd_recursion__track(a);
	printf("track a: %d\n", ret);
	run(a, atoi(argv[1]));
	poll(rec, "a");
	run(a, atoi(argv[2]));
	/* the swap, in the order a reload does it */
	b = load(&lb);
	printf("track b: %d\n", frecd_recursion__track(b));
	close(la);
	frecd_recursion__untrack(a);
	close(a);
	run(b, atoi(argv[3]));
	poll(rec, "swap");
	poll(rec, "again");
	frecd_recursion__untrack(b);
	close(lb);
	close(b);
	printf("tracked: %u\n", frecd_recursion__ntracked());
	frec_recorder__free(rec);
	return 0;
}
