/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The recorder: the write side of the core library. It takes ring buffer
 * records (or decoded events), encodes them compactly into the open
 * generation, seals generations, keeps the flight-recorder window and writes
 * snapshots. No libbpf, no kernel: frecd feeds it from the ring buffer, tests
 * and the replay benchmark feed it synthetic records.
 *
 * Memory: every byte it holds for events comes from a pool of equal-size
 * chunks preallocated by frec_recorder__new(): max_bytes rounded down to
 * whole chunks, for the window, the open generation and the block being
 * sealed together. Pushing an event never calls malloc. The window leaves
 * the open generation room to grow, also while a snapshot pins the window:
 * frec_snapshot__write() writes generations oldest first and the recorder
 * reuses the chunks of those written as soon as the window lets them go.
 * Should the pool still run dry, the oldest sealed generation is evicted
 * early (counted in stats.early_evictions). The task and process tables
 * and the open generation's stack table come on top, sized by
 * max_threads, max_processes, max_stacks and max_stack_frames: the first
 * two grow to their bound on demand, the others are touched only as they
 * fill. Task and process entries not seen for a window's time are evicted.
 *
 * Threads: everything but frec_snapshot__write() must be called from one
 * thread. frec_snapshot__write() may run in another thread on a pinned window.
 */
#ifndef FREC_RECORDER_H
#define FREC_RECORDER_H

#include <stdbool.h>
#include "event.h"
#include "snapshot.h"

struct frec_recorder_opts {
	size_t sz;			/* sizeof(struct frec_recorder_opts) */
	__u64 min_age_ns;		/* window: minimum age, default 10 s */
	__u64 max_bytes;		/* all event memory: window, open generation, sealing;
					 * default 64 MiB, at least 16 chunks */
	__u64 period_ns;		/* seal the open generation this often, default 1 s */
	__u64 gen_max_bytes;		/* seal early at this many encoded bytes, default
					 * max_bytes/32, at most max_bytes/8 */
	__u32 chunk_bytes;		/* pool chunk size, default 64 KiB, halved (down to
					 * 1 KiB) until max_bytes holds 64 chunks */
	__u32 ncpus;			/* CPUs the kernel may report, for drop counts */
	__u32 max_threads;		/* bound of the task table, which grows to it on
					 * demand; default kernel.threads-max (at most
					 * kernel.pid_max) within [65536, 2^20] */
	__u32 max_processes;		/* bound of the process table, default
					 * max_threads */
	__u32 max_stacks;		/* distinct stacks per generation, default 8192,
					 * at most 2^20 */
	__u32 max_stack_frames;		/* their frames together, default 32 x max_stacks
					 * (at most 2^20, the limit) */
	__u32 max_cgroups;		/* distinct cgroups per generation, default 4096,
					 * 4 to 2^20; a full set seals the generation
					 * early */
};

