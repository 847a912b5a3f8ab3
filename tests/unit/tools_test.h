/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Helpers for the tests of the frec command (tools/): run a subcommand on
 * streams captured in memory, read whole files, count lines and substrings,
 * cut and damage snapshot files, and run python3 or protoc on an output.
 * Header-only; include after cmocka.h.
 */
#ifndef FREC_TEST_TOOLS_H
#define FREC_TEST_TOOLS_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../../tools/tools.h"

struct captured {
	char *out;
	size_t outlen;
	char *err;
	size_t errlen;
	int status;
};

static inline void captured_free(struct captured *c)
{
	free(c->out);
	free(c->err);
	memset(c, 0, sizeof(*c));
}

/* Open the two memory streams a run writes to. */
static inline void capture_open(struct captured *c, FILE **out, FILE **err)
{
	memset(c, 0, sizeof(*c));
	*out = open_memstream(&c->out, &c->outlen);
	*err = open_memstream(&c->err, &c->errlen);
	assert_non_null(*out);
	assert_non_null(*err);
}

static inline void capture_close(FILE *out, FILE *err)
{
	fclose(out);
	fclose(err);
}

static inline struct captured run_dump(const char *path, bool json)
{
	struct frec_dump_opts o = { .json = json };
	struct captured c;
	FILE *out, *err;

	capture_open(&c, &out, &err);
	c.status = frec_dump__run(path, &o, out, err);
	capture_close(out, err);
	return c;
}

static inline struct captured run_info(const char *path, bool json)
{
	struct frec_info_opts o = { .json = json };
	struct captured c;
	FILE *out, *err;

	capture_open(&c, &out, &err);
	c.status = frec_info__run(path, &o, out, err);
	capture_close(out, err);
	return c;
}

static inline struct captured run_report(const char *path, const struct frec_report_opts *o)
{
	struct captured c;
	FILE *out, *err;

	capture_open(&c, &out, &err);
	c.status = frec_report__run(path, o, out, err);
	capture_close(out, err);
	return c;
}

/* Export into a file (binary output, possibly large). */
static inline int run_export(const char *path, enum frec_export_format fmt, bool gzip,
			     const char *outpath, struct captured *c)
{
	struct frec_export_opts o = { .format = fmt, .gzip = gzip };
	struct frec_export_stats st;
	FILE *out = fopen(outpath, "w"), *err;

	assert_non_null(out);
	memset(c, 0, sizeof(*c));
	err = open_memstream(&c->err, &c->errlen);
	assert_non_null(err);
	if (fmt == FREC_EXPORT_PERFETTO)
		c->status = frec_export_perfetto__run(path, &o, out, err, &st);
	else
		c->status = frec_export_chrome__run(path, &o, out, err, &st);
	fclose(out);
	fclose(err);
	return c->status;
}

static inline size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; s && *s; s++)
		n += *s == '\n';
	return n;
}

static inline size_t count_substr(const char *s, const char *needle)
{
	size_t n = 0, k = strlen(needle);

	while (s && (s = strstr(s, needle))) {
		n++;
		s += k;
	}
	return n;
}

/* Line i (0-based) of s, copied into buf. */
static inline const char *line_at(const char *s, size_t i, char *buf, size_t len)
{
	const char *e;

	while (i-- && s && (s = strchr(s, '\n')))
		s++;
	if (!s || !*s)
		return NULL;
	e = strchr(s, '\n');
	if (!e)
		e = s + strlen(s);
	if ((size_t)(e - s) >= len)
		e = s + len - 1;
	memcpy(buf, s, (size_t)(e - s));
	buf[e - s] = '\0';
	return buf;
}

static inline unsigned char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
	struct stat st;

	assert_non_null(f);
	assert_int_equal(fstat(fileno(f), &st), 0);
	buf = malloc((size_t)st.st_size + 1);
	assert_non_null(buf);
	*len = fread(buf, 1, (size_t)st.st_size, f);
	assert_int_equal(*len, (size_t)st.st_size);
	buf[*len] = 0;
	fclose(f);
	return buf;
}

static inline void write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

/* Offsets of the generation blocks: where the block magic occurs. */
static inline size_t block_offsets(const unsigned char *b, size_t n, size_t *offs, size_t max)
{
	static const unsigned char magic[8] = { 0xf7, 'F', 'R', 'G', 'E', 'N', '\r', '\n' };
	size_t i, k = 0;

	for (i = 0; i + sizeof(magic) <= n; i++)
		if (!memcmp(b + i, magic, sizeof(magic)) && k < max)
			offs[k++] = i;
	return k;
}

static inline bool have_program(const char *name)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", name);
	return system(cmd) == 0;
}

/* Run a shell command, capture its standard output; returns its exit status. */
static inline int run_cmd(const char *cmd, char **out, size_t *len)
{
	FILE *p = popen(cmd, "r");
	FILE *m;
	char buf[65536];
	size_t n;
	int st;

	assert_non_null(p);
	m = open_memstream(out, len);
	assert_non_null(m);
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
		fwrite(buf, 1, n, m);
	fclose(m);
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#endif /* FREC_TEST_TOOLS_H */
