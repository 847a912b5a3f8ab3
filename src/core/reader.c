// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The snapshot reader. It streams: one buffer for the input (a whole block
 * at most), one for the inflated generation, and tables reused from one
 * generation to the next. Every length and count is checked against the
 * bytes actually there (inflated ones for a deflated block) before anything
 * is allocated or read, buffers grow with what is really read or inflated,
 * never with what a block claims, every block's CRCs are checked before it
 * is inflated, and a damaged block is skipped by scanning for the next block
 * magic. Any input gives a result or an error code, never a crash: the
 * fuzzers feed it garbage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <frec/snapshot.h>
#include "format.h"
#include "varint.h"

#define NONE UINT32_MAX
#define IN_MIN_CAP (64u << 10)

/* u32 -> u32 open-addressing map, rebuilt for every generation. */
struct u32map {
	uint32_t *keys;
	uint32_t *vals;		/* NONE = free slot */
	uint32_t mask;
	size_t cap;
};

struct frec_gen {
	struct frec_gen_info info;
	__u64 *drops;
	size_t drops_cap;
	struct frec_thread *threads;
	uint8_t *dup;		/* the thread's tid appears more than once */
	size_t threads_cap, dup_cap;
	struct frec_process *procs;
	size_t procs_cap;
	struct frec_probe_info *probes;
	size_t probes_cap;
	const char **strs;
	uint32_t nstr;
	size_t strs_cap;
	uint32_t *cur;		/* per CPU: running thread index */
	size_t cur_cap;
	struct u32map tmap, pmap, prmap;
	const uint8_t *p, *end;
	uint64_t left;
	uint64_t prev_ts;
	uint32_t version;	/* the file's format version */
	bool bad;
};

struct frec_reader {
	int fd;
	struct frec_header hdr;
	uint8_t *buf;
	size_t pos, len, cap;
	bool eof, done, resync;
	uint64_t damaged;
	z_stream zs;
	bool zs_ready;
	uint8_t *raw;
	size_t raw_cap;
	struct frec_gen gen;
};

