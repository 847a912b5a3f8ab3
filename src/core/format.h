/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The byte layout of the .frec file and of the encoded event stream, shared
 * by the writer (encode.c, seal.c, header.c) and the reader (reader*.c).
 * docs/FORMAT.md is the prose version of this file; keep them in step.
 */
#ifndef FREC_CORE_FORMAT_H
#define FREC_CORE_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <frec/snapshot.h>

/* File header: magic, u32 version, u32 body length, body, u32 CRC32. */
#define FILE_MAGIC		"\x89" "FREC\r\n\x1a"
#define FILE_MAGIC_LEN		8
#define FILE_PREFIX_LEN		16		/* magic + version + body length */
#define FILE_BODY_MAX		65536		/* a longer body is not ours */
/* The version a file says: the lowest that reads it. */
#define FORMAT_VERSION_STORED	2		/* stored (or deflated) blocks */
#define FORMAT_VERSION_ZSTD	3		/* zstd blocks among them */
/* Version 4: a thread's tgid is coded as its difference from the tid, and
 * section 3's thread indices as gaps. */
#define FORMAT_VERSION_TABLES	4
/* Version 5: a thread's comm is coded as the bytes it shares with the
 * entry before's and the bytes that follow, their two counts in one byte
 * (THREAD_NAME_*). */
#define FORMAT_VERSION_NAMES	5
/* Version 6, all the writer makes now: in a block of 16 CPUs or more, a
 * switch's next and a waking's pid are coded against the CPU's recent
 * threads (RECENT_*, below). */
#define FORMAT_VERSION_RECENT	6
#define FORMAT_VERSION_WRITTEN	FORMAT_VERSION_RECENT
#define THREAD_NAME_SHARED(b)	((unsigned)(b) >> 4)
#define THREAD_NAME_TAIL(b)	((unsigned)(b) & 15)
#define THREAD_NAME_BYTE(shared, tail)	((uint8_t)((shared) << 4 | (tail)))

/* Block header: magic, u32 flags, u32 payload_len (bytes that follow the
 * header), u32 raw_len (payload bytes once uncompressed), u32 events_len (of
 * raw_len, the event stream at its start; the summary and tables follow),
 * u32 CRC32 of the payload, u32 CRC32 of the 28 bytes before it. */
#define BLOCK_MAGIC		"\xf7" "FRGEN\r\n"
#define BLOCK_MAGIC_LEN		8
#define BLOCK_HDR_LEN		32
#define BLOCK_OFF_FLAGS		8
#define BLOCK_OFF_PAYLOAD	12
#define BLOCK_OFF_RAW		16
#define BLOCK_OFF_EVENTS	20
#define BLOCK_OFF_PCRC		24
#define BLOCK_OFF_HCRC		28
#define BLOCK_COMP_NONE		0		/* flags: the payload is stored as is */
#define BLOCK_COMP_DEFLATE	1		/* flags: raw DEFLATE (RFC 1951) */
#define BLOCK_COMP_ZSTD		2		/* flags: one zstd frame (RFC 8878),
						 * format version 3 on */

/* Limits the reader enforces before allocating; the writer stays below. */
#define BLOCK_MAX_COMP		(256u << 20)
#define BLOCK_MAX_RAW		(256u << 20)
/* R / P of a compressed block, at most: deflate cannot expand more than
 * this, and the zstd writer stores a block that would. */
#define BLOCK_MAX_RATIO		1032u
/* A zstd block's window, at most (log2 bytes): the reader's decoder then
 * needs at most this much memory of its own. */
#define BLOCK_ZSTD_WINDOW_LOG	20

/* The fewest bytes one entry can take (every varint 1 byte, every str empty:
 * length byte and NUL): a block's counts times these must fit in the bytes
 * it really has. */
