/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The recorder's insides, shared by recorder.c (the API), encode.c (the open
 * generation), seal.c (generation -> block) and window.c (sealed
 * generations, eviction, pins). Not installed.
 */
#ifndef FREC_CORE_RECORDER_INT_H
#define FREC_CORE_RECORDER_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>
#include <frec/recorder.h>
#include "format.h"
#include "pool.h"
#include "stacks.h"
#include "tasks.h"

#define NO_THREAD	UINT32_MAX

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

/* Per-generation string table (exec filename and comm, rename newcomm).
 * When events fill GEN_STR_MAX entries or str_limit bytes (GEN_STR_ARENA
 * at most: see frec_recorder__new()) the generation is sealed early; the
 * room beyond is for the names of stack frames, which seal adds (a name
 * that finds none stays unnamed). */
#define GEN_STR_MAX		4096
#define GEN_STR_ARENA		(256u << 10)
#define GEN_STR_CAP		16384
#define GEN_STR_SLOTS		32768		/* twice GEN_STR_CAP: probes stay short */
#define GEN_STR_ARENA_CAP	(GEN_STR_ARENA + (1u << 20))
#define GEN_SYM_MAX		4096		/* a longer frame name is not kept */
/* Room an event may need in the string table: exec adds two strings. */
#define GEN_STR_ROOM		(FREC_FILENAME_LEN + FREC_COMM_LEN + 2)

/* Threads one event may add to the generation's thread table. */
#define EV_MAX_THREADS		4

/* Staging buffer for the tables on their way into the block. */
#define STAGE_BYTES		(16u << 10)

/* Largest open generation we allow (raw bytes), so that a block stays well
 * under the reader's limits whatever the window size. */
#define GEN_MAX_CAP		(64ull << 20)

struct gen_thread {
	uint32_t tid;
	uint32_t tgid;
	char comm[FREC_COMM_LEN];
	uint64_t cgroup;	/* at its first mention (section 3), 0 unknown */
};

/* The longest cgroup event (xtype 18): tag, cpu, xtype, dts, info, thread,
 * body length, id. A move is written right before the event that revealed
 * it, so both must fit where one largest event was checked to. */
#define EV_CGROUP_MAX_BYTES	(1 + 5 + 5 + 10 + 1 + 5 + 1 + 10)
/* Cgroup ids one event may add to the generation's set: one per thread. */
#define EV_MAX_CGROUPS		EV_MAX_THREADS
/* A cgroup path longer than this is written unnamed. */
#define CGROUP_PATH_MAX		4096
/* Bytes seal may keep for the names of one generation's cgroups, per entry
 * of max_cgroups: a name that finds no room is written unnamed. */
#define CGROUP_NAME_BYTES	256

/* The firings of one trigger that took no snapshot, in the open generation
 * (frec_recorder__add_suppressed); seal writes it as one event. */
struct supp_agg {
	uint64_t count;		/* 0: none */
	uint64_t first_ts;
	uint64_t worst;
	uint32_t tid, tgid;	/* the worst one's thread */
};

/* The last event stored on a CPU, for the stack record that may follow it
 * (docs/FORMAT.md, type 14): a stack attaches only to a switch or probe
 * hit of the open generation with its ts and thread. */
struct cpu_last {
	uint64_t ts;
	uint64_t seq;		/* the generation it is in */
	uint32_t tid;		/* switch: prev_pid; probe hit: its thread */
	bool stackable;		/* a switch or probe hit, the last event on its CPU */
};

/* The thread running on a CPU as the generation last saw it (its switch in):
 * an event of that thread names it implicitly. Its tid and tgid are kept
 * here, beside the index, so that telling needs no look into a thread table
 * of tens of thousands of entries, most of them out of the caches. */
struct cpu_thread {
	uint32_t idx;		/* NO_THREAD: not known */
	uint32_t tid, tgid;
};

