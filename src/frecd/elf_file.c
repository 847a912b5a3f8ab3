// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "frecd/elf_file.h"

#ifndef NT_STAPSDT
#define NT_STAPSDT 3
#endif

struct elf_file {
	int fd;
	bool owns_fd;		/* opened here, closed with ef */
	Elf *elf;
	GElf_Ehdr ehdr;
};

/* Read the ELF file open at fd; ef->fd is closed at the end iff owns_fd. */
static struct elf_file *open_fd(int fd, bool owns_fd)
{
	struct elf_file *ef;
	int err;

	ef = calloc(1, sizeof(*ef));
	if (!ef) {
		err = errno;
		goto err_fd;
	}
	ef->fd = fd;
	ef->owns_fd = owns_fd;
	/* elf_version() must be called once before any other libelf call;
	 * calling it again is harmless. */
	elf_version(EV_CURRENT);
	ef->elf = elf_begin(ef->fd, ELF_C_READ_MMAP, NULL);
	if (!ef->elf || elf_kind(ef->elf) != ELF_K_ELF || !gelf_getehdr(ef->elf, &ef->ehdr)) {
		err = ENOEXEC;
		goto err_close;
	}
	if (ef->ehdr.e_type != ET_EXEC && ef->ehdr.e_type != ET_DYN) {
		err = EINVAL;
		goto err_close;
	}
	return ef;

err_close:
	if (ef->elf)
		elf_end(ef->elf);
	free(ef);
err_fd:
	if (owns_fd)
		close(fd);
	errno = err;
	return NULL;
}

struct elf_file *elf_file__open(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	return fd < 0 ? NULL : open_fd(fd, true);
}

struct elf_file *elf_file__open_fd(int fd)
{
	return open_fd(fd, false);
}

void elf_file__close(struct elf_file *ef)
{
	if (!ef)
		return;
	elf_end(ef->elf);
	if (ef->owns_fd)
		close(ef->fd);
	free(ef);
}

Elf *elf_file__elf(const struct elf_file *ef)
{
	return ef->elf;
}

static Elf_Scn *find_section_type(const struct elf_file *ef, GElf_Word type, GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(ef->elf, scn))) {
		if (gelf_getshdr(scn, shdr) && shdr->sh_type == type)
			return scn;
	}
	return NULL;
}

int elf_file__has_symtab(const struct elf_file *ef)
{
	GElf_Shdr shdr;

	return find_section_type(ef, SHT_SYMTAB, &shdr) != NULL;
}

/* "malloc" matches "malloc" and "malloc@@GLIBC_2.2.5" / "malloc@GLIBC_2.2.5". */
static int name_matches(const char *sym, const char *name)
{
	size_t n = strlen(name);

	return strncmp(sym, name, n) == 0 && (sym[n] == '\0' || sym[n] == '@');
}

/* What one symbol table says about name. Collected over both tables so that
 * the best explanation wins when nothing usable is found. */
struct func_search {
	const char *name;
	int found_func;		/* a defined STT_FUNC */
	int found_ifunc;
	int found_data;
	int found_undef;
	struct elf_func best;
	int nlocal;		/* distinct local addresses seen */
	__u64 local_addr;
};

static void search_table(const struct elf_file *ef, Elf_Scn *scn, const GElf_Shdr *shdr,
			 struct func_search *s)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, n;

	if (!data || !shdr->sh_entsize)
		return;
	n = shdr->sh_size / shdr->sh_entsize;
	for (i = 0; i < n; i++) {
		GElf_Sym sym;
		const char *sname;
		int type, bind;

		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		sname = elf_strptr(ef->elf, shdr->sh_link, sym.st_name);
		if (!sname || !name_matches(sname, s->name))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		bind = GELF_ST_BIND(sym.st_info);
		if (sym.st_shndx == SHN_UNDEF) {
			s->found_undef = 1;
			continue;
		}
		if (type == STT_GNU_IFUNC) {
			s->found_ifunc = 1;
			continue;
		}
		if (type != STT_FUNC) {
			s->found_data = 1;
			continue;
		}
		if (bind == STB_GLOBAL || bind == STB_WEAK) {
			/* The first global definition wins; a later table
			 * (.dynsym) repeats the same symbol. */
			if (!s->best.global) {
				s->best.addr = sym.st_value;
				s->best.size = sym.st_size;
				s->best.global = 1;
			}
		} else if (!s->best.global) {
			if (!s->nlocal || sym.st_value != s->local_addr) {
				s->nlocal++;
				s->local_addr = sym.st_value;
				s->best.addr = sym.st_value;
				s->best.size = sym.st_size;
			}
		}
		s->found_func = 1;
	}
}

enum elf_func_status elf_file__find_func(const struct elf_file *ef, const char *name,
					 struct elf_func *fn)
{
	struct func_search s = { .name = name };
	GElf_Shdr shdr;
	Elf_Scn *scn;

	if ((scn = find_section_type(ef, SHT_SYMTAB, &shdr)))
		search_table(ef, scn, &shdr, &s);
	if ((scn = find_section_type(ef, SHT_DYNSYM, &shdr)))
		search_table(ef, scn, &shdr, &s);

