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
#include <fcntl.h>
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

/* The last bytes of a run's standard error, said when it fails. */
#define LEARN_TAIL 4096
struct tail { char buf[LEARN_TAIL + 1]; size_t len; };

/* Read fd to its end, keeping the last LEARN_TAIL bytes. */
static void tail_read(int fd, struct tail *t)
{
	char chunk[4096];
	ssize_t n;
	size_t keep;

	t->len = 0;
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if ((size_t)n >= LEARN_TAIL) {
			memcpy(t->buf, chunk + n - LEARN_TAIL, LEARN_TAIL);
			t->len = LEARN_TAIL;
			continue;
		}
		keep = t->len + (size_t)n > LEARN_TAIL ? LEARN_TAIL -
		    (size_t)n : t->len;
		memmove(t->buf, t->buf + t->len - keep, keep);
		memcpy(t->buf + keep, chunk, (size_t)n);
		t->len = keep + (size_t)n;
	}
	t->buf[t->len] = '\0';
}

/* What a failed run said on stderr, each line indented; bytes that are
 * not printable ASCII shown as '?'. */
static void tail_say(const char *sample, const struct tail *t)
{
	size_t i;
	int bol = 1;

	if (!t->len) {
		fprintf(stderr, "cordonc learn: %s wrote nothing on stderr\n",
		    sample);
		return;
	}
	fprintf(stderr, "cordonc learn: %s: the end of its stderr:\n",
	    sample);
	for (i = 0; i < t->len; i++) {
		if (bol)
			fputs("  | ", stderr);
		bol = t->buf[i] == '\n';
		fputc(bol || (t->buf[i] >= 0x20 && t->buf[i] < 0x7f) ||
		    t->buf[i] == '\t' ? t->buf[i] : '?', stderr);
	}
	if (!bol)
		fputc('\n', stderr);
}

/* Run argv; its output goes to stderr (quiet: to /dev/null; t: stdout
 * to /dev/null, stderr's end into t).  Returns the exit status, or -1. */
static int run(char *const *argv, int quiet, struct tail *t)
{
	int status, p[2] = { -1, -1 };
	pid_t pid;

	if (t && pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		if (t) {
			close(p[0]);
			close(p[1]);
		}
		return -1;
	}
	if (pid == 0) {
		if (((quiet || t) && !freopen("/dev/null", "w", stdout)) ||
		    (!t && dup2(2, 1) < 0) || (t && dup2(p[1], 2) < 0))
			_exit(125);
		if (quiet && !t && !freopen("/dev/null", "w", stderr))
			_exit(125);
		execv(argv[0], argv);
		_exit(127);
	}
	if (t) {
		close(p[1]);
		tail_read(p[0], t);
		close(p[0]);
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
	return run(argv, quiet, NULL);
}

/* One run of sample under blob, with the files beside it as its
 * workdir's (learn_copy.c): observed into trace, or (trace NULL) the
 * learned policy's run, with --landlock-watch so that a refusal is named.
 * Its stderr's end into t. */
static int cordon(struct job *j, const char *blob, const char *sample,
    const char *trace, struct tail *t)
{
	char *argv[LEARN_MAX_RESOLVE * 2 + 14], wd[PATH_MAX], err[1024];
	int n = 0, i, rc;

	if (learn_inputs(sample, j->samples, j->nsamples, j->out, wd,
	    sizeof(wd), err, sizeof(err)) < 0) {
		snprintf(t->buf, sizeof(t->buf), "cordonc learn: %.4000s\n", err);
		t->len = strlen(t->buf);
		return -1;
	}
	argv[n++] = j->cordon;
	argv[n++] = trace ? "--quiet" : "--landlock-watch";
	argv[n++] = "--workdir";
	argv[n++] = wd;
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
	rc = run(argv, 1, t);
	if (learn_inputs_remove(wd) < 0 && rc == 0)
		rc = -1;
	return rc;
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

/* A sample's trace said cordon (or its proxy) dropped records: the
 * policy cannot be whole, and learn fails, saying so. */
static void say_dropped(const char *sample, uint64_t n)
{
	fprintf(stderr, "cordonc learn: %s: INCOMPLETE: cordon dropped %llu "
	    "observation%s of this sample (its tables were full): the "
	    "policy written lacks them, and learn fails\n", sample,
	    (unsigned long long)n, n == 1 ? "" : "s");
}

/* Run each sample under the base with cordon --observe; read its trace.
 * Returns 0, 1 (a trace dropped records: said), or -1. */
static int observe(struct job *j, struct learn *l)
{
	static struct tail t;
	char err[512];
	uint64_t before;
	FILE *f;
	int i, rc, lost = 0;

	for (i = 0; i < j->nsamples; i++) {
		snprintf(j->trace, sizeof(j->trace), "%s.trace", j->out);
		rc = cordon(j, j->blob, j->samples[i], j->trace, &t);
		f = rc == 0 ? fopen(j->trace, "re") : NULL;
		if (!f) {
			fprintf(stderr, "cordonc learn: %s failed under "
			    "observation (cordon exit %d): it must run under "
			    "its own steam first\n", j->samples[i], rc);
			tail_say(j->samples[i], &t);
			unlink(j->trace);
			return -1;
		}
		before = l->dropped;
		rc = learn_read(f, strrchr(j->samples[i], '/') ?
		    strrchr(j->samples[i], '/') + 1 : j->samples[i], l, err,
		    sizeof(err));
		fclose(f);
		unlink(j->trace);
		if (rc < 0) {
			fprintf(stderr, "cordonc learn: %s\n", err);
			return -1;
		}
		if (l->dropped > before) {
			say_dropped(j->samples[i], l->dropped - before);
			lost = 1;
		}
	}
	return lost;
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
	static struct tail t;
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
		rc = cordon(j, j->learned, j->samples[i], NULL, &t);
		fprintf(stderr, "cordonc learn: %s under %s: %s (exit %d)\n",
		    j->samples[i], j->learned, rc == 0 ? "passes" : "FAILS",
		    rc);
		if (rc != 0)
			tail_say(j->samples[i], &t);
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
	int rc = CORDONC_EXIT_POLICY, lost;

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
	lost = observe(&j, &l);
	if (lost >= 0 && write_policy(&j, &l) == 0) {
		fprintf(stderr, "cordonc learn: wrote %s%s\n", j.out, lost ?
		    " (INCOMPLETE: see above)" : "");
		rc = prove(&j) == 0 && !lost ? 0 : CORDONC_EXIT_POLICY;
	}
	unlink(j.blob);
	learn_free(&l);
	return rc;
}
