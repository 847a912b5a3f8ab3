/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What /proc knows about tasks: the walk over every thread and process, a
 * process's command line, a pid's tgid. Nothing here touches the recorder
 * but frecd_proc__seed_names(); the rest may be called from any thread.
 *
 * Reading a process's command line reads its memory, under its mmap lock,
 * and can block for as long as that lock is held (as `ps` can); a thread's
 * comm, its tgid and the directory walk take no such lock. So the event
 * loop never reads a command line itself: procinfo.c's thread does.
 */
#ifndef FRECD_PROC_H
#define FRECD_PROC_H

#include <stddef.h>
#include <linux/types.h>

struct frec_recorder;

/* Called per thread with its tid, tgid and comm (NUL-terminated); a non-zero
 * return stops the walk and is returned. */
typedef int (*frecd_proc_thread_fn)(void *ctx, __u32 tid, __u32 tgid, const char *comm);
/* Called per process with its tgid; likewise. */
typedef int (*frecd_proc_process_fn)(void *ctx, __u32 tgid);

/* Walk /proc/[pid]/task/[tid]. 0, what fn returned, or -errno when /proc
 * cannot be read. */
int frecd_proc__for_each_thread(frecd_proc_thread_fn fn, void *ctx);
/* Walk /proc/[pid]. 0, what fn returned, or -errno. */
int frecd_proc__for_each_process(frecd_proc_process_fn fn, void *ctx);

/*
 * Name every thread in the recorder's task table (tid, tgid, comm; no
 * command lines: those can block). For start-up, before the programs are
 * attached, from the recorder's thread. The number named, or -errno.
 */
int frecd_proc__seed_names(struct frec_recorder *rec);

/* /proc/TGID/cmdline, arguments joined by spaces, NUL-terminated in buf
 * (truncated to len - 1). Its length, or -errno. May block (see above). */
int frecd_proc__cmdline(__u32 tgid, char *buf, size_t len);

/* The tgid of a pid (which may be a thread id). 0 or -errno (-ESRCH). */
int frecd_proc__tgid_of(__u32 pid, __u32 *tgid);

#endif /* FRECD_PROC_H */
