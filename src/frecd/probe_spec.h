/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The syntax of one --probe SPEC, bpftrace's plus "func:":
 *   uprobe:PATH:FUNC[+OFFSET]   (also u:)   entry, or OFFSET bytes into FUNC
 *   uprobe:PATH:ADDRESS                     0x..., or +ADDRESS: for stripped files
 *   uretprobe:PATH:FUNC         (also ur:)  return
 *   usdt:PATH:PROVIDER:NAME     (also U:)   a SystemTap SDT probe
 *   func:PATH:FUNC              (also f:)   entry and return, for latency
 * Only the text is checked here; probes.c resolves PATH and checks the file.
 *
 * Threads: pure parsing, any thread.
 */
#ifndef FREC_PROBE_SPEC_H
#define FREC_PROBE_SPEC_H

#include <stddef.h>
#include <linux/types.h>

enum probe_spec_kind {
	PROBE_SPEC_UPROBE = 1,
	PROBE_SPEC_URETPROBE,
	PROBE_SPEC_USDT,
	PROBE_SPEC_FUNC,
};

struct probe_spec {
	enum probe_spec_kind kind;
	const char *path;	/* as written: absolute, relative or a library name */
	const char *func;	/* uprobe/uretprobe/func; "" for an address */
	const char *provider;	/* usdt */
	const char *name;	/* usdt */
	__u64 offset;		/* +OFFSET into func, or the address when func is "" */
	int has_offset;
	char *buf_;		/* the strings above point into it */
};

/* 0, or -EINVAL with "probe 'SPEC': cause: fix" in err. */
int probe_spec__parse(const char *spec, struct probe_spec *ps, char *err, size_t errlen);
void probe_spec__free(struct probe_spec *ps);

const char *probe_spec_kind__name(enum probe_spec_kind kind);

#endif /* FREC_PROBE_SPEC_H */
