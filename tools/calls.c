// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Pairing uprobe and uretprobe hits into calls; see calls.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "calls.h"
#include "map.h"

struct stack {
	unsigned int depth, cap;
	struct frec_frame *frames;
};

struct frec_calls {
	struct frec_fn *fns;
	unsigned int nfns;
	struct frec_map ids;		/* probe id -> (kind << 32) | fn, this generation */
	struct frec_map stacks;		/* tid -> struct stack * */
	struct stack *dead;		/* freed at the next operation (abandoned frames live here) */
};

struct frec_calls *frec_calls__new(void)
{
	struct frec_calls *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	frec_map__init(&c->ids);
	frec_map__init(&c->stacks);
	return c;
}

static void stack_free(struct stack *s)
{
	if (s) {
		free(s->frames);
		free(s);
	}
}

static void reap(struct frec_calls *c)
{
	stack_free(c->dead);
	c->dead = NULL;
}

void frec_calls__free(struct frec_calls *c)
{
	size_t pos = 0;
	uint64_t v;
	unsigned int i;

	if (!c)
		return;
	reap(c);
	while (frec_map__next(&c->stacks, &pos, NULL, &v))
		stack_free((struct stack *)(uintptr_t)v);
	for (i = 0; i < c->nfns; i++) {
		free(c->fns[i].path);
		free(c->fns[i].func);
		free(c->fns[i].label);
	}
	free(c->fns);
	frec_map__fini(&c->ids);
	frec_map__fini(&c->stacks);
	free(c);
}

static int fn_index(struct frec_calls *c, const struct frec_probe_info *p)
{
	const char *path = p->path ? p->path : "", *func = p->func ? p->func : "";
	bool usdt = p->kind == FREC_PROBE_USDT;
	/* a uprobe inside a function (func+off) is not its entry: keep it apart */
	__u64 off = p->kind == FREC_PROBE_UPROBE ? p->offset : 0;
	struct frec_fn *f;
	unsigned int i;
	size_t n;
	const char *slash;

	for (i = 0; i < c->nfns; i++) {
		f = &c->fns[i];
		if (f->usdt == usdt && f->offset == off && !strcmp(f->path, path) &&
		    !strcmp(f->func, func))
			return (int)i;
	}
	f = realloc(c->fns, (c->nfns + 1) * sizeof(*f));
	if (!f)
		return -ENOMEM;
	c->fns = f;
	f = &c->fns[c->nfns];
	memset(f, 0, sizeof(*f));
	f->usdt = usdt;
	f->offset = off;
	f->path = strdup(path);
	f->func = strdup(func);
	n = strlen(path) + strlen(func) + 24;
	f->label = malloc(n);
	if (!f->path || !f->func || !f->label) {
		free(f->path);
		free(f->func);
		free(f->label);
		return -ENOMEM;
	}
	if (*path && *func && off)
		snprintf(f->label, n, "%s:%s+0x%llx", path, func, (unsigned long long)off);
	else if (*path && *func)
		snprintf(f->label, n, "%s:%s", path, func);
	else if (*func)
		snprintf(f->label, n, "%s", func);
	else
		/* no function recorded: fall back on the spec the user gave */
		snprintf(f->label, n, "%s", path);
	if (*func) {
		f->short_name = f->func;
	} else {
		slash = strrchr(f->label, '/');
		f->short_name = slash && slash[1] ? slash + 1 : f->label;
	}
	return (int)c->nfns++;
}

int frec_calls__gen(struct frec_calls *c, struct frec_gen *g)
{
	const struct frec_gen_info *gi = frec_gen__info(g);
	__u32 i;

	reap(c);
	frec_map__clear(&c->ids);
	for (i = 0; i < gi->nprobes; i++) {
		const struct frec_probe_info *p = frec_gen__probe_at(g, i);
		uint64_t *slot;
		int fn;

		if (!p)
			continue;
		fn = fn_index(c, p);
		if (fn < 0)
			return fn;
		if (p->kind == FREC_PROBE_UPROBE)
			c->fns[fn].has_entry = true;
		else if (p->kind == FREC_PROBE_URETPROBE)
			c->fns[fn].has_return = true;
		slot = frec_map__put(&c->ids, p->id, NULL);
		if (!slot)
			return -ENOMEM;
		*slot = ((uint64_t)p->kind << 32) | (uint32_t)fn;
	}
	return 0;
}

int frec_calls__fn_of(const struct frec_calls *c, __u32 probe_id)
{
	uint64_t *v = frec_map__get(&c->ids, probe_id);

	return v ? (int)(uint32_t)*v : -1;
}

