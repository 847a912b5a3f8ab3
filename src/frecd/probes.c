// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --probe specs to a table of probe ids, every spec checked against its file
 * (libelf) before anything is attached, so that a typo is a usage error with
 * a precise message rather than a probe that silently never fires.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "frecd/elf_file.h"
#include "frecd/log.h"
#include "frecd/probe_path.h"
#include "frecd/probe_set.h"
#include "frecd/probe_spec.h"

/* Ids are cookies 1..FREC_MAX_PROBES-1, so an id always indexes a table of
 * FREC_MAX_PROBES entries. */
#define PROBE_MAX_ID (FREC_MAX_PROBES - 1)

/* USDT notes named in the "no such probe" message. */
#define USDT_LIST_MAX 5

struct frec_probes *frec_probes__new(void)
{
	struct frec_probes *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->nargs = PROBE_DEFAULT_NARGS;
	return p;
}

static void entry_free(struct probe_entry *e)
{
	if (e->owns_fd)
		close(e->fd);
	e->owns_fd = false;
	free(e->name);
	free(e->path);
	free(e->func);
	free(e->provider);
	free(e->usdt_name);
}

void frec_probes__free(struct frec_probes *p)
{
	size_t i;

	if (!p)
		return;
	frec_probes__detach(p);
	probe_set__forget(p);	/* current() never returns a freed set */
	for (i = 0; i < p->n; i++)
		entry_free(&p->ents[i]);
	free(p->ents);
	free(p->infos);
	free(p);
}

void frec_probes__set_pids(struct frec_probes *p, const __u32 *pids, size_t npids)
{
	p->pids = npids ? pids : NULL;
	p->npids = npids;
}

size_t frec_probes__count(const struct frec_probes *p)
{
	return p ? p->n : 0;
}

int frec_probes__find(const struct frec_probes *p, const char *spec, __u32 *entry_id,
		      __u32 *return_id)
{
	size_t i;

	for (i = 0; p && i < p->n; i++) {
		const struct probe_entry *e = &p->ents[i];

		if (strcmp(e->name, spec))
			continue;
		*entry_id = e->kind == FREC_PROBE_URETPROBE ? 0 : (__u32)(i + 1);
		*return_id = 0;
		if (e->kind == FREC_PROBE_URETPROBE)
			*return_id = (__u32)(i + 1);
		/* func: pushes its entry and its return together, same name */
		else if (e->kind == FREC_PROBE_UPROBE && i + 1 < p->n &&
			 p->ents[i + 1].kind == FREC_PROBE_URETPROBE && !strcmp(p->ents[i + 1].name, spec))
			*return_id = (__u32)(i + 2);
		return 0;
	}
	return -ENOENT;
}

void probe_set__sync_table(struct frec_probes *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		const struct probe_entry *e = &p->ents[i];
		struct frec_probe_info *in = &p->infos[i];

		in->id = (__u32)(i + 1);
		in->kind = e->kind;
		in->name = e->name;
		in->path = e->path;
		in->func = e->func;
		in->build_id = e->build_id;
		in->offset = e->offset;
		switch (e->kind) {
		case FREC_PROBE_UPROBE:
			in->nargs = p->nargs;
			break;
		case FREC_PROBE_USDT:
			in->nargs = e->usdt_nargs < FREC_MAX_PROBE_ARGS ? e->usdt_nargs
									: FREC_MAX_PROBE_ARGS;
			break;
		default:
			in->nargs = 0;
		}
	}
}

const struct frec_probe_info *frec_probes__table(const struct frec_probes *p, size_t *n)
{
	*n = p ? p->n : 0;
	return p && p->n ? p->infos : NULL;
}

/* What a spec resolved to, before it becomes one or two entries. */
struct resolved {
	struct probe_file file;		/* file.fd -1 once an entry owns it */
	char path[PATH_MAX];		/* file.path */
	char func[256];
	char build_id[PROBE_BUILD_ID_LEN];
	__u64 offset;
	__u64 file_off;
	__u32 usdt_nargs;
};

