/*
 * driver.c - a main() for the fuzz harnesses without libFuzzer: feed each
 * file named on the command line (or each regular file in a directory
 * named there) to LLVMFuzzerTestOneInput once.  This is how `make check`
 * replays tests/fuzz/regressions/<harness>/ with gcc and the hardened
 * build, and `make sanitize` with ASan and UBSan.  A file named "ok-*"
 * must also be accepted (fuzz_expect_accept).  A failing input aborts
 * inside the harness; a file that cannot be read is exit status 2.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

/* Larger than any input a harness accepts (CPOL_MAX_SIZE is 4 MiB). */
#define DRIVER_MAX_INPUT (8u << 20)

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	const char *base;
	size_t len;

	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	buf = malloc(DRIVER_MAX_INPUT);
	if (!buf) {
		fclose(f);
		fprintf(stderr, "%s: out of memory\n", path);
		return -1;
	}
	len = fread(buf, 1, DRIVER_MAX_INPUT, f);
	if (ferror(f) || !feof(f)) {
		fprintf(stderr, "%s: read error or larger than %u bytes\n",
		    path, DRIVER_MAX_INPUT);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	/* Exactly len bytes, so ASan sees reads past the end. */
	{
		uint8_t *exact = malloc(len ? len : 1);

		if (!exact) {
			free(buf);
			return -1;
		}
		memcpy(exact, buf, len);
		free(buf);
		base = strrchr(path, '/');
		base = base ? base + 1 : path;
		fuzz_expect_accept = strncmp(base, "ok-", 3) == 0;
		LLVMFuzzerTestOneInput(exact, len);
		fuzz_expect_accept = 0;
		free(exact);
	}
	return 0;
}

static int run_dir(const char *dir, unsigned int *n)
{
	struct dirent **ents;
	int i, count, rc = 0;

	count = scandir(dir, &ents, NULL, alphasort);
	if (count < 0) {
		fprintf(stderr, "%s: %s\n", dir, strerror(errno));
		return -1;
	}
	for (i = 0; i < count; i++) {
		char path[4096];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
		if (ents[i]->d_name[0] != '.' && stat(path, &st) == 0 &&
		    S_ISREG(st.st_mode)) {
			if (run_file(path) < 0)
				rc = -1;
			else
				(*n)++;
		}
		free(ents[i]);
	}
	free(ents);
	return rc;
}

int main(int argc, char **argv)
{
	unsigned int n = 0;
	int i, rc = 0;
	struct stat st;

	if (LLVMFuzzerInitialize(&argc, &argv) != 0)
		return 2;
	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			if (run_dir(argv[i], &n) < 0)
				rc = 2;
		} else if (run_file(argv[i]) < 0) {
			rc = 2;
		} else {
			n++;
		}
	}
	printf("%s: %u inputs replayed\n", argv[0], n);
	return rc;
}