/* Grow *arr to hold n elements of size sz; 0 or -ENOMEM. */
static int grow(void *arrp, size_t *cap, size_t n, size_t sz)
{
	void **arr = arrp;
	size_t ncap = *cap ? *cap : 16;
	void *p;

	if (n <= *cap)
		return 0;
	while (ncap < n)
		ncap *= 2;
	p = realloc(*arr, ncap * sz);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

static int map_reset(struct u32map *m, size_t n)
{
	size_t slots = 16;

	while (slots < n * 2)
		slots *= 2;
	if (slots > m->cap) {
		uint32_t *k = realloc(m->keys, slots * sizeof(*k));

		if (!k)
			return -ENOMEM;
		m->keys = k;
		k = realloc(m->vals, slots * sizeof(*k));
		if (!k)
			return -ENOMEM;
		m->vals = k;
		m->cap = slots;
	}
	m->mask = (uint32_t)slots - 1;
	memset(m->vals, 0xff, slots * sizeof(*m->vals));
	return 0;
}

static uint32_t *map_slot(const struct u32map *m, uint32_t key)
{
	uint32_t i = (key * 2654435761u) & m->mask;

	while (m->vals[i] != NONE && m->keys[i] != key)
		i = (i + 1) & m->mask;
	return &m->vals[i];
}

static uint32_t map_get(const struct u32map *m, uint32_t key)
{
	return m->cap ? *map_slot(m, key) : NONE;
}

/* Insert unless present; returns the value already there, or NONE. */
static uint32_t map_add(struct u32map *m, uint32_t key, uint32_t val)
{
	uint32_t *v = map_slot(m, key);

	if (*v != NONE)
		return *v;
	m->keys[v - m->vals] = key;
	*v = val;
	return NONE;
}

static void map_free(struct u32map *m)
{
	free(m->keys);
	free(m->vals);
}

/* --- input ---------------------------------------------------------------- */

/* Make need bytes available at buf + pos: 0, -ENODATA at end of file, or
 * -errno. The buffer grows only once it is full of real data, so a lying
 * length costs at most twice the bytes the input really has. */
static int in_need(struct frec_reader *r, size_t need)
{
	while (r->len - r->pos < need) {
		ssize_t n;

		if (r->eof)
			return -ENODATA;
		if (r->len == r->cap) {
			if (r->pos) {
				memmove(r->buf, r->buf + r->pos, r->len - r->pos);
				r->len -= r->pos;
				r->pos = 0;
				continue;
			}
			if (grow(&r->buf, &r->cap, r->cap ? r->cap * 2 : IN_MIN_CAP, 1))
				return -ENOMEM;
		}
		n = read(r->fd, r->buf + r->len, r->cap - r->len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (!n)
			r->eof = true;
		r->len += (size_t)n;
	}
	return 0;
}

static bool is_prefix(const uint8_t *p, size_t n, const char *magic, size_t mlen)
{
	return !memcmp(p, magic, n < mlen ? n : mlen);
}

static int read_header(struct frec_reader *r)
{
	const uint8_t *b;
	uint32_t version, body;
	int err;

	err = in_need(r, FILE_PREFIX_LEN);
	if (err == -ENODATA)
		return is_prefix(r->buf + r->pos, r->len - r->pos, FILE_MAGIC, FILE_MAGIC_LEN) ?
			       -ENODATA : -EBADMSG;
	if (err)
		return err;
	b = r->buf + r->pos;
	if (memcmp(b, FILE_MAGIC, FILE_MAGIC_LEN))
		return -EBADMSG;
	version = get_le32(b + 8);
	body = get_le32(b + 12);
	if (!version)
		return -EBADMSG;
	if (version > FREC_FORMAT_VERSION)
		return -EPROTONOSUPPORT;
	if (body > FILE_BODY_MAX)
		return -EBADMSG;
	err = in_need(r, FILE_PREFIX_LEN + body + 4);
	if (err)
		return err;
	b = r->buf + r->pos;
	if (crc32(0, b + FILE_MAGIC_LEN, 8 + body) != get_le32(b + FILE_PREFIX_LEN + body))
		return -EBADMSG;
	err = header_decode(b + FILE_PREFIX_LEN, body, &r->hdr);
	if (err)
		return err;
	r->hdr.version = version;
	r->pos += FILE_PREFIX_LEN + body + 4;
	return 0;
}

int frec_reader__open_fd(int fd, struct frec_reader **rp)
{
	struct frec_reader *r;
	int err;

	*rp = NULL;
	r = calloc(1, sizeof(*r));
	if (!r) {
		close(fd);
		return -ENOMEM;
	}
	r->fd = fd;
	if (inflateInit2(&r->zs, -15) != Z_OK) {
		frec_reader__free(r);
		return -ENOMEM;
	}
	r->zs_ready = true;
	err = read_header(r);
	if (err) {
		frec_reader__free(r);
		return err;
	}
	*rp = r;
	return 0;
}

int frec_reader__open(const char *path, struct frec_reader **rp)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		*rp = NULL;
		return -errno;
	}
	return frec_reader__open_fd(fd, rp);
}

const struct frec_header *frec_reader__header(const struct frec_reader *r)
{
	return &r->hdr;
}

__u64 frec_reader__damaged(const struct frec_reader *r)
{
	return r->damaged;
}

void frec_reader__free(struct frec_reader *r)
{
	struct frec_gen *g;

	if (!r)
		return;
	g = &r->gen;
	if (r->fd >= 0)
		close(r->fd);
	if (r->zs_ready)
		inflateEnd(&r->zs);
	free(r->buf);
	free(r->raw);
	free(g->drops);
	free(g->threads);
	free(g->dup);
	free(g->procs);
	free(g->probes);
	free(g->strs);
	free(g->cur);
	map_free(&g->tmap);
	map_free(&g->pmap);
	map_free(&g->prmap);
	free(r);
}

