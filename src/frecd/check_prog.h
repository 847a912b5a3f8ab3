/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * frecd --check's test programs (check.c): a few instructions that count
 * their own runs in an array map, loadable as any tracing program type, so
 * that "ok" means loaded, attached and fired; and the ways to attach them to
 * a perf event. Main's thread only (frecd --check runs nothing else).
 */
#ifndef FRECD_CHECK_PROG_H
#define FRECD_CHECK_PROG_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/bpf.h>
#include <linux/types.h>

struct perf_event_attr;

struct frecd_test_prog {
	int map_fd;
	int prog_fd;
};

/*
 * Load a program of type (attach, btf_id as the type needs) that adds 1 to
 * map[0] on every run, or its BPF cookie with cookie. 0 or -errno (errno is
 * set too); either way t is to be closed.
 */
int frecd_test_prog__load(struct frecd_test_prog *t, enum bpf_prog_type type,
			  enum bpf_attach_type attach, __u32 btf_id, bool cookie);
/* map[0]: the runs (or the sum of the cookies) so far. */
__u64 frecd_test_prog__count(const struct frecd_test_prog *t);
void frecd_test_prog__close(struct frecd_test_prog *t);

/* Why the kernel refused (err, an errno), and the fix, for the common
 * errnos; needs: what the feature takes ("Linux 5.8"). A static buffer. */
const char *frecd_test_prog__refusal(int err, const char *needs);

/* Be switched out at least once: every sched_switch program then runs. */
void frecd_test_prog__switch_out(void);

/* perf_event_open(2), close-on-exec. */
int frecd_test_prog__perf_open(struct perf_event_attr *attr, pid_t pid, int cpu);
/* Run prog_fd on perf event pfd: a BPF link (5.15, carries the cookie), or
 * the older ioctl. Returns an fd to close that keeps it attached, or -1. */
int frecd_test_prog__attach_perf(int pfd, int prog_fd, __u64 cookie, bool *with_cookie);

#endif /* FRECD_CHECK_PROG_H */
