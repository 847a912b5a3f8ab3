// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "frec.skel.h"
#include "../../bpf/frec.h"
#include "frecd/bpf_triggers.h"
#include "frecd/cgroup_state.h"
#include "frecd/kversion.h"

#define TRIG_PREFIX	"frec_trig_"

struct frecd_bpf_triggers {
	struct frec_trigger_bpf table[FREC_MAX_TRIGGERS];
	__u32 n;
	/* The shared maps, as fds of our own, from the first fill on. */
	int triggers_fd, state_fd;
	struct frec_trigger_state *state;	/* state_fd mapped */
	size_t state_len;
	__u32 kinds;				/* of the table last filled */
	void *oncpu_buf;			/* one value per possible CPU */
	int ncpus;
};

struct frecd_bpf_triggers *frecd_bpf_triggers__new(void)
{
	struct frecd_bpf_triggers *bt = calloc(1, sizeof(*bt));

	if (!bt)
		return NULL;
	bt->triggers_fd = bt->state_fd = -1;
	return bt;
}

void frecd_bpf_triggers__free(struct frecd_bpf_triggers *bt)
{
	if (!bt)
		return;
	if (bt->state)
		munmap(bt->state, bt->state_len);
	if (bt->triggers_fd >= 0)
		close(bt->triggers_fd);
	if (bt->state_fd >= 0)
		close(bt->state_fd);
	free(bt->oncpu_buf);
	free(bt);
}

__u32 frecd_bpf_triggers__kinds(const struct frec_trigger_bpf *t, __u32 n)
{
	__u32 i, kinds = 0;

	for (i = 0; t && i < n; i++)
		if (t[i].kind && t[i].kind < FREC_TRIG__MAX)
			kinds |= 1u << t[i].kind;
	return kinds;
}

void frecd_bpf_triggers__comm_mask(struct frec_trigger_bpf *t)
{
	unsigned char m[sizeof(t->comm_mask)];
	size_t n = strnlen(t->comm, sizeof(t->comm));

	/* the name and its NUL; a name of 15 or 16 bytes compares all 16 */
	n = n + 1 < sizeof(m) ? n + 1 : sizeof(m);
	memset(m, 0, sizeof(m));
	memset(m, 0xff, n);
	memcpy(t->comm_mask, m, sizeof(m));
}

int frecd_bpf_triggers__set_cgroup(struct frec_trigger_bpf *t, const char *spec,
				   const char *cgroup, char *err, size_t errlen)
{
	const struct frecd_cgroupfs *fs = frecd_cgroup_state__fs();
	char norm[PATH_MAX], msg[PATH_MAX + 256];
	int ret;

	t->cgroup_id = 0;
	t->cgroup_level = 0;
	if (!cgroup)
		return 0;
	if (!fs) {
		snprintf(err, errlen, "trigger '%s': cgroup=%s: no cgroup hierarchy is open", spec,
			 cgroup);
		return -ENOENT;
	}
	ret = frecd_cgroupfs__lookup(fs, cgroup, &t->cgroup_id, &t->cgroup_level, norm,
				     sizeof(norm), msg, sizeof(msg));
	if (ret)
		snprintf(err, errlen, "trigger '%s': cgroup=%s: %s", spec, cgroup, msg);
	return ret;
}

bool frecd_bpf_triggers__cgroups(const struct frec_trigger_bpf *t, __u32 n)
{
	__u32 i;

	for (i = 0; t && i < n; i++)
		if (t[i].kind && t[i].cgroup_id)
			return true;
	return false;
}

/*
 * Task storage can be used from tracing programs since 5.11, but a thread's
 * first use allocates, with the runqueue lock held at sched_switch: until
 * 6.4 ("bpf: Use bpf_mem_cache_alloc/free in bpf_local_storage_elem" and
 * "... for bpf_local_storage") that is a kzalloc(GFP_ATOMIC), which may
 * wake kswapd onto the runqueue already locked; from 6.4 it comes from
 * BPF's own allocator, safe there. The LRU hash is preallocated and never
 * allocates, so it is the choice everywhere else.
 */
bool frecd_bpf_triggers__task_storage(bool raw_tp, char *why, size_t whylen)
{
	__u32 kv = frecd_kversion__get();
	const char *because = NULL;

	if (raw_tp)
		because = "the raw_tp programs have no typed task pointer for task storage";
	else if (!kv || kv < (6u << 16 | 4u << 8))
		because = "task storage allocates under the runqueue lock with kmalloc before Linux 6.4";
	else if (libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL) != 1)
		because = "this kernel has no task storage maps";
	if (why && because)
		snprintf(why, whylen,
			 "runq and offcpu triggers keep per-thread times in an LRU hash of %d threads: %s",
			 FREC_TRIG_THREADS, because);
	else if (why)
		snprintf(why, whylen,
			 "runq and offcpu triggers keep per-thread times in task storage (tp_btf, Linux 6.4+)");
	return !because;
}