/* --- generations ---------------------------------------------------------- */

/* Skip to the next block magic. 1 found, 0 end of file, -errno. */
static int resync(struct frec_reader *r)
{
	for (;;) {
		size_t avail = r->len - r->pos;
		int err;

		if (avail >= BLOCK_MAGIC_LEN) {
			const uint8_t *m = memmem(r->buf + r->pos, avail, BLOCK_MAGIC, BLOCK_MAGIC_LEN);

			if (m) {
				r->pos = (size_t)(m - r->buf);
				r->resync = false;
				return 1;
			}
			/* Keep what may be the start of a magic. */
			r->pos = r->len - (BLOCK_MAGIC_LEN - 1);
			avail = BLOCK_MAGIC_LEN - 1;
		}
		err = in_need(r, avail + 1);
		if (err == -ENODATA) {
			r->pos = r->len;
			return 0;
		}
		if (err)
			return err;
	}
}

static int get_str(const uint8_t **pp, const uint8_t *end, const char **s)
{
	uint64_t n;

	if (get_varint(pp, end, &n) || n >= (uint64_t)(end - *pp) || (*pp)[n])
		return -1;
	*s = (const char *)*pp;
	*pp += n + 1;
	return 0;
}

static void set_comm(struct frec_thread *t, const char *s)
{
	size_t n = strnlen(s, FREC_COMM_LEN - 1);

	memcpy(t->comm, s, n);
	memset(t->comm + n, 0, FREC_COMM_LEN - n);
}

#define V64(x)	do { uint64_t v_; if (get_varint(&p, end, &v_)) return -EBADMSG; (x) = v_; } while (0)
#define V32(x)	do { if (get_varint32(&p, end, &(x))) return -EBADMSG; } while (0)
#define STR(x)	do { if (get_str(&p, end, &(x))) return -EBADMSG; } while (0)

/* Section "process parents": n, then n x (tgid, ppid). A tgid the
 * process table does not list is ignored. */
static int section_parents(struct frec_gen *g, const uint8_t *p, const uint8_t *end)
{
	uint32_t n, tgid, ppid, i;

	V32(n);
	if (n > (size_t)(end - p) / 2)
		return -EBADMSG;
	while (n--) {
		V32(tgid);
		V32(ppid);
		i = map_get(&g->pmap, tgid);
		if (i != NONE)
			g->procs[i].ppid = ppid;
	}
	return p == end ? 0 : -EBADMSG;
}

/* Parse a block's uncompressed payload: the event stream (events_len
 * bytes), then the summary and tables. */
