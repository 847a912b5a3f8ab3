// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * frec snapshot, frec trigger and frec status: one request to frecd's control socket (the
 * protocol is described in src/frecd/control.h), its answer printed. The
 * final line of the answer decides: "ok [TEXT]" exits 0, "error TEXT" prints
 * TEXT and exits 1.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include "frecd/control.h"
#include "frecd/options.h"
#include "tools.h"

#define DEFAULT_TIMEOUT_S	60
/* A status with many probes is a few tens of KiB; more is not frecd. */
#define MAX_ANSWER		(4u << 20)

static __u64 mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
}

static int connect_to(const char *cmd, const char *path, FILE *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, e;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(err, "%s: --socket %s: longer than a unix socket path may be\n", cmd, path);
		return -ENAMETOOLONG;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		e = errno;
		fprintf(err, "%s: socket: %s\n", cmd, strerror(e));
		return -e;
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		e = errno;
		if (e == EACCES || e == EPERM)
			fprintf(err, "%s: cannot connect to frecd at %s: %s; its control socket is for root: run as root (sudo)\n",
				cmd, path, strerror(e));
		else if (e == ENOENT || e == ECONNREFUSED)
			fprintf(err, "%s: cannot connect to frecd at %s: %s; is frecd running? (its --socket, if not the default, goes in --socket)\n",
				cmd, path, strerror(e));
		else
			fprintf(err, "%s: cannot connect to frecd at %s: %s\n", cmd, path, strerror(e));
		close(fd);
		return -e;
	}
	return fd;
}

/* Send request, read the whole answer (frecd closes after it). */
static int exchange(const char *cmd, int fd, const char *request, int timeout_s, char **answer,
		    size_t *len, FILE *err)
{
	size_t sent = 0, n = strlen(request), cap = 0;
	__u64 deadline = timeout_s ? mono_ms() + timeout_s * 1000ull : 0;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char *buf = NULL;
	ssize_t r;
	int wait;

	while (sent < n) {
		r = send(fd, request + sent, n - sent, MSG_NOSIGNAL);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			fprintf(err, "%s: sending the request to frecd: %s\n", cmd, strerror(errno));
			return -errno;
		}
		sent += r;
	}
	*len = 0;
	for (;;) {
		if (*len + 4096 > cap) {
			char *grown;

			cap = cap ? 2 * cap : 8192;
			if (cap > MAX_ANSWER) {
				fprintf(err, "%s: frecd's answer is longer than %u bytes\n", cmd, MAX_ANSWER);
				free(buf);
				return -E2BIG;
			}
			grown = realloc(buf, cap);
			if (!grown) {
				fprintf(err, "%s: out of memory\n", cmd);
				free(buf);
				return -ENOMEM;
			}
			buf = grown;
		}
		wait = -1;
		if (deadline) {
			__u64 now = mono_ms();

			wait = now >= deadline ? 0 : (int)(deadline - now);
		}
		r = poll(&pfd, 1, wait);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0) {
			fprintf(err, "%s: no answer from frecd within %d s (--timeout)\n", cmd, timeout_s);
			free(buf);
			return -ETIMEDOUT;
		}
		r = recv(fd, buf + *len, cap - *len - 1, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			fprintf(err, "%s: reading frecd's answer: %s\n", cmd, strerror(errno));
			free(buf);
			return -errno;
		}
		if (r == 0)
			break;
		*len += r;
	}
	buf[*len] = '\0';
	*answer = buf;
	return 0;
}

