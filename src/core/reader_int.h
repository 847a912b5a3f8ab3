/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The snapshot reader's insides, shared by reader.c (the file: header,
 * block framing, CRCs, resynchronisation, inflating), reader_gen.c (a
 * block's summary and tables, and lookups in them) and reader_events.c (the
 * event stream). A struct frec_gen belongs to its reader: whoever holds the
 * reader may use it, one thread at a time. Not installed.
 */
#ifndef FREC_CORE_READER_INT_H
#define FREC_CORE_READER_INT_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <frec/snapshot.h>

#define NONE UINT32_MAX

/* u32 -> u32 open-addressing map, rebuilt for every generation. */
struct u32map {
	uint32_t *keys;
	uint32_t *vals;		/* NONE = free slot */
	uint32_t mask;
	size_t cap;
};

struct gen_mapping {
	const char *path;
	const char *build_id;
};

struct frec_gen {
	struct frec_gen_info info;
	__u64 *drops;
	size_t drops_cap;
	struct frec_thread *threads;
	uint8_t *dup;		/* the thread's tid appears more than once */
	size_t threads_cap, dup_cap;
	struct frec_process *procs;
	size_t procs_cap;
	struct frec_probe_info *probes;
	size_t probes_cap;
	struct frec_trigger_info *trigs;	/* section 6 */
	size_t trigs_cap;
	struct frec_stack *stks;	/* section 4 */
	size_t stks_cap;
	uint32_t *stk_first;	/* each stack's first frame in frames */
	size_t stk_first_cap;
	struct frec_frame *frames;	/* every stack's, back to back */
	size_t frames_cap;
	uint32_t *fmap;		/* per frame: mapping index + 1, until section 5 is read */
	size_t fmap_cap;
	uint32_t nframes;
	struct gen_mapping *maps;	/* section 5 */
	size_t maps_cap;
	struct frec_cgroup_info *cgs;	/* section 2, sorted by id */
	size_t cgs_cap;
	const char **strs;
	uint32_t nstr;
	size_t strs_cap;
	uint32_t *cur;		/* per CPU: running thread index */
	size_t cur_cap;
	uint32_t *recent;	/* per CPU, RECENT_SLOTS: its recent threads
				 * (format.h), in a version 6 wide block */
	size_t recent_cap;
	struct u32map tmap, pmap, prmap, trmap;
	const uint8_t *p, *end;
	uint64_t left;
	uint64_t prev_ts;
	uint32_t version;	/* the file's format version */
	uint32_t cpu_groups;	/* format.h: G of the wide cpu encoding, 0 plain */
	bool recent_on;		/* recent_coded(): recent holds ncpus lists */
	bool bad;
};

/* Grow *arr to hold n elements of size sz; 0 or -ENOMEM. */
static inline int grow(void *arrp, size_t *cap, size_t n, size_t sz)
{
	void **arr = arrp;
	size_t ncap = *cap ? *cap : 16;
	void *p;

	if (n <= *cap)
		return 0;
	while (ncap < n)
		ncap *= 2;
	p = realloc(*arr, ncap * sz);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

static inline int map_reset(struct u32map *m, size_t n)
{
	size_t slots = 16;

	while (slots < n * 2)
		slots *= 2;
	if (slots > m->cap) {
		uint32_t *k = realloc(m->keys, slots * sizeof(*k));

		if (!k)
			return -ENOMEM;
		m->keys = k;
		k = realloc(m->vals, slots * sizeof(*k));
		if (!k)
			return -ENOMEM;
		m->vals = k;
		m->cap = slots;
	}
	m->mask = (uint32_t)slots - 1;
	memset(m->vals, 0xff, slots * sizeof(*m->vals));
	return 0;
}

static inline uint32_t *map_slot(const struct u32map *m, uint32_t key)
{
	uint32_t i = (key * 2654435761u) & m->mask;

	while (m->vals[i] != NONE && m->keys[i] != key)
		i = (i + 1) & m->mask;
	return &m->vals[i];
}

static inline uint32_t map_get(const struct u32map *m, uint32_t key)
{
	return m->cap ? *map_slot(m, key) : NONE;
}

/* Insert unless present; returns the value already there, or NONE. */
static inline uint32_t map_add(struct u32map *m, uint32_t key, uint32_t val)
{
	uint32_t *v = map_slot(m, key);

	if (*v != NONE)
		return *v;
	m->keys[v - m->vals] = key;
	*v = val;
	return NONE;
}

static inline void map_free(struct u32map *m)
{
	free(m->keys);
	free(m->vals);
}

static inline void set_comm(struct frec_thread *t, const char *s)
{
	size_t n = strnlen(s, FREC_COMM_LEN - 1);

	memcpy(t->comm, s, n);
	memset(t->comm + n, 0, FREC_COMM_LEN - n);
}

/* reader_gen.c: parse a block's uncompressed payload (raw_len bytes, the
 * event stream first, events_len of them) into g, ready for
 * frec_gen__next_event(); 0, -EBADMSG or -ENOMEM. gen_free() frees what
 * the generations of a reader allocated. */
int gen_load(struct frec_gen *g, const uint8_t *raw, size_t raw_len, size_t events_len);
void gen_free(struct frec_gen *g);

#endif /* FREC_CORE_READER_INT_H */