bool frecd_bpf_triggers__wanted(const char *prog_name, const char *tracepoint, __u32 kinds)
{
	bool trig = !strncmp(prog_name, TRIG_PREFIX, strlen(TRIG_PREFIX));
	bool need = false;

	if (!strcmp(tracepoint, "sched_switch"))
		need = kinds & FRECD_TRIG_SCHED_KINDS;
	else if (!strcmp(tracepoint, "sched_waking") || !strcmp(tracepoint, "sched_wakeup_new"))
		need = kinds & (1u << FREC_TRIG_RUNQ);
	return trig == need;
}

int frecd_bpf_triggers__prepare(struct frecd_bpf_triggers *bt, struct frec_bpf *skel,
				const struct frec_trigger_bpf *t, __u32 n, bool raw_tp,
				char *err, size_t errlen)
{
	__u32 kinds = frecd_bpf_triggers__kinds(t, n) & FRECD_TRIG_SCHED_KINDS;
	bool ts = (kinds & FRECD_TRIG_THREAD_KINDS) &&
		  frecd_bpf_triggers__task_storage(raw_tp, NULL, 0);
	int ret;

	skel->rodata->trig_kinds = kinds;
	skel->rodata->trig_task_storage = ts;
	skel->rodata->trig_cgroups = frecd_bpf_triggers__cgroups(t, n);
	/* The map not used: a 1-entry hash, so that a kernel without task
	 * storage creates it too; the knob prunes every use of it. */
	if (!ts && ((ret = bpf_map__set_type(skel->maps.trig_task, BPF_MAP_TYPE_HASH)) ||
		    (ret = bpf_map__set_max_entries(skel->maps.trig_task, 1))))
		goto fail;
	if (!ts && (kinds & FRECD_TRIG_THREAD_KINDS) &&
	    (ret = bpf_map__set_max_entries(skel->maps.trig_threads, FREC_TRIG_THREADS)))
		goto fail;
	if (bt->triggers_fd >= 0 &&
	    ((ret = bpf_map__reuse_fd(skel->maps.triggers, bt->triggers_fd)) ||
	     (ret = bpf_map__reuse_fd(skel->maps.trigger_state, bt->state_fd))))
		goto fail;
	return 0;
fail:
	snprintf(err, errlen, "cannot set up the triggers' maps: %s", strerror(-ret));
	return ret;
}

/* The first object's shared maps, kept for the later ones, and the state
 * mapped for the loop to read and clear field by field. */
static int keep_maps(struct frecd_bpf_triggers *bt, struct frec_bpf *skel, char *err,
		     size_t errlen)
{
	long page = sysconf(_SC_PAGESIZE);
	void *m;
	int ret;

	bt->triggers_fd = fcntl(bpf_map__fd(skel->maps.triggers), F_DUPFD_CLOEXEC, 3);
	bt->state_fd = fcntl(bpf_map__fd(skel->maps.trigger_state), F_DUPFD_CLOEXEC, 3);
	if (bt->triggers_fd < 0 || bt->state_fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot keep the triggers' maps: %s", strerror(-ret));
		return ret;
	}
	bt->state_len = (FREC_MAX_TRIGGERS * sizeof(*bt->state) + page - 1) / page * page;
	m = mmap(NULL, bt->state_len, PROT_READ | PROT_WRITE, MAP_SHARED, bt->state_fd, 0);
	if (m == MAP_FAILED) {
		ret = -errno;
		snprintf(err, errlen, "cannot map the triggers' state: %s", strerror(-ret));
		return ret;
	}
	bt->state = m;
	return 0;
}

