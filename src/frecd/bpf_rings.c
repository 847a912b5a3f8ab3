// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "../../bpf/frec.h"
#include "frecd/bpf_rings.h"
#include "frecd/caps.h"
#include "frecd/log.h"
#include "frecd/options.h"

#define ONLINE_PATH	"/sys/devices/system/cpu/online"

/* File descriptors frecd needs besides the rings: programs, links, maps,
 * probes' links (a few per probe), the control socket, /proc and the
 * snapshots. A generous guess: the limit is only raised, never lowered. */
#define NOFILE_SPARE	1024

struct frecd_bpf_rings {
	int *fds;		/* one ring per CPU online at start */
	__u32 *cpu;		/* the CPU of each */
	size_t n;
	size_t possible;	/* the programs' array's slots */
	bool *has_ring;		/* per possible CPU */
	bool *warned;		/* per possible CPU: said it came online late */
	bool *scratch;		/* per possible CPU, for check_online */
	__u32 late;
	__u64 bytes;		/* each */
	__u64 asked, floor;
};

static __u64 pow2_floor(__u64 v)
{
	__u64 p = 1;

	while (p <= v / 2)
		p *= 2;
	return p;
}

static __u64 pow2_ceil(__u64 v)
{
	__u64 p = 1;

	while (p < v && p < (1ull << 62))
		p *= 2;
	return p;
}

__u64 frecd_bpf_rings__share(size_t nonline, size_t npossible, __u64 total, __u64 floor,
			     __u64 page)
{
	__u64 each, least;

	if (!nonline || nonline > npossible)
		return 0;
	/* the kernel's rule: a power of two, whole pages */
	least = pow2_ceil(floor > page ? floor : page);
	each = total / nonline ? pow2_floor(total / nonline) : 0;
	return each > least ? each : least;
}

int frecd_bpf_rings__parse_cpus(const char *list, bool *set, size_t n)
{
	const char *p = list;
	int count = 0;

	memset(set, 0, n * sizeof(*set));
	while (*p && *p != '\n') {
		unsigned long a, b, c;
		char *end;

		if (*p < '0' || *p > '9')
			return -EINVAL;
		a = strtoul(p, &end, 10);
		b = a;
		if (*end == '-') {
			p = end + 1;
			if (*p < '0' || *p > '9')
				return -EINVAL;
			b = strtoul(p, &end, 10);
			if (b < a)
				return -EINVAL;
		}
		for (c = a; c <= b && c < n; c++)
			if (!set[c]) {
				set[c] = true;
				count++;
			}
		p = end;
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -EINVAL;
	}
	return count;
}

/* The online CPUs into set (n possible), their number or -errno. */
static int read_online(bool *set, size_t n)
{
	char buf[4096];
	ssize_t len;
	int fd, ret;

	fd = open(ONLINE_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = read(fd, buf, sizeof(buf) - 1);
	ret = len < 0 ? -errno : 0;
	close(fd);
	if (ret)
		return ret;
	buf[len] = '\0';
	return frecd_bpf_rings__parse_cpus(buf, set, n);
}

/*
 * A ring is a file descriptor, and so is every program, link and probe: on
 * a machine with hundreds of CPUs the usual soft limit of 1024 is not
 * enough. Raise it to the hard limit, which needs no privilege, and say so
 * when even that cannot cover the rings and what comes with them.
 */
static void raise_nofile(size_t nrings)
{
	__u64 need = nrings + NOFILE_SPARE;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	if (rl.rlim_cur < rl.rlim_max) {
		__u64 was = rl.rlim_cur;

		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			rl.rlim_cur = was;
		else
			log_debug("open files: soft limit raised from %llu to %llu",
				  (unsigned long long)was, (unsigned long long)rl.rlim_cur);
	}
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need)
		log_warn("open files: the limit is %llu, and %zu rings with the programs and probes may need about %llu; raise it (ulimit -n, or LimitNOFILE= in the unit)",
			 (unsigned long long)rl.rlim_cur, nrings, (unsigned long long)need);
}

static struct frecd_bpf_rings *rings_alloc(size_t possible)
{
	struct frecd_bpf_rings *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->possible = possible;
	r->fds = calloc(possible, sizeof(*r->fds));
	r->cpu = calloc(possible, sizeof(*r->cpu));
	r->has_ring = calloc(possible, sizeof(*r->has_ring));
	r->warned = calloc(possible, sizeof(*r->warned));
	r->scratch = calloc(possible, sizeof(*r->scratch));
	if (!r->fds || !r->cpu || !r->has_ring || !r->warned || !r->scratch) {
		frecd_bpf_rings__free(r);
		errno = ENOMEM;
		return NULL;
	}
	return r;
}

struct frecd_bpf_rings *frecd_bpf_rings__new(__u64 total, __u64 floor, char *err, size_t errlen)
{
	long page = sysconf(_SC_PAGESIZE);
	int ncpus = libbpf_num_possible_cpus();
	struct frecd_bpf_rings *r;
	char s1[32], s2[32], s3[32];
	int nonline, ret;
	size_t i;

