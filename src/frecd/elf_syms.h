/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The function symbols of one ELF file, for the user frames of --stacks:
 * from .symtab, else from .dynsym plus the .symtab of .gnu_debugdata (an
 * xz-compressed ELF, "MiniDebugInfo", that distributions keep in stripped
 * binaries), sorted by address, with the file's loadable segments so that
 * a file offset (what a mapping gives) finds its virtual address. A frame
 * is named only when it falls inside a symbol (its size, or up to the next
 * symbol when it has none): never a wrong name.
 *
 * Threads: built by one thread (the symbolizer's helper); immutable
 * afterwards, any thread may look up.
 */
#ifndef FRECD_ELF_SYMS_H
#define FRECD_ELF_SYMS_H

#include <stddef.h>
#include <linux/types.h>

struct elf_file;
struct elf_syms;

/* Where the symbols came from (bits). */
#define ELF_SYMS_SYMTAB		(1u << 0)
#define ELF_SYMS_DYNSYM		(1u << 1)
#define ELF_SYMS_DEBUGDATA	(1u << 2)

/* Read ef's symbols and segments (ef may be closed afterwards). NULL with
 * errno set (ENOMEM). A file without symbols gives an empty table. */
struct elf_syms *elf_syms__read(const struct elf_file *ef);
void elf_syms__free(struct elf_syms *s);

size_t elf_syms__count(const struct elf_syms *s);
unsigned int elf_syms__sources(const struct elf_syms *s);
size_t elf_syms__bytes(const struct elf_syms *s);

/* The virtual address file offset off is loaded at: 0, or -ERANGE when no
 * loadable segment holds it. */
int elf_syms__offset_to_addr(const struct elf_syms *s, __u64 off, __u64 *addr);
/*
 * The load bias (address less virtual address) that puts file offset off,
 * inside an executable loadable segment, at address ip in a process: 0 and
 * *bias; -ERANGE when no such segment holds off; -EINVAL when the file
 * cannot be mapped so (a bias that is not whole pages of size page, or a
 * fixed-address executable not at its own addresses).
 */
int elf_syms__load_bias(const struct elf_syms *s, __u64 off, __u64 ip, __u64 page,
			__u64 *bias);
/*
 * The i-th (from 0) executable loadable segment as the kernel maps it at
 * bias: [*start, *end) with the file offset *pgoff that start maps, as a
 * line of /proc/PID/maps would show it. 0, or -ENOENT past the last.
 */
int elf_syms__exec_segment(const struct elf_syms *s, size_t i, __u64 bias, __u64 page,
			   __u64 *start, __u64 *end, __u64 *pgoff);
/* The function at virtual address addr: 0 with *name (lives as long as s)
 * and *offset, or -ENOENT. */
int elf_syms__lookup(const struct elf_syms *s, __u64 addr, const char **name, __u64 *offset);

#endif /* FRECD_ELF_SYMS_H */
