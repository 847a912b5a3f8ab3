/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Names for the frames of --stacks: frecd's struct frec_symbolizer, which
 * the recorder calls (include/frec/recorder.h).
 *
 * Kernel frames: /proc/kallsyms, read once by frecd_symbolizer__start()
 * (ksyms.h). User frames: a process's mappings are learned the first time
 * one of its stacks arrives (image()), by a helper thread that reads
 * /proc/PID/maps and, for each executable file it maps, opens the file
 * through /proc/PID/map_files (or /proc/PID/root/PATH), so that files of
 * other mount namespaces and deleted files are the ones the process runs,
 * reads its build-id and its function symbols (elf_syms.h). A process that
 * exited between the two reads leaves the path in frecd's own mount
 * namespace, used only if it is the same device and inode. Files are
 * cached by (device, inode, build-id), shared by every process that maps
 * them. An exec, or a new process under a pid seen before, starts a new
 * image: the next stack learns it again. So does a stack of another
 * program than its image's (the process's start time and exec count,
 * which the programs read from the task with each stack): the exec or
 * fork record was lost, and the image ends after its own latest stack. A
 * frame outside a learned image's mappings (a library loaded since) has
 * them read again, at most once a second for an image, then less and
 * less often (up to once a minute). Images are kept after their process
 * exits, so that generations sealed later still name its frames.
 *
 * A process may be gone before its first stack arrives (a short-lived
 * one): its maps are never read. A probe hit tells where the probed file
 * is in it (probe_hit(): the uprobe's file offset is at the stack's
 * innermost address), so that the file's executable segments, read by
 * the helper as soon as the probes name it (probe_file()), are mapped
 * there for that image: the probed function and its callers in that file
 * are named. The maps read, when they are, win over those, but for a
 * file they show that the helper could not open (the process exited
 * between the two reads): a probe hit's mapping of it names its frames.
 *
 * Memory is bounded: at most max_images images (the least recently used
 * goes, and its stacks are no longer named), and at most max_files files
 * that no image maps, max_file_bytes of their symbols (least recently
 * used first). Files that live images map are kept. The files past those
 * limits go at drained(), on the loop's thread, never while the recorder
 * may still be copying a name user() gave (even when the helper let go of
 * the file meanwhile).
 *
 * The maps of a live process can change under the reader: an exec, or a
 * new process under the same pid, not yet drained when they are read. A
 * read is used only once the drain has passed its time (drained()), and
 * an exec or fork recorded before the read ended (new_image()) drops it:
 * a wrong name is never given for an image the process was seen to
 * leave. A lost exec or fork record shows in the next stack's program id,
 * which ends the image as well; what no id can show is such a loss before
 * a read of the image's maps (its first, or a relearn), with no stack of
 * the new program drained before that read: the new program's maps then
 * name the old one's stacks.
 *
 * Threads: new, start, free, new_image, drained, probe_file, probe_hit and
 * the recorder's calls (image, kernel, user) on the loop's thread; the
 * helper thread is the symbolizer's own.
 * The recorder's calls never read a file or wait for the helper: they take
 * a mutex the helper holds only to publish what it learned.
 */
#ifndef FRECD_SYMBOLIZER_H
#define FRECD_SYMBOLIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <frec/recorder.h>

#define FRECD_SYM_MAX_IMAGES	4096
#define FRECD_SYM_MAX_FILES	256
#define FRECD_SYM_MAX_FILE_BYTES	(256ull << 20)

struct frecd_symbolizer_opts {
	size_t sz;
	__u32 max_images;		/* 0: FRECD_SYM_MAX_IMAGES */
	__u32 max_files;		/* unmapped files kept, 0: FRECD_SYM_MAX_FILES */
	__u64 max_file_bytes;		/* their symbols, 0: FRECD_SYM_MAX_FILE_BYTES */
	const char *kallsyms;		/* NULL: /proc/kallsyms */
	const char *proc;		/* NULL: /proc */
};

