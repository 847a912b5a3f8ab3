// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "frecd/clock.h"
#include "frecd/elf_file.h"
#include "frecd/elf_syms.h"
#include "frecd/ksyms.h"
#include "frecd/log.h"
#include "frecd/proc_maps.h"
#include "frecd/symbolizer.h"

#define QUEUE_CAP	256	/* images waiting for the helper */
#define RELEARN_FIRST_NS	(1000ull * 1000000)
#define RELEARN_MAX_NS		(64000ull * 1000000)
#define BUILD_ID_HEX	(2 * 64 + 1)	/* a build-id note is at most 64 bytes here */
#define PROBED_MAX	64	/* probed files kept (a reload may add others) */
#define ANCHORS_MAX	8	/* an image's probe hits waiting for their file */
#define HELPER_STOP_S	5	/* what frecd's exit waits for the helper */

enum { IMG_QUEUED, IMG_READY, IMG_FAILED };
enum { PF_QUEUED, PF_LOADING, PF_READY, PF_FAILED };

/* One ELF file, immutable once cached (but for refs and the LRU links). */
struct sfile {
	struct sfile *hnext;
	struct sfile *prev, *next;	/* the LRU of unmapped files, while refs == 0 */
	__u64 dev, ino;
	char build_id[BUILD_ID_HEX];
	char *path;
	struct elf_syms *syms;		/* NULL: not an ELF file we could read */
	__u32 refs;			/* mappings of images that use it */
	size_t bytes;
};

struct smap {
	__u64 start, end, pgoff;
	struct sfile *file;
};

/* A probed file, read by the helper as soon as it is named (probe_file()),
 * by its path: its probe hits name its frames without its process's maps. */
struct sprobed {
	char *path;
	char build_id[BUILD_ID_HEX];	/* as probed; "": not checked */
	struct sfile *file;		/* a reference, once PF_READY */
	int state;
};

/* A probe hit in an image whose probed file was not read yet. */
struct sanchor {
	__u32 probed;			/* index into probed[] */
	__u64 file_off, ip;
};

/* One process image: what a tgid mapped between two execs. */
struct simage {
	struct simage *hnext;
	struct simage *prev, *next;	/* the LRU of images */
	__u32 tgid;
	__u64 image;
	int state;
	bool current;			/* tgid's present image */
	/* the program its stacks say it is (0, 0: none said yet), and the
	 * time of its latest stack; unannounced: made by a stack of another
	 * program than tgid's image then, no exec or fork record seen */
	struct frec_image_id id;
	__u64 last_ts;
	bool unannounced;
	struct smap *maps;		/* sorted by start */
	size_t nmaps;
	/*
	 * The maps hold what /proc showed at read_ns (boot clock, after the
	 * files were opened). An exec (or a new process under the pid) at or
	 * before then makes them another program's: new_image() drops them,
	 * and until the drain has passed read_ns, when such an exec would have
	 * been seen, they name nothing. Meanwhile a relearn's predecessors,
	 * old_maps, still name what they did.
	 */
	__u64 read_ns;
	struct smap *old_maps;
	size_t nold;
	__u64 old_read_ns;
	__u64 ended_ns;			/* once not current: the exec's time */
	/* A READY image missing a mapping (a library loaded since) is read
	 * again, at most once per relearn_gap_ns, which doubles each time. */
	bool relearning;
	__u64 relearn_at_ns, relearn_gap_ns;
	/* The probed files' executable segments where a probe hit showed
	 * them (probe_hit()), sorted: the mappings read win over them
	 * but where their file could not be read (sym_user()). */
	struct smap *synth;
	size_t nsynth;
	struct sanchor *anchors;	/* ANCHORS_MAX, once one waits */
	size_t nanchors;
};

struct qent {
	__u32 tgid;
	__u64 image;
};

struct frecd_symbolizer {
	struct frec_symbolizer iface;
	struct frecd_symbolizer_opts opts;
	char proc[PATH_MAX];
	struct frecd_ksyms *ksyms;	/* set by start(), before the helper runs */
	bool started, stop;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake, idle;
	/* under lock: */
	struct simage **img_hash;
	size_t img_mask, nimages;
	struct simage img_lru;		/* sentinel: next is the least recently used */
	__u64 next_image;
	struct sfile **file_hash;
	size_t file_mask, nfiles;
	struct sfile file_lru;		/* unmapped files; next is the oldest */
	size_t nunmapped;
	__u64 unmapped_bytes, file_bytes;
	struct qent queue[QUEUE_CAP];
	size_t qhead, qtail;		/* qtail - qhead entries */
	bool busy;			/* the helper works on one */
	__u64 learned, failed;
	__u64 unannounced;		/* images ended by a stack's id, not a record */
	__u64 drained_ns;		/* frecd_symbolizer__drained() */
	struct sprobed probed[PROBED_MAX];	/* never removed: indexes stay */
	size_t nprobed, probed_todo;
	__u64 page;
};

/* --- lists and hashes (under lock) -------------------------------------- */

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}


