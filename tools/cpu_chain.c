// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Broken switch chains, per CPU (contract in cpu_chain.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <frec/snapshot.h>
#include "cpu_chain.h"
#include "walk.h"

struct cpu_link {
	bool known;			/* run holds the thread switched in */
	struct frec_chain_run run;
	__u64 breaks;
};

struct frec_chain {
	struct cpu_link *cpus;
	__u32 ncpus;
	__u64 breaks;
	__u64 damaged;			/* the walker's count at the last gen() */
	int err;
};

struct frec_chain *frec_chain__new(void)
{
	return calloc(1, sizeof(struct frec_chain));
}

void frec_chain__free(struct frec_chain *c)
{
	if (!c)
		return;
	free(c->cpus);
	free(c);
}

static void reset_all(struct frec_chain *c)
{
	for (__u32 i = 0; i < c->ncpus; i++)
		c->cpus[i].known = false;
}

void frec_chain__gen(struct frec_chain *c, const struct frec_walk *w)
{
	__u64 d = frec_walk__damaged(w);

	/* what happened in a skipped generation is not known */
	if (d != c->damaged)
		reset_all(c);
	c->damaged = d;
}

static struct cpu_link *link_of(struct frec_chain *c, __u32 cpu)
{
	if (cpu >= FREC_MAX_CPUS)
		return NULL;
	if (cpu >= c->ncpus) {
		struct cpu_link *l = realloc(c->cpus, (cpu + 1) * sizeof(*l));

		if (!l) {
			c->err = -ENOMEM;
			return NULL;
		}
		memset(l + c->ncpus, 0, (cpu + 1 - c->ncpus) * sizeof(*l));
		c->cpus = l;
		c->ncpus = cpu + 1;
	}
	return &c->cpus[cpu];
}

enum frec_chain_verdict frec_chain__event(struct frec_chain *c, const struct frec_event *ev,
					  struct frec_chain_run *run)
{
	enum frec_chain_verdict v;
	struct cpu_link *l;

	if (ev->type == FREC_EV_LOST || ev->type == FREC_EV_GAP) {
		if (ev->cpu == FREC_CPU_UNKNOWN)
			reset_all(c);
		else if (ev->cpu < c->ncpus)
			c->cpus[ev->cpu].known = false;
		return FREC_CHAIN_NONE;
	}
	if (ev->type != FREC_EV_SCHED_SWITCH) {
		/* the event's thread was on the CPU when it fired */
		if (ev->cpu < c->ncpus && c->cpus[ev->cpu].known &&
		    c->cpus[ev->cpu].run.tid == ev->tid && ev->ts > c->cpus[ev->cpu].run.last_ts)
			c->cpus[ev->cpu].run.last_ts = ev->ts;
		return FREC_CHAIN_NONE;
	}
	l = link_of(c, ev->cpu);
	if (!l)
		return FREC_CHAIN_NONE;
	if (!l->known) {
		v = FREC_CHAIN_START;
	} else if (l->run.tid == ev->sw.prev_pid) {
		v = FREC_CHAIN_OK;
	} else {
		v = FREC_CHAIN_BREAK;
		l->breaks++;
		c->breaks++;
		if (run)
			*run = l->run;
	}
	l->known = true;
	l->run.tid = ev->sw.next_pid;
	l->run.prio = ev->sw.next_prio;
	l->run.in_ts = l->run.last_ts = ev->ts;
	return v;
}

bool frec_chain__current(const struct frec_chain *c, __u32 cpu, struct frec_chain_run *run)
{
	if (cpu >= c->ncpus || !c->cpus[cpu].known)
		return false;
	*run = c->cpus[cpu].run;
	return true;
}

__u64 frec_chain__breaks(const struct frec_chain *c)
{
	return c->breaks;
}

__u64 frec_chain__cpu_breaks(const struct frec_chain *c, __u32 cpu)
{
	return cpu < c->ncpus ? c->cpus[cpu].breaks : 0;
}

int frec_chain__error(const struct frec_chain *c)
{
	return c->err;
}
