/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The snapshot file (.frec): its header as a struct, and the reader.
 * docs/FORMAT.md describes every byte. The reader streams: it holds one
 * generation at a time, whatever the size of the file.
 */
#ifndef FREC_SNAPSHOT_H
#define FREC_SNAPSHOT_H

#include <stdbool.h>
#include <stdio.h>
#include "event.h"

/* The newest format version this library reads, and the one it writes. A
 * file says the lowest version that reads it: 6 as written now; 5, 4, or 2
 * (stored blocks) and 3 (zstd ones among them), from earlier writers. */
#define FREC_FORMAT_VERSION	6
#define FREC_MAX_CPUS		1024

/* How the recorder was set up; stored in the header, printed by frec info. */
struct frec_config_summary {
	__u64 min_age_ns;	/* --window */
	__u64 max_bytes;	/* --max-size */
	__u64 period_ns;	/* --period */
	__u64 ring_bytes;	/* --ring-size */
	__u32 npids;		/* number of -p filters, 0 = all */
	__u32 pids[16];		/* the first 16 of them */
	__u32 flags;		/* FREC_CFG_* */
	/* "" not recorded, "v2", or the v1 controller whose hierarchy the
	 * cgroup ids are of ("pids") */
	char cgroup_hierarchy[16];
	__u32 ncgroups;		/* number of --cgroup filters, 0 = none */
	char cgroups[8][256];	/* the first 8 of them, normalised */
};

#define FREC_CFG_RAW_TP		(1u << 0)	/* raw_tp programs were used, not tp_btf */
#define FREC_CFG_WAKEUP		(1u << 1)	/* sched_wakeup recorded besides sched_waking */
#define FREC_CFG_STACKS_OFFCPU	(1u << 2)	/* --stacks offcpu */
#define FREC_CFG_STACKS_PROBES	(1u << 3)	/* --stacks probes */
#define FREC_CFG_CGROUPS	(1u << 4)	/* events carry cgroups: cgroup_hierarchy is set */

struct frec_header {
	__u32 version;			/* read: the file's format version; the writer
					 * sets the one its blocks need */
	__u32 ncpus;
	__s64 boottime_to_realtime_ns;	/* add to a ts to get CLOCK_REALTIME ns */
	__u64 created_realtime_ns;	/* when the snapshot was taken */
	char hostname[65];
	char kernel_release[65];
	char boot_id[37];		/* /proc/sys/kernel/random/boot_id */
	char frec_version[32];
	char reason[128];		/* "SIGUSR1", "socket: <text>", ... */
	struct frec_config_summary config;
};

/* A generation's summary, as the reader has it once the block is verified. */
struct frec_gen_info {
	__u64 seq;			/* increases by one per generation sealed */
	__u64 start_ts;			/* first event's ts (or the seal time if empty) */
	__u64 end_ts;			/* the seal time */
	__u64 nevents;
	__u64 nevents_by_type[FREC_EV__MAX];
	__u32 ncpus;			/* entries of drops[] */
	const __u64 *drops;		/* per CPU: records lost in this generation */
	__u32 nthreads;
	__u32 nprocesses;
	__u32 nprobes;
	__u64 nevents_skipped;		/* of an extended type this reader does not know,
					 * as they are read */
	__u64 raw_bytes;		/* uncompressed payload bytes */
	__u64 file_bytes;		/* bytes of the block in the file */
	__u32 ntriggers;		/* entries of the trigger table (section 6) */
	__u32 nstacks;			/* entries of the stack table (section 4) */
	__u32 nmappings;		/* entries of the mapping table (section 5) */
	__u32 ncgroups;			/* entries of the cgroup table (section 2) */
};

/*
 * One frame of a stack (section 4), as every tool shows it. A kernel
 * frame has module "[kernel]", build_id NULL and no file_offset. A user
 * frame whose mapping was not known has module NULL and the address in
 * file_offset. sym is NULL when the frame was not named (sym_offset 0).
 */
