/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Just enough of an ELF file, read with libelf, to validate a user probe
 * before anything is attached: function symbols (and whether the file is
 * stripped), virtual address to file offset (what the kernel's uprobe wants),
 * the GNU build-id and the SystemTap USDT notes.
 *
 * Threads: whichever checks a probe (main's at start, the loop's on a
 * reload) or learns a file's symbols (the stacks symbolizer's helper); one
 * struct elf_file is not shared.
 */
#ifndef FREC_ELF_FILE_H
#define FREC_ELF_FILE_H

#include <stddef.h>
#include <linux/types.h>

struct elf_file;

/* Open path read-only. NULL with errno set: ENOENT (and the other open()
 * errors), ENOEXEC when it is not an ELF file, EINVAL when it is an ELF file
 * but not an executable or shared object (e.g. a .o or a core file). */
struct elf_file *elf_file__open(const char *path);
/* The same from a file already open for reading (a probe's file, opened
 * once: probe_path.h); fd is read with pread and mmap, never closed. */
struct elf_file *elf_file__open_fd(int fd);
void elf_file__close(struct elf_file *ef);

/* The libelf handle, for readers of more than this file offers
 * (elf_syms.h); lives as long as ef. */
struct Elf *elf_file__elf(const struct elf_file *ef);

/* Has a .symtab section; without one only the dynamic symbols are known,
 * which is what "stripped" means to a user. */
int elf_file__has_symtab(const struct elf_file *ef);

enum elf_func_status {
	ELF_FUNC_FOUND = 0,
	ELF_FUNC_MISSING,	/* no symbol by that name at all */
	ELF_FUNC_NOT_FUNC,	/* a symbol, but data (STT_OBJECT, ...) */
	ELF_FUNC_UNDEFINED,	/* only an import: defined in another library */
	ELF_FUNC_IFUNC,		/* an IFUNC resolver, not the implementation */
	ELF_FUNC_AMBIGUOUS,	/* several local functions with different addresses */
};

struct elf_func {
	__u64 addr;		/* st_value: virtual address as objdump shows it */
	__u64 size;		/* st_size, 0 when unknown */
	int global;		/* STB_GLOBAL or STB_WEAK */
	int count;		/* ELF_FUNC_AMBIGUOUS: how many candidates */
};

/* Look name up in .symtab, then .dynsym. A versioned name ("malloc@@GLIBC_2.2.5")
 * matches its plain name. Global and weak definitions win over local ones. */
enum elf_func_status elf_file__find_func(const struct elf_file *ef, const char *name,
					 struct elf_func *fn);

/* The file offset of a virtual address inside an executable PT_LOAD segment:
 * what uprobes attach to. 0, or -ERANGE when no such segment holds addr. */
int elf_file__addr_to_offset(const struct elf_file *ef, __u64 addr, __u64 *off);

/* NT_GNU_BUILD_ID as lower-case hex into buf; "" when there is none.
 * Returns the length of the string. */
size_t elf_file__build_id(const struct elf_file *ef, char *buf, size_t len);

/* One SystemTap SDT note (.note.stapsdt). Strings point into the file's data
 * and live as long as ef. */
struct elf_usdt_note {
	const char *provider;
	const char *name;
	const char *args;	/* "-4@%edi 8@%rax ...", one token per argument */
	__u64 pc;
	__u64 semaphore;	/* address, 0 when the probe has none */
};

typedef int (*elf_usdt_fn)(const struct elf_usdt_note *note, void *ctx);

/* Call fn for every USDT note, in file order; stops early and returns fn's
 * value when fn returns non-zero. 0 when every note was visited. */
int elf_file__for_each_usdt(const struct elf_file *ef, elf_usdt_fn fn, void *ctx);

/* Number of arguments a USDT argument string describes. */
unsigned int elf_usdt_args__count(const char *args);

#endif /* FREC_ELF_FILE_H */
