// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <frec/recorder.h>
#include "frecd/config.h"
#include "frecd/daemon.h"
#include "frecd/loader.h"
#include "frecd/log.h"
#include "frecd/outdir.h"
#include "frecd/probes.h"
#include "frecd/proc.h"
#include "frecd/reload.h"
#include "frecd/service.h"

int frecd_reload__init(struct frecd_reload_state *rs, const struct frecd_options *o,
		       const __u32 *tgids, size_t ntgids)
{
	memset(rs, 0, sizeof(*rs));
	if (ntgids > FRECD_MAX_PIDS)
		return -E2BIG;
	memcpy(rs->tgids, tgids, ntgids * sizeof(*tgids));
	rs->ntgids = ntgids;
	if ((o->btf_path && !(rs->boot_btf = strdup(o->btf_path))) ||
	    (o->socket_path && !(rs->boot_socket = strdup(o->socket_path)))) {
		frecd_reload__fini(rs);
		return -ENOMEM;
	}
	return 0;
}

void frecd_reload__fini(struct frecd_reload_state *rs)
{
	free(rs->boot_btf);
	free(rs->boot_socket);
	rs->boot_btf = rs->boot_socket = NULL;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
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
	if (next->attach != cur->attach) {
		static const char *const names[] = { "auto", "tp_btf", "raw_tp" };

		KEEP(attach, "attach", names[cur->attach], names[next->attach]);
	}
#undef KEEP
	if (!same_str(next->btf_path, rs->boot_btf)) {
		log_warn("reload: btf changed from %s to %s, which takes a restart; still %s",
			 rs->boot_btf ? rs->boot_btf : "the kernel's",
			 next->btf_path ? next->btf_path : "the kernel's",
			 rs->boot_btf ? rs->boot_btf : "the kernel's");
	}
	next->btf_path = rs->boot_btf;
	if (!same_str(next->socket_path, rs->boot_socket))
		log_warn("reload: socket changed from %s to %s, which takes a restart; still %s",
			 rs->boot_socket, next->socket_path, rs->boot_socket);
	next->socket_path = rs->boot_socket;
}

/* -p PIDs to the tgids the filter holds; one line with the file's line. */
static int resolve_pids(const struct frecd_options *o, const struct frecd_config *cfg,
			__u32 *tgids, size_t *ntgids, char *err, size_t errlen)
{
	char where[PATH_MAX + 32];
	size_t i, j, n = 0;
	__u32 tgid;
	int ret;

	for (i = 0; i < o->npids; i++) {
		ret = frecd_proc__tgid_of(o->pids[i], &tgid);
		if (ret) {
			snprintf(err, errlen, "%spid %u: %s; check the pid with ps",
				 frecd_config__where_pid(cfg, o->pids[i], where, sizeof(where)),
				 o->pids[i], ret == -ESRCH ? "no such process" : strerror(-ret));
			return ret;
		}
		for (j = 0; j < n && tgids[j] != tgid; j++)
			;
		if (j == n)
			tgids[n++] = tgid;
	}
	*ntgids = n;
	return 0;
}

static bool same_pids(const __u32 *a, size_t na, const __u32 *b, size_t nb)
{
	size_t i, j;

	if (na != nb)
		return false;
	for (i = 0; i < na; i++) {
		for (j = 0; j < nb && b[j] != a[i]; j++)
			;
		if (j == nb)
			return false;
	}
	return true;
}

static bool same_probes(const struct frecd_options *a, const struct frecd_options *b)
{
	size_t i;

	if (a->nprobes != b->nprobes || a->probe_args != b->probe_args)
		return false;
	for (i = 0; i < a->nprobes; i++)
		if (strcmp(a->probes[i], b->probes[i]))
			return false;
	return true;
}

