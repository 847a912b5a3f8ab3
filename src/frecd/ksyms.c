// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "frecd/ksyms.h"

struct ksym {
	__u64 addr;
	__u32 name;		/* offset into names */
	bool module;		/* "[module]" in kallsyms, also [bpf] and the like */
};

struct krange {
	__u64 start, end;
};

struct frecd_ksyms {
	struct ksym *syms;
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
	bool readable;		/* some address was not 0 */
	__u64 stext, etext;	/* the kernel's text, when kallsyms has both */
	struct krange *mods;	/* modules' memory (/proc/modules), sorted */
	size_t nmods;
};

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int add_name(struct frecd_ksyms *ks, const char *name, size_t n, const char *mod,
		    size_t m, __u32 *off)
{
	size_t need = n + (m ? m + 3 : 0) + 1;

	if (ks->names_len + need > ks->names_cap) {
		size_t cap = ks->names_cap ? ks->names_cap * 2 : 1 << 16;
		char *p;

		while (cap < ks->names_len + need)
			cap *= 2;
		if (cap > UINT32_MAX || !(p = realloc(ks->names, cap)))
			return -ENOMEM;
		ks->names = p;
		ks->names_cap = cap;
	}
	*off = ks->names_len;
	memcpy(ks->names + ks->names_len, name, n);
	ks->names_len += n;
	if (m) {
		/* "func [module]", as the tools show kernel module frames */
		ks->names[ks->names_len++] = ' ';
		ks->names[ks->names_len++] = '[';
		memcpy(ks->names + ks->names_len, mod, m);
		ks->names_len += m;
		ks->names[ks->names_len++] = ']';
	}
	ks->names[ks->names_len++] = '\0';
	return 0;
}

/*
 * One line: "ffffffff81000000 T _stext" or "ffffffffc0a01000 t fn\t[mod]".
 * Only text symbols (t, T, w, W) are kept: a stack holds code addresses,
 * and a data symbol between two functions would name the wrong thing.
 */
static int parse_line(struct frecd_ksyms *ks, const char *p, const char *end)
{
	const char *name, *mod = NULL;
	size_t n, m = 0;
	__u64 addr = 0;
	int digits = 0, v;
	char type;

	while (p < end && (v = hexval(*p)) >= 0) {
		addr = addr << 4 | (unsigned)v;
		p++;
		digits++;
	}
	if (!digits || digits > 16 || end - p < 3 || p[0] != ' ' || p[2] != ' ')
		return 0;
	type = p[1];
	if (type != 't' && type != 'T' && type != 'w' && type != 'W')
		return 0;
	name = p + 3;
	for (p = name; p < end && *p != '\t' && *p != ' '; p++)
		;
	n = p - name;
	if (!n)
		return 0;
	if (p < end && *p == '\t' && p + 1 < end && p[1] == '[') {
		mod = p + 2;
		for (p = mod; p < end && *p != ']'; p++)
			;
		m = p < end ? (size_t)(p - mod) : 0;
	}
	if (addr)
		ks->readable = true;
	if (ks->n == ks->cap) {
		size_t cap = ks->cap ? ks->cap * 2 : 4096;
		struct ksym *s = realloc(ks->syms, cap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		ks->syms = s;
		ks->cap = cap;
	}
	ks->syms[ks->n].addr = addr;
	ks->syms[ks->n].module = m > 0;
	if (!m && n == 6 && !memcmp(name, "_stext", 6))
		ks->stext = addr;
	if (!m && n == 6 && !memcmp(name, "_etext", 6))
		ks->etext = addr;
	if (add_name(ks, name, n, mod, m, &ks->syms[ks->n].name))
		return -ENOMEM;
	ks->n++;
	return 0;
}

static int cmp_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* aliases: the first one kallsyms lists wins, as a stable order */
	return x->name < y->name ? -1 : x->name > y->name;
}

struct frecd_ksyms *frecd_ksyms__parse(const char *text, size_t len)
{
	const char *p = text, *end = text + len, *eol;
	struct frecd_ksyms *ks;
	size_t i, j;

	ks = calloc(1, sizeof(*ks));
	if (!ks)
		return NULL;
	for (; p < end; p = eol + 1) {
		eol = memchr(p, '\n', end - p);
		if (!eol)
			eol = end;
		if (parse_line(ks, p, eol)) {
			frecd_ksyms__free(ks);
			errno = ENOMEM;
			return NULL;
		}
	}
	if (!ks->readable) {
		/* all zeros: names without addresses are worth nothing */
		ks->n = 0;
		return ks;
	}
	if (ks->n)
		qsort(ks->syms, ks->n, sizeof(*ks->syms), cmp_addr);
	/* one entry per address */
	for (i = j = 0; i < ks->n; i++)
		if (!j || ks->syms[i].addr != ks->syms[j - 1].addr)
			ks->syms[j++] = ks->syms[i];
	ks->n = j;
	return ks;
}

