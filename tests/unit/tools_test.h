/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Helpers for the tests of the frec command (tools/): run a subcommand on
 * streams captured in memory, read whole files, count lines and substrings,
 * cut and damage snapshot files, and run python3 or protoc on an output; a
 * fixture of a temp dir holding one snapshot, and expect() for an output's
 * substring. Header-only; include after cmocka.h (and synth.h).
 */
#ifndef FREC_TEST_TOOLS_H
#define FREC_TEST_TOOLS_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../../tools/tools.h"

struct captured {
	char *out;
	size_t outlen;
	char *err;
	size_t errlen;
	int status;
};

static inline void captured_free(struct captured *c)
{
	free(c->out);
	free(c->err);
	memset(c, 0, sizeof(*c));
}

/* Open the two memory streams a run writes to. */
static inline void capture_open(struct captured *c, FILE **out, FILE **err)
{
	memset(c, 0, sizeof(*c));
	*out = open_memstream(&c->out, &c->outlen);
	*err = open_memstream(&c->err, &c->errlen);
	assert_non_null(*out);
	assert_non_null(*err);
}

static inline void capture_close(FILE *out, FILE *err)
{
	fclose(out);
	fclose(err);
}

static inline struct captured run_dump(const char *path, bool json)
{
	struct frec_dump_opts o = { .json = json };
	struct captured c;
	FILE *out, *err;

	capture_open(&c, &out, &err);
	c.status = frec_dump__run(path, &o, out, err);
	capture_close(out, err);
	return c;
}

static inline struct captured run_info(const char *path, bool json)
{
	struct frec_info_opts o = { .json = json };
	struct captured c;
	FILE *out, *err;

	capture_open(&c, &out, &err);
	c.status = frec_info__run(path, &o, out, err);
	capture_close(out, err);
	return c;
}

static inline struct captured run_report(const char *path, const struct frec_report_opts *o)
{
	struct captured c;
	FILE *out, *err;

	capture_open(&c, &out, &err);
	c.status = frec_report__run(path, o, out, err);
	capture_close(out, err);
	return c;
}

/* Export into a file (binary output, possibly large). */
static inline int run_export(const char *path, enum frec_export_format fmt, bool gzip,
			     const char *outpath, struct captured *c)
{
	struct frec_export_opts o = { .format = fmt, .gzip = gzip };
	struct frec_export_stats st;
	FILE *out = fopen(outpath, "w"), *err;

	assert_non_null(out);
	memset(c, 0, sizeof(*c));
	err = open_memstream(&c->err, &c->errlen);
	assert_non_null(err);
	if (fmt == FREC_EXPORT_PERFETTO)
		c->status = frec_export_perfetto__run(path, &o, out, err, &st);
	else
		c->status = frec_export_chrome__run(path, &o, out, err, &st);
	fclose(out);
	fclose(err);
	return c->status;
}

static inline size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; s && *s; s++)
		n += *s == '\n';
	return n;
}

static inline size_t count_substr(const char *s, const char *needle)
{
	size_t n = 0, k = strlen(needle);

	while (s && (s = strstr(s, needle))) {
		n++;
		s += k;
	}
	return n;
}

/* Line i (0-based) of s, copied into buf. */
static inline const char *line_at(const char *s, size_t i, char *buf, size_t len)
{
	const char *e;

	while (i-- && s && (s = strchr(s, '\n')))
		s++;
	if (!s || !*s)
		return NULL;
	e = strchr(s, '\n');
	if (!e)
		e = s + strlen(s);
	if ((size_t)(e - s) >= len)
		e = s + len - 1;
	memcpy(buf, s, (size_t)(e - s));
	buf[e - s] = '\0';
	return buf;
}

static inline unsigned char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
	struct stat st;

	assert_non_null(f);
	assert_int_equal(fstat(fileno(f), &st), 0);
	buf = malloc((size_t)st.st_size + 1);
	assert_non_null(buf);
	*len = fread(buf, 1, (size_t)st.st_size, f);
	assert_int_equal(*len, (size_t)st.st_size);
	buf[*len] = 0;
	fclose(f);
	return buf;
}

static inline void write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

/* Offsets of the generation blocks: where the block magic occurs. */
static inline size_t block_offsets(const unsigned char *b, size_t n, size_t *offs, size_t max)
{
	static const unsigned char magic[8] = { 0xf7, 'F', 'R', 'G', 'E', 'N', '\r', '\n' };
	size_t i, k = 0;

	for (i = 0; i + sizeof(magic) <= n; i++)
		if (!memcmp(b + i, magic, sizeof(magic)) && k < max)
			offs[k++] = i;
	return k;
}