/* The errors of a /proc/PID/root/... path. */
static void in_root_error(const char *spec, const char *path, int ret, char *err, size_t errlen)
{
	__u32 pid = 0;
	const char *rest;

	probe_path__in_proc_root(path, &pid);
	rest = strchr(path + 6, '/') + 5;
	if (ret == -ENOENT)
		snprintf(err, errlen, "probe '%s': %s does not exist in pid %u's root", spec,
			 *rest ? rest : "/", pid);
	else if (ret == -ESRCH)
		snprintf(err, errlen, "probe '%s': no process %u (or it exited while %s was opened): check the pid",
			 spec, pid, path);
	else if (ret == -ENOSYS)
		snprintf(err, errlen, "probe '%s': %s: opening a file in a process's root needs openat2 (Linux 5.6)",
			 spec, path);
	else
		snprintf(err, errlen, "probe '%s': %s: %s: check the path and its permissions", spec,
			 path, strerror(-ret));
}

static int resolve_path(const struct frec_probes *p, const char *spec,
			const struct probe_spec *ps, struct resolved *r, char *err, size_t errlen)
{
	__u32 pid;
	int ret = probe_path__open(ps->path, p->pids, p->npids, &r->file);

	if (!ret) {
		memcpy(r->path, r->file.path, sizeof(r->path));
		return 0;
	}
	/* Not a regular file: libelf says why, as it did before the open. */
	if (ret == -EISDIR || ret == -EINVAL) {
		snprintf(err, errlen,
			 "probe '%s': %s is not an ELF file: give the executable or shared library "
			 "itself, not a script, a linker script or a directory", spec, ps->path);
		return -ENOEXEC;
	}
	if (probe_path__in_proc_root(ps->path, &pid))
		in_root_error(spec, ps->path, ret, err, errlen);
	else if (ret == -ENXIO && p->npids)
		snprintf(err, errlen,
			 "probe '%s': pid %u maps no library '%s': -p takes the library the first -p process has loaded; give its path instead (/proc/%u/root/PATH inside a container)",
			 spec, p->pids[0], ps->path, p->pids[0]);
	else if (ret == -ENOENT && strchr(ps->path, '/'))
		snprintf(err, errlen,
			 "probe '%s': %s does not exist: check the path (a file inside a container: give /proc/PID/root/PATH)",
			 spec, ps->path);
	else if (ret == -ENOENT && (!strncmp(ps->path, "lib", 3) || strstr(ps->path, ".so")))
		snprintf(err, errlen,
			 "probe '%s': no library '%s' in LD_LIBRARY_PATH, /etc/ld.so.cache or the "
			 "library directories: give its absolute path", spec, ps->path);
	else if (ret == -ENOENT)
		snprintf(err, errlen,
			 "probe '%s': no executable '%s' on PATH and no library of that name: "
			 "give its absolute path", spec, ps->path);
	else
		snprintf(err, errlen, "probe '%s': %s: %s: check the path and its permissions",
			 spec, ps->path, strerror(-ret));
	return ret;
}

static int open_elf(const char *spec, const struct resolved *r, struct elf_file **out,
		    char *err, size_t errlen)
{
	int e;

	*out = elf_file__open_fd(r->file.fd);
	if (*out)
		return 0;
	e = errno ? errno : EINVAL;
	if (e == ENOEXEC)
		snprintf(err, errlen,
			 "probe '%s': %s is not an ELF file: give the executable or shared library "
			 "itself, not a script, a linker script or a directory", spec, r->path);
	else if (e == EINVAL)
		snprintf(err, errlen,
			 "probe '%s': %s is an ELF file but not an executable or shared library "
			 "(an object or core file?): give the linked program or library", spec, r->path);
	else
		snprintf(err, errlen, "probe '%s': cannot open %s: %s: check its permissions",
			 spec, r->path, strerror(e));
	return -e;
}

static int resolve_func(const char *spec, const struct probe_spec *ps, const struct elf_file *ef,
			struct resolved *r, char *err, size_t errlen)
{
	struct elf_func fn;
	__u64 addr;
	int ret = -EINVAL;

