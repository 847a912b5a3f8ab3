// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * runq_spike: a thread that waits a known time in the run queue, for the
 * trigger tests (runq>DUR, oncpu>DUR).
 *
 *   runq_spike [-c CPU] [-s SPIN_MS] [-f FIRST_MS] [-m MOVE_MS] SPIKES INTERVAL_MS
 *
 * Two threads are pinned to CPU (default: the last CPU this process may
 * use): "victim", a SCHED_FIFO thread of priority 5 that sleeps in read()
 * until it is woken, and "spiker", a SCHED_FIFO thread of priority 10. The
 * main thread runs on the other CPUs (when there are any). FIRST_MS (default
 * 200) after the start, then every INTERVAL_MS, the main thread wakes the
 * spiker, which spins for SPIN_MS (default 50) on CPU; 1 ms into its spin it
 * wakes the victim, which cannot run before the spin ends: a real-time
 * thread is never preempted by one of lower priority. So the victim waits
 * about SPIN_MS - 1 ms in the run queue at each spike, and no thread of this
 * program waits long anywhere else.
 *
 * The victim is real-time too so that it runs the moment the spin ends,
 * before any ordinary thread: the switch into it is then the spiker's
 * switch-out. An ordinary victim may have to wait behind an ordinary thread
 * woken during the spin, and some machines emit no sched_switch when certain
 * threads leave a CPU (seen for the threads of a VM's init): the switch into
 * the victim, where its wait ends, would then be missing from every trace,
 * the kernel's own included.
 *
 * The spiker wakes the victim itself, while it holds the CPU: the wait does
 * not depend on how fast the main thread's wakeup reaches the spiker (slow
 * under emulation), only on the spin, which is measured in wall time.
 *
 * With -m, MOVE_MS into each spin the main thread moves the spiker to
 * another CPU (its affinity: the kernel's stopper takes the spiker's CPU to
 * move it, so the spin is two runs) and prints "moved TID to CPU N" (once
 * it runs again: the spiker may now hold the main thread's CPU).
 * Timed from the spin's own start, not from outside: a taskset run by the
 * test came too late under emulation on a loaded host.
 *
 * Prints "pid P", "cpu C", "victim TID", "spiker TID", then per spike
 * "spike I woken NS ran NS wait_us US" (CLOCK_BOOTTIME, the clock of frec's
 * events: when the spiker woke the victim, when the victim ran again), then
 * "done". Exits 2 on bad usage, 3 when it may not run a SCHED_FIFO thread
 * (EPERM) or the real-time throttling would cut the spin short (the message
 * says which).
 *
 * Real-time throttling: the kernel lets real-time threads use at most
 * sched_rt_runtime_us of every sched_rt_period_us on a CPU (default 950 ms of
 * 1 s); a spin must fit in it, and spikes closer than a period apart share
 * one budget. INTERVAL_MS must be at least twice SPIN_MS for that reason.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#define NSEC_PER_MSEC	1000000ull

static int cpu = -1;
static unsigned long long spin_ns = 50 * NSEC_PER_MSEC;
static int spiker_in[2], victim_in[2], report_out[2], ready_out[2];
static volatile unsigned long long woken_ns;	/* written before the victim's wakeup */
static volatile unsigned long long spin_start_ns;	/* CLOCK_MONOTONIC, each spin's start */

static void usage(void)
{
	fprintf(stderr, "usage: runq_spike [-c CPU] [-s SPIN_MS] [-f FIRST_MS] [-m MOVE_MS] SPIKES INTERVAL_MS\n");
	exit(2);
}

static long number(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || !*s || *end || v < 0) {
		fprintf(stderr, "runq_spike: '%s' is not a number\n", s);
		exit(2);
	}
	return v;
}

static unsigned long long now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void write_all(int fd, const void *buf, size_t len)
{
	if (write(fd, buf, len) != (ssize_t)len) {
		perror("runq_spike: write");
		exit(1);
	}
}

/* 0: go on; 1: the main thread said stop (or closed the pipe). */
static int wait_for(int fd)
{
	char c;

	while (read(fd, &c, 1) != 1)
		if (errno != EINTR)
			return 1;
	return c == 'q';
}

static void *victim(void *arg)
{
	unsigned long long r[2];
	int tid = syscall(SYS_gettid);

	(void)arg;
	prctl(PR_SET_NAME, "victim");
	write_all(ready_out[1], &tid, sizeof(tid));
	while (!wait_for(victim_in[0])) {
		r[1] = now_ns(CLOCK_BOOTTIME);	/* first thing once it runs */
		r[0] = woken_ns;
		write_all(report_out[1], r, sizeof(r));
	}
	return NULL;
}

static void *spiker(void *arg)
{
	unsigned long long t0;
	int tid = syscall(SYS_gettid);

	(void)arg;
	prctl(PR_SET_NAME, "spiker");
	write_all(ready_out[1], &tid, sizeof(tid));
	while (!wait_for(spiker_in[0])) {
		t0 = now_ns(CLOCK_MONOTONIC);
		spin_start_ns = t0;
		while (now_ns(CLOCK_MONOTONIC) - t0 < NSEC_PER_MSEC)
			;
		woken_ns = now_ns(CLOCK_BOOTTIME);
		write_all(victim_in[1], "w", 1);
		while (now_ns(CLOCK_MONOTONIC) - t0 < spin_ns)
			;
	}
	return NULL;
}

