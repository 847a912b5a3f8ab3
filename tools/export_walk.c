// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The walk and the output of an export; see export_walk.h. */
#include <errno.h>
#include <string.h>
#include "calls.h"
#include "export_walk.h"
#include "out.h"
#include "walk.h"

int frec_export_walk__open(struct frec_export_walk *e, const char *path,
			   const struct frec_export_opts *opts, FILE *out, FILE *err)
{
	struct frec_walk_opts wo = { .sorted = true };
	int status;

	memset(e, 0, sizeof(*e));
	e->w = frec_walk__open(path, &wo, err, &status);
	if (!e->w)
		return status;
	e->calls = frec_calls__new();
	e->chain = frec_chain__new();
	e->o = frec_out__new(out, opts && opts->gzip);
	return e->calls && e->chain && e->o ? 0 : -ENOMEM;
}

int frec_export_walk__next_gen(struct frec_export_walk *e)
{
	return frec_walk__next_gen(e->w);
}

int frec_export_walk__gen(struct frec_export_walk *e)
{
	int rc = frec_calls__gen(e->calls, frec_walk__gen(e->w));

	if (!rc)
		frec_chain__gen(e->chain, e->w);
	return rc;
}

const struct frec_event *frec_export_walk__next(struct frec_export_walk *e,
						enum frec_chain_verdict *v,
						struct frec_chain_run *run)
{
	const struct frec_event *ev = frec_walk__next_event(e->w);

	if (!ev)
		return NULL;
	*v = frec_chain__event(e->chain, ev, run);
	e->events++;
	if (ev->ts > e->last_ts)
		e->last_ts = ev->ts;
	return ev;
}

int frec_export_walk__close(struct frec_export_walk *e, int rc, const char *path, FILE *err,
			    struct frec_export_stats *st)
{
	if (e->o) {
		uint64_t bytes = 0;
		int rc2 = frec_out__close(e->o, &bytes);

		if (!rc)
			rc = rc2;
		if (st)
			st->bytes = bytes;
	}
	if (st)
		st->events = e->events;
	if (rc) {
		fprintf(err, "frec: %s: export: %s\n", path, strerror(-rc));
		frec_walk__fail(e->w);
	}
	frec_calls__free(e->calls);
	frec_chain__free(e->chain);
	return frec_walk__close(e->w);
}
