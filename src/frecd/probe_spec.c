// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frecd/probe_spec.h"

static const struct {
	const char *name;
	enum probe_spec_kind kind;
} kinds[] = {
	{ "uprobe", PROBE_SPEC_UPROBE },
	{ "u", PROBE_SPEC_UPROBE },
	{ "uretprobe", PROBE_SPEC_URETPROBE },
	{ "ur", PROBE_SPEC_URETPROBE },
	{ "usdt", PROBE_SPEC_USDT },
	{ "U", PROBE_SPEC_USDT },
	{ "func", PROBE_SPEC_FUNC },
	{ "f", PROBE_SPEC_FUNC },
};

const char *probe_spec_kind__name(enum probe_spec_kind kind)
{
	switch (kind) {
	case PROBE_SPEC_UPROBE: return "uprobe";
	case PROBE_SPEC_URETPROBE: return "uretprobe";
	case PROBE_SPEC_USDT: return "usdt";
	case PROBE_SPEC_FUNC: return "func";
	}
	return "?";
}

/* A whole string as an unsigned number, decimal or 0x hex. */
static int parse_u64(const char *s, __u64 *v)
{
	char *end;

	if (!*s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end ? -EINVAL : 0;
}

static int has_space(const char *s)
{
	for (; *s; s++)
		if (isspace((unsigned char)*s))
			return 1;
	return 0;
}

#define fail(...) do { snprintf(err, errlen, __VA_ARGS__); ret = -EINVAL; goto err_out; } while (0)

/* uprobe/uretprobe/func: PATH:FUNC[+OFFSET]. The last ':' ends PATH, so a
 * PATH may itself hold colons. */
static int parse_func(const char *spec, char *rest, struct probe_spec *ps, char *err, size_t errlen)
{
	const char *kind = probe_spec_kind__name(ps->kind);
	char *colon = strrchr(rest, ':'), *plus;
	int ret = 0;

	if (!colon)
		fail("probe '%s': no function: write %s:PATH:FUNC", spec, kind);
	*colon = '\0';
	ps->path = rest;
	ps->func = colon + 1;
	if (!*ps->path)
		fail("probe '%s': empty PATH: write %s:PATH:FUNC with a file or a library name", spec, kind);
	plus = strchr(colon + 1, '+');
	if (plus) {
		*plus = '\0';
		if (parse_u64(plus + 1, &ps->offset))
			fail("probe '%s': bad offset '+%s': write +N or +0xN", spec, plus + 1);
		ps->has_offset = 1;
	}
	if (!*ps->func && !ps->has_offset)
		fail("probe '%s': empty FUNC: write %s:PATH:FUNC", spec, kind);
	if (has_space(ps->func))
		fail("probe '%s': FUNC '%s' has a space in it: quote the spec, without spaces", spec, ps->func);
	/* A bare number is an address (bpftrace's uprobe:PATH:0x1234): the way
	 * to probe a stripped file. */
	if (!ps->has_offset && isdigit((unsigned char)*ps->func)) {
		if (parse_u64(ps->func, &ps->offset))
			fail("probe '%s': FUNC '%s' is neither a name nor an address: write a symbol name or 0xADDRESS",
			     spec, ps->func);
		ps->func = "";
		ps->has_offset = 1;
	} else if (ps->has_offset && *ps->func && isdigit((unsigned char)*ps->func)) {
		fail("probe '%s': '%s+...' is an address plus an offset: write one address", spec, ps->func);
	}
	if (ps->has_offset && *ps->func && ps->kind != PROBE_SPEC_UPROBE)
		fail("probe '%s': %s attaches at the function's entry and return: drop +%s or use uprobe:",
		     spec, kind, plus + 1);
	if (ps->kind != PROBE_SPEC_UPROBE && !*ps->func)
		fail("probe '%s': a return probe needs a function, not an address: write %s:PATH:FUNC",
		     spec, kind);
	return 0;
err_out:
	return ret;
}

static int parse_usdt(const char *spec, char *rest, struct probe_spec *ps, char *err, size_t errlen)
{
	char *c2 = strrchr(rest, ':'), *c1;
	int ret = 0;

	if (!c2)
		fail("probe '%s': no PROVIDER:NAME: write usdt:PATH:PROVIDER:NAME", spec);
	*c2 = '\0';
	c1 = strrchr(rest, ':');
	if (!c1)
		fail("probe '%s': no PROVIDER: write usdt:PATH:PROVIDER:NAME", spec);
	*c1 = '\0';
	ps->path = rest;
	ps->provider = c1 + 1;
	ps->name = c2 + 1;
	if (!*ps->path || !*ps->provider || !*ps->name)
		fail("probe '%s': empty PATH, PROVIDER or NAME: write usdt:PATH:PROVIDER:NAME", spec);
	return 0;
err_out:
	return ret;
}

int probe_spec__parse(const char *spec, struct probe_spec *ps, char *err, size_t errlen)
{
	char *colon;
	size_t i;
	int ret = 0;

	memset(ps, 0, sizeof(*ps));
	ps->buf_ = strdup(spec);
	if (!ps->buf_) {
		snprintf(err, errlen, "probe '%s': out of memory", spec);
		return -ENOMEM;
	}
	colon = strchr(ps->buf_, ':');
	if (!colon)
		fail("probe '%s': no probe kind: write uprobe:PATH:FUNC, uretprobe:PATH:FUNC, "
		     "func:PATH:FUNC or usdt:PATH:PROVIDER:NAME", spec);
	*colon = '\0';
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(ps->buf_, kinds[i].name))
			ps->kind = kinds[i].kind;
	if (!ps->kind)
		fail("probe '%s': unknown probe kind '%s': use uprobe:, uretprobe:, func: or usdt:",
		     spec, ps->buf_);
	if (ps->kind == PROBE_SPEC_USDT)
		ret = parse_usdt(spec, colon + 1, ps, err, errlen);
	else
		ret = parse_func(spec, colon + 1, ps, err, errlen);
	if (ret)
		goto err_out;
	return 0;
err_out:
	probe_spec__free(ps);
	return ret;
}

void probe_spec__free(struct probe_spec *ps)
{
	free(ps->buf_);
	memset(ps, 0, sizeof(*ps));
}
