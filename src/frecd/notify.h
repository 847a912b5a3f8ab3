/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * systemd's readiness protocol (sd_notify(3)), written by hand so that frecd
 * needs no libsystemd: one datagram per message to the AF_UNIX socket named
 * by $NOTIFY_SOCKET, a path ("/run/systemd/notify") or an abstract name
 * ("@name": a leading NUL byte, no file). A message is newline-separated
 * VAR=value lines. What frecd sends (Type=notify):
 *
 *   READY=1, MAINPID=<pid>, STATUS=...   once every program is attached, and
 *                                        again after each reload
 *   STATUS=...                           every few seconds: events/s, drops
 *   RELOADING=1, MONOTONIC_USEC=<now>    on SIGHUP, before reloading
 *   STOPPING=1                           on SIGTERM/SIGINT
 *
 * Sending never blocks the event loop (MSG_DONTWAIT); a failure is logged
 * once and otherwise ignored: recording matters more than the manager.
 *
 * Threads: the loop's thread only.
 */
#ifndef FRECD_NOTIFY_H
#define FRECD_NOTIFY_H

#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <linux/types.h>

struct frecd_notify;

/*
 * Parse a NOTIFY_SOCKET value into an address. 0, or -EINVAL (neither an
 * absolute path nor "@name") / -ENAMETOOLONG.
 */
int frecd_notify__addr(const char *value, struct sockaddr_un *sa, socklen_t *salen);

/* A notifier for the socket named by value. NULL with errno set. */
struct frecd_notify *frecd_notify__new(const char *value);
/*
 * From $NOTIFY_SOCKET. NULL with errno 0 when it is not set (not run by
 * systemd); NULL with errno set when it is set but unusable (logged).
 */
struct frecd_notify *frecd_notify__from_env(void);
void frecd_notify__free(struct frecd_notify *n);

/* Send msg as one datagram. 0 or -errno; n NULL: nothing to do, 0. */
int frecd_notify__send(struct frecd_notify *n, const char *msg);

/* The messages, built here so that the unit tests see exactly what goes out.
 * Each returns the length written, or -ENOSPC when buf is too small. status
 * is one line, the text of STATUS=. */
int frecd_notify__ready_msg(char *buf, size_t len, pid_t pid, const char *status);
int frecd_notify__status_msg(char *buf, size_t len, const char *status);
int frecd_notify__reloading_msg(char *buf, size_t len, __u64 monotonic_usec);
int frecd_notify__stopping_msg(char *buf, size_t len);

/* Shorthands: build and send; 0 or -errno. */
int frecd_notify__ready(struct frecd_notify *n, const char *status);
int frecd_notify__status(struct frecd_notify *n, const char *status);
int frecd_notify__reloading(struct frecd_notify *n);
int frecd_notify__stopping(struct frecd_notify *n);

#endif /* FRECD_NOTIFY_H */
