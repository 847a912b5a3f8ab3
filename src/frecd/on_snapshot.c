// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include "frecd/clock.h"
#include "frecd/log.h"
#include "frecd/on_snapshot.h"
#include "frecd/options.h"

extern char **environ;

struct run {
	pid_t pid;		/* 0: slot free */
	int fd;			/* the read end of its output pipe, -1 once closed */
	__u64 start_ns, deadline_ns;
	bool killed;		/* at the timeout */
	size_t len;
	char line[FRECD_ON_SNAPSHOT_LINE];
};

struct frecd_on_snapshot {
	const struct frecd_options *running;
	int epfd;
	__u64 tag_base;
	struct run runs[FRECD_ON_SNAPSHOT_MAX];
	__u64 nruns, failures, skipped;
	bool stopping;		/* free(): runs are killed, and said so once */
};

struct frecd_on_snapshot *frecd_on_snapshot__new(const struct frecd_options *running, int epfd,
						 __u64 tag_base)
{
	struct frecd_on_snapshot *o;
	int i;

	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->running = running;
	o->epfd = epfd;
	o->tag_base = tag_base;
	for (i = 0; i < FRECD_ON_SNAPSHOT_MAX; i++)
		o->runs[i].fd = -1;
	return o;
}

static void flush_line(struct run *r)
{
	if (!r->len)
		return;
	r->line[r->len] = '\0';
	log_info("on-snapshot[%d]: %s", (int)r->pid, r->line);
	r->len = 0;
}

/* Whatever the pipe holds now, line by line; closed at its end. */
static void read_output(struct frecd_on_snapshot *o, struct run *r)
{
	char buf[4096];
	ssize_t n, i;

	while (r->fd >= 0) {
		n = read(r->fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			flush_line(r);
			epoll_ctl(o->epfd, EPOLL_CTL_DEL, r->fd, NULL);
			close(r->fd);
			r->fd = -1;
			return;
		}
		for (i = 0; i < n; i++) {
			unsigned char c = buf[i];

			if (c == '\n') {
				flush_line(r);
				continue;
			}
			/* one log line stays one line */
			r->line[r->len++] = c < 0x20 || c == 0x7f ? '?' : c;
			if (r->len == sizeof(r->line) - 1)
				flush_line(r);
		}
	}
}

/* frecd's environment with FREC_REASON=reason in place of any it has. */
static char **make_env(const char *reason, char **var)
{
	size_t n = 0, i, j = 0;
	char **env;

	while (environ && environ[n])
		n++;
	env = calloc(n + 2, sizeof(*env));
	if (!env || asprintf(var, "FREC_REASON=%s", reason) < 0) {
		free(env);
		*var = NULL;
		return NULL;
	}
	for (i = 0; i < n; i++)
		if (strncmp(environ[i], "FREC_REASON=", 12))
			env[j++] = environ[i];
	env[j++] = *var;
	env[j] = NULL;
	return env;
}

static int spawn(const char *prog, const char *path, const char *reason, int outfd, pid_t *pid)
{
	char *argv[] = { (char *)prog, (char *)path, NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	char **env, *var;
	sigset_t none, dfl;
	int ret;

	env = make_env(reason, &var);
	if (!env)
		return ENOMEM;
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	/* frecd blocks the signals its loop reads and ignores SIGPIPE: the
	 * program gets neither; and a group of its own, for the timeout's kill */
	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &dfl);
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
					POSIX_SPAWN_SETPGROUP);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, outfd, 1);
	posix_spawn_file_actions_adddup2(&fa, outfd, 2);
	ret = posix_spawn(pid, prog, &fa, &attr, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	free(env);
	free(var);
	return ret;
}

void frecd_on_snapshot__run(struct frecd_on_snapshot *o, const char *path, const char *reason)
{
	const char *prog = o && o->running ? o->running->on_snapshot : NULL;
	struct epoll_event ev = { .events = EPOLLIN };
	struct run *r = NULL;
	int fds[2], ret, i;

	if (!prog)
		return;
	for (i = 0; i < FRECD_ON_SNAPSHOT_MAX && !r; i++)
		if (!o->runs[i].pid)
			r = &o->runs[i];
	if (!r) {
		o->skipped++;
		log_warn("on-snapshot: %d runs of %s still going; not run for %s", FRECD_ON_SNAPSHOT_MAX,
			 prog, path);
		return;
	}
	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK)) {
		ret = errno;
		goto fail;
	}
	/* The child's end blocks, as output normally does. */
	fcntl(fds[1], F_SETFL, 0);
	ret = spawn(prog, path, reason, fds[1], &r->pid);
	close(fds[1]);
	if (ret) {
		close(fds[0]);
		r->pid = 0;
		goto fail;
	}
	r->fd = fds[0];
	r->len = 0;
	r->killed = false;
	r->start_ns = frecd_clock__mono_ns();
	r->deadline_ns = r->start_ns + o->running->on_snapshot_timeout_ns;
	ev.data.u64 = o->tag_base + (r - o->runs);
	if (epoll_ctl(o->epfd, EPOLL_CTL_ADD, r->fd, &ev)) {
		/* not read as it goes, then: at its exit */
		log_warn("on-snapshot[%d]: epoll: %s; its output is logged when it exits",
			 (int)r->pid, strerror(errno));
	}
	o->nruns++;
	log_info("on-snapshot[%d]: %s %s", (int)r->pid, prog, path);
	return;
