/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What /proc knows about tasks: frecd seeds the recorder's task table with
 * every thread that exists when it starts (so threads that predate frecd are
 * named in every snapshot), and reads a process's command line after exec.
 */
#ifndef FRECD_PROC_H
#define FRECD_PROC_H

#include <linux/types.h>

struct frec_recorder;

/* Walk /proc/[pid]/task/[tid]: tid, tgid and comm of every thread, and every
 * process's cmdline. Returns the number of threads named, or -errno. */
int frecd_proc__seed(struct frec_recorder *rec);

/* /proc/TGID/cmdline, arguments joined by spaces, into the recorder. Uses a
 * static buffer (called per exec event: no allocation). 0 or -errno. */
int frecd_proc__read_cmdline(struct frec_recorder *rec, __u32 tgid);

/* The tgid of a pid (which may be a thread id). 0 or -errno (-ESRCH). */
int frecd_proc__tgid_of(__u32 pid, __u32 *tgid);

#endif /* FRECD_PROC_H */
