// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The recorder API: construction and sizing, pushing records and events,
 * the task and probe tables, ticks, seals and stats. The encoder is in
 * encode.c, sealing in seal.c, the window and pins in window.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "recorder_int.h"

#define NSEC_PER_SEC		1000000000ull
#define DEF_MIN_AGE		(10 * NSEC_PER_SEC)
#define DEF_MAX_BYTES		(64ull << 20)
#define DEF_PERIOD		NSEC_PER_SEC
#define DEF_CHUNK		(64u << 10)
/* Default bound of the task and process tables: what the machine may run
 * (kernel.threads-max, and never more tids than kernel.pid_max), within
 * [DEF_MAX_THREADS_MIN, DEF_MAX_THREADS_MAX]. The tables grow to it on
 * demand; the upper end keeps the default's ceiling in the memory figures
 * near 100 MiB. */
#define DEF_MAX_THREADS_MIN	65536
#define DEF_MAX_THREADS_MAX	(1u << 20)
#define DEF_MAX_STACKS		8192
#define DEF_MAX_CGROUPS		4096
#define MAX_CGROUPS		(1u << 20)
#define DEF_STACK_FRAMES_PER	32	/* default max_stack_frames per max_stacks */
#define MAX_STACKS		STACK_FRAMES_MAX	/* each has a frame */
#define MAX_STACK_FRAMES	STACK_FRAMES_MAX	/* what a reader reads */
#define MIN_CHUNK		1024
#define MAX_CHUNK		(16u << 20)
#define MAX_TASKS		(1u << 22)
/* The default chunk shrinks (by halves, down to MIN_CHUNK) until max_bytes
 * holds this many chunks: a small window then wastes little of its memory
 * in the unused end of each generation's last chunk. */
#define POOL_CHUNKS_WANT	64
/* Fewer chunks than this cannot hold a window next to the open generation. */
#define POOL_CHUNKS_MIN		16
/* Room, besides the raw event stream, that sealing the open generation may
 * need for its tables (a few hundred threads take a few KiB), as a share of
 * the pool and at most this much. */
#define TABLE_ROOM_MAX		(128u << 10)
#define TABLE_ROOM_SHARE	16

/* An option the caller's struct is big enough to hold and has set. */
#define OPT(o, f, def) \
	((o) && (o)->sz >= offsetof(struct frec_recorder_opts, f) + sizeof((o)->f) && (o)->f ? \
	 (o)->f : (def))

static void rec_destroy(struct frec_recorder *r)
{
	window_free_all(r);
	gen_free_tables(r);
	pool_fini(&r->pool);
	tasks_fini(&r->tasks);
	procs_fini(&r->procs);
	free(r->proc_list);
	free(r->gen_slots);
	free(r->exits);
	free(r->probes);
	free(r->probe_strs);
	free(r->trigger_strs);
	free(r->stage);
	free(r);
}

/* A number from a /proc/sys file, 0 when it cannot be read. */
static uint64_t sysctl_u64(const char *path)
{
	char buf[32];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strtoull(buf, NULL, 10);
}

static uint32_t default_max_threads(void)
{
	uint64_t n = sysctl_u64("/proc/sys/kernel/threads-max");
	uint64_t pid_max = sysctl_u64("/proc/sys/kernel/pid_max");

	if (pid_max && (!n || pid_max < n))
		n = pid_max;
	if (n < DEF_MAX_THREADS_MIN)
		n = DEF_MAX_THREADS_MIN;
	if (n > DEF_MAX_THREADS_MAX)
		n = DEF_MAX_THREADS_MAX;
	return (uint32_t)n;
}

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

/*
 * The pool is all the memory the recorder has for events: max_bytes rounded
 * down to whole chunks. It holds the window, the open generation and the
 * block being sealed, so the window may use what the open generation cannot
 * need: the chunks of a largest open generation (events never straddle
 * chunks, so each chunk may leave up to EV_MAX_BYTES unused), plus room for
 * its tables, plus one spare chunk. Keeping that room free at every seal
 * also lets recording go on while a snapshot pins the whole window.
 *
 * The spare chunk was the one a deflated seal wrote before it freed a raw
 * one; the recorder no longer deflates, but the chunk stays, so that the
 * window's share of a given max_bytes (window_mem_max, what frec status and
 * docs/FORMAT.md show) is what it has always been.
 */
static uint64_t table_room(uint64_t pool_bytes)
{
	uint64_t tables = pool_bytes / TABLE_ROOM_SHARE;

	return tables > TABLE_ROOM_MAX ? TABLE_ROOM_MAX : tables;
}

/* Chunks a largest open generation's events may take: a chunk is taken
 * while the raw bytes are under gen_max, and each chunk before the last
 * holds more than chunk - EV_MAX_BYTES bytes (the first one counting the
 * block header). */
static uint32_t open_event_chunks(uint64_t gen_max, uint64_t chunk)
{
	return (uint32_t)div_up(gen_max + BLOCK_HDR_LEN, chunk - EV_MAX_BYTES);
}

/* What the recorder may allocate besides the pool: the task and process
 * tables at their bound, the open generation's tables, the window's slots.
 * The hash tables grow to their bound as threads come, and the kernel maps
 * the other tables' pages only as they are first written, so this is a
 * ceiling of their RSS, which grows with the threads seen. */
static uint64_t tables_bytes(const struct frec_recorder *r, uint32_t nchunks, uint32_t max_procs)
{
	const struct open_gen *g = &r->g;
	uint64_t n = 0;

	n += tables_slots_max(r->tasks.max) * sizeof(*r->tasks.slots);
	n += tables_slots_max(r->procs.max) * sizeof(*r->procs.slots);
	n += ((uint64_t)max_procs + 1) * sizeof(*r->proc_list);
	n += ((uint64_t)nchunks + 1) * sizeof(*r->gen_slots);
	n += (uint64_t)nchunks * (sizeof(*r->pool.next) + sizeof(*r->pool.used));
	n += (uint64_t)r->exit_cap * sizeof(*r->exits);
	n += STAGE_BYTES;
	n += (uint64_t)g->thread_cap * sizeof(*g->threads);
	n += (uint64_t)r->ncpus * (sizeof(*g->cur) + sizeof(*g->drops));
	if (r->cpu_groups)
		n += (uint64_t)r->ncpus * RECENT_SLOTS * sizeof(*g->recent);
	n += ((uint64_t)r->ncpus + 1) * (sizeof(*g->unstored) + sizeof(*g->by_cpu) +
					 sizeof(*g->unstored_first) + sizeof(*g->unstored_last));
	n += GEN_STR_ARENA_CAP + 3ull * GEN_STR_CAP * sizeof(uint32_t) +
	     GEN_STR_SLOTS * sizeof(uint32_t);
	n += (uint64_t)r->ncpus * sizeof(*g->last);
	n += g->stacks.mem_bytes;
	n += ((uint64_t)g->cg_mask + 1) * sizeof(*g->cg_slots);
	n += (uint64_t)g->cg_cap * (sizeof(*g->cg_ids) + sizeof(*g->cg_sorted) + sizeof(*g->cg_slot));
	n += g->cg_names_cap;
	return n;
}

