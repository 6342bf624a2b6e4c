/*
 * learn.c - cordonc learn: run trusted samples under the base with
 * enforcement relaxed (cordon --observe), write a policy that lets them
 * run (learn_write.c), compile and lint it, then run the samples again
 * under it and say whether they pass.  cordonc drives cordon as a
 * program: the launcher never links the compiler.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cliopt.h"
#include "learn.h"
#include "outfile.h"

#define LEARN_MAX_SAMPLES 32
#define LEARN_MAX_RESOLVE 16  /* cordon's --resolve takes as many */

struct job {
	char self[PATH_MAX], cordon[PATH_MAX];
	const char *out, *base;
	struct compile_opts in;     /* -I only: passed on to cordonc */
	char *resolve[LEARN_MAX_RESOLVE];
	int nresolve, hosts;
	char **samples;
	int nsamples;
	char blob[PATH_MAX], learned[PATH_MAX], trace[PATH_MAX];
};

/* Run argv; its output goes to stderr (quiet: to /dev/null).  Returns
 * the exit status, or -1. */
static int run(char *const *argv, int quiet)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if ((quiet && !freopen("/dev/null", "w", stdout)) ||
		    dup2(2, 1) < 0)
			_exit(125);
		if (quiet && !freopen("/dev/null", "w", stderr))
			_exit(125);
		execv(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 +
	    WTERMSIG(status);
}

/* cordonc SUB [-I DIR]... [extra] FILE */
static int self(struct job *j, const char *sub, const char *o,
    const char *file, int quiet)
{
	char *argv[PARSE_MAX_INCDIRS * 2 + 8];
	int n = 0, i;

	argv[n++] = j->self;
	argv[n++] = (char *)sub;
	for (i = 0; i < (int)j->in.nincdirs; i++) {
		argv[n++] = "-I";
		argv[n++] = (char *)j->in.incdirs[i];
	}
	if (o) {
		argv[n++] = "-o";
		argv[n++] = (char *)o;
	}
	argv[n++] = (char *)file;
	argv[n] = NULL;
	return run(argv, quiet);
}

static int cordon(struct job *j, const char *blob, const char *sample,
    const char *trace)
{
	char *argv[LEARN_MAX_RESOLVE * 2 + 10];
	int n = 0, i;

	argv[n++] = j->cordon;
	argv[n++] = "--quiet";
	for (i = 0; i < j->nresolve; i++) {
		argv[n++] = "--resolve";
		argv[n++] = j->resolve[i];
	}
	if (trace) {
		argv[n++] = "--observe";
		argv[n++] = (char *)trace;
	}
	if (trace && j->hosts)
		argv[n++] = "--observe-hosts";
	argv[n++] = (char *)blob;
	argv[n++] = (char *)sample;
	argv[n] = NULL;
	return run(argv, 1);
}

/* The include line: relative to OUT's directory when BASE is beneath
 * it, else absolute. */
static int include_of(const struct job *j, char *inc, size_t len)
{
	char b[PATH_MAX], o[PATH_MAX], dir[PATH_MAX];
	size_t n;

	snprintf(dir, sizeof(dir), "%s", j->out);
	if (!realpath(j->base, b) || !realpath(dirname(dir), o))
		return -1;
	n = strlen(o);
	if (strncmp(b, o, n) == 0 && b[n] == '/')
		snprintf(inc, len, "%s", b + n + 1);
	else
		snprintf(inc, len, "%s", b);
	return 0;
}

/* A policy name from OUT's file name: [a-z0-9_-], at most 64. */
static void name_of(const char *out, char *name, size_t len)
{
	const char *b = strrchr(out, '/') ? strrchr(out, '/') + 1 : out;
	size_t i = 0;

	for (; *b && *b != '.' && i + 1 < len && i < 64; b++)
		name[i++] = (*b >= 'A' && *b <= 'Z') ? (char)(*b + 32) :
		    strchr("abcdefghijklmnopqrstuvwxyz0123456789_-", *b) ?
		    *b : '-';
	if (i == 0)
		name[i++] = 'l';
	name[i] = '\0';
}

static int options(int argc, char **argv, struct job *j)
{
	static const struct option lo[] = {
		{ "cordon", 1, NULL, 'c' }, { "hosts", 0, NULL, 'H' },
		{ "resolve", 1, NULL, 'R' }, { NULL, 0, NULL, 0 },
	};
	const char *c = getenv("CORDON");
	int ch, r = 0;
	ssize_t n;

	j->out = "learned.policy";
	optind = 1;
	while ((ch = getopt_long(argc, argv, "o:I:", lo, NULL)) != -1) {
		if (ch == 'o')
			j->out = optarg;
		else if (ch == 'I')
			r = cliopt_source(&j->in, ch, optarg);
		else if (ch == 'c')
			c = optarg;
		else if (ch == 'H')
			j->hosts = 1;
		else if (ch == 'R' && j->nresolve < LEARN_MAX_RESOLVE)
			j->resolve[j->nresolve++] = optarg;
		else
			return -1;
		if (r < 0)
			return -1;
	}
	if (argc - optind < 2 || argc - optind - 1 > LEARN_MAX_SAMPLES)
		return -1;
	j->base = argv[optind];
	j->samples = argv + optind + 1;
	j->nsamples = argc - optind - 1;
	n = readlink("/proc/self/exe", j->self, sizeof(j->self) - 1);
	if (n <= 0)
		return -1;
	j->self[n] = '\0';
	if (c)
		snprintf(j->cordon, sizeof(j->cordon), "%s", c);
	else
		snprintf(j->cordon, sizeof(j->cordon), "%.*s/cordon",
		    (int)(strrchr(j->self, '/') - j->self), j->self);
	snprintf(j->blob, sizeof(j->blob), "%s.base.cpol", j->out);
	snprintf(j->learned, sizeof(j->learned), "%.*s.cpol",
	    (int)(strlen(j->out) > 7 && !strcmp(j->out + strlen(j->out) - 7,
	    ".policy") ? strlen(j->out) - 7 : strlen(j->out)), j->out);
	return 0;
}