struct frec_recorder_stats {
	__u64 events;			/* events accepted since start */
	__u64 events_by_type[FREC_EV__MAX];
	__u64 lost;			/* records the kernel could not reserve, summed */
	__u64 generations_sealed;
	__u64 generations_evicted;
	__u64 early_evictions;		/* evicted before their time because the pool ran dry */
	/* The window is shorter than min_age because max_bytes cut it: the
	 * last eviction that stopped at a generation stopped at a young one
	 * for want of memory, or the pool ran dry. Cleared when eviction by
	 * age resumes. */
	__u32 window_cut;
	__u64 pool_misses;		/* times a chunk was wanted and none was free */
	__u64 events_discarded;		/* could not be stored at all (pool dry, nothing to evict) */
	__u32 chunks_total;
	__u32 chunks_in_use;
	__u32 window_generations;	/* sealed generations held */
	__u64 window_bytes;		/* their bytes, as written to files */
	__u64 window_start_ts;		/* oldest event held, 0 when empty */
	__u64 window_end_ts;		/* newest seal time */
	__u64 open_bytes;		/* encoded bytes in the open generation */
	__u64 open_events;
	__u64 pool_bytes;		/* the pool's ceiling, at most max_bytes */
	__u64 malformed;		/* records or events rejected with -EINVAL */
	__u64 window_events;		/* events in the window's generations */
	__u64 mem_bytes;		/* event memory held now: chunks in use x chunk size
					 * (window, open generation, generations still pinned) */
	__u64 window_mem_max;		/* memory the window may hold: the pool less the
					 * room of a largest open generation and its
					 * seal (as large as the newest seal's tables) */
	__u64 tables_bytes;		/* allocated besides the pool: task, process and
					 * generation tables, cmdlines; mapped as they fill */
	__u64 late;			/* events that came after their generation was
					 * sealed: written as lost at their time */
	__u64 gaps;			/* gap events written (add_gap) */
	__u64 gaps_unstored;		/* gaps that found no room */
	__u64 suppressed;		/* suppressed-trigger aggregates written at seals */
	__u64 suppressed_unstored;	/* aggregates that found no room at their seal */
	__u64 stacks;			/* stack records accepted (each a stack event) */
	__u64 stacks_distinct;		/* stack table entries written by seals, summed */
	__u64 stacks_unstored;		/* stacks (of either kind) that found the open
					 * generation's stack table full: the event has
					 * no stack of that kind */
	__u64 stacks_orphaned;		/* stack records whose event (the record before
					 * on their CPU, same ts and thread) was not
					 * stored, or not the last event stored on that
					 * CPU in the open generation: dropped, never
					 * attached elsewhere */
	__u64 cgroup_moves;		/* FREC_EV_CGROUP events written */
	__u64 cgroups_named;		/* cgroup table entries written with a path, summed */
	__u64 cgroups_unnamed;		/* entries the namer could not name (path "") */
	__u64 threads_evicted;		/* task table entries not seen for a window's
					 * time (their exit filtered or lost, or asleep),
					 * dropped */
	__u64 processes_evicted;	/* process table entries dropped so (only once
					 * the table or cmdline budget is half full) */
	__u64 threads_untracked;	/* thread mentions the task table had no room
					 * for (at max_threads): named from their own
					 * record only, or not at all */
	__u64 names_repaired;		/* a record named a known thread otherwise,
					 * with no exec or rename record before it
					 * (lost, or filtered out): the table took
					 * the record's name */
	__u32 threads;			/* task table entries now */
	__u32 processes;		/* process table entries now */
	__u32 max_threads;		/* the task table's bound (opts.max_threads or
					 * its default) */
	__u32 max_processes;		/* the process table's bound */
	__u64 tasks_bytes;		/* the task and process tables as grown so far,
					 * and their cmdlines: part of tables_bytes,
					 * which counts the tables at their bound */
};

/*
 * Names for cgroup ids, supplied by frecd. Called on the recorder's thread;
 * must not block. Strings returned need only live until the call returns:
 * seal copies them.
 */
struct frec_cgroup_namer {
	void *ctx;
	/* id entered the open generation (once per generation) */
	void (*seen)(void *ctx, __u64 id);
	/* At seal: 0 with *path and *container set ("" when none), or -ENOENT. */
	int (*name)(void *ctx, __u64 id, const char **path, const char **container);
};

/*
 * What a user address is, as the symbolizer knows it. path NULL: no
 * mapping known (nothing else is read).
 */
struct frec_user_frame {
	const char *path;		/* the mapped file */
	const char *build_id;		/* hex, "" when the file has none */
	__u64 file_offset;		/* bytes into the file */
	const char *sym;		/* NULL when not named */
	__u64 sym_offset;
};

/*
 * Which program a stack's process ran (struct frec_rec_stack's
 * proc_start_ns and exec_id): another value is another program, or another
 * process under the same pid. Both 0: not known.
 */
struct frec_image_id {
	__u64 proc_start_ns;
	__u64 exec_id;
};

/*
 * Names for the addresses of stacks, supplied by frecd (the recorder knows
 * no kernel). All are called on the recorder's thread and must not block.
 * Strings returned need only live until the call returns: seal copies them.
 */
struct frec_symbolizer {
	void *ctx;
	/* A stack of tgid with user frames, taken at ts running the program
	 * id names, entered the open generation: the symbolizer may start
	 * learning tgid's mappings now. Returns the image the frames belong
	 * to (an exec starts a new one, and so does an id other than the
	 * image's), handed back to user(); the recorder keeps stacks of
	 * different images apart. */
	__u64 (*image)(void *ctx, __u32 tgid, const struct frec_image_id *id, __u64 ts);
	/* At seal: 0 with sym and sym_offset set, or -ENOENT (not named). */
	int (*kernel)(void *ctx, __u64 ip, const char **sym, __u64 *sym_offset);
	/* At seal: 0 and *out set, or -ENOENT (no mapping known). */
	int (*user)(void *ctx, __u32 tgid, __u64 image, __u64 ip, struct frec_user_frame *out);
};

struct frec_recorder;
struct frec_pin;

/* NULL with errno set (EINVAL for bad options, ENOMEM). opts may be NULL for defaults. */
struct frec_recorder *frec_recorder__new(const struct frec_recorder_opts *opts);
void frec_recorder__free(struct frec_recorder *rec);

