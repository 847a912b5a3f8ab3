// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <lzma.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "frecd/elf_file.h"
#include "frecd/elf_syms.h"

/* .gnu_debugdata of a few MiB decompresses to some tens: more is not one. */
#define MAX_DEBUGDATA	(256u << 20)
#define MAX_SEGMENTS	16

struct esym {
	__u64 addr;
	__u64 size;
	__u32 name;		/* offset into names */
	bool global;
};

struct segment {
	__u64 offset, filesz, vaddr;
	bool exec;
};

struct elf_syms {
	struct esym *syms;
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
	struct segment seg[MAX_SEGMENTS];
	size_t nseg;
	bool fixed;		/* ET_EXEC: loaded at its own addresses */
	unsigned int sources;
};

static int add_sym(struct elf_syms *s, const char *name, __u64 addr, __u64 size, bool global)
{
	size_t len = strlen(name) + 1;

	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		struct esym *p = realloc(s->syms, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		s->syms = p;
		s->cap = cap;
	}
	if (s->names_len + len > s->names_cap) {
		size_t cap = s->names_cap ? s->names_cap * 2 : 4096;
		char *p;

		while (cap < s->names_len + len)
			cap *= 2;
		if (cap > UINT32_MAX || !(p = realloc(s->names, cap)))
			return -ENOMEM;
		s->names = p;
		s->names_cap = cap;
	}
	s->syms[s->n].addr = addr;
	s->syms[s->n].size = size;
	s->syms[s->n].name = s->names_len;
	s->syms[s->n].global = global;
	s->n++;
	memcpy(s->names + s->names_len, name, len);
	s->names_len += len;
	return 0;
}

/* The defined functions of every section of type (SHT_SYMTAB, SHT_DYNSYM). */
static int add_table(struct elf_syms *s, Elf *elf, GElf_Word type, bool *found)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	*found = false;
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		size_t i, n;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != type || !shdr.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		*found = true;
		n = shdr.sh_size / shdr.sh_entsize;
		for (i = 0; i < n; i++) {
			const char *name;
			GElf_Sym sym;
			int t;

			if (!gelf_getsym(data, (int)i, &sym))
				continue;
			t = GELF_ST_TYPE(sym.st_info);
			if ((t != STT_FUNC && t != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
			    !sym.st_value)
				continue;
			name = elf_strptr(elf, shdr.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			if (add_sym(s, name, sym.st_value, sym.st_size,
				    GELF_ST_BIND(sym.st_info) != STB_LOCAL))
				return -ENOMEM;
		}
	}
	return 0;
}

static Elf_Scn *section_by_name(Elf *elf, const char *want)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr shdr;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &shdr))
			continue;
		name = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (name && !strcmp(name, want))
			return scn;
	}
	return NULL;
}

/* xz data into a new buffer of *outlen bytes; NULL when it is not xz, is
 * damaged or is too large. */
static void *unxz(const void *in, size_t inlen, size_t *outlen)
{
	lzma_stream strm = LZMA_STREAM_INIT;
	size_t cap = inlen * 4 + 4096;
	lzma_ret r;
	__u8 *out = NULL, *p;

	if (lzma_stream_decoder(&strm, UINT64_MAX, 0) != LZMA_OK)
		return NULL;
	strm.next_in = in;
	strm.avail_in = inlen;
	for (;;) {
		size_t used = out ? strm.total_out : 0;

		if (!out || !strm.avail_out) {
			if (out)
				cap *= 2;
			if (cap > MAX_DEBUGDATA || !(p = realloc(out, cap)))
				goto fail;
			out = p;
			strm.next_out = out + used;
			strm.avail_out = cap - used;
		}
		r = lzma_code(&strm, LZMA_FINISH);
		if (r == LZMA_STREAM_END)
			break;
		if (r != LZMA_OK && r != LZMA_BUF_ERROR)
			goto fail;
		if (r == LZMA_BUF_ERROR && strm.avail_out)
			goto fail;	/* truncated input */
	}
	*outlen = strm.total_out;
	lzma_end(&strm);
	return out;
fail:
	lzma_end(&strm);
	free(out);
	return NULL;
}

/* The .symtab of .gnu_debugdata, when there is one. */
static int add_debugdata(struct elf_syms *s, Elf *elf)
{
	Elf_Scn *scn = section_by_name(elf, ".gnu_debugdata");
	Elf_Data *data;
	size_t len;
	bool found;
	void *buf;
	Elf *mini;
	int ret = 0;

	if (!scn || !(data = elf_rawdata(scn, NULL)) || !data->d_size)
		return 0;
	buf = unxz(data->d_buf, data->d_size, &len);
	if (!buf)
		return 0;	/* damaged: the other tables still name what they can */
	mini = elf_memory(buf, len);
	if (mini && elf_kind(mini) == ELF_K_ELF) {
		ret = add_table(s, mini, SHT_SYMTAB, &found);
		if (found)
			s->sources |= ELF_SYMS_DEBUGDATA;
	}
	if (mini)
		elf_end(mini);
	free(buf);
	return ret;
}

