/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A small hash map from a 32-bit key (a tid, a pid, a probe id) to a 64-bit
 * value (a timestamp, an index, a pointer). Open addressing with linear
 * probing and backward-shift deletion, so a long run of puts and deletes
 * (wakeups come and go millions of times) never fills the table with
 * tombstones. The tools keep their state across generations in these.
 */
#ifndef FREC_TOOLS_MAP_H
#define FREC_TOOLS_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct frec_map_slot {
	uint32_t key;
	uint32_t used;
	uint64_t val;
};

struct frec_map {
	struct frec_map_slot *slots;
	size_t cap;		/* power of two, or 0 before the first put */
	size_t len;
};

void frec_map__init(struct frec_map *m);
void frec_map__fini(struct frec_map *m);
void frec_map__clear(struct frec_map *m);	/* keeps the memory */
/* Pointer to the value of key, or NULL. Valid until the next put or del. */
uint64_t *frec_map__get(const struct frec_map *m, uint32_t key);
/* Pointer to the value of key, inserted as 0 when absent (*created set);
 * NULL when memory runs out. Valid until the next put or del. */
uint64_t *frec_map__put(struct frec_map *m, uint32_t key, bool *created);
bool frec_map__del(struct frec_map *m, uint32_t key);

/* Iteration: for (i = 0; frec_map__next(m, &i, &k, &v);) */
bool frec_map__next(const struct frec_map *m, size_t *pos, uint32_t *key, uint64_t *val);

#endif /* FREC_TOOLS_MAP_H */