#define LIST_INIT(head)		((head)->prev = (head)->next = (head))
#define LIST_DEL(e)		do { (e)->prev->next = (e)->next; (e)->next->prev = (e)->prev; \
				     (e)->prev = (e)->next = NULL; } while (0)
#define LIST_ADD_TAIL(head, e)	do { (e)->prev = (head)->prev; (e)->next = (head); \
				     (head)->prev->next = (e); (head)->prev = (e); } while (0)

static size_t hash_u64(__u64 x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return (size_t)x;
}

static struct simage **img_slot(struct frecd_symbolizer *s, __u32 tgid)
{
	return &s->img_hash[hash_u64(tgid) & s->img_mask];
}

static struct simage *img_find(struct frecd_symbolizer *s, __u32 tgid, __u64 image)
{
	struct simage *im;

	for (im = *img_slot(s, tgid); im; im = im->hnext)
		if (im->tgid == tgid && (image ? im->image == image : im->current))
			return im;
	return NULL;
}

static void file_put(struct frecd_symbolizer *s, struct sfile *f);

/* Drop n mappings and their files' references (under lock). */
static void maps_drop(struct frecd_symbolizer *s, struct smap **maps, size_t *n)
{
	for (size_t i = 0; i < *n; i++)
		file_put(s, (*maps)[i].file);
	free(*maps);
	*maps = NULL;
	*n = 0;
}

static void img_free(struct frecd_symbolizer *s, struct simage *im)
{
	struct simage **pp;
	size_t i;

	for (pp = img_slot(s, im->tgid); *pp; pp = &(*pp)->hnext)
		if (*pp == im) {
			*pp = im->hnext;
			break;
		}
	LIST_DEL(im);
	maps_drop(s, &im->maps, &im->nmaps);
	maps_drop(s, &im->old_maps, &im->nold);
	for (i = 0; i < im->nsynth; i++)
		file_put(s, im->synth[i].file);
	free(im->synth);
	free(im->anchors);
	free(im);
	s->nimages--;
}

static struct sfile **file_slot(struct frecd_symbolizer *s, __u64 dev, __u64 ino)
{
	return &s->file_hash[hash_u64(dev * 0x9e3779b97f4a7c15ull ^ ino) & s->file_mask];
}

static struct sfile *file_find(struct frecd_symbolizer *s, __u64 dev, __u64 ino,
			       const char *build_id)
{
	struct sfile *f;

	for (f = *file_slot(s, dev, ino); f; f = f->hnext)
		if (f->dev == dev && f->ino == ino && !strcmp(f->build_id, build_id))
			return f;
	return NULL;
}

static void file_destroy(struct sfile *f)
{
	elf_syms__free(f->syms);
	free(f->path);
	free(f);
}

/* Unmapped files beyond the limits go, oldest first. Only on the loop's
 * thread, between the recorder's calls: the names user() gave point into
 * a file, and the recorder copies them after the call returned. */
static void files_trim(struct frecd_symbolizer *s)
{
	while (s->nunmapped && (s->nunmapped > s->opts.max_files ||
				s->unmapped_bytes > s->opts.max_file_bytes)) {
		struct sfile *f = s->file_lru.next, **pp;

		for (pp = file_slot(s, f->dev, f->ino); *pp; pp = &(*pp)->hnext)
			if (*pp == f) {
				*pp = f->hnext;
				break;
			}
		LIST_DEL(f);
		s->nunmapped--;
		s->unmapped_bytes -= f->bytes;
		s->file_bytes -= f->bytes;
		s->nfiles--;
		file_destroy(f);
	}
}

static void file_get(struct frecd_symbolizer *s, struct sfile *f)
{
	if (!f->refs++) {
		LIST_DEL(f);
		s->nunmapped--;
		s->unmapped_bytes -= f->bytes;
	}
}

/* The last reference puts f on the LRU of unmapped files, which drained()
 * trims: the helper lets go of files too, while the recorder may hold a
 * name of f that an earlier user() call gave. */
static void file_put(struct frecd_symbolizer *s, struct sfile *f)
{
	if (--f->refs)
		return;
	LIST_ADD_TAIL(&s->file_lru, f);
	s->nunmapped++;
	s->unmapped_bytes += f->bytes;
}

/* --- the helper thread --------------------------------------------------- */

struct learn_map {
	__u64 start, end, pgoff, dev, ino;
	char *path;
};

struct learn {
	struct learn_map *maps;
	size_t n, cap;
};

static int collect_map(const struct frecd_map *m, void *ctx)
{
	struct learn *l = ctx;
	struct learn_map *lm;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 32;
		struct learn_map *p = realloc(l->maps, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		l->maps = p;
		l->cap = cap;
	}
	lm = &l->maps[l->n];
	lm->start = m->start;
	lm->end = m->end;
	lm->pgoff = m->pgoff;
	lm->dev = makedev(m->dev_major, m->dev_minor);
	lm->ino = m->inode;
	lm->path = strndup(m->path, m->path_len);
	if (!lm->path)
		return -ENOMEM;
	l->n++;
	return 0;
}

/* The file at path, the same one (*st) before and after the open (not
 * replaced meanwhile), or NULL. */