static inline bool have_program(const char *name)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", name);
	return system(cmd) == 0;
}

/* Run a shell command, capture its standard output; returns its exit status. */
static inline int run_cmd(const char *cmd, char **out, size_t *len)
{
	FILE *p = popen(cmd, "r");
	FILE *m;
	char buf[65536];
	size_t n;
	int st;

	assert_non_null(p);
	m = open_memstream(out, len);
	assert_non_null(m);
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
		fwrite(buf, 1, n, m);
	fclose(m);
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}


/* --- a temp dir holding one snapshot, for the tests of a subcommand -------- */

struct tools_fixture {
	char dir[64];
	char path[128];		/* the snapshot: DIR/NAME */
	char out[128];		/* where an export writes: DIR/OUT, "" if none */
};

/*
 * cmocka setup: a fresh temp dir (synth.h, included first) with the snapshot
 * make() writes as name in it; out names an output file there, or NULL.
 */
static inline int tools_fixture_setup(void **state, const char *name,
				      int (*make)(const char *dir, const char *name),
				      const char *out)
{
	struct tools_fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	assert_int_equal(synth_tmpdir(f->dir), 0);
	snprintf(f->path, sizeof(f->path), "%s/%s", f->dir, name);
	if (out)
		snprintf(f->out, sizeof(f->out), "%s/%s", f->dir, out);
	assert_int_equal(make(f->dir, name), 0);
	*state = f;
	return 0;
}

/* cmocka setup: the snapshot of known content (synth_known_snapshot). */
static inline int tools_fixture_setup_known(void **state)
{
	return tools_fixture_setup(state, "known.frec", synth_known_snapshot, NULL);
}

static inline int tools_fixture_teardown(void **state)
{
	struct tools_fixture *f = *state;

	synth_rmdir(f->dir);
	free(f);
	return 0;
}

/* Fail, showing the whole output, unless out holds needle. */
static inline void expect(const char *out, const char *needle)
{
	if (!strstr(out, needle)) {
		fprintf(stderr, "missing: %s\nin:\n%s\n", needle, out);
		fail();
	}
}

/* --- a small protobuf reader, to check what the exporter wrote ----------- */

struct pbr {
	const unsigned char *p, *end;
};

struct pbf {
	unsigned int field, wire;
	unsigned long long v;		/* varint or fixed value */
	const unsigned char *data;	/* length-delimited payload */
	size_t len;
};

static inline int pbr_varint(struct pbr *r, unsigned long long *v)
{
	unsigned int shift = 0;

	*v = 0;
	while (r->p < r->end && shift < 64) {
		unsigned char b = *r->p++;

		*v |= (unsigned long long)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 1;
		shift += 7;
	}
	return -1;
}

/* 1 and *f set, 0 at the end, -1 on malformed input. */
static inline int pbr_next(struct pbr *r, struct pbf *f)
{
	unsigned long long key, len;

	if (r->p >= r->end)
		return 0;
	if (pbr_varint(r, &key) < 0)
		return -1;
	f->field = (unsigned int)(key >> 3);
	f->wire = (unsigned int)(key & 7);
	f->data = NULL;
	f->len = 0;
	switch (f->wire) {
	case 0:
		return pbr_varint(r, &f->v);
	case 1:
		if (r->end - r->p < 8)
			return -1;
		memcpy(&f->v, r->p, 8);
		r->p += 8;
		return 1;
	case 2:
		if (pbr_varint(r, &len) < 0 || len > (unsigned long long)(r->end - r->p))
			return -1;
		f->data = r->p;
		f->len = (size_t)len;
		r->p += len;
		return 1;
	case 5:
		if (r->end - r->p < 4)
			return -1;
		f->v = 0;
		memcpy(&f->v, r->p, 4);
		r->p += 4;
		return 1;
	default:
		return -1;
	}
}

static inline struct pbr pbr_of(const struct pbf *f)
{
	struct pbr r = { f->data, f->data + f->len };

	return r;
}

/* Varints in a packed field; -1 if malformed. */
static inline long pbr_count_packed(const struct pbf *f)
{
	struct pbr r = pbr_of(f);
	unsigned long long v;
	long n = 0;

	while (r.p < r.end) {
		if (pbr_varint(&r, &v) < 0)
			return -1;
		n++;
	}
	return n;
}

