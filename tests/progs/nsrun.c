// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * nsrun: run a program in new namespaces, for the container tests.
 *
 *   nsrun [-p] [-m] [-c] [--proc] -- PROG ARGS...
 *     -p      a new pid namespace (PROG is its pid 1)
 *     -m      a new mount namespace, its mounts private
 *     -c      a new cgroup namespace, rooted at nsrun's cgroup
 *     --proc  mount a /proc of the new pid namespace (needs -p and -m)
 *   unshares, forks, prints "child HOSTPID" (PROG's pid as the caller sees
 *   it) on stdout, and in the child execs PROG. It passes SIGTERM, SIGINT,
 *   SIGHUP, SIGUSR1 and SIGUSR2 on to PROG and exits with its status
 *   (128 + the signal when a signal ended it).
 *
 * The child pid is printed because no kernel the tests run on has
 * /proc/PID/task/TID/children, and busybox has no pgrep.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>

static volatile pid_t child;

static void pass_on(int sig)
{
	if (child > 0)
		kill(child, sig);
}

static void usage(void)
{
	fprintf(stderr, "usage: nsrun [-p] [-m] [-c] [--proc] -- PROG ARGS...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2 };
	struct sigaction sa = { .sa_handler = pass_on };
	int flags = 0, proc = 0, i, status;
	pid_t pid;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "-p"))
			flags |= CLONE_NEWPID;
		else if (!strcmp(argv[i], "-m"))
			flags |= CLONE_NEWNS;
		else if (!strcmp(argv[i], "-c"))
			flags |= CLONE_NEWCGROUP;
		else if (!strcmp(argv[i], "--proc"))
			proc = 1;
		else
			usage();
	}
	if (i + 1 >= argc || (proc && (flags & (CLONE_NEWPID | CLONE_NEWNS)) !=
					  (CLONE_NEWPID | CLONE_NEWNS)))
		usage();
	argv += i + 1;
	if (unshare(flags)) {
		fprintf(stderr, "nsrun: unshare: %s\n", strerror(errno));
		return 1;
	}
	/* Mounts made inside stay inside. */
	if ((flags & CLONE_NEWNS) && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		fprintf(stderr, "nsrun: making / private: %s\n", strerror(errno));
		return 1;
	}
	for (i = 0; i < (int)(sizeof(sigs) / sizeof(sigs[0])); i++)
		sigaction(sigs[i], &sa, NULL);
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "nsrun: fork: %s\n", strerror(errno));
		return 1;
	}
	if (!pid) {
		for (i = 0; i < (int)(sizeof(sigs) / sizeof(sigs[0])); i++)
			signal(sigs[i], SIG_DFL);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (proc && mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL)) {
			fprintf(stderr, "nsrun: mounting /proc: %s\n", strerror(errno));
			_exit(1);
		}
		execvp(argv[0], argv);
		fprintf(stderr, "nsrun: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	child = pid;
	printf("child %d\n", (int)pid);
	fflush(stdout);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			fprintf(stderr, "nsrun: waitpid: %s\n", strerror(errno));
			return 1;
		}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
