/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * frecd's control socket (--socket, default /run/frec/frecd.sock), used by
 * `frec snapshot` and `frec status`. A unix stream socket, mode 0600 in a
 * directory frecd creates 0700 when missing; a peer whose SO_PEERCRED uid is
 * not 0 is answered "error ..." and disconnected, whatever the file modes.
 *
 * Protocol: one request per connection, one line of text, at most
 * FRECD_CONTROL_MAX_REQUEST bytes with its '\n' (a request may also end at
 * the client's shutdown(SHUT_WR) instead of the '\n'; a '\r' before the '\n'
 * is ignored):
 *
 *   snapshot [REASON]   take a snapshot and answer once it is written (or
 *                       failed); one asked for while another is being written
 *                       is merged into the next one, as for SIGUSR1, and is
 *                       answered when that one is written. REASON (at most
 *                       FRECD_CONTROL_MAX_REASON bytes) goes into the
 *                       snapshot's header as "socket: REASON" ("socket"
 *                       without one; a merged snapshot keeps the reason of
 *                       the first request merged into it).
 *   trigger NAME        fire the manual trigger NAME (--trigger manual:NAME)
 *                       as if its condition held: the thread is the
 *                       client's (SO_PEERCRED), its delay, cooldown and rate
 *                       limit apply; answered, like snapshot, with the path
 *                       once its snapshot is written (also when the firing
 *                       fell in the delay of one already pending: that one
 *                       answers); an error when no manual trigger has that
 *                       name (naming the armed ones) or its cooldown or rate
 *                       limit suppressed it
 *   status              frecd's counters, aligned text lines (src/frecd/status.h;
 *                       as of the last drain, at most FRECD_DRAIN_MS old)
 *   status json         the same as one JSON object on one line
 *
 * The answer: zero or more lines of output, then exactly one final line,
 *
 *   ok [TEXT]\n         success; for snapshot and trigger, TEXT is the file's path
 *   error TEXT\n        failure; TEXT says why and what to do
 *
 * after which frecd closes the connection. Malformed requests (control
 * characters, an unknown word, a reason that is too long), oversized ones
 * (no '\n' within the limit) and requests not complete within
 * FRECD_CONTROL_TIMEOUT_MS get an error line. At most FRECD_CONTROL_MAX_CLIENTS
 * connections are served at once; one more is told "error too many clients".
 *
 * Everything runs in frecd's event loop: non-blocking sockets in its epoll.
 *
 * Threads: the loop's thread only (the socket is one of its epoll fds).
 */
#ifndef FRECD_CONTROL_H
#define FRECD_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

#define FRECD_CONTROL_MAX_REQUEST	4096
#define FRECD_CONTROL_MAX_REASON	100
#define FRECD_CONTROL_MAX_CLIENTS	16
#define FRECD_CONTROL_TIMEOUT_MS	10000

struct frecd_control;

/* What the socket asks of the daemon. */
struct frecd_control_ops {
	/* Take a snapshot for reason ("socket: ..."): 0 and *seq, the number of
	 * the snapshot that will answer (see frecd_control__snapshot_done()), or
	 * -errno with the cause in err when none can be taken. */
	int (*snapshot)(void *ctx, const char *reason, __u64 *seq, char *err, size_t errlen);
	/* Fire manual trigger name for process pid: 0 and *id (see
	 * frecd_control__trigger_snapshot()), or -errno with the cause in err. */
	int (*trigger)(void *ctx, const char *name, __u32 pid, __u32 *id, char *err, size_t errlen);
	/* Write the status, text or JSON, to out. 0 or -errno. */
	int (*status)(void *ctx, bool json, FILE *out);
};

/*
 * Create the socket at path: its directory 0700 if missing (the parent must
 * exist), a stale socket file of an earlier frecd replaced, a live one (an
 * frecd answers there) refused. NULL with errno set and one line in err.
 */
struct frecd_control *frecd_control__new(const char *path, char *err, size_t errlen);
/* Answer the clients still waiting for a snapshot with an error, close
 * everything, remove the socket file if it is still ours. */
void frecd_control__free(struct frecd_control *c);

/*
 * Serve from the epoll epfd: the socket's tags are tag_base and the next
 * FRECD_CONTROL_MAX_CLIENTS values. 0 or -errno.
 */
int frecd_control__attach(struct frecd_control *c, int epfd, __u64 tag_base,
			  const struct frecd_control_ops *ops, void *ctx);
/* Whether tag is one of this socket's. */
bool frecd_control__owns(const struct frecd_control *c, __u64 tag);
/* epoll reported events for tag. */
void frecd_control__event(struct frecd_control *c, __u64 tag, __u32 events);
/* Snapshot seq is done: err 0 and the file's path, or -errno. Answers every
 * client waiting for it. */
void frecd_control__snapshot_done(struct frecd_control *c, __u64 seq, int err, const char *path);
/* Trigger id's snapshot was requested: 0 and seq (answered by
 * frecd_control__snapshot_done() as for snapshot), or -errno (answered now). */
void frecd_control__trigger_snapshot(struct frecd_control *c, __u32 id, int err, __u64 seq);
/* Drop clients that sent no complete request, or read no answer, in time.
 * Call every few hundred ms. */
void frecd_control__tick(struct frecd_control *c);
/* Clients connected now. */
unsigned int frecd_control__nclients(const struct frecd_control *c);

#endif /* FRECD_CONTROL_H */
