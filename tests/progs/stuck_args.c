// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A process whose /proc/PID/cmdline cannot be read: the read blocks in the
 * kernel until this program lets it go, as `ps` blocks on a process stuck
 * in the kernel. Reading a command line takes the process's mmap lock for
 * reading. Here one thread holds it for reading, in a page fault that never
 * ends (a read of its own /proc/self/mem at a page of a FUSE file whose
 * reads are never answered: such a fault keeps the lock), and a second
 * thread waits for it for writing (mmap), so that every new reader waits
 * behind the writer.
 *
 *   stuck_args serve DIR   mount a FUSE file system on DIR holding files
 *                          "f" and "f1" to "f9"; print "mounted"; answer
 *                          every request but READ, until killed (the
 *                          kernel then fails the reads that wait: the
 *                          trap below opens and exits)
 *   stuck_args trap FILE   map FILE (the file above), set the trap, print
 *                          "trapped PID" and wait until killed; exit 3,
 *                          saying where its threads wait, if the trap
 *                          does not hold within 10 s
 *
 * Root only (mount).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/fuse.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <pthread.h>

#define FILE_INO	2
#define FILE_SIZE	4096

static int fuse_fd;

static void reply(__u64 unique, int error, const void *out, size_t len)
{
	struct fuse_out_header h = {
		.len = sizeof(h) + (error ? 0 : len),
		.error = error,
		.unique = unique,
	};
	char buf[sizeof(h) + 256];

	memcpy(buf, &h, sizeof(h));
	if (!error && len)
		memcpy(buf + sizeof(h), out, len);
	if (write(fuse_fd, buf, h.len) < 0 && errno != ENOENT)
		perror("stuck_args: write /dev/fuse");
}

static void fill_attr(struct fuse_attr *a, __u64 ino)
{
	memset(a, 0, sizeof(*a));
	a->ino = ino;
	a->nlink = 1;
	a->blksize = 4096;
	if (ino == FUSE_ROOT_ID) {
		a->mode = S_IFDIR | 0555;
	} else {
		a->mode = S_IFREG | 0444;
		a->size = FILE_SIZE;
		a->blocks = FILE_SIZE / 512;
	}
}

