// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include "frecd/clock.h"
#include "frecd/control.h"
#include "frecd/log.h"

enum client_state {
	CLIENT_FREE = 0,
	CLIENT_READ,		/* reading the request line */
	CLIENT_WAIT,		/* waiting for snapshot seq */
	CLIENT_TRIGGER,		/* waiting for trigger id's snapshot to be requested */
	CLIENT_WRITE,		/* writing the answer, then close */
};

struct client {
	enum client_state state;
	int fd;
	size_t inlen;
	char in[FRECD_CONTROL_MAX_REQUEST];
	char *out;		/* the answer, malloc'd */
	size_t outlen, outoff;
	__u64 seq;		/* CLIENT_WAIT: the snapshot that answers */
	__u32 trigger;		/* CLIENT_TRIGGER: its id */
	__u32 pid;		/* SO_PEERCRED */
	__u64 deadline_ms;	/* CLIENT_READ, CLIENT_WRITE */
	__u32 gen;		/* in the epoll tag's high half: see client_tag() */
};

struct frecd_control {
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int fd;
	dev_t dev;		/* of the socket file, to remove only ours */
	ino_t ino;
	int epfd;
	__u64 tag_base;
	const struct frecd_control_ops *ops;
	void *ctx;
	struct client clients[FRECD_CONTROL_MAX_CLIENTS];
};

/* The directory of the socket: created 0700 when missing; when it exists,
 * nobody but root may be able to replace the socket in it. */
static int prepare_dir(const char *path, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	struct stat st;
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = '\0';	/* "/x.sock": the root directory */
	else
		*slash = '\0';
	if (mkdir(dir, 0700) && errno != EEXIST) {
		int ret = -errno;

		snprintf(err, errlen, "--socket %s: cannot create %s: %s; create its parent or choose another --socket",
			 path, dir, strerror(-ret));
		return ret;
	}
	if (stat(dir, &st)) {
		int ret = -errno;

		snprintf(err, errlen, "--socket %s: %s: %s", path, dir, strerror(-ret));
		return ret;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "--socket %s: %s is not a directory; choose another --socket", path, dir);
		return -ENOTDIR;
	}
	if ((st.st_uid != 0 && st.st_uid != geteuid()) ||
	    ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))) {
		snprintf(err, errlen,
			 "--socket %s: others may replace the socket in %s (owner uid %u, mode %04o); choose a directory only root can write, e.g. /run/frec",
			 path, dir, (unsigned int)st.st_uid, (unsigned int)(st.st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

/* Is an frecd (or anything) listening at path? */
static bool answers(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool live;

	if (fd < 0)
		return false;
	live = !connect(fd, (const struct sockaddr *)sa, sizeof(*sa));
	close(fd);
	return live;
}

struct frecd_control *frecd_control__new(const char *path, char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct frecd_control *c;
	struct stat st;
	mode_t old_umask;
	int ret, i;

	c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(err, errlen, "--socket %s: out of memory", path);
		return NULL;
	}
	c->fd = -1;
	c->epfd = -1;
	for (i = 0; i < FRECD_CONTROL_MAX_CLIENTS; i++)
		c->clients[i].fd = -1;
	if (strlen(path) >= sizeof(sa.sun_path) || path[0] != '/') {
		snprintf(err, errlen, "--socket %s: not an absolute path of at most %zu bytes",
			 path, sizeof(sa.sun_path) - 1);
		ret = -EINVAL;
		goto fail;
	}
	snprintf(c->path, sizeof(c->path), "%s", path);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	ret = prepare_dir(path, err, errlen);
	if (ret)
		goto fail;
	if (!lstat(path, &st)) {
		if (!S_ISSOCK(st.st_mode)) {
			snprintf(err, errlen, "--socket %s: exists and is not a socket; remove it or choose another --socket",
				 path);
			ret = -EEXIST;
			goto fail;
		}
		if (answers(&sa)) {
			snprintf(err, errlen,
				 "--socket %s: another frecd is listening there; stop it, or give this one its own --socket",
				 path);
			ret = -EADDRINUSE;
			goto fail;
		}
		/* Left by an frecd that did not stop cleanly. */
		if (unlink(path) && errno != ENOENT) {
			ret = -errno;
			snprintf(err, errlen, "--socket %s: cannot remove the stale socket: %s", path,
				 strerror(-ret));
			goto fail;
		}
	}
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "--socket %s: socket: %s", path, strerror(-ret));
		goto fail;
	}
	/* 0600 from the start: no moment in which others may connect. frecd
	 * has no other thread yet, so the process-wide umask is safe. */
	old_umask = umask(0177);
	ret = bind(c->fd, (struct sockaddr *)&sa, sizeof(sa)) ? -errno : 0;
	umask(old_umask);
	if (ret) {
		snprintf(err, errlen, "--socket %s: bind: %s; choose another --socket", path,
			 strerror(-ret));
		goto fail;
	}
	if (chmod(path, 0600) || lstat(path, &st) || listen(c->fd, FRECD_CONTROL_MAX_CLIENTS)) {
		ret = -errno;
		snprintf(err, errlen, "--socket %s: %s", path, strerror(-ret));
		unlink(path);
		goto fail;
	}
	c->dev = st.st_dev;
	c->ino = st.st_ino;
	return c;
fail:
	if (c->fd >= 0)
		close(c->fd);
	free(c);
	errno = -ret;
	return NULL;
}

