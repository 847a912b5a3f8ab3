// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "frecd/config.h"

struct config_line {
	const char *key;
	const char *value;
	unsigned int line;
};

struct frecd_config {
	char *path;
	char *text;		/* the file, NUL-terminated lines */
	struct config_line *lines;
	size_t n;
};

/* Lines quoted in a message are cut to this. */
#define QUOTE_MAX	60

void frecd_config__free(struct frecd_config *c)
{
	if (!c)
		return;
	free(c->path);
	free(c->text);
	free(c->lines);
	free(c);
}

const char *frecd_config__path(const struct frecd_config *c)
{
	return c ? c->path : NULL;
}

static char *trim(char *s, char *end)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		end--;
	*end = '\0';
	return s;
}

/*
 * The option parser names the option as on the command line ("--window 'x':
 * ...", "-p 'x': ..."); in the file it is a key: say "window 'x': ...".
 * The fix part keeps its --option form, which is still the right value.
 */
static void key_message(const char *key, const char *msg, char *out, size_t outlen)
{
	char opt[64];
	size_t n;

	if (!strcmp(key, "pid"))
		snprintf(opt, sizeof(opt), "-p");
	else if (!strcmp(key, "output"))
		snprintf(opt, sizeof(opt), "-o");
	else
		snprintf(opt, sizeof(opt), "--%s", key);
	n = strlen(opt);
	if (!strncmp(msg, opt, n) && msg[n] == ' ')
		snprintf(out, outlen, "%s%s", key, msg + n);
	else
		snprintf(out, outlen, "%s", msg);
}

static int add_line(struct frecd_config *c, size_t *cap, const char *key, const char *value,
		    unsigned int line)
{
	struct config_line *l;

	if (c->n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		l = realloc(c->lines, *cap * sizeof(*l));
		if (!l)
			return -ENOMEM;
		c->lines = l;
	}
	c->lines[c->n++] = (struct config_line){ .key = key, .value = value, .line = line };
	return 0;
}

int frecd_config__parse(const char *name, const char *text, size_t len,
			struct frecd_options *o, struct frecd_config **cfgp,
			char *err, size_t errlen)
{
	struct frecd_config *c;
	char msg[512], *p, *end, *eol, *eq, *key, *value;
	unsigned int line = 0;
	size_t cap = 0;
	int ret = 0;

	*cfgp = NULL;
	c = calloc(1, sizeof(*c));
	if (!c || !(c->path = strdup(name)) || !(c->text = malloc(len + 1))) {
		frecd_config__free(c);
		snprintf(err, errlen, "%s: out of memory", name);
		return -ENOMEM;
	}
	memcpy(c->text, text, len);
	c->text[len] = '\0';
	end = c->text + len;
	for (p = c->text; p < end; p = eol + 1) {
		line++;
		eol = memchr(p, '\n', end - p);
		if (!eol)
			eol = end;
		if (memchr(p, '\0', eol - p)) {
			snprintf(err, errlen, "%s:%u: a NUL byte; the file must be text", name, line);
			ret = -EINVAL;
			goto fail;
		}
		p = trim(p, eol);
		if (!*p || *p == '#')
			continue;
		eq = strchr(p, '=');
		if (!eq) {
			snprintf(err, errlen, "%s:%u: expected 'key = value', got '%.*s%s'", name, line,
				 QUOTE_MAX, p, strlen(p) > QUOTE_MAX ? "..." : "");
			ret = -EINVAL;
			goto fail;
		}
		key = trim(p, eq);
		value = trim(eq + 1, eq + 1 + strlen(eq + 1));
		if (!*key) {
			snprintf(err, errlen, "%s:%u: no key before '='; write key = value", name, line);
			ret = -EINVAL;
			goto fail;
		}
		if (!*value) {
			snprintf(err, errlen, "%s:%u: %s: no value; write %s = VALUE or remove the line",
				 name, line, key, key);
			ret = -EINVAL;
			goto fail;
		}
		ret = frecd_options__set(o, key, value, msg, sizeof(msg));
		if (ret) {
			char keyed[512];

			key_message(key, msg, keyed, sizeof(keyed));
			snprintf(err, errlen, "%s:%u: %s", name, line, keyed);
			goto fail;
		}
		ret = add_line(c, &cap, key, value, line);
		if (ret) {
			snprintf(err, errlen, "%s: out of memory", name);
			goto fail;
		}
	}
	*cfgp = c;
	return 0;
fail:
	frecd_config__free(c);
	return ret;
}