static struct elf_file *open_stable(const char *path, struct stat *st)
{
	struct elf_file *ef;
	struct stat after;

	if (stat(path, st) || !(ef = elf_file__open(path)))
		return NULL;
	if (stat(path, &after) || after.st_dev != st->st_dev || after.st_ino != st->st_ino) {
		elf_file__close(ef);
		return NULL;
	}
	return ef;
}

/* The file at path when it is the one (dev, ino) names, or NULL. */
static struct elf_file *open_if_same(const char *path, __u64 dev, __u64 ino)
{
	struct stat st;
	struct elf_file *ef = open_stable(path, &st);

	if (ef && (st.st_dev != dev || st.st_ino != ino)) {
		elf_file__close(ef);
		return NULL;
	}
	return ef;
}

/*
 * The file a mapping of tgid shows, opened as the process sees it: its
 * map_files entry is the mapped file itself (also deleted, also in
 * another mount namespace); the path under its root is the fallback. A
 * process that exited since its maps were read has neither: the same path
 * in frecd's mount namespace, if it is the same file there (device and
 * inode as the maps showed them), still names its frames.
 */
static struct elf_file *open_mapped(struct frecd_symbolizer *s, __u32 tgid,
				    const struct learn_map *lm)
{
	char path[PATH_MAX + 64];
	struct elf_file *ef;

	snprintf(path, sizeof(path), "%s/%u/map_files/%llx-%llx", s->proc, tgid,
		 (unsigned long long)lm->start, (unsigned long long)lm->end);
	ef = elf_file__open(path);
	if (ef || errno == ENOEXEC || errno == EINVAL)
		return ef;
	snprintf(path, sizeof(path), "%s/%u/root%s", s->proc, tgid, lm->path);
	ef = elf_file__open(path);
	if (ef || errno == ENOEXEC || errno == EINVAL)
		return ef;
	return open_if_same(lm->path, lm->dev, lm->ino);
}

/* The cached file (dev, ino) that ef (may be NULL; closed here) reads, a
 * reference taken, or NULL (ENOMEM). */
static struct sfile *file_cached(struct frecd_symbolizer *s, struct elf_file *ef, __u64 dev,
				 __u64 ino, const char *path)
{
	char build_id[BUILD_ID_HEX] = "";
	struct sfile *f;

	if (ef)
		elf_file__build_id(ef, build_id, sizeof(build_id));
	pthread_mutex_lock(&s->lock);
	f = file_find(s, dev, ino, build_id);
	if (f)
		file_get(s, f);
	pthread_mutex_unlock(&s->lock);
	if (f) {
		elf_file__close(ef);
		return f;
	}
	/* the symbols are read without the lock: the recorder never waits */
	f = calloc(1, sizeof(*f));
	if (!f || !(f->path = strdup(path))) {
		free(f);
		elf_file__close(ef);
		return NULL;
	}
	f->dev = dev;
	f->ino = ino;
	memcpy(f->build_id, build_id, sizeof(build_id));
	f->syms = ef ? elf_syms__read(ef) : NULL;
	f->bytes = sizeof(*f) + strlen(f->path) + (f->syms ? elf_syms__bytes(f->syms) : 0);
	elf_file__close(ef);
	f->refs = 1;
	pthread_mutex_lock(&s->lock);
	f->hnext = *file_slot(s, f->dev, f->ino);
	*file_slot(s, f->dev, f->ino) = f;
	s->nfiles++;
	s->file_bytes += f->bytes;
	pthread_mutex_unlock(&s->lock);
	return f;
}

/* The cached file of one mapping (a reference taken), or NULL (ENOMEM). */
static struct sfile *file_of(struct frecd_symbolizer *s, __u32 tgid, const struct learn_map *lm)
{
	return file_cached(s, open_mapped(s, tgid, lm), lm->dev, lm->ino, lm->path);
}

/*
 * Read the next probed file waiting, by its path as frecd's probes name it
 * (the file the uprobe was attached to, in frecd's mount namespace). Its
 * identity is checked before and after the open: a file replaced meanwhile
 * is not the probed one, and is not read.
 */
static void load_probed(struct frecd_symbolizer *s)
{
	struct elf_file *ef;
	struct sfile *f = NULL;
	struct stat st;
	char *path = NULL;
	bool found;
	size_t i;

	pthread_mutex_lock(&s->lock);
	for (i = 0; i < s->nprobed && s->probed[i].state != PF_QUEUED; i++)
		;
	found = i < s->nprobed;
	s->probed_todo--;
	if (found) {
		s->probed[i].state = PF_LOADING;
		path = strdup(s->probed[i].path);
	}
	pthread_mutex_unlock(&s->lock);
	if (!found)
		return;
	if (path && (ef = open_stable(path, &st)))
		f = file_cached(s, ef, st.st_dev, st.st_ino, path);
	pthread_mutex_lock(&s->lock);
	/* not the file probed: rebuilt since, or without symbols */
	if (f && (!f->syms || (s->probed[i].build_id[0] &&
			       strcmp(f->build_id, s->probed[i].build_id)))) {
		file_put(s, f);
		f = NULL;
	}
	s->probed[i].file = f;
	s->probed[i].state = f ? PF_READY : PF_FAILED;
	pthread_mutex_unlock(&s->lock);
	if (!f)
		log_debug("stacks: cannot read the symbols of probed file %s", path ? path : "?");
	free(path);
}