/*
 * A slot's epoll tag carries the slot's generation: an event that was
 * already fetched for a connection closed meanwhile (in the same epoll_wait
 * batch) must not act on the next connection in that slot.
 */
static __u64 client_tag(const struct frecd_control *c, const struct client *cl)
{
	return (c->tag_base + 1 + (cl - c->clients)) | ((__u64)cl->gen << 32);
}

static void client_close(struct frecd_control *c, struct client *cl)
{
	__u32 gen = cl->gen + 1;

	if (cl->fd >= 0) {
		if (c->epfd >= 0)
			epoll_ctl(c->epfd, EPOLL_CTL_DEL, cl->fd, NULL);
		close(cl->fd);
	}
	free(cl->out);
	memset(cl, 0, sizeof(*cl));
	cl->fd = -1;
	cl->state = CLIENT_FREE;
	cl->gen = gen;
}

static void client_watch(struct frecd_control *c, struct client *cl, __u32 events)
{
	struct epoll_event ev = {
		.events = events,
		.data.u64 = client_tag(c, cl),
	};

	epoll_ctl(c->epfd, EPOLL_CTL_MOD, cl->fd, &ev);
}

/* Write what is left of the answer; close once it is all out. */
static void client_flush(struct frecd_control *c, struct client *cl)
{
	ssize_t n;

	while (cl->outoff < cl->outlen) {
		n = send(cl->fd, cl->out + cl->outoff, cl->outlen - cl->outoff,
			 MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			client_watch(c, cl, EPOLLOUT);
			return;
		}
		if (n <= 0)
			break;	/* the client went away: nothing to tell it */
		cl->outoff += n;
	}
	client_close(c, cl);
}

/* Answer with out (len bytes, taken over) and close. */
static void client_answer(struct frecd_control *c, struct client *cl, char *out, size_t len)
{
	free(cl->out);
	cl->out = out;
	cl->outlen = len;
	cl->outoff = 0;
	cl->state = CLIENT_WRITE;
	cl->deadline_ms = frecd_clock__mono_ms() + FRECD_CONTROL_TIMEOUT_MS;
	client_flush(c, cl);
}

__attribute__((format(printf, 3, 4)))
static void client_reply(struct frecd_control *c, struct client *cl, const char *fmt, ...)
{
	char *line = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0) {
		client_close(c, cl);
		return;
	}
	client_answer(c, cl, line, n);
}

