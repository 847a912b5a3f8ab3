/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Pairing probe hits into function calls, for report and the exporters.
 *
 * A uprobe and a uretprobe on the same binary and function (path + func in
 * the probe table) are the entry and the return of one function. Each thread
 * keeps a stack of its open calls: every entry is pushed, a return pops the
 * innermost open call of its function. Whether a function has a return probe
 * at all is learnt from the probe tables as generations pass (a generation
 * names only the probes it mentions), so callers decide what an unreturned
 * entry was only when it leaves the stack: a call whose return was lost if
 * the function has a uretprobe, a plain hit if it has none.
 *
 * Entries leave the stack without their return when: a return of a function
 * further down comes (the ones above never returned: lost records, longjmp),
 * the thread exits, the stack is full (FREC_CALLS_MAX_DEPTH: the oldest is
 * evicted), or the walk ends (frec_calls__next_open). A return with no open
 * call of its function (its entry came before the window) is an instant, as
 * is every USDT hit and every uprobe inside a function (func+offset).
 *
 * Functions are matched by path and name across generations, so a call that
 * starts in one generation and returns in a later one is paired. The stacks
 * are the state carried across generations: one per thread with open calls,
 * freed when they empty or the thread exits.
 */
#ifndef FREC_TOOLS_CALLS_H
#define FREC_TOOLS_CALLS_H

#include <stdbool.h>
#include <frec/snapshot.h>

#define FREC_CALLS_MAX_DEPTH	256

struct frec_fn {
	char *path;
	char *func;		/* function, or provider:name for USDT */
	char *label;		/* "path:func", for reports */
	const char *short_name;	/* func without path, for slice names */
	__u64 offset;		/* uprobe at func+offset; 0 for entries and returns */
	bool usdt;
	bool has_entry;		/* some generation had a uprobe on it */
	bool has_return;	/* some generation had a uretprobe on it (so far) */
};

struct frec_call_frame {
	int fn;
	__u32 nargs;
	__u64 ts;
	__u64 args[FREC_MAX_PROBE_ARGS];
};

enum frec_call_kind {
	FREC_CALL_NONE = 0,	/* not a probe event */
	FREC_CALL_ENTRY,	/* pushed: a call began (or a hit, if no return comes) */
	FREC_CALL_RETURN,	/* popped: .entry is the matching entry */
	FREC_CALL_INSTANT,	/* USDT, uprobe at an offset, return without entry, unknown id */
};

enum frec_abandon_why {
	FREC_ABANDON_RETURN = 1,	/* a return further down the stack came */
	FREC_ABANDON_EXIT,		/* the thread exited */
	FREC_ABANDON_EVICT,		/* the stack was full: the oldest made room */
};

struct frec_call {
	enum frec_call_kind kind;
	int fn;				/* index into the function table, -1 if unknown id */
	const struct frec_call_frame *entry;	/* FREC_CALL_RETURN */
	/* Frames that left the stack without their return during this event,
	 * outermost first. Valid until the next call into frec_calls. */
	const struct frec_call_frame *abandoned;
	unsigned int nabandoned;
	enum frec_abandon_why why;
};

struct frec_calls;

struct frec_calls *frec_calls__new(void);
void frec_calls__free(struct frec_calls *c);
/* Learn the probe table of a new generation. 0 or -ENOMEM. */
int frec_calls__gen(struct frec_calls *c, struct frec_gen *g);
/* Classify a probe event and update the thread's stack. */
void frec_calls__event(struct frec_calls *c, const struct frec_event *ev, struct frec_call *out);
/* A thread exits: its open calls are abandoned (out->abandoned). */
void frec_calls__exit(struct frec_calls *c, __u32 tid, struct frec_call *out);

unsigned int frec_calls__nfns(const struct frec_calls *c);
const struct frec_fn *frec_calls__fn(const struct frec_calls *c, int fn);

/* Open calls left, for the end of a walk: one thread per call, its frames
 * outermost first, valid until the next call into frec_calls. */
bool frec_calls__next_open(struct frec_calls *c, size_t *pos, __u32 *tid, __u32 *tgid,
			   const struct frec_call_frame **frames, unsigned int *n);

#endif /* FREC_TOOLS_CALLS_H */