/* One ring buffer record (struct frec_rec_*). Also keeps the task table current
 * from the names and tgids the record carries. 0, or -EINVAL for a malformed
 * record (counted, dropped), -ENOSPC when it could not be stored, or -ESTALE
 * when it is older than the newest sealed generation's end (stats.late: it
 * becomes a lost event at its time, so generations never overlap). The same
 * for push_event(), where lost events are never late (stamped at the open
 * generation's start at the earliest). */
int frec_recorder__push(struct frec_recorder *rec, const void *data, size_t len);
/* A hint: record data (as for push()) will be pushed soon, after a few
 * others. With many threads, starting now the loads its push will need
 * hides a cache miss per record; with few it does nothing. Reads only
 * within len; any bytes are safe. */
void frec_recorder__prefetch(const struct frec_recorder *rec, const void *data, size_t len);
/* Whether prefetch() does anything now (the task table has outgrown the
 * caches): a caller that pays to find records ahead may skip it while not. */
bool frec_recorder__prefetch_useful(const struct frec_recorder *rec);
/* A decoded event; thread names must be known through set_thread(). Not
 * FREC_EV_STACK (-EINVAL): its indexes are the recorder's own, so stacks
 * come only as ring records through push(). */
int frec_recorder__push_event(struct frec_recorder *rec, const struct frec_event *ev);
/* count records lost on cpu, noticed at ts; becomes a FREC_EV_LOST event. */
int frec_recorder__add_lost(struct frec_recorder *rec, __u32 cpu, __u64 count, __u64 ts);

/* count records lost on cpu between first_ts and last_ts (CLOCK_BOOTTIME,
 * 0 < first_ts <= last_ts), noticed at now; the lost event is stamped at
 * first_ts or, if that is before the open generation, at its start.
 * 0, -EINVAL, -ENOSPC (owed, written once there is room). */
int frec_recorder__add_lost_span(struct frec_recorder *rec, __u32 cpu, __u64 count,
				 __u64 first_ts, __u64 last_ts, __u64 now);
/* Nothing was recorded between first_ts and last_ts, for the reason kind
 * (enum frec_gap_kind): a FREC_EV_GAP event, stamped like add_lost_span's.
 * Call it once last_ts has come. 0, -EINVAL, -ENOSPC. */
int frec_recorder__add_gap(struct frec_recorder *rec, __u32 kind, __u64 first_ts, __u64 last_ts);

/* The task table: frecd seeds it from /proc, events keep it current. */
int frec_recorder__set_thread(struct frec_recorder *rec, __u32 tid, __u32 tgid, const char *comm);
int frec_recorder__set_cmdline(struct frec_recorder *rec, __u32 tgid, const char *cmdline);
/*
 * Processes that seals since the last call named threads of but knew no
 * cmdline for (forked and not exec'd since frecd started, evicted while
 * they slept, or whose read after exec was dropped), and those whose main
 * thread a record named otherwise with no exec or rename record (lost:
 * the cmdline kept may be the old program's): up to max tgids into
 * tgids, each once, at most FREC_UNNAMED_MAX between two calls (a bound
 * on the /proc reads a fork-heavy machine asks for); the list is then
 * emptied. frecd queues a read of each one's /proc cmdline,
 * off the drain path; a later seal names it.
 */
#define FREC_UNNAMED_MAX	64
__u32 frec_recorder__take_unnamed(struct frec_recorder *rec, __u32 *tgids, __u32 max);
/* A name read from /proc while events are recorded: names a thread no event
 * has named (one unknown, or mentioned without its name, also in the open
 * generation); a name an event gave is newer and stays. 0 or -errno. */
int frec_recorder__seed_thread(struct frec_recorder *rec, __u32 tid, __u32 tgid,
			       const char *comm);
/* The probe table; copied. Each generation names the probes it mentions. */
int frec_recorder__set_probes(struct frec_recorder *rec, const struct frec_probe_info *probes, size_t n);

/* The trigger table; copied. Each generation names the triggers it
 * mentions (summary section 6). Ids 1..FREC_MAX_TRIGGERS, each once, at
 * most FREC_MAX_TRIGGERS entries: else -EINVAL. 0, -EINVAL, -ENOMEM. */
int frec_recorder__set_triggers(struct frec_recorder *rec, const struct frec_trigger_info *t,
				size_t n);
