// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The flight-recorder window: sealed generations, oldest to newest, each a
 * ready-to-write block in a chunk chain; eviction by age and bytes; early
 * eviction when the pool runs dry; pins that keep blocks alive while a
 * snapshot is written.
 *
 * The window rule (Go's flight recorder; docs/FORMAT.md "Window"): walk from
 * the newest sealed generation to the oldest. The newest is always kept. An
 * older generation g is kept while both hold:
 *   - age:   now - g.end_ts < min_age_ns (g still holds events younger than
 *            min_age: dropping it would leave less than min_age of history);
 *   - bytes: the chunks of the kept generations plus g's fit in
 *            window_chunks, the pool less what a largest open generation
 *            and its seal may need (less, when the newest seal's tables
 *            took more than the room planned for them: window_room()).
 * The first generation that fails either test is evicted with every older
 * one. So the window covers at least min_age when max_bytes allows, and at
 * most min_age plus one period. Unlike Go's, the bytes test counts memory,
 * the open generation included: the window, the generation being recorded
 * and the block being sealed all live in the pool, which is max_bytes
 * rounded down to whole chunks, so a snapshot (which seals first) never
 * holds more than max_bytes.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/uio.h>
#include "recorder_int.h"

/* A slot given back, else the next never used one: the slots array is
 * touched only as far as the window has needed. */
struct sealed_gen *window_slot_get(struct frec_recorder *r)
{
	struct sealed_gen *sg = r->gen_free;

	if (sg)
		r->gen_free = sg->newer;
	else if (r->slots_used < r->nslots)
		sg = &r->gen_slots[r->slots_used++];
	return sg;
}

static void slot_put(struct frec_recorder *r, struct sealed_gen *sg)
{
	sg->newer = r->gen_free;
	r->gen_free = sg;
}

static void gen_release(struct frec_recorder *r, struct sealed_gen *sg)
{
	pool_put_chain(&r->pool, sg->head);
	slot_put(r, sg);
}

void window_append(struct frec_recorder *r, struct sealed_gen *sg)
{
	sg->in_window = true;
	sg->refs = 0;
	sg->newer = NULL;
	sg->older = r->newest;
	if (r->newest)
		r->newest->newer = sg;
	else
		r->oldest = sg;
	r->newest = sg;
	r->st.window_generations++;
	r->st.window_bytes += sg->bytes;
	r->st.window_events += sg->nevents;
}

/* Drop the oldest generation from the window; its chunks go back to the
 * pool now, or at the last unpin. */
static void evict_oldest(struct frec_recorder *r, bool early)
{
	struct sealed_gen *sg = r->oldest;

	r->oldest = sg->newer;
	if (r->oldest)
		r->oldest->older = NULL;
	else
		r->newest = NULL;
	sg->in_window = false;
	r->st.window_generations--;
	r->st.window_bytes -= sg->bytes;
	r->st.window_events -= sg->nevents;
	r->st.generations_evicted++;
	if (early)
		r->st.early_evictions++;
	if (!sg->refs)
		gen_release(r, sg);
}

/*
 * Drop the references of the generations each pin's writer is done with.
 * A generation out of the window is freed at its last reference; one still
 * in the window stays. 1 if any chunk came back.
 */
static bool pins_reclaim(struct frec_recorder *r)
{
	uint32_t nfree = r->pool.nfree;

	for (struct frec_pin *p = r->pins; p; p = p->next) {
		uint32_t done = __atomic_load_n(&p->written, __ATOMIC_ACQUIRE);

		while (p->released < done) {
			struct sealed_gen *sg = p->gens[p->released++];

			if (!--sg->refs && !sg->in_window)
				gen_release(r, sg);
		}
	}
	return r->pool.nfree != nfree;
}

/* Chunks the window may hold now: window_chunks, less what the tables of
 * the newest seal took beyond the room planned for them (recorder_int.h). */
uint64_t window_room(const struct frec_recorder *r)
{
	uint32_t more = r->table_chunks - r->table_chunks_min;

	return more < r->window_chunks ? r->window_chunks - more : 0;
}

void window_evict(struct frec_recorder *r, uint64_t now)
{
	struct sealed_gen *sg, *keep;
	uint64_t held, room = window_room(r);

	if (r->pins)
		pins_reclaim(r);
	if (!r->newest)
		return;
	keep = r->newest;
	held = keep->nchunks;
	for (sg = keep->older; sg; sg = sg->older) {
		bool young = now < sg->end_ts || now - sg->end_ts < r->min_age_ns;

		if (!young || held + sg->nchunks > room) {
			/* young: the bytes cut the window below min_age */
			r->st.window_cut = young ? 1 : 0;
			break;
		}
		held += sg->nchunks;
		keep = sg;
	}
	while (r->oldest != keep)
		evict_oldest(r, false);
}

/*
 * A chunk for the recorder. When the pool is dry, take back what snapshots
 * have written meanwhile; still dry (a miss), evict the oldest sealed
 * generation early and retry, as long as that frees memory: a pinned
 * generation frees nothing until its snapshot has written it, so eviction
 * stops at the first pinned one and the caller discards what it wanted to
 * store.
 */
uint32_t rec_chunk_get(struct frec_recorder *r)
{
	uint32_t c = pool_get(&r->pool);

	if (likely(c != CHUNK_NONE))
		return c;
	if (r->pins && pins_reclaim(r))
		return pool_get(&r->pool);
	r->st.pool_misses++;
	while (r->oldest && !r->oldest->refs) {
		r->st.window_cut = 1;
		evict_oldest(r, true);
		c = pool_get(&r->pool);
		if (c != CHUNK_NONE)
			return c;
	}
	return CHUNK_NONE;
}

void window_free_all(struct frec_recorder *r)
{
	while (r->oldest)
		evict_oldest(r, false);
}

struct frec_pin *frec_recorder__pin(struct frec_recorder *r)
{
	struct frec_pin *pin;
	struct sealed_gen *sg;
	uint32_t ngens = 0, nchunks = 0, i = 0, k = 0;

	for (sg = r->oldest; sg; sg = sg->newer) {
		ngens++;
		nchunks += sg->nchunks;
	}
	pin = calloc(1, sizeof(*pin));
	if (!pin)
		return NULL;
	pin->gens = malloc(sizeof(*pin->gens) * (ngens ? ngens : 1));
	pin->iov = malloc(sizeof(*pin->iov) * (nchunks ? nchunks : 1));
	pin->gen_iov = malloc(sizeof(*pin->gen_iov) * (ngens + 1));
	if (!pin->gens || !pin->iov || !pin->gen_iov) {
		free(pin->gens);
		free(pin->iov);
		free(pin->gen_iov);
		free(pin);
		errno = ENOMEM;
		return NULL;
	}
	/* The iovecs are built here, in the recorder's thread, so that the
	 * writer thread never reads the pool's chain links. */
	for (sg = r->oldest; sg; sg = sg->newer) {
		sg->refs++;
		pin->gen_iov[i] = k;
		pin->gens[i++] = sg;
		pin->events += sg->nevents;
		pin->lost += sg->lost;
		pin->bytes += sg->bytes;
		for (uint32_t c = sg->head; c != CHUNK_NONE; c = r->pool.next[c]) {
			pin->iov[k].iov_base = pool_ptr(&r->pool, c);
			pin->iov[k].iov_len = r->pool.used[c];
			k++;
		}
	}
	pin->gen_iov[ngens] = k;
	pin->ngens = ngens;
	pin->niov = k;
	pin->next = r->pins;
	r->pins = pin;
	return pin;
}

void frec_recorder__unpin(struct frec_recorder *r, struct frec_pin *pin)
{
	struct frec_pin **pp;

	if (!pin)
		return;
	for (pp = &r->pins; *pp && *pp != pin; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = pin->next;
	for (uint32_t i = pin->released; i < pin->ngens; i++) {
		struct sealed_gen *sg = pin->gens[i];

		if (!--sg->refs && !sg->in_window)
			gen_release(r, sg);
	}
	free(pin->gens);
	free(pin->iov);
	free(pin->gen_iov);
	free(pin);
}

__u64 frec_pin__events(const struct frec_pin *pin)
{
	return pin->events;
}

__u64 frec_pin__lost(const struct frec_pin *pin)
{
	return pin->lost;
}

__u64 frec_pin__bytes(const struct frec_pin *pin)
{
	return pin->bytes;
}
