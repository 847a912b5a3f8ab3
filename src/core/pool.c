// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include "pool.h"

int pool_init(struct pool *p, uint32_t chunk_bytes, uint32_t nchunks)
{
	p->chunk_bytes = chunk_bytes;
	p->nchunks = nchunks;
	/* Plain malloc: the memory is mapped lazily, so an idle recorder does
	 * not pay RSS for chunks it has never touched. */
	p->mem = malloc((size_t)chunk_bytes * nchunks);
	p->next = malloc(sizeof(*p->next) * nchunks);
	p->used = calloc(nchunks, sizeof(*p->used));
	if (!p->mem || !p->next || !p->used) {
		pool_fini(p);
		return -ENOMEM;
	}
	/* Low indexes first, so a lightly used pool touches little memory. */
	for (uint32_t i = 0; i < nchunks; i++)
		p->next[i] = i + 1 < nchunks ? i + 1 : CHUNK_NONE;
	p->free_head = nchunks ? 0 : CHUNK_NONE;
	p->nfree = nchunks;
	return 0;
}

void pool_fini(struct pool *p)
{
	free(p->mem);
	free(p->next);
	free(p->used);
	p->mem = NULL;
	p->next = p->used = NULL;
}

void pool_put_chain(struct pool *p, uint32_t c)
{
	while (c != CHUNK_NONE) {
		uint32_t n = p->next[c];

		pool_put(p, c);
		c = n;
	}
}
