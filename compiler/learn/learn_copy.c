/*
 * learn_copy.c - a sample's inputs: the files beside it, copied into a
 * folder of cordonc's that the run gets as its --workdir (so data.csv
 * beside a sample is its open("data.csv"), a helper.py its import
 * helper, as inputs= gives them), and that folder removed after the run.
 * Regular files and folders only, content copied: a link, a FIFO, a
 * socket or a device is left out, never followed or opened (every name
 * is opened beneath its folder's descriptor with O_NOFOLLOW).  The folder
 * being made is never copied into itself, and the samples are not
 * inputs (cordon copies the one it runs; another, csv.py say, would
 * shadow the module of its name).  Bounded: LEARN_COPY_BYTES,
 * LEARN_COPY_ENTRIES, LEARN_COPY_DEPTH; past one, the sample fails with
 * what to do.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "learn.h"
#include "wall.h"

struct copy {
	dev_t dev;                /* the folder being made: not copied */
	ino_t ino;
	char **samples;           /* nor these */
	int nsamples;
	uint64_t bytes, entries;
	char *err;
	size_t errlen;
	const char *from;
};

static int fail(struct copy *c, const char *name, const char *why)
{
	snprintf(c->err, c->errlen, "%s/%s: %s", c->from, name, why);
	return -1;
}

static int copy_file(struct copy *c, int from, int to, const char *name,
    const struct stat *st)
{
	char buf[65536];
	ssize_t n;
	int in, out, rc = 0;

	c->bytes += (uint64_t)st->st_size;
	if (c->bytes > LEARN_COPY_BYTES)
		return fail(c, name, "the files beside the sample are more "
		    "than " LEARN_COPY_BYTES_SAID ": give the samples and "
		    "their inputs a folder of their own");
	in = openat(from, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_NOCTTY | O_CLOEXEC);
	if (in < 0)
		return fail(c, name, strerror(errno));
	out = openat(to, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	if (out < 0) {
		close(in);
		return fail(c, name, strerror(errno));
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write_all(out, buf, (size_t)n) < 0) {
			rc = fail(c, name, strerror(errno));
			break;
		}
	if (n < 0)
		rc = fail(c, name, strerror(errno));
	close(in);
	if (close(out) < 0 && rc == 0)
		rc = fail(c, name, strerror(errno));
	return rc;
}

static int copy_dir(struct copy *c, int from, int to, int depth);

/* Is st one of the samples? */
static int a_sample(const struct copy *c, const struct stat *st)
{
	struct stat s;
	int i;

	for (i = 0; i < c->nsamples; i++)
		if (stat(c->samples[i], &s) == 0 && s.st_dev == st->st_dev &&
		    s.st_ino == st->st_ino)
			return 1;
	return 0;
}

/* One entry of from, into to: a folder, a regular file, or left out. */
static int copy_entry(struct copy *c, int from, int to, const char *name,
    int depth)
{
	struct stat st;
	int sub, dst, rc;

	if (fstatat(from, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return fail(c, name, strerror(errno));
	if (++c->entries > LEARN_COPY_ENTRIES)
		return fail(c, name, "the folder beside the sample holds more "
		    "than " LEARN_COPY_ENTRIES_SAID " entries: give the samples "
		    "and their inputs a folder of their own");
	if (S_ISREG(st.st_mode))
		return a_sample(c, &st) ? 0 : copy_file(c, from, to, name,
		    &st);
	if (!S_ISDIR(st.st_mode) || (st.st_dev == c->dev &&
	    st.st_ino == c->ino))
		return 0;            /* a link, a device...: left out */
	if (depth >= LEARN_COPY_DEPTH)
		return fail(c, name, "folders nested too deep");
	sub = openat(from, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (sub < 0)
		return fail(c, name, strerror(errno));
	if (mkdirat(to, name, 0700) < 0 || (dst = openat(to, name, O_RDONLY |
	    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		close(sub);
		return fail(c, name, strerror(errno));
	}
	rc = copy_dir(c, sub, dst, depth + 1);
	close(dst);
	return rc;
}

/* Takes from (closed here). */
static int copy_dir(struct copy *c, int from, int to, int depth)
{
	DIR *d = fdopendir(from);
	struct dirent *e;
	int rc = 0;

	if (!d) {
		close(from);
		return fail(c, ".", strerror(errno));
	}
	while (rc == 0 && (errno = 0, e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			rc = copy_entry(c, dirfd(d), to, e->d_name, depth);
	if (rc == 0 && errno)
		rc = fail(c, ".", strerror(errno));
	closedir(d);
	return rc;
}

int learn_inputs(const char *sample, char **samples, int nsamples,
    const char *out, char *dir, size_t len, char *err, size_t errlen)
{
	char from[4096];
	struct copy c = { .err = err, .errlen = errlen, .from = from,
	    .samples = samples, .nsamples = nsamples };
	struct stat st;
	char *slash;
	int src, dst, rc;

	snprintf(from, sizeof(from), "%s", sample);
	slash = strrchr(from, '/');
	if (!slash)
		snprintf(from, sizeof(from), ".");
	else
		slash[slash == from] = '\0';
	if ((size_t)snprintf(dir, len, "%s.inputs.XXXXXX", out) >= len ||
	    !mkdtemp(dir)) {
		snprintf(err, errlen, "%s.inputs.XXXXXX: %s", out,
		    strerror(errno));
		return -1;
	}
	dst = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	src = open(from, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dst < 0 || src < 0 || fstat(dst, &st) < 0) {
		snprintf(err, errlen, "%s: %s", dst < 0 ? dir : from,
		    strerror(errno));
		rc = -1;
	} else {
		c.dev = st.st_dev;
		c.ino = st.st_ino;
		rc = copy_dir(&c, src, dst, 0);
		src = -1;
	}
	if (src >= 0)
		close(src);
	if (dst >= 0)
		close(dst);
	if (rc < 0)
		learn_inputs_remove(dir);
	return rc;
}

/* The entries of the folder at fd (closed here), then nothing followed:
 * unlinkat never follows, a folder is opened O_NOFOLLOW. */
static int empty_dir(int fd, int depth)
{
	DIR *d = fdopendir(fd);
	struct dirent *e;
	int sub, rc = 0;

	if (!d) {
		close(fd);
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) == 0)
			continue;
		sub = depth < LEARN_COPY_DEPTH * 4 ? openat(dirfd(d),
		    e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC) : -1;
		if (sub < 0 || empty_dir(sub, depth + 1) < 0 ||
		    unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR) < 0)
			rc = -1;
	}
	closedir(d);
	return rc;
}

int learn_inputs_remove(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 || empty_dir(fd, 0) < 0 || rmdir(dir) < 0) {
		fprintf(stderr, "cordonc learn: %s: not all removed: %s\n",
		    dir, strerror(errno));
		return -1;
	}
	return 0;
}