int frec_ctl__run(const char *cmd, const char *socket_path, const char *request, int timeout_s,
		  bool print_ok_text, FILE *out, FILE *err)
{
	char *answer = NULL, *last, *end;
	size_t len = 0;
	int fd, ret;

	fd = connect_to(cmd, socket_path, err);
	if (fd < 0)
		return FREC_EXIT_FAIL;
	ret = exchange(cmd, fd, request, timeout_s, &answer, &len, err);
	close(fd);
	if (ret)
		return FREC_EXIT_FAIL;
	/* The last line decides; everything before it is output. */
	end = answer + len;
	if (end > answer && end[-1] == '\n')
		*--end = '\0';
	last = memrchr(answer, '\n', end - answer);
	last = last ? last + 1 : answer;
	if (!strncmp(last, "error ", 6)) {
		fwrite(answer, 1, last - answer, out);
		fprintf(err, "%s: %s\n", cmd, last + 6);
		ret = FREC_EXIT_FAIL;
	} else if (!strcmp(last, "ok") || !strncmp(last, "ok ", 3)) {
		fwrite(answer, 1, last - answer, out);
		if (print_ok_text && last[2])
			fprintf(out, "%s\n", last + 3);
		ret = FREC_EXIT_OK;
	} else if (!len) {
		fprintf(err, "%s: frecd closed the connection without an answer\n", cmd);
		ret = FREC_EXIT_FAIL;
	} else {
		fprintf(err, "%s: not an answer frecd gives: '%.80s'\n", cmd, last);
		ret = FREC_EXIT_FAIL;
	}
	free(answer);
	if (fflush(out) && ret == FREC_EXIT_OK)
		ret = FREC_EXIT_FAIL;
	return ret;
}

/* ---- the cgroups and namespaces of the status ------------------------ */

/* The member key of the JSON object that starts at obj ('{'), its value's
 * first byte; NULL when absent. Only the object's own members count: the
 * nesting is followed and strings are skipped whole. */
static const char *json_member(const char *obj, const char *key)
{
	size_t n = strlen(key);
	int depth = 0;
	const char *p;

	for (p = obj; *p; p++) {
		if (*p == '"') {
			const char *q = p + 1;

			while (*q && *q != '"')
				q += q[0] == '\\' && q[1] ? 2 : 1;
			if (depth == 1 && (size_t)(q - p - 1) == n && !strncmp(p + 1, key, n) &&
			    q[0] == '"' && q[1] == ':')
				return q + 2;
			if (!*q)
				return NULL;
			p = q;
		} else if (*p == '{' || *p == '[') {
			depth++;
		} else if (*p == '}' || *p == ']') {
			if (--depth <= 0)
				return NULL;
		}
	}
	return NULL;
}

/* The JSON value at v as one text token: a string unquoted (its escapes
 * kept as written; frecd escapes only quotes, backslashes and control
 * characters), a number or word as is. */
static void json_token(FILE *out, const char *v)
{
	const char *q;

	if (*v != '"') {
		fprintf(out, "%.*s", (int)strcspn(v, ",}]"), v);
		return;
	}
	for (q = v + 1; *q && *q != '"'; q += q[0] == '\\' && q[1] ? 2 : 1)
		;
	fprintf(out, "%.*s", (int)(q - v - 1), v + 1);
}

/* Past the JSON string at v (its closing quote, or its end). */
static const char *json_string_end(const char *v)
{
	for (v++; *v && *v != '"'; v += v[0] == '\\' && v[1] ? 2 : 1)
		;
	return *v ? v + 1 : v;
}

static void json_member_token(FILE *out, const char *obj, const char *key, const char *dflt)
{
	const char *v = json_member(obj, key);

	if (v)
		json_token(out, v);
	else
		fputs(dflt, out);
}