static int gen_load(struct frec_gen *g, const uint8_t *raw, size_t raw_len, size_t events_len)
{
	const uint8_t *p = raw + events_len, *end = raw + raw_len;
	struct frec_gen_info *in = &g->info;
	uint64_t ntypes, x;
	uint32_t nthreads, nprocs, nprobes, nstr, ncpus;
	const char *s;

	memset(in, 0, sizeof(*in));
	V64(in->seq);
	V64(in->start_ts);
	V64(in->end_ts);
	V64(in->nevents);
	V64(ntypes);
	if (ntypes > 256)
		return -EBADMSG;
	for (uint64_t t = 0; t < ntypes; t++) {
		V64(x);
		if (t < FREC_EV__MAX)
			in->nevents_by_type[t] = x;
	}
	/* Every event takes at least EV_MIN_BYTES of the event stream. */
	if (in->nevents > events_len / EV_MIN_BYTES)
		return -EBADMSG;
	V32(ncpus);
	if (ncpus > FREC_MAX_CPUS || ncpus > (uint64_t)(end - p))
		return -EBADMSG;
	if (grow(&g->drops, &g->drops_cap, ncpus + 1, sizeof(*g->drops)) ||
	    grow(&g->cur, &g->cur_cap, ncpus + 1, sizeof(*g->cur)))
		return -ENOMEM;
	for (uint32_t c = 0; c < ncpus; c++) {
		V64(g->drops[c]);
		g->cur[c] = NONE;
	}
	in->ncpus = ncpus;
	in->drops = g->drops;
	V32(nthreads);
	V32(nprocs);
	V32(nprobes);
	V32(nstr);
	/* Refuse counts the bytes really there cannot hold, all tables
	 * together, before anything is allocated for them; the arrays then
	 * grow with the entries actually parsed, and the maps are sized from
	 * those. */
	if ((uint64_t)nthreads * THREAD_MIN_BYTES + (uint64_t)nprocs * PROC_MIN_BYTES +
		    (uint64_t)nprobes * PROBE_MIN_BYTES + (uint64_t)nstr * STR_MIN_BYTES >
	    (uint64_t)(end - p))
		return -EBADMSG;

	for (uint32_t i = 0; i < nthreads; i++) {
		struct frec_thread *t;

		if (grow(&g->threads, &g->threads_cap, i + 1, sizeof(*g->threads)))
			return -ENOMEM;
		t = &g->threads[i];
		V32(t->tid);
		V32(t->tgid);
		STR(s);
		set_comm(t, s);
	}
	if (grow(&g->dup, &g->dup_cap, nthreads, 1) || map_reset(&g->tmap, nthreads))
		return -ENOMEM;
	for (uint32_t i = 0; i < nthreads; i++) {
		uint32_t first = map_add(&g->tmap, g->threads[i].tid, i);

		g->dup[i] = 0;
		if (first != NONE)
			g->dup[i] = g->dup[first] = 1;
	}
	for (uint32_t i = 0; i < nprocs; i++) {
		if (grow(&g->procs, &g->procs_cap, i + 1, sizeof(*g->procs)))
			return -ENOMEM;
		V32(g->procs[i].tgid);
		STR(g->procs[i].cmdline);
	}
	if (map_reset(&g->pmap, nprocs))
		return -ENOMEM;
	for (uint32_t i = 0; i < nprocs; i++)
		map_add(&g->pmap, g->procs[i].tgid, i);
	for (uint32_t i = 0; i < nprobes; i++) {
		struct frec_probe_info *pi;

		if (grow(&g->probes, &g->probes_cap, i + 1, sizeof(*g->probes)))
			return -ENOMEM;
		pi = &g->probes[i];
		V32(pi->id);
		V32(pi->kind);
		STR(pi->name);
		STR(pi->path);
		STR(pi->func);
		STR(pi->build_id);
		V64(pi->offset);
		V32(pi->nargs);
	}
	if (map_reset(&g->prmap, nprobes))
		return -ENOMEM;
	for (uint32_t i = 0; i < nprobes; i++)
		map_add(&g->prmap, g->probes[i].id, i);
	for (uint32_t i = 0; i < nstr; i++) {
		if (grow(&g->strs, &g->strs_cap, i + 1, sizeof(*g->strs)))
			return -ENOMEM;
		STR(g->strs[i]);
	}
	for (uint32_t i = 0; i < nprocs; i++)
		g->procs[i].ppid = 0;
	/* Version 1 ends here (and later bytes are ignored); version 2 lists
	 * its sections, each skipped unless known. */
	if (g->version >= 2) {
		uint32_t nsec, id, n;

		V32(nsec);
		for (uint32_t k = 0; k < nsec; k++) {
			const uint8_t *sec_end;

			V32(id);
			V32(n);
			if (n > (size_t)(end - p))
				return -EBADMSG;
			sec_end = p + n;
			if (id == SECTION_PROCESS_PARENTS && section_parents(g, p, sec_end))
				return -EBADMSG;
			p = sec_end;
		}
	}

	in->nthreads = nthreads;
	in->nprocesses = nprocs;
	in->nprobes = nprobes;
	g->nstr = nstr;
	g->p = raw;
	g->end = raw + events_len;
	g->left = in->nevents;
	g->prev_ts = 0;
	g->bad = false;
	return 0;
}

