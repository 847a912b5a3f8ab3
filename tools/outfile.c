// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The output file of a frec command, written so that a failure never harms
 * what was there; see outfile.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "outfile.h"

struct frec_outfile {
	FILE *f;
	bool regular;		/* through the temporary file tmp */
	bool is_stdout;
	const char *name;	/* as the user gave it, for messages */
	char *path;		/* the name tmp becomes (a link resolved) */
	char *dir;		/* path's directory */
	char *tmp;
};

/* The temporary file the signal handler removes. A fixed buffer: the
 * handler may only call async-signal-safe functions. */
static char sig_tmp[PATH_MAX];
static volatile sig_atomic_t sig_armed;
static const int sig_list[] = { SIGINT, SIGTERM, SIGHUP };
static struct sigaction sig_old[sizeof(sig_list) / sizeof(sig_list[0])];
static bool sig_installed[sizeof(sig_list) / sizeof(sig_list[0])];

#define NSIGS (sizeof(sig_list) / sizeof(sig_list[0]))

static void on_signal(int sig)
{
	if (sig_armed)
		unlink(sig_tmp);
	/* die of the signal as if there were no handler */
	signal(sig, SIG_DFL);
	raise(sig);
}

static void block_signals(sigset_t *old)
{
	sigset_t set;
	size_t i;

	sigemptyset(&set);
	for (i = 0; i < NSIGS; i++)
		sigaddset(&set, sig_list[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

static void arm(const char *tmp)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t old;
	size_t i;

	block_signals(&old);
	strcpy(sig_tmp, tmp);
	sig_armed = 1;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < NSIGS; i++) {
		struct sigaction cur;

		/* an ignored signal (nohup) stays ignored */
		if (sigaction(sig_list[i], NULL, &cur) || cur.sa_handler == SIG_IGN)
			continue;
		sig_old[i] = cur;
		sig_installed[i] = !sigaction(sig_list[i], &sa, NULL);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
}

static void disarm(void)
{
	size_t i;

	sig_armed = 0;
	for (i = 0; i < NSIGS; i++) {
		if (sig_installed[i])
			sigaction(sig_list[i], &sig_old[i], NULL);
		sig_installed[i] = false;
	}
}

static void outfile_free(struct frec_outfile *of)
{
	free(of->path);
	free(of->dir);
	free(of->tmp);
	free(of);
}

/* One line naming why a file could not be created in dir, and what to do. */
static void say_create_error(FILE *err, const char *name, const char *dir, int e)
{
	switch (e) {
	case EACCES:
	case EPERM:
	case EROFS:
		fprintf(err, "frec: cannot write %s: no new file can be created in %s (%s); "
			"name a file in a writable directory, or write to standard output with -o -\n",
			name, dir, strerror(e));
		break;
	case ENOENT:
	case ENOTDIR:
		fprintf(err, "frec: cannot write %s: directory %s does not exist; "
			"create it or name a file in another directory\n", name, dir);
		break;
	case ENOSPC:
	case EDQUOT:
		fprintf(err, "frec: cannot write %s: %s in %s; free some space or write elsewhere\n",
			name, strerror(e), dir);
		break;
	default:
		fprintf(err, "frec: cannot write %s: %s\n", name, strerror(e));
		break;
	}
}

static int split_dir(struct frec_outfile *of, const char **base)
{
	const char *slash = strrchr(of->path, '/');

	if (!slash) {
		of->dir = strdup(".");
		*base = of->path;
	} else {
		of->dir = slash == of->path ? strdup("/") : strndup(of->path, slash - of->path);
		*base = slash + 1;
	}
	return of->dir ? 0 : -ENOMEM;
}

/* Create the temporary file beside of->path. Returns an fd or -errno. */
static int create_tmp(struct frec_outfile *of, const char *base)
{
	/* keep the temporary name within NAME_MAX whatever the base's length */
	int blen = (int)strnlen(base, 200);
	size_t cap = strlen(of->dir) + blen + 64;
	unsigned int n;
	int fd;

	of->tmp = malloc(cap);
	if (!of->tmp)
		return -ENOMEM;
	for (n = 0; n < 100; n++) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		snprintf(of->tmp, cap, "%s/.%.*s.frec-tmp-%ld-%lx", of->dir, blen, base,
			 (long)getpid(), (unsigned long)ts.tv_nsec ^ n);
		if (strlen(of->tmp) >= sizeof(sig_tmp))
			return -ENAMETOOLONG;
		/* armed before it exists: a signal between open and arm
		 * would leave it behind */
		arm(of->tmp);
		fd = open(of->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd >= 0)
			return fd;
		disarm();
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

static int open_regular(struct frec_outfile *of, const struct stat *old, FILE *err)
{
	const char *base;
	int fd, rc;

	rc = split_dir(of, &base);
	if (rc) {
		fprintf(err, "frec: cannot write %s: %s\n", of->name, strerror(-rc));
		return rc;
	}
	/* Renaming needs only the directory: do not replace a file the user
	 * could not have overwritten. */
	if (old && access(of->path, W_OK)) {
		rc = -errno;
		fprintf(err, "frec: cannot write %s: %s; name another file or make it writable\n",
			of->name, strerror(-rc));
		return rc;
	}
	fd = create_tmp(of, base);
	if (fd < 0) {
		say_create_error(err, of->name, of->dir, -fd);
		return fd;
	}
	if (old) {
		/* as overwriting it in place would have kept them; best effort:
		 * else the new file is ours, 0666 less the umask */
		if (geteuid() == 0 && (old->st_uid != geteuid() || old->st_gid != getegid()))
			(void)!fchown(fd, old->st_uid, old->st_gid);
		(void)!fchmod(fd, old->st_mode & 0777);
	}
	of->f = fdopen(fd, "w");
	if (!of->f) {
		rc = -errno;
		close(fd);
		unlink(of->tmp);
		disarm();
		fprintf(err, "frec: cannot write %s: %s\n", of->name, strerror(-rc));
		return rc;
	}
	of->regular = true;
	return 0;
}

static int open_direct(struct frec_outfile *of, FILE *err)
{
	int fd, rc;

	/* no O_CREAT, no O_TRUNC: a device or FIFO is used as it is */
	fd = open(of->path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		fprintf(err, "frec: cannot write %s: %s\n", of->name, strerror(-rc));
		return rc;
	}
	of->f = fdopen(fd, "w");
	if (!of->f) {
		rc = -errno;
		close(fd);
		fprintf(err, "frec: cannot write %s: %s\n", of->name, strerror(-rc));
		return rc;
	}
	return 0;
}

int frec_outfile__open(const char *path, FILE *err, struct frec_outfile **out)
{
	struct frec_outfile *of;
	struct stat st;
	int rc;

	*out = NULL;
	of = calloc(1, sizeof(*of));
	if (!of)
		return -ENOMEM;
	if (!path || !strcmp(path, "-")) {
		of->f = stdout;
		of->is_stdout = true;
		of->name = "standard output";
		*out = of;
		return 0;
	}
	of->name = path;
	if (lstat(path, &st)) {
		if (errno != ENOENT) {
			rc = -errno;
			fprintf(err, "frec: cannot write %s: %s\n", path, strerror(-rc));
			goto err;
		}
		of->path = strdup(path);
		rc = of->path ? open_regular(of, NULL, err) : -ENOMEM;
		goto out;
	}
	if (S_ISLNK(st.st_mode)) {
		if (stat(path, &st)) {
			rc = -errno;
			if (rc == -ENOENT)
				fprintf(err, "frec: cannot write %s: it is a symbolic link to a missing "
					"file; remove the link or name another file\n", path);
			else
				fprintf(err, "frec: cannot write %s: %s\n", path, strerror(-rc));
			goto err;
		}
		/* replace the link's target, not the link */
		of->path = S_ISREG(st.st_mode) ? realpath(path, NULL) : strdup(path);
	} else {
		of->path = strdup(path);
	}
	if (!of->path) {
		rc = -errno;
		fprintf(err, "frec: cannot write %s: %s\n", path, strerror(-rc));
		goto err;
	}
	if (S_ISDIR(st.st_mode)) {
		fprintf(err, "frec: cannot write %s: it is a directory; name a file in it, "
			"e.g. -o %s/trace\n", path, path);
		rc = -EISDIR;
		goto err;
	}
	rc = S_ISREG(st.st_mode) ? open_regular(of, &st, err) : open_direct(of, err);
out:
	if (rc)
		goto err;
	*out = of;
	return 0;
err:
	outfile_free(of);
	return rc;
}

FILE *frec_outfile__stream(const struct frec_outfile *of)
{
	return of->f;
}

bool frec_outfile__is_regular(const struct frec_outfile *of)
{
	return of->regular;
}

static void say_write_error(FILE *err, const struct frec_outfile *of, int e)
{
	if (of->regular)
		fprintf(err, "frec: writing %s: %s; %s was left as it was%s\n", of->name, strerror(e),
			of->name, e == ENOSPC || e == EDQUOT ? ": free some space or write elsewhere" : "");
	else
		fprintf(err, "frec: writing %s: %s\n", of->name, strerror(e));
}

int frec_outfile__commit(struct frec_outfile *of, FILE *err)
{
	sigset_t old;
	int rc = 0, dfd;

	if (of->is_stdout) {
		if (fflush(stdout) || ferror(stdout)) {
			rc = errno ? -errno : -EIO;
			say_write_error(err, of, -rc);
		}
		outfile_free(of);
		return rc;
	}
	if (fflush(of->f) || ferror(of->f))
		rc = errno ? -errno : -EIO;
	/* a rename is durable only after the data it names */
	if (!rc && of->regular && fsync(fileno(of->f)))
		rc = -errno;
	if (fclose(of->f) && !rc)
		rc = -errno;
	of->f = NULL;
	if (rc) {
		if (of->regular) {
			unlink(of->tmp);
			disarm();
		}
		say_write_error(err, of, -rc);
		outfile_free(of);
		return rc;
	}
	if (of->regular) {
		block_signals(&old);
		if (rename(of->tmp, of->path)) {
			rc = -errno;
			unlink(of->tmp);
		}
		disarm();
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (rc) {
			say_write_error(err, of, -rc);
		} else {
			/* and the rename itself (best effort) */
			dfd = open(of->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (dfd >= 0) {
				fsync(dfd);
				close(dfd);
			}
		}
	}
	outfile_free(of);
	return rc;
}

void frec_outfile__abort(struct frec_outfile *of)
{
	if (!of)
		return;
	if (of->is_stdout) {
		fflush(stdout);
	} else if (of->f) {
		fclose(of->f);
		if (of->regular) {
			unlink(of->tmp);
			disarm();
		}
	}
	outfile_free(of);
}

bool frec_outfile__same_file(const char *out, const char *in)
{
	struct stat a, b;

	if (!out || !strcmp(out, "-") || stat(out, &a) || stat(in, &b))
		return false;
	return S_ISREG(a.st_mode) && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}
