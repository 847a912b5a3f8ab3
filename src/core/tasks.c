// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "tasks.h"

/* Slots for a capacity: a power of two at least twice the capacity, so
 * probes stay short at full load. */
static uint32_t slot_bits(uint32_t max)
{
	uint32_t bits = 4;

	while ((1u << bits) < max * 2u && bits < 31)
		bits++;
	return bits;
}

static inline uint32_t hash32(uint32_t key, uint32_t shift)
{
	return (key * 2654435761u) >> shift;
}

/* Is k (a home slot) cyclically within (i, j]? Then the entry at j may not
 * move to i when i is emptied (backward-shift deletion). */
static inline bool home_between(uint32_t i, uint32_t j, uint32_t k)
{
	return i <= j ? (i < k && k <= j) : (i < k || k <= j);
}

int tasks_init(struct task_table *t, uint32_t max)
{
	uint32_t bits = slot_bits(max);

	t->slots = calloc(1u << bits, sizeof(*t->slots));
	if (!t->slots)
		return -ENOMEM;
	t->shift = 32 - bits;
	t->mask = (1u << bits) - 1;
	t->count = 0;
	t->max = max;
	return 0;
}

void tasks_fini(struct task_table *t)
{
	free(t->slots);
	t->slots = NULL;
}

struct task *tasks_find(struct task_table *t, uint32_t tid)
{
	uint32_t i = hash32(tid, t->shift);

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
	uint32_t i = hash32(tid, t->shift);

	*inserted = false;
	if (tid == TASK_EMPTY)	/* its key would match a free slot */
		return NULL;
	for (;;) {
		struct task *s = &t->slots[i];

		if (s->key == ~tid)
			return s;
		if (!s->key) {
			if (t->count >= t->max)
				return NULL;
			t->count++;
			s->key = ~tid;
			s->tgid = tid;
			s->stamp = 0;
			s->idx = 0;
			s->cgroup = 0;
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
			if (!home_between(i, j, hash32(~t->slots[j].key, t->shift)))
				break;
		}
		t->slots[i] = t->slots[j];
		i = j;
	}
}

/* Never a real tgid: refused, as the task table refuses TASK_EMPTY. */
#define PROC_BAD_TGID UINT32_MAX

int procs_init(struct proc_table *t, uint32_t max)
{
	uint32_t bits = slot_bits(max);

	t->slots = calloc(1u << bits, sizeof(*t->slots));
	if (!t->slots)
		return -ENOMEM;
	t->shift = 32 - bits;
	t->mask = (1u << bits) - 1;
	t->count = 0;
	t->max = max;
	t->cmdline_bytes = 0;
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
	uint32_t i = hash32(tgid, t->shift);

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
	copy = malloc(n + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, cmdline, n);
	copy[n] = '\0';
	if (!s) {
		uint32_t i = hash32(tgid, t->shift);

		while (t->slots[i].cmdline)
			i = (i + 1) & t->mask;
		s = &t->slots[i];
		s->tgid = tgid;
		s->stamp = 0;
		t->count++;
	}
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
			if (!home_between(i, j, hash32(t->slots[j].tgid, t->shift)))
				break;
		}
		t->slots[i] = t->slots[j];
		i = j;
	}
}
