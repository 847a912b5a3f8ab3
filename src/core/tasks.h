/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The recorder's global task table (tid -> tgid, comm) and process table
 * (tgid -> cmdline): fixed capacity, open addressing with linear probing,
 * allocated once. A task also remembers its index in the open generation's
 * thread table (valid while stamp equals the generation's stamp), so that
 * interning a thread costs one lookup and no second table.
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
};

struct task_table {
	struct task *slots;
	uint32_t shift;		/* 32 - log2(slots) */
	uint32_t mask;
	uint32_t count;
	uint32_t max;		/* capacity the user asked for */
};

struct proc {
	uint32_t tgid;
	uint32_t stamp;		/* generation stamp that already listed it */
	char *cmdline;		/* malloc'd; NULL marks a free slot */
};

struct proc_table {
	struct proc *slots;
	uint32_t shift;
	uint32_t mask;
	uint32_t count;
	uint32_t max;
	size_t cmdline_bytes;	/* held by all cmdlines together */
};

/* Both tables start as zeroed memory, which is a table of free slots: the
 * kernel maps their pages only as entries land in them, so a table sized
 * for 65536 threads costs little on a machine running a few hundred. */

/* Cmdlines are capped so that the table's memory stays bounded. */
#define CMDLINE_MAX		4096
#define CMDLINE_BUDGET		(8u << 20)

int tasks_init(struct task_table *t, uint32_t max);
void tasks_fini(struct task_table *t);
/* NULL when absent. */
struct task *tasks_find(struct task_table *t, uint32_t tid);
/* The task, inserted (zeroed comm and cgroup, stamp 0) if absent; NULL when full. */
struct task *tasks_get(struct task_table *t, uint32_t tid, bool *inserted);
void tasks_remove(struct task_table *t, uint32_t tid);

int procs_init(struct proc_table *t, uint32_t max);
void procs_fini(struct proc_table *t);
struct proc *procs_find(struct proc_table *t, uint32_t tgid);
/* 0, -ENOSPC (table full or cmdline budget spent), -ENOMEM. */
int procs_set(struct proc_table *t, uint32_t tgid, const char *cmdline);
void procs_remove(struct proc_table *t, uint32_t tgid);

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

/* dst holds a normalised comm; src is a record's comm field. The kernel
 * zero-pads comm, so comparing all 16 bytes settles almost every case. */
static inline bool comm_eq(const char *dst, const char *src)
{
	uint64_t a[2], b[2];

	memcpy(a, dst, sizeof(a));
	memcpy(b, src, sizeof(b));
	if (a[0] == b[0] && a[1] == b[1])
		return true;
	return strncmp(dst, src, FREC_COMM_LEN - 1) == 0;
}

#endif /* FREC_CORE_TASKS_H */
