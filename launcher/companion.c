/*
 * companion.c - the files that come with cordon, found beside the running
 * program: in the build folder (BUILD/NAME, next to BUILD/cordon) or, for
 * an installed cordon (PREFIX/bin/cordon), in PREFIX/lib/cordon/NAME.
 * Never through PATH or the environment.  The warm pool's warm.py
 * (serve.c) and the programs that hold a feature the plain cold core
 * leaves out are found here and only here.
 *
 * The programs: each is cordon's own core with a feature room linked in
 * (launcher/build.mk).  cordon executes one with its own command line,
 * unchanged, after the blob is validated and the plan made and before
 * anything of the run exists; the descriptors it holds (0-2, a --status-fd,
 * a --fd) stay open across the exec, no other (close-on-exec).  The
 * program trusts nothing of cordon's but its command line and those
 * descriptors, validates the blob and makes the plan again itself, and
 * runs with the same privileges (an exec changes none: every program is
 * installed 0755, not set-id).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cordon.h"

/* Which program holds what, the smallest first: a run goes to the first
 * that holds all it needs. */
static const struct program {
	const char *name;
	unsigned int holds;
	const char *what;               /* for the error: what it is for */
} programs[] = {
	{ "cordon-audit", HOLD_AUDIT, "reading the kernel's audit records "
	    "(root, the kernel's audit on)" },
	{ "cordon-egress", HOLD_EGRESS | HOLD_AUDIT,
	    "a policy with named hosts" },
	{ "cordon-tls", HOLD_EGRESS | HOLD_TLS | HOLD_AUDIT,
	    "a policy with HTTP hosts" },
	{ "cordon-observe", HOLD_EGRESS | HOLD_TLS | HOLD_LEARN | HOLD_AUDIT,
	    "--observe and --landlock-watch" },
	{ "cordon-pool", HOLD_POOL, "--serve and --submit (warm pools)" },
};

static int self_dir(char *self, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", self, len - 1);
	char *slash;

	if (n <= 0)
		return -1;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash) {
		errno = ENOENT;
		return -1;
	}
	*slash = '\0';
	return (int)(slash - self);
}

int companion_path(const char *name, char *out, size_t len)
{
	static const char *const rel[] = { "", "../lib/cordon/" };
	char self[PATH_MAX];
	struct stat st;
	size_t i;

	if (self_dir(self, sizeof(self)) < 0)
		return -1;
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

/* This program's own name is the one chosen: it was executed for needs
 * it does not hold (a file copied over another), and executing it again
 * would loop. */
static int is_self(const char *name)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	const char *base;

	if (n <= 0)
		return 1;               /* cannot tell: do not exec */
	self[n] = '\0';
	base = strrchr(self, '/');
	return strcmp(base ? base + 1 : self, name) == 0;
}

int companion_exec(unsigned int needs, unsigned int holds, char **argv,
    char *err)
{
	static char path[PATH_MAX];
	const struct program *p = NULL;
	size_t i;

	if ((needs & ~holds) == 0)
		return 0;
	for (i = 0; !p && i < sizeof(programs) / sizeof(programs[0]); i++)
		if ((needs & ~programs[i].holds) == 0)
			p = &programs[i];
	if (!p) {
		snprintf(err, ERRLEN, "no program of cordon's holds all this "
		    "run asks for (features 0x%x)", needs);
		return EXIT_CORDON;
	}
	if (is_self(p->name)) {
		snprintf(err, ERRLEN, "this %s lacks what %s needs: the "
		    "installation is broken", p->name, p->what);
		return EXIT_CORDON;
	}
	if (companion_path(p->name, path, sizeof(path)) == 0)
		execv(path, argv);
	snprintf(err, ERRLEN, "%s is run by %s (beside cordon, or in "
	    "PREFIX/lib/cordon/): %s", p->what, p->name, strerror(errno));
	return EXIT_CORDON;
}
