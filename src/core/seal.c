// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Sealing: the open generation becomes a block exactly as the file holds it
 * (docs/FORMAT.md "Blocks"): a block header, the event stream, then the
 * generation's summary and tables. A snapshot is then pure I/O.
 *
 * Blocks are stored, which costs almost nothing: the open generation's
 * first chunk already has room for the block header, the tables are
 * appended after the last event, and the raw chain itself becomes the
 * block. Only the CRC reads the events again. (The format also has
 * deflated blocks, which the recorder could once write and every reader
 * reads; it writes none now: the encoded stream is already compact, and
 * deflate saved about 17% at several times the CPU per event.)
 *
 * Called from the recorder's thread only, like the rest of the recorder.
 */
#include <errno.h>
#include <string.h>
#include "crc32.h"
#include "recorder_int.h"
#include "varint.h"

struct sink {
	struct frec_recorder *r;
	uint32_t head, tail, nchunks;	/* the output chain */
	uint32_t pos;			/* write offset in tail */
	uint32_t stage_len;
	uint64_t tables_len;
	int err;
};

/* Append a fresh chunk to the output chain. */
static int sink_grow(struct sink *s)
{
	struct frec_recorder *r = s->r;
	uint32_t c = rec_chunk_get(r);

	if (c == CHUNK_NONE)
		return s->err = -ENOSPC;
	if (s->tail == CHUNK_NONE)
		s->head = c;
	else
		r->pool.next[s->tail] = c;
	s->tail = c;
	s->nchunks++;
	return 0;
}

/* Table bytes, copied after the events. */
static void sink_put(struct sink *s, const uint8_t *data, size_t n)
{
	struct pool *pool = &s->r->pool;

	s->tables_len += n;
	while (n && !s->err) {
		size_t k = pool->chunk_bytes - s->pos;

		if (!k) {
			pool->used[s->tail] = pool->chunk_bytes;
			if (sink_grow(s))
				return;
			s->pos = 0;
			continue;
		}
		if (k > n)
			k = n;
		memcpy(pool_ptr(pool, s->tail) + s->pos, data, k);
		s->pos += (uint32_t)k;
		data += k;
		n -= k;
	}
}

static void stage_flush(struct sink *s)
{
	if (s->stage_len)
		sink_put(s, s->r->stage, s->stage_len);
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

		if (s->stage_len == STAGE_BYTES)
			stage_flush(s);
		k = STAGE_BYTES - s->stage_len;
		if (k > n)
			k = n;
		memcpy(s->r->stage + s->stage_len, str, k);
		s->stage_len += (uint32_t)k;
		str += k;
		n -= k;
	}
	*stage_room(s, 1) = 0;
	s->stage_len++;
}

/* A thread table's comm (version 5): the bytes it shares with the entry
 * before's, the bytes that follow, their counts in one byte. Threads of one
 * process, of one pool or of one kernel kind ("kworker/") are often named
 * alike, and a table lists many of them in a row. */
static void put_name(struct sink *s, const char *comm, const char *prev)
{
	size_t n = strnlen(comm, FREC_COMM_LEN - 1), k = 0;
	uint8_t *p;

	while (k < n && comm[k] == prev[k])
		k++;
	p = stage_room(s, 1 + FREC_COMM_LEN);
	*p++ = THREAD_NAME_BYTE(k, n - k);
	memcpy(p, comm + k, n - k);
	s->stage_len += (uint32_t)(1 + n - k);
}

static void put_cstr(struct sink *s, const char *str)
{
	put_s(s, str ? str : "", str ? strlen(str) : 0);
}

/* Section 6, the triggers the generation mentions: its length first, so
 * the section is staged whole (at most 32 entries of two strings) in a
 * second pass over the table. */
