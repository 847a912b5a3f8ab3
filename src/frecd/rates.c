// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <string.h>
#include "frecd/rates.h"
#include "frecd/status.h"

static void sample(struct frecd_rates *r, const struct frecd_status *st, __u64 now)
{
	r->ns = now;
	r->events = st->rec.events;
	memcpy(r->by_type, st->rec.events_by_type, sizeof(r->by_type));
	r->lost = st->lost;
}

void frecd_rates__init(struct frecd_rates *r, const struct frecd_status *st, __u64 now)
{
	memset(r, 0, sizeof(*r));
	sample(r, st, now);
}

bool frecd_rates__due(const struct frecd_rates *r, __u64 now)
{
	return now - r->ns >= FRECD_RATE_INTERVAL_MS * 1000000ull;
}

void frecd_rates__update(struct frecd_rates *r, const struct frecd_status *st, __u64 now)
{
	double secs = (now - r->ns) / 1e9;
	int t;

	r->rate_ns = now - r->ns;
	r->events_per_s = (st->rec.events - r->events) / secs;
	for (t = 0; t < FREC_EV__MAX; t++)
		r->by_type_per_s[t] = (st->rec.events_by_type[t] - r->by_type[t]) / secs;
	r->lost_per_s = (st->lost - r->lost) / secs;
	sample(r, st, now);
}

void frecd_rates__fill(const struct frecd_rates *r, struct frecd_status *st)
{
	st->rate_ns = r->rate_ns;
	st->events_per_s = r->events_per_s;
	memcpy(st->events_per_s_by_type, r->by_type_per_s, sizeof(st->events_per_s_by_type));
	st->lost_per_s = r->lost_per_s;
}