	if (!*ps->func) {
		/* An address, as objdump or nm shows it. */
		addr = ps->offset;
		snprintf(r->func, sizeof(r->func), "0x%" PRIx64, (uint64_t)addr);
		r->offset = 0;
	} else {
		switch (elf_file__find_func(ef, ps->func, &fn)) {
		case ELF_FUNC_FOUND:
			break;
		case ELF_FUNC_MISSING:
			if (elf_file__has_symtab(ef))
				snprintf(err, errlen,
					 "probe '%s': no function '%s' in %s (not stripped): check the "
					 "name with nm (C++ names are mangled)",
					 spec, ps->func, r->path);
			else
				snprintf(err, errlen,
					 "probe '%s': no symbol '%s' in %s, which is stripped (dynamic "
					 "symbols only): use +OFFSET or a build with symbols (+OFFSET: "
					 "its address from a build with symbols, uprobe:PATH:+0x...)",
					 spec, ps->func, r->path);
			return -ENOENT;
		case ELF_FUNC_NOT_FUNC:
			snprintf(err, errlen, "probe '%s': '%s' in %s is data, not a function: "
				 "probe a function", spec, ps->func, r->path);
			return -EINVAL;
		case ELF_FUNC_UNDEFINED:
			snprintf(err, errlen,
				 "probe '%s': '%s' is only imported by %s, not defined there: probe "
				 "the library that defines it (see ldd), e.g. %s:libc:%s",
				 spec, ps->func, r->path, probe_spec_kind__name(ps->kind), ps->func);
			return -ENOENT;
		case ELF_FUNC_IFUNC:
			snprintf(err, errlen,
				 "probe '%s': '%s' in %s is an IFUNC resolver that runs once at load: "
				 "probe the implementation it selects (see nm -D %s)",
				 spec, ps->func, r->path, r->path);
			return -EINVAL;
		case ELF_FUNC_AMBIGUOUS:
			snprintf(err, errlen,
				 "probe '%s': %s has %d local functions named '%s': probe one by its "
				 "address (uprobe:PATH:0xADDR, from nm %s)",
				 spec, r->path, fn.count, ps->func, r->path);
			return -EINVAL;
		}
		if (ps->has_offset && fn.size && ps->offset >= fn.size) {
			snprintf(err, errlen,
				 "probe '%s': +%" PRIu64 " is beyond the end of '%s' (%" PRIu64
				 " bytes): use an offset below %" PRIu64,
				 spec, (uint64_t)ps->offset, ps->func, (uint64_t)fn.size,
				 (uint64_t)fn.size);
			return -ERANGE;
		}
		addr = fn.addr + ps->offset;
		snprintf(r->func, sizeof(r->func), "%s", ps->func);
		r->offset = ps->offset;
	}
	if (elf_file__addr_to_offset(ef, addr, &r->file_off)) {
		snprintf(err, errlen,
			 "probe '%s': address 0x%" PRIx64 " is not in an executable segment of %s: "
			 "give a code address (see objdump -d)", spec, (uint64_t)addr, r->path);
		return ret;
	}
	return 0;
}

/*
 * libbpf 1.1 reads a USDT argument only in these forms (x86-64; see
 * parse_usdt_arg() in its usdt.c): N@%reg, N@(%reg), N@OFF(%reg), N@$CONST.
 * A global passed to the probe becomes N@sym(%rip), which it refuses at
 * attach time; catch it here, where it is a usage error with a fix.
 */
static int usdt_arg_readable(const char *arg)
{
#if defined(__x86_64__)
	const char *at = strchr(arg, '@'), *p;
	char *end;

	if (!at)
		return 0;
	p = at + 1;
	if (*p == '%' || *p == '$')
		return 1;
	if (*p != '(') {
		strtol(p, &end, 10);
		if (end == p || *end != '(')
			return 0;
		p = end;
	}
	return !strncmp(p, "(%", 2) && strncmp(p, "(%rip)", 6) && strchr(p, ')');
#else
	return 1;
#endif
}

struct usdt_find {
	const char *provider, *name;
	int found;
	unsigned int nargs;
	unsigned int bad_arg;		/* 1-based, 0: every argument readable */
	char bad_text[64];
	unsigned int nnotes;		/* distinct other notes listed so far */
	char list[256];
};

static void usdt_check_args(struct usdt_find *u, const char *args)
{
	const char *p = args;
	unsigned int i = 0;

	while (*p && !u->bad_arg) {
		size_t len;
		char tok[64];

		p += strspn(p, " \t");
		len = strcspn(p, " \t");
		if (!len)
			break;
		i++;
		snprintf(tok, sizeof(tok), "%.*s", (int)len, p);
		if (!usdt_arg_readable(tok)) {
			u->bad_arg = i;
			snprintf(u->bad_text, sizeof(u->bad_text), "%s", tok);
		}
		p += len;
	}
}

