/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The /proc reader: one thread that reads what may block, so that the event
 * loop never waits for /proc (reading a command line waits for the process's
 * mmap lock, as `ps` does, for as long as it is held).
 *
 * It starts with a seed, once the programs are attached: every thread's
 * name (which names the threads born since main() named them, before
 * attaching) and every process's command line; then it reads the command
 * line of each process the loop saw exec, and of each that a seal named
 * threads of without knowing its command line. What it read goes back to
 * the loop through a bounded queue and an eventfd that the loop polls; the
 * loop applies it to the recorder (frecd_procinfo__apply()), on its own
 * thread, in the order it was read, so that a later read wins; a read of
 * a pid that the loop has since seen a new process take (its fork) is
 * dropped (frecd_procinfo__forget()). Names go in through
 * frec_recorder__seed_thread(): a name an event gave is newer and stays.
 *
 * The loop never waits for the thread: a request that finds the queue full
 * is counted and dropped (the process keeps the command line it had, if
 * any). While one read is stuck, the requests behind it wait, and
 * frecd_procinfo__tick() says so in the log.
 *
 * Every function is for the loop's thread.
 */
#ifndef FRECD_PROCINFO_H
#define FRECD_PROCINFO_H

#include <stdbool.h>
#include <linux/types.h>

struct frec_recorder;
struct frecd_procinfo;

/* Start the thread (it seeds first). NULL with errno set. */
struct frecd_procinfo *frecd_procinfo__new(void);
/* Stop it. A thread stuck in a read is left behind (the process is about
 * to exit, which ends the read): freeing waits for it at most a second. */
void frecd_procinfo__free(struct frecd_procinfo *p);

/* The functions below take NULL, a reader never started (frecd's /proc is
 * not the host's: hostview.h), and then do nothing (fd: -1). */
/* Readable (EPOLLIN) when results wait for frecd_procinfo__apply(). */
int frecd_procinfo__fd(const struct frecd_procinfo *p);
/* Queue a read of /proc/TGID/cmdline, unless one waits already. 0, or
 * -ENOSPC when the queue is full (counted in frecd_procinfo__misses()).
 * Never blocks. */
int frecd_procinfo__want_cmdline(struct frecd_procinfo *p, __u32 tgid);
/* A new process has pid tgid (the loop saw its fork): a command line read
 * for that pid and not yet applied may be the previous process's (the pid
 * was reused between the read and now), so it is dropped, and so is the
 * read under way for it. A read that waits still reads the new process.
 * The process is then named by its exec's read, or by a seal's request
 * (frec_recorder__take_unnamed()) as any process forked without exec. */
void frecd_procinfo__forget(struct frecd_procinfo *p, __u32 tgid);
/* Apply every result that waits to rec, oldest first. */
void frecd_procinfo__apply(struct frecd_procinfo *p, struct frec_recorder *rec);
/* From the loop's timer: log a read that has been stuck for a second (once
 * per read) and requests dropped since the last message (at most every 5 s). */
void frecd_procinfo__tick(struct frecd_procinfo *p);
/* Whether the seed's results are still coming (none applied yet of its
 * end): true from start until frecd_procinfo__apply() applies the last. */
bool frecd_procinfo__seeding(const struct frecd_procinfo *p);
/* Requests dropped because the queue was full, since start. */
__u64 frecd_procinfo__misses(const struct frecd_procinfo *p);

#endif /* FRECD_PROCINFO_H */
