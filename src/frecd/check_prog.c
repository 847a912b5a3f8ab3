// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "frecd/check_prog.h"

/* The kernel's own "not supported", which leaks out of bpf(2). */
#ifndef ENOTSUPP
#define ENOTSUPP	524
#endif
#ifndef BPF_ATOMIC
#define BPF_ATOMIC	0xc0
#endif

static struct bpf_insn insn(__u8 code, __u8 dst, __u8 src, __s16 off, __s32 imm)
{
	struct bpf_insn i = { .code = code, .dst_reg = dst, .src_reg = src, .off = off, .imm = imm };

	return i;
}

/*
 * map[0] += 1, or += the BPF cookie: a program of any tracing type that
 * counts its own runs, so that "ok" means it really ran.
 */
static size_t count_prog(struct bpf_insn *p, int map_fd, bool cookie)
{
	size_t n = 0, jmp, out;

	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_6, BPF_REG_1, 0, 0);	/* r6 = ctx */
	p[n++] = insn(BPF_ST | BPF_MEM | BPF_W, BPF_REG_10, 0, -4, 0);		/* key = 0 */
	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0);
	p[n++] = insn(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -4);	/* r2 = &key */
	p[n++] = insn(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, map_fd);
	p[n++] = insn(0, 0, 0, 0, 0);
	p[n++] = insn(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem);
	jmp = n;
	p[n++] = insn(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 0, 0);		/* if !r0 goto out */
	if (cookie) {
		p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_7, BPF_REG_0, 0, 0);
		p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, BPF_REG_6, 0, 0);
		p[n++] = insn(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_attach_cookie);
		p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, BPF_REG_0, 0, 0);
		p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_0, BPF_REG_7, 0, 0);
	} else {
		p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, 1);
	}
	p[n++] = insn(BPF_STX | BPF_DW | BPF_ATOMIC, BPF_REG_0, BPF_REG_1, 0, BPF_ADD);
	out = n;
	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0);
	p[n++] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	p[jmp].off = out - jmp - 1;
	return n;
}

void frecd_test_prog__close(struct frecd_test_prog *t)
{
	if (t->prog_fd >= 0)
		close(t->prog_fd);
	if (t->map_fd >= 0)
		close(t->map_fd);
	t->prog_fd = t->map_fd = -1;
}

const char *frecd_test_prog__refusal(int err, const char *needs)
{
	static char buf[256];

	switch (err) {
	case EPERM:
	case EACCES:
		snprintf(buf, sizeof(buf), "%s: permission denied; run frecd as root or give it CAP_BPF and CAP_PERFMON",
			 strerror(err));
		break;
	case EINVAL:
	case ENOTSUPP:
	case EOPNOTSUPP:
		snprintf(buf, sizeof(buf), "%s: this kernel does not support it; it needs %s", strerror(err),
			 needs);
		break;
	default:
		snprintf(buf, sizeof(buf), "%s; needs %s", strerror(err), needs);
	}
	return buf;
}

int frecd_test_prog__load(struct frecd_test_prog *t, enum bpf_prog_type type,
			   enum bpf_attach_type attach, __u32 btf_id, bool cookie)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = attach,
		    .attach_btf_id = btf_id);
	struct bpf_insn prog[32];
	size_t n;

	t->prog_fd = -1;
	t->map_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "frec_check", sizeof(__u32), sizeof(__u64), 1,
				   NULL);
	if (t->map_fd < 0)
		return -errno;
	n = count_prog(prog, t->map_fd, cookie);
	t->prog_fd = bpf_prog_load(type, "frec_check", "GPL", prog, n, &opts);
	return t->prog_fd < 0 ? -errno : 0;
}

__u64 frecd_test_prog__count(const struct frecd_test_prog *t)
{
	__u32 key = 0;
	__u64 v = 0;

	bpf_map_lookup_elem(t->map_fd, &key, &v);
	return v;
}

void frecd_test_prog__switch_out(void)
{
	usleep(2000);
	usleep(2000);
}

int frecd_test_prog__perf_open(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	return syscall(__NR_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

int frecd_test_prog__attach_perf(int pfd, int prog_fd, __u64 cookie, bool *with_cookie)
{
	LIBBPF_OPTS(bpf_link_create_opts, lopts, .perf_event.bpf_cookie = cookie);
	int link;

	link = bpf_link_create(prog_fd, pfd, BPF_PERF_EVENT, &lopts);
	if (link >= 0) {
		*with_cookie = true;
		close(pfd);
		return link;
	}
	*with_cookie = false;
	if (ioctl(pfd, PERF_EVENT_IOC_SET_BPF, prog_fd) || ioctl(pfd, PERF_EVENT_IOC_ENABLE, 0))
		return -1;
	return pfd;
}