#define EV_MIN_BYTES		3		/* tag, ts delta, info */
#define THREAD_MIN_BYTES	4		/* tid, tgid, comm */
#define THREAD_MIN_BYTES_V5	3		/* tid, tgid, the name's byte */
#define PROC_MIN_BYTES		3		/* tgid, cmdline */
#define PROBE_MIN_BYTES		12		/* id, kind, 4 strs, offset, nargs */
#define STR_MIN_BYTES		2
#define TRIGGER_MIN_BYTES	6		/* section 6: id, kind, 2 strs */
#define STACK_MIN_BYTES		3		/* section 4: kind, nframes, a frame */
#define USER_FRAME_MIN_BYTES	3		/* mapping, file_offset, symbol */
#define MAPPING_MIN_BYTES	4		/* section 5: 2 strs */
#define CGROUP_MIN_BYTES	5		/* section 2: id, 2 strs */
#define THREAD_CGROUP_MIN_BYTES	2		/* section 3: thread, cgroup */
/* Frames of all stacks of one block, at most: a reader's memory for them
 * (a struct frec_frame of 40 bytes for a frame that may take one byte)
 * stays bounded whatever a block claims; the writer stays below. */
#define STACK_FRAMES_MAX	(1u << 20)

/* Encoded events (the last section of a block's payload). */
#define EV_TYPE_MASK		0x0f		/* tag bits 0-3 */
#define EV_CPU_SHIFT		4		/* tag bits 4-7: cpu, 15 = varint follows */
#define EV_CPU_ESC		15

/*
 * Wide CPU numbers (version 2, a block whose summary counts C >= 16 CPUs).
 * A varint per event for every CPU from 15 on would cost a 256-CPU machine
 * 1.4 bytes an event. Instead the tag's cpu nibble holds cpu & 15, and the
 * high part h = cpu >> 4, one of G = ceil(C / 16) values, rides in a varint
 * the event has anyway, in mixed radix: v * (G + 1) + h. That costs
 * log2(G + 1) bits, not a byte. The value G in that place is the escape
 * (a cpu of C or more, or a product that would overflow): the nibble is 0,
 * the rest of the varint 0, and the plain fields follow (see FORMAT.md).
 * The time delta carries the event's cpu; a waking's thread index (pid)
 * its target_cpu.
 */
#define EV_WIDE_CPUS		16
#define EV_CPU_GROUP_SHIFT	4

/* G for a block of ncpus CPUs, 0 when its events use the plain encoding. */
static inline uint32_t cpu_groups(uint32_t version, uint32_t ncpus)
{
	return version >= 2 && ncpus >= EV_WIDE_CPUS ? (ncpus + 15) >> EV_CPU_GROUP_SHIFT : 0;
}

/*
 * A CPU's recent threads (version 6, wide blocks). On a big machine a block
 * names tens of thousands of threads, so an index takes 2 or 3 bytes, yet
 * most switches on a CPU go to one of the few threads that ran or were
 * woken there lately. Per CPU, writer and reader keep RECENT_SLOTS slots,
 * empty (RECENT_NONE) at the block's start: the thread index i was last
 * coded through that CPU's slot i % RECENT_SLOTS. The value coded is that
 * slot's number when the slot holds i, else RECENT_SLOTS + i; either way
 * the slot then holds i. The slots of a switch are its event's CPU's, a
 * waking's its target CPU's; a switch on a CPU of C or more and a waking
 * whose target is escaped code the index as before. A move-to-front list
 * of 16 saved a tenth more bytes but cost the recorder 13-25 ns an event
 * in its search and moves; a slot is one load and one store.
 */
#define RECENT_SLOTS		64
#define RECENT_NONE		UINT32_MAX

static inline bool recent_coded(uint32_t version, uint32_t groups)
{
	return version >= FORMAT_VERSION_RECENT && groups;
}

/* The value that codes idx through a CPU's slots, which then hold it. */
static inline uint64_t recent_put(uint32_t *slots, uint32_t idx)
{
	uint32_t s = idx & (RECENT_SLOTS - 1);
	uint64_t v = slots[s] == idx ? s : (uint64_t)idx + RECENT_SLOTS;

	slots[s] = idx;
	return v;
}

/* v * (G + 1) + h, or false when it does not fit in 64 bits. */
static inline bool wide_pack(uint64_t v, uint32_t groups, uint32_t h, uint64_t *out)
{
	if (v > (UINT64_MAX - groups) / ((uint64_t)groups + 1))
		return false;
	*out = v * ((uint64_t)groups + 1) + h;
	return true;
}