/* The real-time budget must hold a whole spin (see the header). */
static void check_rt_budget(void)
{
	FILE *f = fopen("/proc/sys/kernel/sched_rt_runtime_us", "r");
	long long us;

	if (!f)
		return;
	if (fscanf(f, "%lld", &us) == 1 && us >= 0 &&
	    (unsigned long long)us * 1000 < spin_ns + 10 * NSEC_PER_MSEC) {
		fprintf(stderr, "runq_spike: sched_rt_runtime_us is %lld, too short for a %llu ms spin: "
			"raise it (sysctl kernel.sched_rt_runtime_us=950000)\n", us, spin_ns / NSEC_PER_MSEC);
		exit(3);
	}
	fclose(f);
}

/* A thread pinned to cpu, SCHED_FIFO of priority prio: 0, or the exit
 * status after saying why not (3 when real-time threads are refused). */
static int start_thread(pthread_t *t, void *(*fn)(void *), int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	pthread_attr_t attr;
	cpu_set_t set;
	int err;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_attr_init(&attr);
	pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
	pthread_attr_setschedparam(&attr, &sp);
	err = pthread_create(t, &attr, fn, NULL);
	pthread_attr_destroy(&attr);
	if (!err)
		return 0;
	fprintf(stderr, "runq_spike: cannot start a SCHED_FIFO thread: %s (run as root, with "
		"real-time runtime for this cgroup)\n", strerror(err));
	return err == EPERM ? 3 : 1;
}

/* -m: move_ns into the spin that just began, pin the spiker to CPU other. */
static int move_spiker(int tid, int other, unsigned long long move_ns)
{
	unsigned long long t;
	struct timespec at;
	cpu_set_t set;

	while (!(t = spin_start_ns))
		usleep(100);
	t += move_ns;
	at.tv_sec = t / 1000000000ull;
	at.tv_nsec = t % 1000000000ull;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR)
		;
	CPU_ZERO(&set);
	CPU_SET(other, &set);
	if (sched_setaffinity(tid, sizeof(set), &set)) {
		perror("runq_spike: sched_setaffinity (the move)");
		return 1;
	}
	printf("moved %d to CPU %d\n", tid, other);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long first_ns = 200 * NSEC_PER_MSEC, interval_ns, r[2], move_ns = 0;
	long spikes, i;
	int opt, err, tid[2], last = -1, other = -1;
	pthread_t tv, ts;
	struct timespec at;
	cpu_set_t set;

	while ((opt = getopt(argc, argv, "+c:s:f:m:")) != -1) {
		switch (opt) {
		case 'c': cpu = number(optarg); break;
		case 's': spin_ns = number(optarg) * NSEC_PER_MSEC; break;
		case 'f': first_ns = number(optarg) * NSEC_PER_MSEC; break;
		case 'm': move_ns = number(optarg) * NSEC_PER_MSEC; break;
		default: usage();
		}
	}
	if (argc - optind != 2)
		usage();
	spikes = number(argv[optind]);
	interval_ns = number(argv[optind + 1]) * NSEC_PER_MSEC;
	if (spin_ns < 2 * NSEC_PER_MSEC || interval_ns < 2 * spin_ns) {
		fprintf(stderr, "runq_spike: the spin must be at least 2 ms and INTERVAL_MS at least "
			"twice the spin\n");
		return 2;
	}
	check_rt_budget();

	if (sched_getaffinity(0, sizeof(set), &set)) {
		perror("runq_spike: sched_getaffinity");
		return 1;
	}
	for (i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			last = i;
	if (cpu < 0)
		cpu = last;
	if (cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &set)) {
		fprintf(stderr, "runq_spike: -c %d: not a CPU this process may use\n", cpu);
		return 2;
	}
	/* The main thread keeps off the spiked CPU, so that only the victim
	 * waits behind the spin. */
	if (CPU_COUNT(&set) > 1) {
		CPU_CLR(cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
		for (i = 0; i < CPU_SETSIZE && other < 0; i++)
			if (CPU_ISSET(i, &set))
				other = i;
	}
	if (move_ns && (other < 0 || move_ns >= spin_ns)) {
		fprintf(stderr, "runq_spike: -m needs another CPU and a move inside the spin\n");
		return 2;
	}

	if (pipe(spiker_in) || pipe(victim_in) || pipe(report_out) || pipe(ready_out)) {
		perror("runq_spike: pipe");
		return 1;
	}
	if ((err = start_thread(&tv, victim, 5)))
		return err;
	if (read(ready_out[0], &tid[0], sizeof(tid[0])) != sizeof(tid[0]))
		return 1;
	if ((err = start_thread(&ts, spiker, 10)))
		return err;
	if (read(ready_out[0], &tid[1], sizeof(tid[1])) != sizeof(tid[1]))
		return 1;
	printf("pid %d\ncpu %d\nvictim %d\nspiker %d\n", (int)getpid(), cpu, tid[0], tid[1]);
	fflush(stdout);

	clock_gettime(CLOCK_MONOTONIC, &at);
	for (i = 0; i < spikes; i++) {
		unsigned long long t = (i ? interval_ns : first_ns) + at.tv_nsec;

		at.tv_sec += t / 1000000000ull;
		at.tv_nsec = t % 1000000000ull;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR)
			;
		spin_start_ns = 0;
		write_all(spiker_in[1], "s", 1);
		if (move_ns && move_spiker(tid[1], other, move_ns))
			return 1;
		if (read(report_out[0], r, sizeof(r)) != sizeof(r)) {
			fprintf(stderr, "runq_spike: the victim did not report\n");
			return 1;
		}
		printf("spike %ld woken %llu ran %llu wait_us %llu\n", i + 1, r[0], r[1],
		       (r[1] - r[0]) / 1000);
		fflush(stdout);
	}
	write_all(spiker_in[1], "q", 1);
	write_all(victim_in[1], "q", 1);
	pthread_join(ts, NULL);
	pthread_join(tv, NULL);
	printf("done\n");
	return 0;
}
