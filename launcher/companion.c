/*
 * companion.c - the files that come with cordon, found beside the running
 * program: in the build folder (BUILD/NAME, next to BUILD/cordon) or, for
 * an installed cordon (PREFIX/bin/cordon), in PREFIX/lib/cordon/NAME.
 * The warm pool's warm.py (serve.c) and cordon-tls, the program with the
 * egress proxy's TLS (main.c), are found here and only here.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cordon.h"

int companion_path(const char *name, char *out, size_t len)
{
	static const char *const rel[] = { "", "../lib/cordon/" };
	char self[PATH_MAX], *slash;
	struct stat st;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	size_t i;

	if (n <= 0)
		return -1;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	for (i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		if (snprintf(out, len, "%s/%s%s", self, rel[i], name) >=
		    (int)len) {
			errno = ENAMETOOLONG;
			return -1;
		}
		if (stat(out, &st) == 0 && S_ISREG(st.st_mode))
			return 0;
	}
	errno = ENOENT;
	return -1;
}
