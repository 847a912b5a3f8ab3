// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A block's summary and tables (docs/FORMAT.md, "Summary and tables"):
 * parsed into the reader's struct frec_gen, whose tables are reused from
 * one generation to the next and grow only with entries actually parsed,
 * and the lookups the API offers in them. Called by the reader's user, one
 * thread at a time (see reader.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <frec/snapshot.h>
#include "format.h"
#include "reader_int.h"
#include "varint.h"

static int get_str(const uint8_t **pp, const uint8_t *end, const char **s)
{
	uint64_t n;

	if (get_varint(pp, end, &n) || n >= (uint64_t)(end - *pp) || (*pp)[n])
		return -1;
	*s = (const char *)*pp;
	*pp += n + 1;
	return 0;
}

#define V64(x)	do { uint64_t v_; if (get_varint(&p, end, &v_)) return -EBADMSG; (x) = v_; } while (0)
#define V32(x)	do { if (get_varint32(&p, end, &(x))) return -EBADMSG; } while (0)
#define STR(x)	do { if (get_str(&p, end, &(x))) return -EBADMSG; } while (0)

/* A thread table's comm in version 5 (seal.c's put_name()): a byte with the
 * count of bytes shared with prev (the entry before's comm, "" for the first)
 * and the count that follows, then those bytes, none of them NUL. 0, or -1
 * when the name would not fit a comm, shares more than prev has, or holds a
 * NUL. */
static int get_name(const uint8_t **pp, const uint8_t *end, char *comm, const char *prev)
{
	const uint8_t *p = *pp;
	unsigned k, n;

	if (p == end)
		return -1;
	k = THREAD_NAME_SHARED(*p);
	n = THREAD_NAME_TAIL(*p);
	p++;
	if (k + n > FREC_COMM_LEN - 1 || k > strnlen(prev, FREC_COMM_LEN - 1) ||
	    n > (size_t)(end - p) || memchr(p, 0, n))
		return -1;
	/* comm may be prev's successor in one array: prev is read first */
	memmove(comm, prev, k);
	memcpy(comm + k, p, n);
	memset(comm + k + n, 0, FREC_COMM_LEN - k - n);
	*pp = p + n;
	return 0;
}

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

/* Section "triggers": n, then n x (id, kind, name, spec). The table grows
 * with the entries parsed; a second entry for an id is kept but not found
 * by id. */
static int section_triggers(struct frec_gen *g, const uint8_t *p, const uint8_t *end)
{
	uint32_t n;

	V32(n);
	if (n > (size_t)(end - p) / TRIGGER_MIN_BYTES)
		return -EBADMSG;
	for (uint32_t i = 0; i < n; i++) {
		struct frec_trigger_info *t;

		if (grow(&g->trigs, &g->trigs_cap, i + 1, sizeof(*g->trigs)))
			return -ENOMEM;
		t = &g->trigs[i];
		V32(t->id);
		V32(t->kind);
		STR(t->name);
		STR(t->spec);
	}
	if (p != end)
		return -EBADMSG;
	if (map_reset(&g->trmap, n))
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		map_add(&g->trmap, g->trigs[i].id, i);
	g->info.ntriggers = n;
	return 0;
}

/*
 * Section "stacks": n, then n x (kind, nframes, frames). Each frame takes
 * at least a byte (a kernel frame) or three (a user frame), so the counts
 * are bounded by the bytes before anything grows, and all frames together
 * by STACK_FRAMES_MAX: a struct frec_frame is 40 bytes for one such byte. Symbols are checked
 * against the string table, read before the sections; mappings refer
 * forward to section 5 and are checked once it is read (stacks_link).
 */
static int section_stacks(struct frec_gen *g, const uint8_t *p, const uint8_t *end)
{
	static const char kernel_module[] = "[kernel]";
	uint32_t n, nf = 0;

	V32(n);
	if (n > (size_t)(end - p) / STACK_MIN_BYTES)
		return -EBADMSG;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t kind, nfr;

		V32(kind);
		V32(nfr);
		if ((kind != FREC_STACK_KERNEL && kind != FREC_STACK_USER) || !nfr ||
		    nfr > FREC_MAX_STACK_DEPTH || nfr > STACK_FRAMES_MAX - nf ||
		    (uint64_t)nfr * (kind == FREC_STACK_USER ? USER_FRAME_MIN_BYTES : 1) >
			    (uint64_t)(end - p))
			return -EBADMSG;
		if (grow(&g->stks, &g->stks_cap, i + 1, sizeof(*g->stks)) ||
		    grow(&g->stk_first, &g->stk_first_cap, i + 1, sizeof(*g->stk_first)) ||
		    grow(&g->frames, &g->frames_cap, (size_t)nf + nfr, sizeof(*g->frames)) ||
		    grow(&g->fmap, &g->fmap_cap, (size_t)nf + nfr, sizeof(*g->fmap)))
			return -ENOMEM;
		g->stks[i].kind = kind;
		g->stks[i].nframes = nfr;
		g->stks[i].frames = NULL;
		g->stk_first[i] = nf;
		for (uint32_t j = 0; j < nfr; j++, nf++) {
			struct frec_frame *f = &g->frames[nf];
			uint32_t sym1, map1 = 0;

			memset(f, 0, sizeof(*f));
			if (kind == FREC_STACK_USER) {
				V32(map1);
				V64(f->file_offset);
			} else {
				f->module = kernel_module;
			}
			V32(sym1);
			if (sym1 > g->nstr)
				return -EBADMSG;
			if (sym1) {
				f->sym = g->strs[sym1 - 1];
				V64(f->sym_offset);
			}
			g->fmap[nf] = map1;
		}
	}
	if (p != end)
		return -EBADMSG;
	g->info.nstacks = n;
	g->nframes = nf;
	return 0;
}