/* The generation being recorded. */
struct open_gen {
	uint64_t seq;
	uint32_t stamp;		/* low bits of seq, never 0: tags tasks/procs/probes */
	uint64_t open_ts;	/* when it opened (period start), 0 = not yet */
	uint64_t prev_ts;	/* ts of the previous event (delta base) */
	uint64_t min_ts, max_ts;
	uint64_t nevents;
	uint64_t by_type[FREC_EV__MAX];
	uint64_t lost;

	/* The raw event stream: a chain of pool chunks. An event is encoded in
	 * place at cbase + pos, after checking that pos <= lim, i.e. that a
	 * largest event fits: events never straddle chunks. */
	uint32_t head, tail, nchunks;
	uint8_t *cbase;
	uint32_t pos, lim;
	uint64_t done_bytes;	/* bytes in the chunks before tail, block header included */

	struct gen_thread *threads;
	uint32_t nthreads, thread_cap;
	struct cpu_thread *cur;	/* per CPU: the running thread */
	uint32_t *recent;	/* per CPU, RECENT_SLOTS: its recent threads
				 * (format.h); NULL when the blocks are not wide */
	struct cpu_last *last;	/* per CPU; outlives the generation (seq tells) */
	uint64_t *drops;	/* per CPU: records lost */
	uint64_t *by_cpu;	/* per CPU and one slot for a CPU out of range:
				 * events other than lost ones */
	/* Per CPU, and one slot for a CPU out of range: events discarded for
	 * want of memory, not yet written into a generation as lost. They
	 * outlive the generation; the first event that finds room again
	 * writes them as FREC_EV_LOST, so a snapshot never hides the gap. */
	uint64_t *unstored;
	uint64_t unstored_total;
	/* ... and when they were lost, where known (0: not known). */
	uint64_t *unstored_first, *unstored_last;
	/* Suppressed firings per trigger id (index id; 0 unused). */
	struct supp_agg supp[FREC_MAX_TRIGGERS + 1];
	bool has_supp;

	char *str_arena;
	uint32_t str_used, str_limit;
	uint32_t nstr;
	uint32_t *str_off, *str_len, *str_slot;
	uint32_t *str_hash;	/* slot -> string index + 1, 0 = free */

	struct stack_table stacks;	/* sections 4 and 5 */
	bool stacks_full;	/* a stack found no room: seal before the next event */

	/* The cgroup ids section 3 and the xtype 18 events name (section 2):
	 * open addressing over cg_slots (0 free), cg_ids in the order they
	 * came (cg_slot: where each sits), cg_sorted the seal's scratch. All
	 * preallocated for cg_cap ids; a set that cannot take one more
	 * event's seals the generation. */
	uint64_t *cg_slots;
	uint32_t cg_mask;
	uint64_t *cg_ids, *cg_sorted;
	uint32_t *cg_slot;
	uint32_t ncg, cg_cap;
	char *cg_names;		/* seal's copies of the namer's strings */
	size_t cg_names_cap;
};

/* A sealed generation: its block (header + DEFLATE payload) in a chunk chain. */
struct sealed_gen {
	uint64_t seq;
	uint64_t start_ts, end_ts;
	uint64_t nevents;
	uint64_t lost;
	uint64_t bytes;		/* block bytes, as in the file */
	uint32_t head;		/* first chunk */
	uint32_t nchunks;
	uint32_t refs;		/* pins holding it */
	bool in_window;
	struct sealed_gen *older, *newer;	/* window list; newer links the free list */
};

struct probe_ent {
	struct frec_probe_info info;
	uint32_t stamp;		/* mentioned by the generation with this stamp */
};

struct trigger_ent {
	struct frec_trigger_info info;
	uint32_t stamp;		/* mentioned by the generation with this stamp */
};

struct exit_ent {
	uint32_t tid;
	uint64_t seq;		/* the generation that saw the exit */
};

/*
 * Names a ring record gives for the threads it mentions besides the running
 * one: "a" is prev (switch), pid (wake, exit, rename, migrate) or parent
 * (fork); "b" is next (switch) or child (fork). The encoder keeps the task
 * table current from them as it interns those threads.
 */
