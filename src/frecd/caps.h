/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * frecd's capabilities: the effective set as the kernel shows it, and the
 * one line that says which of those BPF needs are missing and how to grant
 * them. The loader (loader.c, bpf_rings.c) and frecd --check (check.c) read
 * them; any thread may call these (each reads /proc/self/status afresh).
 */
#ifndef FRECD_CAPS_H
#define FRECD_CAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* The effective set, from /proc/self/status ("CapEff:\t000001ffffffffff"):
 * bit n is capability n. 0 when it cannot be read. */
__u64 frecd_caps__effective(void);

/* Whether caps let frecd load BPF: CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN
 * (before 5.8 there is no CAP_BPF and CAP_SYS_ADMIN covers everything). */
bool frecd_caps__enough(__u64 caps);

/*
 * The kernel refused BPF (EPERM): the cause and the fix in err, naming the
 * missing ones of CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN (or asking for root
 * when frecd does not run as root). Always -EPERM.
 */
int frecd_caps__error(char *err, size_t errlen);

#endif /* FRECD_CAPS_H */
