// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The snapshot header: filling it from the host, and its byte layout (the
 * body of the file header, docs/FORMAT.md "File header").
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <frec/recorder.h>
#include "format.h"
#include "varint.h"

#ifndef FREC_VERSION
#define FREC_VERSION "unknown"
#endif

static void copy_str(char *dst, size_t cap, const char *src)
{
	size_t n = strnlen(src, cap - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void read_boot_id(char *dst, size_t cap)
{
	char buf[64];
	ssize_t n;
	int fd;

	dst[0] = '\0';
	fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	copy_str(dst, cap, buf);
}

static __s64 ts_ns(const struct timespec *t)
{
	return (__s64)t->tv_sec * 1000000000 + t->tv_nsec;
}

void frec_header__init(struct frec_header *hdr)
{
	struct timespec b1, rt, b2;
	struct utsname u;
	long n;

	memset(hdr, 0, sizeof(*hdr));
	hdr->version = FREC_FORMAT_VERSION;
	n = sysconf(_SC_NPROCESSORS_CONF);
	hdr->ncpus = n > 0 ? (__u32)n : 0;
	if (uname(&u) == 0) {
		copy_str(hdr->hostname, sizeof(hdr->hostname), u.nodename);
		copy_str(hdr->kernel_release, sizeof(hdr->kernel_release), u.release);
	}
	read_boot_id(hdr->boot_id, sizeof(hdr->boot_id));
	/* Bracket the realtime read with two boottime reads and take the
	 * midpoint: the offset is then off by at most half the bracket. */
	clock_gettime(CLOCK_BOOTTIME, &b1);
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_BOOTTIME, &b2);
	hdr->boottime_to_realtime_ns = ts_ns(&rt) - (ts_ns(&b1) + (ts_ns(&b2) - ts_ns(&b1)) / 2);
	hdr->created_realtime_ns = (__u64)ts_ns(&rt);
	copy_str(hdr->frec_version, sizeof(hdr->frec_version), FREC_VERSION);
}

/* Strings: u16 length, then the bytes, no NUL. */
static uint8_t *put_str(uint8_t *p, const char *s, size_t field)
{
	size_t n = strnlen(s, field);

	put_le16(p, (uint16_t)n);
	memcpy(p + 2, s, n);
	return p + 2 + n;
}

int header_encode(const struct frec_header *h, uint8_t *buf, size_t cap)
{
	const struct frec_config_summary *c = &h->config;
	uint32_t npids = c->npids < 16 ? c->npids : 16;
	uint32_t ncg = c->ncgroups < 8 ? c->ncgroups : 8;
	uint32_t flags = c->flags & ~FREC_CFG_CGROUPS;
	uint8_t *p = buf;
	size_t need = 4 + 8 + 8 + 5 * 2 + sizeof(h->hostname) + sizeof(h->kernel_release) +
		      sizeof(h->boot_id) + sizeof(h->frec_version) + sizeof(h->reason) +
		      4 * 8 + 4 + 4 + 16 * 4 +
		      2 + sizeof(c->cgroup_hierarchy) + 4 + 8 * (2 + sizeof(c->cgroups[0]));

	if (cap < need)
		return -ENOSPC;
	put_le32(p, h->ncpus);
	put_le64(p + 4, (uint64_t)h->boottime_to_realtime_ns);
	put_le64(p + 12, h->created_realtime_ns);
	p += 20;
	p = put_str(p, h->hostname, sizeof(h->hostname) - 1);
	p = put_str(p, h->kernel_release, sizeof(h->kernel_release) - 1);
	p = put_str(p, h->boot_id, sizeof(h->boot_id) - 1);
	p = put_str(p, h->frec_version, sizeof(h->frec_version) - 1);
	p = put_str(p, h->reason, sizeof(h->reason) - 1);
	put_le64(p, c->min_age_ns);
	put_le64(p + 8, c->max_bytes);
	put_le64(p + 16, c->period_ns);
	put_le64(p + 24, c->ring_bytes);
	/* The flag says what the hierarchy says: one cannot go without the other. */
	if (c->cgroup_hierarchy[0])
		flags |= FREC_CFG_CGROUPS;
	put_le32(p + 32, flags);
	put_le32(p + 36, c->npids);
	p += 40;
	for (uint32_t i = 0; i < npids; i++, p += 4)
		put_le32(p, c->pids[i]);
	p = put_str(p, c->cgroup_hierarchy, sizeof(c->cgroup_hierarchy) - 1);
	put_le32(p, c->ncgroups);
	p += 4;
	for (uint32_t i = 0; i < ncg; i++)
		p = put_str(p, c->cgroups[i], sizeof(c->cgroups[i]) - 1);
	return (int)(p - buf);
}

static int get_str(const uint8_t **pp, const uint8_t *end, char *dst, size_t cap)
{
	const uint8_t *p = *pp;
	size_t n, keep;

	if (end - p < 2)
		return -1;
	n = get_le16(p);
	p += 2;
	if ((size_t)(end - p) < n)
		return -1;
	/* A longer string than the field is not ours; truncate rather than fail. */
	keep = n < cap - 1 ? n : cap - 1;
	memcpy(dst, p, keep);
	dst[keep] = '\0';
	*pp = p + n;
	return 0;
}

int header_decode(const uint8_t *body, size_t len, struct frec_header *h)
{
	const uint8_t *p = body, *end = body + len;
	struct frec_config_summary *c = &h->config;
	uint32_t npids;

	memset(h, 0, sizeof(*h));
	if (len < 20)
		return -EBADMSG;
	h->ncpus = get_le32(p);
	h->boottime_to_realtime_ns = (__s64)get_le64(p + 4);
	h->created_realtime_ns = get_le64(p + 12);
	p += 20;
	if (get_str(&p, end, h->hostname, sizeof(h->hostname)) ||
	    get_str(&p, end, h->kernel_release, sizeof(h->kernel_release)) ||
	    get_str(&p, end, h->boot_id, sizeof(h->boot_id)) ||
	    get_str(&p, end, h->frec_version, sizeof(h->frec_version)) ||
	    get_str(&p, end, h->reason, sizeof(h->reason)))
		return -EBADMSG;
	if (end - p < 40)
		return -EBADMSG;
	c->min_age_ns = get_le64(p);
	c->max_bytes = get_le64(p + 8);
	c->period_ns = get_le64(p + 16);
	c->ring_bytes = get_le64(p + 24);
	c->flags = get_le32(p + 32);
	c->npids = get_le32(p + 36);
	p += 40;
	npids = c->npids < 16 ? c->npids : 16;
	if ((size_t)(end - p) < (size_t)npids * 4)
		return -EBADMSG;
	for (uint32_t i = 0; i < npids; i++, p += 4)
		c->pids[i] = get_le32(p);
	/* A body that ends here is from before the cgroup fields: none. */
	if (p < end) {
		uint32_t ncg;

		if (get_str(&p, end, c->cgroup_hierarchy, sizeof(c->cgroup_hierarchy)) ||
		    end - p < 4)
			return -EBADMSG;
		c->ncgroups = get_le32(p);
		p += 4;
		ncg = c->ncgroups < 8 ? c->ncgroups : 8;
		for (uint32_t i = 0; i < ncg; i++)
			if (get_str(&p, end, c->cgroups[i], sizeof(c->cgroups[i])))
				return -EBADMSG;
	}
	/* The flag goes by the hierarchy, as the writer sets it. */
	c->flags &= ~FREC_CFG_CGROUPS;
	if (c->cgroup_hierarchy[0])
		c->flags |= FREC_CFG_CGROUPS;
	/* Bytes after the known fields are ignored: a later writer of the
	 * same major version may append fields. */
	return 0;
}