static void put_triggers(struct sink *s, uint32_t ntrig)
{
	const struct frec_recorder *r = s->r;
	uint32_t stamp = r->g.stamp;
	uint64_t len = varint_len(ntrig);

	for (uint32_t i = 0; i < r->ntriggers; i++) {
		const struct frec_trigger_info *t = &r->triggers[i].info;
		size_t nl = strlen(t->name), sl = strlen(t->spec);

		if (r->triggers[i].stamp != stamp)
			continue;
		len += varint_len(t->id) + varint_len(t->kind) + varint_len(nl) + nl + 1 +
		       varint_len(sl) + sl + 1;
	}
	put_v(s, SECTION_TRIGGERS);
	put_v(s, len);
	put_v(s, ntrig);
	for (uint32_t i = 0; i < r->ntriggers; i++) {
		const struct frec_trigger_info *t = &r->triggers[i].info;

		if (r->triggers[i].stamp != stamp)
			continue;
		put_v(s, t->id);
		put_v(s, t->kind);
		put_cstr(s, t->name);
		put_cstr(s, t->spec);
	}
}

/* Sort ids in place, ascending: a heapsort, since seal allocates nothing
 * (and qsort may). */
static void sort_ids(uint64_t *a, uint32_t n)
{
	for (uint32_t end = n, start = n / 2;;) {
		uint32_t root, child;
		uint64_t v;

		if (start) {
			start--;
		} else if (end > 1) {
			end--;
			v = a[0];
			a[0] = a[end];
			a[end] = v;
		} else {
			return;
		}
		root = start;
		while ((child = 2 * root + 1) < end) {
			if (child + 1 < end && a[child + 1] > a[child])
				child++;
			if (a[root] >= a[child])
				break;
			v = a[root];
			a[root] = a[child];
			a[child] = v;
			root = child;
		}
	}
}

/* A namer's string as seal keeps it: bounded, else none. */
static size_t name_len(const char *s)
{
	size_t n = s ? strnlen(s, CGROUP_PATH_MAX) : 0;

	return n == CGROUP_PATH_MAX ? 0 : n;
}

/*
 * Section 2's entries: the generation's cgroup ids, sorted, each named
 * once through the namer (path and container copied into the names
 * arena, back to back, each NUL-terminated), before anything is written,
 * so that the length and the bytes agree whatever the namer learns
 * meanwhile. An id the namer does not know, or whose names find no room,
 * is written with both strings empty. Returns section 2's length.
 */
static uint64_t cgroups_resolve(struct frec_recorder *r)
{
	struct open_gen *g = &r->g;
	const struct frec_cgroup_namer *nr = r->has_namer && r->namer.name ? &r->namer : NULL;
	uint64_t len = varint_len(g->ncg);
	size_t used = 0;

	memcpy(g->cg_sorted, g->cg_ids, sizeof(*g->cg_ids) * g->ncg);
	sort_ids(g->cg_sorted, g->ncg);
	for (uint32_t i = 0; i < g->ncg; i++) {
		const char *path = NULL, *cont = NULL;
		size_t pl = 0, cl = 0;
		/* room for the entries after this one, unnamed */
		size_t room = g->cg_names_cap - used - 2ull * (g->ncg - i - 1);

		if (nr && !nr->name(nr->ctx, g->cg_sorted[i], &path, &cont)) {
			pl = name_len(path);
			cl = name_len(cont);
			if (pl + cl + 2 > room)
				pl = cl = 0;
		}
		if (pl) {
			memcpy(g->cg_names + used, path, pl);
			r->st.cgroups_named++;
		} else {
			cl = 0;		/* no path: no container either */
			r->st.cgroups_unnamed++;
		}
		g->cg_names[used + pl] = '\0';
		if (cl)
			memcpy(g->cg_names + used + pl + 1, cont, cl);
		g->cg_names[used + pl + 1 + cl] = '\0';
		used += pl + cl + 2;
		len += varint_len(g->cg_sorted[i]) + varint_len(pl) + pl + 1 + varint_len(cl) + cl + 1;
	}
	return len;
}

/* Section 2, as cgroups_resolve() left it. */
static void put_cgroups(struct sink *s, uint64_t len)
{
	const struct open_gen *g = &s->r->g;
	const char *n = g->cg_names;

	put_v(s, SECTION_CGROUPS);
	put_v(s, len);
	put_v(s, g->ncg);
	for (uint32_t i = 0; i < g->ncg; i++) {
		size_t pl = strlen(n), cl = strlen(n + pl + 1);

		put_v(s, g->cg_sorted[i]);
		put_s(s, n, pl);
		put_s(s, n + pl + 1, cl);
		n += pl + cl + 2;
	}
}

