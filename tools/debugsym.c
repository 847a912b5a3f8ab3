// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Naming user frames from separate debug files; see debugsym.h. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "debugsym.h"

#define MAX_BUILD_ID_HEX	128
#define MAX_LOADS		16

struct dsym {
	__u64 addr, size;
	char *name;
};

struct dload {
	__u64 offset, filesz, vaddr;
};

/* What one build-id's files gave; ok false: nothing to name with. */
struct dfile {
	struct dfile *next;
	char build_id[MAX_BUILD_ID_HEX + 1];
	bool ok;
	struct dsym *syms;
	size_t nsyms;
	struct dload loads[MAX_LOADS];
	unsigned int nloads;
};

struct frec_debugsym {
	char *dir;
	struct dfile *files;
	bool elf_ready;
};

struct frec_debugsym *frec_debugsym__new(const char *dir)
{
	struct frec_debugsym *ds = calloc(1, sizeof(*ds));

	if (!ds)
		return NULL;
	ds->dir = strdup(dir ? dir : FREC_DEBUG_DIR_DEFAULT);
	if (!ds->dir) {
		free(ds);
		return NULL;
	}
	return ds;
}

static void dfile_free(struct dfile *f)
{
	for (size_t i = 0; i < f->nsyms; i++)
		free(f->syms[i].name);
	free(f->syms);
	free(f);
}

void frec_debugsym__free(struct frec_debugsym *ds)
{
	struct dfile *f;

	if (!ds)
		return;
	while ((f = ds->files)) {
		ds->files = f->next;
		dfile_free(f);
	}
	free(ds->dir);
	free(ds);
}

static bool valid_build_id(const char *b)
{
	size_t n = strlen(b);

	if (n < 4 || n > MAX_BUILD_ID_HEX || n % 2)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((b[i] >= '0' && b[i] <= '9') || (b[i] >= 'a' && b[i] <= 'f')))
			return false;
	return true;
}

/* The build-id note of e as lower-case hex into out; false if none. */
static bool elf_build_id(Elf *e, char out[MAX_BUILD_ID_HEX + 1])
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		GElf_Nhdr nh;
		Elf_Data *d;
		size_t off = 0, noff, doff;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((char *)d->d_buf + noff, "GNU", 4) || !nh.n_descsz ||
			    nh.n_descsz * 2 > MAX_BUILD_ID_HEX)
				continue;
			for (size_t i = 0; i < nh.n_descsz; i++)
				snprintf(out + 2 * i, 3, "%02x",
					 ((unsigned char *)d->d_buf)[doff + i]);
			return true;
		}
	}
	return false;
}

/* The PT_LOAD segments of e that hold file content. */
static void elf_loads(Elf *e, struct dfile *f)
{
	size_t n, i;

	f->nloads = 0;
	if (elf_getphdrnum(e, &n))
		return;
	for (i = 0; i < n && f->nloads < MAX_LOADS; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, i, &ph) || ph.p_type != PT_LOAD || !ph.p_filesz)
			continue;
		f->loads[f->nloads].offset = ph.p_offset;
		f->loads[f->nloads].filesz = ph.p_filesz;
		f->loads[f->nloads].vaddr = ph.p_vaddr;
		f->nloads++;
	}
}

static int sym_cmp(const void *a, const void *b)
{
	const struct dsym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The function symbols of e: .symtab, else .dynsym. */
static int elf_syms(Elf *e, struct dfile *f)
{
	Elf_Scn *scn = NULL, *pick = NULL;
	GElf_Shdr sh, psh = { 0 };
	Elf_Data *d;
	size_t i, n, cap = 0;

	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB || (sh.sh_type == SHT_DYNSYM && !pick)) {
			pick = scn;
			psh = sh;
		}
	}
	if (!pick || !psh.sh_entsize || !(d = elf_getdata(pick, NULL)))
		return 0;
	n = psh.sh_size / psh.sh_entsize;
	for (i = 0; i < n; i++) {
		GElf_Sym s;
		const char *name;

		if (!gelf_getsym(d, (int)i, &s))
			break;
		if ((GELF_ST_TYPE(s.st_info) != STT_FUNC && GELF_ST_TYPE(s.st_info) != STT_GNU_IFUNC) ||
		    s.st_shndx == SHN_UNDEF || !s.st_value)
			continue;
		name = elf_strptr(e, psh.sh_link, s.st_name);
		if (!name || !name[0])
			continue;
		if (f->nsyms == cap) {
			size_t ncap = cap ? 2 * cap : 256;
			struct dsym *p = realloc(f->syms, ncap * sizeof(*p));

			if (!p)
				return -ENOMEM;
			f->syms = p;
			cap = ncap;
		}
		f->syms[f->nsyms].addr = s.st_value;
		f->syms[f->nsyms].size = s.st_size;
		if (!(f->syms[f->nsyms].name = strdup(name)))
			return -ENOMEM;
		f->nsyms++;
	}
	qsort(f->syms, f->nsyms, sizeof(f->syms[0]), sym_cmp);
	return 0;
}