/* Run each sample under the base with cordon --observe; read its trace. */
static int observe(struct job *j, struct learn *l)
{
	char err[512];
	FILE *f;
	int i, rc;

	for (i = 0; i < j->nsamples; i++) {
		snprintf(j->trace, sizeof(j->trace), "%s.trace", j->out);
		rc = cordon(j, j->blob, j->samples[i], j->trace);
		f = fopen(j->trace, "re");
		if (rc != 0 || !f) {
			fprintf(stderr, "cordonc learn: %s failed under "
			    "observation (cordon exit %d): it must run under "
			    "its own steam first\n", j->samples[i], rc);
			if (f)
				fclose(f);
			unlink(j->trace);
			return -1;
		}
		rc = learn_read(f, strrchr(j->samples[i], '/') ?
		    strrchr(j->samples[i], '/') + 1 : j->samples[i], l, err,
		    sizeof(err));
		fclose(f);
		unlink(j->trace);
		if (rc < 0) {
			fprintf(stderr, "cordonc learn: %s\n", err);
			return -1;
		}
	}
	return 0;
}

/* The policy is built in memory and written as every output is
 * (common/outfile.c). */
static int write_policy(struct job *j, const struct learn *l)
{
	char inc[PATH_MAX], name[72], err[OUTFILE_ERRLEN], *buf = NULL;
	struct cpol base;
	size_t len = 0;
	FILE *f;
	int rc;

	if (cpol_load(j->blob, 0, &base, err, sizeof(err)) < 0) {
		fprintf(stderr, "cordonc learn: %s\n", err);
		return -1;
	}
	name_of(j->out, name, sizeof(name));
	f = include_of(j, inc, sizeof(inc)) < 0 ? NULL :
	    open_memstream(&buf, &len);
	rc = f && learn_write(f, l, &base, inc, name, j->samples,
	    j->nsamples) == 0 ? 0 : -1;
	if (f && fclose(f) != 0)
		rc = -1;
	if (rc < 0)
		snprintf(err, sizeof(err), "%s: %s", j->out, strerror(errno));
	else
		rc = outfile_write(j->out, buf, len, OUTFILE_SYNC, err,
		    sizeof(err));
	if (rc < 0)
		fprintf(stderr, "cordonc learn: %s\n", err);
	free(buf);
	cpol_free(&base);
	return rc;
}

/* Compile and lint the learned policy, run the samples under it. */
static int prove(struct job *j)
{
	int i, rc, failed = 0;

	if (self(j, "compile", j->learned, j->out, 0) != 0) {
		fprintf(stderr, "cordonc learn: %s does not compile\n", j->out);
		return -1;
	}
	if (self(j, "lint", NULL, j->out, 1) != 0) {
		fprintf(stderr, "cordonc learn: %s: lint reports errors "
		    "(cordonc lint %s)\n", j->out, j->out);
		return -1;
	}
	for (i = 0; i < j->nsamples; i++) {
		rc = cordon(j, j->learned, j->samples[i], NULL);
		fprintf(stderr, "cordonc learn: %s under %s: %s (exit %d)\n",
		    j->samples[i], j->learned, rc == 0 ? "passes" : "FAILS",
		    rc);
		failed |= rc != 0;
	}
	return failed ? -1 : 0;
}

/* OUT is read back (compiled, linted) and names the files beside it
 * (OUT.base.cpol, OUT.trace): a regular file or nothing yet, checked
 * before any sample runs. */
static int out_ok(const char *out)
{
	struct stat st;

	if (lstat(out, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		fprintf(stderr, "cordonc learn: %s: %s\n", out,
		    strerror(errno));
		return -1;
	}
	if (S_ISREG(st.st_mode))
		return 0;
	fprintf(stderr, "cordonc learn: %s: not a regular file (the learned "
	    "policy is compiled and linted after it is written)\n", out);
	return -1;
}

int learn_cmd(int argc, char **argv)
{
	static struct learn l;
	struct job j;
	int rc = CORDONC_EXIT_POLICY;

	memset(&j, 0, sizeof(j));
	if (options(argc, argv, &j) < 0) {
		fprintf(stderr, "usage: cordonc %s\ncordonc learn --help "
		    "describes every option\n", LEARN_USAGE);
		return CORDONC_EXIT_USAGE;
	}
	if (out_ok(j.out) < 0)
		return CORDONC_EXIT_POLICY;
	memset(&l, 0, sizeof(l));
	l.memory = l.files = UINT64_MAX;
	fprintf(stderr, "cordonc learn: LEARN MODE: the samples run with "
	    "enforcement relaxed (no Landlock, %s, refused calls let "
	    "through); use trusted samples only\n", j.hosts ? "cordon's "
	    "egress proxy letting every host through" : "no network "
	    "namespace");
	if (self(&j, "compile", j.blob, j.base, 0) != 0) {
		fprintf(stderr, "cordonc learn: the base %s does not compile\n",
		    j.base);
		return CORDONC_EXIT_POLICY;
	}
	if (observe(&j, &l) == 0 && write_policy(&j, &l) == 0) {
		fprintf(stderr, "cordonc learn: wrote %s\n", j.out);
		rc = prove(&j) == 0 ? 0 : CORDONC_EXIT_POLICY;
	}
	unlink(j.blob);
	learn_free(&l);
	return rc;
}
