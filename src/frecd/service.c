// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <frec/recorder.h>
#include "frecd/clock.h"
#include "frecd/control.h"
#include "frecd/daemon.h"
#include "frecd/hostview.h"
#include "frecd/log.h"
#include "frecd/notify.h"
#include "frecd/options.h"
#include "frecd/probes.h"
#include "frecd/rates.h"
#include "frecd/reload.h"
#include "frecd/service.h"
#include "frecd/status.h"

struct frecd_service {
	struct frecd_service_opts o;
	struct frecd_control *control;
	struct frecd_notify *notify;
	struct frecd_daemon *d;
	struct frecd_reload_state rs;
	bool reload_again;		/* SIGHUP during a reload: one more after it */
	__u64 start_ns;
	__u64 status_sent_ns;
	struct frecd_rates rates;	/* events/s, for status and STATUS= */
};

struct frecd_service *frecd_service__new(const struct frecd_service_opts *opts,
					 char *err, size_t errlen)
{
	struct frecd_service *s;
	int ret;

	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	memcpy(&s->o, opts, opts->sz < sizeof(s->o) ? opts->sz : sizeof(s->o));
	ret = frecd_reload__init(&s->rs, s->o.opts, s->o.tgids, s->o.ntgids);
	if (ret) {
		snprintf(err, errlen, "out of memory");
		free(s);
		errno = -ret;
		return NULL;
	}
	s->control = frecd_control__new(s->o.opts->socket_path, err, errlen);
	if (!s->control) {
		ret = errno;
		frecd_reload__fini(&s->rs);
		free(s);
		errno = ret;
		return NULL;
	}
	/* A bad NOTIFY_SOCKET is logged there and otherwise ignored. */
	s->notify = frecd_notify__from_env();
	s->start_ns = frecd_clock__mono_ns();
	return s;
}

void frecd_service__free(struct frecd_service *s)
{
	if (!s)
		return;
	frecd_control__free(s->control);
	frecd_notify__free(s->notify);
	frecd_reload__fini(&s->rs);
	free(s);
}

/* frecd seen from the host (NULL: as if on the host). */
static void fill_namespaces(const struct frecd_hostview *hv, struct frecd_status *st)
{
	st->host_pid = hv ? hv->host_tgid : st->pid;
	st->pidns_own = hv && !hv->pidns_host;
	st->proc_own = hv && !hv->proc_host;
	st->cgroupns_own = hv && !hv->cgroupns_host;
}

/* Everything frec status shows. probes: a buffer the caller frees. */
static void fill_status(struct frecd_service *s, struct frecd_status *st,
			struct frecd_status_probe **probes)
{
	const struct frec_probe_info *table;
	const __u64 *hits;
	size_t n, i;

	frecd_daemon__status(s->d, st);
	st->pid = getpid();
	fill_namespaces(s->o.dopts->hv, st);
	st->uptime_ns = frecd_clock__mono_ns() - s->start_ns;
	frecd_rates__fill(&s->rates, st);
	st->output_dir = s->o.dopts->output_dir;
	st->keep = s->o.opts->keep;
	st->keep_bytes = s->o.opts->keep_bytes;
	st->compress = s->o.opts->compress;

	*probes = NULL;
	table = frec_probes__table(*s->o.probes, &n);
	hits = frecd_daemon__probe_hits(s->d);
	if (n)
		*probes = calloc(n, sizeof(**probes));
	if (!*probes)
		return;
	for (i = 0; i < n; i++) {
		(*probes)[i].id = table[i].id;
		(*probes)[i].kind = table[i].kind;
		(*probes)[i].name = table[i].name;
		(*probes)[i].hits = table[i].id < FREC_MAX_PROBES ? hits[table[i].id] : 0;
	}
	st->nprobes = n;
	st->probes = *probes;
}

static void summary(struct frecd_service *s, char *buf, size_t len)
{
	struct frecd_status_probe *probes;
	struct frecd_status st;

	fill_status(s, &st, &probes);
	frecd_status__summary(&st, buf, len);
	free(probes);
}

static int ctl_snapshot(void *ctx, const char *reason, __u64 *seq, char *err, size_t errlen)
{
	struct frecd_service *s = ctx;
	int ret;

	ret = frecd_daemon__snapshot(s->d, reason, seq);
	if (ret == -ECANCELED)
		snprintf(err, errlen, "frecd is stopping; no more snapshots");
	else if (ret)
		snprintf(err, errlen, "snapshot failed: %s; recording goes on (see frecd's log)",
			 strerror(-ret));
	return ret;
}