/* Section 3: the threads whose cgroup their first mention knew, in index
 * order, each index as its gap after the one before (the first: after -1)
 * and each cgroup as its zigzag difference from the one before (the
 * first: from 0), so that a run of threads in one cgroup costs two bytes
 * each. Its length, and *k its entries. */
static uint64_t thread_cgroups_len(const struct open_gen *g, uint32_t *k)
{
	uint64_t len = 0, prev_cg = 0;
	uint32_t next = 0;

	*k = 0;
	for (uint32_t i = 0; i < g->nthreads; i++) {
		uint64_t cg = g->threads[i].cgroup;

		if (!cg)
			continue;
		(*k)++;
		len += varint_len(i - next) + varint_len(zigzag((int64_t)(cg - prev_cg)));
		next = i + 1;
		prev_cg = cg;
	}
	return len + varint_len(*k);
}

static void put_thread_cgroups(struct sink *s, uint64_t len, uint32_t k)
{
	const struct open_gen *g = &s->r->g;
	uint64_t prev_cg = 0;
	uint32_t next = 0;

	put_v(s, SECTION_THREAD_CGROUPS);
	put_v(s, len);
	put_v(s, k);
	for (uint32_t i = 0; i < g->nthreads; i++) {
		uint64_t cg = g->threads[i].cgroup;

		if (!cg)
			continue;
		put_v(s, i - next);
		put_v(s, zigzag((int64_t)(cg - prev_cg)));
		next = i + 1;
		prev_cg = cg;
	}
}

/* A frame's name in the string table: its index + 1, or 0 (none, too
 * long, or no room left). */
static uint32_t name_add(struct open_gen *g, const char *name)
{
	size_t n = name ? strnlen(name, GEN_SYM_MAX) : GEN_SYM_MAX;
	int k;

	if (n == GEN_SYM_MAX || !n)
		return 0;
	k = gen_str_add(g, name, n);
	return k < 0 ? 0 : (uint32_t)k + 1;
}

/*
 * The names of the stack table's frames, through the symbolizer, into the
 * table's resolved frames, the generation's string table and the mapping
 * table, before anything is written: section 4 refers to strings, which
 * come before it. Returns section 4's length; *len5 gets section 5's.
 * Every frame is resolved once, so that what the symbolizer learns while
 * the seal runs cannot make the two sections disagree.
 */
static uint64_t stacks_resolve(struct frec_recorder *r, uint64_t *len5)
{
	struct open_gen *g = &r->g;
	struct stack_table *t = &g->stacks;
	const struct frec_symbolizer *sym = r->has_sym ? &r->sym : NULL;
	uint64_t len = varint_len(t->n);

	for (uint32_t i = 0; i < t->n; i++) {
		const struct stack_ent *e = &t->ents[i];

		len += varint_len(e->kind) + varint_len(e->nframes);
		for (uint32_t f = e->first; f < e->first + e->nframes; f++) {
			struct stack_res *res = &t->res[f];
			uint64_t ip = t->ips[f];
			const char *name = NULL;

			memset(res, 0, sizeof(*res));
			if (e->kind == FREC_STACK_KERNEL) {
				/* Never the address: unnamed is all a reader learns. */
				__u64 off = 0;

				if (sym && sym->kernel && !sym->kernel(sym->ctx, ip, &name, &off))
					res->sym1 = name_add(g, name);
				res->off = res->sym1 ? off : 0;
				len += varint_len(res->sym1) + (res->sym1 ? varint_len(res->off) : 0);
				continue;
			}
			res->off = ip;
			if (sym && sym->user) {
				struct frec_user_frame uf = { 0 };

				if (!sym->user(sym->ctx, e->tgid, e->image, ip, &uf) && uf.path) {
					res->map1 = stacks_map(t, uf.path, uf.build_id);
					if (res->map1)
						res->off = uf.file_offset;
					res->sym1 = name_add(g, uf.sym);
					if (res->sym1)
						res->sym_off = uf.sym_offset;
				}
			}
			len += varint_len(res->map1) + varint_len(res->off) + varint_len(res->sym1) +
			       (res->sym1 ? varint_len(res->sym_off) : 0);
		}
	}
	*len5 = varint_len(t->nmaps);
	for (uint32_t i = 0; i < t->nmaps; i++) {
		const struct stack_map *m = &t->maps[i];

		*len5 += varint_len(m->path_len) + m->path_len + 1 + varint_len(m->bid_len) +
			 m->bid_len + 1;
	}
	return len;
}