int frec_status__cgroup_lines(const char *json, FILE *out)
{
	const char *cg = strstr(json, "\"cgroups\":{"), *ns = strstr(json, "\"namespaces\":{");
	const char *v;
	int lines = 0;

	if (cg) {
		cg += strlen("\"cgroups\":");
		fprintf(out, "%-13s ", "cgroups");
		json_member_token(out, cg, "hierarchy", "?");
		v = json_member(cg, "filters");
		if (v && *v == '[' && v[1] == '"') {
			fputs(", filtered by", out);
			for (v++; *v == '"'; v += *v == ',') {
				fputc(' ', out);
				json_token(out, v);
				v = json_string_end(v);
			}
		}
		fputs(": ", out);
		json_member_token(out, cg, "known", "0");
		fputs(" known, ", out);
		json_member_token(out, cg, "pending", "0");
		fputs(" pending, ", out);
		json_member_token(out, cg, "unnamed", "0");
		fputs(" unnamed; ", out);
		json_member_token(out, cg, "moves", "0");
		fputs(" moves\n", out);
		lines++;
	}
	if (ns) {
		ns += strlen("\"namespaces\":");
		fprintf(out, "%-13s pid ", "namespaces");
		json_member_token(out, ns, "pid", "?");
		fputs(" (host pid ", out);
		json_member_token(out, ns, "host_pid", "?");
		fputs("), /proc ", out);
		json_member_token(out, ns, "proc", "?");
		fputs(", cgroup ", out);
		json_member_token(out, ns, "cgroup", "?");
		fputc('\n', out);
		lines++;
	}
	return lines;
}

/* Whether text has a line that starts with label. */
static bool has_line(const char *text, const char *label)
{
	size_t n = strlen(label);
	const char *p;

	for (p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, label, n))
			return true;
	return false;
}

/*
 * frec status: frecd's text, then the cgroups and namespaces lines its
 * status JSON has (a frecd that records none has neither), unless its text
 * already has them. The JSON is a second request: its counts may be a
 * moment later than the text's.
 */
static int status_text(const char *socket_path, int timeout_s)
{
	char *text = NULL, *json = NULL;
	size_t tlen = 0, jlen = 0;
	FILE *t = open_memstream(&text, &tlen), *j;
	int rc;

	if (!t)
		return frec_ctl__run("frec status", socket_path, "status\n", timeout_s, false,
				     stdout, stderr);
	rc = frec_ctl__run("frec status", socket_path, "status\n", timeout_s, false, t, stderr);
	fclose(t);
	if (text)
		fwrite(text, 1, tlen, stdout);
	if (rc == FREC_EXIT_OK && text && !has_line(text, "cgroups ") &&
	    !has_line(text, "namespaces ") && (j = open_memstream(&json, &jlen))) {
		FILE *quiet = fopen("/dev/null", "w");

		if (frec_ctl__run("frec status", socket_path, "status json\n", timeout_s, false, j,
				  quiet ? quiet : stderr) == FREC_EXIT_OK) {
			fclose(j);
			j = NULL;
			if (json)
				frec_status__cgroup_lines(json, stdout);
		}
		if (j)
			fclose(j);
		if (quiet)
			fclose(quiet);
	}
	free(text);
	free(json);
	if (fflush(stdout) && rc == FREC_EXIT_OK)
		rc = FREC_EXIT_FAIL;
	return rc;
}

static int parse_timeout(const char *cmd, const char *arg, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (*arg < '0' || *arg > '9' || *end || errno || v > 86400) {
		fprintf(stderr, "%s: --timeout '%s': use a number of seconds from 0 (wait forever) to 86400\n",
			cmd, arg);
		return -EINVAL;
	}
	*out = (int)v;
	return 0;
}

void frec_snapshot__usage(FILE *f)
{
	fprintf(f,
		"Usage: frec snapshot [--reason TEXT] [--socket PATH] [--timeout SECONDS]\n"
		"\n"
		"Ask the running frecd for a snapshot, wait until it is written and print\n"
		"its path. A snapshot asked for while another is being written is merged\n"
		"into the next one (as for SIGUSR1); this command then waits for that one.\n"
		"Needs root: frecd's control socket is for root only.\n"
		"\n"
		"OPTIONS\n"
		"  -r, --reason TEXT    why, stored in the snapshot's header as\n"
		"                       \"socket: TEXT\" (frec info shows it); one line,\n"
		"                       at most %d bytes\n"
		"  -s, --socket PATH    frecd's control socket (default %s)\n"
		"  -t, --timeout SECS   give up after this long (default %d; 0: wait forever)\n"
		"  -h, --help           print this help\n"
		"\n"
		"EXAMPLES\n"
		"  sudo frec snapshot --reason 'p99 spike'\n"
		"  sudo frec info \"$(sudo frec snapshot)\"\n"
		"\n"
		"EXIT STATUS\n"
		"  0  the snapshot was written; its path is printed\n"
		"  1  frecd is not running or not reachable, or the snapshot failed\n"
		"     (frecd's reason is printed on stderr)\n"
		"  2  bad command line\n",
		FRECD_CONTROL_MAX_REASON, FRECD_DEFAULT_SOCKET, DEFAULT_TIMEOUT_S);
}