static void handle_status(struct frecd_control *c, struct client *cl, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out;
	int ret;

	out = open_memstream(&buf, &len);
	if (!out) {
		client_reply(c, cl, "error out of memory\n");
		return;
	}
	ret = c->ops->status(c->ctx, json, out);
	if (!ret)
		fputs("ok\n", out);
	if (fclose(out) || ret) {
		free(buf);
		client_reply(c, cl, "error cannot gather the status: %s\n", strerror(ret ? -ret : EIO));
		return;
	}
	client_answer(c, cl, buf, len);
}

static void handle_snapshot(struct frecd_control *c, struct client *cl, const char *text)
{
	char reason[sizeof("socket: ") + FRECD_CONTROL_MAX_REASON], err[256];
	__u64 seq;
	int ret;

	while (*text == ' ' || *text == '\t')
		text++;
	if (strlen(text) > FRECD_CONTROL_MAX_REASON) {
		client_reply(c, cl, "error reason longer than %d bytes; give a shorter --reason\n",
			     FRECD_CONTROL_MAX_REASON);
		return;
	}
	if (*text)
		snprintf(reason, sizeof(reason), "socket: %s", text);
	else
		snprintf(reason, sizeof(reason), "socket");
	err[0] = '\0';
	ret = c->ops->snapshot(c->ctx, reason, &seq, err, sizeof(err));
	if (ret) {
		client_reply(c, cl, "error %s\n", err[0] ? err : strerror(-ret));
		return;
	}
	/* Until the answer, only a hang-up matters (always reported): the
	 * client may have shut down its writing side and still wait. */
	cl->state = CLIENT_WAIT;
	cl->seq = seq;
	client_watch(c, cl, 0);
}

static void handle_trigger(struct frecd_control *c, struct client *cl, const char *name)
{
	char err[512];
	__u32 id = 0;
	int ret;

	while (*name == ' ' || *name == '\t')
		name++;
	if (!*name) {
		client_reply(c, cl, "error trigger needs a name; send 'trigger NAME' for a --trigger manual:NAME\n");
		return;
	}
	if (!c->ops->trigger) {
		client_reply(c, cl, "error this frecd has no triggers\n");
		return;
	}
	err[0] = '\0';
	ret = c->ops->trigger(c->ctx, name, cl->pid, &id, err, sizeof(err));
	if (ret) {
		client_reply(c, cl, "error %s\n", err[0] ? err : strerror(-ret));
		return;
	}
	cl->state = CLIENT_TRIGGER;
	cl->trigger = id;
	client_watch(c, cl, 0);
}

/* A complete request line, without its '\n'. */
static void handle_request(struct frecd_control *c, struct client *cl, char *line, size_t len)
{
	const char *usage = "send 'snapshot [REASON]', 'trigger NAME', 'status' or 'status json'";
	size_t i, word;

	if (len && line[len - 1] == '\r')
		len--;
	line[len] = '\0';
	for (i = 0; i < len; i++) {
		unsigned char ch = line[i];

		if ((ch < 0x20 && ch != '\t') || ch == 0x7f) {
			client_reply(c, cl, "error malformed request: control character 0x%02x at byte %zu; %s\n",
				     ch, i + 1, usage);
			return;
		}
	}
	word = strcspn(line, " \t");
	if (word == 8 && !strncmp(line, "snapshot", 8)) {
		handle_snapshot(c, cl, line + 8);
	} else if (word == 7 && !strncmp(line, "trigger", 7)) {
		handle_trigger(c, cl, line + 7);
	} else if (!strcmp(line, "status")) {
		handle_status(c, cl, false);
	} else if (!strcmp(line, "status json")) {
		handle_status(c, cl, true);
	} else if (!len) {
		client_reply(c, cl, "error empty request; %s\n", usage);
	} else {
		/* Quote the word, not the line: it may be long. */
		client_reply(c, cl, "error unknown request '%.*s%s'; %s\n", word > 32 ? 32 : (int)word,
			     line, word > 32 ? "..." : "", usage);
	}
}