/* Sections 4 (stacks) and 5 (mappings), as stacks_resolve() left them. */
static void put_stacks(struct sink *s, uint64_t len4, uint64_t len5)
{
	const struct stack_table *t = &s->r->g.stacks;

	put_v(s, SECTION_STACKS);
	put_v(s, len4);
	put_v(s, t->n);
	for (uint32_t i = 0; i < t->n; i++) {
		const struct stack_ent *e = &t->ents[i];

		put_v(s, e->kind);
		put_v(s, e->nframes);
		for (uint32_t f = e->first; f < e->first + e->nframes; f++) {
			const struct stack_res *res = &t->res[f];

			if (e->kind == FREC_STACK_USER) {
				put_v(s, res->map1);
				put_v(s, res->off);
				put_v(s, res->sym1);
				if (res->sym1)
					put_v(s, res->sym_off);
			} else {
				put_v(s, res->sym1);
				if (res->sym1)
					put_v(s, res->off);
			}
		}
	}
	put_v(s, SECTION_MAPPINGS);
	put_v(s, len5);
	put_v(s, t->nmaps);
	for (uint32_t i = 0; i < t->nmaps; i++) {
		put_s(s, stacks_map_path(t, i), t->maps[i].path_len);
		put_s(s, stacks_map_build_id(t, i), t->maps[i].bid_len);
	}
}

static void write_tables(struct sink *s, uint64_t end_ts)
{
	struct frec_recorder *r = s->r;
	struct open_gen *g = &r->g;
	uint32_t nprocs = 0, nprobes = 0, ntrig = 0, k3 = 0;
	uint64_t len2 = 0, len3 = 0, len4 = 0, len5 = 0;

	/* Processes of the threads named, where a cmdline is known. */
	for (uint32_t i = 0; i < g->nthreads; i++) {
		struct proc *pr = procs_find(&r->procs, g->threads[i].tgid);

		if (pr && pr->cmdline && pr->stamp != g->stamp) {
			pr->stamp = g->stamp;
			r->proc_list[nprocs++] = pr;
			if (pr->stale)	/* asked for, not read yet: again */
				rec_want_cmdline(r, pr->tgid);
		} else if (!pr) {
			/* forked and not exec'd since frecd started, evicted
			 * while it slept, or its read after exec dropped */
			rec_want_cmdline(r, g->threads[i].tgid);
		}
	}
	for (uint32_t i = 0; i < r->nprobes; i++)
		nprobes += r->probes[i].stamp == g->stamp;
	for (uint32_t i = 0; i < r->ntriggers; i++)
		ntrig += r->triggers[i].stamp == g->stamp;
	/* Adds the frames' names to the string table: before it is written. */
	if (g->stacks.n)
		len4 = stacks_resolve(r, &len5);
	if (g->ncg)
		len2 = cgroups_resolve(r);
	len3 = thread_cgroups_len(g, &k3);

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
		/* a main thread's is 0, another thread's small: a byte,
		 * where a tgid of a machine with pid_max at 4 M takes 4 */
		put_v(s, zigzag((int64_t)t->tid - (int64_t)t->tgid));
		put_name(s, t->comm, i ? g->threads[i - 1].comm : "");
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
	/* Version 2: the sections (docs/FORMAT.md), in increasing id order:
	 * cgroups and thread cgroups when the generation knows one, stacks
	 * and mappings when it holds a stack, triggers when it mentions one. */
	put_v(s, (g->ncg ? 1 : 0) + (k3 ? 1 : 0) + (g->stacks.n ? 2 : 0) + (ntrig ? 1 : 0));
	if (g->ncg)
		put_cgroups(s, len2);
	if (k3)
		put_thread_cgroups(s, len3, k3);
	if (g->stacks.n)
		put_stacks(s, len4, len5);
	if (ntrig)
		put_triggers(s, ntrig);
	stage_flush(s);
}