struct rec_names {
	uint32_t a_tid, a_tgid, b_tgid;
	const char *a_comm, *b_comm;	/* record fields, maybe not NUL-terminated */
	/* their cgroup ids, 0 when the record has none: b is next (switch)
	 * or the child (fork); a is none yet */
	uint64_t a_cgroup, b_cgroup;
	/* b's task, when note_cgroup() looked it up: the encoder's intern
	 * of b then needs no second lookup (NULL: look it up) */
	struct task *b_task;
	bool a, b;
};

struct frec_pin {
	uint32_t ngens;
	struct sealed_gen **gens;
	uint32_t niov;
	struct iovec *iov;	/* every block's chunks, in file order */
	uint32_t *gen_iov;	/* gens[i]'s iovecs start at gen_iov[i]; ngens + 1 */
	uint64_t events, lost, bytes;
	/*
	 * The one field another thread writes: frec_snapshot__write() stores
	 * here (release) how many generations it has handed to the kernel,
	 * oldest first; from then on their chunks are not read again, so the
	 * recorder's thread (acquire) may drop the pin's references on them
	 * (pins_reclaim) and reuse what is out of the window while the rest
	 * is still being written.
	 */
	uint32_t written;
	uint32_t released;	/* references dropped so far (recorder's thread) */
	struct frec_pin *next;	/* the recorder's pins */
};

struct frec_recorder {
	uint64_t min_age_ns, max_bytes, period_ns, gen_max;
	uint32_t ncpus;
	uint32_t cpu_groups;	/* format.h: G of the wide cpu encoding, 0 plain */
	/* The pool split: window_chunks, what the window may hold
	 * (window_evict), is the pool less what a largest open generation and
	 * its seal may need. The
	 * seal's tables are given table_chunks_min chunks, or as many as the
	 * newest seal's took when that was more (table_chunks): a machine with
	 * many threads names tens of thousands in each block, and the window
	 * then leaves them room rather than lose its oldest generation early
	 * at each seal. */
	uint32_t window_chunks;
	uint32_t table_chunks_min, table_chunks;
	uint64_t tables_bytes;		/* allocated besides the pool (stats) */

	struct pool pool;
	struct task_table tasks;
	struct proc_table procs;
	struct proc **proc_list;	/* scratch for sealing, max_processes entries */
	/* Processes a seal named threads of without a cmdline, for frecd to
	 * read from /proc (frec_recorder__take_unnamed()); a fixed array. */
	uint32_t unnamed[FREC_UNNAMED_MAX];
	uint32_t nunnamed;
	struct open_gen g;
	uint64_t next_seq;
	/* The end of the newest sealed generation: an event before it is
	 * late (docs/FORMAT.md, "Time order"). */
	uint64_t floor_ts;

	struct sealed_gen *gen_slots;	/* preallocated: one per chunk, plus one */
	uint32_t nslots, slots_used;	/* slots ever handed out, in index order */
	struct sealed_gen *gen_free;	/* slots given back */
	struct sealed_gen *oldest, *newest;	/* the window */
	struct frec_pin *pins;		/* snapshots in progress */

	uint32_t task_cursor, proc_cursor;	/* where eviction looks next */
	struct exit_ent *exits;		/* tasks to forget once their generation is gone */
	uint32_t exit_head, exit_count, exit_cap;

	struct probe_ent *probes;
	uint32_t nprobes;
	char *probe_strs;
	uint16_t probe_by_id[FREC_MAX_PROBES];	/* index + 1, for small ids */

	struct trigger_ent triggers[FREC_MAX_TRIGGERS];
	uint32_t ntriggers;
	char *trigger_strs;
	uint8_t trig_by_id[FREC_MAX_TRIGGERS + 1];	/* index + 1, 0 = none */

	uint8_t *stage;

	struct frec_symbolizer sym;
	bool has_sym;
	struct frec_cgroup_namer namer;
	bool has_namer;
	bool stacks_seen;	/* a stack record came: owed lost events wait
				 * while their CPU's stack may come (pay_lost) */