/* Inflate comp bytes that claim to make exactly raw bytes. The buffer grows
 * with the output actually produced, from a guess of a few times comp, so a
 * block that claims far more than it makes costs what it makes. */
static int inflate_block(struct frec_reader *r, const uint8_t *in, uint32_t comp, uint32_t raw)
{
	size_t out = 0, cap = (size_t)comp * 4 + IN_MIN_CAP;
	int rc;

	if (!raw)
		return -EBADMSG;	/* no room even for the summary */
	inflateReset(&r->zs);
	r->zs.next_in = (Bytef *)in;
	r->zs.avail_in = comp;
	for (;;) {
		if (cap > raw)
			cap = raw;
		if (cap > r->raw_cap) {
			/* exactly cap: it doubles itself, and a power of two
			 * above raw would waste up to half of it */
			uint8_t *b = realloc(r->raw, cap);

			if (!b)
				return -ENOMEM;
			r->raw = b;
			r->raw_cap = cap;
		}
		r->zs.next_out = r->raw + out;
		r->zs.avail_out = (uInt)(cap - out);
		rc = inflate(&r->zs, Z_NO_FLUSH);
		out = cap - r->zs.avail_out;
		if (rc == Z_STREAM_END)
			break;
		/* More output than claimed, or a stream that stops short. */
		if (rc != Z_OK || out == raw)
			return -EBADMSG;
		if (out == cap)
			cap *= 2;
	}
	if (out != raw || r->zs.avail_in)
		return -EBADMSG;
	return 0;
}

/* A damaged block at pos: count it, resynchronise from the next byte. */
static int damaged_here(struct frec_reader *r)
{
	r->damaged++;
	r->pos++;
	r->resync = true;
	return -EBADMSG;
}

/* The input ends inside a block: count it, nothing more to read. */
static int truncated(struct frec_reader *r, bool ours)
{
	r->damaged++;
	r->pos = r->len;
	r->done = true;
	return ours ? -ENODATA : -EBADMSG;
}

int frec_reader__next_gen(struct frec_reader *r, struct frec_gen **genp)
{
	const uint8_t *b, *raw;
	uint32_t flags, plen, rlen, elen;
	int err;

	*genp = NULL;
	if (r->done)
		return 0;
	if (r->resync) {
		err = resync(r);
		if (err <= 0) {
			r->done = true;
			return err;
		}
	}
	err = in_need(r, BLOCK_HDR_LEN);
	if (err == -ENODATA) {
		size_t avail = r->len - r->pos;

		if (!avail) {
			r->done = true;
			return 0;
		}
		return truncated(r, is_prefix(r->buf + r->pos, avail, BLOCK_MAGIC, BLOCK_MAGIC_LEN));
	}
	if (err) {
		r->done = true;
		return err;
	}
	b = r->buf + r->pos;
	if (memcmp(b, BLOCK_MAGIC, BLOCK_MAGIC_LEN) ||
	    crc32(0, b, BLOCK_OFF_HCRC) != get_le32(b + BLOCK_OFF_HCRC))
		return damaged_here(r);
	flags = get_le32(b + BLOCK_OFF_FLAGS);
	plen = get_le32(b + BLOCK_OFF_PAYLOAD);
	rlen = get_le32(b + BLOCK_OFF_RAW);
	elen = get_le32(b + BLOCK_OFF_EVENTS);
	/* Lengths a writer cannot produce: refuse before reading or allocating. */
	if (!plen || plen > BLOCK_MAX_COMP || rlen > BLOCK_MAX_RAW || elen > rlen ||
	    (flags == BLOCK_COMP_NONE && plen != rlen) ||
	    (flags == BLOCK_COMP_DEFLATE && rlen / DEFLATE_MAX_RATIO > plen) ||
	    (flags != BLOCK_COMP_NONE && flags != BLOCK_COMP_DEFLATE))
		return damaged_here(r);

	err = in_need(r, BLOCK_HDR_LEN + (size_t)plen);
	if (err == -ENODATA)
		return truncated(r, true);
	if (err) {
		r->done = true;
		return err;
	}
	b = r->buf + r->pos;
	if (crc32(0, b + BLOCK_HDR_LEN, plen) != get_le32(b + BLOCK_OFF_PCRC))
		return damaged_here(r);
	/* A stored payload is parsed where it lies in the input buffer, which
	 * stays put until the next call. */
	raw = b + BLOCK_HDR_LEN;
	err = 0;
	if (flags == BLOCK_COMP_DEFLATE) {
		err = inflate_block(r, raw, plen, rlen);
		raw = r->raw;
	}
	r->pos += BLOCK_HDR_LEN + (size_t)plen;
	r->gen.version = r->hdr.version;
	if (!err)
		err = gen_load(&r->gen, raw, rlen, elen);
	if (err) {
		/* Intact block, undecodable content: the next block follows. */
		r->damaged++;
		return err == -ENOMEM ? err : -EBADMSG;
	}
	r->gen.info.raw_bytes = rlen;
	r->gen.info.file_bytes = BLOCK_HDR_LEN + (uint64_t)plen;
	*genp = &r->gen;
	return 1;
}

