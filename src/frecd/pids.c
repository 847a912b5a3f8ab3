// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <frec/snapshot.h>
#include "frecd/config.h"
#include "frecd/hostview.h"
#include "frecd/log.h"
#include "frecd/pids.h"
#include "frecd/proc.h"

int frecd_pids__resolve(const __u32 *pids, size_t npids, const struct frecd_config *cfg,
			const char *cli, __u32 *tgids, size_t *ntgids, char *err, size_t errlen)
{
	char buf[PATH_MAX + 32];
	const char *where;
	size_t i, j, n = 0;
	__u32 tgid = 0;	/* read only on success; for the compiler, which cannot see it */
	int ret;

	for (i = 0; i < npids; i++) {
		ret = frecd_proc__tgid_of(pids[i], &tgid);
		if (ret) {
			/* From the configuration file: its name and line. */
			where = frecd_config__where_pid(cfg, pids[i], buf, sizeof(buf));
			snprintf(err, errlen, "%s%s %u: %s; check the pid with ps", where,
				 where[0] ? "pid" : cli, pids[i],
				 ret == -ESRCH ? "no such process" : strerror(-ret));
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

int frecd_pids__resolve_host(const struct frecd_hostview *hv, const __u32 *pids, size_t npids,
			     const struct frecd_config *cfg, const char *cli, __u32 *tgids,
			     size_t *ntgids, char *err, size_t errlen)
{
	size_t i, j, n = 0;

	if (!hv || hv->proc_host)
		return frecd_pids__resolve(pids, npids, cfg, cli, tgids, ntgids, err, errlen);
	for (i = 0; i < npids; i++) {
		for (j = 0; j < n && tgids[j] != pids[i]; j++)
			;
		if (j < n)
			continue;
		log_warn("%s %u: frecd's /proc shows its own pid namespace: %u is taken as a host process id, unchecked",
			 cli, pids[i], pids[i]);
		tgids[n++] = pids[i];
	}
	*ntgids = n;
	return 0;
}

bool frecd_pids__same(const __u32 *a, size_t na, const __u32 *b, size_t nb)
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

void frecd_pids__summarize(struct frec_config_summary *c, const __u32 *tgids, size_t ntgids)
{
	size_t i;

	c->npids = ntgids;
	memset(c->pids, 0, sizeof(c->pids));
	for (i = 0; i < ntgids && i < sizeof(c->pids) / sizeof(c->pids[0]); i++)
		c->pids[i] = tgids[i];
}
