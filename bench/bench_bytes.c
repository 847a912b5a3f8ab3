// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The byte breakdown of a snapshot file (bench_bytes.h). The walk follows
 * docs/FORMAT.md; the constants come from the core's format.h, the varint
 * reader from its varint.h. Nothing here is used by the recorder.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "core/format.h"
#include "core/varint.h"
#include "bench_bytes.h"

/* A read position that charges every byte it passes to a bucket. */
struct cur {
	const uint8_t *p, *end;
	int bad;
};

static uint64_t take_varint(struct cur *c, uint64_t *bucket, uint64_t *lens)
{
	const uint8_t *s = c->p;
	uint64_t v = 0;
	size_t n;

	if (get_varint(&c->p, c->end, &v)) {
		c->bad = 1;
		c->p = c->end;
		return 0;
	}
	n = (size_t)(c->p - s);
	*bucket += n;
	if (lens)
		lens[(n < BB_LENS ? n : BB_LENS) - 1]++;
	return v;
}

static unsigned take_byte(struct cur *c, uint64_t *bucket)
{
	if (c->p >= c->end) {
		c->bad = 1;
		return 0;
	}
	(*bucket)++;
	return *c->p++;
}

static void take_bytes(struct cur *c, uint64_t n, uint64_t *bucket)
{
	if (n > (uint64_t)(c->end - c->p)) {
		c->bad = 1;
		n = (uint64_t)(c->end - c->p);
	}
	c->p += n;
	*bucket += n;
}

/*
 * A wide field (format.h: v * (G + 1) + h): what the plain value would take
 * goes to *bucket (and *lens), the bytes the high part h adds to *extra.
 * The plain value; *esc when h is the escape.
 */
static uint64_t take_wide(struct cur *c, uint32_t groups, uint64_t *bucket, uint64_t *lens,
			  uint64_t *extra, bool *esc)
{
	uint64_t scratch = 0, x = take_varint(c, &scratch, NULL), v = x / ((uint64_t)groups + 1);
	uint64_t n = varint_len(v);

	*esc = x % ((uint64_t)groups + 1) == groups;
	n = n < scratch ? n : scratch;
	*bucket += n;
	*extra += scratch - n;
	if (lens)
		lens[(n < BB_LENS ? n : BB_LENS) - 1]++;
	return v;
}

/* A `str`: varint length, the bytes, a NUL. */
static void take_str(struct cur *c, uint64_t *bucket)
{
	uint64_t n = take_varint(c, bucket, NULL);

	take_bytes(c, n + 1, bucket);
}

/* One event of the stream, every field in its bucket; groups: the block's
 * G of the wide cpu encoding (0: plain). */
