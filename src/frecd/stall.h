/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --debug-stall-ms, for tests: SIGUSR2 stops the loop's drains for that
 * long, so that the rings fill up and overflow as when the loop is held up;
 * a second SIGUSR2 ends the stall early. Recording loses events: a test
 * option only. The loop's thread only.
 */
#ifndef FRECD_STALL_H
#define FRECD_STALL_H

#include <stdbool.h>
#include <linux/types.h>

struct frecd_stall {
	__u64 length_ns;		/* --debug-stall-ms; 0: SIGUSR2 is ignored */
	__u64 start_ns, until_ns;	/* CLOCK_MONOTONIC; until_ns 0: no stall */
};

/* SIGUSR2: start a stall, or end the one in progress. true when it ended
 * one: drain now. */
bool frecd_stall__signal(struct frecd_stall *s);
/* Before each drain: true while a stall holds (do not read the rings). A
 * stall whose time is up ends here. */
bool frecd_stall__holds(struct frecd_stall *s);
/* The last drain takes all: any stall is over, without a word. */
void frecd_stall__cancel(struct frecd_stall *s);

#endif /* FRECD_STALL_H */
