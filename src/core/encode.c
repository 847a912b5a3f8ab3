// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The open generation: its thread and string tables and the compact event
 * encoder (docs/FORMAT.md "Events"). This is the hot path: no allocation,
 * one task-table lookup per thread an event names (none for the running
 * thread, which is inferred from the last switch on the same CPU).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "recorder_int.h"
#include "varint.h"

/* Slots for n cgroup ids: a power of two at least twice n. */
static uint32_t cg_slots_for(uint32_t n)
{
	uint32_t slots = 16;

	while (slots < 2ull * n)
		slots *= 2;
	return slots;
}

int gen_alloc(struct frec_recorder *r, uint32_t thread_cap, uint32_t max_cgroups)
{
	struct open_gen *g = &r->g;
	uint32_t cg_slots = cg_slots_for(max_cgroups);

	g->thread_cap = thread_cap;
	g->threads = malloc(sizeof(*g->threads) * thread_cap);
	g->cur = malloc(sizeof(*g->cur) * r->ncpus);
	if (r->cpu_groups) {
		g->recent = malloc(sizeof(*g->recent) * RECENT_SLOTS * r->ncpus);
		if (!g->recent)
			return -ENOMEM;
	}
	g->last = calloc(r->ncpus, sizeof(*g->last));
	g->drops = calloc(r->ncpus, sizeof(*g->drops));
	g->unstored = calloc(r->ncpus + 1, sizeof(*g->unstored));
	g->unstored_first = calloc(r->ncpus + 1, sizeof(*g->unstored_first));
	g->unstored_last = calloc(r->ncpus + 1, sizeof(*g->unstored_last));
	g->by_cpu = calloc(r->ncpus + 1, sizeof(*g->by_cpu));
	g->str_arena = malloc(GEN_STR_ARENA_CAP);
	g->str_off = malloc(sizeof(uint32_t) * GEN_STR_CAP);
	g->str_len = malloc(sizeof(uint32_t) * GEN_STR_CAP);
	g->str_slot = malloc(sizeof(uint32_t) * GEN_STR_CAP);
	g->str_hash = calloc(GEN_STR_SLOTS, sizeof(uint32_t));
	g->cg_cap = max_cgroups;
	g->cg_mask = cg_slots - 1;
	g->cg_slots = calloc(cg_slots, sizeof(*g->cg_slots));
	g->cg_ids = malloc(sizeof(*g->cg_ids) * max_cgroups);
	g->cg_sorted = malloc(sizeof(*g->cg_sorted) * max_cgroups);
	g->cg_slot = malloc(sizeof(*g->cg_slot) * max_cgroups);
	g->cg_names_cap = (size_t)max_cgroups * CGROUP_NAME_BYTES;
	g->cg_names = malloc(g->cg_names_cap);
	if (!g->cg_slots || !g->cg_ids || !g->cg_sorted || !g->cg_slot || !g->cg_names)
		return -ENOMEM;
	if (!g->threads || !g->cur || !g->last || !g->drops || !g->unstored || !g->unstored_first ||
	    !g->unstored_last || !g->by_cpu || !g->str_arena || !g->str_off ||
	    !g->str_len || !g->str_slot || !g->str_hash)
		return -ENOMEM;
	g->head = g->tail = CHUNK_NONE;
	g->nstr = 0;
	return 0;
}

void gen_free_tables(struct frec_recorder *r)
{
	struct open_gen *g = &r->g;

	free(g->threads);
	free(g->cur);
	free(g->recent);
	free(g->last);
	free(g->drops);
	free(g->unstored);
	free(g->unstored_first);
	free(g->unstored_last);
	free(g->by_cpu);
	free(g->str_arena);
	free(g->str_off);
	free(g->str_len);
	free(g->str_slot);
	free(g->str_hash);
	free(g->cg_slots);
	free(g->cg_ids);
	free(g->cg_sorted);
	free(g->cg_slot);
	free(g->cg_names);
	stacks_fini(&g->stacks);
}

