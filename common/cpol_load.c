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

/* Text where a blob was expected (no magic, no NUL or control byte in
 * its first bytes): most likely the policy's source, not compiled. */
static int source_text(const uint8_t *buf, size_t len)
{
	size_t i;

	if (len >= CPOL_MAGIC_LEN && memcmp(buf, CPOL_MAGIC,
	    CPOL_MAGIC_LEN) == 0)
		return 0;
	for (i = 0; i < len && i < 512; i++)
		if ((buf[i] < 0x20 && buf[i] != '\n' && buf[i] != '\t' &&
		    buf[i] != '\r') || buf[i] == 0x7f)
			return 0;
	return len > 0;
}

/* The message for a source given as a blob: the command that makes one
 * (NAME.policy -> NAME.cpol). */
static void say_source(const char *path, char *err, size_t errlen)
{
	size_t n = strlen(path);
	int stem = n > 7 && strcmp(path + n - 7, ".policy") == 0 ? (int)n - 7 :
	    (int)n;

	snprintf(err, errlen, "%s: a policy source, not a compiled blob: "
	    "compile it with cordonc first (cordonc compile -o %.*s.cpol %s)",
	    path, stem, path, path);
}

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
	if (st.st_size > CPOL_MAX_SIZE) {
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
	if (source_text(buf, len)) {
		say_source(path, err, errlen);
		goto free_buf;
	}
	if (len < CPOL_HEADER_LEN) {
		snprintf(err, errlen, "%s: size %zu is outside %u..%u", path,
		    len, CPOL_HEADER_LEN, CPOL_MAX_SIZE);
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
