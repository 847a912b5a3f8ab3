// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Sealing: the open generation becomes a block exactly as the file holds it
 * (docs/FORMAT.md "Blocks"): the summary and tables, then the raw event
 * stream, through one reused raw-DEFLATE stream into chunks from the pool,
 * behind a block header with lengths and CRCs. A snapshot is then pure I/O.
 *
 * Raw chunks go back to the pool as soon as deflate has consumed them (zlib
 * copies its input into its own window), so sealing needs little more
 * memory than the block it produces.
 */
#include <errno.h>
#include <string.h>
#include "recorder_int.h"
#include "varint.h"

struct sink {
	struct frec_recorder *r;
	uint32_t head, tail, nchunks;
	uint32_t stage_len;
	int err;
};

/* Point zlib's output at a fresh chunk. */
static int sink_next_chunk(struct sink *s)
{
	struct frec_recorder *r = s->r;
	uint32_t c;

	if (s->tail != CHUNK_NONE)
		r->pool.used[s->tail] = r->pool.chunk_bytes - r->zs.avail_out;
	c = rec_chunk_get(r);
	if (c == CHUNK_NONE)
		return -ENOSPC;
	if (s->tail == CHUNK_NONE)
		s->head = c;
	else
		r->pool.next[s->tail] = c;
	s->tail = c;
	s->nchunks++;
	r->zs.next_out = pool_ptr(&r->pool, c);
	r->zs.avail_out = r->pool.chunk_bytes;
	return 0;
}

/* Feed n bytes to deflate (flush: Z_NO_FLUSH or Z_FINISH). */
static int sink_deflate(struct sink *s, const uint8_t *data, size_t n, int flush)
{
	z_stream *zs = &s->r->zs;
	int rc;

	if (s->err)
		return s->err;
	zs->next_in = (Bytef *)data;
	zs->avail_in = (uInt)n;
	for (;;) {
		if (!zs->avail_out && (s->err = sink_next_chunk(s)))
			return s->err;
		rc = deflate(zs, flush);
		if (flush == Z_FINISH) {
			if (rc == Z_STREAM_END)
				return 0;
		} else if (!zs->avail_in && zs->avail_out) {
			return 0;
		}
		/* Anything but "give me more room" is a bug or corruption. */
		if ((rc != Z_OK && rc != Z_BUF_ERROR) || zs->avail_out)
			return s->err = -EIO;
	}
}

static void stage_flush(struct sink *s)
{
	if (s->stage_len)
		sink_deflate(s, s->r->stage, s->stage_len, Z_NO_FLUSH);
	s->stage_len = 0;
}

static inline uint8_t *stage_room(struct sink *s, size_t n)
{
	if (s->stage_len + n > STAGE_BYTES)
		stage_flush(s);
	return s->r->stage + s->stage_len;
}

static void put_v(struct sink *s, uint64_t v)
{
	uint8_t *p = stage_room(s, VARINT_MAX);

	s->stage_len = (uint32_t)(put_varint(p, v) - s->r->stage);
}

/* A string: varint length, the bytes, a NUL (so the reader can hand out
 * pointers into its buffer). */
static void put_s(struct sink *s, const char *str, size_t n)
{
	put_v(s, n);
	while (n) {
		size_t k;
		uint8_t *p;

		if (s->stage_len == STAGE_BYTES)
			stage_flush(s);
		p = s->r->stage + s->stage_len;
		k = STAGE_BYTES - s->stage_len;
		if (k > n)
			k = n;
		memcpy(p, str, k);
		s->stage_len += (uint32_t)k;
		str += k;
		n -= k;
	}
	*stage_room(s, 1) = 0;
	s->stage_len++;
}

static void put_cstr(struct sink *s, const char *str)
{
	put_s(s, str ? str : "", str ? strlen(str) : 0);
}

static void write_tables(struct sink *s, uint64_t end_ts)
{
	struct frec_recorder *r = s->r;
	struct open_gen *g = &r->g;
	uint32_t nprocs = 0, nprobes = 0;

	/* Processes of the threads named, where a cmdline is known. */
	for (uint32_t i = 0; i < g->nthreads; i++) {
		struct proc *pr = procs_find(&r->procs, g->threads[i].tgid);

		if (pr && pr->cmdline && pr->stamp != g->stamp) {
			pr->stamp = g->stamp;
			r->proc_list[nprocs++] = pr;
		}
	}
	for (uint32_t i = 0; i < r->nprobes; i++)
		nprobes += r->probes[i].stamp == g->stamp;

	put_v(s, g->seq);
	put_v(s, g->min_ts);
	put_v(s, end_ts);
	put_v(s, g->nevents);
	put_v(s, FREC_EV__MAX);
	for (uint32_t t = 0; t < FREC_EV__MAX; t++)
		put_v(s, g->by_type[t]);
	put_v(s, r->ncpus);
	for (uint32_t c = 0; c < r->ncpus; c++)
		put_v(s, g->drops[c]);
	put_v(s, g->nthreads);
	put_v(s, nprocs);
	put_v(s, nprobes);
	put_v(s, g->nstr);

	for (uint32_t i = 0; i < g->nthreads; i++) {
		const struct gen_thread *t = &g->threads[i];

		put_v(s, t->tid);
		put_v(s, t->tgid);
		put_s(s, t->comm, strnlen(t->comm, FREC_COMM_LEN - 1));
	}
	for (uint32_t i = 0; i < nprocs; i++) {
		put_v(s, r->proc_list[i]->tgid);
		put_cstr(s, r->proc_list[i]->cmdline);
	}
	for (uint32_t i = 0; i < r->nprobes; i++) {
		const struct frec_probe_info *p = &r->probes[i].info;

		if (r->probes[i].stamp != g->stamp)
			continue;
		put_v(s, p->id);
		put_v(s, p->kind);
		put_cstr(s, p->name);
		put_cstr(s, p->path);
		put_cstr(s, p->func);
		put_cstr(s, p->build_id);
		put_v(s, p->offset);
		put_v(s, p->nargs);
	}
	for (uint32_t i = 0; i < g->nstr; i++)
		put_s(s, g->str_arena + g->str_off[i], g->str_len[i]);
	stage_flush(s);
}