	memset(fn, 0, sizeof(*fn));
	if (s.found_func) {
		*fn = s.best;
		if (!s.best.global && s.nlocal > 1) {
			fn->count = s.nlocal;
			return ELF_FUNC_AMBIGUOUS;
		}
		fn->count = 1;
		return ELF_FUNC_FOUND;
	}
	if (s.found_ifunc)
		return ELF_FUNC_IFUNC;
	if (s.found_data)
		return ELF_FUNC_NOT_FUNC;
	if (s.found_undef)
		return ELF_FUNC_UNDEFINED;
	return ELF_FUNC_MISSING;
}

int elf_file__addr_to_offset(const struct elf_file *ef, __u64 addr, __u64 *off)
{
	size_t i, n;

	if (elf_getphdrnum(ef->elf, &n))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(ef->elf, (int)i, &ph))
			continue;
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		if (addr >= ph.p_vaddr && addr < ph.p_vaddr + ph.p_filesz) {
			*off = addr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ERANGE;
}

/* Walk every note in every SHT_NOTE section; fn returns non-zero to stop. */
typedef int (*note_fn)(const GElf_Nhdr *nh, const char *owner, const char *desc,
		       void *ctx);

static int for_each_note(const struct elf_file *ef, const char *secname, note_fn fn, void *ctx)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int ret;

	if (elf_getshdrstrndx(ef->elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(ef->elf, scn))) {
		GElf_Shdr shdr;
		Elf_Data *data;
		size_t off = 0, name_off, desc_off;
		GElf_Nhdr nh;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE)
			continue;
		if (secname) {
			const char *sn = elf_strptr(ef->elf, shstrndx, shdr.sh_name);

			if (!sn || strcmp(sn, secname))
				continue;
		}
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			const char *base = data->d_buf;

			ret = fn(&nh, nh.n_namesz ? base + name_off : "", base + desc_off, ctx);
			if (ret)
				return ret;
		}
	}
	return 0;
}

struct build_id_ctx {
	char *buf;
	size_t len;
	size_t n;
};

static int build_id_note(const GElf_Nhdr *nh, const char *owner, const char *desc,
			 void *ctx)
{
	static const char hex[] = "0123456789abcdef";
	struct build_id_ctx *b = ctx;
	size_t i;

	if (nh->n_type != NT_GNU_BUILD_ID || nh->n_namesz != 4 || memcmp(owner, "GNU", 4))
		return 0;
	for (i = 0; i < nh->n_descsz && 2 * i + 2 < b->len; i++) {
		unsigned char c = (unsigned char)desc[i];

		b->buf[2 * i] = hex[c >> 4];
		b->buf[2 * i + 1] = hex[c & 15];
	}
	b->n = 2 * i;
	b->buf[b->n] = '\0';
	return 1;
}

size_t elf_file__build_id(const struct elf_file *ef, char *buf, size_t len)
{
	struct build_id_ctx b = { .buf = buf, .len = len };

	if (!len)
		return 0;
	buf[0] = '\0';
	for_each_note(ef, NULL, build_id_note, &b);
	return b.n;
}

struct usdt_ctx {
	const struct elf_file *ef;
	elf_usdt_fn fn;
	void *ctx;
};

static int usdt_note(const GElf_Nhdr *nh, const char *owner, const char *desc,
		     void *ctx)
{
	struct usdt_ctx *u = ctx;
	struct elf_usdt_note note = {};
	size_t asz = u->ef->ehdr.e_ident[EI_CLASS] == ELFCLASS64 ? 8 : 4;
	const char *p, *end = desc + nh->n_descsz;
	__u64 v[3] = {};
	int i;

	if (nh->n_type != NT_STAPSDT || nh->n_namesz != 8 || memcmp(owner, "stapsdt", 8))
		return 0;
	/* desc: pc, base (of .stapsdt.base), semaphore, then three strings. */
	if (nh->n_descsz < 3 * asz + 3)
		return 0;
	for (i = 0; i < 3; i++) {
		if (asz == 8) {
			memcpy(&v[i], desc + 8 * i, 8);
		} else {
			__u32 w;

			memcpy(&w, desc + 4 * i, 4);
			v[i] = w;
		}
	}
	p = desc + 3 * asz;
	note.provider = p;
	p = memchr(p, '\0', end - p);
	if (!p++ || p >= end)
		return 0;
	note.name = p;
	p = memchr(p, '\0', end - p);
	if (!p++ || p >= end)
		return 0;
	note.args = p;
	if (!memchr(p, '\0', end - p))
		return 0;
	note.pc = v[0];
	note.semaphore = v[2];
	return u->fn(&note, u->ctx);
}

int elf_file__for_each_usdt(const struct elf_file *ef, elf_usdt_fn fn, void *ctx)
{
	struct usdt_ctx u = { .ef = ef, .fn = fn, .ctx = ctx };

	return for_each_note(ef, ".note.stapsdt", usdt_note, &u);
}

unsigned int elf_usdt_args__count(const char *args)
{
	unsigned int n = 0;
	int in_tok = 0;

	for (; *args; args++) {
		if (*args == ' ' || *args == '\t') {
			in_tok = 0;
		} else if (!in_tok) {
			in_tok = 1;
			n++;
		}
	}
	return n;
}