static int ctl_trigger(void *ctx, const char *name, __u32 pid, __u32 *id, char *err,
		       size_t errlen)
{
	struct frecd_service *s = ctx;
	const struct frecd_hostview *hv = s->o.dopts->hv;

	/* SO_PEERCRED gives the client's pid in frecd's pid namespace: not the
	 * events' id of any thread unless that is the host's. */
	if (hv && !hv->pidns_host)
		pid = 0;
	return frecd_daemon__trigger(s->d, name, pid, id, err, errlen);
}

static int ctl_status(void *ctx, bool json, FILE *out)
{
	struct frecd_service *s = ctx;
	struct frecd_status_probe *probes;
	struct frecd_status st;
	int ret;

	fill_status(s, &st, &probes);
	ret = json ? frecd_status__json(&st, out) : frecd_status__text(&st, out);
	free(probes);
	return ret;
}

static const struct frecd_control_ops control_ops = {
	.snapshot = ctl_snapshot,
	.trigger = ctl_trigger,
	.status = ctl_status,
};

int frecd_service__start(struct frecd_service *s, struct frecd_daemon *d, int epfd)
{
	struct frecd_status st;
	char line[256];
	int ret;

	if (!s)
		return 0;
	s->d = d;
	ret = frecd_control__attach(s->control, epfd, FRECD_SERVICE_TAG_BASE, &control_ops, s);
	if (ret)
		return ret;
	{
		struct epoll_event ev = { .events = EPOLLIN, .data.u64 = FRECD_SERVICE_TAG_RELOAD };

		if (epoll_ctl(epfd, EPOLL_CTL_ADD, s->rs.efd, &ev))
			return -errno;
	}
	frecd_daemon__status(s->d, &st);
	frecd_rates__init(&s->rates, &st, frecd_clock__mono_ns());
	s->status_sent_ns = s->rates.ns;
	summary(s, line, sizeof(line));
	frecd_notify__ready(s->notify, line);
	return 0;
}

static void reload_done(struct frecd_service *s);

bool frecd_service__event(struct frecd_service *s, __u64 tag, __u32 events)
{
	if (s && tag == FRECD_SERVICE_TAG_RELOAD) {
		frecd_reload__continue(&s->o, &s->rs, s->d);
		reload_done(s);
		return true;
	}
	if (!s || !frecd_control__owns(s->control, tag))
		return false;
	frecd_control__event(s->control, tag, events);
	return true;
}

void frecd_service__tick(struct frecd_service *s)
{
	struct frecd_status st;
	char line[256];
	__u64 now;

	if (!s)
		return;
	frecd_control__tick(s->control);
	if (!frecd_rates__due(&s->rates, frecd_clock__mono_ns()))
		return;
	frecd_daemon__status(s->d, &st);
	now = frecd_clock__mono_ns();
	frecd_rates__update(&s->rates, &st, now);
	if (now - s->status_sent_ns >= FRECD_STATUS_INTERVAL_MS * 1000000ull) {
		summary(s, line, sizeof(line));
		frecd_notify__status(s->notify, line);
		s->status_sent_ns = now;
	}
}

/* A reload is over: READY=1, and the one asked for meanwhile, if any. */
static void reload_done(struct frecd_service *s)
{
	char line[256];

	if (s->reload_again) {
		s->reload_again = false;
		if (frecd_reload__run(&s->o, &s->rs, s->d) == 1)
			return;
	}
	summary(s, line, sizeof(line));
	frecd_notify__ready(s->notify, line);
}

void frecd_service__reload(struct frecd_service *s)
{
	if (!s)
		return;
	if (s->rs.busy) {
		/* Read the file again once this one is applied: it may have
		 * changed after this reload read it. */
		log_info("SIGHUP during a reload: one more will follow");
		s->reload_again = true;
		return;
	}
	frecd_notify__reloading(s->notify);
	if (frecd_reload__run(&s->o, &s->rs, s->d) == 1)
		return;	/* goes on in frecd_service__event() */
	reload_done(s);
}

void frecd_service__snapshot_done(struct frecd_service *s, __u64 seq, int err, const char *dir,
				  const char *name)
{
	char path[PATH_MAX];

	if (!s)
		return;
	if (err) {
		frecd_control__snapshot_done(s->control, seq, err, NULL);
		return;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	frecd_control__snapshot_done(s->control, seq, 0, path);
}

void frecd_service__trigger_snapshot(struct frecd_service *s, __u32 id, int err, __u64 seq)
{
	if (s)
		frecd_control__trigger_snapshot(s->control, id, err, seq);
}

void frecd_service__stopping(struct frecd_service *s)
{
	if (s)
		frecd_notify__stopping(s->notify);
}

void frecd_service__stop(struct frecd_service *s)
{
	if (!s)
		return;
	/* Close the socket while the loop's epoll still exists. */
	frecd_control__free(s->control);
	s->control = NULL;
}
