// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <pthread.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <frec/recorder.h>
#include "frecd/cgroup_state.h"
#include "frecd/clock.h"
#include "frecd/config.h"
#include "frecd/daemon.h"
#include "frecd/loader.h"
#include "frecd/hostview.h"
#include "frecd/log.h"
#include "frecd/outdir.h"
#include "frecd/pids.h"
#include "frecd/probes.h"
#include "frecd/reload.h"
#include "frecd/service.h"
#include "frecd/symbolizer.h"
#include "frecd/trigger_setup.h"

int frecd_reload__init(struct frecd_reload_state *rs, const struct frecd_options *o,
		       const __u32 *tgids, size_t ntgids)
{
	memset(rs, 0, sizeof(*rs));
	rs->efd = -1;
	if (ntgids > FRECD_MAX_PIDS)
		return -E2BIG;
	memcpy(rs->tgids, tgids, ntgids * sizeof(*tgids));
	rs->ntgids = ntgids;
	rs->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (rs->efd < 0 ||
	    (o->btf_path && !(rs->boot_btf = strdup(o->btf_path))) ||
	    (o->socket_path && !(rs->boot_socket = strdup(o->socket_path)))) {
		int ret = rs->efd < 0 ? -errno : -ENOMEM;

		frecd_reload__fini(rs);
		return ret;
	}
	return 0;
}

static void plan_free(struct frecd_reload_plan *p)
{
	if (p->triggers) {
		frecd_trigger_set__free(p->triggers);
		free(p->triggers);
		p->triggers = NULL;
	}
	frec_probes__free(p->probes);
	frecd_outdir__free(p->outdir);
	frecd_config__free(p->cfg);
	p->probes = NULL;
	p->outdir = NULL;
	p->cfg = NULL;
	p->old = NULL;
}

