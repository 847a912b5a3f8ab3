// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "frecd/clock.h"
#include "frecd/log.h"
#include "frecd/stall.h"

/* The end of a stall, by time or by a second SIGUSR2. */
static void stall_end(struct frecd_stall *s)
{
	log_info("draining the ring buffer again after a stall of %.0f ms (--debug-stall-ms)",
		 (frecd_clock__mono_ns() - s->start_ns) / 1e6);
	s->until_ns = 0;
}

bool frecd_stall__signal(struct frecd_stall *s)
{
	if (!s->length_ns) {
		log_info("SIGUSR2: ignored (only --debug-stall-ms uses it)");
		return false;
	}
	if (s->until_ns) {
		stall_end(s);
		return true;
	}
	s->start_ns = frecd_clock__mono_ns();
	s->until_ns = s->start_ns + s->length_ns;
	log_info("SIGUSR2: not draining the ring buffer for %llu ms (--debug-stall-ms)",
		 (unsigned long long)(s->length_ns / 1000000));
	return false;
}

bool frecd_stall__holds(struct frecd_stall *s)
{
	if (!s->until_ns)
		return false;
	if (frecd_clock__mono_ns() < s->until_ns)
		return true;
	stall_end(s);
	return false;
}

void frecd_stall__cancel(struct frecd_stall *s)
{
	s->until_ns = 0;
}