static void client_read(struct frecd_control *c, struct client *cl)
{
	char *nl;
	ssize_t n;

	for (;;) {
		if (cl->inlen == sizeof(cl->in)) {
			client_reply(c, cl, "error request longer than %d bytes; send one short line\n",
				     FRECD_CONTROL_MAX_REQUEST);
			return;
		}
		n = recv(cl->fd, cl->in + cl->inlen, sizeof(cl->in) - cl->inlen, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n < 0) {
			client_close(c, cl);
			return;
		}
		if (n == 0) {
			/* End of the request without a newline: take what came. */
			if (!cl->inlen) {
				client_close(c, cl);
				return;
			}
			if (cl->inlen == sizeof(cl->in)) {
				client_reply(c, cl, "error request longer than %d bytes; send one short line\n",
					     FRECD_CONTROL_MAX_REQUEST);
				return;
			}
			handle_request(c, cl, cl->in, cl->inlen);
			return;
		}
		nl = memchr(cl->in + cl->inlen, '\n', n);
		cl->inlen += n;
		if (nl) {
			/* One request per connection: anything after it is ignored. */
			handle_request(c, cl, cl->in, nl - cl->in);
			return;
		}
	}
}

static struct client *free_slot(struct frecd_control *c)
{
	int i;

	for (i = 0; i < FRECD_CONTROL_MAX_CLIENTS; i++)
		if (c->clients[i].state == CLIENT_FREE)
			return &c->clients[i];
	return NULL;
}

/* A refused connection gets its one line, if the socket takes it now. */
static void refuse(int fd, const char *line)
{
	if (send(fd, line, strlen(line), MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
		/* it went away, or its buffer is full: it learns from the close */
	}
	close(fd);
}

static void accept_all(struct frecd_control *c)
{
	struct epoll_event ev;
	struct client *cl;
	struct ucred cred;
	socklen_t len;
	int fd;

	for (;;) {
		fd = accept4(c->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno != EAGAIN)
				log_warn("control socket %s: accept: %s", c->path, strerror(errno));
			return;
		}
		len = sizeof(cred);
		cred.pid = 0;
		cred.uid = (uid_t)-1;
		cred.gid = (gid_t)-1;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) || cred.uid != 0) {
			log_warn("control socket: refused a connection from uid %d (pid %d): root only",
				 (int)cred.uid, (int)cred.pid);
			refuse(fd, "error permission denied: frecd's control socket is for root only; run as root (sudo)\n");
			continue;
		}
		cl = free_slot(c);
		if (!cl) {
			refuse(fd, "error too many clients; try again\n");
			continue;
		}
		cl->fd = fd;
		cl->pid = cred.pid;
		cl->state = CLIENT_READ;
		cl->inlen = 0;
		cl->deadline_ms = frecd_clock__mono_ms() + FRECD_CONTROL_TIMEOUT_MS;
		ev.events = EPOLLIN;
		ev.data.u64 = client_tag(c, cl);
		if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, fd, &ev)) {
			log_warn("control socket: epoll: %s", strerror(errno));
			cl->fd = -1;
			cl->state = CLIENT_FREE;
			close(fd);
		}
	}
}

int frecd_control__attach(struct frecd_control *c, int epfd, __u64 tag_base,
			  const struct frecd_control_ops *ops, void *ctx)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = tag_base };

	c->epfd = epfd;
	c->tag_base = tag_base;
	c->ops = ops;
	c->ctx = ctx;
	return epoll_ctl(epfd, EPOLL_CTL_ADD, c->fd, &ev) ? -errno : 0;
}

bool frecd_control__owns(const struct frecd_control *c, __u64 tag)
{
	__u64 slot = tag & 0xffffffffull;

	return c && slot >= c->tag_base && slot <= c->tag_base + FRECD_CONTROL_MAX_CLIENTS;
}