/* The CRC of the payload: every output byte after the block header. */
static uint32_t chain_crc(const struct pool *pool, uint32_t head)
{
	uLong crc = crc32(0, Z_NULL, 0);

	for (uint32_t c = head; c != CHUNK_NONE; c = pool->next[c]) {
		const uint8_t *p = pool_ptr(pool, c);
		uint32_t n = pool->used[c];

		if (c == head) {
			p += BLOCK_HDR_LEN;
			n -= BLOCK_HDR_LEN;
		}
		crc = crc32(crc, p, n);
	}
	return (uint32_t)crc;
}

/*
 * Seal the open generation into a block at the newest end of the window,
 * open the next one, forget exited tasks and evict. 1 when sealed, 0 when
 * the generation was empty, -ENOSPC when the pool could not hold the block
 * (the generation's events are then discarded and counted).
 */
int rec_seal(struct frec_recorder *r, uint64_t now)
{
	struct open_gen *g = &r->g;
	struct sink s = { .r = r, .head = CHUNK_NONE, .tail = CHUNK_NONE };
	struct sealed_gen *sg;
	uint64_t end_ts = now > g->max_ts ? now : g->max_ts;
	uint64_t raw_len, comp_len;
	uint8_t *bh;
	int err;

	if (!g->nevents) {
		g->open_ts = now;
		window_evict(r, now);
		return 0;
	}
	if (g->tail != CHUNK_NONE)
		r->pool.used[g->tail] = g->pos;

	deflateReset(&r->zs);
	r->zs.avail_out = 0;
	err = sink_next_chunk(&s);
	if (!err) {
		/* Leave room for the block header in the first chunk. */
		r->zs.next_out += BLOCK_HDR_LEN;
		r->zs.avail_out -= BLOCK_HDR_LEN;
		write_tables(&s, end_ts);
		/* The event stream, chunk by chunk, each chunk back to the
		 * pool once consumed. */
		while (g->head != CHUNK_NONE && !s.err) {
			uint32_t c = g->head;

			sink_deflate(&s, pool_ptr(&r->pool, c), r->pool.used[c], Z_NO_FLUSH);
			g->head = r->pool.next[c];
			pool_put(&r->pool, c);
		}
		sink_deflate(&s, NULL, 0, Z_FINISH);
		err = s.err;
	}
	if (!err && (r->zs.total_out > BLOCK_MAX_COMP || r->zs.total_in > BLOCK_MAX_RAW))
		err = -E2BIG;
	sg = err ? NULL : window_slot_get(r);
	if (!sg) {
		pool_put_chain(&r->pool, g->head);
		if (s.head != CHUNK_NONE)
			pool_put_chain(&r->pool, s.head);
		r->st.events_discarded += g->nevents;
		gen_reset(r, now);
		window_evict(r, now);
		return err ? err : -ENOSPC;
	}
	r->pool.used[s.tail] = r->pool.chunk_bytes - r->zs.avail_out;
	raw_len = r->zs.total_in;
	comp_len = r->zs.total_out;

	bh = pool_ptr(&r->pool, s.head);
	memcpy(bh, BLOCK_MAGIC, BLOCK_MAGIC_LEN);
	put_le32(bh + BLOCK_OFF_FLAGS, BLOCK_COMP_DEFLATE);
	put_le32(bh + BLOCK_OFF_COMP, (uint32_t)comp_len);
	put_le32(bh + BLOCK_OFF_RAW, (uint32_t)raw_len);
	put_le32(bh + BLOCK_OFF_PCRC, chain_crc(&r->pool, s.head));
	put_le32(bh + BLOCK_OFF_HCRC, (uint32_t)crc32(0, bh, BLOCK_OFF_HCRC));

	sg->seq = g->seq;
	sg->start_ts = g->min_ts;
	sg->end_ts = end_ts;
	sg->nevents = g->nevents;
	sg->lost = g->lost;
	sg->bytes = BLOCK_HDR_LEN + comp_len;
	sg->head = s.head;
	sg->nchunks = s.nchunks;
	window_append(r, sg);
	r->st.generations_sealed++;

	gen_reset(r, now);
	tasks_forget_exited(r, sg->seq);
	window_evict(r, now);
	return 1;
}