struct frec_recorder *frec_recorder__new(const struct frec_recorder_opts *o)
{
	struct frec_recorder *r;
	uint64_t chunk, nchunks, tables;
	uint32_t max_threads, max_procs, max_stacks, max_frames, max_cgroups;
	long ncpus_conf = sysconf(_SC_NPROCESSORS_CONF);
	int err = -EINVAL;

	if (o && o->sz < sizeof(o->sz)) {
		errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		errno = ENOMEM;
		return NULL;
	}
	r->min_age_ns = OPT(o, min_age_ns, DEF_MIN_AGE);
	r->max_bytes = OPT(o, max_bytes, DEF_MAX_BYTES);
	r->period_ns = OPT(o, period_ns, DEF_PERIOD);
	r->gen_max = OPT(o, gen_max_bytes, r->max_bytes / 32);
	chunk = OPT(o, chunk_bytes, 0);
	if (!chunk)
		for (chunk = DEF_CHUNK; chunk > MIN_CHUNK && r->max_bytes / chunk < POOL_CHUNKS_WANT;)
			chunk /= 2;
	r->ncpus = OPT(o, ncpus, ncpus_conf > 0 ? (uint32_t)ncpus_conf : 1);
	r->cpu_groups = cpu_groups(FREC_FORMAT_VERSION, r->ncpus);
	max_threads = OPT(o, max_threads, 0);
	if (!max_threads)
		max_threads = default_max_threads();
	/* Single-threaded processes may be as many as threads. */
	max_procs = OPT(o, max_processes, max_threads);
	max_stacks = OPT(o, max_stacks, DEF_MAX_STACKS);
	max_frames = max_stacks < MAX_STACK_FRAMES / DEF_STACK_FRAMES_PER ?
		     max_stacks * DEF_STACK_FRAMES_PER : MAX_STACK_FRAMES;
	max_frames = OPT(o, max_stack_frames, max_frames);
	max_cgroups = OPT(o, max_cgroups, DEF_MAX_CGROUPS);
	if (chunk < MIN_CHUNK || chunk > MAX_CHUNK || r->ncpus > FREC_MAX_CPUS ||
	    max_threads > MAX_TASKS || max_procs > MAX_TASKS || max_stacks > MAX_STACKS ||
	    !max_frames || max_frames > MAX_STACK_FRAMES || max_cgroups > MAX_CGROUPS ||
	    max_cgroups < EV_MAX_CGROUPS)
		goto err_out;
	nchunks = r->max_bytes / chunk;
	if (nchunks < POOL_CHUNKS_MIN || nchunks >= UINT32_MAX / 2)
		goto err_out;

	/* A generation may take at most an eighth of the pool, so that the
	 * window always holds the newest sealed one and some before it. */
	if (r->gen_max > nchunks * chunk / 8)
		r->gen_max = nchunks * chunk / 8;
	if (r->gen_max > GEN_MAX_CAP)
		r->gen_max = GEN_MAX_CAP;
	if (r->gen_max < MIN_CHUNK)
		r->gen_max = MIN_CHUNK;
	tables = table_room(nchunks * chunk);
	r->table_chunks_min = (uint32_t)div_up(tables, chunk);
	r->table_chunks = r->table_chunks_min;
	/* the open generation's room: its events, its tables, a spare chunk */
	r->window_chunks = (uint32_t)nchunks - open_event_chunks(r->gen_max, chunk) -
			   r->table_chunks_min - 1;
	/* The string table is the one that can outgrow that room on its own
	 * (exec'd file names, up to GEN_STR_ARENA): a generation whose
	 * strings take half of it is sealed, so that they alone do not take
	 * the seal past its room into a chunk the window holds (an early
	 * eviction). Frame names, which the seal adds, may still: the room
	 * then grows from the next seal on (table_chunks). */
	_Static_assert(TABLE_ROOM_MAX / 2 <= GEN_STR_ARENA, "the strings' limit passes the arena");
	r->g.str_limit = (uint32_t)(tables / 2);
	if (r->g.str_limit < 2 * GEN_STR_ROOM)	/* a tiny pool: an exec or two */
		r->g.str_limit = 2 * GEN_STR_ROOM;

	err = -ENOMEM;
	if (pool_init(&r->pool, (uint32_t)chunk, (uint32_t)nchunks) ||
	    tasks_init(&r->tasks, max_threads) || procs_init(&r->procs, max_procs))
		goto err_out;
	r->proc_list = malloc(sizeof(*r->proc_list) * (max_procs + 1));
	/* One slot per chunk: every sealed generation holds at least one.
	 * Handed out in index order (window_slot_get), so that only the
	 * slots a window has needed are ever touched. */
	r->gen_slots = calloc(nchunks + 1, sizeof(*r->gen_slots));
	r->nslots = (uint32_t)nchunks + 1;
	r->exit_cap = max_threads;
	r->exits = malloc(sizeof(*r->exits) * r->exit_cap);
	r->stage = malloc(STAGE_BYTES);
	if (!r->proc_list || !r->gen_slots || !r->exits || !r->stage)
		goto err_out;
	/* The open generation may name every task the table can hold, plus
	 * the duplicates pid reuse and a full table create. */
	if (gen_alloc(r, max_threads + 4 * EV_MAX_THREADS + 64, max_cgroups) ||
	    stacks_init(&r->g.stacks, max_stacks, max_frames))
		goto err_out;

	r->next_seq = 1;
	gen_reset(r, 0);
	r->st.chunks_total = (uint32_t)nchunks;
	r->st.pool_bytes = nchunks * chunk;
	r->tables_bytes = tables_bytes(r, (uint32_t)nchunks, max_procs);
	return r;

err_out:
	rec_destroy(r);
	errno = -err;
	return NULL;
}

void frec_recorder__free(struct frec_recorder *r)
{
	if (r)
		rec_destroy(r);
}