/* --- a busy recording of known counts -------------------------------------- */

struct busy_counts {
	unsigned long long by_type[FREC_EV__MAX];
	unsigned int gens;
};

#define BUSY_THREADS	64
#define BUSY_CPUS	4

/*
 * n events on 4 CPUs: switches (per CPU in time order), wakings, every other
 * scheduler event, uprobe/uretprobe calls that always return, USDT hits and
 * lost records, sealed into 8 generations. Calls never nest and every thread
 * that exits has no call open, so each uprobe pairs with one uretprobe.
 */
static inline int make_busy_snapshot(const char *dir, const char *name, unsigned int n,
				     unsigned long long seed, struct busy_counts *cnt)
{
	static const struct frec_probe_info probes[] = {
		{ .id = 1, .kind = FREC_PROBE_UPROBE, .name = "uprobe:/bin/busy:f",
		  .path = "/bin/busy", .func = "f", .build_id = "", .nargs = 2 },
		{ .id = 2, .kind = FREC_PROBE_URETPROBE, .name = "uretprobe:/bin/busy:f",
		  .path = "/bin/busy", .func = "f", .build_id = "" },
		{ .id = 3, .kind = FREC_PROBE_USDT, .name = "usdt:/bin/busy:app:mark",
		  .path = "/bin/busy", .func = "app:mark", .build_id = "", .nargs = 1 },
	};
	static const __u64 states[] = { 0, 1, 2, 0x100 };
	struct frec_recorder_opts o = {
		.sz = sizeof(o),
		.min_age_ns = 1000ull * 1000000000ull,
		.max_bytes = 256u << 20,
		.period_ns = 1000ull * 1000000000ull,
		.gen_max_bytes = 128u << 20,
		.chunk_bytes = 64 * 1024,
		.ncpus = BUSY_CPUS,
		.max_threads = 4096,
		.max_processes = 1024,
	};
	struct frec_recorder *rec = frec_recorder__new(&o);
	__u32 cur[BUSY_CPUS] = { 0 }, tid, tgid, prev, i, k;
	bool open[BUSY_THREADS] = { false };
	char comm[BUSY_THREADS][16], ncomm[16];
	unsigned long long x = seed | 1, ts = 1000000000ull;
	int err;

#define BUSY_RAND() (x ^= x << 13, x ^= x >> 7, x ^= x << 17, x)
#define BUSY_TID(i) (2000u + (i))
#define BUSY_TGID(i) (2000u + ((i) & ~3u))
	if (!rec)
		return -1;
	memset(cnt, 0, sizeof(*cnt));
	frec_recorder__set_probes(rec, probes, 3);
	frec_recorder__set_cmdline(rec, 2000, "/bin/busy --hard");
	for (k = 0; k < BUSY_THREADS; k++)
		snprintf(comm[k], sizeof(comm[k]), "busy-%u", k);
	frec_recorder__tick(rec, ts);
	for (i = 0; i < n; i++) {
		unsigned int c = (unsigned int)(BUSY_RAND() % BUSY_CPUS), r = (unsigned int)(BUSY_RAND() % 100);
		unsigned int t = (unsigned int)(BUSY_RAND() % BUSY_THREADS);
		__u64 args[2] = { BUSY_RAND(), i };

		ts += 1 + BUSY_RAND() % 2000;
		tid = BUSY_TID(t);
		tgid = BUSY_TGID(t);
		if (r < 45) {
			__u32 next = BUSY_RAND() % 8 ? tid : 0;
			unsigned int pi = cur[c] ? cur[c] - 2000 : 0, j;

			/* a thread runs on one CPU at a time */
			for (j = 0; j < BUSY_CPUS; j++)
				if (j != c && cur[j] == next)
					next = 0;
			prev = cur[c];
			synth_switch(rec, ts, c, prev, prev ? BUSY_TGID(pi) : 0,
				     prev ? comm[pi] : "swapper", states[BUSY_RAND() % 4], next,
				     next ? tgid : 0, next ? comm[t] : "swapper");
			cur[c] = next;
			cnt->by_type[FREC_EV_SCHED_SWITCH]++;
		} else if (r < 75) {
			synth_wake(rec, FREC_EV_SCHED_WAKING, ts, c, cur[c], cur[c] ? BUSY_TGID(cur[c] - 2000) : 0,
				   tid, tgid, comm[t], (__u32)(BUSY_RAND() % BUSY_CPUS));
			cnt->by_type[FREC_EV_SCHED_WAKING]++;
		} else if (r < 87) {
			if (!cur[c])
				continue;
			k = cur[c] - 2000;
			if (open[k]) {
				synth_probe(rec, FREC_EV_URETPROBE, ts, c, cur[c], BUSY_TGID(k), 2, 0, NULL,
					    -(__s64)(BUSY_RAND() % 100));
				cnt->by_type[FREC_EV_URETPROBE]++;
			} else {
				synth_probe(rec, FREC_EV_UPROBE, ts, c, cur[c], BUSY_TGID(k), 1, 2, args, 0);
				cnt->by_type[FREC_EV_UPROBE]++;
			}
			open[k] = !open[k];
		} else if (r < 90) {
			synth_probe(rec, FREC_EV_USDT, ts, c, tid, tgid, 3, 1, args, 0);
			cnt->by_type[FREC_EV_USDT]++;
		} else if (r < 92) {
			synth_wake(rec, FREC_EV_SCHED_WAKEUP_NEW, ts, c, cur[c], cur[c] ? BUSY_TGID(cur[c] - 2000) : 0,
				   tid, tgid, comm[t], c);
			cnt->by_type[FREC_EV_SCHED_WAKEUP_NEW]++;
		} else if (r < 94) {
			unsigned int p = (unsigned int)(BUSY_RAND() % BUSY_THREADS);

			synth_fork(rec, ts, c, BUSY_TID(p), BUSY_TGID(p), comm[p], tid, tgid, comm[t]);
			cnt->by_type[FREC_EV_PROCESS_FORK]++;
		} else if (r < 95) {
			synth_exec(rec, ts, c, tid, tid, comm[t], "/bin/busy");
			cnt->by_type[FREC_EV_PROCESS_EXEC]++;
		} else if (r < 96) {
			if (open[t])
				continue;
			synth_exit(rec, ts, c, tid, tgid, comm[t]);
			cnt->by_type[FREC_EV_PROCESS_EXIT]++;
		} else if (r < 97) {
			snprintf(ncomm, sizeof(ncomm), "busy-%u.%u", t, i % 100);
			synth_rename(rec, ts, c, tid, tgid, comm[t], ncomm);
			memcpy(comm[t], ncomm, sizeof(ncomm));
			cnt->by_type[FREC_EV_TASK_RENAME]++;
		} else if (r < 99) {
			synth_migrate(rec, ts, c, cur[c], cur[c] ? BUSY_TGID(cur[c] - 2000) : 0, tid, tgid,
				      comm[t], c, (c + 1) % BUSY_CPUS);
			cnt->by_type[FREC_EV_MIGRATE_TASK]++;
		} else {
			frec_recorder__add_lost(rec, c, 1 + BUSY_RAND() % 10, ts);
			cnt->by_type[FREC_EV_LOST]++;
		}
		if (n >= 8 && i % (n / 8) == n / 8 - 1) {
			frec_recorder__seal(rec, ts + 1);
			cnt->gens++;
		}
	}
	/* return from every open call, on the CPU the thread runs on (or 0) */
	for (k = 0; k < BUSY_THREADS; k++) {
		unsigned int j, on = 0;

		if (!open[k])
			continue;
		for (j = 0; j < BUSY_CPUS; j++)
			if (cur[j] == BUSY_TID(k))
				on = j;
		ts += 1000;
		synth_probe(rec, FREC_EV_URETPROBE, ts, on, BUSY_TID(k), BUSY_TGID(k), 2, 0, NULL, 0);
		cnt->by_type[FREC_EV_URETPROBE]++;
	}
	err = synth_write(rec, dir, name, ts + 1000);
	cnt->gens++;
	frec_recorder__free(rec);
#undef BUSY_RAND
#undef BUSY_TID
#undef BUSY_TGID
	return err;
}

/* Events by type as the reader gives them back (the source of truth). */
static inline void count_file_events(const char *path, struct busy_counts *cnt)
{
	struct frec_reader *r;
	struct frec_gen *g;
	struct frec_event ev;

	memset(cnt, 0, sizeof(*cnt));
	assert_int_equal(frec_reader__open(path, &r), 0);
	while (frec_reader__next_gen(r, &g) > 0) {
		cnt->gens++;
		while (frec_gen__next_event(g, &ev) > 0)
			if (ev.type < FREC_EV__MAX)
				cnt->by_type[ev.type]++;
	}
	frec_reader__free(r);
}

#endif /* FREC_TEST_TOOLS_H */
