/* outfile.c - atomic output files for cordonc (blobs, profiles, reports). */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"
#include "wall.h"

/* Renaming over a device node or a symlink would replace it: refuse. */
static int target_ok(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -1;
	if (S_ISREG(st.st_mode))
		return 0;
	errno = EEXIST;
	fprintf(stderr, "cordonc: error: %s exists and is not a regular "
	    "file; refusing to replace it\n", path);
	return -2;
}

int outfile_write(const char *path, const void *buf, size_t len)
{
	char *dcopy = NULL, *tmp = NULL;
	int fd, ret = -1, ok;

	if (strcmp(path, "-") == 0) {
		if (fwrite(buf, 1, len, stdout) == len && fflush(stdout) == 0)
			return 0;
		goto out;
	}
	ok = target_ok(path);
	if (ok == -2)
		return -1;
	if (ok < 0)
		goto out;
	dcopy = strdup(path);
	if (!dcopy || asprintf(&tmp, "%s/.cordonc.XXXXXX", dirname(dcopy)) < 0) {
		tmp = NULL;
		goto out;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		goto out;
	if (fchmod(fd, 0644) < 0 || write_all(fd, buf, len) < 0 ||
	    fsync(fd) < 0) {
		close(fd);
		goto out_unlink;
	}
	if (close(fd) < 0 || rename(tmp, path) < 0)
		goto out_unlink;
	ret = 0;
	goto out;
out_unlink:
	unlink(tmp);
out:
	if (ret < 0)
		fprintf(stderr, "cordonc: error: cannot write %s: %s\n", path,
		    strerror(errno));
	free(tmp);
	free(dcopy);
	return ret;
}