/*
 * A firing of trigger id that took no snapshot (during its delay, its
 * cooldown or past its rate limit), count of them, the first at ts: added
 * to the open generation's aggregate for id, which seal writes as one
 * FREC_EV_TRIGGER event with FREC_TRIGGER_SUPPRESSED (ts: the first firing,
 * stamped no earlier than the generation's start nor later than the seal;
 * value: the worst, with its thread; cpu FREC_CPU_UNKNOWN). An aggregate
 * that finds no room at its seal is counted in stats.suppressed_unstored.
 * 0 (count 0 adds nothing), -EINVAL (an id not in the trigger table).
 */
int frec_recorder__add_suppressed(struct frec_recorder *rec, __u32 id, __u32 tid, __u32 tgid,
				  __u64 ts, __u64 value, __u64 count);

/*
 * Stacks come as FREC_EV_STACK ring records through push(), right after the
 * record they belong to (docs/FORMAT.md, "The recorder behind the file":
 * a stack whose event was not the last one stored on its CPU is an orphan,
 * counted, 0 returned). image() is called as a user stack is pushed,
 * kernel() and user() at seal, once per frame of each distinct stack.
 * Without a symbolizer (or before one is set) no kernel frame is named and
 * user frames keep their addresses. s is copied; NULL removes it. 0.
 */
int frec_recorder__set_symbolizer(struct frec_recorder *rec, const struct frec_symbolizer *s);

/*
 * Cgroups come on the switch (next_cgroup) and fork (child_cgroup) records;
 * push_event() takes FREC_EV_CGROUP (tid, tgid, cgroup.id) by the same
 * rules. A thread whose cgroup was unknown just gets it; one whose cgroup
 * changes gets a FREC_EV_CGROUP event before the event that revealed it
 * (stats.cgroup_moves). Each generation's section 2 names, through n, every
 * id its threads and cgroup events mention. n is copied; NULL removes it. 0.
 */
int frec_recorder__set_cgroup_namer(struct frec_recorder *rec, const struct frec_cgroup_namer *n);

/* Seal the open generation if period_ns has passed since it opened (now is
 * CLOCK_BOOTTIME ns), then evict by age and bytes. Returns 1 if it sealed. */
int frec_recorder__tick(struct frec_recorder *rec, __u64 now);
/* Seal the open generation now (if it holds anything) and evict. */
int frec_recorder__seal(struct frec_recorder *rec, __u64 now);

void frec_recorder__stats(const struct frec_recorder *rec, struct frec_recorder_stats *st);

/*
 * Snapshots. pin() takes a reference on every sealed generation in the window,
 * so that eviction does not free them before the snapshot has written them;
 * the recorder drops the references of those frec_snapshot__write() reports
 * written (from any of its calls: tick, seal, push), unpin() the rest (and
 * frees what was evicted meanwhile). Seal first to include the latest
 * events. Returns NULL with errno set.
 */
struct frec_pin *frec_recorder__pin(struct frec_recorder *rec);
void frec_recorder__unpin(struct frec_recorder *rec, struct frec_pin *pin);
__u64 frec_pin__events(const struct frec_pin *pin);
__u64 frec_pin__lost(const struct frec_pin *pin);
__u64 frec_pin__bytes(const struct frec_pin *pin);

/*
 * Write a pinned window as dirfd/name atomically: a temp file in the same
 * directory (name ".<name>.tmp", O_EXCL|O_NOFOLLOW, mode 0600), fsync, rename
 * over nothing (fails with -EEXIST if name exists), fsync the directory. On
 * any error the temp file is removed. Safe to call from another thread.
 * Once it has written a generation the recorder may reuse its memory, so a
 * pin is written once: -EALREADY when it was (even in part). Returns 0 or
 * -errno.
 */
int frec_snapshot__write(int dirfd, const char *name, const struct frec_header *hdr,
			 const struct frec_pin *pin);

enum frec_compress {
	FREC_COMPRESS_NONE = 0,		/* blocks stored as the recorder holds them */
	FREC_COMPRESS_ZSTD = 1,		/* each block one zstd frame */
};

struct frec_snapshot_opts {
	size_t sz;			/* sizeof(struct frec_snapshot_opts) */
	enum frec_compress compress;	/* default none */
};

/* frec_snapshot__write() with options (NULL: the defaults). Compressing
 * costs the calling thread's CPU and about 2 MiB of heap while it writes
 * (zstd's context with its 1 MiB window); recording is not slowed by it.
 * -EINVAL for an unknown compress value. */
int frec_snapshot__write_opts(int dirfd, const char *name, const struct frec_header *hdr,
			      const struct frec_pin *pin, const struct frec_snapshot_opts *opts);

/* Fill the host fields of hdr (hostname, kernel release, boot id, ncpus,
 * boottime offset, created time, frec version). */
void frec_header__init(struct frec_header *hdr);

#endif /* FREC_RECORDER_H */
