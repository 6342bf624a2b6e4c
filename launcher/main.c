/*
 * main.c - cordon: run a snippet under a compiled policy.
 *
 * Options are parsed into struct opts (opts.c); then, in order: validate
 * the whole blob, probe the kernel (probe.c) and make the run's plan
 * (plan.c), which refuses what cannot be enforced, read the snippet, make
 * the workdir, build the Landlock ruleset, start the child (run.c),
 * supervise it, report, clean up.  Nothing irreversible happens
 * before the blob is validated and every rule path is open.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/audit.h>

#include "bpf.h"
#include "kaudit.h"
#include "outfile.h"
#include "plan.h"
#include "units.h"
#include "learnmode.h"
#include "pool.h"

/* Descriptors 0-2 exist (so no pipe lands on them); returns a
 * close-on-exec /dev/null above them (the child's stdin), or -1. */
static int fds_sane(void)
{
	int fd;

	while ((fd = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0 && fd <= 2)
		if (fcntl(fd, F_SETFD, 0) < 0)
			return -1;
	return fd;
}

/* Validate the blob, ask the kernel (probe.c) and make the run's plan
 * (plan.c), which refuses what cannot hold.  Returns 0 or -1. */
static int prepare(const struct opts *o, struct cpol *pol,
    struct probe *pr, struct run_plan *pl, struct report *r, char *err)
{
	char msg[ERRLEN - 64];
	int rc;

	if (cpol_load(o->policy, CPOL_READ_NO_RULES, pol, err, ERRLEN) < 0)
		return -1;
	r->policy = pol->name;
	r->digest = pol->blob_digest;
	if (pol->arch != AUDIT_ARCH_X86_64) {
		snprintf(err, ERRLEN, "%s: blob is for architecture 0x%x, "
		    "this machine is 0x%x", o->policy, pol->arch,
		    AUDIT_ARCH_X86_64);
		return -1;
	}
	/* The kernel would refuse a bad program only in the child, after
	 * the workdir exists; bpf_check refuses it (and more) now. */
	if (bpf_check(pol->insns, pol->ninsns, msg, sizeof(msg)) < 0) {
		snprintf(err, ERRLEN, "%s: bad seccomp program: %s",
		    o->policy, msg);
		return -1;
	}
	/* --check asks the kernel for the namespaces; a run's clone does. */
	probe_make(pol, o, o->check && !o->serve && !o->no_namespaces, pr);
	rc = plan_make(pol, o, pr, pl, err, ERRLEN);
	r->layers = pl->layers;
	return rc;
}

/* What this program holds of the features cordon leaves out of its
 * plain cold core (companion.c): each room's egress_built, tls_built... */
static unsigned int holds(void)
{
	return (egress_built ? HOLD_EGRESS : 0) | (tls_built ? HOLD_TLS : 0) |
	    (learn_built ? HOLD_LEARN : 0) | (pool_built ? HOLD_POOL : 0) |
	    (audit_built ? HOLD_AUDIT : 0);
}

/* What the run needs of them: a warm pool (--serve); or the plan's
 * proxy and its TLS, the modes that watch its calls, the reader of the
 * kernel's audit records where the kernel gives them (kaudit.h). */
static unsigned int needs(const struct opts *o, const struct run_plan *pl)
{
	if (o->serve)
		return HOLD_POOL;
	return (pl->egress ? HOLD_EGRESS : 0) | (pl->tls ? HOLD_TLS : 0) |
	    (o->observe || o->ll_watch ? HOLD_LEARN : 0) |
	    (audit_wanted() ? HOLD_AUDIT : 0);
}

/* cordon --submit: a run sent to a warm pool, cordon-pool's. */
static int submit(int argc, char **argv)
{
	char err[ERRLEN];
	int rc = companion_exec(HOLD_POOL, holds(), argv, err);

	if (rc == 0)
		return submit_main(argc - 2, argv + 2);
	fprintf(stderr, "cordon: %s\n", err);
	return rc;
}

/* The run; learn mode says first what it gives up. */
static int run(struct opts *o, const struct cpol *pol, struct run_plan *pl,
    struct report *r, char *err)
{
	if (o->observe)
		fprintf(stderr, "cordon: --observe: LEARN MODE: no Landlock, "
		    "%s, and every call the policy refuses is let through; "
		    "for trusted code only\n", o->observe_hosts ||
		    (pol->flags & CPOL_F_NET_HOSTS) ? "the egress proxy "
		    "letting every host through" : "no network namespace");
	return launch(o, pol, pl, r, err);
}

/* The files written after the run (common/outfile.c's rule), refused
 * before it: a symbolic link, a block device, a socket, a directory. */
static int outputs_ok(const struct opts *o)
{
	char err[ERRLEN];

	if ((o->status_file && outfile_check(o->status_file, err,
	    sizeof(err)) < 0) || (o->observe && outfile_check(o->observe,
	    err, sizeof(err)) < 0)) {
		fprintf(stderr, "cordon: %s\n", err);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct report r;
	struct opts o;
	struct cpol pol;
	struct probe pr;
	struct run_plan pl;
	char err[ERRLEN];
	int rc;

	memset(&r, 0, sizeof(r));
	memset(&pol, 0, sizeof(pol));
	if (argc >= 2 && strcmp(argv[1], "--submit") == 0 && !warm_resume)
		return submit(argc, argv);      /* a warm pool's run */
	r.outcome = OUT_ERROR;      /* until the snippet has run */
	r.warm = warm_resume != NULL;
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return EXIT_CORDON;
	rc = opts_parse(argc, argv, &o);
	if (rc >= 0)
		return rc;
	if (outputs_ok(&o) < 0 || opts_conflict(&o))
		return EXIT_CORDON;
	o.warm_ctl = warm_spare_ctl;
	o.hold = o.warm_ctl >= 0 ? warm_hold : NULL;
	o.null_fd = fds_sane();
	if (o.null_fd < 0) {
		fprintf(stderr, "cordon: /dev/null: %s\n", strerror(errno));
		return EXIT_CORDON;
	}
	r.wall_ms = clock_now_ms();
	if (prepare(&o, &pol, &pr, &pl, &r, err) < 0)
		rc = EXIT_CORDON;
	else if (o.check && !o.serve)
		rc = plan_say(&pol, &pl, &pr, o.json) < 0 ? EXIT_CORDON : 0;
	else if ((rc = companion_exec(needs(&o, &pl), holds(), argv,
	    err)) != 0)
		;       /* the program that holds what it needs: failed */
	else if (o.serve)
		rc = serve_exec(&o, &pol, argv, err);  /* on failure only */
	else
		rc = run(&o, &pol, &pl, &r, err);
	if (r.outcome == OUT_ERROR && rc != 0) {
		if (err[0])
			fprintf(stderr, "cordon: %s\n", err);
		r.exit_code = rc;
		snprintf(r.reason, sizeof(r.reason), "%.150s", err);
	}
	r.wall_ms = clock_now_ms() - r.wall_ms;
	if (o.observe && r.outcome != OUT_ERROR &&
	    learn_write(o.observe, &r, err) < 0) {
		fprintf(stderr, "cordon: %s\n", err);
		rc = EXIT_CORDON;
	}
	if (!o.check && (o.status_fd >= 0 || o.status_file) &&
	    status_write(&r, o.status_fd, o.status_file, err, ERRLEN) < 0) {
		fprintf(stderr, "cordon: %s\n", err);
		rc = EXIT_CORDON;
	}
	if (!o.check)
		notes_say(&o, &pol, &r);
	if (r.denials && !o.quiet && (r.outcome != OUT_EXITED ||
	    r.exit_code != 0))
		denials_say(r.denials);
	if (!o.quiet && (r.outcome != OUT_EXITED || r.exit_code != 0))
		egress_say(&r);
	if (r.audit && !o.quiet && (r.outcome != OUT_EXITED ||
	    r.exit_code != 0))
		audit_say(r.audit);
	/* A warm run's caller hears its status now, not after this
	 * process (a fork of the template) has unmapped its memory. */
	if (o.warm_ctl >= 0)
		warm_said(o.warm_ctl, rc);
	late_close();
	denials_free((struct denials *)r.denials);
	cpol_free(&pol);
	close(o.null_fd);
	return rc;
}
