// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "tasks.h"

#define HUGE_PAGE	(2u << 20)

/*
 * Zeroed slots for a table. Every event looks a thread up at a random
 * slot: at 100,000 threads the task table is 12 MiB, thousands of 4 KiB
 * pages, so nearly every lookup also misses the TLB, and under
 * virtualisation a page walk costs several memory loads. A table of whole
 * 2 MiB pages is therefore aligned to and advised onto huge pages (with
 * transparent huge pages off, or a failed advice, it stays as it is); one
 * of another size keeps its exact size, which the memory figures count.
 * It is touched now, which the table's use would soon do anyway: a hash
 * spreads even a few entries over every page.
 */
static void *slots_alloc(uint32_t bits, size_t size)
{
	size_t bytes = size << bits;
	void *p;

	if (bytes < HUGE_PAGE || bytes % HUGE_PAGE)
		return calloc(1u << bits, size);
	p = aligned_alloc(HUGE_PAGE, bytes);
	if (!p)
		return NULL;
	(void)madvise(p, bytes, MADV_HUGEPAGE);
	memset(p, 0, bytes);
	return p;
}

/* Slots for a capacity: a power of two at least twice the capacity, so
 * probes stay short at full load. */
static uint32_t slot_bits(uint32_t max)
{
	uint32_t bits = 4;

	while ((1u << bits) < max * 2u && bits < 31)
		bits++;
	return bits;
}

/* Is k (a home slot) cyclically within (i, j]? Then the entry at j may not
 * move to i when i is emptied (backward-shift deletion). */
static inline bool home_between(uint32_t i, uint32_t j, uint32_t k)
{
	return i <= j ? (i < k && k <= j) : (i < k || k <= j);
}

uint64_t tables_slots_max(uint32_t max)
{
	return 1ull << slot_bits(max);
}

static uint32_t init_bits(uint32_t max)
{
	uint32_t bits = slot_bits(max);

	return bits < TABLE_INIT_BITS ? bits : TABLE_INIT_BITS;
}

/* May one more entry go into a table of count entries in mask + 1 slots?
 * Not past the bound, nor past half the slots (what growth keeps). */
static inline bool table_room(uint32_t count, uint32_t mask, uint32_t max)
{
	return count < max && ((uint64_t)count + 1) * 2 <= (uint64_t)mask + 1;
}

/* Bits a table needs for count + n entries, within its bound. */
static uint32_t want_bits(uint32_t count, uint32_t n, uint32_t mask, uint32_t max_bits)
{
	uint64_t need = ((uint64_t)count + n) * 2;
	uint32_t bits = 32 - __builtin_clz(mask + 1) - 1;

	while (bits < max_bits && (1ull << bits) < need)
		bits++;
	return bits;
}

int tasks_init(struct task_table *t, uint32_t max)
{
	uint32_t bits = init_bits(max);

	t->slots = slots_alloc(bits, sizeof(*t->slots));
	if (!t->slots)
		return -ENOMEM;
	t->shift = 32 - bits;
	t->mask = (1u << bits) - 1;
	t->count = 0;
	t->max = max;
	t->max_bits = slot_bits(max);
	t->now = 0;
	return 0;
}