static void forget_one(struct frec_recorder *r, const struct exit_ent *e)
{
	struct task *t = tasks_find(&r->tasks, e->tid);
	uint32_t tid = e->tid, tgid;

	/* Not found, or seen alive again (set_thread, fork, pid reuse); or
	 * a later task with this tid exited since (the pid came back within
	 * a generation): its own exit, queued later, forgets it in its turn,
	 * after its last switch. */
	if (!t || !(t->idx & TASK_EXITED) || t->exited != (uint32_t)e->seq)
		return;
	tgid = t->tgid;
	tasks_remove(&r->tasks, tid);
	if (tid == tgid)
		procs_remove(&r->procs, tgid);
}

/* Slots one seal looks at for stale entries: the whole table every few
 * seals, at a bounded cost per seal. */
#define EVICT_SLICE_MIN		4096
#define EVICT_SLICE_SHARE	8

static uint32_t evict_slice(uint32_t mask)
{
	uint32_t n = (mask + 1) / EVICT_SLICE_SHARE;

	return n > EVICT_SLICE_MIN ? n : (mask < EVICT_SLICE_MIN ? mask + 1 : EVICT_SLICE_MIN);
}

/*
 * Entries not seen for a window's time: not mentioned by the open
 * generation nor by any generation the window holds, so no snapshot needs
 * them. Their exit was filtered or lost, or they sleep: a sleeper's next
 * record names it again (a switch or wakeup carries comm and tgid), and
 * the open generation names it at its first mention as always.
 *
 * A process's cmdline, though, comes only from its exec or /proc: it is
 * kept while the table has room, and stale ones go only once the table or
 * the cmdline budget is half spent, so that a leak of exits never fills it.
 */
static void tables_evict(struct frec_recorder *r)
{
	uint32_t before;

	if (!r->oldest)
		return;
	before = (uint32_t)r->oldest->seq;
	r->st.threads_evicted += tasks_evict_stale(&r->tasks, &r->task_cursor,
						   evict_slice(r->tasks.mask), before);
	if (r->procs.count > r->procs.max / 2 || r->procs.cmdline_bytes > CMDLINE_BUDGET / 2)
		r->st.processes_evicted += procs_evict_stale(&r->procs, &r->proc_cursor,
							     evict_slice(r->procs.mask), before);
}

/* A generation names a thread at its first mention; the final switch away
 * from an exiting task often lands in the next generation, so a task is
 * forgotten only once a whole generation has passed since its exit. */
void tasks_forget_exited(struct frec_recorder *r, uint64_t seq)
{
	while (r->exit_count && r->exits[r->exit_head].seq < seq) {
		forget_one(r, &r->exits[r->exit_head]);
		r->exit_head = (r->exit_head + 1) % r->exit_cap;
		r->exit_count--;
	}
	tables_evict(r);
}

static void mark_exited(struct frec_recorder *r, uint32_t tid)
{
	struct task *t = tasks_find(&r->tasks, tid);
	struct exit_ent *e;

	if (!t || (t->idx & TASK_EXITED))
		return;
	t->idx |= TASK_EXITED;
	t->exited = (uint32_t)r->g.seq;
	if (r->exit_count == r->exit_cap) {
		/* Full: forget the oldest exit now rather than lose track. */
		forget_one(r, &r->exits[r->exit_head]);
		r->exit_head = (r->exit_head + 1) % r->exit_cap;
		r->exit_count--;
	}
	e = &r->exits[(r->exit_head + r->exit_count) % r->exit_cap];
	e->tid = tid;
	e->seq = r->g.seq;
	r->exit_count++;
}

/*
 * A thread other than the leader called exec (Go's syscall.Exec): the
 * kernel killed the other threads, the leader among them (its exit came
 * just before, under the process's pid), and the exec'ing thread took over
 * the pid (the record's pid) from its own tid (old_pid). The process lives
 * on: its entry must not be forgotten with the old leader, nor its
 * cmdline. The old tid is gone, as if it had exited. (The pid's cgroup
 * stays the leader's until a record shows the thread's: then it is a
 * move, as for any thread.)
 */
static void exec_from_thread(struct frec_recorder *r, uint32_t pid, uint32_t old_pid)
{
	struct task *old = tasks_find(&r->tasks, old_pid);
	struct task *t = tasks_find(&r->tasks, pid);

	if (t)
		t->idx &= ~TASK_EXITED;	/* the queued exit forgets nothing */
	if (old && old->tgid == pid)
		mark_exited(r, old_pid);
}

/* tid's entry, named comm; NULL when the table has none. */
static struct task *task_set_comm(struct frec_recorder *r, uint32_t tid, const char *comm)
{
	struct task *t = tasks_find(&r->tasks, tid);

	if (t)
		comm_copy(t->comm, comm ? comm : "");
	return t;
}

/* Past lim: seal a full generation, or take the next chunk. */
static int push_room(struct frec_recorder *r)
{
	struct open_gen *g = &r->g;

	if (g->nevents && (gen_raw_bytes(g) >= r->gen_max || gen_tables_full(g)))
		rec_seal(r, g->max_ts);
	if (g->pos > g->lim && gen_new_chunk(r))
		return -ENOSPC;
	return 0;
}

/* The types a stack record may follow (see push_stack()). */
#define STACKABLE_TYPES	(1u << FREC_EV_SCHED_SWITCH | 1u << FREC_EV_UPROBE | \
			 1u << FREC_EV_URETPROBE | 1u << FREC_EV_USDT)

/* Encode ev, for which there is room, and keep the counts and the task
 * table. */
static void store_ev(struct frec_recorder *r, const struct frec_event *ev,
		     const struct rec_names *nm)
{
	struct open_gen *g = &r->g;
	uint32_t type = ev->type;
	/* What a failed seal would owe, per CPU (lost events are in drops). */
	bool owed = type != FREC_EV_LOST && type != FREC_EV_GAP;
	struct task *t;

	gen_encode(r, ev, nm);

	g->nevents++;
	g->by_type[type]++;
	if (ev->ts < g->min_ts)
		g->min_ts = ev->ts;
	if (ev->ts > g->max_ts)
		g->max_ts = ev->ts;
	if (likely(ev->cpu < r->ncpus)) {
		struct cpu_last *l = &g->last[ev->cpu];

		g->by_cpu[ev->cpu] += owed;
		l->ts = ev->ts;
		l->seq = g->seq;
		l->stackable = STACKABLE_TYPES >> type & 1;
		l->tid = type == FREC_EV_SCHED_SWITCH ? ev->sw.prev_pid : ev->tid;
	} else {
		g->by_cpu[r->ncpus] += owed;
	}
	if (likely(type <= FREC_EV_SCHED_WAKEUP_NEW))
		return;

	/* Task table upkeep after the event: the generation named the
	 * thread as it was before it. */
	switch (type) {
	case FREC_EV_PROCESS_FORK:
		t = tasks_find(&r->tasks, ev->fork.child_pid);
		if (t)	/* a new task, whatever had this tid before */
			t->idx &= ~TASK_EXITED;
		break;
	case FREC_EV_PROCESS_EXEC:
		if (unlikely(ev->exec.old_pid != ev->exec.pid))
			exec_from_thread(r, ev->exec.pid, ev->exec.old_pid);
		task_set_comm(r, ev->exec.pid, ev->exec.comm);
		break;
	case FREC_EV_TASK_RENAME:
		t = task_set_comm(r, ev->rename.pid, ev->rename.newcomm);
		/* A main thread's: an exec renames it so before its own
		 * record comes, and that record may be the one lost. */
		if (t && t->tgid == ev->rename.pid)
			rec_cmdline_stale(r, ev->rename.pid);
		break;
	case FREC_EV_PROCESS_EXIT:
		mark_exited(r, ev->exit.pid);
		break;
	case FREC_EV_LOST:
		if (ev->cpu < r->ncpus)
			g->drops[ev->cpu] += ev->lost.count;
		g->lost += ev->lost.count;
		break;
	}
}