void frecd_control__event(struct frecd_control *c, __u64 tag, __u32 events)
{
	struct client *cl;

	if (tag == c->tag_base) {
		accept_all(c);
		return;
	}
	cl = &c->clients[(tag & 0xffffffffull) - c->tag_base - 1];
	if (cl->state == CLIENT_FREE || (tag >> 32) != cl->gen)
		return;	/* for a connection closed since */
	if (events & (EPOLLHUP | EPOLLERR)) {
		/* Gone; a snapshot it asked for is still written. */
		client_close(c, cl);
		return;
	}
	if (cl->state == CLIENT_READ && (events & EPOLLIN))
		client_read(c, cl);
	else if (cl->state == CLIENT_WRITE && (events & EPOLLOUT))
		client_flush(c, cl);
}

void frecd_control__snapshot_done(struct frecd_control *c, __u64 seq, int err, const char *path)
{
	int i;

	if (!c)
		return;
	for (i = 0; i < FRECD_CONTROL_MAX_CLIENTS; i++) {
		struct client *cl = &c->clients[i];

		if (cl->state != CLIENT_WAIT || cl->seq != seq)
			continue;
		if (!err)
			client_reply(c, cl, "ok %s\n", path);
		else if (err == -ECANCELED)
			client_reply(c, cl, "error frecd is stopping; the snapshot was not taken\n");
		else
			client_reply(c, cl, "error snapshot failed: %s%s%s; recording goes on\n",
				     strerror(-err), path ? ": " : "", path ? path : "");
	}
}

void frecd_control__trigger_snapshot(struct frecd_control *c, __u32 id, int err, __u64 seq)
{
	int i;

	if (!c)
		return;
	for (i = 0; i < FRECD_CONTROL_MAX_CLIENTS; i++) {
		struct client *cl = &c->clients[i];

		if (cl->state != CLIENT_TRIGGER || cl->trigger != id)
			continue;
		if (!err) {
			cl->state = CLIENT_WAIT;
			cl->seq = seq;
		} else if (err == -ECANCELED) {
			client_reply(c, cl, "error frecd is stopping; the snapshot was not taken\n");
		} else {
			client_reply(c, cl, "error snapshot failed: %s; recording goes on\n",
				     strerror(-err));
		}
	}
}

void frecd_control__tick(struct frecd_control *c)
{
	__u64 now;
	int i;

	if (!c)
		return;
	now = frecd_clock__mono_ms();
	for (i = 0; i < FRECD_CONTROL_MAX_CLIENTS; i++) {
		struct client *cl = &c->clients[i];

		if (cl->state == CLIENT_READ && now >= cl->deadline_ms)
			client_reply(c, cl, "error no complete request line within %d s; send one line ending in a newline\n",
				     FRECD_CONTROL_TIMEOUT_MS / 1000);
		else if (cl->state == CLIENT_WRITE && now >= cl->deadline_ms)
			client_close(c, cl);	/* it does not read its answer */
	}
}

unsigned int frecd_control__nclients(const struct frecd_control *c)
{
	unsigned int n = 0;
	int i;

	for (i = 0; c && i < FRECD_CONTROL_MAX_CLIENTS; i++)
		n += c->clients[i].state != CLIENT_FREE;
	return n;
}

void frecd_control__free(struct frecd_control *c)
{
	struct stat st;
	int i;

	if (!c)
		return;
	for (i = 0; i < FRECD_CONTROL_MAX_CLIENTS; i++) {
		struct client *cl = &c->clients[i];

		if (cl->state == CLIENT_WAIT || cl->state == CLIENT_TRIGGER)
			client_reply(c, cl, "error frecd stopped before the snapshot was written\n");
		/* A last non-blocking try for an answer still going out. */
		if (cl->state != CLIENT_FREE)
			client_close(c, cl);
	}
	if (c->epfd >= 0)
		epoll_ctl(c->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	/* Only our own file: another frecd may have replaced it meanwhile. */
	if (!lstat(c->path, &st) && st.st_dev == c->dev && st.st_ino == c->ino)
		unlink(c->path);
	free(c);
}
