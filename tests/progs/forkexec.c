// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fork a child that execs a program and exits, so that the test knows the
 * pids and the file name that the fork, exec and exit events must carry.
 *
 *   forkexec PATH [ARG...]   fork; the child execs PATH; prints
 *                            "parent PID", "child PID", "status N"
 *   forkexec --exit N        exit with status N at once (an exec target)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

int main(int argc, char **argv)
{
	pid_t child;
	int status;

	if (argc == 3 && !strcmp(argv[1], "--exit"))
		return atoi(argv[2]);
	if (argc < 2) {
		fprintf(stderr, "usage: forkexec PATH [ARG...] | forkexec --exit N\n");
		return 2;
	}
	child = fork();
	if (child < 0) {
		perror("fork");
		return 1;
	}
	if (child == 0) {
		execv(argv[1], argv + 1);
		perror("execv");
		_exit(127);
	}
	if (waitpid(child, &status, 0) != child) {
		perror("waitpid");
		return 1;
	}
	printf("parent %d\nchild %d\nstatus %d\n", (int)getpid(), (int)child,
	       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}