/* Section "mappings": n, then n x (path, build_id). */
static int section_mappings(struct frec_gen *g, const uint8_t *p, const uint8_t *end)
{
	uint32_t n;

	V32(n);
	if (n > (size_t)(end - p) / MAPPING_MIN_BYTES)
		return -EBADMSG;
	for (uint32_t i = 0; i < n; i++) {
		if (grow(&g->maps, &g->maps_cap, i + 1, sizeof(*g->maps)))
			return -ENOMEM;
		STR(g->maps[i].path);
		STR(g->maps[i].build_id);
	}
	if (p != end)
		return -EBADMSG;
	g->info.nmappings = n;
	return 0;
}

/* Section "cgroups": n, then n x (id, path, container), ids strictly
 * increasing and never 0, so that lookups are a binary search. */
static int section_cgroups(struct frec_gen *g, const uint8_t *p, const uint8_t *end)
{
	uint64_t prev = 0;
	uint32_t n;

	V32(n);
	if (n > (size_t)(end - p) / CGROUP_MIN_BYTES)
		return -EBADMSG;
	for (uint32_t i = 0; i < n; i++) {
		struct frec_cgroup_info *c;

		if (grow(&g->cgs, &g->cgs_cap, i + 1, sizeof(*g->cgs)))
			return -ENOMEM;
		c = &g->cgs[i];
		V64(c->id);
		if (c->id <= prev)	/* 0, or out of order */
			return -EBADMSG;
		prev = c->id;
		STR(c->path);
		STR(c->container);
	}
	if (p != end)
		return -EBADMSG;
	g->info.ncgroups = n;
	return 0;
}

/* Section "thread cgroups": n (at most the threads), then n x (thread
 * index, strictly increasing; cgroup id, never 0), each the thread's
 * cgroup at its first mention. */
static int section_thread_cgroups(struct frec_gen *g, const uint8_t *p, const uint8_t *end,
				  uint32_t nthreads)
{
	uint32_t n, idx, next = 0;
	uint64_t id, prev = 0, v;

	V32(n);
	if (n > nthreads || n > (size_t)(end - p) / THREAD_CGROUP_MIN_BYTES)
		return -EBADMSG;
	while (n--) {
		V32(idx);
		V64(v);
		id = v;
		/* version 4: gaps and zigzag differences (seal.c) */
		if (g->version >= FORMAT_VERSION_TABLES) {
			if (idx > UINT32_MAX - next)
				return -EBADMSG;
			idx += next;
			id = prev + (uint64_t)unzigzag(v);
		}
		if (idx < next || idx >= nthreads || !id)
			return -EBADMSG;
		g->threads[idx].cgroup = id;
		next = idx + 1;
		prev = id;
	}
	return p == end ? 0 : -EBADMSG;
}

/* Once both sections are read: user frames get their mapping, which must
 * exist, and stacks their frames (the arrays no longer move). */
static int stacks_link(struct frec_gen *g)
{
	for (uint32_t i = 0; i < g->nframes; i++) {
		uint32_t m = g->fmap[i];

		if (m > g->info.nmappings)
			return -EBADMSG;
		if (m) {
			g->frames[i].module = g->maps[m - 1].path;
			g->frames[i].build_id = g->maps[m - 1].build_id;
		}
	}
	for (uint32_t i = 0; i < g->info.nstacks; i++)
		g->stks[i].frames = g->frames + g->stk_first[i];
	return 0;
}

/* Parse a block's uncompressed payload: the event stream (events_len
 * bytes), then the summary and tables. */
