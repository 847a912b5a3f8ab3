// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Per-CPU arrays grown on demand; see percpu.h. */
#include <stdlib.h>
#include <string.h>
#include "percpu.h"

void *frec_percpu__grow(void *arr, __u32 *n, __u32 cpu, size_t elem)
{
	char *a;

	if (cpu < *n)
		return arr;
	a = realloc(arr, ((size_t)cpu + 1) * elem);
	if (!a)
		return NULL;
	memset(a + (size_t)*n * elem, 0, ((size_t)cpu + 1 - *n) * elem);
	*n = cpu + 1;
	return a;
}
