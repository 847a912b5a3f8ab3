// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The large mix of bench-core (big_mix.h): per-thread state kept across
 * calls, so that records follow each other as a scheduler's would (a
 * switch's prev is what runs on that CPU, a woken thread is not running,
 * an exited thread never runs again, a fork brings back a slot with a new
 * tid).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <frec/record.h>
#include "big_mix.h"

#define HOT_PER_CPU	10	/* threads of each CPU's own, 80% of its picks */
#define NWARM		10000	/* the next ones, 15% */
#define PROC_THREADS	20	/* threads per process at the start */
#define NCGROUPS	100	/* processes are spread over these cgroups */
#define NO_SLOT		UINT32_MAX
#define RUNNING		1
#define DEAD		2
#define EXIT_DEAD	0x10	/* prev_state of an exited thread's last switch */
#define TID0		2000
#define FREE_CAP	4096	/* exited slots waiting for a fork */

struct big_mix {
	unsigned ncpus, nthreads, nhot;
	uint32_t *tid, *tgid, *proc;	/* per slot */
	char (*comm)[FREC_COMM_LEN];	/* per slot, made once: copying is cheap */
	char (*idle)[FREC_COMM_LEN];	/* per CPU: swapper/N */
	uint16_t *last_cpu;
	uint8_t *prio, *flags;
	uint32_t *cur;		/* per CPU: the running slot, or NO_SLOT (idle) */
	uint32_t freeq[FREE_CAP];
	unsigned fq_head, fq_len;
	uint32_t next_tid;
	uint64_t ts, ts_max, rng;
};

static uint32_t rnd(struct big_mix *m, uint32_t n)
{
	m->rng ^= m->rng << 13;
	m->rng ^= m->rng >> 7;
	m->rng ^= m->rng << 17;
	return (uint32_t)((m->rng >> 16) % n);
}

void big_mix__free(struct big_mix *m)
{
	if (!m)
		return;
	free(m->tid);
	free(m->tgid);
	free(m->proc);
	free(m->comm);
	free(m->idle);
	free(m->last_cpu);
	free(m->prio);
	free(m->flags);
	free(m->cur);
	free(m);
}

struct big_mix *big_mix__new(unsigned ncpus, unsigned nthreads, uint64_t ts0, uint64_t seed)
{
	struct big_mix *m;

