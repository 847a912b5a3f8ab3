/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * frecd's configuration file (/etc/frec/frecd.conf, --config FILE): the
 * same settings as the command line, one `key = value` a line, read at start
 * and again on SIGHUP.
 *
 *   # comment (only at the start of a line: values may hold '#')
 *   window = 30
 *   max-size = 256M
 *   probe = func:/usr/bin/myapp:handle_request
 *   probe = usdt:/usr/bin/myapp:myapp:request_done
 *   pid = 1234
 *   wakeup = yes
 *
 * The keys are the long options without their dashes; pid and probe may be
 * repeated. Spaces around the key and the value are ignored; there is no
 * quoting (a value runs to the end of the line). Every value is checked by
 * the option parser, so a bad value gets the same message as on the command
 * line, prefixed with "FILE:LINE: ".
 *
 * Precedence: defaults, then the file, then the command line (which wins;
 * its -p and --probe add to the file's).
 *
 * Threads: main's thread at start, the loop's on SIGHUP (reload.c); never
 * both at once. A struct frecd_config is not shared.
 */
#ifndef FRECD_CONFIG_H
#define FRECD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "frecd/options.h"

/* Larger files are refused: a configuration is a few lines. */
#define FRECD_CONFIG_MAX_BYTES	(1u << 20)

/* The text of a file; the strings that struct frecd_options points to for
 * the file's values live here, so it must outlive those options. */
struct frecd_config;

/*
 * Parse text (len bytes, need not be NUL-terminated) named name in messages,
 * applying each line to o. 0 and *cfgp set, or -EINVAL with "NAME:LINE: what;
 * fix" in err and *cfgp NULL.
 */
int frecd_config__parse(const char *name, const char *text, size_t len,
			struct frecd_options *o, struct frecd_config **cfgp,
			char *err, size_t errlen);

/*
 * Read path and parse it into o. A missing file is an error when must_exist,
 * otherwise 0 with *cfgp NULL (no file, nothing changed). Refuses a file that
 * is not a regular file, is too large, or that someone but root and frecd's
 * own user may write (it decides what frecd, as root, attaches to).
 * /dev/null reads as an empty file: --config /dev/null means "no file".
 * 0, or -errno with one line in err.
 */
int frecd_config__read(const char *path, bool must_exist, struct frecd_options *o,
		       struct frecd_config **cfgp, char *err, size_t errlen);

/*
 * What frecd does at start and on SIGHUP: defaults, then the configuration
 * file (--config FILE from argv, else FRECD_DEFAULT_CONFIG if it exists),
 * then argv on top. With --help or --version in argv, the file is not read.
 * 0, or -errno with one line in err (a usage error: exit 2).
 */
int frecd_config__load_options(struct frecd_options *o, struct frecd_config **cfgp,
			       int argc, char **argv, char *err, size_t errlen);

void frecd_config__free(struct frecd_config *c);

/* The file's name as given, NULL for no file. */
const char *frecd_config__path(const struct frecd_config *c);

/*
 * "FILE:LINE: " when value (a string of the options, e.g. o->probes[i]) came
 * from the file, "" otherwise (the command line). For messages about a value
 * that parses but does not work (a probe whose function is missing).
 */
const char *frecd_config__where(const struct frecd_config *c, const char *value,
				char *buf, size_t len);
/* The same for a pid: the line of the first `pid = N` with this N. */
const char *frecd_config__where_pid(const struct frecd_config *c, __u32 pid,
				    char *buf, size_t len);

#endif /* FRECD_CONFIG_H */