struct frec_frame {
	const char *sym;
	__u64 sym_offset;
	const char *module;	/* "[kernel]", a file's path, or NULL */
	const char *build_id;	/* hex, "" when the file has none; NULL for kernel and unknown */
	__u64 file_offset;
};

#define FREC_STACK_KERNEL	1
#define FREC_STACK_USER		2

struct frec_stack {
	__u32 kind;		/* FREC_STACK_KERNEL or FREC_STACK_USER */
	__u32 nframes;		/* at most FREC_MAX_STACK_DEPTH */
	const struct frec_frame *frames;	/* innermost first */
};

struct frec_reader;
struct frec_gen;

/*
 * Open a snapshot and read its header. Returns 0 and sets *rp, or a negative
 * errno: -ENOENT/-EACCES/... from open(2), -EBADMSG when the file is not a
 * .frec snapshot, -EPROTONOSUPPORT when it was written by a newer format
 * version, -ENODATA when it ends inside the header. frec_strerror() turns the
 * frec-specific codes into words.
 */
int frec_reader__open(const char *path, struct frec_reader **rp);
int frec_reader__open_fd(int fd, struct frec_reader **rp);	/* takes ownership of fd */
const struct frec_header *frec_reader__header(const struct frec_reader *r);
void frec_reader__free(struct frec_reader *r);

/*
 * Read the next generation. Returns 1 and sets *genp (valid until the next
 * call or free), 0 at the end of the file, or a negative errno when a block is
 * damaged: -EBADMSG for a bad CRC or undecodable content, -ENODATA when the
 * file ends inside a block. After a damaged block the caller may call again:
 * the reader resynchronises on the next block if it can, and a truncated file
 * then returns 0.
 */
int frec_reader__next_gen(struct frec_reader *r, struct frec_gen **genp);
__u64 frec_reader__damaged(const struct frec_reader *r);	/* blocks skipped so far */

const struct frec_gen_info *frec_gen__info(const struct frec_gen *g);
/* Events in the order they were recorded. 1 and *ev filled, 0 at the end, -EBADMSG. */
int frec_gen__next_event(struct frec_gen *g, struct frec_event *ev);
/* The thread as of the last event returned (exec/rename applied); NULL if not named. */
const struct frec_thread *frec_gen__thread(const struct frec_gen *g, __u32 tid);
const struct frec_thread *frec_gen__thread_at(const struct frec_gen *g, __u32 i);
const struct frec_process *frec_gen__process(const struct frec_gen *g, __u32 tgid);
const struct frec_process *frec_gen__process_at(const struct frec_gen *g, __u32 i);
const struct frec_probe_info *frec_gen__probe(const struct frec_gen *g, __u32 id);
const struct frec_probe_info *frec_gen__probe_at(const struct frec_gen *g, __u32 i);
/* The trigger table (section 6): by the id trigger events carry, NULL if
 * not named; by index, below info->ntriggers. */
const struct frec_trigger_info *frec_gen__trigger(const struct frec_gen *g, __u32 id);
const struct frec_trigger_info *frec_gen__trigger_at(const struct frec_gen *g, __u32 i);
/* The stack table (section 4), by the index + 1 stack events carry:
 * NULL for 0 and for an index past info->nstacks. */
const struct frec_stack *frec_gen__stack(const struct frec_gen *g, __u32 idx1);
/* The cgroup table (section 2), sorted by id: by id (binary search), NULL
 * if not named; by index, below info->ncgroups. */
const struct frec_cgroup_info *frec_gen__cgroup(const struct frec_gen *g, __u64 id);
const struct frec_cgroup_info *frec_gen__cgroup_at(const struct frec_gen *g, __u32 i);

/* Words for the frec-specific errors above, strerror() for the rest. */
const char *frec_strerror(int err);

#endif /* FREC_SNAPSHOT_H */
