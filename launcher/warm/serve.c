/*
 * serve.c - cordon --serve @NAME POLICY: become a warm pool's template.
 *
 * The template is the policy's own interpreter (the command's words
 * before "$SNIPPET", which must be a word of its own) running cordon's
 * warm.py (its modules, warm_*.py, beside it), found next to cordon
 * (companion.c: BUILD/warm/, or PREFIX/lib/cordon/warm/ for an installed
 * cordon, itself next to PREFIX/bin/cordon), with:
 *   - the policy's environment and nothing of the caller's, with
 *     $WORKDIR bound to a fresh private directory of the template's
 *     (imports may write caches there; no run ever sees it);
 *   - no_new_privs, non-dumpable again in warm.py (its extension);
 *   - every descriptor above 2 closed at the exec;
 *   - the arguments: the abstract socket name, the blob's absolute path,
 *     the index of the snippet in a run's argv, the preloads;
 *   - the lock on its directory held (warmdir.c): the template removes
 *     the directory when it stops, the next pool when it was killed.
 * Each run is then cordon itself, in a fork of the template's maker, by
 * the extension (launcher/warm/pywarm.c): every layer of a cold run, built by
 * the same code; only the payload's execve is replaced (run.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/close_range.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cordon.h"
#include "warm.h"

#define SERVE_ARGV_MAX (CPOL_MAX_ARGV + CPOL_MAX_PRELOAD + 64)

const int pool_built = 1;

/* The index of the "$SNIPPET" word, or -1. */
static int snippet_word(const struct cpol *p)
{
	uint32_t i;

	for (i = 1; i < p->nargv; i++)
		if (strcmp(p->argv[i], "$SNIPPET") == 0)
			return (int)i;
	return -1;
}

/* The pool's own options (--idle, --nice, --limit, --cgroup: every
 * spare's set-up), from cordon's argv: all before the policy but
 * --serve.  Returns the new count, or -1 (too many). */
static int pool_opts(char **argv, char **out, int n)
{
	int i;

	for (i = 1; i < optind; i++) {
		if (strcmp(argv[i], "--serve") == 0) {
			i++;
			continue;
		}
		if (strncmp(argv[i], "--serve=", 8) == 0)
			continue;
		if (n >= SERVE_ARGV_MAX - CPOL_MAX_PRELOAD - 2)
			return -1;
		out[n++] = argv[i];
	}
	return n;
}

/* No template: its directory removed (the lock goes with cordon). */
static int gone(const char *dir, char **envp)
{
	char msg[ERRLEN];

	if (warmdir_remove(dir, msg, sizeof(msg)) < 0)
		fprintf(stderr, "cordon: %s\n", msg);
	if (envp)
		command_free(envp);
	return EXIT_CORDON;
}

int serve_exec(const struct opts *o, const struct cpol *p, char **cargv,
    char *err)
{
	static char *argv[SERVE_ARGV_MAX];
	/* static: argv points at them (an exec, or an error, follows) */
	static char warm[PATH_MAX], blob[PATH_MAX], idx[16];
	static char dir[] = "/tmp/cordon-warm.XXXXXX";
	char **envp, why[240];
	int at = snippet_word(p), n = 0, i, held, e = 0;
	uint32_t k;

	if (o->serve[0] != '@' || strlen(o->serve) < 2 ||
	    strlen(o->serve) > 100) {
		snprintf(err, ERRLEN, "--serve takes an abstract socket name, "
		    "@NAME (no file a run could reach)");
		return EXIT_CORDON;
	}
	if (at < 0 || !strstr(p->argv[0], "python")) {
		snprintf(err, ERRLEN, "a warm pool needs a Python command with "
		    "\"$SNIPPET\" as a word of its own");
		return EXIT_CORDON;
	}
	if (companion_path("warm/warm.py", warm, sizeof(warm)) < 0 || !realpath(o->policy, blob)) {
		snprintf(err, ERRLEN, "warm.py (next to cordon) or the policy's "
		    "path: %s", strerror(errno));
		return EXIT_CORDON;
	}
	if (!run_probe_ns(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET |
	    CLONE_NEWNS, (p->flags & CPOL_F_NET_HOSTS) != 0, why,
	    sizeof(why), &e) || why[0]) {
		if (!why[0])
			ns_cause(e, why, sizeof(why));
		snprintf(err, ERRLEN, "a warm pool's runs need namespaces (each "
		    "its own PID namespace), and a run could not make them "
		    "(%s): run cold instead", why);
		return EXIT_CORDON;
	}
	warmdir_sweep();
	if ((held = warmdir_make(dir, err)) < 0)
		return EXIT_CORDON;
	envp = command_envp(p, dir);
	for (i = 0; i < at; i++)
		argv[n++] = p->argv[i];
	snprintf(idx, sizeof(idx), "%d", at);
	argv[n++] = warm;
	argv[n++] = (char *)o->serve;
	argv[n++] = blob;
	argv[n++] = idx;
	argv[n++] = dir;
	if ((n = pool_opts(cargv, argv, n)) < 0) {
		snprintf(err, ERRLEN, "too many options");
		return gone(dir, envp);
	}
	argv[n++] = "--";
	for (k = 0; k < p->npreload; k++)
		argv[n++] = p->preload[k];
	argv[n] = NULL;
	/* Every descriptor but the lock closed at the exec. */
	if (!envp || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC) < 0 ||
	    fcntl(held, F_SETFD, 0) < 0) {
		snprintf(err, ERRLEN, "template set-up: %s", strerror(errno));
		return gone(dir, envp);
	}
	execve(argv[0], argv, envp);
	snprintf(err, ERRLEN, "%s: %s", argv[0], strerror(errno));
	return gone(dir, envp);
}