const struct frec_gen_info *frec_gen__info(const struct frec_gen *g)
{
	return &g->info;
}

/* --- events --------------------------------------------------------------- */

static int thread_idx(struct frec_gen *g, const uint8_t **pp, const uint8_t *end, uint32_t *idx)
{
	if (get_varint32(pp, end, idx) || *idx >= g->info.nthreads)
		return -1;
	/* A tid named twice (pid reuse): lookups follow the latest mention. */
	if (g->dup[*idx])
		*map_slot(&g->tmap, g->threads[*idx].tid) = *idx;
	return 0;
}

#define TIDX(x)	do { if (thread_idx(g, &p, end, &(x))) return -1; } while (0)
#define EV32(x) do { if (get_varint32(&p, end, &(x))) return -1; } while (0)
#define EV64(x) do { uint64_t v_; if (get_varint(&p, end, &v_)) return -1; (x) = v_; } while (0)

static int get_prio(const uint8_t **pp, const uint8_t *end, bool present, __s32 *prio)
{
	uint64_t v;
	int64_t s;

	if (!present) {
		*prio = DEFAULT_PRIO;
		return 0;
	}
	if (get_varint(pp, end, &v))
		return -1;
	s = unzigzag(v);
	if (s < INT32_MIN || s > INT32_MAX)
		return -1;
	*prio = (__s32)s;
	return 0;
}

static int get_stridx(struct frec_gen *g, const uint8_t **pp, const uint8_t *end, const char **s)
{
	uint32_t i;

	if (get_varint32(pp, end, &i) || i >= g->nstr)
		return -1;
	*s = g->strs[i];
	return 0;
}

static int ext_body(struct frec_event *ev, const uint8_t *p, const uint8_t *end);

/* 0: *ev is the next event; 1: an event of a type this reader does not
 * know was skipped; -1: the stream is damaged. */
