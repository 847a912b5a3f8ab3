/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A snapshot with a broken switch chain (tools/cpu_chain.h), for the tests
 * of report, info and both exporters. With t = 3 s, on 2 CPUs, one
 * generation sealed at t + 50 ms:
 *   t+0         cpu0 swapper/0 (0) -> agent (301, tgid 300)
 *   t+1000      cpu0 sched_waking by agent: wakes worker (303, tgid 303), cpu 1
 *   t+2000      cpu1 swapper/1 (0) -> worker (303)
 *   t+40000000  cpu0 other (302, tgid 300), prev_state S -> swapper/0:
 *               the kernel never switched agent out
 *   t+40001000  cpu1 worker (303), prev_state S -> swapper/1
 * So agent ran from t to its last event, t+1000 (1 us); the 39.999 ms up
 * to the break are nobody's; worker ran 39.999 ms (t+2000 .. t+40001000).
 */
#ifndef FREC_TEST_SYNTH_CHAIN_H
#define FREC_TEST_SYNTH_CHAIN_H

#include "synth.h"

#define SYNTH_CHAIN_T		3000000000ull
#define SYNTH_CHAIN_BREAK_TS	(SYNTH_CHAIN_T + 40000000ull)

static inline int synth_chain_break_snapshot(const char *dir, const char *name)
{
	const __u64 t = SYNTH_CHAIN_T;
	struct frec_recorder *rec = synth_recorder(2);
	int err;

	if (!rec)
		return -1;
	frec_recorder__tick(rec, t);
	synth_switch(rec, t, 0, 0, 0, "swapper/0", 0, 301, 300, "agent");
	synth_wake(rec, FREC_EV_SCHED_WAKING, t + 1000, 0, 301, 300, 303, 303, "worker", 1);
	synth_switch(rec, t + 2000, 1, 0, 0, "swapper/1", 0, 303, 303, "worker");
	synth_switch(rec, SYNTH_CHAIN_BREAK_TS, 0, 302, 300, "other", 1, 0, 0, "swapper/0");
	synth_switch(rec, SYNTH_CHAIN_BREAK_TS + 1000, 1, 303, 303, "worker", 1, 0, 0, "swapper/1");
	err = synth_write(rec, dir, name, t + 50000000ull);
	frec_recorder__free(rec);
	return err;
}

#endif /* FREC_TEST_SYNTH_CHAIN_H */