/* The CRC of the payload: every byte of the chain after the block header. */
static uint32_t chain_crc(const struct pool *pool, uint32_t head)
{
	uint32_t crc = 0;

	for (uint32_t c = head; c != CHUNK_NONE; c = pool->next[c]) {
		const uint8_t *p = pool_ptr(pool, c);
		uint32_t n = pool->used[c];

		if (c == head) {
			p += BLOCK_HDR_LEN;
			n -= BLOCK_HDR_LEN;
		}
		crc = frec_crc32(crc, p, n);
	}
	return crc;
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
	uint64_t end_ts, events_len, payload_len, lost_known = 0;
	uint8_t *bh;
	int err;

	/* The firings triggers suppressed are events of this generation: the
	 * last ones it takes. */
	rec_put_suppressed(r, now);
	end_ts = now > g->max_ts ? now : g->max_ts;
	events_len = gen_raw_bytes(g);
	if (!g->nevents) {
		g->open_ts = now;
		window_evict(r, now);
		return 0;
	}
	r->pool.used[g->tail] = g->pos;
	/* The tables go after the last event, in the same chain. */
	s.head = g->head;
	s.tail = g->tail;
	s.nchunks = g->nchunks;
	s.pos = g->pos;
	g->head = CHUNK_NONE;
	write_tables(&s, end_ts);
	/* The room the next seal's tables get: the chunks these added after
	 * the events' last one, when more than the planned room. */
	if (!s.err) {
		uint32_t took = s.nchunks - g->nchunks;

		r->table_chunks = took > r->table_chunks_min ? took : r->table_chunks_min;
		r->pool.used[s.tail] = s.pos;
	}
	payload_len = events_len + s.tables_len;
	err = s.err;
	if (!err && (payload_len > BLOCK_MAX_COMP || events_len + s.tables_len > BLOCK_MAX_RAW))
		err = -E2BIG;
	sg = err ? NULL : window_slot_get(r);
	if (!sg) {
		if (g->head != CHUNK_NONE)
			pool_put_chain(&r->pool, g->head);
		if (s.head != CHUNK_NONE)
			pool_put_chain(&r->pool, s.head);
		/* The events are gone, and so are the lost events among
		 * them: owe both, per CPU, to the next generation. */
		r->st.events_discarded += g->nevents - g->by_type[FREC_EV_LOST];
		for (uint32_t c = 0; c < r->ncpus; c++) {
			rec_owe_lost(r, c, g->by_cpu[c] + g->drops[c], g->min_ts, g->max_ts);
			lost_known += g->drops[c];
		}
		rec_owe_lost(r, FREC_CPU_UNKNOWN, g->by_cpu[r->ncpus] + g->lost - lost_known,
			     g->min_ts, g->max_ts);
		r->floor_ts = end_ts;
		gen_reset(r, now);
		window_evict(r, now);
		return err ? err : -ENOSPC;
	}

	bh = pool_ptr(&r->pool, s.head);
	memcpy(bh, BLOCK_MAGIC, BLOCK_MAGIC_LEN);
	put_le32(bh + BLOCK_OFF_FLAGS, BLOCK_COMP_NONE);
	put_le32(bh + BLOCK_OFF_PAYLOAD, (uint32_t)payload_len);
	put_le32(bh + BLOCK_OFF_RAW, (uint32_t)(events_len + s.tables_len));
	put_le32(bh + BLOCK_OFF_EVENTS, (uint32_t)events_len);
	put_le32(bh + BLOCK_OFF_PCRC, chain_crc(&r->pool, s.head));
	put_le32(bh + BLOCK_OFF_HCRC, frec_crc32(0, bh, BLOCK_OFF_HCRC));

	sg->seq = g->seq;
	sg->start_ts = g->min_ts;
	sg->end_ts = end_ts;
	sg->nevents = g->nevents;
	sg->lost = g->lost;
	sg->bytes = BLOCK_HDR_LEN + payload_len;
	sg->head = s.head;
	sg->nchunks = s.nchunks;
	window_append(r, sg);
	r->st.generations_sealed++;
	r->st.stacks_distinct += g->stacks.n;
	r->floor_ts = end_ts;

	gen_reset(r, now);
	tasks_forget_exited(r, sg->seq);
	window_evict(r, now);
	return 1;
}