static struct stack *stack_of(struct frec_calls *c, __u32 tid, bool create)
{
	uint64_t *v = frec_map__get(&c->stacks, tid);
	struct stack *s;

	if (v)
		return (struct stack *)(uintptr_t)*v;
	if (!create)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	v = frec_map__put(&c->stacks, tid, NULL);
	if (!v) {
		free(s);
		return NULL;
	}
	*v = (uint64_t)(uintptr_t)s;
	return s;
}

/* An empty stack is freed (after this operation), so that state stays
 * proportional to the threads that really are inside a probed call. */
static void retire_if_empty(struct frec_calls *c, __u32 tid, struct stack *s)
{
	if (s->depth)
		return;
	frec_map__del(&c->stacks, tid);
	c->dead = s;
}

void frec_calls__event(struct frec_calls *c, const struct frec_event *ev, struct frec_call *out)
{
	uint64_t *v;
	__u32 kind;
	struct stack *s;
	int fn;

	memset(out, 0, sizeof(*out));
	out->fn = -1;
	reap(c);
	if (ev->type != FREC_EV_UPROBE && ev->type != FREC_EV_URETPROBE &&
	    ev->type != FREC_EV_USDT)
		return;
	out->kind = FREC_CALL_INSTANT;
	v = frec_map__get(&c->ids, ev->probe.probe_id);
	if (!v)
		return;
	fn = (int)(uint32_t)*v;
	kind = (__u32)(*v >> 32);
	out->fn = fn;

	if (ev->type == FREC_EV_UPROBE && kind != FREC_PROBE_USDT && c->fns[fn].has_return) {
		struct frec_frame *f;

		s = stack_of(c, ev->tid, true);
		if (!s)
			return;
		if (s->depth == s->cap) {
			unsigned int ncap = s->cap ? s->cap * 2 : 8;

			if (ncap > FREC_CALLS_MAX_DEPTH || !(f = realloc(s->frames, ncap * sizeof(*f)))) {
				out->overflow = true;
				retire_if_empty(c, ev->tid, s);
				return;
			}
			s->frames = f;
			s->cap = ncap;
		}
		f = &s->frames[s->depth++];
		f->fn = fn;
		f->ts = ev->ts;
		f->nargs = ev->probe.nargs > FREC_MAX_PROBE_ARGS ? FREC_MAX_PROBE_ARGS : ev->probe.nargs;
		memcpy(f->args, ev->probe.args, sizeof(f->args));
		out->kind = FREC_CALL_ENTRY;
		return;
	}
	if (ev->type == FREC_EV_URETPROBE && kind != FREC_PROBE_USDT) {
		unsigned int i;

		s = stack_of(c, ev->tid, false);
		if (!s)
			return;
		for (i = s->depth; i > 0; i--)
			if (s->frames[i - 1].fn == fn)
				break;
		if (!i)
			return;	/* no open call of this function: an instant */
		/* frames above i-1 never returned; they stay in memory until the
		 * next operation, innermost first is the caller's order */
		out->kind = FREC_CALL_RETURN;
		out->entry = &s->frames[i - 1];
		out->abandoned = &s->frames[i];
		out->nabandoned = s->depth - i;
		s->depth = i - 1;
		retire_if_empty(c, ev->tid, s);
	}
}

void frec_calls__exit(struct frec_calls *c, __u32 tid, struct frec_call *out)
{
	struct stack *s;

	memset(out, 0, sizeof(*out));
	out->fn = -1;
	reap(c);
	s = stack_of(c, tid, false);
	if (!s)
		return;
	out->abandoned = s->frames;
	out->nabandoned = s->depth;
	s->depth = 0;
	retire_if_empty(c, tid, s);
}

unsigned int frec_calls__nfns(const struct frec_calls *c)
{
	return c->nfns;
}

const struct frec_fn *frec_calls__fn(const struct frec_calls *c, int fn)
{
	return fn >= 0 && (unsigned int)fn < c->nfns ? &c->fns[fn] : NULL;
}

bool frec_calls__next_open(const struct frec_calls *c, size_t *pos, __u32 *tid,
			   const struct frec_frame **frames, unsigned int *n)
{
	uint64_t v;

	while (frec_map__next(&c->stacks, pos, tid, &v)) {
		const struct stack *s = (const struct stack *)(uintptr_t)v;

		if (!s->depth)
			continue;
		*frames = s->frames;
		*n = s->depth;
		return true;
	}
	return false;
}