static void read_segments(struct elf_syms *s, Elf *elf)
{
	GElf_Ehdr eh;
	size_t i, n;

	s->fixed = gelf_getehdr(elf, &eh) && eh.e_type == ET_EXEC;
	if (elf_getphdrnum(elf, &n))
		return;
	for (i = 0; i < n && s->nseg < MAX_SEGMENTS; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		s->seg[s->nseg].offset = ph.p_offset;
		s->seg[s->nseg].filesz = ph.p_filesz;
		s->seg[s->nseg].vaddr = ph.p_vaddr;
		s->seg[s->nseg].exec = ph.p_flags & PF_X;
		s->nseg++;
	}
}

static int cmp_sym(const void *a, const void *b)
{
	const struct esym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* at one address: a global name, then one with a size, first */
	if (x->global != y->global)
		return x->global ? -1 : 1;
	if (!x->size != !y->size)
		return x->size ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

struct elf_syms *elf_syms__read(const struct elf_file *ef)
{
	Elf *elf = elf_file__elf(ef);
	struct elf_syms *s;
	bool found;
	size_t i, j;

	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	read_segments(s, elf);
	if (add_table(s, elf, SHT_SYMTAB, &found))
		goto nomem;
	if (found) {
		s->sources |= ELF_SYMS_SYMTAB;
	} else {
		if (add_table(s, elf, SHT_DYNSYM, &found))
			goto nomem;
		if (found)
			s->sources |= ELF_SYMS_DYNSYM;
		if (add_debugdata(s, elf))
			goto nomem;
	}
	if (s->n)
		qsort(s->syms, s->n, sizeof(*s->syms), cmp_sym);
	for (i = j = 0; i < s->n; i++)
		if (!j || s->syms[i].addr != s->syms[j - 1].addr)
			s->syms[j++] = s->syms[i];
	s->n = j;
	return s;
nomem:
	elf_syms__free(s);
	errno = ENOMEM;
	return NULL;
}

void elf_syms__free(struct elf_syms *s)
{
	if (!s)
		return;
	free(s->syms);
	free(s->names);
	free(s);
}

size_t elf_syms__count(const struct elf_syms *s)
{
	return s->n;
}

unsigned int elf_syms__sources(const struct elf_syms *s)
{
	return s->sources;
}

size_t elf_syms__bytes(const struct elf_syms *s)
{
	return sizeof(*s) + s->cap * sizeof(*s->syms) + s->names_cap;
}

int elf_syms__offset_to_addr(const struct elf_syms *s, __u64 off, __u64 *addr)
{
	size_t i;

	for (i = 0; i < s->nseg; i++)
		if (off >= s->seg[i].offset && off < s->seg[i].offset + s->seg[i].filesz) {
			*addr = off - s->seg[i].offset + s->seg[i].vaddr;
			return 0;
		}
	return -ERANGE;
}

int elf_syms__load_bias(const struct elf_syms *s, __u64 off, __u64 ip, __u64 page,
			__u64 *bias)
{
	const struct segment *g;
	__u64 b;
	size_t i;

	for (i = 0; i < s->nseg; i++) {
		g = &s->seg[i];
		if (!g->exec || off < g->offset || off - g->offset >= g->filesz)
			continue;
		b = ip - (g->vaddr + (off - g->offset));
		/* the kernel maps whole pages: any other ip is not this file's */
		if ((b & (page - 1)) || ((g->vaddr ^ g->offset) & (page - 1)) ||
		    (s->fixed && b))
			return -EINVAL;
		*bias = b;
		return 0;
	}
	return -ERANGE;
}

int elf_syms__exec_segment(const struct elf_syms *s, size_t i, __u64 bias, __u64 page,
			   __u64 *start, __u64 *end, __u64 *pgoff)
{
	const struct segment *g;
	size_t k;

	for (k = 0; k < s->nseg; k++) {
		g = &s->seg[k];
		if (!g->exec || !g->filesz || ((g->vaddr ^ g->offset) & (page - 1)))
			continue;
		if (i--)
			continue;
		*start = bias + (g->vaddr & ~(page - 1));
		*end = bias + g->vaddr + g->filesz;
		*pgoff = g->offset & ~(page - 1);
		return 0;
	}
	return -ENOENT;
}

int elf_syms__lookup(const struct elf_syms *s, __u64 addr, const char **name, __u64 *offset)
{
	size_t lo = 0, hi = s->n;
	const struct esym *e;

	if (!s->n || addr < s->syms[0].addr)
		return -ENOENT;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	e = &s->syms[lo];
	/* inside it: within its size, or before the next one when it has none
	 * (the last one without a size has no known end: not named) */
	if (e->size ? addr - e->addr >= e->size :
	    lo + 1 >= s->n || addr >= s->syms[lo + 1].addr)
		return -ENOENT;
	*name = s->names + e->name;
	*offset = addr - e->addr;
	return 0;
}