/*
 * A move (FREC_EV_CGROUP) goes right before the event that revealed it,
 * in the same generation: the caller checked that a largest event fits,
 * and the move needs its own bytes before it. Never a seal, which would
 * leave the moved thread out of the generation: at most a fresh chunk.
 */
static int move_room(struct frec_recorder *r)
{
	struct open_gen *g = &r->g;

	if (g->pos + EV_CGROUP_MAX_BYTES > r->pool.chunk_bytes - EV_MAX_BYTES) {
		if (gen_new_chunk(r))
			return -ENOSPC;
		/* A full table or the size limit still seal at the next event. */
		gen_set_lim(r);
	}
	return 0;
}

/*
 * note_cgroup(): the cgroup a record shows for thread tid (tid 0, the
 * idle tasks, has none), before the record's event is encoded. The usual case is one
 * compare with the task entry the encoder then takes. An unknown cgroup
 * is just set, in the open generation's copy too (section 3); a changed
 * one is a move: an xtype 18 event for the thread, at the record's ts and
 * cpu, when the generation already names the thread, else its first
 * mention carries the new value. -ENOSPC when the move finds no room: the
 * task keeps its old cgroup, and the caller discards the event.
 */
static __attribute__((noinline, cold)) int
cgroup_changed(struct frec_recorder *r, struct task *t, bool inserted, uint32_t tid, uint32_t tgid,
	       uint64_t id, uint64_t ts, uint32_t cpu)
{
	struct open_gen *g = &r->g;
	struct frec_event mv;
	struct gen_thread *gt;

	/* Another process now (pid reuse), or new: not a move. The encoder
	 * names it anew and its first mention carries id. */
	if (t->tgid != tgid || inserted) {
		task_renew(t, tgid);
		t->cgroup = id;
		return 0;
	}
	gt = t->stamp == g->stamp ? &g->threads[t->idx & TASK_IDX_MASK] : NULL;
	if (!t->cgroup || !gt || !gt->cgroup) {
		t->cgroup = id;
		if (gt && !gt->cgroup) {	/* filled in: known from its first mention */
			gt->cgroup = id;
			gen_cgroup_add(r, id);
		}
		return 0;
	}
	if (move_room(r))
		return -ENOSPC;
	t->cgroup = id;
	memset(&mv, 0, sizeof(mv));
	mv.type = FREC_EV_CGROUP;
	mv.ts = ts;
	mv.cpu = cpu;
	mv.tid = tid;
	mv.tgid = tgid;
	mv.cgroup.id = id;
	gen_cgroup_add(r, id);
	store_ev(r, &mv, NULL);
	r->st.cgroup_moves++;
	return 0;
}

/* note_cgroup() proper: the usual case, the id the task has already,
 * inline; a change (cgroup_changed, above) out of the hot path. */
static inline int note_cgroup(struct frec_recorder *r, uint32_t tid, uint32_t tgid, uint64_t id,
			      uint64_t ts, uint32_t cpu, struct task **tp)
{
	bool inserted = false;
	struct task *t = tasks_home(&r->tasks, tid);

	if (unlikely(!t))
		t = tasks_get(&r->tasks, tid, &inserted);
	*tp = t;
	if (unlikely(!t) || likely(t->cgroup == id))
		return 0;
	return cgroup_changed(r, t, inserted, tid, tgid, id, ts, cpu);
}

/*
 * A fork's child is a new task, whatever had its tid before: an old entry
 * left by an exit that was lost or filtered, or one seen exiting, must lend
 * it neither comm nor cgroup (the record names the child), and a new
 * process must not show an old process's cmdline (frecd reads its own
 * after its exec).
 */
static void fork_renew(struct frec_recorder *r, uint32_t child, uint32_t tgid)
{
	struct task *t = tasks_find(&r->tasks, child);

	if (t) {
		task_renew(t, tgid);
		memset(t->comm, 0, sizeof(t->comm));
	}
	if (child == tgid)
		procs_remove(&r->procs, child);
}

/* Room in the task table for what one event may add. A table that cannot
 * grow (at its bound, or no memory) refuses new tasks: they are named from
 * their record only, counted in threads_untracked. */
static inline void tasks_room(struct frec_recorder *r)
{
	struct task_table *t = &r->tasks;

	if (unlikely(((uint64_t)t->count + EV_MAX_THREADS + 1) * 2 > (uint64_t)t->mask + 1) &&
	    t->mask + 1 < (1u << t->max_bits))
		tasks_reserve(t, EV_MAX_THREADS + 1);
}

/* Store one event in the open generation, or -ENOSPC. */
static int put_ev(struct frec_recorder *r, const struct frec_event *ev, struct rec_names *nm)
{
	struct open_gen *g = &r->g;

	if (unlikely(!g->open_ts))
		g->open_ts = ev->ts ? ev->ts : 1;
	if (unlikely(g->pos > g->lim) && push_room(r))
		return -ENOSPC;
	/* Before any task pointer is taken: growth moves them all. */
	tasks_room(r);
	if (unlikely(ev->type == FREC_EV_PROCESS_FORK) && nm && nm->b)
		fork_renew(r, ev->fork.child_pid, nm->b_tgid);
	if (unlikely(ev->type == FREC_EV_CGROUP)) {	/* push_event's: a move or nothing */
		struct task *t;

		return note_cgroup(r, ev->tid, ev->tgid, ev->cgroup.id, ev->ts, ev->cpu, &t);
	}
	if (nm && nm->b_cgroup && nm->b) {
		uint32_t tid = ev->type == FREC_EV_SCHED_SWITCH ? ev->sw.next_pid : ev->fork.child_pid;

		if (tid && note_cgroup(r, tid, nm->b_tgid, nm->b_cgroup, ev->ts, ev->cpu, &nm->b_task))
			return -ENOSPC;
	}
	store_ev(r, ev, nm);
	return 0;
}

