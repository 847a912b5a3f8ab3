/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The -p filter as the BPF side holds it: -p (and `pid =` in the
 * configuration file) takes a process or any of its threads, the filter map
 * holds tgids. Used at start (main.c) and on SIGHUP (reload.c), from the
 * thread that runs them (main's, later the loop's); /proc is read, no state
 * is kept.
 */
#ifndef FRECD_PIDS_H
#define FRECD_PIDS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct frecd_config;
struct frec_config_summary;

/*
 * The tgids of pids (npids of them), each once, into tgids (room for npids).
 * 0 and *ntgids, or -errno with one line in err for the first pid that is
 * not a running process: "FILE:LINE: pid N: ..." when cfg says it came from
 * the file, "CLI N: ..." otherwise (CLI: how the caller names the option).
 */
int frecd_pids__resolve(const __u32 *pids, size_t npids, const struct frecd_config *cfg,
			const char *cli, __u32 *tgids, size_t *ntgids, char *err, size_t errlen);

/*
 * frecd_pids__resolve() as frecd's namespaces allow (hostview.h; hv NULL: on
 * the host). When frecd's /proc is not the host's, its pid N is not the
 * events' N: each pid is then taken as a host tgid, unchecked, with one
 * warning line per pid.
 */
struct frecd_hostview;
int frecd_pids__resolve_host(const struct frecd_hostview *hv, const __u32 *pids, size_t npids,
			     const struct frecd_config *cfg, const char *cli, __u32 *tgids,
			     size_t *ntgids, char *err, size_t errlen);

/* Whether a and b hold the same tgids, in any order (each once). */
bool frecd_pids__same(const __u32 *a, size_t na, const __u32 *b, size_t nb);

/* The filter as a snapshot's header says it: the number of tgids and the
 * first of them, as many as it has room for (the rest zero). */
void frecd_pids__summarize(struct frec_config_summary *c, const __u32 *tgids, size_t ntgids);

#endif /* FRECD_PIDS_H */