static void take_event(struct cur *c, struct bench_bytes *b, uint32_t groups)
{
	const uint8_t *start = c->p;
	unsigned tag, type, cpu, info, k;
	uint64_t *ti = &b->tidx, *tl = b->tidx_n;
	bool esc = false, tesc = false;

	tag = take_byte(c, &b->tag);
	type = tag & EV_TYPE_MASK;
	cpu = tag >> EV_CPU_SHIFT;
	if (!groups && cpu == EV_CPU_ESC) {
		take_varint(c, &b->cpu_esc, NULL);
		b->cpu_esc_events++;
	}
	if (type == FREC_EV_ESCAPE)
		type = (unsigned)take_varint(c, &b->xtype, NULL);
	if (!groups) {
		take_varint(c, &b->dts, b->dts_n);
	} else {
		/* the cpu's high part: the bytes it adds to the time delta */
		uint64_t before = b->cpu_esc;

		take_wide(c, groups, &b->dts, b->dts_n, &b->cpu_esc, &esc);
		if (esc) {
			take_varint(c, &b->cpu_esc, NULL);
			take_varint(c, &b->dts, b->dts_n);
		}
		b->cpu_esc_events += b->cpu_esc != before;
	}
	info = take_byte(c, &b->info);
	if (info & INFO_T)
		take_varint(c, ti, tl);

	switch (type) {
	case FREC_EV_SCHED_SWITCH:
		if (info & SW_PREV)
			take_varint(c, ti, tl);
		take_varint(c, ti, tl);
		if ((info >> SW_STATE_SHIFT) == STATE_ESC)
			take_varint(c, &b->state_esc, NULL);
		if (info & SW_PREV_PRIO)
			take_varint(c, &b->prio, NULL);
		if (info & SW_NEXT_PRIO)
			take_varint(c, &b->prio, NULL);
		break;
	case FREC_EV_SCHED_WAKING:
	case FREC_EV_SCHED_WAKEUP:
	case FREC_EV_SCHED_WAKEUP_NEW:
		if (groups)
			take_wide(c, groups, ti, tl, &b->target_cpu_esc, &tesc);
		else
			take_varint(c, ti, tl);
		if (info & WK_WAKER)
			take_varint(c, ti, tl);
		if (info & WK_PRIO)
			take_varint(c, &b->prio, NULL);
		if (groups ? tesc : (info >> WK_CPU_SHIFT) == EV_CPU_ESC)
			take_varint(c, &b->target_cpu_esc, NULL);
		break;
	case FREC_EV_PROCESS_FORK:
		if (info & FK_PARENT)
			take_varint(c, ti, tl);
		take_varint(c, ti, tl);
		break;
	case FREC_EV_PROCESS_EXEC:
		take_varint(c, ti, tl);
		for (k = 0; k < 3; k++)	/* old_pid, filename, comm */
			take_varint(c, &b->other, NULL);
		break;
	case FREC_EV_PROCESS_EXIT:
		take_varint(c, ti, tl);
		if (info & EX_TGID)
			take_varint(c, &b->other, NULL);
		break;
	case FREC_EV_TASK_RENAME:
		take_varint(c, ti, tl);
		take_varint(c, &b->other, NULL);
		break;
	case FREC_EV_MIGRATE_TASK:
		take_varint(c, ti, tl);
		take_varint(c, &b->migrate_cpus, NULL);
		take_varint(c, &b->migrate_cpus, NULL);
		if (info & MG_PRIO)
			take_varint(c, &b->prio, NULL);
		break;
	case FREC_EV_UPROBE:
	case FREC_EV_URETPROBE:
	case FREC_EV_USDT:
		take_varint(c, &b->other, NULL);
		for (k = 0; k < info >> PR_NARGS_SHIFT; k++)
			take_varint(c, &b->other, NULL);
		if (type == FREC_EV_URETPROBE)
			take_varint(c, &b->other, NULL);
		break;
	case FREC_EV_LOST:
		take_varint(c, &b->other, NULL);
		if (info & LOST_SPAN) {
			take_varint(c, &b->other, NULL);
			take_varint(c, &b->other, NULL);
		}
		break;
	case FREC_EV_STACK:
		take_varint(c, &b->other, NULL);
		take_varint(c, &b->other, NULL);
		break;
	default:
		if (type < EXT_TYPE_MIN) {
			c->bad = 1;
			break;
		}
		take_bytes(c, take_varint(c, &b->other, NULL), &b->other);
		break;
	}
	if (type > FREC_EV__MAX)
		type = FREC_EV__MAX;	/* unknown extended types */
	b->type_events[type]++;
	b->type_bytes[type] += (uint64_t)(c->p - start);
	b->events++;
}

/* A block's summary, tables and sections ([E, R) of its payload). */
static void take_tables(struct cur *c, struct bench_bytes *b, uint32_t version, uint64_t nev)
{
	uint64_t n, nthreads, nprocs, nprobes, nstrs, *s = &b->tab_summary;

	for (int k = 0; k < 3; k++)	/* seq, start_ts, end_ts */
		take_varint(c, s, NULL);
	if (take_varint(c, s, NULL) != nev)
		c->bad = 1;
	n = take_varint(c, s, NULL);	/* counts by type */
	for (uint64_t i = 0; i < n && !c->bad; i++)
		take_varint(c, s, NULL);
	n = take_varint(c, s, NULL);	/* drops by CPU */
	for (uint64_t i = 0; i < n && !c->bad; i++)
		take_varint(c, s, NULL);
	nthreads = take_varint(c, s, NULL);
	nprocs = take_varint(c, s, NULL);
	nprobes = take_varint(c, s, NULL);
	nstrs = take_varint(c, s, NULL);
	for (uint64_t i = 0; i < nthreads && !c->bad; i++) {
		take_varint(c, &b->tab_threads, NULL);
		take_varint(c, &b->tab_threads, NULL);
		if (version >= FORMAT_VERSION_NAMES)	/* the counts' byte, the tail */
			take_bytes(c, THREAD_NAME_TAIL(take_byte(c, &b->tab_threads)),
				   &b->tab_threads);
		else
			take_str(c, &b->tab_threads);
	}
	b->threads += nthreads;
	b->procs += nprocs;
	for (uint64_t i = 0; i < nprocs && !c->bad; i++) {
		take_varint(c, &b->tab_procs, NULL);
		take_str(c, &b->tab_procs);
	}
	for (uint64_t i = 0; i < nprobes && !c->bad; i++) {
		take_varint(c, &b->tab_probes, NULL);
		take_varint(c, &b->tab_probes, NULL);
		for (int k = 0; k < 4; k++)
			take_str(c, &b->tab_probes);
		take_varint(c, &b->tab_probes, NULL);
		take_varint(c, &b->tab_probes, NULL);
	}
	for (uint64_t i = 0; i < nstrs && !c->bad; i++)
		take_str(c, &b->tab_strings);
	if (version >= 2 && !c->bad) {
		n = take_varint(c, &b->tab_sections, NULL);
		for (uint64_t i = 0; i < n && !c->bad; i++) {
			uint64_t hdr = 0, id = take_varint(c, &hdr, NULL);
			uint64_t len = take_varint(c, &hdr, NULL);
			uint64_t *bucket = id == SECTION_CGROUPS ? &b->tab_cgroups :
					   id == SECTION_THREAD_CGROUPS ? &b->tab_thread_cgroups :
					   &b->tab_sections;

			*bucket += hdr;
			if (id == SECTION_THREAD_CGROUPS && len) {
				struct cur k = { c->p, c->p + len, 0 };
				uint64_t skip = 0;

				b->thread_cgroups += take_varint(&k, &skip, NULL);
			}
			take_bytes(c, len, bucket);
		}
	}
	take_bytes(c, (uint64_t)(c->end - c->p), &b->tab_sections);	/* ignored tail */
}