void rec_owe_lost(struct frec_recorder *r, uint32_t cpu, uint64_t count, uint64_t first,
		  uint64_t last)
{
	struct open_gen *g = &r->g;
	uint32_t c = cpu < r->ncpus ? cpu : r->ncpus;

	if (!count)
		return;
	/* The span of what is owed: any record of unknown time makes it
	 * unknown, so a span is never narrower than the losses it covers. */
	if (!g->unstored[c]) {
		g->unstored_first[c] = first;
		g->unstored_last[c] = last;
	} else if (!first || !g->unstored_first[c]) {
		g->unstored_first[c] = g->unstored_last[c] = 0;
	} else {
		if (first < g->unstored_first[c])
			g->unstored_first[c] = first;
		if (last > g->unstored_last[c])
			g->unstored_last[c] = last;
	}
	g->unstored[c] += count;
	g->unstored_total += count;
}

/* A lost event for count records lost on cpu in [first, last] (0, 0: not
 * known), carried by an event at now. */
static void lost_event(const struct frec_recorder *r, struct frec_event *ev, uint32_t cpu,
		       uint64_t count, uint64_t first, uint64_t last, uint64_t now)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = FREC_EV_LOST;
	ev->cpu = cpu;
	ev->lost.count = count;
	if (first) {
		ev->lost.flags = FREC_LOST_SPAN;
		ev->lost.first_ts = first;
		ev->lost.last_ts = last > first ? last : first;
		ev->ts = gen_stamp(r, first, now);
	} else {
		ev->ts = now;
	}
}

/*
 * Write what was owed as lost events, carried by an event at ts, as far as
 * room allows. Once stack records come, a CPU whose last event may still
 * get its stack (a switch or probe hit of the open generation) keeps its
 * debt for a later event, unless all is paid (a tick or seal): a lost event
 * between the two would orphan the stack.
 */
static void pay_lost(struct frec_recorder *r, uint64_t ts, bool all)
{
	struct open_gen *g = &r->g;

	for (uint32_t c = 0; c <= r->ncpus && g->unstored_total; c++) {
		struct frec_event lost;

		if (!g->unstored[c])
			continue;
		if (!all && r->stacks_seen && c < r->ncpus && g->last[c].stackable &&
		    g->last[c].seq == g->seq)
			continue;
		lost_event(r, &lost, c < r->ncpus ? c : FREC_CPU_UNKNOWN, g->unstored[c],
			   g->unstored_first[c], g->unstored_last[c], ts);
		if (put_ev(r, &lost, NULL))
			return;
		g->unstored_total -= lost.lost.count;
		g->unstored[c] = 0;
	}
}

/*
 * Store ev, or owe `owed` lost records on its CPU to the stream: the first
 * event that finds room again is followed, at its time, by a lost event per
 * CPU for what was owed, so a snapshot shows the gap where it was. Paying
 * only after a success keeps a dry pool from being asked twice per event.
 */
static int put_or_owe(struct frec_recorder *r, const struct frec_event *ev,
		      struct rec_names *nm, uint64_t owed)
{
	int err = put_ev(r, ev, nm);

	if (unlikely(err))
		rec_owe_lost(r, ev->cpu, owed, ev->type == FREC_EV_LOST ? ev->lost.first_ts : ev->ts,
			     ev->type == FREC_EV_LOST ? ev->lost.last_ts : ev->ts);
	else if (unlikely(r->g.unstored_total))
		pay_lost(r, ev->ts, false);
	return err;
}

/* An event of cpu was not stored: a stack record after it must not
 * attach to the event stored before it. */
static inline void cpu_unstackable(struct frec_recorder *r, uint32_t cpu)
{
	if (cpu < r->ncpus)
		r->g.last[cpu].stackable = false;
}

/*
 * An event that finds no room is discarded, counted, and owed. So is one
 * that comes after its generation was sealed (a record reserved before a
 * nested program's but stamped after it, or still being written when frecd
 * cut the rings): generations never overlap in time, so it is owed as lost
 * at its own time rather than stored out of order.
 */
static int push_ev(struct frec_recorder *r, const struct frec_event *ev, struct rec_names *nm)
{
	int err;

	if (unlikely(ev->ts < r->floor_ts)) {
		r->st.late++;
		rec_owe_lost(r, ev->cpu, 1, ev->ts ? ev->ts : 1, ev->ts ? ev->ts : 1);
		cpu_unstackable(r, ev->cpu);
		return -ESTALE;
	}
	err = put_or_owe(r, ev, nm, 1);

	if (unlikely(err)) {
		r->st.events_discarded++;
		cpu_unstackable(r, ev->cpu);
	}
	return err;
}

/*
 * Room for a stack event in the generation its event is in: never a seal
 * (the stack would then be in another generation than its event, and its
 * indexes in a table that is gone), at most a fresh chunk. The thread
 * table has room: its event left at least one of EV_MAX_THREADS entries.
 */
static int stack_room(struct frec_recorder *r)
{
	struct open_gen *g = &r->g;

	if (g->pos > r->pool.chunk_bytes - EV_MAX_BYTES) {
		if (gen_new_chunk(r))
			return -ENOSPC;
		/* A full table or the size limit still seal at the next event. */
		gen_set_lim(r);
	}
	return 0;
}

/* One kind of stack record s's frames (ips, n) into the open generation's
 * table: its index + 1, or 0 (none captured, or no room: counted). */
static uint32_t stack_put(struct frec_recorder *r, unsigned kind, const struct frec_rec_stack *s,
			  const uint64_t *ips, uint32_t n)
{
	struct open_gen *g = &r->g;
	uint32_t tgid = kind == FREC_STACK_USER ? s->h.tgid : 0;
	uint64_t image = 0;
	uint32_t idx;

	if (!n)
		return 0;
	if (kind == FREC_STACK_USER && r->has_sym && r->sym.image) {
		struct frec_image_id id = { s->proc_start_ns, s->exec_id };

		image = r->sym.image(r->sym.ctx, tgid, &id, s->h.ts);
	}
	idx = stacks_intern(&g->stacks, kind, tgid, image, ips, n);
	if (unlikely(!idx)) {
		r->st.stacks_unstored++;
		/* Seal before the next event: the next generation has room. */
		g->stacks_full = true;
		g->lim = 0;
	}
	return idx;
}