fail:
	o->nruns++;
	o->failures++;
	log_error("on-snapshot: cannot run %s: %s; check --on-snapshot", prog, strerror(ret));
}

bool frecd_on_snapshot__owns(const struct frecd_on_snapshot *o, __u64 tag)
{
	return o && tag >= o->tag_base && tag < o->tag_base + FRECD_ON_SNAPSHOT_MAX;
}

void frecd_on_snapshot__event(struct frecd_on_snapshot *o, __u64 tag, __u32 events)
{
	struct run *r = &o->runs[tag - o->tag_base];

	if (r->pid && r->fd >= 0)
		read_output(o, r);
}

/* r has exited with status: log it, free the slot. */
static void finish(struct frecd_on_snapshot *o, struct run *r, int status, __u64 now)
{
	double s = (now - r->start_ns) / 1e9;

	/* What it wrote before it went; a grandchild that keeps the pipe
	 * open must not keep the slot. */
	if (r->fd >= 0) {
		read_output(o, r);
		if (r->fd >= 0) {
			flush_line(r);
			epoll_ctl(o->epfd, EPOLL_CTL_DEL, r->fd, NULL);
			close(r->fd);
			r->fd = -1;
		}
	}
	if (o->stopping) {
		/* free() said why it was killed; not the timeout */
	} else if (r->killed) {
		o->failures++;
		log_error("on-snapshot[%d]: killed after %.1f s (--on-snapshot-timeout)", (int)r->pid, s);
	} else if (WIFEXITED(status) && !WEXITSTATUS(status)) {
		log_info("on-snapshot[%d]: exited 0 after %.1f s", (int)r->pid, s);
	} else if (WIFEXITED(status)) {
		o->failures++;
		log_warn("on-snapshot[%d]: exited %d after %.1f s", (int)r->pid, WEXITSTATUS(status), s);
	} else {
		o->failures++;
		log_warn("on-snapshot[%d]: killed by %s after %.1f s", (int)r->pid,
			 strsignal(WTERMSIG(status)), s);
	}
	r->pid = 0;
}

void frecd_on_snapshot__tick(struct frecd_on_snapshot *o, __u64 now)
{
	int i, status;
	pid_t p;

	for (i = 0; o && i < FRECD_ON_SNAPSHOT_MAX; i++) {
		struct run *r = &o->runs[i];

		if (!r->pid)
			continue;
		p = waitpid(r->pid, &status, WNOHANG);
		if (p == r->pid) {
			finish(o, r, status, now);
			continue;
		}
		if (!r->killed && now >= r->deadline_ns) {
			r->killed = true;
			kill(-r->pid, SIGKILL);
		}
	}
}

void frecd_on_snapshot__stats(const struct frecd_on_snapshot *o,
			      struct frecd_on_snapshot_stats *st)
{
	int i;

	memset(st, 0, sizeof(*st));
	if (!o)
		return;
	st->runs = o->nruns;
	st->failures = o->failures;
	st->skipped = o->skipped;
	for (i = 0; i < FRECD_ON_SNAPSHOT_MAX; i++)
		st->running += o->runs[i].pid != 0;
}

void frecd_on_snapshot__free(struct frecd_on_snapshot *o)
{
	int i, status;

	if (!o)
		return;
	for (i = 0; i < FRECD_ON_SNAPSHOT_MAX; i++) {
		struct run *r = &o->runs[i];

		if (!r->pid)
			continue;
		log_warn("on-snapshot[%d]: still running as frecd stops: killed", (int)r->pid);
		kill(-r->pid, SIGKILL);
		while (waitpid(r->pid, &status, 0) < 0 && errno == EINTR)
			;
		o->stopping = true;
		finish(o, r, status, frecd_clock__mono_ns());
	}
	free(o);
}