/* The file of the same mapping in the image's present mappings (a
 * relearn), a reference taken: files mapped before are not opened again. */
static struct sfile *reuse_file(struct frecd_symbolizer *s, __u32 tgid, __u64 image,
				const struct learn_map *lm)
{
	struct sfile *f = NULL;
	struct simage *im;
	size_t i;

	pthread_mutex_lock(&s->lock);
	im = img_find(s, tgid, image);
	for (i = 0; im && i < im->nmaps; i++) {
		const struct smap *m = &im->maps[i];

		if (m->start == lm->start && m->end == lm->end && m->pgoff == lm->pgoff &&
		    m->file->dev == lm->dev && m->file->ino == lm->ino) {
			f = m->file;
			file_get(s, f);
			break;
		}
	}
	pthread_mutex_unlock(&s->lock);
	return f;
}

static int cmp_smap(const void *a, const void *b)
{
	const struct smap *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Learn one image: without the lock but to look up and publish. */
static void learn(struct frecd_symbolizer *s, __u32 tgid, __u64 image)
{
	struct learn l = { 0 };
	struct smap *maps = NULL;
	struct simage *im;
	size_t i, n = 0;
	__u64 read_ns;
	bool still;
	int ret;

	pthread_mutex_lock(&s->lock);
	im = img_find(s, tgid, image);
	still = im && im->current;
	pthread_mutex_unlock(&s->lock);
	/* An image that is no longer tgid's present one: its maps are gone. */
	ret = still ? frecd_maps__read(tgid, collect_map, &l) : -ESRCH;
	if (!ret && l.n && !(maps = calloc(l.n, sizeof(*maps))))
		ret = -ENOMEM;
	for (i = 0; !ret && i < l.n; i++) {
		struct sfile *f = reuse_file(s, tgid, image, &l.maps[i]);

		if (!f)
			f = file_of(s, tgid, &l.maps[i]);

		if (!f) {
			ret = -ENOMEM;
			break;
		}
		maps[n].start = l.maps[i].start;
		maps[n].end = l.maps[i].end;
		maps[n].pgoff = l.maps[i].pgoff;
		maps[n].file = f;
		n++;
	}
	for (i = 0; i < l.n; i++)
		free(l.maps[i].path);
	free(l.maps);
	if (n)
		qsort(maps, n, sizeof(*maps), cmp_smap);
	read_ns = frecd_clock__boot_ns();

	pthread_mutex_lock(&s->lock);
	im = img_find(s, tgid, image);
	/* an exec seen since, before the read ended: another program's maps */
	if (!ret && im && !im->current && im->ended_ns <= read_ns)
		ret = -ESRCH;
	if (im && im->relearning) {
		/* the old mappings go once the new ones are trusted (their
		 * files stay while another maps them or the LRU keeps them);
		 * nothing read: the old ones stay */
		im->relearning = false;
		if (!ret) {
			maps_drop(s, &im->old_maps, &im->nold);
			im->old_maps = im->maps;
			im->nold = im->nmaps;
			im->old_read_ns = im->read_ns;
			im->maps = maps;
			im->nmaps = n;
			im->read_ns = read_ns;
			maps = NULL;
			n = 0;
		}
	} else if (im && im->state == IMG_QUEUED && !ret) {
		im->maps = maps;
		im->nmaps = n;
		im->read_ns = read_ns;
		im->state = IMG_READY;
		im->relearn_gap_ns = RELEARN_FIRST_NS / 2;	/* doubled at the first */
		im->relearn_at_ns = mono_ns() + RELEARN_FIRST_NS;
		s->learned++;
		maps = NULL;
		n = 0;
	} else {
		if (im)
			im->state = IMG_FAILED;
		s->failed++;
		log_debug("stacks: the mappings of process %u were not learned: %s", tgid,
			  ret ? strerror(-ret) : "it exec'd or was forgotten meanwhile");
	}
	for (i = 0; i < n; i++)
		file_put(s, maps[i].file);
	pthread_mutex_unlock(&s->lock);
	free(maps);
}

static void *helper_main(void *arg)
{
	struct frecd_symbolizer *s = arg;
	struct qent q;

	pthread_mutex_lock(&s->lock);
	while (!s->stop) {
		if (s->probed_todo) {
			s->busy = true;
			pthread_mutex_unlock(&s->lock);
			load_probed(s);
			pthread_mutex_lock(&s->lock);
			s->busy = false;
			continue;
		}
		if (s->qhead == s->qtail) {
			pthread_cond_broadcast(&s->idle);
			pthread_cond_wait(&s->wake, &s->lock);
			continue;
		}
		q = s->queue[s->qhead++ % QUEUE_CAP];
		s->busy = true;
		pthread_mutex_unlock(&s->lock);
		learn(s, q.tgid, q.image);
		pthread_mutex_lock(&s->lock);
		s->busy = false;
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* --- the recorder's calls (loop's thread) -------------------------------- */

static bool id_known(const struct frec_image_id *id)
{
	return id && (id->proc_start_ns || id->exec_id);
}

/*
 * im, tgid's present image, is no longer (under lock): tgid exec'd, or a
 * new process got it, at ts or before. It stays for the stacks already
 * recorded, without the maps read at or after ts: those are the new
 * program's.
 */
static void img_end(struct frecd_symbolizer *s, struct simage *im, __u64 ts)
{
	im->current = false;
	im->ended_ns = ts;
	if (im->state == IMG_READY && im->read_ns >= ts) {
		maps_drop(s, &im->maps, &im->nmaps);
		if (im->nold && im->old_read_ns < ts) {
			im->maps = im->old_maps;
			im->nmaps = im->nold;
			im->read_ns = im->old_read_ns;
			im->old_maps = NULL;
			im->nold = 0;
		} else {
			im->state = IMG_FAILED;
		}
	}
	if (im->nold && im->old_read_ns >= ts)
		maps_drop(s, &im->old_maps, &im->nold);
}

static bool id_eq(const struct frec_image_id *a, const struct frec_image_id *b)
{
	return a->proc_start_ns == b->proc_start_ns && a->exec_id == b->exec_id;
}

/*
 * tgid's present image, made and queued to be learned the first time
 * (under lock), for a stack taken at ts in the program id names (NULL or
 * 0, 0: not known): *image its number; NULL when it could not be made,
 * or when the stack is of a program older than the image's (then *image
 * is a number no image has: its frames stay addresses).
 *
 * An id other than the present image's is another program, whose exec
 * (or fork, for a pid reused) frecd has not seen: its record was lost,
 * or the exec is still under way (it blocked after taking its new id).
 * The present image ends after its own latest stack, the last time it is
 * known to have run, and this stack starts a new one.
 */
static struct simage *img_current(struct frecd_symbolizer *s, __u32 tgid,
				  const struct frec_image_id *id, __u64 ts, __u64 *image)
{
	bool changed = false;
	struct simage *im;

	im = img_find(s, tgid, 0);
	if (im && id_known(id) && id_known(&im->id) && !id_eq(id, &im->id)) {
		if (id->proc_start_ns == im->id.proc_start_ns && id->exec_id < im->id.exec_id) {
			/* the program this process ran before: no record
			 * comes late enough for that, but a wrong name is
			 * never given */
			*image = ++s->next_image;
			return NULL;
		}
		log_debug("stacks: process %u runs another program than its last stack's, with no exec recorded yet: its mappings are learned again",
			  tgid);
		img_end(s, im, im->last_ts + 1);
		s->unannounced++;
		changed = true;
		im = NULL;
	}
	if (im) {
		LIST_DEL(im);
		LIST_ADD_TAIL(&s->img_lru, im);
		if (id_known(id) && !id_known(&im->id))
			im->id = *id;
		if (ts > im->last_ts)
			im->last_ts = ts;
		*image = im->image;
		return im;
	}
	if (s->nimages >= s->opts.max_images)
		img_free(s, s->img_lru.next);
	*image = ++s->next_image;
	im = calloc(1, sizeof(*im));
	if (!im)
		return NULL;	/* named by number, never learned: its frames stay addresses */
	im->tgid = tgid;
	im->image = *image;
	im->current = true;
	if (id_known(id))
		im->id = *id;
	im->last_ts = ts;
	im->unannounced = changed;
	im->hnext = *img_slot(s, tgid);
	*img_slot(s, tgid) = im;
	LIST_ADD_TAIL(&s->img_lru, im);
	s->nimages++;
	if (!s->started || s->qtail - s->qhead == QUEUE_CAP) {
		im->state = IMG_FAILED;
		s->failed++;
		return im;
	}
	im->state = IMG_QUEUED;
	s->queue[s->qtail++ % QUEUE_CAP] = (struct qent){ .tgid = tgid, .image = *image };
	pthread_cond_signal(&s->wake);
	return im;
}

static __u64 sym_image(void *ctx, __u32 tgid, const struct frec_image_id *id, __u64 ts)
{
	struct frecd_symbolizer *s = ctx;
	__u64 image;

	pthread_mutex_lock(&s->lock);
	img_current(s, tgid, id, ts, &image);
	pthread_mutex_unlock(&s->lock);
	return image;
}

/* The mapping of maps (n, sorted by start) that holds ip, or NULL. */
static const struct smap *map_find(const struct smap *maps, size_t n, __u64 ip)
{
	size_t lo = 0, hi = n;

	if (!n || ip < maps[0].start)
		return NULL;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (maps[mid].start <= ip)
			lo = mid;
		else
			hi = mid;
	}
	return ip < maps[lo].end ? &maps[lo] : NULL;
}

/* The mappings of a READY image that may name frames (under lock): those
 * read before the drain's horizon, else the ones a relearn replaced (a
 * relearn's, once trusted, lets those go). */
static const struct smap *img_maps(struct frecd_symbolizer *s, struct simage *im, size_t *n)
{
	*n = 0;
	if (im->state != IMG_READY)
		return NULL;
	if (im->read_ns <= s->drained_ns) {
		if (im->nold)
			maps_drop(s, &im->old_maps, &im->nold);
		*n = im->nmaps;
		return im->maps;
	}
	*n = im->nold;
	return im->old_maps;
}

/*
 * A probe hit at ip, of the probed file's offset file_off, in image im
 * (under lock): its file's executable segments, mapped where ip puts them,
 * join im's synthesized mappings. False while the file is not read yet
 * (the hit waits); true once done with, named or not: an ip that the file
 * cannot be mapped at (elf_syms__load_bias()) adds nothing.
 */
static bool anchor_apply(struct frecd_symbolizer *s, struct simage *im, const struct sanchor *a)
{
	const struct sprobed *pf = &s->probed[a->probed];
	struct smap *maps;
	__u64 bias, start, end, pgoff;
	size_t i, n;

	if (pf->state == PF_QUEUED || pf->state == PF_LOADING)
		return false;
	if (pf->state != PF_READY || map_find(im->synth, im->nsynth, a->ip))
		return true;
	if (elf_syms__load_bias(pf->file->syms, a->file_off, a->ip, s->page, &bias)) {
		log_debug("stacks: a probe hit of %s in process %u is not where the file can be: its frames stay unnamed",
			  pf->path, im->tgid);
		return true;
	}
	for (n = 0; !elf_syms__exec_segment(pf->file->syms, n, bias, s->page, &start, &end, &pgoff); n++)
		;
	maps = realloc(im->synth, (im->nsynth + n) * sizeof(*maps));
	if (!maps)
		return true;
	im->synth = maps;
	for (i = 0; i < n; i++) {
		size_t k;

		elf_syms__exec_segment(pf->file->syms, i, bias, s->page, &start, &end, &pgoff);
		/* another hit put something there already: it stays */
		for (k = 0; k < im->nsynth; k++)
			if (start < maps[k].end && maps[k].start < end)
				break;
		if (k < im->nsynth)
			continue;
		maps[im->nsynth++] = (struct smap){ .start = start, .end = end, .pgoff = pgoff,
						    .file = pf->file };
		file_get(s, pf->file);
	}
	qsort(im->synth, im->nsynth, sizeof(*im->synth), cmp_smap);
	return true;
}

/* The hits of im that waited for their file (under lock). */
static void anchors_apply(struct frecd_symbolizer *s, struct simage *im)
{
	size_t i, j;

	for (i = j = 0; i < im->nanchors; i++)
		if (!anchor_apply(s, im, &im->anchors[i]))
			im->anchors[j++] = im->anchors[i];
	im->nanchors = j;
}

/* The index of the probed file (path, build_id), added and queued to be
 * read if new (under lock); -ENOSPC when PROBED_MAX are known, -ENOMEM. */
static int probed_get(struct frecd_symbolizer *s, const char *path, const char *build_id)
{
	struct sprobed *pf;
	size_t i;

	if (!build_id)
		build_id = "";
	for (i = 0; i < s->nprobed; i++)
		if (!strcmp(s->probed[i].path, path) && !strcmp(s->probed[i].build_id, build_id))
			return (int)i;
	if (s->nprobed == PROBED_MAX)
		return -ENOSPC;
	pf = &s->probed[s->nprobed];
	pf->path = strdup(path);
	if (!pf->path)
		return -ENOMEM;
	snprintf(pf->build_id, sizeof(pf->build_id), "%s", build_id);
	pf->file = NULL;
	pf->state = PF_QUEUED;
	s->probed_todo++;
	pthread_cond_signal(&s->wake);
	return (int)s->nprobed++;
}

/* A frame of a learned image outside its mappings: read them again (the
 * process mapped more since), not more often than the image's gap. */
static void relearn(struct frecd_symbolizer *s, struct simage *im)
{
	__u64 now;

	if (!im->current || im->relearning || s->qtail - s->qhead == QUEUE_CAP)
		return;
	now = mono_ns();
	if (now < im->relearn_at_ns)
		return;
	im->relearn_gap_ns = im->relearn_gap_ns ? im->relearn_gap_ns * 2 : RELEARN_FIRST_NS;
	if (im->relearn_gap_ns > RELEARN_MAX_NS)
		im->relearn_gap_ns = RELEARN_MAX_NS;
	im->relearn_at_ns = now + im->relearn_gap_ns;
	im->relearning = true;
	s->queue[s->qtail++ % QUEUE_CAP] = (struct qent){ .tgid = im->tgid, .image = im->image };
	pthread_cond_signal(&s->wake);
}

static int sym_kernel(void *ctx, __u64 ip, const char **sym, __u64 *sym_offset)
{
	struct frecd_symbolizer *s = ctx;

	return frecd_ksyms__lookup(s->ksyms, ip, sym, sym_offset);
}

static int sym_user(void *ctx, __u32 tgid, __u64 image, __u64 ip, struct frec_user_frame *out)
{
	struct frecd_symbolizer *s = ctx;
	const struct smap *m = NULL, *maps;
	struct simage *im;
	__u64 addr;
	int ret = -ENOENT;
	size_t n;

	pthread_mutex_lock(&s->lock);
	im = img_find(s, tgid, image);
	if (!im)
		goto out;
	if (im->nanchors)
		anchors_apply(s, im);
	/* the mappings read first, then those probe hits showed; but a file
	 * the maps show and the helper could not open (the process exited
	 * between reading its maps and opening its files) names nothing,
	 * where a probe hit's mapping of the probed file can */
	maps = img_maps(s, im, &n);
	m = map_find(maps, n, ip);
	if (!m || !m->file->syms) {
		const struct smap *sm = map_find(im->synth, im->nsynth, ip);

		if (sm)
			m = sm;
	}
	if (!m) {
		if (im->state == IMG_READY)
			relearn(s, im);
		goto out;
	}
	/* The file outlives the call: only this thread frees images, and a
	 * file goes only when no image maps it. */
	out->path = m->file->path;
	out->build_id = m->file->build_id;
	out->file_offset = ip - m->start + m->pgoff;
	out->sym = NULL;
	out->sym_offset = 0;
	if (m->file->syms &&
	    !elf_syms__offset_to_addr(m->file->syms, out->file_offset, &addr) &&
	    elf_syms__lookup(m->file->syms, addr, &out->sym, &out->sym_offset))
		out->sym = NULL;
	ret = 0;
out:
	pthread_mutex_unlock(&s->lock);
	return ret;
}

/* --- the rest ------------------------------------------------------------- */

static size_t pow2_at_least(size_t n)
{
	size_t p = 16;

	while (p < n)
		p *= 2;
	return p;
}

struct frecd_symbolizer *frecd_symbolizer__new(const struct frecd_symbolizer_opts *opts)
{
	struct frecd_symbolizer *s;

	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	if (opts)
		memcpy(&s->opts, opts, opts->sz < sizeof(s->opts) ? opts->sz : sizeof(s->opts));
	if (!s->opts.max_images)
		s->opts.max_images = FRECD_SYM_MAX_IMAGES;
	if (!s->opts.max_files)
		s->opts.max_files = FRECD_SYM_MAX_FILES;
	if (!s->opts.max_file_bytes)
		s->opts.max_file_bytes = FRECD_SYM_MAX_FILE_BYTES;
	snprintf(s->proc, sizeof(s->proc), "%s", s->opts.proc ? s->opts.proc : "/proc");
	s->opts.proc = NULL;
	s->img_mask = pow2_at_least(s->opts.max_images) - 1;
	s->file_mask = pow2_at_least(s->opts.max_files * 4) - 1;
	s->img_hash = calloc(s->img_mask + 1, sizeof(*s->img_hash));
	s->file_hash = calloc(s->file_mask + 1, sizeof(*s->file_hash));
	if (!s->img_hash || !s->file_hash) {
		free(s->img_hash);
		free(s->file_hash);
		free(s);
		errno = ENOMEM;
		return NULL;
	}
	LIST_INIT(&s->img_lru);
	LIST_INIT(&s->file_lru);
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->wake, NULL);
	pthread_cond_init(&s->idle, NULL);
	s->iface.ctx = s;
	s->iface.image = sym_image;
	s->iface.kernel = sym_kernel;
	s->iface.user = sym_user;
	s->page = (__u64)sysconf(_SC_PAGESIZE);
	return s;
}

