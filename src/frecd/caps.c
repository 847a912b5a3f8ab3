// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include "frecd/caps.h"

__u64 frecd_caps__effective(void)
{
	char line[256];
	__u64 caps = 0;
	FILE *f;

	f = fopen("/proc/self/status", "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapEff:", 7)) {
			caps = strtoull(line + 7, NULL, 16);
			break;
		}
	fclose(f);
	return caps;
}

bool frecd_caps__enough(__u64 caps)
{
	bool bpf_caps = (caps & (1ull << CAP_BPF)) && (caps & (1ull << CAP_PERFMON));

	return bpf_caps || (caps & (1ull << CAP_SYS_ADMIN));
}

int frecd_caps__error(char *err, size_t errlen)
{
	__u64 caps = frecd_caps__effective();
	char missing[64] = "";

	if (geteuid() != 0) {
		snprintf(err, errlen,
			 "must run as root (or with CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN) to load its BPF programs: try sudo frecd");
		return -EPERM;
	}
	if (!(caps & (1ull << CAP_BPF)))
		strcat(missing, " CAP_BPF");
	if (!(caps & (1ull << CAP_PERFMON)))
		strcat(missing, " CAP_PERFMON");
	if (!(caps & (1ull << CAP_SYS_ADMIN)))
		strcat(missing, " CAP_SYS_ADMIN");
	snprintf(err, errlen,
		 "running as root but without%s, so the kernel refuses BPF programs: give frecd CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN (e.g. AmbientCapabilities= in its unit)",
		 missing[0] ? missing : " a capability it needs");
	return -EPERM;
}
