// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Walking a snapshot generation by generation; see walk.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "map.h"
#include "tools.h"
#include "walk.h"

/* Strings copied out of the reader while a generation is buffered live in
 * fixed blocks, so that pointers into them stay valid as more are added. */
#define ARENA_BLOCK	(64 * 1024)

struct arena_block {
	struct arena_block *next;
	size_t used;
	char data[ARENA_BLOCK];
};

/* Stop reporting damaged blocks one by one after this many. */
#define MAX_DAMAGE_LINES	10
/* A reader that keeps failing without end is a bug; do not spin forever. */
#define MAX_CONSECUTIVE_ERRORS	(1u << 20)

struct walk_key {
	__u64 ts;
	__u32 idx;
};

/* The stack table indexes (+ 1) an event's stack event gave it. */
struct walk_stk {
	__u32 k, u;
};

/*
 * The threads whose generation table entry an event moved to another entry
 * of the same tid (pid reuse, or a full task table, named the tid anew):
 * from this event on, the tid is that entry's thread, named as the entry
 * names it. Found in recorded order, where the reader knows which entry
 * each event used; applied in walk order, before the event is returned.
 */
#define WALK_REBIND_MAX	3
struct walk_rebind {
	__u32 n;
	__u32 tid[WALK_REBIND_MAX];
	__u32 from[WALK_REBIND_MAX];	/* the entry it leaves */
	__u32 idx[WALK_REBIND_MAX];	/* the entry it takes */
};

/* An event read ahead (unsorted mode), with its own copy of its strings. */
struct walk_ahead {
	struct frec_event ev;
	struct walk_rebind rb;
	char s1[FREC_FILENAME_LEN];
	char s2[FREC_COMM_LEN];
};
#define AHEAD_SLOTS	(FREC_WALK_LOOKAHEAD + 1)

struct frec_walk {
	char *path;
	FILE *err;
	struct frec_walk_opts opts;
	struct frec_reader *r;
	struct frec_gen *g;
	const struct frec_gen_info *gi;
	__u64 gens, damaged, blocks;
	bool failed;

	/* sorted mode: the generation's events, and their order when the
	 * recorded order was not already the time order */
	struct frec_event *evs;
	size_t nevs, cap, pos;
	struct walk_key *keys;
	size_t kcap;
	struct walk_stk *stk;		/* per event of evs */
	struct walk_rebind *rb;		/* per event of evs */
	size_t rbcap;
	size_t scap;
	/* cpu -> index + 1 of its last event in evs: an array for the CPUs a
	 * header may count, a map for the others (FREC_CPU_UNKNOWN) */
	__u32 *cpu_last_arr;
	struct frec_map cpu_last;
	bool sorted_order;
	bool gen_sorted;	/* this generation is sorted (sorted mode, not too big) */
	__u64 unsorted_gens;	/* generations too big to sort, walked as recorded */
	struct arena_block *arena;

	/* unsorted mode: events read ahead (a ring), and the one returned */
	struct walk_ahead *ahead;
	size_t ahead_head, ahead_n;
	int ahead_rc;			/* 1 while the reader has more; its last rc */
	struct walk_ahead cur;
	__u64 nread;

	/* the stacks of the event returned last */
	struct walk_stk cur_stk;

	/* the task table, as of the current event */
	struct frec_map tidx;		/* tid -> index into threads */
	struct frec_thread *threads;
	size_t nthreads, tcap;
	/* the generation's table as it starts (every entry, duplicate tids
	 * too; an entry a tid left holds its state as the tid left it), and
	 * which of its entries the events recorded so far used for each tid
	 * (recorded order) */
	struct frec_thread *init;
	size_t icap;
	struct frec_map ridx;		/* tid -> entry index */
	const struct frec_event *pending;	/* exec/rename to apply before the next */
};

/* A file that starts with the snapshot magic but fails to open has a damaged
 * header; anything else is not a snapshot at all. */
static bool has_magic(const char *path)
{
	static const char magic[8] = "\x89" "FREC\r\n\x1a";
	char buf[sizeof(magic)];
	FILE *f = fopen(path, "rb");
	bool yes;

	if (!f)
		return false;
	yes = fread(buf, 1, sizeof(buf), f) == sizeof(buf) && !memcmp(buf, magic, sizeof(buf));
	fclose(f);
	return yes;
}

