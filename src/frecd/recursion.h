/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Events the kernel skipped without the programs knowing. Where it guards
 * raw_tp and tp_btf programs against re-entry (Linux 6.1 and later), a
 * program that fires while the same program already runs on that CPU is not
 * run, and only the program's recursion_misses (struct bpf_prog_info, Linux
 * 5.12 and later) counts it: one total per program, no CPU. frecd tracks
 * every program it attaches (the scheduler programs in loader.c, the probe
 * programs in probe_attach.c) and hands each increase to the recorder as
 * lost events on FREC_CPU_UNKNOWN (drops.c polls once a second, and before a
 * snapshot).
 *
 * Programs are keyed by id, each with its own baseline: a reload that swaps
 * a program untracks the old one (its increase up to then is still
 * reported, by the next poll) and tracks the new one from its own count, so
 * a swap never counts twice or goes negative. Call track after the program
 * is loaded and before it is attached, untrack after it is detached and
 * before it is closed.
 *
 * Process-wide state, for the main thread only (the loader, the reload and
 * the event loop all run there). Tracking is best effort: a program that
 * cannot be tracked is only not counted.
 */
#ifndef FRECD_RECURSION_H
#define FRECD_RECURSION_H

#include <stdbool.h>
#include <linux/types.h>

struct frec_recorder;

/* Count prog_fd's misses from its count now; the fd is duplicated. The same
 * program again only takes a reference (untrack it as often). 0, or
 * -EOPNOTSUPP when the kernel has no recursion_misses (not tracked), or
 * -errno. */
int frecd_recursion__track(int prog_fd);
/* Stop counting prog_fd's program once its references are gone; its misses
 * since the last poll go to the next poll. */
void frecd_recursion__untrack(int prog_fd);

/* Read every tracked program's count; give the increase since the last
 * poll (untracked programs' included) to rec as lost on FREC_CPU_UNKNOWN at
 * time now. Returns that increase. */
__u64 frecd_recursion__poll(struct frec_recorder *rec, __u64 now);
/* Misses reported by every poll since start. */
__u64 frecd_recursion__total(void);
/* Does this kernel count them: 1 yes, 0 no, -1 not known yet (nothing
 * tracked so far)? */
int frecd_recursion__counted(void);
/* Programs tracked now. */
unsigned int frecd_recursion__ntracked(void);

/*
 * Does the kernel fill recursion_misses for prog_fd: 0 (yes, *misses the
 * count), -EOPNOTSUPP (bpf_prog_info ends before it: the returned info_len
 * does not cover it), or -errno. *id: the program's id.
 */
int frecd_recursion__read(int prog_fd, __u32 *id, __u64 *misses);

/* For the unit tests: read the counts with fn instead of the kernel (NULL:
 * the kernel again), and forget every program and total. */
typedef int (*frecd_recursion_read_fn)(int prog_fd, __u32 *id, __u64 *misses);
void frecd_recursion__set_reader(frecd_recursion_read_fn fn);
void frecd_recursion__reset(void);

#endif /* FRECD_RECURSION_H */
