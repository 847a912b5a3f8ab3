// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Pairing uprobe and uretprobe hits into calls; see calls.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "calls.h"
#include "map.h"

/* A ring of frames: the oldest can be evicted in O(1) when it is full,
 * which happens all the time for a function with no return probe. */
struct stack {
	__u32 tgid;
	unsigned int head;	/* index of the outermost frame */
	unsigned int depth;
	unsigned int cap;	/* power of two */
	struct frec_call_frame *frames;
};

struct frec_calls {
	struct frec_fn *fns;
	unsigned int nfns;
	struct frec_map ids;		/* probe id -> (kind << 32) | fn, this generation */
	struct frec_map stacks;		/* tid -> struct stack * */
	struct frec_call_frame entry;	/* the entry of the last RETURN */
	struct frec_call_frame scratch[FREC_CALLS_MAX_DEPTH];	/* abandoned frames */
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

void frec_calls__free(struct frec_calls *c)
{
	size_t pos = 0;
	uint64_t v;
	unsigned int i;

	if (!c)
		return;
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
	const char *slash;
	size_t n;

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

static inline struct frec_call_frame *frame_at(struct stack *s, unsigned int i)
{
	return &s->frames[(s->head + i) & (s->cap - 1)];
}

static struct stack *stack_of(struct frec_calls *c, __u32 tid)
{
	uint64_t *v = frec_map__get(&c->stacks, tid);

	return v ? (struct stack *)(uintptr_t)*v : NULL;
}

static struct stack *stack_new(struct frec_calls *c, __u32 tid, __u32 tgid)
{
	struct stack *s = calloc(1, sizeof(*s));
	uint64_t *v;

	if (!s)
		return NULL;
	s->tgid = tgid;
	v = frec_map__put(&c->stacks, tid, NULL);
	if (!v) {
		free(s);
		return NULL;
	}
	*v = (uint64_t)(uintptr_t)s;
	return s;
}

/* Copy frames [from, depth) out, outermost first, and drop them. */
static void abandon_top(struct frec_calls *c, struct stack *s, unsigned int from,
			struct frec_call *out, enum frec_abandon_why why)
{
	unsigned int i;

	for (i = from; i < s->depth; i++)
		c->scratch[i - from] = *frame_at(s, i);
	out->abandoned = c->scratch;
	out->nabandoned = s->depth - from;
	out->why = why;
	s->depth = from;
}

/* A stack that empties is freed, so that state stays proportional to the
 * threads that really are inside a probed call. */
static void retire_if_empty(struct frec_calls *c, __u32 tid, struct stack *s)
{
	if (s->depth)
		return;
	frec_map__del(&c->stacks, tid);
	stack_free(s);
}

static void push(struct frec_calls *c, const struct frec_event *ev, int fn, struct frec_call *out)
{
	struct stack *s = stack_of(c, ev->tid);
	struct frec_call_frame *f;

	if (!s && !(s = stack_new(c, ev->tid, ev->tgid)))
		return;
	s->tgid = ev->tgid;
	if (s->depth == s->cap) {
		if (s->cap < FREC_CALLS_MAX_DEPTH) {
			unsigned int ncap = s->cap ? s->cap * 2 : 4, i;
			struct frec_call_frame *nf = malloc(ncap * sizeof(*nf));

			if (!nf) {
				retire_if_empty(c, ev->tid, s);
				return;
			}
			for (i = 0; i < s->depth; i++)
				nf[i] = *frame_at(s, i);
			free(s->frames);
			s->frames = nf;
			s->cap = ncap;
			s->head = 0;
		} else {
			/* full: the outermost frame makes room */
			c->scratch[0] = *frame_at(s, 0);
			out->abandoned = c->scratch;
			out->nabandoned = 1;
			out->why = FREC_ABANDON_EVICT;
			s->head = (s->head + 1) & (s->cap - 1);
			s->depth--;
		}
	}
	f = frame_at(s, s->depth++);
	f->fn = fn;
	f->ts = ev->ts;
	f->nargs = ev->probe.nargs > FREC_MAX_PROBE_ARGS ? FREC_MAX_PROBE_ARGS : ev->probe.nargs;
	memcpy(f->args, ev->probe.args, sizeof(f->args));
	out->kind = FREC_CALL_ENTRY;
}

static void pop(struct frec_calls *c, const struct frec_event *ev, int fn, struct frec_call *out)
{
	struct stack *s = stack_of(c, ev->tid);
	unsigned int i;

	if (!s)
		return;
	for (i = s->depth; i > 0; i--)
		if (frame_at(s, i - 1)->fn == fn)
			break;
	if (!i)
		return;		/* no open call of this function: an instant */
	c->entry = *frame_at(s, i - 1);
	out->kind = FREC_CALL_RETURN;
	out->entry = &c->entry;
	abandon_top(c, s, i, out, FREC_ABANDON_RETURN);
	s->depth = i - 1;
	retire_if_empty(c, ev->tid, s);
}

void frec_calls__event(struct frec_calls *c, const struct frec_event *ev, struct frec_call *out)
{
	uint64_t *v;
	__u32 kind;
	int fn;

	memset(out, 0, sizeof(*out));
	out->fn = -1;
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
	if (kind == FREC_PROBE_USDT || c->fns[fn].usdt || c->fns[fn].offset)
		return;
	if (ev->type == FREC_EV_UPROBE)
		push(c, ev, fn, out);
	else if (ev->type == FREC_EV_URETPROBE)
		pop(c, ev, fn, out);
}

void frec_calls__exit(struct frec_calls *c, __u32 tid, struct frec_call *out)
{
	struct stack *s;

	memset(out, 0, sizeof(*out));
	out->fn = -1;
	s = stack_of(c, tid);
	if (!s)
		return;
	abandon_top(c, s, 0, out, FREC_ABANDON_EXIT);
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

bool frec_calls__next_open(struct frec_calls *c, size_t *pos, __u32 *tid, __u32 *tgid,
			   const struct frec_call_frame **frames, unsigned int *n)
{
	uint64_t v;

	while (frec_map__next(&c->stacks, pos, tid, &v)) {
		struct stack *s = (struct stack *)(uintptr_t)v;
		unsigned int i;

		if (!s->depth)
			continue;
		for (i = 0; i < s->depth; i++)
			c->scratch[i] = *frame_at(s, i);
		*frames = c->scratch;
		*n = s->depth;
		*tgid = s->tgid;
		return true;
	}
	return false;
}
