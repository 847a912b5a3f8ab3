// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The threads frec report lists; see report_threads.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "map.h"
#include "report_threads.h"
#include "walk.h"

struct frec_report_threads {
	struct frec_walk *w;
	struct frec_report_thread *threads;
	size_t n, cap;
	struct frec_map idx;		/* tid -> index into threads */
	struct frec_map pcmd;		/* tgid -> char *cmdline (latest), or NULL */
};

struct frec_report_threads *frec_report_threads__new(struct frec_walk *w)
{
	struct frec_report_threads *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->w = w;
	frec_map__init(&t->idx);
	frec_map__init(&t->pcmd);
	return t;
}

void frec_report_threads__free(struct frec_report_threads *t)
{
	size_t pos = 0;
	uint64_t v;

	if (!t)
		return;
	while (frec_map__next(&t->pcmd, &pos, NULL, &v))
		free((char *)(uintptr_t)v);
	frec_map__fini(&t->pcmd);
	frec_map__fini(&t->idx);
	free(t->threads);
	free(t);
}

int frec_report_threads__get(struct frec_report_threads *t, __u32 tid, const char *comm,
			     __u32 tgid)
{
	uint64_t *slot = frec_map__get(&t->idx, tid);
	const struct frec_thread *wt;
	struct frec_report_thread *s;

	if (slot)
		return (int)*slot;
	if (t->n == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 256;

		s = realloc(t->threads, ncap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		t->threads = s;
		t->cap = ncap;
	}
	slot = frec_map__put(&t->idx, tid, NULL);
	if (!slot)
		return -ENOMEM;
	*slot = t->n;
	s = &t->threads[t->n++];
	memset(s, 0, sizeof(*s));
	s->tid = tid;
	s->tgid = frec_walk__tgid(t->w, tid);
	wt = frec_walk__thread(t->w, tid);
	if (wt) {
		memcpy(s->comm, wt->comm, FREC_COMM_LEN);
	} else if (comm && comm[0]) {
		memcpy(s->comm, comm, FREC_COMM_LEN);
		s->tgid = tgid;
	} else {
		strcpy(s->comm, "<...>");
	}
	s->comm[FREC_COMM_LEN - 1] = '\0';
	/* the process's command line, as this generation has it (refresh()
	 * follows it into later ones) */
	slot = frec_map__get(&t->pcmd, s->tgid);
	if (!slot) {
		struct frec_gen *g = frec_walk__gen(t->w);
		const struct frec_process *p = g ? frec_gen__process(g, s->tgid) : NULL;

		slot = frec_map__put(&t->pcmd, s->tgid, NULL);
		if (!slot)
			return -ENOMEM;
		*slot = (uint64_t)(uintptr_t)(p && p->cmdline && p->cmdline[0] ?
					       strdup(p->cmdline) : NULL);
	}
	return (int)(t->n - 1);
}

size_t frec_report_threads__count(const struct frec_report_threads *t)
{
	return t->n;
}

const struct frec_report_thread *frec_report_threads__at(const struct frec_report_threads *t,
							 size_t i)
{
	return i < t->n ? &t->threads[i] : NULL;
}

const char *frec_report_threads__cmdline(const struct frec_report_threads *t, __u32 tgid)
{
	uint64_t *v = frec_map__get(&t->pcmd, tgid);

	return v ? (const char *)(uintptr_t)*v : NULL;
}

void frec_report_threads__refresh(struct frec_report_threads *t)
{
	struct frec_gen *g = frec_walk__gen(t->w);
	__u32 nprocs = g ? frec_gen__info(g)->nprocesses : 0;
	size_t i;

	for (i = 0; i < t->n; i++) {
		const struct frec_thread *wt = frec_walk__thread(t->w, t->threads[i].tid);

		if (!wt)
			continue;
		memcpy(t->threads[i].comm, wt->comm, FREC_COMM_LEN);
		t->threads[i].comm[FREC_COMM_LEN - 1] = '\0';
		if (wt->tgid)
			t->threads[i].tgid = wt->tgid;
	}
	/* A process listed already takes this generation's command line, as
	 * its threads take their latest names: after an exec the report names
	 * the program the process became. Without memory for the copy, the
	 * one it had stays. */
	for (__u32 k = 0; k < nprocs; k++) {
		const struct frec_process *p = frec_gen__process_at(g, k);
		uint64_t *slot = p ? frec_map__get(&t->pcmd, p->tgid) : NULL;
		char *old, *cmd;

		if (!slot || !p->cmdline || !p->cmdline[0])
			continue;
		old = (char *)(uintptr_t)*slot;
		if (old && !strcmp(old, p->cmdline))
			continue;
		cmd = strdup(p->cmdline);
		if (!cmd)
			continue;
		free(old);
		*slot = (uint64_t)(uintptr_t)cmd;
	}
}