int frecd_config__read(const char *path, bool must_exist, struct frecd_options *o,
		       struct frecd_config **cfgp, char *err, size_t errlen)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	ssize_t n;
	int fd, ret;

	*cfgp = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		ret = -errno;
		if (ret == -ENOENT && !must_exist)
			return 0;
		snprintf(err, errlen, "--config %s: %s; give a readable configuration file",
			 path, strerror(-ret));
		return ret;
	}
	if (fstat(fd, &st)) {
		ret = -errno;
		snprintf(err, errlen, "--config %s: %s", path, strerror(-ret));
		goto out;
	}
	/* --config /dev/null: no file, and no default file either. */
	if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3)) {
		ret = frecd_config__parse(path, "", 0, o, cfgp, err, errlen);
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = -EINVAL;
		snprintf(err, errlen, "--config %s: not a regular file; give a configuration file",
			 path);
		goto out;
	}
	/* It says what frecd, as root, attaches to and where it writes. */
	if ((st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		ret = -EPERM;
		snprintf(err, errlen,
			 "--config %s: others may change it (owner uid %u, mode %04o); make it root's and not writable by group or others: chown root %s; chmod go-w %s",
			 path, (unsigned int)st.st_uid, (unsigned int)(st.st_mode & 07777), path, path);
		goto out;
	}
	if (st.st_size > FRECD_CONFIG_MAX_BYTES) {
		ret = -EFBIG;
		snprintf(err, errlen, "--config %s: %lld bytes, larger than a configuration can be (%u); check the file",
			 path, (long long)st.st_size, FRECD_CONFIG_MAX_BYTES);
		goto out;
	}
	buf = malloc(FRECD_CONFIG_MAX_BYTES + 1);
	if (!buf) {
		ret = -ENOMEM;
		snprintf(err, errlen, "--config %s: out of memory", path);
		goto out;
	}
	/* Read to the end, not st_size: the file may change meanwhile. */
	while ((n = read(fd, buf + len, FRECD_CONFIG_MAX_BYTES + 1 - len)) > 0) {
		len += n;
		if (len > FRECD_CONFIG_MAX_BYTES)
			break;
	}
	if (n < 0) {
		ret = -errno;
		snprintf(err, errlen, "--config %s: %s", path, strerror(-ret));
		goto out;
	}
	if (len > FRECD_CONFIG_MAX_BYTES) {
		ret = -EFBIG;
		snprintf(err, errlen, "--config %s: larger than a configuration can be (%u bytes); check the file",
			 path, FRECD_CONFIG_MAX_BYTES);
		goto out;
	}
	ret = frecd_config__parse(path, buf, len, o, cfgp, err, errlen);
out:
	free(buf);
	close(fd);
	return ret;
}

int frecd_config__load_options(struct frecd_options *o, struct frecd_config **cfgp,
			       int argc, char **argv, char *err, size_t errlen)
{
	struct frecd_options first;
	const char *path;
	int ret;

	*cfgp = NULL;
	/* First pass: which file, and whether to read one at all. */
	frecd_options__init(&first);
	ret = frecd_options__parse(&first, argc, argv, err, errlen);
	if (ret || first.help || first.version) {
		*o = first;
		return ret;
	}
	frecd_options__init(o);
	path = first.config_path ? first.config_path : FRECD_DEFAULT_CONFIG;
	ret = frecd_config__read(path, first.config_path != NULL, o, cfgp, err, errlen);
	if (ret)
		return ret;
	ret = frecd_options__parse(o, argc, argv, err, errlen);
	if (!ret) {
		/* Across options, now that the file's and argv's are all in. */
		char msg[512], where[PATH_MAX + 32];
		const char *bad;

		ret = frecd_options__check(o, &bad, msg, sizeof(msg));
		if (ret)
			snprintf(err, errlen, "%s%s",
				 bad ? frecd_config__where(*cfgp, bad, where, sizeof(where)) : "", msg);
	}
	if (ret) {
		frecd_config__free(*cfgp);
		*cfgp = NULL;
	}
	return ret;
}

const char *frecd_config__where(const struct frecd_config *c, const char *value,
				char *buf, size_t len)
{
	size_t i;

	for (i = 0; c && i < c->n; i++)
		if (c->lines[i].value == value) {
			snprintf(buf, len, "%s:%u: ", c->path, c->lines[i].line);
			return buf;
		}
	return "";
}

const char *frecd_config__where_pid(const struct frecd_config *c, __u32 pid,
				    char *buf, size_t len)
{
	char *end;
	size_t i;

	for (i = 0; c && i < c->n; i++)
		if (!strcmp(c->lines[i].key, "pid") &&
		    strtoul(c->lines[i].value, &end, 10) == pid && !*end) {
			snprintf(buf, len, "%s:%u: ", c->path, c->lines[i].line);
			return buf;
		}
	return "";
}