struct frecd_symbolizer_stats {
	__u64 images;			/* images known now */
	__u64 images_learned;		/* since start: mappings read */
	__u64 images_failed;		/* the process was gone, unreadable, or the queue full */
	__u64 images_unannounced;	/* since start: ended by a stack of another program */
	__u64 files;			/* files cached now */
	__u64 file_bytes;		/* their symbols */
	__u64 kernel_symbols;		/* 0: kernel frames are not named */
};

struct frecd_symbolizer;

/* NULL with errno set. Nothing is read and no thread runs before start(). */
struct frecd_symbolizer *frecd_symbolizer__new(const struct frecd_symbolizer_opts *opts);
/* Stops the helper, letting it finish the file work in progress for up to
 * 5 s: a helper still in a read then (a process stuck with its mappings
 * locked, a hung file system) is left, with its memory, to the process's
 * exit, said in a warning. */
void frecd_symbolizer__free(struct frecd_symbolizer *s);

/*
 * Read kallsyms and start the helper: once (later calls return 0). 0, or
 * -errno when the helper cannot start (kallsyms that cannot be read only
 * leaves kernel frames unnamed, logged once).
 */
int frecd_symbolizer__start(struct frecd_symbolizer *s);

/* The interface for frec_recorder__set_symbolizer(); lives as long as s. */
const struct frec_symbolizer *frecd_symbolizer__iface(struct frecd_symbolizer *s);

/* tgid exec'd into the program id names (NULL: not known), or a new
 * process got tgid, at ts (the record's time, boot clock): its next stack
 * starts a new image (the old one stays for the stacks already recorded,
 * without the maps read at or after ts: those are the new program's). */
void frecd_symbolizer__new_image(struct frecd_symbolizer *s, __u32 tgid, __u64 ts,
				 const struct frec_image_id *id);
/* Every record before ts (boot clock) has been handed to the recorder, its
 * execs and forks to new_image(): maps read before ts may name frames. */
void frecd_symbolizer__drained(struct frecd_symbolizer *s, __u64 ts);

/* A probed file (a uprobe's path, as frecd attached it, and the build-id
 * it had then, hex; NULL or "": none to check): the helper reads its
 * symbols now, so that its hits are named without its processes' maps; a
 * file at path with another build-id is not read. Never blocks; nothing
 * before start(). */
void frecd_symbolizer__probe_file(struct frecd_symbolizer *s, const char *path,
				  const char *build_id);
/*
 * A hit of the uprobe at file offset file_off of path (build_id as for
 * probe_file()) in tgid, at ts in the program id names (as for the
 * recorder's image()), whose user
 * stack starts at ip (that offset's address there): tgid's present image
 * maps path's executable segments where ip puts them, once the file is
 * read, unless ip cannot be that offset (a wrong name is never given).
 * Never blocks nor reads a file; nothing before start().
 */
void frecd_symbolizer__probe_hit(struct frecd_symbolizer *s, __u32 tgid,
				 const struct frec_image_id *id, __u64 ts, const char *path,
				 const char *build_id, __u64 file_off, __u64 ip);

/*
 * How many of the first frames of a sched_switch kernel stack (ips, n
 * innermost first) are the tracing path (the program, bpf_trace_run*,
 * the tracepoint's iterator): the frames up to the one in
 * __traceiter_sched_switch or __bpf_trace_sched_switch. -ENOENT when
 * that frame is not among the first few (or kallsyms is not readable).
 */
int frecd_symbolizer__kernel_skip(struct frecd_symbolizer *s, const __u64 *ips, __u32 n);

void frecd_symbolizer__stats(struct frecd_symbolizer *s, struct frecd_symbolizer_stats *st);

/* Wait until the helper has nothing queued (tests); 0 or -ETIMEDOUT. */
int frecd_symbolizer__drain(struct frecd_symbolizer *s, unsigned int timeout_ms);

#endif /* FRECD_SYMBOLIZER_H */
