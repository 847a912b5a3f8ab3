/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What both exporters do around their writers: one sorted walk of the
 * snapshot with the call pairing (calls.h) and the switch chains
 * (cpu_chain.h) fed along, into one output stream (out.h), and the end of
 * an export: the output closed, a failure said once, the counts for
 * --stats. The exporter embeds a struct frec_export_walk and calls, in
 * order: open, then per generation next_gen and gen, next until NULL, and
 * close once. One export per struct, on one thread.
 */
#ifndef FREC_TOOLS_EXPORT_WALK_H
#define FREC_TOOLS_EXPORT_WALK_H

#include <stdio.h>
#include "cpu_chain.h"
#include "tools.h"

struct frec_calls;
struct frec_out;
struct frec_walk;

struct frec_export_walk {
	struct frec_walk *w;
	struct frec_out *o;
	struct frec_calls *calls;
	struct frec_chain *chain;
	__u64 events;		/* walked so far */
	__u64 last_ts;		/* the latest timestamp walked (the exporter may start it) */
};

/* Open path and the output: 0; -ENOMEM, to be handed to close(); or, when
 * the snapshot cannot be read (said on err), the exit status, and the
 * export is over (no close). */
int frec_export_walk__open(struct frec_export_walk *e, const char *path,
			   const struct frec_export_opts *opts, FILE *out, FILE *err);
/* The next intact generation: 1, or 0 at the end. */
int frec_export_walk__next_gen(struct frec_export_walk *e);
/* Before a generation's events: its probes, its damage. 0 or -ENOMEM. */
int frec_export_walk__gen(struct frec_export_walk *e);
/* The next event of the generation, counted, with its switch chain's
 * verdict and run (cpu_chain.h); NULL at the generation's end. */
const struct frec_event *frec_export_walk__next(struct frec_export_walk *e,
						enum frec_chain_verdict *v,
						struct frec_chain_run *run);
/* The end: close the output (its bytes in st), say a failure rc (or one
 * of the output) on err, free; the exit status. */
int frec_export_walk__close(struct frec_export_walk *e, int rc, const char *path, FILE *err,
			    struct frec_export_stats *st);

#endif /* FREC_TOOLS_EXPORT_WALK_H */
