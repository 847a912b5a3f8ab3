// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Who is on each CPU, for report's analyses; see cpu_state.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cpu_state.h"
#include "map.h"
#include "walk.h"

struct frec_cpu_state {
	struct frec_cpu *cpus;
	__u32 ncpus;
	__u64 gen_start;		/* start of the current generation */
	struct frec_map running;	/* tid -> cpu + 1, tasks on a CPU now */
	int err;
};

struct frec_cpu_state *frec_cpu_state__new(void)
{
	struct frec_cpu_state *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	frec_map__init(&s->running);
	return s;
}

void frec_cpu_state__free(struct frec_cpu_state *s)
{
	if (!s)
		return;
	free(s->cpus);
	frec_map__fini(&s->running);
	free(s);
}

struct frec_cpu *frec_cpu_state__cpu(struct frec_cpu_state *s, __u32 cpu)
{
	if (cpu >= FREC_MAX_CPUS)
		return NULL;
	if (cpu >= s->ncpus) {
		__u32 n = cpu + 1;
		struct frec_cpu *c = realloc(s->cpus, n * sizeof(*c));

		if (!c) {
			s->err = -ENOMEM;
			return NULL;
		}
		memset(c + s->ncpus, 0, (n - s->ncpus) * sizeof(*c));
		/* a CPU seen for the first time has been covered since the
		 * current generation began */
		for (; s->ncpus < n; s->ncpus++) {
			c[s->ncpus].valid = true;
			c[s->ncpus].since = s->gen_start;
		}
		s->cpus = c;
	}
	return &s->cpus[cpu];
}

__u32 frec_cpu_state__ncpus(const struct frec_cpu_state *s)
{
	return s->ncpus;
}

bool frec_cpu_state__running(const struct frec_cpu_state *s, __u32 tid)
{
	return frec_map__get(&s->running, tid) != NULL;
}

bool frec_cpu_state__break_ends_run(struct frec_cpu_state *s, const struct frec_event *ev,
				    const struct frec_chain_run *run)
{
	struct frec_cpu *c = frec_cpu_state__cpu(s, ev->cpu);

	return c && c->valid && c->tid_known && c->tid == run->tid;
}

/* Nothing is known of the CPUs any more (all: every CPU). */
static void forget(struct frec_cpu_state *s, struct frec_cpu *c, bool all)
{
	if (all) {
		for (__u32 i = 0; i < s->ncpus; i++)
			s->cpus[i].valid = false;
	} else if (c) {
		c->valid = false;
	}
	frec_map__clear(&s->running);
}

static void on_switch(struct frec_cpu_state *s, const struct frec_walk *w,
		      const struct frec_event *ev, enum frec_chain_verdict chain,
		      const struct frec_chain_run *run)
{
	struct frec_cpu *c = frec_cpu_state__cpu(s, ev->cpu);
	__u32 prev = ev->sw.prev_pid, next = ev->sw.next_pid;
	const struct frec_thread *t;
	uint64_t *slot;

	/* the thread switched in before ran until its last event seen */
	if (chain == FREC_CHAIN_BREAK && frec_cpu_state__break_ends_run(s, ev, run))
		frec_map__del(&s->running, run->tid);
	if (c) {
		c->valid = true;
		c->tid_known = true;
		c->tid = next;
		c->tgid = frec_walk__tgid(w, next);
		c->since = ev->ts;
		if ((t = frec_walk__thread(w, next)))
			memcpy(c->comm, t->comm, FREC_COMM_LEN);
		else
			c->comm[0] = '\0';
	}
	if (prev)
		frec_map__del(&s->running, prev);
	if (!next)
		return;
	slot = frec_map__put(&s->running, next, NULL);
	if (slot)
		*slot = (uint64_t)ev->cpu + 1;
}

void frec_cpu_state__event(struct frec_cpu_state *s, const struct frec_walk *w,
			   const struct frec_event *ev, enum frec_chain_verdict chain,
			   const struct frec_chain_run *run)
{
	switch (ev->type) {
	case FREC_EV_SCHED_SWITCH:
		on_switch(s, w, ev, chain, run);
		break;
	case FREC_EV_LOST:
		/* what happened on the CPU while records were lost is unknown */
		if (ev->cpu == FREC_CPU_UNKNOWN)
			forget(s, NULL, true);
		else
			forget(s, frec_cpu_state__cpu(s, ev->cpu), false);
		break;
	case FREC_EV_GAP:
		forget(s, NULL, true);	/* nothing was recorded on any CPU */
		break;
	default:
		break;
	}
}

void frec_cpu_state__gen(struct frec_cpu_state *s, __u64 start_ts, bool damaged)
{
	s->gen_start = start_ts;
	/* after a skipped generation who ran where is unknown */
	if (damaged)
		forget(s, NULL, true);
	for (__u32 i = 0; i < s->ncpus; i++) {
		if (!s->cpus[i].valid) {
			s->cpus[i].valid = true;
			s->cpus[i].tid_known = false;
			s->cpus[i].since = start_ts;
		}
	}
}

int frec_cpu_state__error(const struct frec_cpu_state *s)
{
	return s->err;
}
