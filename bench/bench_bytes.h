/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where a snapshot file's bytes go, for bench-core: walks the file as
 * docs/FORMAT.md lays it out (header, block framing, each block's event
 * stream field by field, its summary and tables) and puts every byte in
 * one bucket. Bench-only: it reads the format on its own, so that the
 * figures describe the file, not what the encoder meant to write. Stored
 * blocks only (bench-core breaks down a snapshot written with
 * FREC_COMPRESS_NONE); a deflated or zstd block is counted whole, as
 * framing.
 *
 * Any thread; no state besides the struct it fills.
 */
#ifndef FREC_BENCH_BYTES_H
#define FREC_BENCH_BYTES_H

#include <stdint.h>
#include <stdio.h>
#include <frec/record.h>

/* Varint lengths counted separately: 1, 2, 3, 4 and 5 or more bytes. */
#define BB_LENS	5

struct bench_bytes {
	uint64_t file;			/* bytes of the file */
	uint64_t events;		/* events decoded */
	uint64_t blocks;
	uint64_t compressed;		/* bytes of compressed blocks, not broken down */
	/* framing */
	uint64_t file_hdr, block_hdr;
	/* the event streams, by field */
	uint64_t ev_total;		/* every event byte: the sum of those below */
	uint64_t tag, xtype, dts, info;
	uint64_t cpu_esc;		/* the cpu's bytes past the tag: its varint
					 * (cpu >= 15), or in the wide encoding
					 * (format.h) what its high part adds to the
					 * time delta, and escaped cpus */
	uint64_t tidx;			/* thread indices: the event's own (T) and the
					 * body's prev, next, pid, waker, parent, child */
	uint64_t prio, state_esc, migrate_cpus;
	uint64_t target_cpu_esc;	/* a waking's target_cpu past its info byte:
					 * likewise, in the woken thread's index */
	uint64_t other;			/* probe ids and args, lost counts, exec/exit
					 * extras, stacks, extended bodies */
	uint64_t cpu_esc_events;	/* events whose cpu costs bytes past the tag */
	uint64_t tidx_n[BB_LENS];	/* thread indices by varint length */
	uint64_t dts_n[BB_LENS];	/* time deltas by varint length */
	uint64_t type_events[FREC_EV__MAX + 1], type_bytes[FREC_EV__MAX + 1];
	/* the summary and tables after each event stream */
	uint64_t tab_total;		/* every table byte: the sum of those below */
	uint64_t tab_summary;		/* seq, times, counts, drops, table sizes */
	uint64_t tab_threads, tab_procs, tab_probes, tab_strings;
	uint64_t tab_cgroups, tab_thread_cgroups, tab_sections;	/* sections 2, 3, others */
	uint64_t threads;		/* thread entries, summed over blocks */
	uint64_t procs;			/* process entries, summed over blocks */
	uint64_t thread_cgroups;	/* section 3 entries, summed over blocks */
};

/* Break down dir/name; 0, -errno, or -EBADMSG when the file does not parse
 * or its buckets do not add up to its size. */
int bench_bytes__file(int dirfd, const char *name, struct bench_bytes *b);
/* The breakdown as text, per event, indented by two spaces. */
void bench_bytes__print(const struct bench_bytes *b, FILE *f);
/* The breakdown as a JSON object (no newline). */
void bench_bytes__json(const struct bench_bytes *b, FILE *f);

#endif /* FREC_BENCH_BYTES_H */
