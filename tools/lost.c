// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Records lost per CPU; see lost.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lost.h"
#include "percpu.h"

void frec_lost__init(struct frec_lost *l)
{
	memset(l, 0, sizeof(*l));
}

void frec_lost__fini(struct frec_lost *l)
{
	free(l->by_cpu);
	memset(l, 0, sizeof(*l));
}

int frec_lost__add(struct frec_lost *l, __u32 cpu, __u64 count)
{
	if (cpu < FREC_MAX_CPUS) {
		__u64 *c = frec_percpu__grow(l->by_cpu, &l->ncpus, cpu, sizeof(*c));

		if (!c)
			return -ENOMEM;
		l->by_cpu = c;
		c[cpu] += count;
	}
	l->total += count;
	return 0;
}

__u64 frec_lost__cpu(const struct frec_lost *l, __u32 cpu)
{
	return cpu < l->ncpus ? l->by_cpu[cpu] : 0;
}

__u32 frec_lost__ncpus(const struct frec_lost *l, const struct frec_header *h)
{
	__u32 n = h->ncpus > FREC_MAX_CPUS ? FREC_MAX_CPUS : h->ncpus;

	return l->ncpus > n ? l->ncpus : n;
}
