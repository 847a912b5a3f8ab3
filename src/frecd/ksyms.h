/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Kernel symbols for the kernel frames of --stacks: the text symbols of
 * /proc/kallsyms (the kernel's and its modules', the latter named
 * "func [module]"), sorted by address, looked up as "the function an
 * address is in". /proc/kallsyms shows every address as 0 to a reader
 * without CAP_SYSLOG (kptr_restrict): such a table has no entries and says
 * so (frecd_ksyms__readable()), and no frame gets a name rather than a
 * wrong one.
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

struct frecd_ksyms;

/* The table of kallsyms text (len bytes, not NUL-terminated). Lines that
 * are not symbols are skipped. NULL with errno set (ENOMEM). */
struct frecd_ksyms *frecd_ksyms__parse(const char *text, size_t len);
/* The same from a file (FRECD_KALLSYMS). NULL with errno set. */
struct frecd_ksyms *frecd_ksyms__load(const char *path);
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