#define INFO_T			0x01		/* every type: thread index follows */
/* sched_switch */
#define SW_PREV			0x02		/* prev thread index follows (else prev = thread) */
#define SW_PREV_PRIO		0x04		/* zigzag prev_prio follows (else 120) */
#define SW_NEXT_PRIO		0x08		/* zigzag next_prio follows (else 120) */
#define SW_STATE_SHIFT		4		/* bits 4-7: prev_state code, 15 = varint */
/* sched_waking, sched_wakeup, sched_wakeup_new */
#define WK_WAKER		0x02		/* waker thread index follows (else waker = thread) */
#define WK_PRIO			0x04		/* zigzag prio follows (else 120) */
#define WK_CPU_SHIFT		4		/* bits 4-7: target_cpu, 15 = varint */
/* sched_process_fork */
#define FK_PARENT		0x02		/* parent thread index follows (else parent = thread) */
/* sched_process_exit */
#define EX_TGID			0x02		/* varint tgid follows (else the pid thread's tgid) */
/* sched_migrate_task */
#define MG_PRIO			0x04
/* uprobe, uretprobe, usdt: bits 4-7 nargs */
#define PR_NARGS_SHIFT		4
/* lost: no thread at all (tid = tgid = 0) */
#define LOST_NOTHREAD		0x02
/* lost, version 2: zigzag first_ts - ts and last_ts - ts follow the count */
#define LOST_SPAN		0x04
/* lost, version 2: the count is not known (it is a lower bound) */
#define LOST_UNKNOWN		0x08

/* Extended types (tag type nibble FREC_EV_ESCAPE, version 2): a varint32
 * type, at least EXT_TYPE_MIN, follows the tag (and its cpu); after the
 * info byte and the thread, a varint32 body length and the body, so that a
 * reader skips a type it does not know. */
#define EXT_TYPE_MIN		16
#define EXT_NOTHREAD		0x02	/* info bit 1: no thread (tid = tgid = 0) */
#define EXT_BODY_MAX		64	/* the longest body the writer makes */

/* stack (type 14): two varint32, kernel then user stack table index + 1 */
/* cgroup (xtype 18): the body is the cgroup id (varint, never 0); T is
 * always set (the moved thread), N never */

/* The sections after the tables (version 2): varint32 id, varint32 length. */
#define SECTION_PROCESS_PARENTS	1
#define SECTION_CGROUPS		2
#define SECTION_THREAD_CGROUPS	3
#define SECTION_STACKS		4
#define SECTION_MAPPINGS	5
#define SECTION_TRIGGERS	6

#define DEFAULT_PRIO		120
#define STATE_ESC		15
#define STATE_IDLE_CODE		14		/* TASK_IDLE = TASK_UNINTERRUPTIBLE | TASK_NOLOAD */
#define STATE_IDLE		0x402

/* Largest encoded event: tag, cpu, ts, info, thread, probe id, 6 args, ret,
 * and the wide encoding's escape before an escaped cpu (at most 2 bytes: G
 * is at most FREC_MAX_CPUS / 16). (A lost event with its span, 49 bytes,
 * and the extended types, at most 1 + 5 + 2 + 5 + 10 + 1 + 5 + 1 + 30 (a
 * trigger), are smaller.) */
#define EV_MAX_BYTES		(1 + 2 + 5 + 10 + 1 + 5 + 5 + 6 * 10 + 10)

/* prev_state code: 0 -> 0, c in 1..13 -> 1 << (c - 1), 14 -> TASK_IDLE. */
static inline unsigned state_code(uint64_t s)
{
	if (s == 0)
		return 0;
	if (s == STATE_IDLE)
		return STATE_IDLE_CODE;
	if (!(s & (s - 1)) && s <= (1u << 12))
		return (unsigned)__builtin_ctzll(s) + 1;
	return STATE_ESC;
}

static inline uint64_t state_value(unsigned code)
{
	if (code == 0)
		return 0;
	if (code == STATE_IDLE_CODE)
		return STATE_IDLE;
	return 1ull << (code - 1);
}

/* The header body, both ways (header.c). encode returns the body length or
 * -ENOSPC; decode returns 0 or -EBADMSG. */
#define HEADER_MAX_BYTES	4096
int header_encode(const struct frec_header *hdr, uint8_t *buf, size_t cap);
int header_decode(const uint8_t *body, size_t len, struct frec_header *hdr);

#endif /* FREC_CORE_FORMAT_H */