/* Start a new, empty generation. The raw chain must already be given back. */
void gen_reset(struct frec_recorder *r, uint64_t now)
{
	struct open_gen *g = &r->g;

	/* The recorder's totals count events when their generation ends. */
	r->st.events += g->nevents;
	for (uint32_t t = 0; t < FREC_EV__MAX; t++)
		r->st.events_by_type[t] += g->by_type[t];
	g->seq = r->next_seq++;
	g->stamp = (uint32_t)g->seq;
	if (!g->stamp)	/* 0 means "no generation" in task and probe stamps */
		g->stamp = g->seq = r->next_seq++;
	r->tasks.now = r->procs.now = g->stamp;	/* seen of what comes now */
	g->open_ts = now;
	g->prev_ts = 0;
	g->min_ts = UINT64_MAX;
	g->max_ts = 0;
	g->nevents = 0;
	g->lost = 0;
	memset(g->by_type, 0, sizeof(g->by_type));
	g->head = g->tail = CHUNK_NONE;
	g->nchunks = 0;
	g->cbase = NULL;
	g->pos = 1;
	g->lim = 0;
	g->done_bytes = 0;
	g->nthreads = 0;
	for (uint32_t i = 0; i < r->ncpus; i++)
		g->cur[i].idx = NO_THREAD;
	if (g->recent)	/* RECENT_NONE is all ones */
		memset(g->recent, 0xff, sizeof(*g->recent) * RECENT_SLOTS * r->ncpus);
	memset(g->drops, 0, sizeof(*g->drops) * r->ncpus);
	memset(g->by_cpu, 0, sizeof(*g->by_cpu) * (r->ncpus + 1));
	/* Clear only the hash slots this generation used. */
	for (uint32_t i = 0; i < g->nstr; i++)
		g->str_hash[g->str_slot[i]] = 0;
	g->nstr = 0;
	g->str_used = 0;
	stacks_reset(&g->stacks);
	g->stacks_full = false;
	for (uint32_t i = 0; i < g->ncg; i++)
		g->cg_slots[g->cg_slot[i]] = 0;
	g->ncg = 0;
	if (g->has_supp) {
		memset(g->supp, 0, sizeof(g->supp));
		g->has_supp = false;
	}
}

/*
 * The one test an event makes before it is encoded is pos <= lim. lim is
 * where the tail chunk could no longer take a largest event, or where the
 * generation reaches gen_max_bytes, whichever comes first; a table that
 * fills up sets it to 0. Past it, the slow path seals or takes a chunk.
 */
void gen_set_lim(struct frec_recorder *r)
{
	struct open_gen *g = &r->g;
	uint64_t raw = gen_raw_bytes(g);
	uint64_t budget = r->gen_max > raw ? r->gen_max - raw : 0;
	uint32_t lim = r->pool.chunk_bytes - EV_MAX_BYTES;

	if (g->pos + budget < lim)
		lim = g->pos + (uint32_t)budget;
	g->lim = gen_tables_full(g) ? 0 : lim;
}

/* Close the tail chunk and append a fresh one. */
int gen_new_chunk(struct frec_recorder *r)
{
	struct open_gen *g = &r->g;
	uint32_t c = rec_chunk_get(r);

	if (c == CHUNK_NONE)
		return -ENOSPC;
	g->cbase = pool_ptr(&r->pool, c);
	if (g->tail == CHUNK_NONE) {
		g->head = c;
		g->pos = BLOCK_HDR_LEN;	/* filled in when sealed */
	} else {
		r->pool.used[g->tail] = g->pos;
		r->pool.next[g->tail] = c;
		g->done_bytes += g->pos;
		g->pos = 0;
	}
	g->tail = c;
	g->nchunks++;
	g->lim = r->pool.chunk_bytes - EV_MAX_BYTES;
	return 0;
}

static inline uint32_t cg_hash(uint64_t id, uint32_t mask)
{
	return (uint32_t)((id * 0x9e3779b97f4a7c15ull) >> 32) & mask;
}

bool gen_cgroup_add(struct frec_recorder *r, uint64_t id)
{
	struct open_gen *g = &r->g;
	uint32_t i = cg_hash(id, g->cg_mask);

	for (;;) {
		uint64_t v = g->cg_slots[i];

		if (v == id)
			return true;
		if (!v)
			break;
		i = (i + 1) & g->cg_mask;
	}
	if (g->ncg >= g->cg_cap)
		return false;
	g->cg_slots[i] = id;
	g->cg_slot[g->ncg] = i;
	g->cg_ids[g->ncg++] = id;
	if (unlikely(gen_tables_full(g)))
		g->lim = 0;	/* seal before the next event */
	if (r->has_namer && r->namer.seen)
		r->namer.seen(r->namer.ctx, id);
	return true;
}