static int decode_one(struct frec_gen *g, struct frec_event *ev)
{
	const uint8_t *p = g->p, *end = g->end;
	uint32_t type, cpu, info, ti = NONE, x, y, *cur;
	uint64_t v;

	if (end - p < EV_MIN_BYTES)
		return -1;
	type = *p & EV_TYPE_MASK;
	cpu = *p++ >> EV_CPU_SHIFT;
	if (type == FREC_EV_NONE || (g->version < 2 && type > FREC_EV_LOST))
		return -1;
	if (cpu == EV_CPU_ESC)
		EV32(cpu);
	if (type == FREC_EV_ESCAPE) {
		EV32(type);
		if (type < EXT_TYPE_MIN)
			return -1;
	}
	EV64(v);
	g->prev_ts += (uint64_t)unzigzag(v);
	if (p >= end)
		return -1;
	info = *p++;

	memset(ev, 0, sizeof(*ev));
	ev->ts = g->prev_ts;
	ev->type = type;
	ev->cpu = cpu;
	cur = cpu < g->info.ncpus ? &g->cur[cpu] : NULL;
	if ((type == FREC_EV_LOST || type >= EXT_TYPE_MIN) && (info & LOST_NOTHREAD)) {
		/* no thread */
	} else {
		if (info & INFO_T)
			TIDX(ti);
		else if (cur && *cur != NONE)
			ti = *cur;
		else
			return -1;
		ev->tid = g->threads[ti].tid;
		ev->tgid = g->threads[ti].tgid;
	}

	switch (type) {
	case FREC_EV_SCHED_SWITCH:
		x = ti;
		if (info & SW_PREV)
			TIDX(x);
		TIDX(y);
		ev->sw.prev_pid = g->threads[x].tid;
		ev->sw.next_pid = g->threads[y].tid;
		x = info >> SW_STATE_SHIFT;
		if (x == STATE_ESC)
			EV64(ev->sw.prev_state);
		else
			ev->sw.prev_state = state_value(x);
		if (get_prio(&p, end, info & SW_PREV_PRIO, &ev->sw.prev_prio) ||
		    get_prio(&p, end, info & SW_NEXT_PRIO, &ev->sw.next_prio))
			return -1;
		if (cur)
			*cur = y;
		break;
	case FREC_EV_SCHED_WAKING:
	case FREC_EV_SCHED_WAKEUP:
	case FREC_EV_SCHED_WAKEUP_NEW:
		TIDX(x);
		ev->wake.pid = g->threads[x].tid;
		ev->wake.waker = ev->tid;
		if (info & WK_WAKER) {
			TIDX(y);
			ev->wake.waker = g->threads[y].tid;
		}
		if (get_prio(&p, end, info & WK_PRIO, &ev->wake.prio))
			return -1;
		ev->wake.target_cpu = info >> WK_CPU_SHIFT;
		if (ev->wake.target_cpu == EV_CPU_ESC)
			EV32(ev->wake.target_cpu);
		break;
	case FREC_EV_PROCESS_FORK:
		x = ti;
		if (info & FK_PARENT)
			TIDX(x);
		TIDX(y);
		ev->fork.parent_pid = g->threads[x].tid;
		ev->fork.child_pid = g->threads[y].tid;
		break;
	case FREC_EV_PROCESS_EXEC:
		TIDX(x);
		ev->exec.pid = g->threads[x].tid;
		EV32(ev->exec.old_pid);
		if (get_stridx(g, &p, end, &ev->exec.filename) ||
		    get_stridx(g, &p, end, &ev->exec.comm))
			return -1;
		set_comm(&g->threads[x], ev->exec.comm);
		break;
	case FREC_EV_PROCESS_EXIT:
		TIDX(x);
		ev->exit.pid = g->threads[x].tid;
		ev->exit.tgid = g->threads[x].tgid;
		if (info & EX_TGID)
			EV32(ev->exit.tgid);
		break;
	case FREC_EV_TASK_RENAME:
		TIDX(x);
		ev->rename.pid = g->threads[x].tid;
		if (get_stridx(g, &p, end, &ev->rename.newcomm))
			return -1;
		set_comm(&g->threads[x], ev->rename.newcomm);
		break;
	case FREC_EV_MIGRATE_TASK:
		TIDX(x);
		ev->migrate.pid = g->threads[x].tid;
		EV32(ev->migrate.orig_cpu);
		EV32(ev->migrate.dest_cpu);
		if (get_prio(&p, end, info & MG_PRIO, &ev->migrate.prio))
			return -1;
		break;
	case FREC_EV_UPROBE:
	case FREC_EV_URETPROBE:
	case FREC_EV_USDT:
		ev->probe.nargs = info >> PR_NARGS_SHIFT;
		if (ev->probe.nargs > FREC_MAX_PROBE_ARGS)
			return -1;
		EV32(ev->probe.probe_id);
		for (uint32_t i = 0; i < ev->probe.nargs; i++)
			EV64(ev->probe.args[i]);
		if (type == FREC_EV_URETPROBE) {
			EV64(v);
			ev->probe.ret = unzigzag(v);
		}
		break;
	case FREC_EV_LOST:
		EV64(ev->lost.count);
		if (info & LOST_UNKNOWN)
			ev->lost.flags |= FREC_LOST_UNKNOWN;
		if (info & LOST_SPAN) {
			ev->lost.flags |= FREC_LOST_SPAN;
			EV64(v);
			ev->lost.first_ts = ev->ts + (uint64_t)unzigzag(v);
			EV64(v);
			ev->lost.last_ts = ev->ts + (uint64_t)unzigzag(v);
		}
		break;
	case FREC_EV_STACK:
		EV32(ev->stack.kstack);
		EV32(ev->stack.ustack);
		break;
	default: {	/* an extended type: its body has a length */
		const uint8_t *body_end;

		EV32(x);
		if (x > (size_t)(end - p))
			return -1;
		body_end = p + x;
		if (ext_body(ev, p, body_end))
			return -1;
		p = body_end;
		break;
	}
	}
	g->p = p;
	return ev->type ? 0 : 1;
}

