/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * frecd --check: what frecd needs from this machine, found out by trying
 * (`bpftool feature probe` says the tracing program type is missing on
 * kernels where tp_btf works: only loading and attaching tells). One line per
 * item,
 *
 *   ok       ITEM          (what was found)
 *   missing  ITEM          (reason; fix)
 *
 * for the kernel release, the capabilities (CAP_BPF, CAP_PERFMON,
 * CAP_SYS_ADMIN), kernel BTF, the BPF ring buffer, each program type
 * (tp_btf, raw_tp, and the classic tracepoint with tracefs), uprobes (on a
 * function of frecd itself, with a BPF cookie), USDT, frecd's own scheduler
 * programs as configured, and whether the kernel counts the runs it skips
 * (recursion; not needed to run); then one line saying whether frecd can
 * run. The small test programs count their own hits in an array map, so
 * "ok" means loaded, attached and fired.
 *
 * Threads: main's thread only (frecd --check runs nothing else).
 */
#ifndef FRECD_CHECK_H
#define FRECD_CHECK_H

#include <stdio.h>
#include "frecd/options.h"

/* Run every check, print to out. The exit status: 0 when frecd can run with
 * these options (the probes' needs count only when o has probes), 1 if not. */
int frecd_check__run(const struct frecd_options *o, FILE *out);

/* The function the uprobe check probes; exported so that a uprobe can find
 * it in frecd's own text. Does nothing. */
void frecd_check__target(void);

#endif /* FRECD_CHECK_H */
