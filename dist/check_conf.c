// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * check_conf FILE: the example configuration, with every commented-out
 * "#key = value" line enabled, parses, and every single-valued key gives
 * frecd's own default. So the example cannot show a default that is not
 * one, or a key or value frecd refuses. Run by `make lint-man`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "frecd/config.h"
#include "frecd/options.h"

#define MAX_TEXT	(64 * 1024)

/* "#key = value" -> "key = value"; prose comments stay comments. */
static size_t enable_keys(char *text, size_t len)
{
	char *out = text, *p = text, *end = text + len, *eol;

	for (; p < end; p = eol + 1) {
		eol = memchr(p, '\n', end - p);
		if (!eol)
			eol = end;
		if (p[0] == '#' && p + 1 < eol && p[1] >= 'a' && p[1] <= 'z' && memchr(p, '=', eol - p))
			p++;
		memmove(out, p, eol - p);
		out += eol - p;
		if (eol < end)
			*out++ = '\n';
	}
	return out - text;
}

#define SAME(field) do { \
	if (o.field != d.field) { \
		fprintf(stderr, "%s: " #field " is not frecd's default\n", path); \
		bad = 1; \
	} \
} while (0)

int main(int argc, char **argv)
{
	static char text[MAX_TEXT];
	struct frecd_options o, d;
	struct frecd_config *cfg;
	const char *path;
	char err[512];
	size_t len;
	FILE *f;
	int bad = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: check_conf FILE\n");
		return 2;
	}
	path = argv[1];
	f = fopen(path, "r");
	if (!f) {
		perror(path);
		return 1;
	}
	len = fread(text, 1, sizeof(text), f);
	fclose(f);
	len = enable_keys(text, len);

	frecd_options__init(&d);
	frecd_options__init(&o);
	if (frecd_config__parse(path, text, len, &o, &cfg, err, sizeof(err))) {
		fprintf(stderr, "%s (with its keys uncommented): %s\n", path, err);
		return 1;
	}
	if (strcmp(o.output_dir, d.output_dir) || strcmp(o.socket_path, d.socket_path)) {
		fprintf(stderr, "%s: output or socket is not frecd's default\n", path);
		bad = 1;
	}
	SAME(window_ns);
	SAME(max_bytes);
	SAME(period_ns);
	SAME(ring_bytes);
	SAME(probe_args);
	SAME(wakeup);
	SAME(attach);
	SAME(keep);
	SAME(keep_bytes);
	SAME(verbose);
	SAME(on_snapshot_timeout_ns);
	/* pid, probe and btf have no default value to show: one example each */
	if (o.npids != 1 || o.nprobes != 1 || !o.btf_path) {
		fprintf(stderr, "%s: expected one example pid, probe and btf line\n", path);
		bad = 1;
	}
	frecd_config__free(cfg);
	return bad;
}
