/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * frecd's cgroups as they run: the hierarchy chosen at start (cgroupfs.h),
 * the --cgroup list as applied, and the namer (cgroups.h). One per process:
 * main, the reload, the triggers' setup, status and --check all see the
 * same hierarchy, which never changes after start.
 *
 * Threads: start() and stop() on main's thread, before and after every
 * other thread; set_list() on the loop's (a reload); the getters from the
 * loop's thread, or any thread for what start() set (fs()).
 */
#ifndef FRECD_CGROUP_STATE_H
#define FRECD_CGROUP_STATE_H

#include <stddef.h>
#include <stdio.h>
#include <frec/snapshot.h>
#include "frecd/cgroupfs.h"

struct frecd_options;
struct frecd_hostview;
struct frecd_bpf_opts;
struct frecd_bpf;
struct frec_probes_attach_opts;
struct frec_config_summary;
struct frec_recorder;
struct frecd_status_cgroups;

/*
 * Open the hierarchy of o->cgroup_hierarchy and resolve o->cgroups. hv:
 * frecd's view of itself (NULL: the host's). 0, or -errno with one line in
 * err (a usage error, exit 2). Logs nothing: see log().
 */
int frecd_cgroup_state__start(const struct frecd_options *o, const struct frecd_hostview *hv,
			      char *err, size_t errlen);
/* Log the choice once the usage errors are behind (a warning when none is
 * recorded, or ids only). */
void frecd_cgroup_state__log(void);
void frecd_cgroup_state__stop(void);

/* Start the cgroup table (cgroups.h) and make it rec's namer, when ids
 * are recorded with paths in view. 0 or -errno (logged; the ids are then
 * written unnamed). */
int frecd_cgroup_state__start_namer(struct frec_recorder *rec);

/* The status's cgroups (status.h); the strings live until the next
 * set_list() or stop(). Loop's thread. */
void frecd_cgroup_state__status(struct frecd_status_cgroups *out);

/* The hierarchy; NULL before start(). */
const struct frecd_cgroupfs *frecd_cgroup_state__fs(void);
/* The --cgroup list as applied. */
const struct frecd_cgroup_list *frecd_cgroup_state__list(void);
void frecd_cgroup_state__set_list(const struct frecd_cgroup_list *l);

/* The scheduler programs' and the probes' cgroup knobs and filter. */
void frecd_cgroup_state__bpf_opts(struct frecd_bpf_opts *b);
void frecd_cgroup_state__probe_opts(struct frec_probes_attach_opts *p,
				    const struct frecd_bpf *bpf);
/* The header's cgroup_hierarchy, ncgroups, cgroups and FREC_CFG_CGROUPS. */
void frecd_cgroup_state__summary(struct frec_config_summary *c);

/* "all processes", "filtered by -p", "filtered by --cgroup" or "filtered
 * by -p and --cgroup", for the ready and reload lines. */
const char *frecd_cgroup_state__filter_words(size_t npids);

#endif /* FRECD_CGROUP_STATE_H */
