// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Off-CPU time by stack; see offcpu.h. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "frames.h"
#include "map.h"
#include "offcpu.h"
#include "walk.h"

/* An interned stack: its frames and their strings in one allocation. */
struct ostack {
	struct frec_offcpu_stack s;
	__u64 hash;
};

/* A block not yet ended: by tid in pending, index into blocks. */
/* the stack of a block whose switch carried none: counted in the totals only */
#define NO_STACK	UINT32_MAX

struct oblock {
	__u64 ts;
	__u32 stack, pid;
	char comm[FREC_COMM_LEN];
};

struct frec_offcpu {
	struct frec_offcpu_opts o;
	struct ostack *stacks;
	size_t nstacks, scap;
	size_t *stab;			/* hash -> stack index + 1 */
	size_t stab_cap;
	struct frec_offcpu_row *rows;
	size_t nrows, rcap;
	size_t *rtab;			/* (tid, stack) -> row index + 1 */
	size_t rtab_cap;
	struct frec_map pending;	/* tid -> index into blocks */
	struct oblock *blocks;
	size_t nblocks, bcap;
	__u32 *free_blocks;
	size_t nfree;
	struct frec_offcpu_totals totals;
};

struct frec_offcpu *frec_offcpu__new(const struct frec_offcpu_opts *opts)
{
	struct frec_offcpu *oc = calloc(1, sizeof(*oc));

	if (!oc)
		return NULL;
	if (opts)
		oc->o = *opts;
	if (!oc->o.hi)
		oc->o.hi = UINT64_MAX;
	frec_map__init(&oc->pending);
	return oc;
}

void frec_offcpu__free(struct frec_offcpu *oc)
{
	if (!oc)
		return;
	for (size_t i = 0; i < oc->nstacks; i++)
		free((void *)oc->stacks[i].s.frames);
	free(oc->stacks);
	free(oc->stab);
	free(oc->rows);
	free(oc->rtab);
	free(oc->blocks);
	free(oc->free_blocks);
	frec_map__fini(&oc->pending);
	free(oc);
}

void frec_offcpu__set_range(struct frec_offcpu *oc, __u64 lo, __u64 hi)
{
	oc->o.lo = lo;
	oc->o.hi = hi;
}

static void forget_pending(struct frec_offcpu *oc)
{
	frec_map__clear(&oc->pending);
	oc->nblocks = 0;
	oc->nfree = 0;
}

void frec_offcpu__gen(struct frec_offcpu *oc, bool damaged)
{
	if (damaged)
		forget_pending(oc);
}

static __u64 mix(__u64 h, __u64 v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h;
}

static __u64 hash_str(__u64 h, const char *s)
{
	__u64 x = 1469598103934665603ull;

	if (!s)
		return mix(h, 0);
	for (; *s; s++)
		x = (x ^ (unsigned char)*s) * 1099511628211ull;
	return mix(h, x);
}

static __u64 hash_frame(__u64 h, const struct frec_frame *f)
{
	h = hash_str(h, f->sym);
	h = mix(h, f->sym_offset);
	h = hash_str(h, f->module);
	h = hash_str(h, f->build_id);
	return mix(h, f->file_offset);
}

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static bool frame_eq(const struct frec_frame *a, const struct frec_frame *b)
{
	return str_eq(a->sym, b->sym) && a->sym_offset == b->sym_offset &&
	       str_eq(a->module, b->module) && str_eq(a->build_id, b->build_id) &&
	       a->file_offset == b->file_offset;
}

static size_t str_size(const char *s)
{
	return s ? strlen(s) + 1 : 0;
}

static const char *str_put(char **p, const char *s)
{
	char *d;
	size_t n;

	if (!s)
		return NULL;
	n = strlen(s) + 1;
	d = *p;
	memcpy(d, s, n);
	*p += n;
	return d;
}