static int usdt_find_cb(const struct elf_usdt_note *note, void *ctx)
{
	struct usdt_find *u = ctx;
	char item[128];
	size_t len;

	if (!strcmp(note->provider, u->provider) && !strcmp(note->name, u->name)) {
		/* Every site of the probe is attached: check them all. */
		u->found = 1;
		u->nargs = elf_usdt_args__count(note->args);
		usdt_check_args(u, note->args);
		return 0;
	}
	/* A probe placed several times (inlined, unrolled) has one note per
	 * site: list each name once. */
	snprintf(item, sizeof(item), "%s:%s", note->provider, note->name);
	len = strlen(item);
	{
		const char *s = u->list;

		while ((s = strstr(s, item))) {
			if ((s == u->list || s[-1] == ' ') && (s[len] == ',' || s[len] == '\0'))
				return 0;
			s += len;
		}
	}
	u->nnotes++;
	if (u->nnotes <= USDT_LIST_MAX) {
		size_t used = strlen(u->list);

		snprintf(u->list + used, sizeof(u->list) - used, "%s%s", used ? ", " : "", item);
	}
	return 0;
}

static int resolve_usdt(const char *spec, const struct probe_spec *ps, const struct elf_file *ef,
			struct resolved *r, char *err, size_t errlen)
{
	struct usdt_find u = { .provider = ps->provider, .name = ps->name };

	elf_file__for_each_usdt(ef, usdt_find_cb, &u);
	if (u.found && u.bad_arg) {
		snprintf(err, errlen,
			 "probe '%s': argument %u of USDT probe %s:%s is '%s', a form libbpf cannot "
			 "read (a global variable?): pass the probe a local copy of the value",
			 spec, u.bad_arg, ps->provider, ps->name, u.bad_text);
		return -EINVAL;
	}
	if (u.found) {
		snprintf(r->func, sizeof(r->func), "%s:%s", ps->provider, ps->name);
		r->usdt_nargs = u.nargs;
		return 0;
	}
	if (!u.nnotes)
		snprintf(err, errlen,
			 "probe '%s': %s has no USDT probes (no .note.stapsdt): add one with "
			 "DTRACE_PROBE from <sys/sdt.h>, or probe a function", spec, r->path);
	else
		snprintf(err, errlen,
			 "probe '%s': no USDT probe %s:%s in %s, which has %s%s: use one of those",
			 spec, ps->provider, ps->name, r->path, u.list,
			 u.nnotes > USDT_LIST_MAX ? ", ..." : "");
	return -ENOENT;
}

/* e's file: the fd of an entry on the same (dev, ino), else f's, which e
 * then owns (f->fd becomes -1). */
static void share_file(const struct frec_probes *p, struct probe_entry *e, struct probe_file *f)
{
	size_t i;

	e->dev = f->dev;
	e->ino = f->ino;
	for (i = 0; i < p->n; i++)
		if (p->ents[i].owns_fd && p->ents[i].dev == f->dev && p->ents[i].ino == f->ino)
			break;
	if (i < p->n) {
		e->fd = p->ents[i].fd;
	} else {
		e->fd = f->fd;
		e->owns_fd = true;
		f->fd = -1;
	}
	snprintf(e->attach_path, sizeof(e->attach_path), "/proc/self/fd/%d", e->fd);
}

static int push_entry(struct frec_probes *p, const char *spec, const struct probe_spec *ps,
		      struct resolved *r, __u32 kind)
{
	struct probe_entry *e;

	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 8;
		struct probe_entry *ents = realloc(p->ents, cap * sizeof(*ents));
		struct frec_probe_info *infos;

		if (!ents)
			return -ENOMEM;
		p->ents = ents;
		infos = realloc(p->infos, cap * sizeof(*infos));
		if (!infos)
			return -ENOMEM;
		p->infos = infos;
		p->cap = cap;
	}
	e = &p->ents[p->n];
	memset(e, 0, sizeof(*e));
	share_file(p, e, &r->file);
	e->kind = kind;
	e->offset = r->offset;
	e->file_off = r->file_off;
	e->usdt_nargs = r->usdt_nargs;
	memcpy(e->build_id, r->build_id, sizeof(e->build_id));
	e->name = strdup(spec);
	e->path = strdup(r->path);
	e->func = strdup(r->func);
	if (ps->kind == PROBE_SPEC_USDT) {
		e->provider = strdup(ps->provider);
		e->usdt_name = strdup(ps->name);
	}
	if (!e->name || !e->path || !e->func ||
	    (ps->kind == PROBE_SPEC_USDT && (!e->provider || !e->usdt_name))) {
		entry_free(e);
		return -ENOMEM;
	}
	p->n++;
	return 0;
}