/* comm is normalised (see comm_copy); cgroup 0 is unknown. */
static uint32_t thread_append(struct frec_recorder *r, uint32_t tid, uint32_t tgid,
			      const char *comm, uint64_t cgroup)
{
	struct open_gen *g = &r->g;
	uint32_t i = g->nthreads++;
	struct gen_thread *t = &g->threads[i];

	t->tid = tid;
	t->tgid = tgid;
	memcpy(t->comm, comm, FREC_COMM_LEN);
	t->cgroup = cgroup;
	if (cgroup)	/* section 3 names it: section 2 must too */
		gen_cgroup_add(r, cgroup);
	if (unlikely(g->nthreads + EV_MAX_THREADS > g->thread_cap))
		g->lim = 0;	/* seal before the next event */
	return i;
}

/*
 * The generation's index of thread tid, adding it (with its tgid and comm
 * from the task table) at its first mention. has_tgid: the event says which
 * process tid belongs to; a task that changed process (pid reuse) gets a
 * new entry so that earlier events keep their tgid. comm: the name a record
 * gives, which keeps the task table current (NULL: none).
 */
static __attribute__((noinline)) uint32_t
intern_task_slow(struct frec_recorder *r, struct task *t, uint32_t tid, uint32_t tgid,
		 bool has_tgid, const char *comm)
{
	struct open_gen *g = &r->g;
	bool inserted;
	uint32_t i;

	if (!t)
		t = tasks_get(&r->tasks, tid, &inserted);
	if (unlikely(!t)) {	/* task table full: name it, without sharing */
		char c[FREC_COMM_LEN];

		r->st.threads_untracked++;
		comm_copy(c, comm ? comm : "");
		return thread_append(r, tid, has_tgid ? tgid : tid, c, 0);
	}
	if (has_tgid && unlikely(t->tgid != tgid))
		task_renew(t, tgid);	/* another process now: pid reuse */
	/* tid 0 is every CPU's idle task, "swapper/N": keep the first name
	 * rather than rewrite it on every switch. */
	if (comm && unlikely(!comm_eq(t->comm, comm)) && (tid || !t->comm[0])) {
		/* A known name changed with no exec or rename record: that
		 * record was lost or filtered out (-p, --cgroup); or /proc
		 * seeded it otherwise (a kworker's, which it decorates). A
		 * main thread's: the command line kept may be the old
		 * program's, so it is read again, as after an exec. (tid is
		 * not 0 here.) */
		if (t->comm[0]) {
			r->st.names_repaired++;
			if (tid == t->tgid)
				rec_cmdline_stale(r, tid);
		}
		comm_copy(t->comm, comm);
	}
	if (t->stamp == g->stamp)
		return t->idx & TASK_IDX_MASK;
	i = thread_append(r, tid, t->tgid, t->comm, t->cgroup);
	t->stamp = g->stamp;
	t->seen = g->stamp;
	t->idx = i | (t->idx & TASK_EXITED);
	return i;
}

/*
 * Most mentions are of a thread the generation already lists, under the
 * name and process it has, found in its home slot (or given by the
 * caller): that case inline, in a few loads and compares (the comm's 16
 * bytes as two words; the idle task keeps its first name, see above);
 * anything else (a first mention, a new name, pid reuse, a slot further
 * on, a full table) takes intern_task_slow(), which looks the task up
 * again unless the caller gave it.
 */
static inline uint32_t intern_task(struct frec_recorder *r, struct task *t, uint32_t tid, uint32_t tgid,
				   bool has_tgid, const char *comm)
{
	struct task *h = t ? t : tasks_home(&r->tasks, tid);

	if (likely(h) && h->stamp == r->g.stamp && (!has_tgid || h->tgid == tgid) &&
	    (!comm || comm_words_eq(h->comm, comm) || (!tid && h->comm[0])))
		return h->idx & TASK_IDX_MASK;
	return intern_task_slow(r, t, tid, tgid, has_tgid, comm);
}

static inline uint32_t intern(struct frec_recorder *r, uint32_t tid, uint32_t tgid, bool has_tgid,
			      const char *comm)
{
	return intern_task(r, NULL, tid, tgid, has_tgid, comm);
}

/* The thread a record names as "a" or "b", with its names if it gives them. */
static inline uint32_t intern_a(struct frec_recorder *r, uint32_t tid, const struct rec_names *nm)
{
	if (nm && nm->a)
		return intern(r, tid, nm->a_tgid, true, nm->a_comm);
	return intern(r, tid, 0, false, NULL);
}

