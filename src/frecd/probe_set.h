/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Inside struct frec_probes: shared by probes.c (specs, validation, table)
 * and probe_attach.c (BPF load and attach). Not for frecd's other files.
 *
 * Threads: as probes.h.
 */
#ifndef FREC_PROBE_SET_H
#define FREC_PROBE_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "frecd/probes.h"

/* Hex of a GNU build-id; they are 20 bytes in practice, up to 64 here. */
#define PROBE_BUILD_ID_LEN (2 * 64 + 1)

/* Default for --probe-args until attach says otherwise. */
#define PROBE_DEFAULT_NARGS 3

/* One probe id: what the table shows plus what attaching needs. */
struct probe_entry {
	char *name;		/* the spec as written */
	char *path;		/* for the table: canonical, or /proc/PID/root/... as given */
	char *func;		/* FUNC, "0xADDR" or "provider:name" */
	char *provider;		/* usdt */
	char *usdt_name;	/* usdt */
	char build_id[PROBE_BUILD_ID_LEN];
	__u32 kind;		/* enum frec_probe_kind */
	__u64 offset;		/* within func, as the user wrote it */
	__u64 file_off;		/* uprobe/uretprobe: where in the file to attach */
	__u32 usdt_nargs;	/* arguments the note describes */
	/* The file validated, open since (probe_path.h): attached through
	 * attach_path, /proc/self/fd/N, once it still shows (dev, ino). The
	 * entries of one file share one fd, which the first of them owns. */
	int fd;
	bool owns_fd;
	dev_t dev;
	ino_t ino;
	char attach_path[32];
};

struct probe_bpf;
struct bpf_link;

struct frec_probes {
	struct probe_entry *ents;	/* ents[i] has id i + 1 */
	struct frec_probe_info *infos;	/* the table, parallel to ents */
	size_t n, cap;
	__u32 nargs;			/* recorded at uprobe entry */

	const __u32 *pids;		/* -p, for library names; NULL: the host's */
	size_t npids;

	struct probe_bpf *skel;		/* NULL while not attached */
	struct bpf_link **links;
	/* Without BPF cookies (probe_attach.c) a uprobe's or uretprobe's
	 * attach is a perf event fd, pfds[i], with links[i] NULL; -1 else. */
	int *pfds;
	size_t nlinks;
};

/* Refresh infos[] from ents[] (pointers into ents, nargs). */
void probe_set__sync_table(struct frec_probes *p);
/* p is no longer frec_probes__current() (it is being freed). */
void probe_set__forget(struct frec_probes *p);

#endif /* FREC_PROBE_SET_H */
