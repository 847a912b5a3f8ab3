/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The running kernel's version as LINUX_VERSION_CODE, for the BPF programs'
 * choices that BTF cannot make (bpf/frec.bpf.c, reported_state()): some
 * kernel changes were taken by stable releases, so the sublevel matters,
 * and distributions' release strings (uname -r) often leave it out. Any
 * thread may call it; it reads only the process's own memory and uname().
 */
#ifndef FRECD_KVERSION_H
#define FRECD_KVERSION_H

#include <linux/types.h>

/* (major << 16) + (minor << 8) + sublevel (at most 255, as the kernel caps
 * it), or 0 when it cannot be told. */
__u32 frecd_kversion__get(void);

#endif /* FRECD_KVERSION_H */
