// SPDX-License-Identifier: GPL-2.0
/*
 * smoke-bpf ATTACH: load tests/vm/smoke.bpf.c with ATTACH (tp_btf or raw_tp)
 * for sched_switch plus one uprobe on a function of this program, cause a
 * known number of context switches and uprobe hits, and check the counts.
 * Used by tests/vm/smoke.sh inside the test VM; runs on the host as well.
 * Exit 0 when the counts are right, 1 when not, 2 on a usage error.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "smoke.skel.h"

#define SLEEPS 20
#define UPROBE_CALLS 100

/* The uprobe target: kept out of line and with a side effect so that every
 * call really enters it. */
__attribute__((noinline)) int frec_vm_smoke_target(int x);
__attribute__((noinline)) int frec_vm_smoke_target(int x)
{
	__asm__ __volatile__("" : : : "memory");
	return x + 1;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* Keep warnings (they name the cause of a failed load); drop debug. */
	return level == LIBBPF_DEBUG ? 0 : vfprintf(stderr, fmt, ap);
}

int main(int argc, char **argv)
{
	struct smoke_bpf *skel = NULL;
	struct bpf_link *link;
	char exe[PATH_MAX];
	const struct timespec ms = { 0, 1000000 };
	double t0, us;
	ssize_t n;
	int use_raw, i, err, sum = 0, rc = 1;
	LIBBPF_OPTS(bpf_uprobe_opts, uopts, .func_name = "frec_vm_smoke_target");

	if (argc != 2 || (strcmp(argv[1], "tp_btf") && strcmp(argv[1], "raw_tp"))) {
		fprintf(stderr, "usage: smoke-bpf tp_btf|raw_tp\n");
		return 2;
	}
	use_raw = !strcmp(argv[1], "raw_tp");
	libbpf_set_print(libbpf_quiet);

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0) {
		fprintf(stderr, "smoke-bpf: readlink /proc/self/exe: %s\n", strerror(errno));
		return 1;
	}
	exe[n] = '\0';

	skel = smoke_bpf__open();
	if (!skel) {
		fprintf(stderr, "smoke-bpf: open: %s\n", strerror(errno));
		return 1;
	}
	skel->rodata->target_tgid = getpid();
	bpf_program__set_autoload(use_raw ? skel->progs.smoke_tp_btf : skel->progs.smoke_raw_tp, false);
	err = smoke_bpf__load(skel);
	if (err) {
		fprintf(stderr, "smoke-bpf: load (%s): %s\n", argv[1], strerror(-err));
		goto out;
	}

	link = bpf_program__attach(use_raw ? skel->progs.smoke_raw_tp : skel->progs.smoke_tp_btf);
	if (!link) {
		fprintf(stderr, "smoke-bpf: attach %s/sched_switch: %s\n", argv[1], strerror(errno));
		goto out;
	}
	skel->links.smoke_tp_btf = use_raw ? NULL : link;
	skel->links.smoke_raw_tp = use_raw ? link : NULL;

	skel->links.smoke_uprobe = bpf_program__attach_uprobe_opts(skel->progs.smoke_uprobe,
								   getpid(), exe, 0, &uopts);
	if (!skel->links.smoke_uprobe) {
		fprintf(stderr, "smoke-bpf: attach uprobe %s:frec_vm_smoke_target: %s\n", exe,
			strerror(errno));
		goto out;
	}

	/* Each sleep switches this thread out at least once. */
	for (i = 0; i < SLEEPS; i++)
		nanosleep(&ms, NULL);

	t0 = now_us();
	for (i = 0; i < UPROBE_CALLS; i++)
		sum += frec_vm_smoke_target(i);
	us = (now_us() - t0) / UPROBE_CALLS;

	printf("smoke-bpf: attach=%s switches=%llu (>= %d) uprobe_hits=%llu (== %d) %.1f us/hit\n",
	       argv[1], (unsigned long long)skel->bss->switches, SLEEPS,
	       (unsigned long long)skel->bss->uprobe_hits, UPROBE_CALLS, us);
	if (skel->bss->switches < SLEEPS || skel->bss->uprobe_hits != UPROBE_CALLS || sum <= 0)
		goto out;
	rc = 0;
out:
	smoke_bpf__destroy(skel);
	return rc;
}
