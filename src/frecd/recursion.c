// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The kernel's per-program recursion_misses, as lost events; see recursion.h. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <frec/event.h>
#include <frec/recorder.h>
#include "frecd/recursion.h"

#define END_OF(type, member)	(offsetof(type, member) + sizeof(((type *)0)->member))

struct tracked {
	__u32 id;
	int fd;			/* our duplicate: readable whatever the caller closes */
	unsigned int refs;
	__u64 seen;		/* the count at the last read: the baseline */
};

static struct {
	struct tracked *progs;
	unsigned int n, cap;
	__u64 pending;		/* read at untrack, for the next poll */
	__u64 total;
	int counted;		/* -1 not known, 0 no, 1 yes */
	frecd_recursion_read_fn read;
} R = { .counted = -1, .read = frecd_recursion__read };

int frecd_recursion__read(int prog_fd, __u32 *id, __u64 *misses)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return -errno;
	*id = info.id;
	/* the kernel fills at most its own struct and says how much */
	if (len < END_OF(struct bpf_prog_info, recursion_misses))
		return -EOPNOTSUPP;
	*misses = info.recursion_misses;
	return 0;
}

static struct tracked *find(__u32 id)
{
	unsigned int i;

	for (i = 0; i < R.n; i++)
		if (R.progs[i].id == id)
			return &R.progs[i];
	return NULL;
}

int frecd_recursion__track(int prog_fd)
{
	struct tracked *t;
	__u64 misses = 0;
	__u32 id = 0;
	int ret, fd;

	ret = R.read(prog_fd, &id, &misses);
	if (ret == -EOPNOTSUPP)
		R.counted = 0;
	if (ret)
		return ret;
	R.counted = 1;
	t = find(id);
	if (t) {
		t->refs++;
		return 0;
	}
	if (R.n == R.cap) {
		unsigned int cap = R.cap ? R.cap * 2 : 16;

		t = realloc(R.progs, cap * sizeof(*t));
		if (!t)
			return -ENOMEM;
		R.progs = t;
		R.cap = cap;
	}
	fd = fcntl(prog_fd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return -errno;
	R.progs[R.n++] = (struct tracked){ .id = id, .fd = fd, .refs = 1, .seen = misses };
	return 0;
}

void frecd_recursion__untrack(int prog_fd)
{
	struct tracked *t;
	__u64 misses;
	__u32 id;

	if (R.read(prog_fd, &id, &misses))
		return;
	t = find(id);
	if (!t || --t->refs)
		return;
	/* what it missed after the last poll still counts */
	if (misses >= t->seen)
		R.pending += misses - t->seen;
	close(t->fd);
	*t = R.progs[--R.n];
}

__u64 frecd_recursion__poll(struct frec_recorder *rec, __u64 now)
{
	__u64 delta = R.pending;
	unsigned int i;

	for (i = 0; i < R.n; i++) {
		struct tracked *t = &R.progs[i];
		__u64 misses;
		__u32 id;

		if (R.read(t->fd, &id, &misses))
			continue;
		/* One id's count only grows; were it to go down, counting
		 * from the new value is all that can be done. */
		if (misses >= t->seen)
			delta += misses - t->seen;
		t->seen = misses;
	}
	R.pending = 0;
	if (delta && rec)
		frec_recorder__add_lost(rec, FREC_CPU_UNKNOWN, delta, now);
	R.total += delta;
	return delta;
}

__u64 frecd_recursion__total(void)
{
	return R.total;
}

int frecd_recursion__counted(void)
{
	return R.counted;
}

unsigned int frecd_recursion__ntracked(void)
{
	return R.n;
}

void frecd_recursion__set_reader(frecd_recursion_read_fn fn)
{
	R.read = fn ? fn : frecd_recursion__read;
}

void frecd_recursion__reset(void)
{
	while (R.n)
		close(R.progs[--R.n].fd);
	free(R.progs);
	R.progs = NULL;
	R.cap = 0;
	R.pending = R.total = 0;
	R.counted = -1;
}
