// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/types.h>
#include "../../bpf/frec.h"
#include <frec/recorder.h>
#include "frecd/cgroup_state.h"
#include "frecd/cgroups.h"
#include "frecd/loader.h"
#include "frecd/log.h"
#include "frecd/options.h"
#include "frecd/status.h"
#include "frecd/probes.h"

static struct frecd_cgroupfs fs_running;
static bool started;
static struct frecd_cgroup_list list_running;
static struct frecd_cgroups *table;

int frecd_cgroup_state__start(const struct frecd_options *o, const struct frecd_hostview *hv,
			      char *err, size_t errlen)
{
	const char *want = o->cgroup_hierarchy ? o->cgroup_hierarchy : "auto";
	char msg[512];
	int ret;

	ret = frecd_cgroupfs__open(&fs_running, want, hv, msg, sizeof(msg));
	if (ret) {
		snprintf(err, errlen, "--cgroup-hierarchy %s: %s", want, msg);
		return ret;
	}
	started = true;
	ret = frecd_cgroupfs__resolve(&fs_running, "--cgroup", o->cgroups, o->ncgroups,
				      &list_running, err, errlen);
	if (ret)
		return ret;
	return 0;
}

void frecd_cgroup_state__log(void)
{
	char line[PATH_MAX + 64];

	if (!started)
		return;
	frecd_cgroupfs__describe(&fs_running, line, sizeof(line));
	if (fs_running.mode == FREC_CGROUP_NONE && strcmp(fs_running.why, "--cgroup-hierarchy none"))
		log_warn("cgroups: %s", line);
	else if (fs_running.mode != FREC_CGROUP_NONE && !fs_running.mount[0])
		log_warn("cgroups: %s: ids are recorded without paths", line);
	else if (fs_running.why[0] && fs_running.mode != FREC_CGROUP_NONE)
		log_info("cgroups: %s (%s)", line, fs_running.why);
	else
		log_info("cgroups: %s", line);
}

int frecd_cgroup_state__start_namer(struct frec_recorder *rec)
{
	int ret;

	if (!started || fs_running.mode == FREC_CGROUP_NONE || !fs_running.mount[0])
		return 0;
	table = frecd_cgroups__new(&fs_running, 0);
	if (!table) {
		ret = -errno;
		log_warn("cgroups: cannot start the cgroup table: %s; cgroups are recorded by id only",
			 strerror(-ret));
		return ret;
	}
	frecd_cgroups__set_targets(table, &list_running);
	ret = frec_recorder__set_cgroup_namer(rec, frecd_cgroups__namer(table));
	if (ret)
		log_warn("cgroups: cannot name cgroups: %s", strerror(-ret));
	log_info("cgroup names: %s", fs_running.by_handle ? "by handle"
			   : "by walking (no CAP_DAC_READ_SEARCH, or no handles here)");
	return ret;
}

void frecd_cgroup_state__status(struct frecd_status_cgroups *out)
{
	struct frecd_cgroups_counts n = { 0 };
	size_t i;

	memset(out, 0, sizeof(*out));
	if (table)
		frecd_cgroups__counts(table, &n);
	out->hierarchy = started && fs_running.mode != FREC_CGROUP_NONE ? fs_running.hierarchy : "";
	for (i = 0; i < list_running.n && i < sizeof(out->filters) / sizeof(out->filters[0]); i++)
		out->filters[i] = list_running.path[i];
	out->nfilters = i;
	out->known = n.known;
	out->pending = n.pending;
	out->unnamed = n.unnamed;
}

void frecd_cgroup_state__stop(void)
{
	frecd_cgroups__free(table);
	table = NULL;
	if (started)
		frecd_cgroupfs__close(&fs_running);
	started = false;
}

const struct frecd_cgroupfs *frecd_cgroup_state__fs(void)
{
	return started ? &fs_running : NULL;
}

const struct frecd_cgroup_list *frecd_cgroup_state__list(void)
{
	return &list_running;
}

void frecd_cgroup_state__set_list(const struct frecd_cgroup_list *l)
{
	list_running = *l;
	if (table)
		frecd_cgroups__set_targets(table, l);
}

void frecd_cgroup_state__bpf_opts(struct frecd_bpf_opts *b)
{
	if (!started)
		return;
	b->cgroup_mode = fs_running.mode;
	b->cgroup_v1_ssid = fs_running.ssid >= 0 ? (__u32)fs_running.ssid : 0;
	b->cgroups = list_running.f;
	b->ncgroups = list_running.n;
}

void frecd_cgroup_state__probe_opts(struct frec_probes_attach_opts *p,
				    const struct frecd_bpf *bpf)
{
	frecd_bpf__cgroup_mode(bpf, &p->cgroup_mode, &p->cgroup_v1_ssid);
	p->filter_cgroups = list_running.n > 0;
	p->pid_filter_fd = frecd_bpf__pid_filter_fd(bpf);
	p->cgroup_filter_fd = frecd_bpf__cgroup_filter_fd(bpf);
}

void frecd_cgroup_state__summary(struct frec_config_summary *c)
{
	size_t i;

	memset(c->cgroup_hierarchy, 0, sizeof(c->cgroup_hierarchy));
	memset(c->cgroups, 0, sizeof(c->cgroups));
	c->flags &= ~FREC_CFG_CGROUPS;
	c->ncgroups = list_running.n;
	for (i = 0; i < list_running.n && i < sizeof(c->cgroups) / sizeof(c->cgroups[0]); i++)
		snprintf(c->cgroups[i], sizeof(c->cgroups[i]), "%s", list_running.path[i]);
	if (!started || fs_running.mode == FREC_CGROUP_NONE)
		return;
	snprintf(c->cgroup_hierarchy, sizeof(c->cgroup_hierarchy), "%s", fs_running.hierarchy);
	c->flags |= FREC_CFG_CGROUPS;
}

const char *frecd_cgroup_state__filter_words(size_t npids)
{
	if (list_running.n)
		return npids ? "filtered by -p and --cgroup" : "filtered by --cgroup";
	return npids ? "filtered by -p" : "all processes";
}