	struct frec_recorder_stats st;
};

/* decode.c: frec_record__decode without clearing ev, plus the names. */
int record_decode(const void *data, size_t len, struct frec_event *ev, struct rec_names *nm);

/* encode.c */
int gen_alloc(struct frec_recorder *r, uint32_t thread_cap, uint32_t max_cgroups);
void gen_free_tables(struct frec_recorder *r);
void gen_reset(struct frec_recorder *r, uint64_t now);
int gen_new_chunk(struct frec_recorder *r);
void gen_set_lim(struct frec_recorder *r);
void gen_encode(struct frec_recorder *r, const struct frec_event *ev, const struct rec_names *nm);
/* At seal: string s (n bytes) in the generation's string table beyond
 * the events' share; its index, or -1 when there is no room. */
int gen_str_add(struct open_gen *g, const char *s, size_t n);
int probe_find(const struct frec_recorder *r, uint32_t id);
/* Cgroup id (not 0) into the open generation's set; a new one is told to
 * the namer. False when the set is full (the id is then known by id only). */
bool gen_cgroup_add(struct frec_recorder *r, uint64_t id);

/* Encoded event bytes. The first chunk starts with room for the block
 * header, so that a stored block is the raw chain itself. */
static inline uint64_t gen_raw_bytes(const struct open_gen *g)
{
	return g->head == CHUNK_NONE ? 0 : g->done_bytes + g->pos - BLOCK_HDR_LEN;
}

/* Ask frecd to read tgid's command line (frec_recorder__take_unnamed()):
 * each tgid once, while there is room. */
void rec_want_cmdline(struct frec_recorder *r, uint32_t tgid);
/* tgid's command line may be an older program's (a main thread renamed:
 * an exec whose record may be lost): asked for again, and at each seal
 * that lists the process until it is read (frec_recorder__set_cmdline()).
 * Not for a kernel thread's, which is empty. */
void rec_cmdline_stale(struct frec_recorder *r, uint32_t tgid);
/* recorder.c: count records lost on cpu, in [first, last] (0, 0: when is not
 * known), into the stream's next lost events. */
void rec_owe_lost(struct frec_recorder *r, uint32_t cpu, uint64_t count, uint64_t first,
		  uint64_t last);

/* recorder.c, for seal.c: write the open generation's suppressed-trigger
 * aggregates as events, at the seal at now, without sealing. */
void rec_put_suppressed(struct frec_recorder *r, uint64_t now);

/* Where lost and gap events that began at first are stamped: not before
 * the open generation's start, nor after now (the event that carries them). */
static inline uint64_t gen_stamp(const struct frec_recorder *r, uint64_t first, uint64_t now)
{
	uint64_t start = r->g.open_ts > r->floor_ts ? r->g.open_ts : r->floor_ts;

	if (first < start)
		first = start;
	return first < now ? first : now;
}

/* recorder.c: forget tasks that exited before generation seq. */
void tasks_forget_exited(struct frec_recorder *r, uint64_t seq);

/* The thread or string table cannot take one more event. */
static inline bool gen_tables_full(const struct open_gen *g)
{
	return g->nthreads + EV_MAX_THREADS > g->thread_cap || g->nstr + 2 > GEN_STR_MAX ||
	       g->str_used + GEN_STR_ROOM > g->str_limit || g->stacks_full ||
	       g->ncg + EV_MAX_CGROUPS > g->cg_cap;
}

/* seal.c */
int rec_seal(struct frec_recorder *r, uint64_t now);

/* window.c */
uint32_t rec_chunk_get(struct frec_recorder *r);
struct sealed_gen *window_slot_get(struct frec_recorder *r);
void window_append(struct frec_recorder *r, struct sealed_gen *sg);
void window_evict(struct frec_recorder *r, uint64_t now);
uint64_t window_room(const struct frec_recorder *r);	/* chunks */
void window_free_all(struct frec_recorder *r);

#endif /* FREC_CORE_RECORDER_INT_H */
