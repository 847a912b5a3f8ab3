// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "frecd/proc_maps.h"

#define DELETED	" (deleted)"

static const char *hex(const char *p, const char *end, __u64 *v)
{
	const char *start = p;
	__u64 x = 0;

	for (; p < end; p++) {
		int d;

		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			break;
		if (p - start >= 16)
			return NULL;
		x = x << 4 | (unsigned)d;
	}
	if (p == start)
		return NULL;
	*v = x;
	return p;
}

static const char *dec(const char *p, const char *end, __u64 *v)
{
	const char *start = p;
	__u64 x = 0;

	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (p - start >= 20)
			return NULL;
		x = x * 10 + (unsigned)(*p - '0');
	}
	if (p == start)
		return NULL;
	*v = x;
	return p;
}

static const char *expect(const char *p, const char *end, char c)
{
	return p && p < end && *p == c ? p + 1 : NULL;
}

/* "7f2c1a000000-7f2c1a022000 r-xp 00028000 08:01 1234567    /usr/lib/libc.so.6" */
int frecd_maps__parse_line(const char *line, size_t len, struct frecd_map *m)
{
	const char *p = line, *end = line + len;
	__u64 major, minor;

	memset(m, 0, sizeof(*m));
	p = hex(p, end, &m->start);
	p = expect(p, end, '-');
	p = p ? hex(p, end, &m->end) : NULL;
	p = expect(p, end, ' ');
	if (!p || end - p < 5 || m->end <= m->start)
		return -EINVAL;
	m->exec = p[2] == 'x';
	p = expect(p + 4, end, ' ');
	p = p ? hex(p, end, &m->pgoff) : NULL;
	p = expect(p, end, ' ');
	p = p ? hex(p, end, &major) : NULL;
	p = expect(p, end, ':');
	p = p ? hex(p, end, &minor) : NULL;
	p = expect(p, end, ' ');
	p = p ? dec(p, end, &m->inode) : NULL;
	if (!p)
		return -EINVAL;
	m->dev_major = major;
	m->dev_minor = minor;
	while (p < end && *p == ' ')
		p++;
	m->path = p;
	m->path_len = end - p;
	if (m->path_len > strlen(DELETED) &&
	    !memcmp(end - strlen(DELETED), DELETED, strlen(DELETED))) {
		m->deleted = true;
		m->path_len -= strlen(DELETED);
	}
	return 0;
}

int frecd_maps__read(__u32 pid, frecd_map_fn fn, void *ctx)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while ((n = getline(&line, &cap, f)) > 0) {
		struct frecd_map m;

		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (frecd_maps__parse_line(line, n, &m) || !m.exec || !m.inode ||
		    !m.path_len || m.path[0] != '/')
			continue;
		ret = fn(&m, ctx);
		if (ret)
			break;
	}
	free(line);
	fclose(f);
	return ret;
}