/*
 * A stack record (struct frec_rec_stack): its frames go into the stack
 * table and a stack event {kstack, ustack} right after the event it
 * belongs to, which must be the last event stored on its CPU, in the open
 * generation, a switch (prev is the record's thread) or a probe hit (of
 * the record's thread), with the same ts. Anything else (that event was
 * late, discarded, malformed, sealed into the previous generation, or
 * followed by another event on the CPU, a lost one too) makes the stack
 * an orphan: counted and dropped, never attached to the wrong event.
 */
static int push_stack(struct frec_recorder *r, const void *data, size_t len)
{
	uint64_t ips[2 * FREC_MAX_STACK_DEPTH];
	const uint64_t *frames;
	struct open_gen *g = &r->g;
	struct frec_rec_stack s;
	struct frec_event ev;
	const struct cpu_last *l;
	uint32_t cpu;

	r->stacks_seen = true;
	if (len < sizeof(s)) {
		r->st.malformed++;
		return -EINVAL;
	}
	memcpy(&s, data, sizeof(s));
	if (s.kframes > FREC_MAX_STACK_DEPTH || s.uframes > FREC_MAX_STACK_DEPTH ||
	    s.h.size != sizeof(s) + 8u * (s.kframes + s.uframes) || len < s.h.size) {
		r->st.malformed++;
		cpu_unstackable(r, s.h.cpu);
		return -EINVAL;
	}
	cpu = s.h.cpu == FREC_REC_CPU_NONE ? FREC_CPU_UNKNOWN : s.h.cpu;
	l = cpu < r->ncpus ? &g->last[cpu] : NULL;
	if (!l || !l->stackable || l->seq != g->seq || l->ts != s.h.ts || l->tid != s.h.tid) {
		r->st.stacks_orphaned++;
		/* What a switch or probe hit before it left owed (late:
		 * never stamped before the open generation). */
		if (unlikely(g->unstored_total) && s.h.ts >= r->floor_ts)
			pay_lost(r, s.h.ts, false);
		return 0;
	}
	memset(&ev, 0, sizeof(ev));
	ev.type = FREC_EV_STACK;
	ev.ts = s.h.ts;
	ev.cpu = cpu;
	ev.tid = s.h.tid;
	ev.tgid = s.h.tgid;
	if (unlikely(g->pos > g->lim) && stack_room(r)) {
		/* Like any event that finds no room: discarded and owed. */
		r->st.events_discarded++;
		rec_owe_lost(r, cpu, 1, ev.ts, ev.ts);
		cpu_unstackable(r, cpu);
		return -ENOSPC;
	}
	/* Ring records are 8-byte aligned: their frames are read in place. */
	frames = (const uint64_t *)((const uint8_t *)data + sizeof(s));
	if (unlikely((uintptr_t)frames & 7)) {
		memcpy(ips, frames, 8u * (s.kframes + s.uframes));
		frames = ips;
	}
	ev.stack.kstack = stack_put(r, FREC_STACK_KERNEL, &s, frames, s.kframes);
	ev.stack.ustack = stack_put(r, FREC_STACK_USER, &s, frames + s.kframes, s.uframes);
	store_ev(r, &ev, NULL);
	r->st.stacks++;
	if (unlikely(g->unstored_total))
		pay_lost(r, ev.ts, false);
	return 0;
}

int frec_recorder__push(struct frec_recorder *r, const void *data, size_t len)
{
	struct frec_rec_hdr h;
	struct frec_event ev;
	struct rec_names nm;

	/* Records come 8-byte aligned from the ring, not from fuzzers. */
	if (likely(len >= sizeof(h)))
		memcpy(&h, data, sizeof(h));
	if (unlikely(len >= sizeof(h) && h.type == FREC_EV_STACK))
		return push_stack(r, data, len);
	if (unlikely(record_decode(data, len, &ev, &nm))) {
		r->st.malformed++;
		if (len >= sizeof(h))
			cpu_unstackable(r, h.cpu);
		return -EINVAL;
	}
	return push_ev(r, &ev, &nm);
}

/*
 * A task table too big for the caches costs a miss per thread a record
 * names: 20 ns and more, a quarter of an event's time with 100,000
 * threads. Loading the slot while earlier records are pushed hides it.
 * Below this many slots (1.5 MiB) the table stays in cache and the hint
 * would only cost.
 */
#define PREFETCH_MIN_SLOTS	(1u << 15)

bool frec_recorder__prefetch_useful(const struct frec_recorder *r)
{
	return r->tasks.mask + 1 >= PREFETCH_MIN_SLOTS;
}

void frec_recorder__prefetch(const struct frec_recorder *r, const void *data, size_t len)
{
	const struct frec_rec_hdr *h = data;
	uint32_t tid;

	if (!frec_recorder__prefetch_useful(r) || len < sizeof(*h))
		return;
	/* The thread besides the running one (which the generation has at
	 * hand): a switch's next, a waking's wakee. */
	if (h->type == FREC_EV_SCHED_SWITCH && len >= sizeof(struct frec_rec_switch))
		tid = ((const struct frec_rec_switch *)data)->next_pid;
	else if (h->type == FREC_EV_SCHED_WAKING && len >= sizeof(struct frec_rec_wake))
		tid = ((const struct frec_rec_wake *)data)->pid;
	else
		return;
	tasks_prefetch(&r->tasks, tid);
}

/* The kernel's lost records: counted whether or not there is room to say
 * so now; without room they are owed like a discarded event. */
static int push_lost(struct frec_recorder *r, const struct frec_event *ev)
{
	struct frec_event lost = *ev;

	/* Never late: stamped where its generation can hold it. */
	if (lost.ts < r->floor_ts)
		lost.ts = r->floor_ts;
	r->st.lost += ev->lost.count;
	return put_or_owe(r, &lost, NULL, ev->lost.count);
}

int frec_recorder__push_event(struct frec_recorder *r, const struct frec_event *ev)
{
	/* A stack event refers to the recorder's own stack table: stacks
	 * come only as ring records, through push(). */
	if (ev->type == FREC_EV_NONE || ev->type >= FREC_EV__MAX || ev->type == FREC_EV_ESCAPE ||
	    ev->type == FREC_EV_STACK ||
	    (ev->type >= FREC_EV_UPROBE && ev->type <= FREC_EV_USDT &&
	     ev->probe.nargs > FREC_MAX_PROBE_ARGS)) {
		r->st.malformed++;
		return -EINVAL;
	}
	if (ev->type == FREC_EV_LOST)
		return push_lost(r, ev);
	if (ev->type == FREC_EV_CGROUP) {
		/* Like a record's id: 0 is none, which an event cannot say,
		 * and the idle tasks have none. */
		if (!ev->cgroup.id) {
			r->st.malformed++;
			return -EINVAL;
		}
		if (!ev->tid)
			return 0;
	}
	return push_ev(r, ev, NULL);
}

