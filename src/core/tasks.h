/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The recorder's global task table (tid -> tgid, comm) and process table
 * (tgid -> cmdline): open addressing with linear probing, grown by doubling
 * up to a bound (max entries, at most half the slots in use), so that a
 * machine with pid_max in the millions costs memory only for the threads
 * it runs. A task also remembers its index in the open generation's
 * thread table (valid while stamp equals the generation's stamp), so that
 * interning a thread costs one lookup and no second table.
 *
 * Growth moves every entry: a struct task pointer is valid only until the
 * next tasks_reserve(), which the recorder calls before each event, never
 * while it holds one. All on the recorder's thread.
 */
#ifndef FREC_CORE_TASKS_H
#define FREC_CORE_TASKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <frec/record.h>

#define TASK_EMPTY	UINT32_MAX	/* never a real tid */
#define TASK_EXITED	0x80000000u	/* in idx: sched_process_exit was seen */
#define TASK_IDX_MASK	0x7fffffffu

struct task {
	uint32_t key;		/* ~tid: a free slot (tid TASK_EMPTY) is all zero */
	uint32_t tgid;
	uint32_t stamp;		/* generation stamp for which idx is valid, 0 = none */
	uint32_t idx;		/* thread index in that generation | TASK_EXITED */
	char comm[FREC_COMM_LEN];	/* NUL-terminated, zero-padded */
	uint64_t cgroup;	/* its cgroup id as records last showed it, 0 unknown */
	uint32_t seen;		/* stamp of the last generation that mentioned or
				 * named it: eviction's clock */
	uint32_t exited;	/* with TASK_EXITED: the generation (seq, low 32
				 * bits) whose exit queued it to be forgotten */
};

struct task_table {
	struct task *slots;
	uint32_t shift;		/* 32 - log2(slots) */
	uint32_t mask;
	uint32_t count;
	uint32_t max;		/* capacity the user asked for: the bound */
	uint32_t max_bits;	/* log2 of the slots the bound needs */
	uint32_t now;		/* the open generation's stamp: seen of a new entry */
};

struct proc {
	uint32_t tgid;
	uint32_t stamp;		/* generation stamp that already listed it */
	uint32_t seen;		/* stamp of the generation open when it was set */
	char *cmdline;		/* malloc'd; NULL marks a free slot */
	bool stale;		/* may be an older program's: to read again */
};

struct proc_table {
	struct proc *slots;
	uint32_t shift;
	uint32_t mask;
	uint32_t count;
	uint32_t max;
	uint32_t max_bits;
	uint32_t now;
	size_t cmdline_bytes;	/* held by all cmdlines together */
};

/* Slots a table starts with; it doubles while the bound allows. */
#define TABLE_INIT_BITS		10

/* Cmdlines are capped so that the table's memory stays bounded. */
#define CMDLINE_MAX		4096
#define CMDLINE_BUDGET		(8u << 20)

/* Slots (and so bytes) a table of max entries may grow to. */
uint64_t tables_slots_max(uint32_t max);

/* tid's home slot in a table of 2^(32 - shift) slots. */
static inline uint32_t tasks_hash(uint32_t tid, uint32_t shift)
{
	return (tid * 2654435761u) >> shift;
}

/* Start loading tid's home slot, for a lookup soon after. */
static inline void tasks_prefetch(const struct task_table *t, uint32_t tid)
{
	__builtin_prefetch(&t->slots[tasks_hash(tid, t->shift)]);
}

/* tid's entry when it sits in its home slot, else NULL (it may still be
 * further on: tasks_find() and tasks_get() look there). */
static inline struct task *tasks_home(const struct task_table *t, uint32_t tid)
{
	struct task *s = &t->slots[tasks_hash(tid, t->shift)];

	/* ~TASK_EMPTY is a free slot's key */
	return s->key == ~tid && __builtin_expect(tid != TASK_EMPTY, 1) ? s : NULL;
}

int tasks_init(struct task_table *t, uint32_t max);
void tasks_fini(struct task_table *t);
/* Room for n more entries without growing later: grows now if needed and
 * the bound allows. 0, or -ENOMEM (the table stays as it was, and
 * tasks_get() refuses what does not fit). Invalidates task pointers. */
int tasks_reserve(struct task_table *t, uint32_t n);
/* NULL when absent. */
struct task *tasks_find(struct task_table *t, uint32_t tid);
/* The task, inserted (zeroed comm and cgroup, stamp 0, seen now) if absent;
 * NULL when at the bound or out of reserved room. Never grows. */
struct task *tasks_get(struct task_table *t, uint32_t tid, bool *inserted);
void tasks_remove(struct task_table *t, uint32_t tid);
/* Move *cursor on by up to n slots (wrapping), removing each task whose
 * seen is before `before` (stamp_before): a slot an entry shifted back
 * into is looked at again. Returns how many were removed. */
uint32_t tasks_evict_stale(struct task_table *t, uint32_t *cursor, uint32_t n, uint32_t before);

int procs_init(struct proc_table *t, uint32_t max);
void procs_fini(struct proc_table *t);
struct proc *procs_find(struct proc_table *t, uint32_t tgid);
/* 0, -ENOSPC (table full or cmdline budget spent), -ENOMEM. */
int procs_set(struct proc_table *t, uint32_t tgid, const char *cmdline);
void procs_remove(struct proc_table *t, uint32_t tgid);
/* As tasks_evict_stale(), for processes neither listed by a generation
 * (stamp) nor set (seen) since `before`. */
uint32_t procs_evict_stale(struct proc_table *t, uint32_t *cursor, uint32_t n, uint32_t before);

/* Stamp order, which wraps: is a before b? */
static inline bool stamp_before(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

/* Another process has this tid now (pid reuse): the open generation names
 * it anew, and its cgroup is not known. */
static inline void task_renew(struct task *t, uint32_t tgid)
{
	t->tgid = tgid;
	t->stamp = 0;
	t->idx &= ~TASK_EXITED;
	t->cgroup = 0;
}

/* Copy a comm of up to FREC_COMM_LEN bytes (maybe not NUL-terminated),
 * NUL-terminated and zero-padded. */
static inline void comm_copy(char *dst, const char *src)
{
	size_t n = strnlen(src, FREC_COMM_LEN - 1);

	memcpy(dst, src, n);
	memset(dst + n, 0, FREC_COMM_LEN - n);
}

/* Whether two comms have the same 16 bytes: comm_eq()'s first test. */
static inline bool comm_words_eq(const char *dst, const char *src)
{
	uint64_t a[2], b[2];

	memcpy(a, dst, sizeof(a));
	memcpy(b, src, sizeof(b));
	return a[0] == b[0] && a[1] == b[1];
}

/* dst holds a normalised comm; src is a record's comm field. The kernel
 * zero-pads comm, so comparing all 16 bytes settles almost every case. */
static inline bool comm_eq(const char *dst, const char *src)
{
	if (comm_words_eq(dst, src))
		return true;
	return strncmp(dst, src, FREC_COMM_LEN - 1) == 0;
}

#endif /* FREC_CORE_TASKS_H */