static const char *open_problem(const char *path, int err)
{
	switch (err) {
	case -EBADMSG:
		if (has_magic(path))
			return "damaged snapshot header (bad checksum or content); nothing can be read";
		return "not a frec snapshot (no frec header); give a .frec file written by frecd";
	case -EPROTONOSUPPORT:
		return "written by a newer frec (format version above " 
		       "the one this frec reads); upgrade frec to read it";
	case -ENODATA:
		return "truncated inside the header; the file is incomplete, take a new snapshot";
	default:
		return frec_strerror(err);
	}
}

struct frec_walk *frec_walk__open(const char *path, const struct frec_walk_opts *opts,
				  FILE *err, int *status)
{
	struct frec_walk *w = calloc(1, sizeof(*w));
	int rc;

	*status = FREC_EXIT_FAIL;
	if (!w || !(w->path = strdup(path))) {
		fprintf(err, "frec: %s: %s\n", path, strerror(ENOMEM));
		free(w);
		return NULL;
	}
	w->err = err;
	if (opts)
		w->opts = *opts;
	frec_map__init(&w->tidx);
	frec_map__init(&w->ridx);
	frec_map__init(&w->cpu_last);
	rc = frec_reader__open(path, &w->r);
	if (rc < 0) {
		fprintf(err, "frec: %s: %s\n", path, open_problem(path, rc));
		w->r = NULL;
		frec_walk__close(w);
		return NULL;
	}
	*status = FREC_EXIT_OK;
	return w;
}

static void arena_reset(struct frec_walk *w)
{
	struct arena_block *b = w->arena, *next;

	if (!b)
		return;
	/* keep one block for the next generation */
	for (next = b->next; next; next = b->next) {
		b->next = next->next;
		free(next);
	}
	b->used = 0;
}

int frec_walk__close(struct frec_walk *w)
{
	struct arena_block *b;
	int status;

	if (!w)
		return FREC_EXIT_FAIL;
	status = w->failed ? FREC_EXIT_FAIL : w->damaged ? FREC_EXIT_DAMAGED : FREC_EXIT_OK;
	if (w->r)
		frec_reader__free(w->r);
	while ((b = w->arena)) {
		w->arena = b->next;
		free(b);
	}
	free(w->evs);
	free(w->keys);
	free(w->stk);
	free(w->cpu_last_arr);
	free(w->ahead);
	free(w->threads);
	free(w->init);
	free(w->rb);
	frec_map__fini(&w->tidx);
	frec_map__fini(&w->ridx);
	frec_map__fini(&w->cpu_last);
	free(w->path);
	free(w);
	return status;
}

const struct frec_header *frec_walk__header(const struct frec_walk *w)
{
	return frec_reader__header(w->r);
}

const char *frec_walk__path(const struct frec_walk *w)
{
	return w->path;
}

void frec_walk__fail(struct frec_walk *w)
{
	w->failed = true;
}

struct frec_gen *frec_walk__gen(const struct frec_walk *w) { return w->g; }
const struct frec_gen_info *frec_walk__gen_info(const struct frec_walk *w) { return w->gi; }
__u64 frec_walk__gens(const struct frec_walk *w) { return w->gens; }
__u64 frec_walk__damaged(const struct frec_walk *w) { return w->damaged; }

__u64 frec_walk__gen_events(const struct frec_walk *w)
{
	return w->gen_sorted ? w->nevs : w->nread;
}

static const char *block_problem(int err)
{
	switch (err) {
	case -EBADMSG:
		return "bad checksum or undecodable content";
	case -ENODATA:
		return "the file ends inside it";
	default:
		return frec_strerror(err);
	}
}

static void damage(struct frec_walk *w, const char *what, int err)
{
	w->damaged++;
	if (w->opts.quiet)
		return;
	if (w->damaged <= MAX_DAMAGE_LINES)
		fprintf(w->err, "frec: %s: generation block %llu %s (%s), skipped\n", w->path,
			(unsigned long long)w->blocks, what, block_problem(err));
	else if (w->damaged == MAX_DAMAGE_LINES + 1)
		fprintf(w->err, "frec: %s: more damaged generation blocks, not listed\n", w->path);
}