int tasks_reserve(struct task_table *t, uint32_t n)
{
	uint32_t bits = want_bits(t->count, n, t->mask, t->max_bits);
	uint32_t shift = 32 - bits, mask = (1u << bits) - 1;
	struct task *slots;

	if (mask == t->mask)
		return 0;
	slots = slots_alloc(bits, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (uint32_t i = 0; i <= t->mask; i++) {
		uint32_t j;

		if (!t->slots[i].key)
			continue;
		for (j = tasks_hash(~t->slots[i].key, shift); slots[j].key; j = (j + 1) & mask)
			;
		slots[j] = t->slots[i];
	}
	free(t->slots);
	t->slots = slots;
	t->shift = shift;
	t->mask = mask;
	return 0;
}

void tasks_fini(struct task_table *t)
{
	free(t->slots);
	t->slots = NULL;
}

struct task *tasks_find(struct task_table *t, uint32_t tid)
{
	uint32_t i = tasks_hash(tid, t->shift);

	if (tid == TASK_EMPTY)	/* its key would match a free slot */
		return NULL;
	for (;;) {
		struct task *s = &t->slots[i];

		if (s->key == ~tid)
			return s;
		if (!s->key)
			return NULL;
		i = (i + 1) & t->mask;
	}
}

struct task *tasks_get(struct task_table *t, uint32_t tid, bool *inserted)
{
	uint32_t i = tasks_hash(tid, t->shift);

	*inserted = false;
	if (tid == TASK_EMPTY)	/* its key would match a free slot */
		return NULL;
	for (;;) {
		struct task *s = &t->slots[i];

		if (s->key == ~tid)
			return s;
		if (!s->key) {
			if (!table_room(t->count, t->mask, t->max))
				return NULL;
			t->count++;
			s->key = ~tid;
			s->tgid = tid;
			s->stamp = 0;
			s->idx = 0;
			s->cgroup = 0;
			s->seen = t->now;
			s->exited = 0;
			memset(s->comm, 0, sizeof(s->comm));
			*inserted = true;
			return s;
		}
		i = (i + 1) & t->mask;
	}
}

void tasks_remove(struct task_table *t, uint32_t tid)
{
	struct task *s = tasks_find(t, tid);
	uint32_t i, j;

	if (!s)
		return;
	t->count--;
	i = (uint32_t)(s - t->slots);
	for (;;) {
		t->slots[i].key = 0;
		j = i;
		for (;;) {
			j = (j + 1) & t->mask;
			if (!t->slots[j].key)
				return;
			if (!home_between(i, j, tasks_hash(~t->slots[j].key, t->shift)))
				break;
		}
		t->slots[i] = t->slots[j];
		i = j;
	}
}

uint32_t tasks_evict_stale(struct task_table *t, uint32_t *cursor, uint32_t n, uint32_t before)
{
	uint32_t i = *cursor & t->mask, removed = 0;

	while (n && t->count) {
		struct task *s = &t->slots[i];

		if (s->key && stamp_before(s->seen, before)) {
			/* Backward shift may move another entry into i:
			 * look at it again. */
			tasks_remove(t, ~s->key);
			removed++;
			continue;
		}
		i = (i + 1) & t->mask;
		n--;
	}
	*cursor = i;
	return removed;
}

/* Never a real tgid: refused, as the task table refuses TASK_EMPTY. */
#define PROC_BAD_TGID UINT32_MAX

int procs_init(struct proc_table *t, uint32_t max)
{
	uint32_t bits = init_bits(max);

	t->slots = slots_alloc(bits, sizeof(*t->slots));
	if (!t->slots)
		return -ENOMEM;
	t->shift = 32 - bits;
	t->mask = (1u << bits) - 1;
	t->count = 0;
	t->max = max;
	t->max_bits = slot_bits(max);
	t->now = 0;
	t->cmdline_bytes = 0;
	return 0;
}

/* Room for one more process: proc pointers are not held across
 * procs_set(), so it may grow the table itself. */
static int procs_grow(struct proc_table *t)
{
	uint32_t bits = want_bits(t->count, 1, t->mask, t->max_bits);
	uint32_t shift = 32 - bits, mask = (1u << bits) - 1;
	struct proc *slots;

	if (mask == t->mask)
		return 0;
	slots = slots_alloc(bits, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (uint32_t i = 0; i <= t->mask; i++) {
		uint32_t j;

		if (!t->slots[i].cmdline)
			continue;
		for (j = tasks_hash(t->slots[i].tgid, shift); slots[j].cmdline; j = (j + 1) & mask)
			;
		slots[j] = t->slots[i];
	}
	free(t->slots);
	t->slots = slots;
	t->shift = shift;
	t->mask = mask;
	return 0;
}

void procs_fini(struct proc_table *t)
{
	if (!t->slots)
		return;
	for (uint32_t i = 0; i <= t->mask; i++)
		free(t->slots[i].cmdline);
	free(t->slots);
	t->slots = NULL;
}

struct proc *procs_find(struct proc_table *t, uint32_t tgid)
{
	uint32_t i = tasks_hash(tgid, t->shift);

	for (;;) {
		struct proc *s = &t->slots[i];

		if (!s->cmdline)
			return NULL;
		if (s->tgid == tgid)
			return s;
		i = (i + 1) & t->mask;
	}
}

int procs_set(struct proc_table *t, uint32_t tgid, const char *cmdline)
{
	size_t n = strnlen(cmdline, CMDLINE_MAX - 1);
	struct proc *s = procs_find(t, tgid);
	size_t old = s ? strlen(s->cmdline) + 1 : 0;
	char *copy;

	if (tgid == PROC_BAD_TGID)
		return -EINVAL;
	if (!s && t->count >= t->max)
		return -ENOSPC;
	if (t->cmdline_bytes - old + n + 1 > CMDLINE_BUDGET)
		return -ENOSPC;
	if (!s && procs_grow(t))
		return -ENOMEM;
	if (!s && !table_room(t->count, t->mask, t->max))
		return -ENOSPC;
	copy = malloc(n + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, cmdline, n);
	copy[n] = '\0';
	if (!s) {
		uint32_t i = tasks_hash(tgid, t->shift);

		while (t->slots[i].cmdline)
			i = (i + 1) & t->mask;
		s = &t->slots[i];
		s->tgid = tgid;
		s->stamp = 0;
		t->count++;
	}
	s->seen = t->now;
	s->stale = false;
	free(s->cmdline);
	s->cmdline = copy;
	t->cmdline_bytes = t->cmdline_bytes - old + n + 1;
	return 0;
}

void procs_remove(struct proc_table *t, uint32_t tgid)
{
	struct proc *s = procs_find(t, tgid);
	uint32_t i, j;

	if (!s)
		return;
	t->cmdline_bytes -= strlen(s->cmdline) + 1;
	free(s->cmdline);
	t->count--;
	i = (uint32_t)(s - t->slots);
	for (;;) {
		t->slots[i].tgid = 0;
		t->slots[i].cmdline = NULL;
		j = i;
		for (;;) {
			j = (j + 1) & t->mask;
			if (!t->slots[j].cmdline)
				return;
			if (!home_between(i, j, tasks_hash(t->slots[j].tgid, t->shift)))
				break;
		}
		t->slots[i] = t->slots[j];
		i = j;
	}
}

uint32_t procs_evict_stale(struct proc_table *t, uint32_t *cursor, uint32_t n, uint32_t before)
{
	uint32_t i = *cursor & t->mask, removed = 0;

	while (n && t->count) {
		struct proc *s = &t->slots[i];
		uint32_t last = s->seen;

		if (s->stamp && !stamp_before(s->stamp, last))
			last = s->stamp;
		if (s->cmdline && stamp_before(last, before)) {
			procs_remove(t, s->tgid);	/* may shift an entry into i */
			removed++;
			continue;
		}
		i = (i + 1) & t->mask;
		n--;
	}
	*cursor = i;
	return removed;
}
