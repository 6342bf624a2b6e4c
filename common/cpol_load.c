/* cpol_load.c - read a blob file whole, then validate it (cpol_read). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpol.h"
#include "infile.h"

int cpol_load(const char *path, unsigned int flags, struct cpol *out,
    char *err, size_t errlen)
{
	struct stat st;
	uint8_t *buf = NULL;
	size_t len;
	int fd, rc = -1;

	memset(out, 0, sizeof(*out));
	fd = infile_open(path, O_NOFOLLOW, &st);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, infile_strerror(errno));
		return -1;
	}
	if (st.st_size < CPOL_HEADER_LEN || st.st_size > CPOL_MAX_SIZE) {
		snprintf(err, errlen, "%s: size %lld is outside %u..%u", path,
		    (long long)st.st_size, CPOL_HEADER_LEN, CPOL_MAX_SIZE);
		goto close_fd;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto close_fd;
	}
	if (infile_read(fd, &st, (char *)buf, (size_t)st.st_size, &len) < 0) {
		snprintf(err, errlen, "%s: %s", path, infile_strerror(errno));
		goto free_buf;
	}
	if (cpol_read_flags(buf, len, flags, out, err, errlen) < 0) {
		/* Prefix the file name without losing the reader's words. */
		char msg[512];

		snprintf(msg, sizeof(msg), "%s", err);
		snprintf(err, errlen, "%s: %s", path, msg);
		goto free_buf;
	}
	rc = 0;
free_buf:
	free(buf);
close_fd:
	close(fd);
	return rc;
}