int frecd_symbolizer__start(struct frecd_symbolizer *s)
{
	const char *path = s->opts.kallsyms ? s->opts.kallsyms : FRECD_KALLSYMS;
	int ret;

	if (s->started)
		return 0;
	s->ksyms = frecd_ksyms__load(path, s->opts.kallsyms ? NULL : FRECD_MODULES);
	if (!s->ksyms)
		log_warn("stacks: cannot read %s (%s): kernel frames are not named", path,
			 strerror(errno));
	else if (!frecd_ksyms__readable(s->ksyms))
		log_warn("stacks: %s shows no addresses (frecd lacks CAP_SYSLOG): kernel frames are not named; run frecd as root or add CAP_SYSLOG",
			 path);
	else
		log_debug("stacks: %zu kernel symbols from %s", frecd_ksyms__count(s->ksyms), path);
	ret = pthread_create(&s->thread, NULL, helper_main, s);
	if (ret)
		return -ret;
	pthread_mutex_lock(&s->lock);
	s->started = true;
	pthread_mutex_unlock(&s->lock);
	return 0;
}

void frecd_symbolizer__free(struct frecd_symbolizer *s)
{
	size_t i;

	if (!s)
		return;
	if (s->started) {
		struct timespec until;

		pthread_mutex_lock(&s->lock);
		s->stop = true;
		pthread_cond_signal(&s->wake);
		pthread_mutex_unlock(&s->lock);
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += HELPER_STOP_S;
		if (pthread_clockjoin_np(s->thread, NULL, CLOCK_MONOTONIC, &until)) {
			/* Reading the maps of a process stuck in the kernel
			 * with its mappings locked, or a file that hangs:
			 * exiting ends it. Leave it its memory rather than
			 * pull that from under it. */
			log_warn("not waiting for the stack symbolizer's helper: still in a read of /proc or of a file after %d s",
				 HELPER_STOP_S);
			return;
		}
	}
	while (s->nimages)
		img_free(s, s->img_lru.next);
	/* their files go with the cache below */
	for (i = 0; i < s->nprobed; i++)
		free(s->probed[i].path);
	for (i = 0; i <= s->file_mask; i++)
		while (s->file_hash[i]) {
			struct sfile *f = s->file_hash[i];

			s->file_hash[i] = f->hnext;
			file_destroy(f);
		}
	frecd_ksyms__free(s->ksyms);
	free(s->img_hash);
	free(s->file_hash);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->wake);
	pthread_cond_destroy(&s->idle);
	free(s);
}

