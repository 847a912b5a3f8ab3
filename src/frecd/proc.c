// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <frec/recorder.h>
#include "frecd/proc.h"

/* Read a small /proc file into buf (NUL-terminated). Bytes read or -errno. */
static ssize_t read_small(const char *path, char *buf, size_t len)
{
	ssize_t n, total = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((size_t)total < len - 1) {
		n = read(fd, buf + total, len - 1 - total);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			n = -errno;
			close(fd);
			return n;
		}
		if (n == 0)
			break;
		total += n;
	}
	close(fd);
	buf[total] = '\0';
	return total;
}

static int parse_id(const char *s, __u32 *out)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	v = strtoul(s, &end, 10);
	if (*end || v == 0 || v > 0xffffffffUL)
		return -EINVAL;
	*out = v;
	return 0;
}

int frecd_proc__cmdline(__u32 tgid, char *buf, size_t len)
{
	char path[64];
	ssize_t n, i;

	snprintf(path, sizeof(path), "/proc/%u/cmdline", tgid);
	n = read_small(path, buf, len);
	if (n < 0)
		return n;
	/* arguments are NUL-separated, with a trailing NUL */
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	for (i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	buf[n] = '\0';
	return n;
}

static int walk_process(__u32 tgid, frecd_proc_thread_fn fn, void *ctx)
{
	char path[96], comm[64];
	struct dirent *de;
	int ret = 0;
	ssize_t n;
	__u32 tid;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%u/task", tgid);
	d = opendir(path);
	if (!d)
		return 0;	/* it exited meanwhile */
	while (!ret && (de = readdir(d))) {
		if (parse_id(de->d_name, &tid))
			continue;
		snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", tgid, tid);
		n = read_small(path, comm, sizeof(comm));
		if (n <= 0)
			continue;
		if (comm[n - 1] == '\n')
			comm[n - 1] = '\0';
		ret = fn(ctx, tid, tgid, comm);
	}
	closedir(d);
	return ret;
}

int frecd_proc__for_each_process(frecd_proc_process_fn fn, void *ctx)
{
	struct dirent *de;
	__u32 tgid;
	int ret = 0;
	DIR *d;

	d = opendir("/proc");
	if (!d)
		return -errno;
	while (!ret && (de = readdir(d)))
		if (!parse_id(de->d_name, &tgid))
			ret = fn(ctx, tgid);
	closedir(d);
	return ret;
}

struct thread_walk {
	frecd_proc_thread_fn fn;
	void *ctx;
};

static int walk_one(void *ctx, __u32 tgid)
{
	struct thread_walk *w = ctx;

	return walk_process(tgid, w->fn, w->ctx);
}

int frecd_proc__for_each_thread(frecd_proc_thread_fn fn, void *ctx)
{
	struct thread_walk w = { .fn = fn, .ctx = ctx };

	return frecd_proc__for_each_process(walk_one, &w);
}

struct seed {
	struct frec_recorder *rec;
	int named;
};

static int seed_one(void *ctx, __u32 tid, __u32 tgid, const char *comm)
{
	struct seed *s = ctx;

	if (frec_recorder__set_thread(s->rec, tid, tgid, comm) == 0)
		s->named++;
	return 0;
}

int frecd_proc__seed_names(struct frec_recorder *rec)
{
	struct seed s = { .rec = rec };
	int ret;

	ret = frecd_proc__for_each_thread(seed_one, &s);
	return ret < 0 ? ret : s.named;
}

int frecd_proc__tgid_of(__u32 pid, __u32 *tgid)
{
	char path[64], buf[2048], *p;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%u/status", pid);
	n = read_small(path, buf, sizeof(buf));
	if (n < 0)
		return n == -ENOENT ? -ESRCH : n;
	p = strstr(buf, "\nTgid:");
	if (!p)
		return -EINVAL;
	*tgid = strtoul(p + 6, NULL, 10);
	return *tgid ? 0 : -EINVAL;
}