static int serve(const char *dir)
{
	static char buf[FUSE_MIN_READ_BUFFER + 65536];
	char opts[128];

	fuse_fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fuse_fd < 0) {
		perror("stuck_args: /dev/fuse");
		return 1;
	}
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0", fuse_fd);
	if (mount("stuck_args", dir, "fuse", MS_NOSUID | MS_NODEV, opts)) {
		perror("stuck_args: mount");
		return 1;
	}
	printf("mounted\n");
	fflush(stdout);
	for (;;) {
		struct fuse_in_header *in = (void *)buf;
		void *arg = buf + sizeof(*in);
		ssize_t n = read(fuse_fd, buf, sizeof(buf));

		if (n < 0) {
			if (errno == EINTR || errno == ENOENT)
				continue;
			if (errno == ENODEV)	/* unmounted */
				return 0;
			perror("stuck_args: read /dev/fuse");
			return 1;
		}
		switch (in->opcode) {
		case FUSE_INIT: {
			const struct fuse_init_in *ii = arg;
			struct fuse_init_out o = {
				.major = FUSE_KERNEL_VERSION,
				.minor = ii->minor < FUSE_KERNEL_MINOR_VERSION ?
					 ii->minor : FUSE_KERNEL_MINOR_VERSION,
				.max_readahead = 0,
				.max_write = 4096,
			};

			reply(in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_LOOKUP: {
			/* "f", and "f1" to "f9" for a trap tried again: a page of a
			 * file of its own, not one an earlier trap's read holds */
			const char *name = arg;
			struct fuse_entry_out o = { .nodeid = FILE_INO };

			if (name[0] != 'f' ||
			    (name[1] && (name[1] < '1' || name[1] > '9' || name[2]))) {
				reply(in->unique, -ENOENT, NULL, 0);
				break;
			}
			if (name[1])
				o.nodeid = FILE_INO + (__u64)(name[1] - '0');
			fill_attr(&o.attr, o.nodeid);
			reply(in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_GETATTR: {
			struct fuse_attr_out o = { 0 };

			fill_attr(&o.attr, in->nodeid);
			reply(in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_OPEN:
		case FUSE_OPENDIR: {
			struct fuse_open_out o = { .fh = 1 };

			reply(in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_READ:		/* the point: never answered */
		case FUSE_INTERRUPT:	/* nor is the reader's interrupt */
		case FUSE_FORGET:
		case FUSE_BATCH_FORGET:
			break;
		case FUSE_FLUSH:
		case FUSE_RELEASE:
		case FUSE_RELEASEDIR:
			reply(in->unique, 0, NULL, 0);
			break;
		default:
			reply(in->unique, -ENOSYS, NULL, 0);
			break;
		}
	}
}

static char *file_page;
static volatile pid_t holder_tid;

static char task_state(pid_t tid);

/* Hold this process's mmap_lock for reading, as a debugger does when it
 * reads the memory of a file mapping: the read of /proc/self/mem faults
 * the page in with the lock held, and the page never comes. */
static void *hold_lock(void *arg)
{
	char c;
	int fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);

	(void)arg;
	if (fd < 0) {
		perror("stuck_args: /proc/self/mem");
		exit(1);
	}
	holder_tid = (pid_t)syscall(SYS_gettid);
	if (pread(fd, &c, 1, (off_t)(unsigned long)file_page) < 0)
		perror("stuck_args: pread");
	exit(1);	/* only when the server went away */
}

/* Then wait for it for writing: from now on every new reader waits too. */
static pid_t writer_tid;

static void *want_lock(void *arg)
{
	(void)arg;
	writer_tid = (pid_t)syscall(SYS_gettid);
	/* Not a fixed delay: on a loaded machine the read may take longer
	 * than any to reach FUSE, and a writer that came first would get the
	 * lock and end the trap before it was set. Its thread asleep is the
	 * read waiting in FUSE, the lock held: nothing else after its start
	 * sleeps. */
	for (;;) {
		char st = holder_tid ? task_state(holder_tid) : '?';

		if (st == 'S' || st == 'D')
			break;
		usleep(100);
	}
	mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	/* Only when the server went away, or the lock was free after all. */
	fprintf(stderr, "stuck_args: mmap returned: the mmap lock was not held\n");
	exit(1);
}

/* Thread tid's state letter, from /proc/self/task/TID/stat. */
static char task_state(pid_t tid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return '?';
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return '?';
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] ? p[2] : '?';
}

/* "stuck_args: NAME TID: state C, in FUNCTION" on stderr (wchan: where it sleeps). */
static void report_thread(const char *name, pid_t tid)
{
	char path[64], wchan[128] = "?";
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/wchan", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, wchan, sizeof(wchan) - 1);
		wchan[n > 0 ? n : 0] = '\0';
		close(fd);
	}
	dprintf(2, "stuck_args: the trap did not hold after 10 s: %s %d: state %c, in %s\n",
		name, (int)tid, tid ? task_state(tid) : '?', wchan);
}

/* CLOCK_MONOTONIC in ms: the 10 s below are real seconds, however slowly
 * an emulated machine runs the loop (100 us sleeps that take 1 ms there
 * made it 100 s, longer than the test waits). */
static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int trap(const char *path)
{
	pthread_t a, b;
	char line[64];
	long long until, since = 0;	/* since: both in place, from then on */
	int fd, n;

	/* Once the writer waits, a page fault of this thread waits too (before
	 * 6.4's per-VMA locks, every fault takes the mmap lock for reading):
	 * a first call of clock_gettime (the vDSO's data page), of a libc
	 * function or of a lazily bound symbol would hang it there, before it
	 * says anything, and the test would see an empty output. So each is
	 * called once now, and every page mapped so far is faulted in and
	 * locked, before the FUSE file is mapped (a lock of that would fault
	 * it in through FUSE). */
	until = now_ms();
	(void)task_state((pid_t)syscall(SYS_gettid));
	n = snprintf(line, sizeof(line), "trapped %d\n", (int)getpid());
	dprintf(-1, "%s %lld %c %d", line, until, '?', n);	/* EBADF: nothing written */
	if (mlockall(MCL_CURRENT))
		perror("stuck_args: mlockall (the trap may not hold)");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror("stuck_args: open");
		return 1;
	}
	/* Mapped, never touched: the first reader faults it in, through FUSE. */
	file_page = mmap(NULL, FILE_SIZE, PROT_READ, MAP_PRIVATE, fd, 0);
	if (file_page == MAP_FAILED) {
		perror("stuck_args: mmap");
		return 1;
	}
	close(fd);
	/* Both threads first: a thread's stack is an mmap too. */
	if (pthread_create(&b, NULL, want_lock, NULL) ||
	    pthread_create(&a, NULL, hold_lock, NULL)) {
		fprintf(stderr, "stuck_args: pthread_create failed\n");
		return 1;
	}
	/* No malloc from here on: it may need the lock. The writer waiting
	 * (D) for 200 ms on end, the holder asleep all along: a writer that
	 * is in D for a moment, on a lock taken by a fault that then let it
	 * go, gets it, and its mmap ends the trap (seen once under
	 * emulation: "trapped" said, then the command line read). */
	until = now_ms() + 10000;
	while (!since || now_ms() - since < 200) {
		char w = writer_tid ? task_state(writer_tid) : '?';
		char h = holder_tid ? task_state(holder_tid) : '?';

		if (w != 'D' || (h != 'S' && h != 'D'))
			since = 0;
		else if (!since)
			since = now_ms();
		if (now_ms() >= until) {	/* say where each thread is, for the test's log */
			report_thread("holder", holder_tid);
			report_thread("writer", writer_tid);
			return 3;
		}
		usleep(100);
	}
	n = snprintf(line, sizeof(line), "trapped %d\n", (int)getpid());
	if (write(1, line, n) != n)
		return 1;
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "serve"))
		return serve(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "trap"))
		return trap(argv[2]);
	fprintf(stderr, "usage: stuck_args serve DIR | stuck_args trap FILE\n");
	return 2;
}
