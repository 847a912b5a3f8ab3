// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The open generation's stack and mapping tables (see stacks.h): open
 * addressing with linear probing over preallocated arrays, one anonymous
 * mapping for all of them.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <frec/record.h>
#include <frec/snapshot.h>
#include "stacks.h"

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

int stacks_init(struct stack_table *t, uint32_t max, uint32_t max_frames)
{
	uint32_t nslots = 16;
	size_t off = 0, o_slots, o_ents, o_ips, o_res, o_mslots, o_maps, o_arena;
	uint8_t *mem;

	memset(t, 0, sizeof(*t));
	if (!max || !max_frames || max > (1u << 28) || max_frames > (1u << 28))
		return -EINVAL;
	while (nslots < 2 * max)
		nslots *= 2;
	o_slots = off;
	off = align8(off + (size_t)nslots * sizeof(*t->slots));
	o_ents = off;
	off = align8(off + (size_t)max * sizeof(*t->ents));
	o_ips = off;
	off = align8(off + (size_t)max_frames * sizeof(*t->ips));
	o_res = off;
	off = align8(off + (size_t)max_frames * sizeof(*t->res));
	o_mslots = off;
	off = align8(off + STACK_MAPS_SLOTS * sizeof(*t->map_slots));
	o_maps = off;
	off = align8(off + STACK_MAPS_MAX * sizeof(*t->maps));
	o_arena = off;
	off += STACK_MAPS_ARENA;

	/* Zero pages that the kernel backs only when first written: the
	 * hash slots start free, and the rest is written before it is read. */
	mem = mmap(NULL, off, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		   -1, 0);
	if (mem == MAP_FAILED)
		return -ENOMEM;
	t->mem = mem;
	t->mem_bytes = off;
	t->max = max;
	t->max_frames = max_frames;
	t->mask = nslots - 1;
	t->slots = (uint32_t *)(mem + o_slots);
	t->ents = (struct stack_ent *)(mem + o_ents);
	t->ips = (uint64_t *)(mem + o_ips);
	t->res = (struct stack_res *)(mem + o_res);
	t->map_slots = (uint32_t *)(mem + o_mslots);
	t->maps = (struct stack_map *)(mem + o_maps);
	t->map_arena = (char *)(mem + o_arena);
	return 0;
}

void stacks_fini(struct stack_table *t)
{
	if (t->mem)
		munmap(t->mem, t->mem_bytes);
	memset(t, 0, sizeof(*t));
}

void stacks_reset(struct stack_table *t)
{
	/* Only the slots used: a generation with few stacks resets fast. */
	for (uint32_t i = 0; i < t->n; i++)
		t->slots[t->ents[i].slot] = 0;
	for (uint32_t i = 0; i < t->nmaps; i++)
		t->map_slots[t->maps[i].slot] = 0;
	t->n = 0;
	t->nframes = 0;
	t->nmaps = 0;
	t->maps_used = 0;
}

static inline uint64_t mix64(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

/* The frames in four independent lanes: the multiplies of one lane wait
 * for each other, those of four lanes overlap (a 64-frame stack is hashed
 * in about a quarter of the time of one chain). */
static uint64_t hash_ips(const uint64_t *ips, uint32_t n, uint64_t seed)
{
	uint64_t a = seed, b = ~seed, c = seed ^ 0x5bd1e995, d = seed + n;
	uint32_t k = 0;

	for (; k + 4 <= n; k += 4) {
		a = (a ^ ips[k]) * 0x9e3779b97f4a7c15ull;
		b = (b ^ ips[k + 1]) * 0xc2b2ae3d27d4eb4full;
		c = (c ^ ips[k + 2]) * 0x165667b19e3779f9ull;
		d = (d ^ ips[k + 3]) * 0xd6e8feb86659fd93ull;
	}
	for (; k < n; k++)
		a = mix64(a, ips[k]);
	return mix64(mix64(mix64(a, b >> 29 | b << 35), c >> 17 | c << 47), d);
}

uint32_t stacks_intern(struct stack_table *t, unsigned kind, uint32_t tgid, uint64_t image,
		       const uint64_t *ips, uint32_t n)
{
	uint64_t h = hash_ips(ips, n, mix64(mix64(mix64(kind, n), tgid), image));
	struct stack_ent *e;
	uint32_t i, hash;

	hash = (uint32_t)(h ^ (h >> 32));
	for (i = hash & t->mask;; i = (i + 1) & t->mask) {
		uint32_t v = t->slots[i];

		if (!v)
			break;
		e = &t->ents[v - 1];
		if (e->hash == hash && e->nframes == n && e->kind == kind && e->tgid == tgid &&
		    e->image == image && !memcmp(&t->ips[e->first], ips, n * sizeof(*ips)))
			return v;
	}
	if (t->n >= t->max || n > t->max_frames - t->nframes)
		return 0;
	e = &t->ents[t->n];
	e->image = image;
	e->tgid = tgid;
	e->hash = hash;
	e->first = t->nframes;
	e->slot = i;
	e->nframes = (uint16_t)n;
	e->kind = (uint8_t)kind;
	memcpy(&t->ips[t->nframes], ips, n * sizeof(*ips));
	t->nframes += n;
	t->slots[i] = ++t->n;
	return t->n;
}

static uint32_t str_hash(const char *s, size_t n, uint32_t h)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	return h;
}

uint32_t stacks_map(struct stack_table *t, const char *path, const char *build_id)
{
	size_t pn = strnlen(path, STACK_PATH_MAX), bn;
	struct stack_map *m;
	uint32_t i, hash;

	build_id = build_id ? build_id : "";
	bn = strnlen(build_id, STACK_BUILD_ID_MAX);
	if (pn == STACK_PATH_MAX || bn == STACK_BUILD_ID_MAX)
		return 0;
	hash = str_hash(build_id, bn, str_hash(path, pn, 2166136261u) ^ 0xff);
	for (i = hash & (STACK_MAPS_SLOTS - 1);; i = (i + 1) & (STACK_MAPS_SLOTS - 1)) {
		uint32_t v = t->map_slots[i];

		if (!v)
			break;
		m = &t->maps[v - 1];
		if (m->hash == hash && m->path_len == pn && m->bid_len == bn &&
		    !memcmp(t->map_arena + m->path, path, pn) &&
		    !memcmp(t->map_arena + m->bid, build_id, bn))
			return v;
	}
	if (t->nmaps >= STACK_MAPS_MAX || pn + bn + 2 > STACK_MAPS_ARENA - t->maps_used)
		return 0;
	m = &t->maps[t->nmaps];
	m->hash = hash;
	m->slot = i;
	m->path = t->maps_used;
	m->path_len = (uint32_t)pn;
	memcpy(t->map_arena + m->path, path, pn);
	t->map_arena[m->path + pn] = '\0';
	m->bid = m->path + (uint32_t)pn + 1;
	m->bid_len = (uint32_t)bn;
	memcpy(t->map_arena + m->bid, build_id, bn);
	t->map_arena[m->bid + bn] = '\0';
	t->maps_used += (uint32_t)(pn + bn + 2);
	t->map_slots[i] = ++t->nmaps;
	return t->nmaps;
}