static inline uint32_t intern_b(struct frec_recorder *r, uint32_t tid, const struct rec_names *nm)
{
	if (nm && nm->b)
		return intern_task(r, nm->b_task, tid, nm->b_tgid, true, nm->b_comm);
	return intern(r, tid, 0, false, NULL);
}

static uint32_t str_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	return h;
}

/* s is n bytes; the caller checked that there is room. */
static uint32_t str_intern_n(struct open_gen *g, const char *s, size_t n)
{
	uint32_t i = str_hash(s, n) & (GEN_STR_SLOTS - 1);
	uint32_t idx;

	for (;;) {
		uint32_t v = g->str_hash[i];

		if (!v)
			break;
		v--;
		if (g->str_len[v] == n && !memcmp(g->str_arena + g->str_off[v], s, n))
			return v;
		i = (i + 1) & (GEN_STR_SLOTS - 1);
	}
	idx = g->nstr++;
	g->str_off[idx] = g->str_used;
	g->str_len[idx] = (uint32_t)n;
	g->str_slot[idx] = i;
	g->str_hash[i] = idx + 1;
	if (n)
		memcpy(g->str_arena + g->str_used, s, n);
	g->str_arena[g->str_used + n] = '\0';
	g->str_used += (uint32_t)n + 1;
	if (unlikely(gen_tables_full(g)))
		g->lim = 0;	/* seal before the next event */
	return idx;
}

/* The caller checked that there is room (GEN_STR_ROOM, two entries). */
static uint32_t str_intern(struct open_gen *g, const char *s, size_t max)
{
	return str_intern_n(g, s ? s : "", s ? strnlen(s, max) : 0);
}

int gen_str_add(struct open_gen *g, const char *s, size_t n)
{
	if (g->nstr >= GEN_STR_CAP || n + 1 > GEN_STR_ARENA_CAP - g->str_used)
		return -1;
	return (int)str_intern_n(g, s, n);
}

int probe_find(const struct frec_recorder *r, uint32_t id)
{
	if (id < FREC_MAX_PROBES)
		return (int)r->probe_by_id[id] - 1;
	for (uint32_t i = 0; i < r->nprobes; i++)
		if (r->probes[i].info.id == id)
			return (int)i;
	return -1;
}

static inline uint8_t *put_prio(uint8_t *p, __s32 prio, unsigned flag, unsigned *info)
{
	if (prio == DEFAULT_PRIO)
		return p;
	*info |= flag;
	return put_varint(p, zigzag(prio));
}

/* An extended type's body, after its varint length (at most EXT_BODY_MAX). */
static uint8_t *put_ext_body(uint8_t *p, const struct frec_event *ev)
{
	uint8_t body[EXT_BODY_MAX], *b = body;

	switch (ev->type) {
	case FREC_EV_TRIGGER:
		b = put_varint(b, ev->trigger.id);
		b = put_varint(b, ev->trigger.flags);
		b = put_varint(b, ev->trigger.value);
		b = put_varint(b, ev->trigger.count);
		break;
	case FREC_EV_GAP:
		b = put_varint(b, ev->gap.kind);
		b = put_varint(b, zigzag((int64_t)(ev->gap.first_ts - ev->ts)));
		b = put_varint(b, zigzag((int64_t)(ev->gap.last_ts - ev->ts)));
		break;
	case FREC_EV_CGROUP:
		b = put_varint(b, ev->cgroup.id);
		break;
	}
	p = put_varint(p, (uint64_t)(b - body));
	memcpy(p, body, (size_t)(b - body));
	return p + (b - body);
}

/* idx as coded through cpu's recent threads (format.h), which it joins. */
static inline uint64_t recent_code(struct open_gen *g, uint32_t cpu, uint32_t idx)
{
	return recent_put(g->recent + (size_t)cpu * RECENT_SLOTS, idx);
}

/*
 * Encode ev at the end of the raw stream (nm: the record's names, or NULL).
 * The caller checked pos <= lim: a largest event fits in the tail chunk and
 * the thread and string tables have room for one more event.
 */