const struct frec_symbolizer *frecd_symbolizer__iface(struct frecd_symbolizer *s)
{
	return &s->iface;
}

void frecd_symbolizer__new_image(struct frecd_symbolizer *s, __u32 tgid, __u64 ts,
				 const struct frec_image_id *id)
{
	struct simage *im;

	pthread_mutex_lock(&s->lock);
	im = img_find(s, tgid, 0);
	if (im) {
		/* the exec that a stack taken while it was under way told of
		 * first: announced after all */
		if (im->unannounced && id_known(id) && id_eq(id, &im->id)) {
			im->unannounced = false;
			s->unannounced--;
		}
		img_end(s, im, ts);
	}
	pthread_mutex_unlock(&s->lock);
}

void frecd_symbolizer__drained(struct frecd_symbolizer *s, __u64 ts)
{
	pthread_mutex_lock(&s->lock);
	if (ts > s->drained_ns)
		s->drained_ns = ts;
	files_trim(s);
	pthread_mutex_unlock(&s->lock);
}

void frecd_symbolizer__probe_file(struct frecd_symbolizer *s, const char *path,
				  const char *build_id)
{
	pthread_mutex_lock(&s->lock);
	if (s->started)
		probed_get(s, path, build_id);
	pthread_mutex_unlock(&s->lock);
}

