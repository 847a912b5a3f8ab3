/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Per-CPU arrays grown on demand: the tools learn the CPUs from the events
 * (a snapshot's header may name fewer than its events use), so each array
 * of per-CPU state grows to the highest CPU seen, its new entries zeroed.
 * Any thread, on arrays it owns.
 */
#ifndef FREC_TOOLS_PERCPU_H
#define FREC_TOOLS_PERCPU_H

#include <stddef.h>
#include <frec/snapshot.h>

/* arr holds *n entries of elem bytes; make it hold entry cpu (below
 * FREC_MAX_CPUS: the caller checks), the new entries zeroed. Returns the
 * array, perhaps moved, with *n raised; NULL when memory ran out (arr and
 * *n are then unchanged). */
void *frec_percpu__grow(void *arr, __u32 *n, __u32 cpu, size_t elem);

#endif /* FREC_TOOLS_PERCPU_H */
