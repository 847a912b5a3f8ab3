// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/utsname.h>
#include "frecd/kversion.h"

#define NOTE_ALIGN(n)	(((n) + 3u) & ~3u)

/*
 * The kernel's own LINUX_VERSION_CODE, from the "Linux" note (type 0) the
 * kernel puts in the vDSO it maps into every process: the true sublevel even
 * where the release string is a distribution's ABI name ("6.1.0-28-amd64").
 * The vDSO is mapped as one image from its ELF header on, so file offsets
 * are offsets from that header.
 */
static __u32 vdso_version(void)
{
	const char *base = (const char *)getauxval(AT_SYSINFO_EHDR);
	const ElfW(Ehdr) *eh = (const void *)base;
	const ElfW(Phdr) *ph;
	int i;

	if (!base || memcmp(eh->e_ident, ELFMAG, SELFMAG))
		return 0;
	ph = (const void *)(base + eh->e_phoff);
	for (i = 0; i < eh->e_phnum; i++) {
		const char *p = base + ph[i].p_offset, *end = p + ph[i].p_filesz;

		if (ph[i].p_type != PT_NOTE)
			continue;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *n = (const void *)p;
			const char *name = p + sizeof(*n);
			const char *desc = name + NOTE_ALIGN(n->n_namesz);
			__u32 v;

			if (desc + NOTE_ALIGN(n->n_descsz) > end)
				break;
			if (n->n_type == 0 && n->n_namesz == sizeof("Linux") &&
			    !memcmp(name, "Linux", sizeof("Linux")) && n->n_descsz >= sizeof(v)) {
				memcpy(&v, desc, sizeof(v));
				return v;
			}
			p = desc + NOTE_ALIGN(n->n_descsz);
		}
	}
	return 0;
}

__u32 frecd_kversion__get(void)
{
	unsigned int a, b, c = 0;
	struct utsname u;
	__u32 v = vdso_version();

	if (v)
		return v;
	/* no vDSO (vdso=0 on the command line): the release string */
	if (uname(&u) || sscanf(u.release, "%u.%u.%u", &a, &b, &c) < 2)
		return 0;
	return (a << 16) + (b << 8) + (c > 255 ? 255 : c);
}
