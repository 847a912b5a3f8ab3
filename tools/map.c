// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* u32 -> u64 hash map; see map.h. */
#include <stdlib.h>
#include <string.h>
#include "map.h"

static inline size_t slot_of(uint32_t key, size_t cap)
{
	/* Fibonacci hashing: tids are small and dense, spread them out. */
	return (size_t)(((uint64_t)key * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

void frec_map__init(struct frec_map *m)
{
	memset(m, 0, sizeof(*m));
}

void frec_map__fini(struct frec_map *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

void frec_map__clear(struct frec_map *m)
{
	if (m->slots)
		memset(m->slots, 0, m->cap * sizeof(*m->slots));
	m->len = 0;
}

uint64_t *frec_map__get(const struct frec_map *m, uint32_t key)
{
	size_t i;

	if (!m->len)
		return NULL;
	for (i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		struct frec_map_slot *s = &m->slots[i];

		if (!s->used)
			return NULL;
		if (s->key == key)
			return &s->val;
	}
}

static int grow(struct frec_map *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64, i;
	struct frec_map_slot *ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return -1;
	for (i = 0; i < m->cap; i++) {
		struct frec_map_slot *s = &m->slots[i];
		size_t j;

		if (!s->used)
			continue;
		for (j = slot_of(s->key, ncap); ns[j].used; j = (j + 1) & (ncap - 1))
			;
		ns[j] = *s;
	}
	free(m->slots);
	m->slots = ns;
	m->cap = ncap;
	return 0;
}

uint64_t *frec_map__put(struct frec_map *m, uint32_t key, bool *created)
{
	size_t i;

	if (created)
		*created = false;
	/* Keep the load under 1/2: probes stay short. */
	if ((m->len + 1) * 2 > m->cap && grow(m))
		return NULL;
	for (i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		struct frec_map_slot *s = &m->slots[i];

		if (s->used && s->key == key)
			return &s->val;
		if (!s->used) {
			s->used = 1;
			s->key = key;
			s->val = 0;
			m->len++;
			if (created)
				*created = true;
			return &s->val;
		}
	}
}

bool frec_map__del(struct frec_map *m, uint32_t key)
{
	size_t i, j, mask;

	if (!m->len)
		return false;
	mask = m->cap - 1;
	for (i = slot_of(key, m->cap);; i = (i + 1) & mask) {
		if (!m->slots[i].used)
			return false;
		if (m->slots[i].key == key)
			break;
	}
	/* Backward-shift: move later members of the cluster into the hole when
	 * their home slot does not lie cyclically in (hole, current]. */
	for (j = i;;) {
		size_t home;

		m->slots[i].used = 0;
		for (;;) {
			j = (j + 1) & mask;
			if (!m->slots[j].used)
				goto out;
			home = slot_of(m->slots[j].key, m->cap);
			if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
				continue;
			break;
		}
		m->slots[i] = m->slots[j];
		i = j;
	}
out:
	m->len--;
	return true;
}

bool frec_map__next(const struct frec_map *m, size_t *pos, uint32_t *key, uint64_t *val)
{
	while (*pos < m->cap) {
		const struct frec_map_slot *s = &m->slots[(*pos)++];

		if (s->used) {
			if (key)
				*key = s->key;
			if (val)
				*val = s->val;
			return true;
		}
	}
	return false;
}