static const char *arena_strdup(struct frec_walk *w, const char *s, size_t max)
{
	struct arena_block *b = w->arena;
	size_t n = 0;
	char *p;

	if (!s)
		return NULL;
	while (n < max && s[n])
		n++;
	if (n + 1 > ARENA_BLOCK)
		n = ARENA_BLOCK - 1;
	if (!b || b->used + n + 1 > ARENA_BLOCK) {
		b = malloc(sizeof(*b));
		if (!b)
			return "";
		b->used = 0;
		b->next = w->arena;
		w->arena = b;
	}
	p = b->data + b->used;
	memcpy(p, s, n);
	p[n] = '\0';
	b->used += n + 1;
	return p;
}

/* Copy the generation's task table: the names as the generation starts. */
static int load_threads(struct frec_walk *w)
{
	__u32 i, n = w->gi->nthreads;

	frec_map__clear(&w->tidx);
	frec_map__clear(&w->ridx);
	w->nthreads = 0;
	w->pending = NULL;
	if (n > w->tcap) {
		struct frec_thread *t = realloc(w->threads, n * sizeof(*t));

		if (!t)
			return -ENOMEM;
		w->threads = t;
		w->tcap = n;
	}
	if (n > w->icap) {
		struct frec_thread *t = realloc(w->init, n * sizeof(*t));

		if (!t)
			return -ENOMEM;
		w->init = t;
		w->icap = n;
	}
	for (i = 0; i < n; i++) {
		const struct frec_thread *t = frec_gen__thread_at(w->g, i);
		uint64_t *slot;
		bool created;

		if (!t)
			continue;
		w->init[i] = *t;
		w->init[i].comm[FREC_COMM_LEN - 1] = '\0';
		slot = frec_map__put(&w->tidx, t->tid, &created);
		if (!slot)
			return -ENOMEM;
		if (!created)
			continue;	/* a duplicate entry: its first event rebinds the tid */
		*slot = w->nthreads;
		slot = frec_map__put(&w->ridx, t->tid, &created);
		if (!slot)
			return -ENOMEM;
		*slot = i;
		w->threads[w->nthreads] = *t;
		w->threads[w->nthreads].comm[FREC_COMM_LEN - 1] = '\0';
		w->nthreads++;
	}
	return 0;
}

static struct frec_thread *thread_mut(struct frec_walk *w, __u32 tid, bool add)
{
	uint64_t *slot = frec_map__get(&w->tidx, tid);
	bool created;

	if (slot)
		return &w->threads[*slot];
	if (!add)
		return NULL;
	if (w->nthreads == w->tcap) {
		size_t ncap = w->tcap ? w->tcap * 2 : 64;
		struct frec_thread *t = realloc(w->threads, ncap * sizeof(*t));

		if (!t)
			return NULL;
		w->threads = t;
		w->tcap = ncap;
	}
	slot = frec_map__put(&w->tidx, tid, &created);
	if (!slot)
		return NULL;
	*slot = w->nthreads;
	memset(&w->threads[w->nthreads], 0, sizeof(w->threads[0]));
	w->threads[w->nthreads].tid = tid;
	return &w->threads[w->nthreads++];
}

static void set_comm(struct frec_thread *t, const char *comm)
{
	if (!t || !comm)
		return;
	strncpy(t->comm, comm, FREC_COMM_LEN - 1);
	t->comm[FREC_COMM_LEN - 1] = '\0';
}

/* What an event changes in the task table, applied once it has been seen. */
static void apply(struct frec_walk *w, const struct frec_event *ev)
{
	struct frec_thread *t, *p;

	switch (ev->type) {
	case FREC_EV_PROCESS_EXEC:
		t = thread_mut(w, ev->exec.pid, true);
		if (t && !t->tgid)
			t->tgid = ev->exec.pid;
		set_comm(t, ev->exec.comm);
		break;
	case FREC_EV_TASK_RENAME:
		set_comm(thread_mut(w, ev->rename.pid, true), ev->rename.newcomm);
		break;
	case FREC_EV_PROCESS_FORK:
		/* every generation should name the child; if not, it starts as a
		 * copy of its parent's name and cgroup, as fork does */
		if (frec_map__get(&w->tidx, ev->fork.child_pid))
			break;
		p = thread_mut(w, ev->fork.parent_pid, false);
		t = thread_mut(w, ev->fork.child_pid, true);
		if (t && p) {
			memcpy(t->comm, p->comm, FREC_COMM_LEN);
			t->cgroup = p->cgroup;
		}
		break;
	case FREC_EV_CGROUP:
		if (ev->tid && (t = thread_mut(w, ev->tid, true))) {
			if (!t->tgid)
				t->tgid = ev->tgid;
			t->cgroup = ev->cgroup.id;
		}
		break;
	default:
		break;
	}
}