void frecd_reload__fini(struct frecd_reload_state *rs)
{
	if (rs->busy) {
		pthread_join(rs->thread, NULL);
		rs->busy = false;
		log_info("reload dropped: frecd is stopping");
	}
	plan_free(&rs->plan);
	if (rs->efd >= 0)
		close(rs->efd);
	rs->efd = -1;
	free(rs->boot_btf);
	free(rs->boot_socket);
	rs->boot_btf = rs->boot_socket = NULL;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* The cgroup hierarchy is chosen once, at start: the recorded ids and the
 * header say which it is. */
static void keep_hierarchy(struct frecd_options *next, const struct frecd_options *cur)
{
	if (same_str(next->cgroup_hierarchy, cur->cgroup_hierarchy))
		return;
	log_warn("reload: cgroup-hierarchy changed from %s to %s: restart to change the hierarchy; still %s",
		 cur->cgroup_hierarchy, next->cgroup_hierarchy, cur->cgroup_hierarchy);
	next->cgroup_hierarchy = cur->cgroup_hierarchy;
}

/* A table capacity option as the user gave it: 0 is the default. */
static const char *count_or_default(__u32 v, char *buf, size_t len)
{
	if (!v)
		return "the default";
	snprintf(buf, len, "%u", v);
	return buf;
}

/*
 * The settings that shape the recorder or the process: a change is logged
 * and the running value kept, so that next describes what runs.
 */
static void keep_restart_only(struct frecd_options *next, const struct frecd_options *cur,
			      const struct frecd_reload_state *rs)
{
	char a[32], b[32];

#define KEEP(field, key, fmt_old, fmt_new)						\
	do {										\
		if (next->field != cur->field) {					\
			log_warn("reload: %s changed from %s to %s, which takes a restart; still %s", \
				 key, fmt_old, fmt_new, fmt_old);			\
			next->field = cur->field;					\
		}									\
	} while (0)
	if (next->window_ns != cur->window_ns) {
		snprintf(a, sizeof(a), "%.9g s", cur->window_ns / 1e9);
		snprintf(b, sizeof(b), "%.9g s", next->window_ns / 1e9);
		KEEP(window_ns, "window", a, b);
	}
	KEEP(max_bytes, "max-size", frecd_format_size(cur->max_bytes, a, sizeof(a)),
	     frecd_format_size(next->max_bytes, b, sizeof(b)));
	if (next->period_ns != cur->period_ns) {
		snprintf(a, sizeof(a), "%llu ms", (unsigned long long)(cur->period_ns / 1000000));
		snprintf(b, sizeof(b), "%llu ms", (unsigned long long)(next->period_ns / 1000000));
		KEEP(period_ns, "period", a, b);
	}
	KEEP(ring_bytes, "ring-size", frecd_format_size(cur->ring_bytes, a, sizeof(a)),
	     frecd_format_size(next->ring_bytes, b, sizeof(b)));
	KEEP(ring_min_bytes, "ring-min", frecd_format_size(cur->ring_min_bytes, a, sizeof(a)),
	     frecd_format_size(next->ring_min_bytes, b, sizeof(b)));
	if (next->attach != cur->attach) {
		static const char *const names[] = { "auto", "tp_btf", "raw_tp" };

		KEEP(attach, "attach", names[cur->attach], names[next->attach]);
	}
	/* The recorder's tables are sized for these at start. */
	KEEP(max_threads, "max-threads", count_or_default(cur->max_threads, a, sizeof(a)),
	     count_or_default(next->max_threads, b, sizeof(b)));
	KEEP(max_processes, "max-processes", count_or_default(cur->max_processes, a, sizeof(a)),
	     count_or_default(next->max_processes, b, sizeof(b)));
#undef KEEP
	if (!same_str(next->btf_path, rs->boot_btf)) {
		log_warn("reload: btf changed from %s to %s, which takes a restart; still %s",
			 rs->boot_btf ? rs->boot_btf : "the kernel's",
			 next->btf_path ? next->btf_path : "the kernel's",
			 rs->boot_btf ? rs->boot_btf : "the kernel's");
	}
	next->btf_path = rs->boot_btf;
	keep_hierarchy(next, cur);
	if (!same_str(next->socket_path, rs->boot_socket))
		log_warn("reload: socket changed from %s to %s, which takes a restart; still %s",
			 rs->boot_socket, next->socket_path, rs->boot_socket);
	next->socket_path = rs->boot_socket;
}

static bool same_probes(const struct frecd_options *a, const struct frecd_options *b)
{
	size_t i;

	if (a->nprobes != b->nprobes || a->probe_args != b->probe_args)
		return false;
	/* --stacks probes and its depth are the probe programs' knobs */
	if ((a->stacks & FRECD_STACKS_PROBES) != (b->stacks & FRECD_STACKS_PROBES) ||
	    ((a->stacks & FRECD_STACKS_PROBES) && a->stack_depth != b->stack_depth))
		return false;
	for (i = 0; i < a->nprobes; i++)
		if (strcmp(a->probes[i], b->probes[i]))
			return false;
	return true;
}

static bool same_triggers(const struct frecd_options *a, const struct frecd_options *b)
{
	size_t i;

	if (a->ntriggers != b->ntriggers)
		return false;
	for (i = 0; i < a->ntriggers; i++)
		if (strcmp(a->triggers[i], b->triggers[i]))
			return false;
	return true;
}

static bool has_probe_trigger(const struct frecd_trigger_set *t)
{
	size_t i;

	for (i = 0; t && i < t->n; i++)
		if (t->specs[i].probe)
			return true;
	return false;
}

/* The size of each CPU's ring, which the probes' wakeup threshold follows. */
static __u64 ring_bytes_each(const struct frecd_bpf *bpf)
{
	size_t n;
	__u64 bytes;

	frecd_bpf__rings(bpf, &n, &bytes);
	return bytes;
}

static int attach_probes(struct frec_probes *p, const struct frecd_service_opts *so,
			 const struct frecd_trigger_set *t, const __u32 *tgids, size_t ntgids,
			 const struct frecd_cgroup_list *cgroups, const struct frecd_options *o,
			 char *err, size_t errlen)
{
	struct frec_probes_attach_opts popts = {
		.sz = sizeof(popts),
		.rings_fd = frecd_bpf__rings_fd(so->bpf),
		.ring_bytes = ring_bytes_each(so->bpf),
		.counters_fd = frecd_bpf__counters_fd(so->bpf),
		.pids = tgids,
		.npids = ntgids,
		.self_pid = so->dopts->hv ? so->dopts->hv->host_tgid : (__u32)getpid(),
		.nargs = o->probe_args,
		.verbose = o->verbose,
		.triggers = t ? t->bpf : NULL,
		.ntriggers = t ? t->n : 0,
		.triggers_fd = t && t->n ? frecd_bpf__triggers_fd(so->bpf) : -1,
		.trigger_state_fd = t && t->n ? frecd_bpf__trigger_state_fd(so->bpf) : -1,
		.stack_probes = o->stacks & FRECD_STACKS_PROBES,
		.stack_depth = o->stack_depth,
		.pid_filter_fd = frecd_bpf__pid_filter_fd(so->bpf),
		.pids_in_bpf = ntgids && so->dopts->hv && !so->dopts->hv->pidns_host,
	};

	if (!frec_probes__count(p))
		return 0;
	frecd_cgroup_state__probe_opts(&popts, so->bpf);
	popts.filter_cgroups = cgroups->n > 0;
	return frec_probes__attach(p, &popts, err, errlen);
}

static void set_probe_table(const struct frecd_service_opts *so, const struct frec_probes *p)
{
	const struct frec_probe_info *table;
	size_t n;
	int ret;

	table = frec_probes__table(p, &n);
	ret = frec_recorder__set_probes(so->rec, table, n);
	if (ret)
		log_error("reload: cannot register the probes with the recorder: %s; their events are stored unnamed",
			  strerror(-ret));
}

/* Nothing was recorded from first_ts to last_ts (CLOCK_BOOTTIME ns): a gap
 * event in the recording. */
static void mark_gap(struct frec_recorder *rec, __u64 first_ts, __u64 last_ts)
{
	int err = frec_recorder__add_gap(rec, FREC_GAP_RELOAD, first_ts, last_ts);

	if (err)
		log_warn("a gap of %.1f ms in the recording could not be marked: %s",
			 (double)(last_ts - first_ts) / 1e6, strerror(-err));
	else
		log_info("nothing was recorded for %.1f ms while the programs were replaced",
			 (double)(last_ts - first_ts) / 1e6);
}

/* Change the filter; a swap of the scheduler programs is marked as a gap
 * in the recording, whether or not it succeeded. */
static int set_filter(const struct frecd_service_opts *so, const __u32 *tgids, size_t ntgids,
		      const struct frecd_cgroup_list *cgroups, bool wakeup, char *err,
		      size_t errlen)
{
	int ret = frecd_bpf__set_filter(so->bpf, tgids, ntgids, cgroups->f, cgroups->n, wakeup,
					err, errlen);
	__u64 first, last;

	frecd_bpf__last_swap(so->bpf, &first, &last);
	if (first)
		mark_gap(so->rec, first, last);
	return ret;
}

/* --stacks offcpu and --stack-depth: the scheduler programs are swapped
 * when they change, which is marked as a gap like set_filter()'s. */
static int set_stacks(const struct frecd_service_opts *so, bool offcpu, __u32 depth, char *err,
		      size_t errlen)
{
	__u64 first, last;
	int ret;

	ret = frecd_bpf__set_stacks(so->bpf, offcpu, depth, err, errlen);
	frecd_bpf__last_swap(so->bpf, &first, &last);
	if (first)
		mark_gap(so->rec, first, last);
	return ret;
}

/*
 * The new triggers, once the probes they name are attached: the programs'
 * table, the policy (ids whose spec changed start over, in the programs
 * too), the recorder's table. On failure the old triggers stay armed.
 */
static void apply_triggers(const struct frecd_service_opts *so, struct frecd_reload_plan *p,
			   struct frecd_daemon *d)
{
	struct frecd_trigger_set *t = p->triggers;
	char err[512];
	__u64 first0, last0, first, last;
	__u32 changed = 0, id;
	int ret;

	/* A table written in place swaps nothing: the last swap stays what
	 * it was, and must not be marked twice. */
	frecd_bpf__last_swap(so->bpf, &first0, &last0);
	ret = frecd_bpf__set_triggers(so->bpf, t->bpf, t->n, err, sizeof(err));
	frecd_bpf__last_swap(so->bpf, &first, &last);
	if (first && (first != first0 || last != last0))
		mark_gap(so->rec, first, last);
	if (ret) {
		log_error("reload: the triggers stay as they were: %s", err);
		return;
	}
	ret = frecd_daemon__set_triggers(d, t, &changed);
	if (ret)
		log_error("reload: cannot apply the new triggers' policy: %s; restart frecd",
			  strerror(-ret));
	for (id = 1; id <= FREC_MAX_TRIGGERS; id++)
		if (changed & (1u << (id - 1)))
			frecd_bpf__reset_trigger(so->bpf, id);
	ret = frec_recorder__set_triggers(so->rec, t->info, t->n);
	if (ret)
		log_error("reload: cannot register the triggers with the recorder: %s",
			  strerror(-ret));
	if (*so->triggers) {
		frecd_trigger_set__free(*so->triggers);
		free(*so->triggers);
	}
	*so->triggers = t;
	p->triggers = NULL;
}

/* Apply a checked plan; the old probes, if they change, are detached. */
static int apply(const struct frecd_service_opts *so, struct frecd_reload_state *rs,
		 struct frecd_daemon *d)
{
	struct frecd_reload_plan *p = &rs->plan;
	struct frecd_options *cur = so->opts;
	bool probes_changed = p->probes != NULL;
	char err[1024], ignored[512], sz[32];
	int ret = 0;

	if (p->filter_changed) {
		ret = set_filter(so, p->tgids, p->ntgids, &p->cgroups, p->next.wakeup, err,
				 sizeof(err));
		if (ret)
			goto undo_probes;
	}
	/* The symbolizer reads kallsyms before the first stack arrives. */
	if (p->next.stacks && so->dopts->symbolizer &&
	    (ret = frecd_symbolizer__start(so->dopts->symbolizer))) {
		snprintf(err, sizeof(err), "cannot start the stack symbolizer's thread: %s",
			 strerror(-ret));
		goto undo_probes;
	}
	if (p->stacks_changed) {
		ret = set_stacks(so, p->next.stacks & FRECD_STACKS_OFFCPU, p->next.stack_depth, err,
				 sizeof(err));
		if (ret) {
			if (p->filter_changed &&
			    set_filter(so, rs->tgids, rs->ntgids, frecd_cgroup_state__list(),
				       cur->wakeup, ignored, sizeof(ignored)))
				log_error("reload: cannot put the previous -p filter back: %s", ignored);
			goto undo_probes;
		}
	}
	if (probes_changed) {
		__u64 t0;

		/* What the old probes recorded is sealed under the old table. */
		frecd_daemon__flush(d);
		t0 = frecd_clock__mono_ms();
		ret = attach_probes(p->probes, so, p->triggers ? p->triggers : *so->triggers,
				    p->tgids, p->ntgids, &p->cgroups, &p->next, err, sizeof(err));
		if (ret) {
			if (p->stacks_changed &&
			    set_stacks(so, cur->stacks & FRECD_STACKS_OFFCPU, cur->stack_depth,
				       ignored, sizeof(ignored)))
				log_error("reload: cannot put the previous --stacks back: %s", ignored);
			if (p->filter_changed &&
			    set_filter(so, rs->tgids, rs->ntgids, frecd_cgroup_state__list(),
				       cur->wakeup, ignored, sizeof(ignored)))
				log_error("reload: cannot put the previous -p filter back: %s", ignored);
			goto undo_probes;
		}
		log_debug("reload: probes attached in %llu ms", (unsigned long long)(frecd_clock__mono_ms() - t0));
		set_probe_table(so, p->probes);
		frecd_daemon__reset_probe_hits(d);
		frec_probes__free(p->old);
		*so->probes = p->probes;
		p->probes = NULL;
		p->old = NULL;
		frec_probes__log(*so->probes);
	}
	if (p->triggers)
		apply_triggers(so, p, d);

	/* Commit. */
	memcpy(rs->tgids, p->tgids, p->ntgids * sizeof(*p->tgids));
	rs->ntgids = p->ntgids;
	frecd_pids__summarize(&so->dopts->config, p->tgids, p->ntgids);
	frecd_cgroup_state__set_list(&p->cgroups);
	frecd_cgroup_state__summary(&so->dopts->config);
	if (p->next.wakeup)
		so->dopts->config.flags |= FREC_CFG_WAKEUP;
	else
		so->dopts->config.flags &= ~FREC_CFG_WAKEUP;
	so->dopts->config.flags &= ~(FREC_CFG_STACKS_OFFCPU | FREC_CFG_STACKS_PROBES);
	so->dopts->config.flags |= frecd_stacks__config_flags(p->next.stacks);
	if (p->outdir) {
		frecd_outdir__free(so->dopts->outdir);
		so->dopts->outdir = p->outdir;
		p->outdir = NULL;
	}
	/* The outdir's own copy: the old file's strings go away below. */
	so->dopts->output_dir = frecd_outdir__path(so->dopts->outdir);
	p->next.output_dir = so->dopts->output_dir;
	frecd_log__set_level(p->next.verbose ? FRECD_LOG_DEBUG : FRECD_LOG_INFO);
	*cur = p->next;
	frecd_config__free(*so->cfg);
	*so->cfg = p->cfg;
	p->cfg = NULL;
	log_info("reloaded %s in %llu ms: %zu probes%s, %zu triggers, %s, wakeup %s%s%s, -o %s, --keep %u, --keep-size %s, --compress %s",
		 *so->cfg ? frecd_config__path(*so->cfg) : "(no configuration file)",
		 (unsigned long long)(frecd_clock__mono_ms() - p->start_ms),
		 frec_probes__count(*so->probes), probes_changed ? " (attached again)" : "",
		 *so->triggers ? (*so->triggers)->n : 0,
		 frecd_cgroup_state__filter_words(rs->ntgids), cur->wakeup ? "on" : "off",
		 cur->stacks ? ", stacks " : "", cur->stacks ? frecd_format_stacks(cur->stacks) : "",
		 cur->output_dir, cur->keep, frecd_format_size(cur->keep_bytes, sz, sizeof(sz)),
		 frecd_format_compress(cur->compress));
	plan_free(p);
	return 0;

undo_probes:
	if (probes_changed) {
		char again[512];

		if (attach_probes(p->old, so, *so->triggers, rs->tgids, rs->ntgids,
				  frecd_cgroup_state__list(), cur, again, sizeof(again)))
			log_error("reload: cannot attach the previous probes again: %s; restart frecd",
				  again);
	}
	log_error("reload failed: %s; the running configuration stays", err);
	plan_free(p);
	return ret;
}

/* The --cgroup list of the new configuration, looked up again: a cgroup
 * re-created under its old path has a new id. */
static int resolve_cgroups(struct frecd_reload_plan *p, char *err, size_t errlen)
{
	const struct frecd_cgroupfs *fs = frecd_cgroup_state__fs();
	char msg[768], where[PATH_MAX + 32];
	size_t i;
	int ret;

	memset(&p->cgroups, 0, sizeof(p->cgroups));
	if (!fs || !p->next.ncgroups)
		return 0;
	ret = frecd_cgroupfs__resolve(fs, "cgroup", p->next.cgroups, p->next.ncgroups, &p->cgroups,
				      msg, sizeof(msg));
	if (!ret)
		return 0;
	for (i = 0; i < p->next.ncgroups; i++)
		if (strstr(msg, p->next.cgroups[i]))
			break;
	snprintf(err, errlen, "%s%s",
		 i < p->next.ncgroups ? frecd_config__where(p->cfg, p->next.cgroups[i], where,
							     sizeof(where)) : "", msg);
	return ret;
}

static void *detach_main(void *arg)
{
	struct frecd_reload_state *rs = arg;
	__u64 one = 1, t0 = frecd_clock__mono_ms();

	frec_probes__unlink(rs->plan.old);
	rs->detach_ms = frecd_clock__mono_ms() - t0;
	if (write(rs->efd, &one, sizeof(one)) < 0) {
		/* a counter far from overflow: cannot fail */
	}
	return NULL;
}

int frecd_reload__run(const struct frecd_service_opts *so, struct frecd_reload_state *rs,
		      struct frecd_daemon *d)
{
	struct frecd_reload_plan *p = &rs->plan;
	struct frecd_options *cur = so->opts;
	char err[1024], where[PATH_MAX + 32];
	bool probes_changed, pids_changed, triggers_changed, probes_cgroups = false;
	size_t i;
	int ret;

	log_info("SIGHUP: reloading the configuration");
	plan_free(p);
	p->start_ms = frecd_clock__mono_ms();
	ret = frecd_config__load_options(&p->next, &p->cfg, so->argc, so->argv, err, sizeof(err));
	if (ret)
		goto invalid;
	keep_restart_only(&p->next, cur, rs);

	/* Check everything before changing anything. */
	ret = frecd_pids__resolve_host(so->dopts->hv, p->next.pids, p->next.npids, p->cfg, "pid",
				       p->tgids, &p->ntgids, err, sizeof(err));
	if (ret)
		goto invalid;
	pids_changed = !frecd_pids__same(p->tgids, p->ntgids, rs->tgids, rs->ntgids);
	ret = resolve_cgroups(p, err, sizeof(err));
	if (ret)
		goto invalid;
	if (!frecd_cgroup_list__same(&p->cgroups, frecd_cgroup_state__list())) {
		pids_changed = true;
		/* Probes attach to every process with --cgroup, per -p
		 * process without: on or off attaches them again. */
		if ((p->cgroups.n > 0) != (frecd_cgroup_state__list()->n > 0) && p->next.nprobes)
			probes_cgroups = true;
	}
	/* Probes are attached per -p process: a new filter attaches them again. */
	probes_changed = !same_probes(&p->next, cur) || probes_cgroups ||
			 (pids_changed && p->next.nprobes && !p->cgroups.n);
	triggers_changed = !same_triggers(&p->next, cur);
	if (p->next.on_snapshot && !same_str(p->next.on_snapshot, cur->on_snapshot) &&
	    access(p->next.on_snapshot, X_OK)) {
		snprintf(err, sizeof(err), "%s--on-snapshot %s: %s; give an executable file",
			 frecd_config__where(p->cfg, p->next.on_snapshot, where, sizeof(where)),
			 p->next.on_snapshot, strerror(errno));
		ret = -EINVAL;
		goto invalid;
	}
	if (triggers_changed || probes_changed) {
		p->triggers = calloc(1, sizeof(*p->triggers));
		if (!p->triggers) {
			ret = -ENOMEM;
			snprintf(err, sizeof(err), "out of memory");
			goto invalid;
		}
		ret = frecd_trigger_set__parse(p->triggers, p->next.triggers, p->next.ntriggers,
					       err, sizeof(err));
		if (ret)
			goto invalid;
		/* Probe triggers name probes by id: a change of them, or of
		 * the probes, attaches the probes again. */
		if (triggers_changed &&
		    (has_probe_trigger(p->triggers) || has_probe_trigger(*so->triggers)))
			probes_changed = true;
	}
	p->filter_changed = pids_changed || p->next.wakeup != cur->wakeup;
	p->stacks_changed = (p->next.stacks & FRECD_STACKS_OFFCPU) != (cur->stacks & FRECD_STACKS_OFFCPU) ||
			    ((p->next.stacks & FRECD_STACKS_OFFCPU) && p->next.stack_depth != cur->stack_depth);
	if (cur->debug_probes_only) {
		/* The scheduler programs keep filtering everything out. */
		p->filter_changed = false;
	}
	if (probes_changed) {
		p->probes = frec_probes__new();
		if (!p->probes) {
			ret = -ENOMEM;
			snprintf(err, sizeof(err), "out of memory");
			goto invalid;
		}
		if (!so->dopts->hv || so->dopts->hv->proc_host)
			frec_probes__set_pids(p->probes, p->tgids, p->ntgids);
		for (i = 0; i < p->next.nprobes; i++) {
			char msg[768];

			ret = frec_probes__add_spec(p->probes, p->next.probes[i], msg, sizeof(msg));
			if (ret) {
				snprintf(err, sizeof(err), "%s%s",
					 frecd_config__where(p->cfg, p->next.probes[i], where,
							     sizeof(where)), msg);
				goto invalid;
			}
		}
		ret = frecd_trigger_set__add_probes(p->triggers, p->next.probes, p->next.nprobes,
						    p->probes, err, sizeof(err));
		if (ret)
			goto invalid;
	}
	if (p->triggers) {
		ret = frecd_trigger_set__build(p->triggers, probes_changed ? p->probes : *so->probes,
					       err, sizeof(err));
		if (ret)
			goto invalid;
	}
	if (!same_str(p->next.output_dir, cur->output_dir)) {
		char msg[768];

		p->outdir = frecd_outdir__new(p->next.output_dir, msg, sizeof(msg));
		if (!p->outdir) {
			ret = -errno;
			snprintf(err, sizeof(err), "%s%s",
				 frecd_config__where(p->cfg, p->next.output_dir, where, sizeof(where)),
				 msg);
			goto invalid;
		}
	}
	if (!probes_changed)
		return apply(so, rs, d);

	p->old = *so->probes;
	if (!frec_probes__count(p->old))
		return apply(so, rs, d);	/* nothing to detach */
	if (pthread_create(&rs->thread, NULL, detach_main, rs)) {
		detach_main(rs);		/* the slow way, but it works */
		return frecd_reload__continue(so, rs, d);
	}
	rs->busy = true;
	return 1;

invalid:
	log_error("reload failed: %s; the running configuration stays", err);
	plan_free(p);
	return ret;
}

int frecd_reload__continue(const struct frecd_service_opts *so, struct frecd_reload_state *rs,
			   struct frecd_daemon *d)
{
	__u64 n;

	if (read(rs->efd, &n, sizeof(n)) < 0) {
		/* EAGAIN: called directly, without the thread */
	}
	if (rs->busy) {
		pthread_join(rs->thread, NULL);
		rs->busy = false;
	}
	/* the rest of it here: the recursion counts are this thread's */
	frec_probes__detach(rs->plan.old);
	log_debug("reload: old probes detached in %llu ms, recording went on meanwhile",
		  (unsigned long long)rs->detach_ms);
	apply(so, rs, d);
	return 0;
}