int frec_recorder__add_lost(struct frec_recorder *r, __u32 cpu, __u64 count, __u64 ts)
{
	struct frec_event ev;

	lost_event(r, &ev, cpu, count, 0, 0, ts);
	return push_lost(r, &ev);
}

int frec_recorder__add_lost_span(struct frec_recorder *r, __u32 cpu, __u64 count, __u64 first_ts,
				 __u64 last_ts, __u64 now)
{
	struct frec_event ev;

	if (!first_ts || first_ts > last_ts)
		return -EINVAL;
	lost_event(r, &ev, cpu, count, first_ts, last_ts, now);
	return push_lost(r, &ev);
}

int frec_recorder__add_gap(struct frec_recorder *r, __u32 kind, __u64 first_ts, __u64 last_ts)
{
	struct frec_event ev = {
		.type = FREC_EV_GAP,
		.cpu = FREC_CPU_UNKNOWN,
		.gap.kind = kind,
		.gap.first_ts = first_ts,
		.gap.last_ts = last_ts,
	};
	int err;

	if (!first_ts || first_ts > last_ts)
		return -EINVAL;
	ev.ts = gen_stamp(r, first_ts, last_ts);
	err = put_ev(r, &ev, NULL);
	if (err)	/* no room: at least the count of what is missing */
		r->st.gaps_unstored++;
	else
		r->st.gaps++;
	return err;
}

int frec_recorder__set_thread(struct frec_recorder *r, __u32 tid, __u32 tgid, const char *comm)
{
	struct task *t;
	bool inserted;

	tasks_room(r);
	t = tasks_get(&r->tasks, tid, &inserted);
	if (!t)
		return tid == TASK_EMPTY ? -EINVAL : -ENOSPC;
	if (t->tgid != tgid)
		task_renew(t, tgid);
	t->idx &= ~TASK_EXITED;
	t->seen = r->tasks.now;
	comm_copy(t->comm, comm ? comm : "");
	return 0;
}

/*
 * A name from /proc, read after recording began: events are newer, so a
 * thread an event has named keeps its name. One mentioned only without a
 * name (a waker, a probe hit) is named now, and so is its entry in the open
 * generation, so that the generation names every thread it mentions.
 */
int frec_recorder__seed_thread(struct frec_recorder *r, __u32 tid, __u32 tgid, const char *comm)
{
	struct gen_thread *gt;
	struct task *t;
	bool inserted;

	tasks_room(r);
	t = tasks_get(&r->tasks, tid, &inserted);
	if (!t)
		return tid == TASK_EMPTY ? -EINVAL : -ENOSPC;
	if (inserted)
		t->tgid = tgid;
	else if (t->comm[0] || t->tgid != tgid)
		return 0;	/* an event's name, or another task now */
	t->seen = r->tasks.now;
	comm_copy(t->comm, comm ? comm : "");
	if (t->stamp && t->stamp == r->g.stamp) {
		gt = &r->g.threads[t->idx & TASK_IDX_MASK];
		if (gt->tid == tid && !gt->comm[0])
			memcpy(gt->comm, t->comm, FREC_COMM_LEN);
	}
	return 0;
}

void rec_want_cmdline(struct frec_recorder *r, uint32_t tgid)
{
	if (!tgid || r->nunnamed == FREC_UNNAMED_MAX)
		return;
	for (uint32_t i = 0; i < r->nunnamed; i++)
		if (r->unnamed[i] == tgid)
			return;
	r->unnamed[r->nunnamed++] = tgid;
}

void rec_cmdline_stale(struct frec_recorder *r, uint32_t tgid)
{
	struct proc *p = procs_find(&r->procs, tgid);

	if (p) {
		if (!p->cmdline[0])
			return;	/* a kernel thread's: nothing to read */
		p->stale = true;
	}
	rec_want_cmdline(r, tgid);
}

__u32 frec_recorder__take_unnamed(struct frec_recorder *r, __u32 *tgids, __u32 max)
{
	__u32 n = r->nunnamed < max ? r->nunnamed : max;

	memcpy(tgids, r->unnamed, n * sizeof(*tgids));
	/* what did not fit comes back at the next seal that names it */
	r->nunnamed = 0;
	return n;
}

int frec_recorder__set_cmdline(struct frec_recorder *r, __u32 tgid, const char *cmdline)
{
	return procs_set(&r->procs, tgid, cmdline ? cmdline : "");
}

static size_t str_size(const char *s)
{
	return (s ? strlen(s) : 0) + 1;
}

static char *str_put(char **pp, const char *s)
{
	char *d = *pp;
	size_t n = str_size(s);

	memcpy(d, s ? s : "", n);
	*pp += n;
	return d;
}

int frec_recorder__set_probes(struct frec_recorder *r, const struct frec_probe_info *probes,
			      size_t n)
{
	struct probe_ent *ents;
	size_t bytes = 0;
	char *strs, *sp;

	/* probe_by_id holds 16-bit indexes. */
	if (n > UINT16_MAX || (n && !probes))
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		bytes += str_size(probes[i].name) + str_size(probes[i].path) +
			 str_size(probes[i].func) + str_size(probes[i].build_id);
	ents = calloc(n ? n : 1, sizeof(*ents));
	strs = malloc(bytes ? bytes : 1);
	if (!ents || !strs) {
		free(ents);
		free(strs);
		return -ENOMEM;
	}
	sp = strs;
	for (size_t i = 0; i < n; i++) {
		int old = probe_find(r, probes[i].id);

		ents[i].info = probes[i];
		ents[i].info.name = str_put(&sp, probes[i].name);
		ents[i].info.path = str_put(&sp, probes[i].path);
		ents[i].info.func = str_put(&sp, probes[i].func);
		ents[i].info.build_id = str_put(&sp, probes[i].build_id);
		/* A probe the open generation already mentioned stays named. */
		ents[i].stamp = old >= 0 ? r->probes[old].stamp : 0;
	}
	free(r->probes);
	free(r->probe_strs);
	r->probes = ents;
	r->probe_strs = strs;
	r->nprobes = (uint32_t)n;
	memset(r->probe_by_id, 0, sizeof(r->probe_by_id));
	for (size_t i = n; i-- > 0;)
		if (probes[i].id < FREC_MAX_PROBES)
			r->probe_by_id[probes[i].id] = (uint16_t)(i + 1);
	return 0;
}