/* Time order within a generation. Records from different CPUs are only
 * slightly out of order, so sort (ts, index) keys by insertion, which costs
 * one pass plus the few moves needed; an adversarial file that needs too many
 * moves falls back to qsort. The index makes the order stable and the keys
 * unique, and the events themselves never move. */
static int key_cmp(const void *a, const void *b)
{
	const struct walk_key *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int sort_events(struct frec_walk *w)
{
	size_t n = w->nevs, i, moves = 0, limit;
	struct walk_key *k;

	w->sorted_order = false;
	for (i = 1; i < n; i++)
		if (w->evs[i].ts < w->evs[i - 1].ts)
			break;
	if (i >= n)
		return 0;
	if (n > w->kcap) {
		k = realloc(w->keys, n * sizeof(*k));
		if (!k)
			return -ENOMEM;
		w->keys = k;
		w->kcap = n;
	}
	k = w->keys;
	for (i = 0; i < n; i++) {
		k[i].ts = w->evs[i].ts;
		k[i].idx = (__u32)i;
	}
	limit = 16 * n + 4096;
	for (i = 1; i < n && moves <= limit; i++) {
		struct walk_key x = k[i];
		size_t j = i;

		while (j > 0 && k[j - 1].ts > x.ts) {
			k[j] = k[j - 1];
			j--;
			moves++;
		}
		k[j] = x;
	}
	if (moves > limit)
		qsort(k, n, sizeof(*k), key_cmp);
	w->sorted_order = true;
	return 0;
}

/* Whether stack event st belongs to ev, the event before it on its cpu
 * (docs/FORMAT.md, type 14). */
static bool stack_of(const struct frec_event *ev, const struct frec_event *st)
{
	if (st->type != FREC_EV_STACK || ev->cpu != st->cpu || ev->ts != st->ts)
		return false;
	switch (ev->type) {
	case FREC_EV_SCHED_SWITCH:
		return ev->sw.prev_pid == st->tid;
	case FREC_EV_UPROBE:
	case FREC_EV_URETPROBE:
	case FREC_EV_USDT:
		return ev->tid == st->tid;
	default:
		return false;
	}
}

/* Pair the stack event just loaded (evs[n]) with the event before it on
 * its cpu; every event, stack ones too, becomes its cpu's last. */
static int pair_loaded(struct frec_walk *w, size_t n)
{
	const struct frec_event *ev = &w->evs[n];
	uint64_t *last;
	bool created;

	if (n >= w->scap) {
		size_t ncap = w->cap;
		struct walk_stk *s = realloc(w->stk, ncap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		w->stk = s;
		w->scap = ncap;
	}
	w->stk[n].k = w->stk[n].u = 0;
	if (ev->cpu < FREC_MAX_CPUS) {
		__u32 *l = &w->cpu_last_arr[ev->cpu];

		if (*l && ev->type == FREC_EV_STACK && stack_of(&w->evs[*l - 1], ev)) {
			w->stk[*l - 1].k = ev->stack.kstack;
			w->stk[*l - 1].u = ev->stack.ustack;
		}
		*l = (__u32)n + 1;
		return 0;
	}
	last = frec_map__put(&w->cpu_last, ev->cpu, &created);
	if (!last)
		return -ENOMEM;
	if (!created && *last && stack_of(&w->evs[*last - 1], ev)) {
		w->stk[*last - 1].k = ev->stack.kstack;
		w->stk[*last - 1].u = ev->stack.ustack;
	}
	*last = n + 1;
	return 0;
}

/* tid was named by the event just decoded: did the reader take another
 * entry for it than the one the walk names it by? */
static int note_entry(struct frec_walk *w, __u32 tid, struct walk_rebind *rb)
{
	const struct frec_thread *t = frec_gen__thread(w->g, tid);
	const struct frec_thread *base = frec_gen__thread_at(w->g, 0);
	uint64_t *slot, idx;
	bool created;

	if (!tid || !t || !base || rb->n >= WALK_REBIND_MAX)
		return 0;
	idx = (uint64_t)(t - base);
	if (idx >= w->gi->nthreads)
		return 0;
	slot = frec_map__put(&w->ridx, tid, &created);
	if (!slot)
		return -ENOMEM;
	/* a tid the table names starts at its first entry (load_threads) */
	if (!created && *slot != idx) {
		rb->tid[rb->n] = tid;
		rb->from[rb->n] = (__u32)*slot;
		rb->idx[rb->n] = (__u32)idx;
		rb->n++;
	}
	*slot = idx;
	return 0;
}

/* Every thread the event names, as the reader decodes them (reader_events.c). */
static int note_event(struct frec_walk *w, const struct frec_event *ev, struct walk_rebind *rb)
{
	__u32 a = 0, b = 0;
	int rc;

	rb->n = 0;
	switch (ev->type) {
	case FREC_EV_SCHED_SWITCH:
		a = ev->sw.prev_pid, b = ev->sw.next_pid;
		break;
	case FREC_EV_SCHED_WAKING:
	case FREC_EV_SCHED_WAKEUP:
	case FREC_EV_SCHED_WAKEUP_NEW:
		a = ev->wake.pid, b = ev->wake.waker;
		break;
	case FREC_EV_PROCESS_FORK:
		a = ev->fork.parent_pid, b = ev->fork.child_pid;
		break;
	case FREC_EV_PROCESS_EXEC:
		a = ev->exec.pid;
		break;
	case FREC_EV_PROCESS_EXIT:
		a = ev->exit.pid;
		break;
	case FREC_EV_TASK_RENAME:
		a = ev->rename.pid;
		break;
	case FREC_EV_MIGRATE_TASK:
		a = ev->migrate.pid;
		break;
	default:
		break;
	}
	if ((rc = note_entry(w, ev->tid, rb)))
		return rc;
	if (a && a != ev->tid && (rc = note_entry(w, a, rb)))
		return rc;
	if (b && b != ev->tid && b != a && (rc = note_entry(w, b, rb)))
		return rc;
	return 0;
}

/* Before ev is returned: the tids it moved to another entry are that
 * entry's threads now, named as the generation's table names them (or as
 * the tid left the entry, should it come back). */
static void rebind(struct frec_walk *w, const struct walk_rebind *rb)
{
	for (__u32 i = 0; i < rb->n; i++) {
		struct frec_thread *t = thread_mut(w, rb->tid[i], true);

		if (!t || rb->idx[i] >= w->gi->nthreads || rb->from[i] >= w->gi->nthreads)
			continue;
		w->init[rb->from[i]] = *t;
		*t = w->init[rb->idx[i]];
	}
}

static int load_gen(struct frec_walk *w)
{
	int rc;

	w->nevs = 0;
	w->pos = 0;
	arena_reset(w);
	frec_map__clear(&w->cpu_last);
	if (!w->cpu_last_arr && !(w->cpu_last_arr = calloc(FREC_MAX_CPUS, sizeof(__u32))))
		return -ENOMEM;
	memset(w->cpu_last_arr, 0, FREC_MAX_CPUS * sizeof(__u32));
	for (;;) {
		struct frec_event *ev;

		if (w->nevs == w->cap) {
			/* grow with the events decoded, never from the count the
			 * generation claims: a hostile file claims millions */
			size_t ncap = w->cap ? w->cap * 2 : 4096;
			struct frec_event *e;

			e = realloc(w->evs, ncap * sizeof(*e));
			if (!e)
				return -ENOMEM;
			w->evs = e;
			w->cap = ncap;
		}
		if (w->nevs == w->rbcap) {
			size_t ncap = w->cap;
			struct walk_rebind *rb = realloc(w->rb, ncap * sizeof(*rb));

			if (!rb)
				return -ENOMEM;
			w->rb = rb;
			w->rbcap = ncap;
		}
		ev = &w->evs[w->nevs];
		rc = frec_gen__next_event(w->g, ev);
		if (rc <= 0)
			break;
		if (note_event(w, ev, &w->rb[w->nevs]))
			return -ENOMEM;
		/* strings point into the reader's generation: copy them */
		switch (ev->type) {
		case FREC_EV_PROCESS_EXEC:
			ev->exec.filename = arena_strdup(w, ev->exec.filename, FREC_FILENAME_LEN);
			ev->exec.comm = arena_strdup(w, ev->exec.comm, FREC_COMM_LEN);
			break;
		case FREC_EV_TASK_RENAME:
			ev->rename.newcomm = arena_strdup(w, ev->rename.newcomm, FREC_COMM_LEN);
			break;
		default:
			break;
		}
		if (pair_loaded(w, w->nevs))
			return -ENOMEM;
		w->nevs++;
	}
	if (rc < 0)
		damage(w, "has undecodable events; the events before them are kept", rc);
	return sort_events(w);
}

int frec_walk__next_gen(struct frec_walk *w)
{
	unsigned int errors = 0;
	int rc;

	if (w->failed)
		return 0;
	for (;;) {
		rc = frec_reader__next_gen(w->r, &w->g);
		if (rc == 0) {
			w->g = NULL;
			w->gi = NULL;
			return 0;
		}
		w->blocks++;
		if (rc > 0)
			break;
		damage(w, rc == -ENODATA ? "is cut short" : "is damaged", rc);
		if (++errors >= MAX_CONSECUTIVE_ERRORS) {
			w->g = NULL;
			return 0;
		}
	}
	w->gens++;
	w->gi = frec_gen__info(w->g);
	w->nread = 0;
	w->ahead_head = w->ahead_n = 0;
	w->ahead_rc = 1;
	w->cur_stk.k = w->cur_stk.u = 0;
	/*
	 * Sorting buffers the generation, about 120 bytes an event: a block
	 * of a few KiB that deflates into tens of millions of valid events
	 * must not make that gigabytes. Such a generation is walked in the
	 * order it was recorded, which frecd's time-merged rings make nearly
	 * the time order, and said so once.
	 */
	w->gen_sorted = w->opts.sorted && w->gi->nevents <= FREC_WALK_SORT_MAX;
	if (w->opts.sorted && !w->gen_sorted && !w->unsorted_gens++ && !w->opts.quiet)
		fprintf(w->err, "frec: %s: generation block %llu holds %llu events, more than %u: "
			"it and any other this large are shown in recorded order, not sorted\n",
			w->path, (unsigned long long)w->blocks, (unsigned long long)w->gi->nevents,
			FREC_WALK_SORT_MAX);
	rc = load_threads(w);
	if (!rc && w->gen_sorted)
		rc = load_gen(w);
	if (rc) {
		fprintf(w->err, "frec: %s: %s\n", w->path, strerror(-rc));
		w->failed = true;
		return 0;
	}
	return 1;
}

static void copy_strings(struct walk_ahead *a)
{
	struct frec_event *ev = &a->ev;

	switch (ev->type) {
	case FREC_EV_PROCESS_EXEC:
		if (ev->exec.filename && ev->exec.filename != a->s1) {
			snprintf(a->s1, sizeof(a->s1), "%s", ev->exec.filename);
			ev->exec.filename = a->s1;
		}
		if (ev->exec.comm && ev->exec.comm != a->s2) {
			snprintf(a->s2, sizeof(a->s2), "%s", ev->exec.comm);
			ev->exec.comm = a->s2;
		}
		break;
	case FREC_EV_TASK_RENAME:
		if (ev->rename.newcomm && ev->rename.newcomm != a->s2) {
			snprintf(a->s2, sizeof(a->s2), "%s", ev->rename.newcomm);
			ev->rename.newcomm = a->s2;
		}
		break;
	default:
		break;
	}
}

static struct walk_ahead *ahead_at(struct frec_walk *w, size_t i)
{
	return &w->ahead[(w->ahead_head + i) % AHEAD_SLOTS];
}

/* Read one more event into the ring: 1, or the reader's 0 (end) or error,
 * which stays the answer from then on. */
static int ahead_read(struct frec_walk *w)
{
	struct walk_ahead *a;
	int rc;

	if (w->ahead_rc <= 0 || w->ahead_n >= AHEAD_SLOTS)
		return w->ahead_rc <= 0 ? w->ahead_rc : 0;
	if (!w->ahead && !(w->ahead = calloc(AHEAD_SLOTS, sizeof(*w->ahead)))) {
		w->ahead_rc = -ENOMEM;
		return w->ahead_rc;
	}
	a = ahead_at(w, w->ahead_n);
	rc = frec_gen__next_event(w->g, &a->ev);
	if (rc <= 0) {
		w->ahead_rc = rc;
		return rc;
	}
	if (note_event(w, &a->ev, &a->rb)) {
		w->ahead_rc = -ENOMEM;
		return w->ahead_rc;
	}
	copy_strings(a);
	w->ahead_n++;
	w->nread++;
	return 1;
}

/* Unsorted: the next event that is not a stack event, with the stacks of
 * the stack event that follows it on its cpu within the lookahead. */
static const struct frec_event *next_unsorted(struct frec_walk *w)
{
	struct walk_ahead *head;
	size_t i;

	for (;;) {
		if (!w->ahead_n && ahead_read(w) <= 0) {
			if (w->ahead_rc < 0) {
				if (w->ahead_rc == -ENOMEM) {
					fprintf(w->err, "frec: %s: %s\n", w->path, strerror(ENOMEM));
					w->failed = true;
				} else {
					damage(w, "has undecodable events; the events before them are kept",
					       w->ahead_rc);
				}
				w->ahead_rc = 0;
			}
			return NULL;
		}
		head = ahead_at(w, 0);
		if (head->ev.type != FREC_EV_STACK || w->opts.stack_events)
			break;
		/* its event took it, or it belongs to none */
		w->ahead_head = (w->ahead_head + 1) % AHEAD_SLOTS;
		w->ahead_n--;
	}
	for (i = 1; i <= FREC_WALK_LOOKAHEAD && head->ev.type != FREC_EV_STACK; i++) {
		struct walk_ahead *a;

		if (i >= w->ahead_n && ahead_read(w) <= 0)
			break;
		a = ahead_at(w, i);
		if (a->ev.cpu != head->ev.cpu)
			continue;
		if (stack_of(&head->ev, &a->ev)) {
			w->cur_stk.k = a->ev.stack.kstack;
			w->cur_stk.u = a->ev.stack.ustack;
		}
		break;
	}
	w->cur.ev = head->ev;
	w->cur.rb = head->rb;
	copy_strings(&w->cur);
	w->ahead_head = (w->ahead_head + 1) % AHEAD_SLOTS;
	w->ahead_n--;
	return &w->cur.ev;
}

const struct frec_event *frec_walk__next_event(struct frec_walk *w)
{
	const struct frec_event *ev;

	if (w->pending) {
		apply(w, w->pending);
		w->pending = NULL;
	}
	w->cur_stk.k = w->cur_stk.u = 0;
	if (!w->g)
		return NULL;
	if (!w->gen_sorted) {
		ev = next_unsorted(w);
		if (ev)
			rebind(w, &w->cur.rb);
		w->pending = ev;
		return ev;
	}
	do {
		size_t i;

		if (w->pos >= w->nevs)
			return NULL;
		i = w->sorted_order ? w->keys[w->pos].idx : w->pos;
		w->pos++;
		ev = &w->evs[i];
		w->cur_stk = w->stk[i];
		rebind(w, &w->rb[i]);
	} while (ev->type == FREC_EV_STACK && !w->opts.stack_events);
	w->pending = ev;
	return ev;
}

bool frec_walk__stacks(const struct frec_walk *w, const struct frec_stack **kstack,
		       const struct frec_stack **ustack)
{
	const struct frec_stack *k = NULL, *u = NULL;

	if (w->g) {
		k = w->cur_stk.k ? frec_gen__stack(w->g, w->cur_stk.k) : NULL;
		u = w->cur_stk.u ? frec_gen__stack(w->g, w->cur_stk.u) : NULL;
	}
	if (kstack)
		*kstack = k;
	if (ustack)
		*ustack = u;
	return k || u;
}

size_t frec_walk__nthreads(const struct frec_walk *w)
{
	return w->nthreads;
}

const struct frec_thread *frec_walk__thread_at(const struct frec_walk *w, size_t i)
{
	return i < w->nthreads ? &w->threads[i] : NULL;
}

const struct frec_thread *frec_walk__thread(const struct frec_walk *w, __u32 tid)
{
	uint64_t *slot = frec_map__get(&w->tidx, tid);

	return slot ? &w->threads[*slot] : NULL;
}

/* "swapper/N" for the first CPUs, without a snprintf per event */
#define SWAPPER_NAMES	256
#define SW10(n) "swapper/" #n "0", "swapper/" #n "1", "swapper/" #n "2", "swapper/" #n "3", \
	"swapper/" #n "4", "swapper/" #n "5", "swapper/" #n "6", "swapper/" #n "7", \
	"swapper/" #n "8", "swapper/" #n "9"
static const char *const swapper_names[SWAPPER_NAMES] = {
	"swapper/0", "swapper/1", "swapper/2", "swapper/3", "swapper/4",
	"swapper/5", "swapper/6", "swapper/7", "swapper/8", "swapper/9",
	SW10(1), SW10(2), SW10(3), SW10(4), SW10(5), SW10(6), SW10(7), SW10(8), SW10(9),
	SW10(10), SW10(11), SW10(12), SW10(13), SW10(14), SW10(15), SW10(16), SW10(17),
	SW10(18), SW10(19), SW10(20), SW10(21), SW10(22), SW10(23), SW10(24),
	"swapper/250", "swapper/251", "swapper/252", "swapper/253", "swapper/254", "swapper/255",
};

const char *frec_walk__comm(const struct frec_walk *w, __u32 tid, __u32 cpu,
			    char buf[FREC_COMM_LEN + 8])
{
	const struct frec_thread *t;

	/* pid 0 is a different idle task on each CPU, named after it */
	if (tid == 0) {
		if (cpu < SWAPPER_NAMES)
			return swapper_names[cpu];
		snprintf(buf, FREC_COMM_LEN + 8, "swapper/%u", cpu);
		return buf;
	}
	t = frec_walk__thread(w, tid);
	return t && t->comm[0] ? t->comm : "<...>";
}

__u32 frec_walk__tgid(const struct frec_walk *w, __u32 tid)
{
	const struct frec_thread *t = frec_walk__thread(w, tid);

	return t && t->tgid ? t->tgid : tid;
}

__u64 frec_walk__cgroup_id(const struct frec_walk *w, __u32 tid)
{
	const struct frec_thread *t;

	/* tid 0 is each CPU's idle task, never placed */
	if (!tid || !(t = frec_walk__thread(w, tid)))
		return 0;
	return t->cgroup;
}

const struct frec_cgroup_info *frec_walk__cgroup_info(const struct frec_walk *w, __u64 id)
{
	return id && w->g ? frec_gen__cgroup(w->g, id) : NULL;
}

const struct frec_cgroup_info *frec_walk__cgroup(const struct frec_walk *w, __u32 tid)
{
	return frec_walk__cgroup_info(w, frec_walk__cgroup_id(w, tid));
}

const struct frec_cgroup_info *frec_walk__process_cgroup(const struct frec_walk *w, __u32 tgid)
{
	const struct frec_cgroup_info *c = frec_walk__cgroup(w, tgid);
	size_t i;

	if (c && c->path && c->path[0])
		return c;
	for (i = 0; i < w->nthreads; i++) {
		const struct frec_thread *t = &w->threads[i];

		if (t->tgid != tgid || !t->tid || !t->cgroup)
			continue;
		c = frec_walk__cgroup_info(w, t->cgroup);
		if (c && c->path && c->path[0])
			return c;
	}
	return NULL;
}

const char *frec_cgroup__short(const struct frec_cgroup_info *c, char buf[16], size_t *len)
{
	const char *leaf;

	if (c && c->container && c->container[0]) {
		snprintf(buf, 16, "%.12s", c->container);
		*len = strlen(buf);
		return buf;
	}
	if (!c || !c->path || !c->path[0]) {
		*len = 0;
		return "";
	}
	leaf = strrchr(c->path, '/');
	leaf = leaf && leaf[1] ? leaf + 1 : c->path;
	*len = strlen(leaf);
	return leaf;
}

const struct frec_probe_info *frec_walk__probe(const struct frec_walk *w, __u32 id)
{
	return w->g ? frec_gen__probe(w->g, id) : NULL;
}

const struct frec_trigger_info *frec_walk__trigger(const struct frec_walk *w, __u32 id)
{
	return w->g ? frec_gen__trigger(w->g, id) : NULL;
}

const char *frec_walk__trigger_name(const struct frec_walk *w, __u32 id, char buf[16])
{
	const struct frec_trigger_info *t = frec_walk__trigger(w, id);

	if (t && t->name && t->name[0])
		return t->name;
	snprintf(buf, 16, "#%u", id);
	return buf;
}