int gen_load(struct frec_gen *g, const uint8_t *raw, size_t raw_len, size_t events_len)
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
	g->cpu_groups = cpu_groups(g->version, ncpus);
	g->recent_on = recent_coded(g->version, g->cpu_groups);
	if (g->recent_on) {
		if (grow(&g->recent, &g->recent_cap, (size_t)ncpus * RECENT_SLOTS,
			 sizeof(*g->recent)))
			return -ENOMEM;
		memset(g->recent, 0xff, sizeof(*g->recent) * RECENT_SLOTS * ncpus);	/* RECENT_NONE */
	}
	V32(nthreads);
	V32(nprocs);
	V32(nprobes);
	V32(nstr);
	/* Refuse counts the bytes really there cannot hold, all tables
	 * together, before anything is allocated for them; the arrays then
	 * grow with the entries actually parsed, and the maps are sized from
	 * those. */
	if ((uint64_t)nthreads * (g->version >= FORMAT_VERSION_NAMES ? THREAD_MIN_BYTES_V5 :
				  THREAD_MIN_BYTES) + (uint64_t)nprocs * PROC_MIN_BYTES +
		    (uint64_t)nprobes * PROBE_MIN_BYTES + (uint64_t)nstr * STR_MIN_BYTES >
	    (uint64_t)(end - p))
		return -EBADMSG;

	for (uint32_t i = 0; i < nthreads; i++) {
		struct frec_thread *t;

		if (grow(&g->threads, &g->threads_cap, i + 1, sizeof(*g->threads)))
			return -ENOMEM;
		t = &g->threads[i];
		V32(t->tid);
		if (g->version >= FORMAT_VERSION_TABLES) {
			/* version 4: zigzag(tid - tgid) (seal.c) */
			uint64_t d;
			int64_t tgid;

			V64(d);
			if (d > (1ull << 33))	/* |tid - tgid| < 2^32 */
				return -EBADMSG;
			tgid = (int64_t)t->tid - unzigzag(d);
			if (tgid < 0 || tgid > UINT32_MAX)
				return -EBADMSG;
			t->tgid = (uint32_t)tgid;
		} else {
			V32(t->tgid);
		}
		if (g->version >= FORMAT_VERSION_NAMES) {
			if (get_name(&p, end, t->comm, i ? g->threads[i - 1].comm : ""))
				return -EBADMSG;
		} else {
			STR(s);
			set_comm(t, s);
		}
		t->cgroup = 0;		/* section 3 tells, if present */
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
	g->nstr = nstr;		/* section 4 names frames by string index */
	for (uint32_t i = 0; i < nprocs; i++)
		g->procs[i].ppid = 0;
	if (g->trmap.cap)	/* no section 6: no triggers */
		memset(g->trmap.vals, 0xff, g->trmap.cap * sizeof(*g->trmap.vals));
	/* Version 1 ends here (and later bytes are ignored); version 2 lists
	 * its sections, each skipped unless known. */
	g->nframes = 0;
	if (g->version >= 2) {
		uint32_t nsec, id, n;
		bool has_stacks = false, has_maps = false;
		int err;

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
			if (id == SECTION_CGROUPS && (err = section_cgroups(g, p, sec_end)))
				return err == -ENOMEM ? err : -EBADMSG;
			if (id == SECTION_THREAD_CGROUPS &&
			    section_thread_cgroups(g, p, sec_end, nthreads))
				return -EBADMSG;
			if (id == SECTION_STACKS) {
				if ((err = section_stacks(g, p, sec_end)))
					return err == -ENOMEM ? err : -EBADMSG;
				has_stacks = true;
			}
			if (id == SECTION_MAPPINGS) {
				if ((err = section_mappings(g, p, sec_end)))
					return err == -ENOMEM ? err : -EBADMSG;
				has_maps = true;
			}
			if (id == SECTION_TRIGGERS && (err = section_triggers(g, p, sec_end)))
				return err == -ENOMEM ? err : -EBADMSG;
			p = sec_end;
		}
		/* Section 4 comes with section 5, which its frames refer to. */
		if (has_stacks && (!has_maps || stacks_link(g)))
			return -EBADMSG;
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

void gen_free(struct frec_gen *g)
{
	free(g->drops);
	free(g->threads);
	free(g->dup);
	free(g->procs);
	free(g->probes);
	free(g->trigs);
	free(g->stks);
	free(g->stk_first);
	free(g->frames);
	free(g->fmap);
	free(g->maps);
	free(g->cgs);
	free(g->strs);
	free(g->cur);
	free(g->recent);
	map_free(&g->tmap);
	map_free(&g->pmap);
	map_free(&g->prmap);
	map_free(&g->trmap);
}

const struct frec_gen_info *frec_gen__info(const struct frec_gen *g)
{
	return &g->info;
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

const struct frec_trigger_info *frec_gen__trigger(const struct frec_gen *g, __u32 id)
{
	uint32_t i = map_get(&g->trmap, id);

	return i == NONE ? NULL : &g->trigs[i];
}

const struct frec_trigger_info *frec_gen__trigger_at(const struct frec_gen *g, __u32 i)
{
	return i < g->info.ntriggers ? &g->trigs[i] : NULL;
}

const struct frec_stack *frec_gen__stack(const struct frec_gen *g, __u32 idx1)
{
	return idx1 && idx1 <= g->info.nstacks ? &g->stks[idx1 - 1] : NULL;
}

const struct frec_cgroup_info *frec_gen__cgroup(const struct frec_gen *g, __u64 id)
{
	uint32_t lo = 0, hi = g->info.ncgroups;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (g->cgs[mid].id == id)
			return &g->cgs[mid];
		if (g->cgs[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct frec_cgroup_info *frec_gen__cgroup_at(const struct frec_gen *g, __u32 i)
{
	return i < g->info.ncgroups ? &g->cgs[i] : NULL;
}
