// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "frecd/log.h"
#include "frecd/losslog.h"
#include "frecd/options.h"

/* Whether a warning is due now: something new, and the first, forced, or
 * the last one long enough ago. *news: the increase to name. */
static bool due(const struct frecd_losslog *l, __u64 count, __u64 now, bool force, __u64 *news)
{
	if (count == l->logged)
		return false;
	if (!force && l->logged_at && now - l->logged_at < FRECD_LOSSLOG_INTERVAL_NS)
		return false;
	*news = count - l->logged;
	return true;
}

static void logged(struct frecd_losslog *l, __u64 count, __u64 now)
{
	l->logged = count;
	l->logged_at = now;
	l->gap_max_ns = 0;
}

static const char *since(const struct frecd_losslog *l)
{
	return l->logged_at ? "the last message" : "start";
}

void frecd_losslog__drain_gap(struct frecd_losslog *l, __u64 gap_ns)
{
	if (gap_ns > l->gap_max_ns)
		l->gap_max_ns = gap_ns;
}

void frecd_losslog__drops(struct frecd_losslog *l, __u64 lost, __u64 now, bool force,
			  __u64 ring_bytes)
{
	char ring[32];
	__u64 n;

	if (!due(l, lost, now, force, &n))
		return;
	log_warn("lost %llu events since %s (ring buffer full; the longest wait between drains was %.1f ms); they are counted in the snapshot; raise --ring-size (now %s) if this repeats",
		 (unsigned long long)n, since(l), l->gap_max_ns / 1e6,
		 frecd_format_size(ring_bytes, ring, sizeof(ring)));
	logged(l, lost, now);
}

void frecd_losslog__discards(struct frecd_losslog *l, __u64 discarded, __u64 now, bool force,
			     __u64 max_bytes)
{
	char size[32];
	__u64 n;

	if (!due(l, discarded, now, force, &n))
		return;
	log_warn("%llu events found no room in memory since %s (a snapshot held the window); they are counted in the snapshot as lost; raise --max-size (now %s) if this repeats",
		 (unsigned long long)n, since(l),
		 frecd_format_size(max_bytes, size, sizeof(size)));
	logged(l, discarded, now);
}

void frecd_losslog__proc_misses(struct frecd_losslog *l, __u64 misses, __u64 now,
				unsigned int queue)
{
	__u64 n;

	if (!due(l, misses, now, false, &n))
		return;
	log_warn("%llu processes exec'd without their command line being read (the queue of %u reads of /proc was full); snapshots show the command line each had before",
		 (unsigned long long)n, queue);
	logged(l, misses, now);
}
