/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The cgroup table: frecd's namer for the recorder (struct
 * frec_cgroup_namer), with a resolver thread of its own, so that neither
 * the loop nor a seal waits for cgroupfs.
 *
 * The thread first walks the hierarchy into the table, then serves a queue
 * of the ids the recorder met and the table did not know: by handle
 * (cgroupfs.h), else by walking again (at most once a second). Every 10 s
 * it checks the entries no generation mentioned for two generations, and
 * marks those that vanished gone; a gone entry keeps its path until two
 * seals without a sighting (snapshots keep their own copy), then goes. It
 * also watches the --cgroup targets: one that vanishes is logged once.
 *
 * A full queue is counted (and logged at most every 5 s), never waited
 * for; the id is then written unnamed, and asked again the next generation
 * it appears in. The table holds at most cap entries: when full, the gone
 * ones seen longest ago go first.
 *
 * Threads: new() and free() on main's thread; the namer's callbacks on the
 * recorder's (the loop's), under the table's mutex, never blocking on
 * cgroupfs; set_targets() and counts() on the loop's.
 */
#ifndef FRECD_CGROUPS_H
#define FRECD_CGROUPS_H

#include <stddef.h>
#include <linux/types.h>
#include <frec/recorder.h>
#include "frecd/cgroupfs.h"

#define FRECD_CGROUPS_CAP	65536
#define FRECD_CGROUPS_QUEUE	1024

struct frecd_cgroups;

/* Start the resolver on fs (which must outlive the table); cap entries at
 * most (0: FRECD_CGROUPS_CAP). NULL with errno set. */
struct frecd_cgroups *frecd_cgroups__new(const struct frecd_cgroupfs *fs, size_t cap);
void frecd_cgroups__free(struct frecd_cgroups *c);

/* The namer to give frec_recorder__set_cgroup_namer(). */
const struct frec_cgroup_namer *frecd_cgroups__namer(struct frecd_cgroups *c);

/* The --cgroup filter's cgroups, watched for vanishing (a copy is kept). */
void frecd_cgroups__set_targets(struct frecd_cgroups *c, const struct frecd_cgroup_list *l);

struct frecd_cgroups_counts {
	__u64 known;		/* entries in the table */
	__u64 pending;		/* asked, not resolved yet */
	__u64 unnamed;		/* could not be named */
	__u64 queue_full;	/* ids not queued: the queue was full */
};
void frecd_cgroups__counts(struct frecd_cgroups *c, struct frecd_cgroups_counts *out);

#endif /* FRECD_CGROUPS_H */