int frecd_bpf_triggers__fill(struct frecd_bpf_triggers *bt, struct frec_bpf *skel,
			     const struct frec_trigger_bpf *t, __u32 n, char *err, size_t errlen)
{
	struct frec_trigger_bpf table[FREC_MAX_TRIGGERS] = {};
	__u32 i, masks[FREC_TRIG__MAX] = {};
	int ret;

	if (n > FREC_MAX_TRIGGERS) {
		snprintf(err, errlen, "%u triggers: at most %d", n, FREC_MAX_TRIGGERS);
		return -E2BIG;
	}
	if (bt->triggers_fd < 0 && (ret = keep_maps(bt, skel, err, errlen)))
		return ret;
	if (n)
		memcpy(table, t, n * sizeof(*t));
	for (i = 0; i < FREC_MAX_TRIGGERS; i++) {
		if (table[i].kind >= FREC_TRIG__MAX)
			table[i].kind = 0;	/* not one the programs know */
		if (table[i].kind)
			masks[table[i].kind] |= 1u << i;
		ret = bpf_map_update_elem(bt->triggers_fd, &i, &table[i], BPF_ANY);
		if (ret) {
			ret = -errno;
			snprintf(err, errlen, "cannot write the triggers' table: %s", strerror(-ret));
			return ret;
		}
	}
	/* The masks after the table: a program that sees a new mask finds
	 * its entries written (an old mask with new entries is filtered by
	 * the kind each entry says). */
	memcpy(skel->bss->trig_mask, masks, sizeof(masks));
	memcpy(bt->table, table, sizeof(table));
	bt->n = n;
	bt->kinds = frecd_bpf_triggers__kinds(table, n);
	return 0;
}

const struct frec_trigger_bpf *frecd_bpf_triggers__table(const struct frecd_bpf_triggers *bt,
							 __u32 *n)
{
	*n = bt->n;
	return bt->n ? bt->table : NULL;
}

bool frecd_bpf_triggers__uses_task_storage(const struct frec_bpf *skel)
{
	return skel->rodata->trig_task_storage;
}

int frecd_bpf_triggers__take_state(struct frecd_bpf_triggers *bt, struct frec_trigger_state *st,
				   __u32 n)
{
	__u32 i;

	if (!bt->state)
		return -ENOENT;
	if (n > FREC_MAX_TRIGGERS)
		n = FREC_MAX_TRIGGERS;
	for (i = 0; i < n; i++) {
		struct frec_trigger_state *s = &bt->state[i];

		st[i].last_fire_ts = __atomic_load_n(&s->last_fire_ts, __ATOMIC_RELAXED);
		st[i].suppressed = __atomic_load_n(&s->suppressed, __ATOMIC_RELAXED);
		st[i].supp_first_ts = __atomic_load_n(&s->supp_first_ts, __ATOMIC_RELAXED);
		st[i].supp_worst = __atomic_load_n(&s->supp_worst, __ATOMIC_RELAXED);
		st[i].supp_tid = __atomic_load_n(&s->supp_tid, __ATOMIC_RELAXED);
		st[i].supp_tgid = __atomic_load_n(&s->supp_tgid, __ATOMIC_RELAXED);
		if (!st[i].supp_first_ts)
			continue;
		/* Field by field, never the count: a program's add between the
		 * read and here is kept (bpf/trigger.h). */
		__atomic_store_n(&s->supp_first_ts, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&s->supp_worst, 0, __ATOMIC_RELAXED);
	}
	return 0;
}

int frecd_bpf_triggers__reset(struct frecd_bpf_triggers *bt, __u32 id)
{
	struct frec_trigger_state *s;

	if (!id || id > FREC_MAX_TRIGGERS)
		return -EINVAL;
	if (!bt->state)
		return -ENOENT;
	s = &bt->state[id - 1];
	__atomic_store_n(&s->last_fire_ts, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&s->suppressed, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&s->supp_first_ts, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&s->supp_worst, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&s->supp_tid, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&s->supp_tgid, 0, __ATOMIC_RELAXED);
	return 0;
}

int frecd_bpf_triggers__read_oncpu(struct frecd_bpf_triggers *bt, const struct frec_bpf *skel,
				   struct frec_oncpu *out, size_t *n)
{
	/* a per-CPU value is copied out in 8-byte slots */
	size_t slot = (sizeof(*out) + 7) & ~(size_t)7;
	__u32 key = 0;
	size_t i;

	if (!(bt->kinds & (1u << FREC_TRIG_ONCPU)))
		return -ENOENT;
	if (!bt->oncpu_buf) {
		bt->ncpus = libbpf_num_possible_cpus();
		if (bt->ncpus <= 0)
			return bt->ncpus ? bt->ncpus : -EINVAL;
		bt->oncpu_buf = calloc(bt->ncpus, slot);
		if (!bt->oncpu_buf)
			return -ENOMEM;
	}
	if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.oncpu), &key, bt->oncpu_buf))
		return -errno;
	if (*n > (size_t)bt->ncpus)
		*n = bt->ncpus;
	for (i = 0; i < *n; i++)
		memcpy(&out[i], (char *)bt->oncpu_buf + i * slot, sizeof(*out));
	return 0;
}

int frecd_bpf_triggers__triggers_fd(const struct frecd_bpf_triggers *bt)
{
	return bt->triggers_fd;
}

int frecd_bpf_triggers__state_fd(const struct frecd_bpf_triggers *bt)
{
	return bt->state_fd;
}