/* Grow an open-addressing table of indexes + 1 to hold n at half load. */
static int table_fit(size_t **tab, size_t *cap, size_t n)
{
	size_t ncap;

	if (2 * (n + 1) <= *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 256;
	while (2 * (n + 1) > ncap)
		ncap *= 2;
	free(*tab);
	*tab = calloc(ncap, sizeof(**tab));
	*cap = *tab ? ncap : 0;
	return *tab ? 1 : -ENOMEM;
}

static void stab_insert(struct frec_offcpu *oc, size_t idx)
{
	size_t mask = oc->stab_cap - 1, i = oc->stacks[idx].hash & mask;

	while (oc->stab[i])
		i = (i + 1) & mask;
	oc->stab[i] = idx + 1;
}

/* The id of the stack of frames k then u, interned. */
static int intern(struct frec_offcpu *oc, const struct frec_stack *k, const struct frec_stack *u,
		  __u32 *id)
{
	struct frec_frame fr[2 * FREC_MAX_STACK_DEPTH], *copy;
	__u32 nk = 0, n = 0, i;
	size_t bytes, mask, slot;
	struct ostack *st;
	__u64 h = 0;
	char *p;
	int rc;

	if (k)
		for (i = 0; i < k->nframes && n < FREC_MAX_STACK_DEPTH; i++, nk++)
			frec_frame__resolve(&k->frames[i], oc->o.ds, &fr[n++]);
	if (u)
		for (i = 0; i < u->nframes && i < FREC_MAX_STACK_DEPTH; i++)
			frec_frame__resolve(&u->frames[i], oc->o.ds, &fr[n++]);
	h = mix(h, nk);
	for (i = 0; i < n; i++)
		h = hash_frame(h, &fr[i]);
	if (oc->stab_cap) {
		mask = oc->stab_cap - 1;
		for (slot = h & mask; oc->stab[slot]; slot = (slot + 1) & mask) {
			st = &oc->stacks[oc->stab[slot] - 1];
			if (st->hash != h || st->s.nframes != n || st->s.nkernel != nk)
				continue;
			for (i = 0; i < n && frame_eq(&st->s.frames[i], &fr[i]); i++)
				;
			if (i == n) {
				*id = (__u32)(oc->stab[slot] - 1);
				return 0;
			}
		}
	}
	if (oc->nstacks == oc->scap) {
		size_t ncap = oc->scap ? oc->scap * 2 : 64;
		struct ostack *s = realloc(oc->stacks, ncap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		oc->stacks = s;
		oc->scap = ncap;
	}
	bytes = n * sizeof(struct frec_frame);
	for (i = 0; i < n; i++)
		bytes += str_size(fr[i].sym) + str_size(fr[i].module) + str_size(fr[i].build_id);
	copy = malloc(bytes ? bytes : 1);
	if (!copy)
		return -ENOMEM;
	p = (char *)(copy + n);
	for (i = 0; i < n; i++) {
		copy[i] = fr[i];
		copy[i].sym = str_put(&p, fr[i].sym);
		copy[i].module = str_put(&p, fr[i].module);
		copy[i].build_id = str_put(&p, fr[i].build_id);
	}
	st = &oc->stacks[oc->nstacks];
	st->s.nframes = n;
	st->s.nkernel = nk;
	st->s.frames = copy;
	st->hash = h;
	*id = (__u32)oc->nstacks++;
	rc = table_fit(&oc->stab, &oc->stab_cap, oc->nstacks);
	if (rc < 0)
		return rc;
	if (rc > 0)
		for (size_t j = 0; j < oc->nstacks; j++)
			stab_insert(oc, j);
	else
		stab_insert(oc, *id);
	return 0;
}

static size_t row_hash(__u32 tid, __u32 stack)
{
	return (size_t)mix(tid, stack);
}

static void rtab_insert(struct frec_offcpu *oc, size_t idx)
{
	size_t mask = oc->rtab_cap - 1;
	size_t i = row_hash(oc->rows[idx].tid, oc->rows[idx].stack) & mask;

	while (oc->rtab[i])
		i = (i + 1) & mask;
	oc->rtab[i] = idx + 1;
}

static struct frec_offcpu_row *row_get(struct frec_offcpu *oc, __u32 tid, const struct oblock *b)
{
	struct frec_offcpu_row *r;
	size_t mask, i;
	int rc;

	if (oc->rtab_cap) {
		mask = oc->rtab_cap - 1;
		for (i = row_hash(tid, b->stack) & mask; oc->rtab[i]; i = (i + 1) & mask) {
			r = &oc->rows[oc->rtab[i] - 1];
			if (r->tid == tid && r->stack == b->stack)
				return r;
		}
	}
	if (oc->nrows == oc->rcap) {
		size_t ncap = oc->rcap ? oc->rcap * 2 : 64;

		r = realloc(oc->rows, ncap * sizeof(*r));
		if (!r)
			return NULL;
		oc->rows = r;
		oc->rcap = ncap;
	}
	r = &oc->rows[oc->nrows++];
	memset(r, 0, sizeof(*r));
	r->tid = tid;
	r->pid = b->pid;
	r->stack = b->stack;
	memcpy(r->comm, b->comm, FREC_COMM_LEN);
	rc = table_fit(&oc->rtab, &oc->rtab_cap, oc->nrows);
	if (rc < 0)
		return NULL;
	if (rc > 0)
		for (size_t j = 0; j < oc->nrows; j++)
			rtab_insert(oc, j);
	else
		rtab_insert(oc, oc->nrows - 1);
	return r;
}

static int block_begin(struct frec_offcpu *oc, struct frec_walk *w, const struct frec_event *ev)
{
	const struct frec_stack *k, *u;
	char buf[FREC_COMM_LEN + 8];
	__u32 tid = ev->sw.prev_pid, tgid = frec_walk__tgid(w, tid), id, bi;
	struct oblock *b;
	uint64_t *slot;
	bool created;
	int rc;

	if (!tid || !frec_offcpu__blocking(ev->sw.prev_state))
		return 0;
	if ((oc->o.has_tid && tid != oc->o.tid) || (oc->o.has_pid && tgid != oc->o.pid))
		return 0;
	if (ev->ts > oc->o.hi)
		return 0;
	if (!frec_walk__stacks(w, &k, &u))
		id = NO_STACK;
	else if ((rc = intern(oc, k, u, &id)))
		return rc;
	slot = frec_map__put(&oc->pending, tid, &created);
	if (!slot)
		return -ENOMEM;
	if (!created) {
		bi = (__u32)*slot;	/* a switch-in was missed: the new block wins */
	} else if (oc->nfree) {
		bi = oc->free_blocks[--oc->nfree];
	} else {
		if (oc->nblocks == oc->bcap) {
			size_t ncap = oc->bcap ? oc->bcap * 2 : 64;
			struct oblock *nb = realloc(oc->blocks, ncap * sizeof(*nb));
			__u32 *nf = realloc(oc->free_blocks, ncap * sizeof(*nf));

			if (nb)
				oc->blocks = nb;
			if (nf)
				oc->free_blocks = nf;
			if (!nb || !nf) {
				frec_map__del(&oc->pending, tid);
				return -ENOMEM;
			}
			oc->bcap = ncap;
		}
		bi = (__u32)oc->nblocks++;
	}
	*slot = bi;
	b = &oc->blocks[bi];
	b->ts = ev->ts;
	b->stack = id;
	b->pid = tgid;
	snprintf(b->comm, sizeof(b->comm), "%s", frec_walk__comm(w, tid, ev->cpu, buf));
	return 0;
}

static void block_drop(struct frec_offcpu *oc, __u32 tid, uint64_t *slot)
{
	oc->free_blocks[oc->nfree++] = (__u32)*slot;
	frec_map__del(&oc->pending, tid);
}

static int block_end(struct frec_offcpu *oc, __u32 tid, __u64 ts)
{
	uint64_t *slot = frec_map__get(&oc->pending, tid);
	struct frec_offcpu_row *r;
	struct oblock b;
	__u64 from, to;

	if (!slot)
		return 0;
	b = oc->blocks[*slot];
	block_drop(oc, tid, slot);
	from = b.ts > oc->o.lo ? b.ts : oc->o.lo;
	to = ts < oc->o.hi ? ts : oc->o.hi;
	if (to < from || ts < b.ts || (to == from && b.ts != ts))
		return 0;
	oc->totals.blocks++;
	oc->totals.total_ns += to - from;
	if (b.stack == NO_STACK)
		return 0;
	oc->totals.blocks_with_stack++;
	oc->totals.with_stack_ns += to - from;
	r = row_get(oc, tid, &b);
	if (!r)
		return -ENOMEM;
	r->count++;
	r->total_ns += to - from;
	if (to - from > r->max_ns)
		r->max_ns = to - from;
	return 0;
}

int frec_offcpu__event(struct frec_offcpu *oc, struct frec_walk *w, const struct frec_event *ev)
{
	uint64_t *slot;
	int rc;

	switch (ev->type) {
	case FREC_EV_SCHED_SWITCH:
		/* the switch-in first: a thread switched out and in again at
		 * one ts is a new block */
		if ((rc = block_end(oc, ev->sw.next_pid, ev->ts)))
			return rc;
		return block_begin(oc, w, ev);
	case FREC_EV_PROCESS_EXIT:
		if ((slot = frec_map__get(&oc->pending, ev->exit.pid)))
			block_drop(oc, ev->exit.pid, slot);
		return 0;
	case FREC_EV_LOST:
	case FREC_EV_GAP:
		forget_pending(oc);
		return 0;
	default:
		return 0;
	}
}

static int row_cmp(const void *a, const void *b)
{
	const struct frec_offcpu_row *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

void frec_offcpu__finish(struct frec_offcpu *oc)
{
	if (oc->nrows)
		qsort(oc->rows, oc->nrows, sizeof(oc->rows[0]), row_cmp);
	/* the row index is stale now; nothing adds rows after finish */
	free(oc->rtab);
	oc->rtab = NULL;
	oc->rtab_cap = 0;
}

size_t frec_offcpu__nrows(const struct frec_offcpu *oc)
{
	return oc->nrows;
}

const struct frec_offcpu_row *frec_offcpu__row(const struct frec_offcpu *oc, size_t i)
{
	return i < oc->nrows ? &oc->rows[i] : NULL;
}

void frec_offcpu__totals(const struct frec_offcpu *oc, struct frec_offcpu_totals *t)
{
	*t = oc->totals;
}

size_t frec_offcpu__nstacks(const struct frec_offcpu *oc)
{
	return oc->nstacks;
}

const struct frec_offcpu_stack *frec_offcpu__stack(const struct frec_offcpu *oc, __u32 id)
{
	return id < oc->nstacks ? &oc->stacks[id].s : NULL;
}
