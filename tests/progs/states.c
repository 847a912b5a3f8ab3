// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A workload that leaves the CPU in each state sched_switch reports, so that
 * a test can compare frec's prev_state with the kernel's own:
 *
 *   states [SPIN_MS]
 *
 *   S   the main thread sleeps (nanosleep), three times;
 *   D   it waits for a vfork child (wait_for_vfork_done(): TASK_KILLABLE,
 *       on every kernel), three times; and fsync()s a file it wrote in the
 *       current directory (D on a real disk; nothing on tmpfs);
 *   T   a child stops itself (SIGSTOP) until the parent continues it;
 *   R+  two threads pinned to one CPU spin in the kernel (read() of
 *       /dev/zero) for SPIN_MS (100) ms each, so that the scheduler
 *       preempts one for the other;
 *   X, Z  the threads and the children exit.
 * Then it forks a "spinner" child that spins until killed, prints
 * "spin PID" and waits for a line on stdin (the test may freeze and thaw
 * the spinner meanwhile: TASK_FROZEN), kills and reaps it, prints
 * "done" and exits.
 *
 * Every task it makes is printed before it is waited for, one a line, as
 * "task TID", the main thread first; stdout is flushed after each line.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static long spin_ms = 100;
static int cpu;

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void say(const char *key, long v)
{
	printf("%s %ld\n", key, v);
	fflush(stdout);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

	while (nanosleep(&ts, &ts))
		;
}

/* The parent waits in D until the child _exit()s; the child only sleeps
 * (a system call: nothing of the parent's stack is changed). */
static void vfork_wait(void)
{
	struct timespec ts = { 0, 20 * 1000000 };
	pid_t child = vfork();

	if (child < 0)
		die("vfork");
	if (!child) {
		syscall(SYS_nanosleep, &ts, NULL);
		_exit(0);
	}
	say("task", child);
	if (waitpid(child, NULL, 0) != child)
		die("waitpid");
}

static void fsync_writes(void)
{
	static char buf[64 * 1024];
	int fd, i;

	fd = open("states.data", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		die("open states.data");
	memset(buf, 'x', sizeof(buf));
	for (i = 0; i < 4; i++)
		if (write(fd, buf, sizeof(buf)) != sizeof(buf) || fsync(fd))
			die("write states.data");
	close(fd);
	unlink("states.data");
}

/* The child's voluntary switches, from /proc: -1 if unreadable. */
static long voluntary_switches(pid_t pid)
{
	char path[64], line[128];
	long n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &n) == 1)
			break;
	fclose(f);
	return n;
}

/*
 * The parent's waitpid(WUNTRACED) returns once the child has set
 * TASK_STOPPED and told its parent, which do_signal_stop() does before the
 * child calls schedule(). A SIGCONT sent at once can wake the child before
 * it is switched out, and the switch is then reported as R, not T (seen on
 * a 2-CPU VM). So the parent continues the child only once the child has
 * really left the CPU: a switch in T counts as a voluntary one, and the
 * child notes its count, in memory both share, just before it stops.
 */
static void stop_child(void)
{
	volatile long *before = mmap(NULL, sizeof(*before), PROT_READ | PROT_WRITE,
				     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct rusage ru;
	int status, i;
	pid_t child;

	if (before == MAP_FAILED)
		die("mmap");
	*before = -1;
	child = fork();
	if (child < 0)
		die("fork");
	if (!child) {
		if (getrusage(RUSAGE_SELF, &ru))
			_exit(1);
		*before = ru.ru_nvcsw;
		raise(SIGSTOP);
		_exit(0);
	}
	say("task", child);
	if (waitpid(child, &status, WUNTRACED) != child || !WIFSTOPPED(status))
		die("waitpid WUNTRACED");
	for (i = 0; voluntary_switches(child) <= *before; i++) {
		if (i == 10000) {
			fprintf(stderr, "states: the stopped child %d never left the CPU\n",
				(int)child);
			exit(1);
		}
		sleep_ms(1);
	}
	kill(child, SIGCONT);
	if (waitpid(child, &status, 0) != child)
		die("waitpid");
	munmap((void *)before, sizeof(*before));
}

/*
 * Preempted as the kernel reports it (R+) means preempted in the kernel: a
 * task preempted on its way back to user space is switched out by a plain
 * schedule() and reported as R. So each thread spins in read() of
 * /dev/zero, which spends its time in the kernel and passes cond_resched()
 * every page: whatever the preemption model (none and voluntary preempt at
 * cond_resched(), full and lazy on the interrupt's return), the thread that
 * has had its turn is preempted there.
 */
static void *spin(void *arg)
{
	char *b = arg;
	cpu_set_t set;
	double end;
	int fd;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
	say("task", syscall(SYS_gettid));
	fd = open("/dev/zero", O_RDONLY);
	if (fd < 0)
		die("open /dev/zero");
	end = now() + spin_ms / 1000.0;
	while (now() < end)
		if (read(fd, b, 1 << 20) < 0)
			die("read /dev/zero");
	close(fd);
	return NULL;
}

static void preempted(void)
{
	static char bufs[2][1 << 20];
	pthread_t t[2];
	int i;

	cpu = sched_getcpu();
	if (cpu < 0)
		die("sched_getcpu");
	for (i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, spin, bufs[i]))
			die("pthread_create");
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
}

static void frozen(void)
{
	char line[64];
	pid_t child = fork();

	if (child < 0)
		die("fork");
	if (!child)
		for (;;)
			;
	say("task", child);
	say("spin", child);
	if (!fgets(line, sizeof(line), stdin))
		die("stdin");
	kill(child, SIGKILL);
	if (waitpid(child, NULL, 0) != child)
		die("waitpid");
}

int main(int argc, char **argv)
{
	int i;

	if (argc > 1)
		spin_ms = atol(argv[1]);
	say("task", getpid());
	for (i = 0; i < 3; i++)
		sleep_ms(10);
	for (i = 0; i < 3; i++)
		vfork_wait();
	fsync_writes();
	stop_child();
	preempted();
	frozen();
	printf("done\n");
	fflush(stdout);
	return 0;
}