void frec_status__usage(FILE *f)
{
	fprintf(f,
		"Usage: frec status [--json] [--socket PATH] [--timeout SECONDS]\n"
		"\n"
		"Print what the running frecd is doing: uptime, events and events/s by\n"
		"type, events lost by CPU, the longest wait between two drains of the\n"
		"ring buffers, the window's span and bytes, memory held and its bytes\n"
		"per event, pool use, generations, snapshots written, probes with\n"
		"their hit counts, triggers with their firings, snapshots and\n"
		"suppressed firings (by delay, cooldown and rate limit), the\n"
		"--on-snapshot program's runs and failures, and, when frecd records\n"
		"cgroups, their hierarchy, --cgroup filters, the cgroups known, pending\n"
		"and unnamed and the moves seen, and the namespaces frecd runs in (pid,\n"
		"/proc, cgroup: host or own, and its pid on the host).\n"
		"Needs root: frecd's control socket is for root only.\n"
		"\n"
		"OPTIONS\n"
		"  -j, --json           one JSON object instead of text\n"
		"  -s, --socket PATH    frecd's control socket (default %s)\n"
		"  -t, --timeout SECS   give up after this long (default %d; 0: wait forever)\n"
		"  -h, --help           print this help\n"
		"\n"
		"EXAMPLES\n"
		"  sudo frec status\n"
		"  sudo frec status --json\n"
		"\n"
		"EXIT STATUS\n"
		"  0  success\n"
		"  1  frecd is not running or not reachable, or it answered with an error\n"
		"  2  bad command line\n",
		FRECD_DEFAULT_SOCKET, DEFAULT_TIMEOUT_S);
}