/* The block's G (format.h), from the CPU count in its summary, which
 * follows the event stream: seq, start_ts, end_ts, events, the counts by
 * type, then the CPUs. */
static uint32_t block_groups(const uint8_t *p, const uint8_t *end, uint32_t version)
{
	struct cur c = { p, end, 0 };
	uint64_t skip = 0, n;

	for (int k = 0; k < 4; k++)
		take_varint(&c, &skip, NULL);
	n = take_varint(&c, &skip, NULL);
	for (uint64_t i = 0; i < n && !c.bad; i++)
		take_varint(&c, &skip, NULL);
	n = take_varint(&c, &skip, NULL);
	return c.bad || n > FREC_MAX_CPUS ? 0 : cpu_groups(version, (uint32_t)n);
}

static int take_file(const uint8_t *buf, size_t len, struct bench_bytes *b)
{
	uint32_t version, body;
	size_t off;

	if (len < FILE_PREFIX_LEN + 4 || memcmp(buf, FILE_MAGIC, FILE_MAGIC_LEN))
		return -EBADMSG;
	version = get_le32(buf + 8);
	body = get_le32(buf + 12);
	off = FILE_PREFIX_LEN + (size_t)body + 4;
	if (off > len)
		return -EBADMSG;
	b->file_hdr = off;
	while (off < len) {
		const uint8_t *h = buf + off;
		uint32_t flags, plen, rlen, elen;
		uint64_t nev = b->events;
		uint32_t groups;
		struct cur c;

		if (len - off < BLOCK_HDR_LEN || memcmp(h, BLOCK_MAGIC, BLOCK_MAGIC_LEN))
			return -EBADMSG;
		flags = get_le32(h + BLOCK_OFF_FLAGS);
		plen = get_le32(h + BLOCK_OFF_PAYLOAD);
		rlen = get_le32(h + BLOCK_OFF_RAW);
		elen = get_le32(h + BLOCK_OFF_EVENTS);
		if (plen > len - off - BLOCK_HDR_LEN)
			return -EBADMSG;
		b->block_hdr += BLOCK_HDR_LEN;
		b->blocks++;
		off += BLOCK_HDR_LEN;
		if (flags != BLOCK_COMP_NONE || rlen != plen || elen > plen) {
			b->compressed += plen;
			off += plen;
			continue;
		}
		groups = block_groups(buf + off + elen, buf + off + plen, version);
		c = (struct cur){ buf + off, buf + off + elen, 0 };
		while (c.p < c.end && !c.bad)
			take_event(&c, b, groups);
		b->ev_total += elen;
		c = (struct cur){ buf + off + elen, buf + off + plen, c.bad };
		take_tables(&c, b, version, b->events - nev);
		b->tab_total += plen - elen;
		if (c.bad)
			return -EBADMSG;
		off += plen;
	}
	return 0;
}

/* Every bucket adds up to its total and the totals to the file. */
static int check_sums(const struct bench_bytes *b)
{
	uint64_t ev = b->tag + b->cpu_esc + b->xtype + b->dts + b->info + b->tidx + b->prio +
		      b->target_cpu_esc + b->state_esc + b->migrate_cpus + b->other;
	uint64_t tab = b->tab_summary + b->tab_threads + b->tab_procs + b->tab_probes +
		       b->tab_strings + b->tab_cgroups + b->tab_thread_cgroups + b->tab_sections;

	if (ev != b->ev_total || tab != b->tab_total ||
	    b->file_hdr + b->block_hdr + b->compressed + ev + tab != b->file)
		return -EBADMSG;
	return 0;
}

