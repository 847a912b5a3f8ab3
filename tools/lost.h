/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Records lost, per CPU: from the lost events walked (the exporters) or the
 * drops of each generation (info). The count of a CPU beyond the highest
 * one seen is 0; records lost on no known CPU (FREC_CPU_UNKNOWN) are in the
 * total only. One owner, any thread.
 */
#ifndef FREC_TOOLS_LOST_H
#define FREC_TOOLS_LOST_H

#include <frec/snapshot.h>

struct frec_lost {
	__u64 *by_cpu;
	__u32 ncpus;		/* highest CPU counted + 1 */
	__u64 total;
};

void frec_lost__init(struct frec_lost *l);
void frec_lost__fini(struct frec_lost *l);
/* count records lost on cpu (a count of 0 still makes the CPU known):
 * 0, or -ENOMEM with nothing counted. */
int frec_lost__add(struct frec_lost *l, __u32 cpu, __u64 count);
__u64 frec_lost__cpu(const struct frec_lost *l, __u32 cpu);
/* The CPUs to list: the header's, or as many as records were lost on. */
__u32 frec_lost__ncpus(const struct frec_lost *l, const struct frec_header *h);

#endif /* FREC_TOOLS_LOST_H */