/* A whole proc file (its size says 0: read until EOF) into *buf. 0 or -errno. */
static int read_all(const char *path, char **buf, size_t *len)
{
	size_t cap = 1 << 20, n = 0;
	char *b = NULL, *p;
	ssize_t r;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		if (!b || n == cap) {
			cap = b ? cap * 2 : cap;
			p = realloc(b, cap);
			if (!p) {
				err = -ENOMEM;
				break;
			}
			b = p;
		}
		r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			err = -errno;
		if (r <= 0)
			break;
		n += r;
	}
	close(fd);
	if (err) {
		free(b);
		return err;
	}
	*buf = b;
	*len = n;
	return 0;
}

struct frecd_ksyms *frecd_ksyms__load(const char *path, const char *modules)
{
	struct frecd_ksyms *ks;
	size_t len;
	char *buf;
	int err;

	err = read_all(path, &buf, &len);
	if (err) {
		errno = -err;
		return NULL;
	}
	ks = frecd_ksyms__parse(buf, len);
	err = errno;
	free(buf);
	if (!ks) {
		errno = err;
		return NULL;
	}
	/* the modules' extents, where module names may be given */
	if (modules && !read_all(modules, &buf, &len)) {
		err = frecd_ksyms__add_modules(ks, buf, len);
		free(buf);
		if (err) {
			frecd_ksyms__free(ks);
			errno = -err;
			return NULL;
		}
	}
	return ks;
}

static int cmp_range(const void *a, const void *b)
{
	const struct krange *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int frecd_ksyms__add_modules(struct frecd_ksyms *ks, const char *text, size_t len)
{
	const char *p = text, *end = text + len, *eol;

	for (; p < end; p = eol + 1) {
		char line[512], name[256], state[32];
		unsigned long long size, addr;
		struct krange *r;
		size_t n;

		eol = memchr(p, '\n', end - p);
		if (!eol)
			eol = end;
		n = eol - p < (long)sizeof(line) - 1 ? (size_t)(eol - p) : sizeof(line) - 1;
		memcpy(line, p, n);
		line[n] = '\0';
		/* "name size refcount users state address [taint]" */
		if (sscanf(line, "%255s %llu %*s %*s %31s %llx", name, &size, state, &addr) != 4 ||
		    !addr || !size)
			continue;
		r = realloc(ks->mods, (ks->nmods + 1) * sizeof(*r));
		if (!r)
			return -ENOMEM;
		ks->mods = r;
		ks->mods[ks->nmods].start = addr;
		ks->mods[ks->nmods].end = addr + size;
		ks->nmods++;
	}
	if (ks->nmods)
		qsort(ks->mods, ks->nmods, sizeof(*ks->mods), cmp_range);
	return 0;
}

void frecd_ksyms__free(struct frecd_ksyms *ks)
{
	if (!ks)
		return;
	free(ks->mods);
	free(ks->syms);
	free(ks->names);
	free(ks);
}

bool frecd_ksyms__readable(const struct frecd_ksyms *ks)
{
	return ks && ks->readable;
}

size_t frecd_ksyms__count(const struct frecd_ksyms *ks)
{
	return ks ? ks->n : 0;
}

size_t frecd_ksyms__bytes(const struct frecd_ksyms *ks)
{
	return ks ? ks->cap * sizeof(*ks->syms) + ks->names_cap : 0;
}

int frecd_ksyms__lookup(const struct frecd_ksyms *ks, __u64 ip, const char **name,
			__u64 *offset)
{
	size_t lo = 0, hi;

	if (!ks || !ks->n || ip < ks->syms[0].addr)
		return -ENOENT;
	/* the last symbol at or below ip */
	hi = ks->n;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->syms[mid].addr <= ip)
			lo = mid;
		else
			hi = mid;
	}
	/* Only where the symbols are known to reach: the kernel's text, or
	 * a module's memory. An address past them (a BPF program, a module
	 * loaded after kallsyms was read) would otherwise get the name of
	 * whatever symbol comes before it. */
	if (ks->syms[lo].module) {
		size_t i;

		for (i = 0; i < ks->nmods; i++)
			if (ip >= ks->mods[i].start && ip < ks->mods[i].end)
				break;
		if (i == ks->nmods || ks->syms[lo].addr < ks->mods[i].start)
			return -ENOENT;
	} else if (ks->stext && ks->etext && (ip < ks->stext || ip >= ks->etext)) {
		return -ENOENT;
	}
	*name = ks->names + ks->syms[lo].name;
	*offset = ip - ks->syms[lo].addr;
	return 0;
}