static Elf *elf_open(const char *path, int *fd)
{
	Elf *e;

	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return NULL;
	e = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		if (e)
			elf_end(e);
		close(*fd);
		return NULL;
	}
	return e;
}

static void elf_close(Elf *e, int fd)
{
	elf_end(e);
	close(fd);
}

/* Read build_id's debug file (and the module's headers). */
static int dfile_load(struct frec_debugsym *ds, struct dfile *f, const char *module)
{
	char path[4096], bid[MAX_BUILD_ID_HEX + 1];
	struct dfile tmp;
	Elf *e;
	int fd, rc;

	if (!ds->elf_ready) {
		if (elf_version(EV_CURRENT) == EV_NONE)
			return 0;
		ds->elf_ready = true;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", ds->dir,
			     f->build_id, f->build_id + 2) >= sizeof(path))
		return 0;
	e = elf_open(path, &fd);
	if (!e)
		return 0;
	/* a debug file that is not the one it is named after names nothing */
	if (!elf_build_id(e, bid) || strcmp(bid, f->build_id)) {
		elf_close(e, fd);
		return 0;
	}
	rc = elf_syms(e, f);
	elf_loads(e, f);
	elf_close(e, fd);
	if (rc)
		return rc;
	/* the module's own headers, when it is the same build */
	if (module && module[0] == '/' && (e = elf_open(module, &fd))) {
		if (elf_build_id(e, bid) && !strcmp(bid, f->build_id)) {
			elf_loads(e, &tmp);
			if (tmp.nloads) {
				memcpy(f->loads, tmp.loads, sizeof(tmp.loads));
				f->nloads = tmp.nloads;
			}
		}
		elf_close(e, fd);
	}
	f->ok = f->nsyms && f->nloads;
	return 0;
}

static struct dfile *dfile_get(struct frec_debugsym *ds, const char *module, const char *build_id)
{
	struct dfile *f;

	for (f = ds->files; f; f = f->next)
		if (!strcmp(f->build_id, build_id))
			return f;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	snprintf(f->build_id, sizeof(f->build_id), "%s", build_id);
	if (dfile_load(ds, f, module)) {
		/* out of memory: remember nothing, name nothing */
		for (size_t i = 0; i < f->nsyms; i++)
			free(f->syms[i].name);
		free(f->syms);
		f->syms = NULL;
		f->nsyms = 0;
		f->ok = false;
	}
	f->next = ds->files;
	ds->files = f;
	return f;
}

int frec_debugsym__name(struct frec_debugsym *ds, const char *module, const char *build_id,
			__u64 file_offset, const char **sym, __u64 *sym_offset)
{
	struct dfile *f;
	size_t lo, hi;
	__u64 addr = 0;
	bool mapped = false;

	if (!ds || !build_id || !valid_build_id(build_id))
		return -ENOENT;
	f = dfile_get(ds, module, build_id);
	if (!f || !f->ok)
		return -ENOENT;
	for (unsigned int i = 0; i < f->nloads; i++) {
		const struct dload *l = &f->loads[i];

		if (file_offset >= l->offset && file_offset - l->offset < l->filesz) {
			addr = file_offset - l->offset + l->vaddr;
			mapped = true;
			break;
		}
	}
	if (!mapped)
		return -ENOENT;
	/* the last symbol at or below addr, which must contain it */
	lo = 0;
	hi = f->nsyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo > 0) {
		const struct dsym *s = &f->syms[lo - 1];

		if (s->addr + s->size > addr || (!s->size && s->addr == addr)) {
			*sym = s->name;
			*sym_offset = addr - s->addr;
			return 0;
		}
		/* aliases at the same address may differ in size */
		if (lo >= 2 && f->syms[lo - 2].addr == s->addr) {
			lo--;
			continue;
		}
		break;
	}
	return -ENOENT;
}