	if (ncpus <= 0) {
		snprintf(err, errlen, "cannot count the possible CPUs: %s", strerror(-ncpus));
		errno = ncpus ? -ncpus : EINVAL;
		return NULL;
	}
	r = rings_alloc(ncpus);
	if (!r)
		return NULL;
	nonline = read_online(r->has_ring, ncpus);
	if (nonline <= 0) {
		/* no sysfs (a container without it): every possible CPU */
		log_debug("cannot read %s (%s): a ring for every possible CPU", ONLINE_PATH,
			  strerror(nonline ? -nonline : EINVAL));
		for (i = 0; i < (size_t)ncpus; i++)
			r->has_ring[i] = true;
		nonline = ncpus;
	}
	r->asked = total;
	r->floor = floor;
	r->bytes = frecd_bpf_rings__share(nonline, ncpus, total, floor, page);
	raise_nofile(nonline);
	for (i = 0; i < (size_t)ncpus; i++) {
		if (!r->has_ring[i])
			continue;
		ret = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "frec_ring", 0, 0, r->bytes, NULL);
		if (ret < 0) {
			if (ret == -EPERM)
				frecd_caps__error(err, errlen);
			else if (ret == -EMFILE || ret == -ENFILE)
				snprintf(err, errlen, "cannot create the BPF ring buffer for CPU %zu: %s: raise the open-file limit (ulimit -n, or LimitNOFILE= in the unit)",
					 i, strerror(-ret));
			else
				snprintf(err, errlen, "cannot create a %llu-byte BPF ring buffer for CPU %zu: %s%s",
					 (unsigned long long)r->bytes, i, strerror(-ret),
					 ret == -ENOMEM ? ": lower --ring-size or --ring-min" : "");
			frecd_bpf_rings__free(r);
			errno = -ret;
			return NULL;
		}
		r->fds[r->n] = ret;
		r->cpu[r->n++] = i;
	}
	frecd_format_size(r->bytes * r->n, s1, sizeof(s1));
	frecd_format_size(r->bytes, s2, sizeof(s2));
	if (r->bytes * r->n > total) {
		frecd_format_size(total, s3, sizeof(s3));
		log_info("rings: %zu CPUs online of %d possible, %s each, %s in all: more than --ring-size %s, for each CPU's ring to hold --ring-min",
			 r->n, ncpus, s2, s1, s3);
	} else {
		log_info("rings: %zu CPUs online of %d possible, %s each, %s in all",
			 r->n, ncpus, s2, s1);
	}
	return r;
}

void frecd_bpf_rings__free(struct frecd_bpf_rings *r)
{
	if (!r)
		return;
	while (r->n)
		close(r->fds[--r->n]);
	free(r->fds);
	free(r->cpu);
	free(r->has_ring);
	free(r->warned);
	free(r->scratch);
	free(r);
}

const int *frecd_bpf_rings__fds(const struct frecd_bpf_rings *r, size_t *n, __u64 *bytes)
{
	*n = r->n;
	*bytes = r->bytes;
	return r->fds;
}

size_t frecd_bpf_rings__slots(const struct frecd_bpf_rings *r)
{
	return r->possible;
}

void frecd_bpf_rings__info(const struct frecd_bpf_rings *r, struct frecd_bpf_rings_info *info)
{
	memset(info, 0, sizeof(*info));
	if (!r)
		return;
	info->cpus = r->n;
	info->possible = r->possible;
	info->each = r->bytes;
	info->total = r->bytes * r->n;
	info->asked = r->asked;
	info->floor = r->floor;
	info->late_cpus = r->late;
}

__u32 frecd_bpf_rings__check_online(struct frecd_bpf_rings *r)
{
	__u32 late = 0;
	size_t i;

	if (!r || read_online(r->scratch, r->possible) <= 0)
		return r ? r->late : 0;
	for (i = 0; i < r->possible; i++) {
		if (!r->scratch[i] || r->has_ring[i])
			continue;
		late++;
		if (r->warned[i])
			continue;
		r->warned[i] = true;
		log_warn("CPU %zu came online after frecd started: it has no ring, so its events are not recorded (counted as lost on cpu%zu); restart frecd to record it",
			 i, i);
	}
	r->late = late;
	return late;
}

int frecd_bpf_rings__fill(const struct frecd_bpf_rings *r, int array_fd, char *err,
			  size_t errlen)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (bpf_map_update_elem(array_fd, &r->cpu[i], &r->fds[i], BPF_ANY)) {
			snprintf(err, errlen, "cannot hand the ring buffers to the programs: %s",
				 strerror(errno));
			return -errno;
		}
	return 0;
}

__u64 frecd_bpf_rings__wakeup_threshold(__u64 ring_bytes)
{
	return ring_bytes ? ring_bytes / FREC_WAKEUP_SHARE : FREC_WAKEUP_THRESHOLD;
}