	if (!ncpus || ncpus > 65535 || (uint64_t)ncpus * HOT_PER_CPU + NWARM >= nthreads) {
		errno = EINVAL;
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		goto err;
	m->ncpus = ncpus;
	m->nthreads = nthreads;
	m->nhot = ncpus * HOT_PER_CPU;
	m->tid = malloc(sizeof(*m->tid) * nthreads);
	m->tgid = malloc(sizeof(*m->tgid) * nthreads);
	m->proc = malloc(sizeof(*m->proc) * nthreads);
	m->comm = calloc(nthreads, sizeof(*m->comm));
	m->idle = calloc(ncpus, sizeof(*m->idle));
	m->last_cpu = malloc(sizeof(*m->last_cpu) * nthreads);
	m->prio = malloc(nthreads);
	m->flags = calloc(nthreads, 1);
	m->cur = malloc(sizeof(*m->cur) * ncpus);
	if (!m->tid || !m->tgid || !m->proc || !m->comm || !m->idle || !m->last_cpu || !m->prio ||
	    !m->flags || !m->cur)
		goto err;
	m->rng = seed ? seed : 1;
	m->ts = m->ts_max = ts0;
	for (unsigned s = 0; s < nthreads; s++) {
		unsigned p = s / PROC_THREADS;

		m->tid[s] = TID0 + 3 * s;
		m->tgid[s] = TID0 + 3 * (p * PROC_THREADS);
		m->proc[s] = p;
		snprintf(m->comm[s], FREC_COMM_LEN, s % PROC_THREADS ? "worker-%u" : "app-%u",
			 (s % PROC_THREADS ? s : p) % 1000);
		m->last_cpu[s] = (uint16_t)(s % ncpus);
		/* Most threads run at the default priority, as the small mix. */
		m->prio[s] = (uint8_t)(rnd(m, 10) ? 20 : rnd(m, 40));
	}
	for (unsigned c = 0; c < ncpus; c++) {
		m->cur[c] = NO_SLOT;
		snprintf(m->idle[c], FREC_COMM_LEN, "swapper/%u", c);
	}
	m->next_tid = TID0 + 3 * nthreads + 1000;
	return m;
err:
	big_mix__free(m);
	errno = ENOMEM;
	return NULL;
}

static void comm_of(const struct big_mix *m, uint32_t s, char *c)
{
	memcpy(c, m->comm[s], FREC_COMM_LEN);
}

static void idle_comm(const struct big_mix *m, unsigned cpu, char *c)
{
	memcpy(c, m->idle[cpu], FREC_COMM_LEN);
}

static uint64_t cgroup_of(const struct big_mix *m, uint32_t s)
{
	return s == NO_SLOT ? 1 : 2000 + 37 * (m->proc[s] % NCGROUPS);
}

static __s32 prio_of(const struct big_mix *m, uint32_t s)
{
	return s == NO_SLOT ? 120 : 100 + m->prio[s];
}

int big_mix__seed(const struct big_mix *m, struct frec_recorder *rec)
{
	char comm[FREC_COMM_LEN], cmd[64];
	int err;

	for (unsigned s = 0; s < m->nthreads; s++) {
		comm_of(m, s, comm);
		if ((err = frec_recorder__set_thread(rec, m->tid[s], m->tgid[s], comm)))
			return err;
		if (m->tid[s] != m->tgid[s])
			continue;
		snprintf(cmd, sizeof(cmd), "/usr/bin/svc-%u --config /etc/svc/%u.conf",
			 m->proc[s] % 100, m->proc[s]);
		if ((err = frec_recorder__set_cmdline(rec, m->tgid[s], cmd)))
			return err;
	}
	return 0;
}

uint64_t big_mix__now(const struct big_mix *m)
{
	return m->ts_max;
}

/* A thread to switch in or wake on cpu: not running, not exited; NO_SLOT
 * after a few misses (the idle task, or no record). */
static uint32_t pick(struct big_mix *m, unsigned cpu)
{
	for (int k = 0; k < 4; k++) {
		uint32_t r = rnd(m, 100), s;

		if (r < 80)
			s = cpu + m->ncpus * rnd(m, HOT_PER_CPU);
		else if (r < 95)
			s = m->nhot + rnd(m, NWARM);
		else
			s = m->nhot + NWARM + rnd(m, m->nthreads - m->nhot - NWARM);
		if (!(m->flags[s] & (RUNNING | DEAD)))
			return s;
	}
	return NO_SLOT;
}

static void hdr(const struct big_mix *m, struct frec_rec_hdr *h, uint64_t ts, unsigned cpu,
		uint32_t s, uint16_t type, uint32_t size)
{
	h->ts = ts;
	h->cpu = (uint16_t)cpu;
	h->tid = s == NO_SLOT ? 0 : m->tid[s];
	h->tgid = s == NO_SLOT ? 0 : m->tgid[s];
	h->type = type;
	h->size = size;
}

/* The next timestamp: 10 M events/s over the system, a few early. */
static uint64_t next_ts(struct big_mix *m)
{
	m->ts += 20 + rnd(m, 161);
	m->ts_max = m->ts;
	return rnd(m, 50) ? m->ts : m->ts - rnd(m, 300);
}

static size_t put_switch(struct big_mix *m, unsigned char *p, uint64_t ts, unsigned cpu,
			 bool dead)
{
	struct frec_rec_switch *r = (void *)p;
	uint32_t prev = m->cur[cpu], next = rnd(m, 4) ? pick(m, cpu) : NO_SLOT;

	memset(r, 0, sizeof(*r));
	hdr(m, &r->h, ts, cpu, prev, FREC_EV_SCHED_SWITCH, sizeof(*r));
	r->prev_pid = r->h.tid;
	r->prev_tgid = r->h.tgid;
	r->prev_prio = prio_of(m, prev);
	r->prev_state = prev == NO_SLOT ? 0 : dead ? EXIT_DEAD :
			rnd(m, 10) < 7 ? 1 : rnd(m, 5) ? 0 : 2;
	r->next_pid = next == NO_SLOT ? 0 : m->tid[next];
	r->next_tgid = next == NO_SLOT ? 0 : m->tgid[next];
	r->next_prio = prio_of(m, next);
	r->next_cgroup = cgroup_of(m, next);
	if (prev == NO_SLOT)
		idle_comm(m, cpu, r->prev_comm);
	else
		comm_of(m, prev, r->prev_comm);
	if (next == NO_SLOT)
		idle_comm(m, cpu, r->next_comm);
	else
		comm_of(m, next, r->next_comm);
	if (prev != NO_SLOT)
		m->flags[prev] &= (uint8_t)~RUNNING;
	if (next != NO_SLOT) {
		m->flags[next] |= RUNNING;
		m->last_cpu[next] = (uint16_t)cpu;
	}
	m->cur[cpu] = next;
	return sizeof(*r);
}

static size_t put_waking(struct big_mix *m, unsigned char *p, uint64_t ts, unsigned cpu)
{
	struct frec_rec_wake *r = (void *)p;
	uint32_t w = pick(m, rnd(m, 2) ? cpu : rnd(m, m->ncpus));

	if (w == NO_SLOT)
		return put_switch(m, p, ts, cpu, false);
	memset(r, 0, sizeof(*r));
	hdr(m, &r->h, ts, cpu, m->cur[cpu], FREC_EV_SCHED_WAKING, sizeof(*r));
	r->pid = m->tid[w];
	r->tgid = m->tgid[w];
	r->prio = prio_of(m, w);
	r->target_cpu = rnd(m, 4) ? m->last_cpu[w] : (__s32)cpu;
	comm_of(m, w, r->comm);
	return sizeof(*r);
}

static size_t put_migrate(struct big_mix *m, unsigned char *p, uint64_t ts, unsigned cpu)
{
	struct frec_rec_migrate *r = (void *)p;
	uint32_t s = pick(m, rnd(m, m->ncpus));

	if (s == NO_SLOT)
		return put_switch(m, p, ts, cpu, false);
	memset(r, 0, sizeof(*r));
	hdr(m, &r->h, ts, cpu, m->cur[cpu], FREC_EV_MIGRATE_TASK, sizeof(*r));
	r->pid = m->tid[s];
	r->tgid = m->tgid[s];
	r->prio = prio_of(m, s);
	r->orig_cpu = m->last_cpu[s];
	r->dest_cpu = rnd(m, m->ncpus);
	m->last_cpu[s] = (uint16_t)r->dest_cpu;
	comm_of(m, s, r->comm);
	return sizeof(*r);
}

/* The running thread makes a thread in its process, in an exited slot. */
static size_t put_fork(struct big_mix *m, unsigned char *p, uint64_t ts, unsigned cpu)
{
	struct frec_rec_fork *r = (void *)p;
	uint32_t parent = m->cur[cpu], s;

	if (parent == NO_SLOT || !m->fq_len)
		return put_switch(m, p, ts, cpu, false);
	s = m->freeq[m->fq_head];
	m->fq_head = (m->fq_head + 1) % FREE_CAP;
	m->fq_len--;
	m->tid[s] = m->next_tid++;
	if (m->next_tid >= 4000000)	/* under the largest pid_max */
		m->next_tid = TID0 + 3 * m->nthreads + 1000;
	m->tgid[s] = m->tgid[parent];
	m->proc[s] = m->proc[parent];
	memcpy(m->comm[s], m->comm[parent], FREC_COMM_LEN);	/* a clone keeps it */
	m->prio[s] = m->prio[parent];
	m->last_cpu[s] = (uint16_t)cpu;
	m->flags[s] = 0;
	memset(r, 0, sizeof(*r));
	hdr(m, &r->h, ts, cpu, parent, FREC_EV_PROCESS_FORK, sizeof(*r));
	r->parent_pid = m->tid[parent];
	r->parent_tgid = m->tgid[parent];
	r->child_pid = m->tid[s];
	r->child_tgid = m->tgid[s];
	r->child_cgroup = cgroup_of(m, parent);
	comm_of(m, parent, r->parent_comm);
	comm_of(m, s, r->child_comm);
	return sizeof(*r);
}

/* The running thread exits (a process leader never does), then its last
 * switch: two records. */
static size_t put_exit(struct big_mix *m, unsigned char *p, uint64_t ts, unsigned cpu,
		       uint32_t *off2)
{
	struct frec_rec_exit *r = (void *)p;
	uint32_t s = m->cur[cpu];

	if (s == NO_SLOT || m->tid[s] == m->tgid[s] || m->fq_len == FREE_CAP)
		return put_switch(m, p, ts, cpu, false);
	memset(r, 0, sizeof(*r));
	hdr(m, &r->h, ts, cpu, s, FREC_EV_PROCESS_EXIT, sizeof(*r));
	r->pid = m->tid[s];
	r->tgid = m->tgid[s];
	r->prio = prio_of(m, s);
	comm_of(m, s, r->comm);
	*off2 = sizeof(*r);
	m->ts += 1 + rnd(m, 20);
	m->ts_max = m->ts;
	put_switch(m, p + sizeof(*r), m->ts, cpu, true);
	m->flags[s] = DEAD;
	m->freeq[(m->fq_head + m->fq_len++) % FREE_CAP] = s;
	return sizeof(*r) + sizeof(struct frec_rec_switch);
}

static size_t put_probe(struct big_mix *m, unsigned char *p, uint64_t ts, unsigned cpu)
{
	struct frec_rec_probe *r = (void *)p;
	uint32_t s = m->cur[cpu] == NO_SLOT ? cpu : m->cur[cpu];

	memset(r, 0, sizeof(*r));
	hdr(m, &r->h, ts, cpu, s, rnd(m, 2) ? FREC_EV_UPROBE : FREC_EV_URETPROBE, sizeof(*r));
	r->probe_id = 1 + rnd(m, 4);
	r->nargs = r->h.type == FREC_EV_UPROBE ? 2 : 0;
	r->args[0] = rnd(m, 4096);
	r->args[1] = 0x7f0000000000ull + rnd(m, 1 << 20) * 16;
	r->ret = r->h.type == FREC_EV_URETPROBE ? (int)rnd(m, 100) : 0;
	return sizeof(*r);
}

unsigned big_mix__fill(struct big_mix *m, unsigned char *buf, size_t cap, uint32_t *off,
		       unsigned n)
{
	/* The most one step writes: an exit and its switch. */
	const size_t step_max = sizeof(struct frec_rec_exit) + sizeof(struct frec_rec_switch);
	size_t len = 0;
	unsigned i = 0;

	while (i < n && len + step_max <= cap) {
		unsigned char *p = buf + len;
		unsigned cpu = rnd(m, m->ncpus), kind = rnd(m, 100);
		uint64_t ts = next_ts(m);
		uint32_t off2 = 0;
		size_t sz;

		if (kind < 50)
			sz = put_switch(m, p, ts, cpu, false);
		else if (kind < 94)
			sz = put_waking(m, p, ts, cpu);
		else if (kind < 97)
			sz = put_migrate(m, p, ts, cpu);
		else if (kind < 98)
			sz = put_fork(m, p, ts, cpu);
		else if (kind < 99 && i + 1 < n)
			sz = put_exit(m, p, ts, cpu, &off2);
		else
			sz = put_probe(m, p, ts, cpu);
		off[i++] = (uint32_t)len;
		if (off2)
			off[i++] = (uint32_t)(len + off2);
		len += sz;
	}
	return i;
}