static int attach_probes(struct frec_probes *p, const struct frecd_service_opts *so,
			 const __u32 *tgids, size_t ntgids, __u32 nargs, int verbose,
			 char *err, size_t errlen)
{
	struct frec_probes_attach_opts popts = {
		.sz = sizeof(popts),
		.ring_fd = frecd_bpf__ring_fd(so->bpf),
		.counters_fd = frecd_bpf__counters_fd(so->bpf),
		.pids = tgids,
		.npids = ntgids,
		.self_pid = getpid(),
		.nargs = nargs,
		.verbose = verbose,
	};

	if (!frec_probes__count(p))
		return 0;
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

int frecd_reload__run(const struct frecd_service_opts *so, struct frecd_reload_state *rs,
		      struct frecd_daemon *d)
{
	static __u32 tgids[FRECD_MAX_PIDS];
	struct frecd_options *cur = so->opts, next;
	struct frecd_outdir *outdir = NULL;
	struct frecd_config *cfg = NULL;
	struct frec_probes *probes = NULL, *old_probes = *so->probes;
	char err[1024], ignored[512], where[PATH_MAX + 32], sz[32];
	bool probes_changed, filter_changed;
	size_t ntgids = 0, i;
	int ret;

	log_info("SIGHUP: reloading the configuration");
	ret = frecd_config__load_options(&next, &cfg, so->argc, so->argv, err, sizeof(err));
	if (ret)
		goto invalid;
	keep_restart_only(&next, cur, rs);

	/* Check everything before changing anything. */
	probes_changed = !same_probes(&next, cur);
	ret = resolve_pids(&next, cfg, tgids, &ntgids, err, sizeof(err));
	if (ret)
		goto invalid;
	if (!same_pids(tgids, ntgids, rs->tgids, rs->ntgids))
		probes_changed = probes_changed || next.nprobes;	/* attached per pid */
	filter_changed = !same_pids(tgids, ntgids, rs->tgids, rs->ntgids) ||
			 next.wakeup != cur->wakeup;
	if (probes_changed) {
		probes = frec_probes__new();
		if (!probes) {
			ret = -ENOMEM;
			snprintf(err, sizeof(err), "out of memory");
			goto invalid;
		}
		for (i = 0; i < next.nprobes; i++) {
			char msg[768];

			ret = frec_probes__add_spec(probes, next.probes[i], msg, sizeof(msg));
			if (ret) {
				snprintf(err, sizeof(err), "%s%s",
					 frecd_config__where(cfg, next.probes[i], where, sizeof(where)),
					 msg);
				goto invalid;
			}
		}
	}
	if (!same_str(next.output_dir, cur->output_dir)) {
		char msg[768];

		outdir = frecd_outdir__new(next.output_dir, msg, sizeof(msg));
		if (!outdir) {
			ret = -errno;
			snprintf(err, sizeof(err), "%s%s",
				 frecd_config__where(cfg, next.output_dir, where, sizeof(where)), msg);
			goto invalid;
		}
	}

	/* Apply: the probes off first, so that their last records land in a
	 * generation sealed under the old table. */
	if (probes_changed)
		frec_probes__detach(old_probes);
	if (filter_changed) {
		ret = frecd_bpf__set_filter(so->bpf, tgids, ntgids, next.wakeup, err, sizeof(err));
		if (ret)
			goto undo_probes;
	}
	if (probes_changed) {
		frecd_daemon__flush(d);
		ret = attach_probes(probes, so, tgids, ntgids, next.probe_args, next.verbose, err,
				    sizeof(err));
		if (ret) {
			if (filter_changed &&
			    frecd_bpf__set_filter(so->bpf, rs->tgids, rs->ntgids, cur->wakeup, ignored,
						  sizeof(ignored)))
				log_error("reload: cannot put the previous -p filter back: %s", ignored);
			goto undo_probes;
		}
		set_probe_table(so, probes);
		frecd_daemon__reset_probe_hits(d);
		frec_probes__free(old_probes);
		*so->probes = probes;
		probes = NULL;
		frecd_service__log_probes(*so->probes);
	}

	/* Commit. */
	memcpy(rs->tgids, tgids, ntgids * sizeof(*tgids));
	rs->ntgids = ntgids;
	so->dopts->config.npids = ntgids;
	memset(so->dopts->config.pids, 0, sizeof(so->dopts->config.pids));
	for (i = 0; i < ntgids && i < sizeof(so->dopts->config.pids) / sizeof(so->dopts->config.pids[0]); i++)
		so->dopts->config.pids[i] = tgids[i];
	if (next.wakeup)
		so->dopts->config.flags |= FREC_CFG_WAKEUP;
	else
		so->dopts->config.flags &= ~FREC_CFG_WAKEUP;
	if (outdir) {
		frecd_outdir__free(so->dopts->outdir);
		so->dopts->outdir = outdir;
	}
	/* The outdir's own copy: the old file's strings go away below. */
	so->dopts->output_dir = frecd_outdir__path(so->dopts->outdir);
	next.output_dir = so->dopts->output_dir;
	frecd_log__set_level(next.verbose ? FRECD_LOG_DEBUG : FRECD_LOG_INFO);
	*cur = next;
	frecd_config__free(*so->cfg);
	*so->cfg = cfg;
	log_info("reloaded %s: %zu probes%s, %s, wakeup %s, -o %s, --keep %u, --keep-size %s",
		 cfg ? frecd_config__path(cfg) : "(no configuration file)",
		 frec_probes__count(*so->probes), probes_changed ? " (attached again)" : "",
		 ntgids ? "filtered by -p" : "all processes", cur->wakeup ? "on" : "off",
		 cur->output_dir, cur->keep, frecd_format_size(cur->keep_bytes, sz, sizeof(sz)));
	return 0;

undo_probes:
	if (probes_changed) {
		char again[512];

		if (attach_probes(old_probes, so, rs->tgids, rs->ntgids, cur->probe_args,
				  cur->verbose, again, sizeof(again)))
			log_error("reload: cannot attach the previous probes again: %s; restart frecd",
				  again);
	}
invalid:
	log_error("reload failed: %s; the running configuration stays", err);
	frec_probes__free(probes);
	frecd_outdir__free(outdir);
	frecd_config__free(cfg);
	return ret;
}