int cmd_snapshot(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "reason", required_argument, NULL, 'r' },
		{ "socket", required_argument, NULL, 's' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *socket_path = FRECD_DEFAULT_SOCKET, *reason = NULL;
	int timeout_s = DEFAULT_TIMEOUT_S, c;
	char request[FRECD_CONTROL_MAX_REQUEST];

	optind = 0;
	while ((c = getopt_long(argc, argv, "r:s:t:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			reason = optarg;
			break;
		case 's':
			socket_path = optarg;
			break;
		case 't':
			if (parse_timeout("frec snapshot", optarg, &timeout_s))
				return FREC_EXIT_USAGE;
			break;
		case 'h':
			frec_snapshot__usage(stdout);
			return FREC_EXIT_OK;
		default:
			fprintf(stderr, "Try 'frec snapshot --help'.\n");
			return FREC_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "frec snapshot: unexpected argument '%s'; the reason goes in --reason\n",
			argv[optind]);
		return FREC_EXIT_USAGE;
	}
	if (reason && strpbrk(reason, "\n\r")) {
		fprintf(stderr, "frec snapshot: --reason: one line of text, without newlines\n");
		return FREC_EXIT_USAGE;
	}
	if (reason && strlen(reason) > FRECD_CONTROL_MAX_REASON) {
		fprintf(stderr, "frec snapshot: --reason: %zu bytes, at most %d; shorten it\n",
			strlen(reason), FRECD_CONTROL_MAX_REASON);
		return FREC_EXIT_USAGE;
	}
	snprintf(request, sizeof(request), "snapshot%s%s\n", reason ? " " : "", reason ? reason : "");
	return frec_ctl__run("frec snapshot", socket_path, request, timeout_s, true, stdout, stderr);
}

void frec_trigger__usage(FILE *f)
{
	fprintf(f,
		"Usage: frec trigger NAME [--socket PATH] [--timeout SECONDS]\n"
		"\n"
		"Fire the running frecd's manual trigger NAME (frecd --trigger manual:NAME)\n"
		"as if its condition held, wait until its snapshot is written and print\n"
		"its path. The trigger's delay, cooldown and rate limit apply: the\n"
		"snapshot is taken its delay after the firing (default 1 s), and a\n"
		"firing in its cooldown or past its rate limit takes none (an error).\n"
		"The firing is recorded with this command's process as its thread, and\n"
		"the snapshot's reason is \"trigger NAME: tid T comm C value 0\".\n"
		"Needs root: frecd's control socket is for root only.\n"
		"\n"
		"OPTIONS\n"
		"  -s, --socket PATH    frecd's control socket (default %s)\n"
		"  -t, --timeout SECS   give up after this long (default %d; 0: wait forever)\n"
		"  -h, --help           print this help\n"
		"\n"
		"EXAMPLES\n"
		"  sudo frecd --trigger manual:oops &\n"
		"  sudo frec trigger oops\n"
		"\n"
		"EXIT STATUS\n"
		"  0  the snapshot was written; its path is printed\n"
		"  1  frecd is not running or not reachable, no manual trigger has that\n"
		"     name, it was suppressed, or the snapshot failed (frecd's reason is\n"
		"     printed on stderr)\n"
		"  2  bad command line\n",
		FRECD_DEFAULT_SOCKET, DEFAULT_TIMEOUT_S);
}

int cmd_trigger(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *socket_path = FRECD_DEFAULT_SOCKET, *name;
	int timeout_s = DEFAULT_TIMEOUT_S, c;
	char request[FRECD_CONTROL_MAX_REQUEST];
	const char *p;

	optind = 0;
	while ((c = getopt_long(argc, argv, "s:t:h", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			socket_path = optarg;
			break;
		case 't':
			if (parse_timeout("frec trigger", optarg, &timeout_s))
				return FREC_EXIT_USAGE;
			break;
		case 'h':
			frec_trigger__usage(stdout);
			return FREC_EXIT_OK;
		default:
			fprintf(stderr, "Try 'frec trigger --help'.\n");
			return FREC_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "frec trigger: which trigger? give the NAME of a --trigger manual:NAME\n");
		return FREC_EXIT_USAGE;
	}
	if (optind + 1 < argc) {
		fprintf(stderr, "frec trigger: unexpected argument '%s'; give one NAME\n",
			argv[optind + 1]);
		return FREC_EXIT_USAGE;
	}
	name = argv[optind];
	for (p = name; *p; p++)
		if ((unsigned char)*p <= 0x20 || *p == 0x7f)
			break;
	if (!*name || *p || strlen(name) > 64) {
		fprintf(stderr, "frec trigger: '%s': a trigger name is 1 to 64 characters without spaces\n",
			name);
		return FREC_EXIT_USAGE;
	}
	snprintf(request, sizeof(request), "trigger %s\n", name);
	return frec_ctl__run("frec trigger", socket_path, request, timeout_s, true, stdout, stderr);
}

int cmd_status(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "socket", required_argument, NULL, 's' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *socket_path = FRECD_DEFAULT_SOCKET;
	int timeout_s = DEFAULT_TIMEOUT_S, c;
	bool json = false;

	optind = 0;
	while ((c = getopt_long(argc, argv, "js:t:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 's':
			socket_path = optarg;
			break;
		case 't':
			if (parse_timeout("frec status", optarg, &timeout_s))
				return FREC_EXIT_USAGE;
			break;
		case 'h':
			frec_status__usage(stdout);
			return FREC_EXIT_OK;
		default:
			fprintf(stderr, "Try 'frec status --help'.\n");
			return FREC_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "frec status: unexpected argument '%s'; try 'frec status --help'\n",
			argv[optind]);
		return FREC_EXIT_USAGE;
	}
	if (!json)
		return status_text(socket_path, timeout_s);
	return frec_ctl__run("frec status", socket_path, "status json\n", timeout_s, false, stdout,
			     stderr);
}