int bench_bytes__file(int dirfd, const char *name, struct bench_bytes *b)
{
	struct stat st;
	uint8_t *buf = NULL;
	size_t got = 0;
	int fd, err = 0;

	memset(b, 0, sizeof(*b));
	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		goto out;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		err = -ENOMEM;
		goto out;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n <= 0) {
			err = n ? -errno : -EBADMSG;
			goto out;
		}
		got += (size_t)n;
	}
	b->file = got;
	err = take_file(buf, got, b);
	if (!err)
		err = check_sums(b);
out:
	free(buf);
	close(fd);
	return err;
}

static double per(uint64_t x, uint64_t n)
{
	return n ? (double)x / (double)n : 0;
}

static double pct(uint64_t x, uint64_t n)
{
	return 100 * per(x, n);
}

static const char *const type_names[FREC_EV__MAX + 1] = {
	[FREC_EV_SCHED_SWITCH] = "sched_switch",
	[FREC_EV_SCHED_WAKING] = "sched_waking",
	[FREC_EV_SCHED_WAKEUP] = "sched_wakeup",
	[FREC_EV_SCHED_WAKEUP_NEW] = "sched_wakeup_new",
	[FREC_EV_PROCESS_FORK] = "fork",
	[FREC_EV_PROCESS_EXEC] = "exec",
	[FREC_EV_PROCESS_EXIT] = "exit",
	[FREC_EV_TASK_RENAME] = "rename",
	[FREC_EV_MIGRATE_TASK] = "migrate",
	[FREC_EV_UPROBE] = "uprobe",
	[FREC_EV_URETPROBE] = "uretprobe",
	[FREC_EV_USDT] = "usdt",
	[FREC_EV_LOST] = "lost",
	[FREC_EV_STACK] = "stack",
	[FREC_EV_TRIGGER] = "trigger",
	[FREC_EV_GAP] = "gap",
	[FREC_EV_CGROUP] = "cgroup",
	[FREC_EV__MAX] = "unknown",
};

/* "1 B 12%, 2 B 80%, 3 B 8%": the shares of each varint length. */
static void print_lens(FILE *f, const uint64_t *lens)
{
	uint64_t n = 0;
	const char *sep = "";

	for (int i = 0; i < BB_LENS; i++)
		n += lens[i];
	for (int i = 0; i < BB_LENS; i++) {
		if (!lens[i])
			continue;
		fprintf(f, "%s%d%s B %.1f%%", sep, i + 1, i == BB_LENS - 1 ? "+" : "",
			pct(lens[i], n));
		sep = ", ";
	}
}

