/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Kernel symbols for the kernel frames of --stacks: the text symbols of
 * /proc/kallsyms (the kernel's and its modules', the latter named
 * "func [module]"), sorted by address, looked up as "the function an
 * address is in". /proc/kallsyms shows every address as 0 to a reader
 * without CAP_SYSLOG (kptr_restrict): such a table has no entries and says
 * so (frecd_ksyms__readable()), and no frame gets a name rather than a
 * wrong one; nor does an address outside the kernel's text and the
 * modules' memory (a BPF program, a module loaded later).
 *
 * Threads: built once by any thread; immutable afterwards, so lookups may
 * come from any thread without a lock.
 */
#ifndef FRECD_KSYMS_H
#define FRECD_KSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define FRECD_KALLSYMS	"/proc/kallsyms"
#define FRECD_MODULES	"/proc/modules"

struct frecd_ksyms;

/* The table of kallsyms text (len bytes, not NUL-terminated). Lines that
 * are not symbols are skipped. NULL with errno set (ENOMEM). */
struct frecd_ksyms *frecd_ksyms__parse(const char *text, size_t len);
/* The same from a file (FRECD_KALLSYMS), with the modules' extents from
 * modules (FRECD_MODULES; NULL or missing: none). NULL with errno set. */
struct frecd_ksyms *frecd_ksyms__load(const char *path, const char *modules);
/*
 * Where module symbols may name an address: /proc/modules' text (name,
 * size, address of each loaded module). Without it no module frame is
 * named; kernel frames are named only inside [_stext, _etext) when
 * kallsyms has both. 0 or -ENOMEM.
 */
int frecd_ksyms__add_modules(struct frecd_ksyms *ks, const char *text, size_t len);
void frecd_ksyms__free(struct frecd_ksyms *ks);

/* Whether any address was shown: false when kallsyms hid them all. */
bool frecd_ksyms__readable(const struct frecd_ksyms *ks);
size_t frecd_ksyms__count(const struct frecd_ksyms *ks);
/* Bytes the table holds. */
size_t frecd_ksyms__bytes(const struct frecd_ksyms *ks);

/* The symbol ip is in: 0 with *name and *offset (ip - its address), or
 * -ENOENT (before the first symbol, or no addresses). *name lives as
 * long as ks. */
int frecd_ksyms__lookup(const struct frecd_ksyms *ks, __u64 ip, const char **name,
			__u64 *offset);

#endif /* FRECD_KSYMS_H */
