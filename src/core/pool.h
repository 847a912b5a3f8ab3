/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A pool of equal-size chunks, allocated once. Chunks are named by index;
 * next[] links them into chains (a generation's raw event stream, a sealed
 * block) and into the free list. The pool never grows: when it is empty the
 * caller decides what to evict.
 */
#ifndef FREC_CORE_POOL_H
#define FREC_CORE_POOL_H

#include <stdint.h>

#define CHUNK_NONE UINT32_MAX

struct pool {
	uint8_t *mem;
	uint32_t chunk_bytes;
	uint32_t nchunks;
	uint32_t nfree;
	uint32_t free_head;
	uint32_t *next;		/* chain link of each chunk */
	uint32_t *used;		/* bytes used in each chunk */
};

int pool_init(struct pool *p, uint32_t chunk_bytes, uint32_t nchunks);
void pool_fini(struct pool *p);

/* A free chunk (used = 0, next = CHUNK_NONE), or CHUNK_NONE. */
static inline uint32_t pool_get(struct pool *p)
{
	uint32_t c = p->free_head;

	if (c == CHUNK_NONE)
		return c;
	p->free_head = p->next[c];
	p->nfree--;
	p->next[c] = CHUNK_NONE;
	p->used[c] = 0;
	return c;
}

static inline void pool_put(struct pool *p, uint32_t c)
{
	p->next[c] = p->free_head;
	p->free_head = c;
	p->nfree++;
}

/* Give back a whole chain starting at c. */
void pool_put_chain(struct pool *p, uint32_t c);

static inline uint8_t *pool_ptr(const struct pool *p, uint32_t c)
{
	return p->mem + (size_t)c * p->chunk_bytes;
}

#endif /* FREC_CORE_POOL_H */
