// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Churn pids: fork short-lived children as fast as the machine allows, so
 * that with a low kernel.pid_max the pids wrap again and again, and log
 * which child had which pid when, so that a checker can tell whether a
 * recorder named every thread right (tests/soak/soak.sh --pid-wrap).
 *
 *   pidchurn -o LOG [-d SECONDS] [-j FORKERS] [-c CHILDREN] [-x EVERY]
 *
 *   -o LOG       append one line per child to LOG (below)
 *   -d SECONDS   stop forking after this long (default: until SIGTERM/INT)
 *   -j FORKERS   processes that fork (default 2)
 *   -c CHILDREN  children each forker keeps alive at once (default 4)
 *   -x EVERY     every EVERY-th child execs this program (0: none; default 16)
 *
 * Each forker names itself "pchurnJ" (J its number), so that its children
 * carry that name until they rename themselves. Child number SEQ (unique
 * over all forkers) then:
 *   kind c: prctl(PR_SET_NAME) "cSEQ", sleeps 1 us (one switch away and
 *           back under that name), exits;
 *   kind x: renames itself "eSEQ", execs this program (whose comm is then
 *           "pidchurn", the file's name) with --exec-child SEQ, which renames
 *           itself "xSEQ", sleeps 1 us and exits.
 * So a thread's name encodes which child it is: a name inherited from an
 * earlier owner of the pid has another SEQ.
 *
 * LOG lines (CLOCK_BOOTTIME ns, the clock frec's timestamps use):
 *   P J PID              forker J is PID (its name: pchurnJ)
 *   C PID SEQ KIND J T0 T1
 *                        child SEQ of kind c or x of forker J had pid PID
 *                        from no earlier than T0 (taken before fork) to no
 *                        later than T1 (taken after waitpid reaped it)
 *   W J FORKS EXECS WRAPS
 *                        forker J's totals; WRAPS: how often its child pids
 *                        went down (pid_max wrapped)
 * Lines are written whole, in buffers of whole lines, to a file opened with
 * O_APPEND, so that forkers never interleave inside a line.
 *
 *   pidchurn --exec-child SEQ   (the exec target, above)
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#define MAX_CHILDREN	64
#define LOG_BUF		(64 * 1024)

static volatile sig_atomic_t stop;

struct child {
	pid_t pid;	/* 0: free */
	uint64_t seq;
	uint64_t t0;
	char kind;
};

struct logbuf {
	int fd;
	size_t len;
	char buf[LOG_BUF];
};

static uint64_t boot_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static int log_flush(struct logbuf *l)
{
	size_t off = 0;

	while (off < l->len) {
		ssize_t n = write(l->fd, l->buf + off, l->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		off += (size_t)n;
	}
	l->len = 0;
	return 0;
}

/* One whole line into the buffer; flushed first when it might not fit. */
static int log_line(struct logbuf *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int log_line(struct logbuf *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (LOG_BUF - l->len < 256 && log_flush(l))
		return -1;
	va_start(ap, fmt);
	n = vsnprintf(l->buf + l->len, LOG_BUF - l->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= LOG_BUF - l->len)
		return -1;
	l->len += (size_t)n;
	return 0;
}

static void name_self(char prefix, uint64_t seq)
{
	char name[16];

	snprintf(name, sizeof(name), "%c%llu", prefix, (unsigned long long)seq);
	prctl(PR_SET_NAME, name, 0, 0, 0);
}

/* One switch away and back under the new name: a sleep of 1 us blocks. */
static void nap(void)
{
	struct timespec ts = { 0, 1000 };

	nanosleep(&ts, NULL);
}

static void __attribute__((noreturn)) run_child(char kind, uint64_t seq, const char *self)
{
	char arg[32];

	signal(SIGTERM, SIG_DFL);	/* the soak's stop ends a child at once */
	signal(SIGINT, SIG_DFL);
	if (kind == 'c') {
		name_self('c', seq);
		nap();
		_exit(0);
	}
	name_self('e', seq);
	snprintf(arg, sizeof(arg), "%llu", (unsigned long long)seq);
	execl(self, "pidchurn", "--exec-child", arg, (char *)NULL);
	_exit(127);
}

static int reap(struct logbuf *l, struct child *kids, int nkids, int j, int flags)
{
	int status;
	pid_t pid = waitpid(-1, &status, flags);
	uint64_t t1 = boot_ns();

	if (pid <= 0)
		return pid;
	for (int i = 0; i < nkids; i++) {
		if (kids[i].pid != pid)
			continue;
		log_line(l, "C %d %llu %c %d %llu %llu\n", (int)pid, (unsigned long long)kids[i].seq,
			 kids[i].kind, j, (unsigned long long)kids[i].t0, (unsigned long long)t1);
		kids[i].pid = 0;
		break;
	}
	return pid;
}

static int forker(int j, int nforkers, int nkids, int every, uint64_t end_ns, int fd,
		  const char *self)
{
	static struct logbuf l;
	struct child kids[MAX_CHILDREN];
	unsigned long long forks = 0, execs = 0, wraps = 0;
	pid_t last = 0;
	int live = 0, rc = 0;
	char name[24];	/* prctl keeps 15 bytes: "pchurn63" fits */

	memset(kids, 0, sizeof(kids));
	l.fd = fd;
	snprintf(name, sizeof(name), "pchurn%d", j);
	prctl(PR_SET_NAME, name, 0, 0, 0);
	log_line(&l, "P %d %d\n", j, (int)getpid());
	while (!stop && (!end_ns || boot_ns() < end_ns)) {
		struct child *k = NULL;
		uint64_t seq = (uint64_t)j + (uint64_t)nforkers * forks;
		char kind = every && forks % (unsigned)every == (unsigned)every - 1 ? 'x' : 'c';
		pid_t pid;

		while (live >= nkids) {
			if (reap(&l, kids, nkids, j, 0) > 0)
				live--;
			else if (errno != EINTR)
				break;
			else if (stop)
				goto out;
		}
		for (int i = 0; i < nkids && !k; i++)
			if (!kids[i].pid)
				k = &kids[i];
		if (!k)
			break;
		k->seq = seq;
		k->kind = kind;
		k->t0 = boot_ns();
		pid = fork();
		if (pid < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			perror("pidchurn: fork");
			rc = 1;
			break;
		}
		if (pid == 0)
			run_child(kind, seq, self);
		k->pid = pid;
		live++;
		forks++;
		execs += kind == 'x';
		if (pid < last)
			wraps++;
		last = pid;
	}
out:
	while (live > 0) {
		pid_t pid = reap(&l, kids, nkids, j, 0);

		if (pid > 0)
			live--;
		else if (errno != EINTR)
			break;
	}
	log_line(&l, "W %d %llu %llu %llu\n", j, forks, execs, wraps);
	if (log_flush(&l)) {
		perror("pidchurn: log");
		rc = 1;
	}
	fprintf(stderr, "pidchurn: forker %d: %llu children (%llu exec), pids wrapped %llu times\n",
		j, forks, execs, wraps);
	return rc;
}

static void usage(void)
{
	fprintf(stderr, "usage: pidchurn -o LOG [-d SECONDS] [-j FORKERS] [-c CHILDREN] [-x EVERY]\n"
			"       pidchurn --exec-child SEQ\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int nforkers = 2, nkids = 4, every = 16, opt, fd, rc = 0;
	double secs = 0;
	const char *log = NULL;
	char self[4096];
	uint64_t end_ns = 0;
	pid_t forkers[64];
	int nstarted = 0;
	bool told = false;
	struct sigaction sa;
	ssize_t n;

	if (argc == 3 && !strcmp(argv[1], "--exec-child")) {
		name_self('x', strtoull(argv[2], NULL, 10));
		nap();
		return 0;
	}
	while ((opt = getopt(argc, argv, "o:d:j:c:x:")) != -1) {
		switch (opt) {
		case 'o': log = optarg; break;
		case 'd': secs = atof(optarg); break;
		case 'j': nforkers = atoi(optarg); break;
		case 'c': nkids = atoi(optarg); break;
		case 'x': every = atoi(optarg); break;
		default: usage();
		}
	}
	if (!log || optind != argc || nforkers < 1 || nforkers > 64 || nkids < 1 ||
	    nkids > MAX_CHILDREN || every < 0 || secs < 0)
		usage();
	/* the exec target: this very file, whatever the cwd is later */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		perror("pidchurn: /proc/self/exe");
		return 1;
	}
	self[n] = '\0';
	fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0) {
		perror(log);
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;	/* no SA_RESTART: waitpid returns EINTR */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if (secs > 0)
		end_ns = boot_ns() + (uint64_t)(secs * 1e9);
	for (int j = 0; j < nforkers; j++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("pidchurn: fork");
			stop = 1;
			rc = 1;
			break;
		}
		if (pid == 0)
			_exit(forker(j, nforkers, nkids, every, end_ns, fd, self));
		forkers[nstarted++] = pid;
	}
	for (;;) {
		int status;
		pid_t pid = wait(&status);

		if (pid < 0 && errno == EINTR) {
			/* a stop sent to this process alone reaches the forkers too */
			for (int j = 0; stop && !told && j < nstarted; j++)
				kill(forkers[j], SIGTERM);
			told = told || stop;
			continue;
		}
		if (pid < 0)
			break;
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			rc = 1;
	}
	close(fd);
	return rc;
}