int frec_probes__add_spec(struct frec_probes *p, const char *spec, char *err, size_t errlen)
{
	struct probe_spec ps;
	struct elf_file *ef = NULL;
	struct resolved *r;
	size_t need, n0 = p->n;
	int ret;

	if (p->skel) {
		snprintf(err, errlen, "probe '%s': probes are already attached: add specs before attaching", spec);
		return -EBUSY;
	}
	ret = probe_spec__parse(spec, &ps, err, errlen);
	if (ret)
		return ret;
	r = calloc(1, sizeof(*r));
	if (!r) {
		ret = -ENOMEM;
		snprintf(err, errlen, "probe '%s': out of memory", spec);
		goto out;
	}
	r->file.fd = -1;
	need = ps.kind == PROBE_SPEC_FUNC ? 2 : 1;
	if (p->n + need > PROBE_MAX_ID) {
		snprintf(err, errlen, "probe '%s': too many probes (at most %d ids; func: takes two): "
			 "drop some --probe options", spec, PROBE_MAX_ID);
		ret = -E2BIG;
		goto out;
	}
	ret = resolve_path(p, spec, &ps, r, err, errlen);
	if (ret)
		goto out;
	ret = open_elf(spec, r, &ef, err, errlen);
	if (ret)
		goto out;
	if (ps.kind == PROBE_SPEC_USDT)
		ret = resolve_usdt(spec, &ps, ef, r, err, errlen);
	else
		ret = resolve_func(spec, &ps, ef, r, err, errlen);
	if (ret)
		goto out;
	elf_file__build_id(ef, r->build_id, sizeof(r->build_id));

	switch (ps.kind) {
	case PROBE_SPEC_UPROBE:
		ret = push_entry(p, spec, &ps, r, FREC_PROBE_UPROBE);
		break;
	case PROBE_SPEC_URETPROBE:
		ret = push_entry(p, spec, &ps, r, FREC_PROBE_URETPROBE);
		break;
	case PROBE_SPEC_USDT:
		ret = push_entry(p, spec, &ps, r, FREC_PROBE_USDT);
		break;
	case PROBE_SPEC_FUNC:
		/* Entry and return: two ids, same path and func; the report
		 * pairs them per thread to get each call's latency. */
		ret = push_entry(p, spec, &ps, r, FREC_PROBE_UPROBE);
		if (!ret)
			ret = push_entry(p, spec, &ps, r, FREC_PROBE_URETPROBE);
		break;
	}
	if (ret) {
		/* All of this spec or none of it. */
		while (p->n > n0)
			entry_free(&p->ents[--p->n]);
		snprintf(err, errlen, "probe '%s': out of memory", spec);
		goto out;
	}
	probe_set__sync_table(p);
out:
	elf_file__close(ef);
	if (r && r->file.fd >= 0)
		close(r->file.fd);
	free(r);
	probe_spec__free(&ps);
	return ret;
}

void frec_probes__print(const struct frec_probes *p, FILE *out)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->n; i++) {
		const struct probe_entry *e = &p->ents[i];
		const struct frec_probe_info *in = &p->infos[i];

		fprintf(out, "probe %u: %s -> %s:%s", in->id, e->name, e->path, e->func);
		switch (e->kind) {
		case FREC_PROBE_UPROBE:
			fprintf(out, "+%" PRIu64 " entry (%u args)", (uint64_t)e->offset, in->nargs);
			break;
		case FREC_PROBE_URETPROBE:
			fprintf(out, " return (return value)");
			break;
		case FREC_PROBE_USDT:
			fprintf(out, " usdt (%u args)", in->nargs);
			break;
		}
		if (e->build_id[0])
			fprintf(out, " build-id %s", e->build_id);
		fputc('\n', out);
	}
}

void frec_probes__log(const struct frec_probes *probes)
{
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *f;

	if (!frec_probes__count(probes))
		return;
	f = open_memstream(&buf, &len);
	if (!f)
		return;
	frec_probes__print(probes, f);
	if (fclose(f)) {
		free(buf);
		return;
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		log_info("attached %s", line);
	free(buf);
}
