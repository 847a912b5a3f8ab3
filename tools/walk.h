/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Walking a snapshot, one generation at a time, for every frec subcommand.
 *
 * The walker owns the reader and the error policy: a file that cannot be
 * opened gets one line "frec: FILE: problem" and exit status 1; a damaged
 * generation gets one line on stderr, is skipped, and makes the final status
 * 3, while the intact generations are still walked.
 *
 * Within a generation the reader returns events in the order they were
 * recorded, which across CPUs is only nearly the time order. In sorted mode
 * the walker loads the whole generation (memory bounded by one generation),
 * copies the strings it needs, and stable-sorts it by timestamp; a
 * generation of more than FREC_WALK_SORT_MAX events is not buffered but
 * walked in recorded order (nearly time order for frecd's files).
 *
 * Thread names: the walker keeps its own copy of the generation's task table
 * and applies exec and rename events as they pass in time order, so that
 * frec_walk__comm() names a thread as it was at the event being looked at
 * (a rename's old name is still there while the rename is being handled).
 * Cgroups the same way: a thread's cgroup starts as the generation's thread
 * cgroup table gives it (section 3) and changes at each cgroup event
 * (FREC_EV_CGROUP) for it, once that event has been handled; a child a fork
 * names that the table lacks starts in its parent's. A tid the table names
 * twice (pid reuse within the generation, or a full task table in frecd) is
 * one thread to the walker at a time: the entry the latest event used, as
 * the reader tells in recorded order; from the event that first uses
 * another entry, the tid has that entry's tgid, name and cgroup.
 *
 * Stacks: a stack event (FREC_EV_STACK) belongs to the event before it in
 * the recorded stream on the same cpu, if that one has the same ts and
 * thread and is a sched_switch (the thread is prev) or a probe hit. The
 * walker pairs them in recorded order, before any sorting (both have the
 * same ts, so time order alone cannot tell them apart), hands the stacks
 * out with their event (frec_walk__stacks()) and returns no stack event
 * itself (unless opts.stack_events); one that belongs to no event is ignored, as the format
 * says. Unsorted, it reads ahead at most FREC_WALK_LOOKAHEAD events to
 * find an event's stack.
 */
#ifndef FREC_TOOLS_WALK_H
#define FREC_TOOLS_WALK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <frec/snapshot.h>

struct frec_walk;

/* Sorted mode sorts a generation of at most this many events (about 250 MB
 * of memory); a larger one is walked in recorded order, with one line on
 * the error stream. */
#define FREC_WALK_SORT_MAX	(2u << 20)

/* Events read ahead of the current one, unsorted, to find its stack event. */
#define FREC_WALK_LOOKAHEAD	64

struct frec_walk_opts {
	bool sorted;		/* time order within a generation (buffers it) */
	bool quiet;		/* no messages about damaged generations */
	bool stack_events;	/* return stack events too (still paired), for counting */
};

/* Open path; on failure print one line to err and return NULL with *status
 * set to the exit status (FREC_EXIT_FAIL). */
struct frec_walk *frec_walk__open(const char *path, const struct frec_walk_opts *opts,
				  FILE *err, int *status);
/* The exit status so far (FREC_EXIT_OK or FREC_EXIT_DAMAGED), then free. */
int frec_walk__close(struct frec_walk *w);

const struct frec_header *frec_walk__header(const struct frec_walk *w);
/* Boot-clock time t as wall-clock ns since the epoch, by h's offset: false
 * when the offset is not known (0) or the sum is no time of this epoch
 * (past INT64_MAX, or negative: a damaged or hostile header). */
static inline bool frec_walk__wall_ns(const struct frec_header *h, __u64 t, __s64 *wall)
{
	return h->boottime_to_realtime_ns && t <= INT64_MAX &&
	       !__builtin_add_overflow((__s64)t, h->boottime_to_realtime_ns, wall) && *wall >= 0;
}
const char *frec_walk__path(const struct frec_walk *w);

/* Advance to the next intact generation: 1, or 0 at the end. Damaged
 * generations are reported and skipped here. */
int frec_walk__next_gen(struct frec_walk *w);
struct frec_gen *frec_walk__gen(const struct frec_walk *w);
const struct frec_gen_info *frec_walk__gen_info(const struct frec_walk *w);
__u64 frec_walk__gens(const struct frec_walk *w);	/* intact ones so far */
__u64 frec_walk__damaged(const struct frec_walk *w);	/* damaged ones so far */
/* Events of the current generation that came out (sorted mode: loaded). */
__u64 frec_walk__gen_events(const struct frec_walk *w);

/* Next event of the current generation, or NULL at its end. Valid until the
 * next call. */
const struct frec_event *frec_walk__next_event(struct frec_walk *w);

/* The kernel and user stacks of the event next_event() returned last
 * (either NULL when it has none of that kind): valid until the next
 * generation. True when it has any. */
bool frec_walk__stacks(const struct frec_walk *w, const struct frec_stack **kstack,
		       const struct frec_stack **ustack);

/* The walker's copy of the task table, by index: right after next_gen() it
 * holds the names as the generation starts. */
size_t frec_walk__nthreads(const struct frec_walk *w);
const struct frec_thread *frec_walk__thread_at(const struct frec_walk *w, size_t i);

/* The thread as of the current event; NULL when the table does not name it. */
const struct frec_thread *frec_walk__thread(const struct frec_walk *w, __u32 tid);
/* Its comm; "swapper/CPU" for tid 0 (each CPU's idle task); "<...>" (as
 * ftrace prints an unknown task) when not named; never NULL. buf holds the
 * swapper name. */
const char *frec_walk__comm(const struct frec_walk *w, __u32 tid, __u32 cpu,
			    char buf[FREC_COMM_LEN + 8]);
/* Its thread group, or tid itself when not known. */
__u32 frec_walk__tgid(const struct frec_walk *w, __u32 tid);

/* The thread's cgroup id as of the current event; 0 when not known (tid 0,
 * a thread the snapshot does not place, a file without cgroups). */
__u64 frec_walk__cgroup_id(const struct frec_walk *w, __u32 tid);
/* Its entry in the generation's cgroup table; NULL when the id is not known
 * or the generation does not name it (path and container are "" when the
 * recorder could not name it). */
const struct frec_cgroup_info *frec_walk__cgroup(const struct frec_walk *w, __u32 tid);
/* The entry of an id, or NULL (0, or not named). */
const struct frec_cgroup_info *frec_walk__cgroup_info(const struct frec_walk *w, __u64 id);

/* The cgroup an exporter labels process tgid by: its main thread's, else
 * that of the first of its threads the table places; NULL when none is
 * named. */
const struct frec_cgroup_info *frec_walk__process_cgroup(const struct frec_walk *w, __u32 tgid);
/* A short label for a cgroup: the container id's first 12 digits, else the
 * path's last component ("/" for the root); "" when it has no path. */
const char *frec_cgroup__short(const struct frec_cgroup_info *c, char buf[16], size_t *len);

/* The probe table entry of an event's probe id, or NULL. */
const struct frec_probe_info *frec_walk__probe(const struct frec_walk *w, __u32 id);

/* The trigger table entry (section 6) of an event's trigger id, or NULL;
 * its name, or "#ID" (in buf) when the generation does not name it. */
const struct frec_trigger_info *frec_walk__trigger(const struct frec_walk *w, __u32 id);
const char *frec_walk__trigger_name(const struct frec_walk *w, __u32 id, char buf[16]);

/* Request the walk stop (a failed write): close() then returns FREC_EXIT_FAIL. */
void frec_walk__fail(struct frec_walk *w);

#endif /* FREC_TOOLS_WALK_H */