/* An extended type's body; an unknown type leaves ev->type 0: skipped. */
static int ext_body(struct frec_event *ev, const uint8_t *p, const uint8_t *end)
{
	uint64_t v;

	switch (ev->type) {
	case FREC_EV_TRIGGER:
		EV32(ev->trigger.id);
		EV32(ev->trigger.flags);
		EV64(ev->trigger.value);
		break;
	case FREC_EV_GAP:
		EV32(ev->gap.kind);
		EV64(v);
		ev->gap.first_ts = ev->ts + (uint64_t)unzigzag(v);
		EV64(v);
		ev->gap.last_ts = ev->ts + (uint64_t)unzigzag(v);
		break;
	default:
		ev->type = FREC_EV_NONE;
		return 0;
	}
	/* A longer body is a later writer's addition to a known type. */
	return 0;
}

int frec_gen__next_event(struct frec_gen *g, struct frec_event *ev)
{
	if (g->bad)
		return -EBADMSG;
	for (;;) {
		int ret;

		if (!g->left)
			return 0;
		ret = decode_one(g, ev);
		if (ret < 0) {
			g->bad = true;
			return -EBADMSG;
		}
		g->left--;
		if (!ret)
			return 1;
		g->info.nevents_skipped++;
	}
}

const struct frec_thread *frec_gen__thread(const struct frec_gen *g, __u32 tid)
{
	uint32_t i = map_get(&g->tmap, tid);

	return i == NONE ? NULL : &g->threads[i];
}

const struct frec_thread *frec_gen__thread_at(const struct frec_gen *g, __u32 i)
{
	return i < g->info.nthreads ? &g->threads[i] : NULL;
}

const struct frec_process *frec_gen__process(const struct frec_gen *g, __u32 tgid)
{
	uint32_t i = map_get(&g->pmap, tgid);

	return i == NONE ? NULL : &g->procs[i];
}

const struct frec_process *frec_gen__process_at(const struct frec_gen *g, __u32 i)
{
	return i < g->info.nprocesses ? &g->procs[i] : NULL;
}

const struct frec_probe_info *frec_gen__probe(const struct frec_gen *g, __u32 id)
{
	uint32_t i = map_get(&g->prmap, id);

	return i == NONE ? NULL : &g->probes[i];
}

const struct frec_probe_info *frec_gen__probe_at(const struct frec_gen *g, __u32 i)
{
	return i < g->info.nprobes ? &g->probes[i] : NULL;
}

const char *frec_strerror(int err)
{
	if (err < 0)
		err = -err;
	switch (err) {
	case EBADMSG:
		return "not a frec snapshot, or damaged data";
	case EPROTONOSUPPORT:
		return "written by a newer frec format version; upgrade frec";
	case ENODATA:
		return "file ends early (truncated)";
	default:
		return strerror(err);
	}
}