void frecd_symbolizer__probe_hit(struct frecd_symbolizer *s, __u32 tgid,
				 const struct frec_image_id *id, __u64 ts, const char *path,
				 const char *build_id, __u64 file_off, __u64 ip)
{
	struct sanchor a = { .file_off = file_off, .ip = ip };
	const struct smap *m, *maps;
	struct simage *im;
	__u64 image;
	size_t i, n;
	int idx;

	pthread_mutex_lock(&s->lock);
	if (!s->started || (idx = probed_get(s, path, build_id)) < 0)
		goto out;
	a.probed = (__u32)idx;
	im = img_current(s, tgid, id, ts, &image);
	/* every hit after the first of an image: a lookup, nothing more (a
	 * mapping read whose file could not be opened is as none) */
	if (!im || map_find(im->synth, im->nsynth, ip))
		goto out;
	maps = img_maps(s, im, &n);
	m = map_find(maps, n, ip);
	if (m && m->file->syms)
		goto out;
	if (anchor_apply(s, im, &a))
		goto out;
	for (i = 0; i < im->nanchors; i++)
		if (im->anchors[i].probed == a.probed && im->anchors[i].ip == ip)
			goto out;
	if (!im->anchors && !(im->anchors = calloc(ANCHORS_MAX, sizeof(*im->anchors))))
		goto out;
	if (im->nanchors < ANCHORS_MAX)
		im->anchors[im->nanchors++] = a;
out:
	pthread_mutex_unlock(&s->lock);
}