int frec_recorder__set_triggers(struct frec_recorder *r, const struct frec_trigger_info *t,
				size_t n)
{
	uint8_t by_id[FREC_MAX_TRIGGERS + 1] = { 0 };
	struct trigger_ent ents[FREC_MAX_TRIGGERS];
	size_t bytes = 0;
	char *strs, *sp;

	if (n > FREC_MAX_TRIGGERS || (n && !t))
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (!t[i].id || t[i].id > FREC_MAX_TRIGGERS || by_id[t[i].id])
			return -EINVAL;
		by_id[t[i].id] = (uint8_t)(i + 1);
		bytes += str_size(t[i].name) + str_size(t[i].spec);
	}
	strs = malloc(bytes ? bytes : 1);
	if (!strs)
		return -ENOMEM;
	sp = strs;
	for (size_t i = 0; i < n; i++) {
		uint8_t old = r->trig_by_id[t[i].id];

		ents[i].info = t[i];
		ents[i].info.name = str_put(&sp, t[i].name);
		ents[i].info.spec = str_put(&sp, t[i].spec);
		/* A trigger the open generation already mentioned stays named. */
		ents[i].stamp = old ? r->triggers[old - 1].stamp : 0;
	}
	free(r->trigger_strs);
	r->trigger_strs = strs;
	memcpy(r->triggers, ents, n * sizeof(*ents));
	memcpy(r->trig_by_id, by_id, sizeof(by_id));
	r->ntriggers = (uint32_t)n;
	return 0;
}

int frec_recorder__add_suppressed(struct frec_recorder *r, __u32 id, __u32 tid, __u32 tgid,
				  __u64 ts, __u64 value, __u64 count)
{
	struct supp_agg *a;

	if (!id || id > FREC_MAX_TRIGGERS || !r->trig_by_id[id])
		return -EINVAL;
	if (!count)
		return 0;
	a = &r->g.supp[id];
	if (!a->count || ts < a->first_ts)
		a->first_ts = ts;
	if (!a->count || value > a->worst) {
		a->worst = value;
		a->tid = tid;
		a->tgid = tgid;
	}
	a->count = count > UINT64_MAX - a->count ? UINT64_MAX : a->count + count;
	r->g.has_supp = true;
	return 0;
}

/*
 * The seal is under way, so an event can no longer make room by sealing:
 * each aggregate takes a fresh chunk when the tail cannot hold a largest
 * event, and one entry of the thread table. One that finds neither is
 * counted (suppressed_unstored), never dropped silently.
 */
void rec_put_suppressed(struct frec_recorder *r, uint64_t now)
{
	struct open_gen *g = &r->g;

	if (!g->has_supp)
		return;
	if (!g->open_ts)
		g->open_ts = now ? now : 1;
	for (uint32_t id = 1; id <= FREC_MAX_TRIGGERS; id++) {
		const struct supp_agg *a = &g->supp[id];
		struct frec_event ev;

		if (!a->count)
			continue;
		memset(&ev, 0, sizeof(ev));
		ev.type = FREC_EV_TRIGGER;
		ev.cpu = FREC_CPU_UNKNOWN;
		ev.tid = a->tid;
		ev.tgid = a->tgid;
		/* Within the generation, whatever the caller's clock said:
		 * not before its start (nor the last seal), not after now. */
		ev.ts = gen_stamp(r, a->first_ts, now);
		ev.trigger.id = id;
		ev.trigger.flags = FREC_TRIGGER_SUPPRESSED;
		ev.trigger.value = a->worst;
		ev.trigger.count = a->count;
		if (g->nthreads + 1 > g->thread_cap ||
		    ((g->head == CHUNK_NONE || g->pos > r->pool.chunk_bytes - EV_MAX_BYTES) &&
		     gen_new_chunk(r))) {
			r->st.suppressed_unstored++;
			continue;
		}
		store_ev(r, &ev, NULL);
		r->st.suppressed++;
	}
	memset(g->supp, 0, sizeof(g->supp));
	g->has_supp = false;
}

int frec_recorder__set_symbolizer(struct frec_recorder *r, const struct frec_symbolizer *s)
{
	if (!s) {
		memset(&r->sym, 0, sizeof(r->sym));
		r->has_sym = false;
		return 0;
	}
	r->sym = *s;
	r->has_sym = true;
	return 0;
}

/* Owed lost events, at a tick or a seal: paid when there is room for
 * them without evicting anything, so that they reach a snapshot even when
 * no event comes after them. */
static void pay_lost_idle(struct frec_recorder *r, uint64_t now)
{
	if (unlikely(r->g.unstored_total) && (r->g.pos <= r->g.lim || r->pool.nfree))
		pay_lost(r, now, true);
}

int frec_recorder__set_cgroup_namer(struct frec_recorder *r, const struct frec_cgroup_namer *n)
{
	if (!n) {
		memset(&r->namer, 0, sizeof(r->namer));
		r->has_namer = false;
		return 0;
	}
	r->namer = *n;
	r->has_namer = true;
	return 0;
}

int frec_recorder__tick(struct frec_recorder *r, __u64 now)
{
	struct open_gen *g = &r->g;

	pay_lost_idle(r, now);
	if (!g->open_ts) {
		g->open_ts = now;
	} else if (now >= g->open_ts && now - g->open_ts >= r->period_ns) {
		return rec_seal(r, now);
	}
	window_evict(r, now);
	return 0;
}

int frec_recorder__seal(struct frec_recorder *r, __u64 now)
{
	pay_lost_idle(r, now);
	return rec_seal(r, now);
}

void frec_recorder__stats(const struct frec_recorder *r, struct frec_recorder_stats *st)
{
	*st = r->st;
	st->events += r->g.nevents;
	for (uint32_t t = 0; t < FREC_EV__MAX; t++)
		st->events_by_type[t] += r->g.by_type[t];
	st->chunks_total = r->pool.nchunks;
	st->chunks_in_use = r->pool.nchunks - r->pool.nfree;
	st->window_start_ts = r->oldest ? r->oldest->start_ts : 0;
	st->window_end_ts = r->newest ? r->newest->end_ts : 0;
	st->open_bytes = gen_raw_bytes(&r->g);
	st->open_events = r->g.nevents;
	st->pool_bytes = (__u64)r->pool.nchunks * r->pool.chunk_bytes;
	st->mem_bytes = (__u64)st->chunks_in_use * r->pool.chunk_bytes;
	st->window_mem_max = window_room(r) * r->pool.chunk_bytes;
	st->tables_bytes = r->tables_bytes + r->procs.cmdline_bytes;
	st->threads = r->tasks.count;
	st->processes = r->procs.count;
	st->max_threads = r->tasks.max;
	st->max_processes = r->procs.max;
	st->tasks_bytes = ((__u64)r->tasks.mask + 1) * sizeof(*r->tasks.slots) +
			  ((__u64)r->procs.mask + 1) * sizeof(*r->procs.slots) +
			  r->procs.cmdline_bytes;
}