void gen_encode(struct frec_recorder *r, const struct frec_event *ev, const struct rec_names *nm)
{
	struct open_gen *g = &r->g;
	uint8_t *p = g->cbase + g->pos, *infop;
	uint32_t cpu = ev->cpu, type = ev->type;
	struct cpu_thread *cur = cpu < r->ncpus ? &g->cur[cpu] : NULL;
	uint32_t ti = NO_THREAD, x;
	unsigned info = 0;

	uint32_t nib = type < EXT_TYPE_MIN ? type : FREC_EV_ESCAPE;
	uint64_t dts = zigzag((int64_t)(ev->ts - g->prev_ts)), v;

	if (likely(!r->cpu_groups)) {
		if (likely(cpu < EV_CPU_ESC)) {
			*p++ = (uint8_t)(nib | cpu << EV_CPU_SHIFT);
		} else {
			*p++ = (uint8_t)(nib | EV_CPU_ESC << EV_CPU_SHIFT);
			p = put_varint(p, cpu);
		}
		if (unlikely(nib == FREC_EV_ESCAPE))
			p = put_varint(p, type);
		p = put_varint(p, dts);
	} else if (likely(cpu < r->ncpus &&
			  wide_pack(dts, r->cpu_groups, cpu >> EV_CPU_GROUP_SHIFT, &v))) {
		/* wide: the cpu's high part rides in the time delta (format.h) */
		*p++ = (uint8_t)(nib | (cpu & EV_CPU_ESC) << EV_CPU_SHIFT);
		if (unlikely(nib == FREC_EV_ESCAPE))
			p = put_varint(p, type);
		p = put_varint(p, v);
	} else {
		*p++ = (uint8_t)nib;
		if (unlikely(nib == FREC_EV_ESCAPE))
			p = put_varint(p, type);
		p = put_varint(p, r->cpu_groups);	/* the escape */
		p = put_varint(p, cpu);
		p = put_varint(p, dts);
	}
	g->prev_ts = ev->ts;
	infop = p++;

	/* (the first test alone settles the scheduler's types) */
	if (unlikely(type >= FREC_EV_LOST) &&
	    (type == FREC_EV_LOST || (type >= EXT_TYPE_MIN && type != FREC_EV_CGROUP)) &&
	    !ev->tid && !ev->tgid) {
		info |= LOST_NOTHREAD;	/* == EXT_NOTHREAD */
	} else if (type != FREC_EV_CGROUP && cur && cur->idx != NO_THREAD && cur->tid == ev->tid &&
		   cur->tgid == ev->tgid) {
		ti = cur->idx;	/* the running thread: implicit */
	} else {
		/* A switch's prev is usually the running thread: its names. */
		const char *comm = nm && nm->a && nm->a_tid == ev->tid ? nm->a_comm : NULL;

		ti = intern(r, ev->tid, ev->tgid, true, comm);
		info |= INFO_T;
		p = put_varint(p, ti);
	}

	switch (type) {
	case FREC_EV_SCHED_SWITCH: {
		unsigned sc = state_code(ev->sw.prev_state);
		uint32_t pi = ev->sw.prev_pid == ev->tid ? ti : intern_a(r, ev->sw.prev_pid, nm);
		uint32_t ni, ntgid;

		if (pi != ti) {
			info |= SW_PREV;
			p = put_varint(p, pi);
		}
		if (ev->sw.next_pid == ev->tid) {
			ni = ti;
			ntgid = ev->tgid;
		} else {
			ni = intern_b(r, ev->sw.next_pid, nm);
			/* a record's tgid is its entry's (intern_task) */
			ntgid = nm && nm->b ? nm->b_tgid : g->threads[ni].tgid;
		}
		p = put_varint(p, g->recent && cur ? recent_code(g, cpu, ni) : ni);
		info |= sc << SW_STATE_SHIFT;
		if (sc == STATE_ESC)
			p = put_varint(p, ev->sw.prev_state);
		p = put_prio(p, ev->sw.prev_prio, SW_PREV_PRIO, &info);
		p = put_prio(p, ev->sw.next_prio, SW_NEXT_PRIO, &info);
		if (cur) {
			cur->idx = ni;
			cur->tid = ev->sw.next_pid;
			cur->tgid = ntgid;
		}
		break;
	}
	case FREC_EV_SCHED_WAKING:
	case FREC_EV_SCHED_WAKEUP:
	case FREC_EV_SCHED_WAKEUP_NEW: {
		uint32_t tc = ev->wake.target_cpu, pi = intern_a(r, ev->wake.pid, nm);
		bool esc;

		if (likely(!r->cpu_groups)) {
			esc = tc >= EV_CPU_ESC;
			info |= (esc ? EV_CPU_ESC : tc) << WK_CPU_SHIFT;
			p = put_varint(p, pi);
		} else {
			/* wide: the target's high part rides in pid's index */
			esc = tc >= r->ncpus;
			if (!esc)
				info |= (tc & EV_CPU_ESC) << WK_CPU_SHIFT;
			p = put_varint(p, (esc ? pi : recent_code(g, tc, pi)) * (r->cpu_groups + 1) +
					  (esc ? r->cpu_groups : tc >> EV_CPU_GROUP_SHIFT));
		}
		if (ev->wake.waker != ev->tid || ti == NO_THREAD) {
			info |= WK_WAKER;
			p = put_varint(p, intern(r, ev->wake.waker, 0, false, NULL));
		}
		p = put_prio(p, ev->wake.prio, WK_PRIO, &info);
		if (esc)
			p = put_varint(p, tc);
		break;
	}
	case FREC_EV_PROCESS_FORK:
		if (ev->fork.parent_pid != ev->tid || ti == NO_THREAD) {
			info |= FK_PARENT;
			p = put_varint(p, intern_a(r, ev->fork.parent_pid, nm));
		}
		p = put_varint(p, intern_b(r, ev->fork.child_pid, nm));
		break;
	case FREC_EV_PROCESS_EXEC:
		p = put_varint(p, intern(r, ev->exec.pid, 0, false, NULL));
		p = put_varint(p, ev->exec.old_pid);
		p = put_varint(p, str_intern(g, ev->exec.filename, FREC_FILENAME_LEN - 1));
		p = put_varint(p, str_intern(g, ev->exec.comm, FREC_COMM_LEN - 1));
		break;
	case FREC_EV_PROCESS_EXIT:
		x = intern_a(r, ev->exit.pid, nm);
		p = put_varint(p, x);
		if (g->threads[x].tgid != ev->exit.tgid) {
			info |= EX_TGID;
			p = put_varint(p, ev->exit.tgid);
		}
		break;
	case FREC_EV_TASK_RENAME:
		p = put_varint(p, intern_a(r, ev->rename.pid, nm));
		p = put_varint(p, str_intern(g, ev->rename.newcomm, FREC_COMM_LEN - 1));
		break;
	case FREC_EV_MIGRATE_TASK:
		p = put_varint(p, intern_a(r, ev->migrate.pid, nm));
		p = put_varint(p, ev->migrate.orig_cpu);
		p = put_varint(p, ev->migrate.dest_cpu);
		p = put_prio(p, ev->migrate.prio, MG_PRIO, &info);
		break;
	case FREC_EV_UPROBE:
	case FREC_EV_URETPROBE:
	case FREC_EV_USDT: {
		uint32_t n = ev->probe.nargs;
		int k = probe_find(r, ev->probe.probe_id);

		if (k >= 0)
			r->probes[k].stamp = g->stamp;
		info |= n << PR_NARGS_SHIFT;
		p = put_varint(p, ev->probe.probe_id);
		for (uint32_t i = 0; i < n; i++)
			p = put_varint(p, ev->probe.args[i]);
		if (type == FREC_EV_URETPROBE)
			p = put_varint(p, zigzag(ev->probe.ret));
		break;
	}
	case FREC_EV_LOST:
		p = put_varint(p, ev->lost.count);
		if (ev->lost.flags & FREC_LOST_UNKNOWN)
			info |= LOST_UNKNOWN;
		if (ev->lost.flags & FREC_LOST_SPAN) {
			info |= LOST_SPAN;
			p = put_varint(p, zigzag((int64_t)(ev->lost.first_ts - ev->ts)));
			p = put_varint(p, zigzag((int64_t)(ev->lost.last_ts - ev->ts)));
		}
		break;
	case FREC_EV_STACK:
		p = put_varint(p, ev->stack.kstack);
		p = put_varint(p, ev->stack.ustack);
		break;
	case FREC_EV_TRIGGER:
		if (ev->trigger.id && ev->trigger.id <= FREC_MAX_TRIGGERS &&
		    r->trig_by_id[ev->trigger.id])
			r->triggers[r->trig_by_id[ev->trigger.id] - 1].stamp = g->stamp;
		p = put_ext_body(p, ev);
		break;
	case FREC_EV_GAP:
	case FREC_EV_CGROUP:
		p = put_ext_body(p, ev);
		break;
	}
	*infop = (uint8_t)info;
	g->pos = (uint32_t)(p - g->cbase);
}
