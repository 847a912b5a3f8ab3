/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The open generation's stack table: every distinct kernel or user stack
 * the generation's stack events refer to, stored once (docs/FORMAT.md,
 * section 4), and the mappings its user frames are in (section 5), which
 * seal fills from the symbolizer.
 *
 * A stack's key is its kind and frames; a user stack's also its tgid and
 * the symbolizer's image, so that the same addresses in two processes, or
 * in one process before and after an exec, stay two stacks. The table is
 * a hash of entry indexes over an entry array and a frame arena, all
 * sized once by max_stacks and max_stack_frames and mapped (anonymous,
 * untouched) at start: the kernel backs the pages only as the table fills,
 * and a reset clears only the slots the generation used. No allocation
 * after stacks_init().
 *
 * Called from the recorder's thread only, like the rest of the recorder.
 */
#ifndef FREC_CORE_STACKS_H
#define FREC_CORE_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A frame as seal resolved it, for section 4 (index + 1, 0 = none). */
struct stack_res {
	uint64_t off;		/* kernel: sym_offset; user: file_offset (or the address) */
	uint64_t sym_off;	/* user: sym_offset */
	uint32_t sym1;		/* string index + 1 */
	uint32_t map1;		/* user: mapping index + 1 */
};

struct stack_ent {
	uint64_t image;		/* user: the symbolizer's image, else 0 */
	uint32_t tgid;		/* user: the process, else 0 */
	uint32_t hash;
	uint32_t first;		/* index of its first frame in the arena */
	uint32_t slot;		/* its hash slot, for the reset */
	uint16_t nframes;
	uint8_t kind;		/* FREC_STACK_KERNEL or FREC_STACK_USER */
};

struct stack_map {
	uint32_t path, path_len;	/* in the mapping arena, NUL-terminated */
	uint32_t bid, bid_len;
	uint32_t hash, slot;
};

/* Mappings (section 5) one generation can name, and their strings. */
#define STACK_MAPS_MAX		4096
#define STACK_MAPS_SLOTS	8192
#define STACK_MAPS_ARENA	(1u << 20)
#define STACK_PATH_MAX		4096	/* longer paths are not named */
#define STACK_BUILD_ID_MAX	128

struct stack_table {
	uint32_t max, max_frames;
	uint32_t n, nframes;	/* used */
	uint32_t mask;		/* hash slots - 1 */
	uint32_t *slots;	/* entry index + 1, 0 = free */
	struct stack_ent *ents;
	uint64_t *ips;		/* max_frames */
	struct stack_res *res;	/* max_frames: filled by seal */

	uint32_t nmaps;
	uint32_t maps_used;	/* bytes of the mapping arena */
	uint32_t *map_slots;	/* mapping index + 1 */
	struct stack_map *maps;
	char *map_arena;

	void *mem;
	size_t mem_bytes;
};

/* 0 or -ENOMEM. max and max_frames are at least 1. */
int stacks_init(struct stack_table *t, uint32_t max, uint32_t max_frames);
void stacks_fini(struct stack_table *t);
/* Forget every stack and mapping: for the next generation. */
void stacks_reset(struct stack_table *t);

/*
 * The index + 1 of the stack (kind, tgid, image, ips[0..n)), added if new;
 * 0 when the table has no room for it (full). n is 1..FREC_MAX_STACK_DEPTH.
 */
uint32_t stacks_intern(struct stack_table *t, unsigned kind, uint32_t tgid, uint64_t image,
		       const uint64_t *ips, uint32_t n);

/* The index + 1 of mapping (path, build_id), added if new; 0 when the
 * mapping table is full or the strings are too long. */
uint32_t stacks_map(struct stack_table *t, const char *path, const char *build_id);

static inline const char *stacks_map_path(const struct stack_table *t, uint32_t i)
{
	return t->map_arena + t->maps[i].path;
}

static inline const char *stacks_map_build_id(const struct stack_table *t, uint32_t i)
{
	return t->map_arena + t->maps[i].bid;
}

#endif /* FREC_CORE_STACKS_H */