int frecd_symbolizer__kernel_skip(struct frecd_symbolizer *s, const __u64 *ips, __u32 n)
{
	const char *name;
	__u64 off;
	__u32 i;

	for (i = 0; i < n && i < 8; i++) {
		if (frecd_ksyms__lookup(s->ksyms, ips[i], &name, &off))
			continue;
		if (!strcmp(name, "__traceiter_sched_switch") ||
		    !strcmp(name, "__bpf_trace_sched_switch"))
			return i + 1;
	}
	return -ENOENT;
}

void frecd_symbolizer__stats(struct frecd_symbolizer *s, struct frecd_symbolizer_stats *st)
{
	memset(st, 0, sizeof(*st));
	pthread_mutex_lock(&s->lock);
	st->images = s->nimages;
	st->images_learned = s->learned;
	st->images_failed = s->failed;
	st->images_unannounced = s->unannounced;
	st->files = s->nfiles;
	st->file_bytes = s->file_bytes;
	pthread_mutex_unlock(&s->lock);
	st->kernel_symbols = frecd_ksyms__count(s->ksyms);
}

int frecd_symbolizer__drain(struct frecd_symbolizer *s, unsigned int timeout_ms)
{
	struct timespec until;
	int ret = 0;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += timeout_ms / 1000;
	until.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&s->lock);
	while (s->started && !ret && (s->qhead != s->qtail || s->probed_todo || s->busy))
		ret = pthread_cond_timedwait(&s->idle, &s->lock, &until);
	pthread_mutex_unlock(&s->lock);
	return ret ? -ETIMEDOUT : 0;
}