void bench_bytes__print(const struct bench_bytes *b, FILE *f)
{
	uint64_t n = b->events, ntidx = 0, big = 0;

	for (int i = 0; i < BB_LENS; i++) {
		ntidx += b->tidx_n[i];
		if (i >= 2)
			big += b->tidx_n[i] * (uint64_t)(i - 1);	/* bytes past 2 */
	}
	fprintf(f, "  bytes/event on disk, by part (%llu events, %llu blocks, %llu bytes):\n",
		(unsigned long long)n, (unsigned long long)b->blocks, (unsigned long long)b->file);
	fprintf(f, "    event stream        %5.2f\n", per(b->ev_total, n));
	fprintf(f, "      tag                 %5.2f\n", per(b->tag, n));
	fprintf(f, "      cpu past the tag    %5.2f  (%.1f%% of events pay for it)\n",
		per(b->cpu_esc, n), pct(b->cpu_esc_events, n));
	fprintf(f, "      time delta          %5.2f  (", per(b->dts, n));
	print_lens(f, b->dts_n);
	fprintf(f, ")\n");
	fprintf(f, "      info                %5.2f\n", per(b->info, n));
	fprintf(f, "      thread indices      %5.2f  (%.2f per event: ", per(b->tidx, n),
		per(ntidx, n));
	print_lens(f, b->tidx_n);
	fprintf(f, "; past 2 bytes: %.2f)\n", per(big, n));
	fprintf(f, "      target_cpu extra    %5.2f\n", per(b->target_cpu_esc, n));
	fprintf(f, "      prio                %5.2f\n", per(b->prio, n));
	fprintf(f, "      prev_state varint   %5.2f\n", per(b->state_esc, n));
	fprintf(f, "      migrate cpus        %5.2f\n", per(b->migrate_cpus, n));
	fprintf(f, "      other fields        %5.2f  (probe args, lost, exit, ...)\n",
		per(b->other + b->xtype, n));
	fprintf(f, "    tables              %5.2f\n", per(b->tab_total, n));
	fprintf(f, "      threads             %5.2f  (%.0f per block, %.1f B each)\n",
		per(b->tab_threads, n), per(b->threads, b->blocks), per(b->tab_threads, b->threads));
	fprintf(f, "      thread cgroups      %5.2f  (%.0f per block, %.1f B each)\n",
		per(b->tab_thread_cgroups, n), per(b->thread_cgroups, b->blocks),
		per(b->tab_thread_cgroups, b->thread_cgroups));
	fprintf(f, "      summary             %5.2f  (per-CPU drop counts included)\n",
		per(b->tab_summary, n));
	fprintf(f, "      processes           %5.2f  (%.0f per block, %.1f B each: tgid, cmdline)\n",
		per(b->tab_procs, n), per(b->procs, b->blocks), per(b->tab_procs, b->procs));
	fprintf(f, "      cgroups, rest       %5.2f  (probes, strings, sections 2, 4-6)\n",
		per(b->tab_probes + b->tab_strings + b->tab_cgroups + b->tab_sections, n));
	fprintf(f, "    framing             %5.2f  (file header, 32-byte block headers)\n",
		per(b->file_hdr + b->block_hdr + b->compressed, n));
	fprintf(f, "    by type, bytes each:");
	for (int t = 0; t <= FREC_EV__MAX; t++)
		if (b->type_events[t])
			fprintf(f, " %s %.2f (%.1f%%)", type_names[t] ? type_names[t] : "?",
				per(b->type_bytes[t], b->type_events[t]),
				pct(b->type_events[t], n));
	fprintf(f, "\n");
}

void bench_bytes__json(const struct bench_bytes *b, FILE *f)
{
	uint64_t n = b->events;

	fprintf(f, "{\"events\": %llu, \"blocks\": %llu, \"file_bytes\": %llu",
		(unsigned long long)n, (unsigned long long)b->blocks,
		(unsigned long long)b->file);
#define F(name, v) fprintf(f, ", \"" name "\": %.4f", per(v, n))
	F("event_stream", b->ev_total);
	F("tag", b->tag);
	F("cpu_past_tag", b->cpu_esc);
	F("time_delta", b->dts);
	F("info", b->info);
	F("thread_indices", b->tidx);
	F("target_cpu_extra", b->target_cpu_esc);
	F("prio", b->prio);
	F("prev_state_varint", b->state_esc);
	F("migrate_cpus", b->migrate_cpus);
	F("other_fields", b->other + b->xtype);
	F("tables", b->tab_total);
	F("table_threads", b->tab_threads);
	F("table_thread_cgroups", b->tab_thread_cgroups);
	F("table_summary", b->tab_summary);
	F("table_processes", b->tab_procs);
	F("table_rest", b->tab_probes + b->tab_strings + b->tab_cgroups + b->tab_sections);
	F("framing", b->file_hdr + b->block_hdr + b->compressed);
#undef F
	fprintf(f, ", \"cpu_past_tag_events_share\": %.4f", per(b->cpu_esc_events, n));
	fprintf(f, ", \"thread_indices_per_event\": %.4f, \"thread_index_lens\": [",
		per(b->tidx_n[0] + b->tidx_n[1] + b->tidx_n[2] + b->tidx_n[3] + b->tidx_n[4], n));
	for (int i = 0; i < BB_LENS; i++)
		fprintf(f, "%s%llu", i ? ", " : "", (unsigned long long)b->tidx_n[i]);
	fprintf(f, "], \"time_delta_lens\": [");
	for (int i = 0; i < BB_LENS; i++)
		fprintf(f, "%s%llu", i ? ", " : "", (unsigned long long)b->dts_n[i]);
	fprintf(f, "], \"threads_per_block\": %.1f, \"processes_per_block\": %.1f, \"by_type\": {",
		per(b->threads, b->blocks), per(b->procs, b->blocks));
	for (int t = 0, first = 1; t <= FREC_EV__MAX; t++) {
		if (!b->type_events[t])
			continue;
		fprintf(f, "%s\"%s\": {\"events\": %llu, \"bytes_each\": %.3f}", first ? "" : ", ",
			type_names[t] ? type_names[t] : "?", (unsigned long long)b->type_events[t],
			per(b->type_bytes[t], b->type_events[t]));
		first = 0;
	}
	fprintf(f, "}}");
}
