/*
 * opts.c - cordon's options: the usage, the help, the one table of long
 * options, and their parsing into struct opts.  A warm request's options
 * are checked against the same table (opts_warm_scan: submit.c and
 * warmhold.c); pywarm.c hands it to warm.py.  Parsing only tightens what
 * the policy gives (plan.c and command.c take the smaller of the two).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cordon.h"
#include "units.h"

static const char usage_text[] =
    "usage: cordon [--check [--json]] [--keep-workdir] [--no-namespaces]\n"
    "              [--quiet] [--idle] [--nice n] [--limit name=value]\n"
    "              [--output bytes] [--status-fd fd] [--status-file path]\n"
    "              [--timeout seconds] [--workdir dir] [--cgroup dir]\n"
    "              [--resolve name:address] "
    "[--observe trace [--observe-hosts]]\n"
    "              [--credential name[=@file]] [--upstream-ca file]\n"
    "              [--stdin [--session]] [--landlock-watch]\n"
    "              policy.cpol snippet | - [arg ...]\n"
    "       cordon --serve @name policy.cpol\n"
    "       cordon --submit @name [option ...] snippet | - [arg ...]\n";

/* --help: the usage, then every option (cordon(1) says more). */
static const char options_text[] =
    "Run snippet (a file, or - for standard input) under policy.cpol.\n"
    "\n"
    "options:\n"
    "  --check               validate the blob and this kernel's support,\n"
    "                        print the run's plan with a reason for each\n"
    "                        decision, run nothing\n"
    "  --json                with --check: the plan as one JSON object\n"
    "  --keep-workdir        keep the working directory and print its path\n"
    "  --no-namespaces       use no namespace (no private /tmp; a disk\n"
    "                        bound is watched instead)\n"
    "  --quiet               no notes on standard error after the run\n"
    "  --idle                run the snippet in SCHED_IDLE\n"
    "  --nice n              add n (0 to 19) to the run's nice value\n"
    "  --limit name=value    tighten an rlimit (cpu, as, data, fsize,\n"
    "                        stack, memlock, nproc, nofile, core,\n"
    "                        sigpending) or a whole-run bound (memory,\n"
    "                        disk, pids, files); sizes take K, M, G, T\n"
    "  --output bytes        tighten the cap on stdout plus stderr\n"
    "  --status-fd fd        write the status JSON to descriptor fd (3 up)\n"
    "  --status-file path    write the status JSON to path, atomically\n"
    "  --timeout seconds     tighten the wall-clock timeout (decimals ok)\n"
    "  --workdir dir         copy the existing directory dir in before\n"
    "                        the run and what the run leaves back after\n"
    "                        it (with no mount namespace: run in dir)\n"
    "  --cgroup dir          a delegated cgroup v2 directory for the\n"
    "                        memory and pids bounds (or CORDON_CGROUP)\n"
    "  --resolve name:address  the egress proxy resolves name to address\n"
    "                        (tests and local services; up to 16)\n"
    "  --credential name     the value of the policy's credential name,\n"
    "                        from cordon's environment variable name, or\n"
    "                        name=@file: from file (the proxy adds it;\n"
    "                        the run never holds it)\n"
    "  --upstream-ca file    tests: verify HTTP hosts' upstreams against\n"
    "                        file, not the system's CA store\n"
    "  --observe trace       learn mode, trusted code only: let refused\n"
    "                        calls through and record them in trace\n"
    "  --observe-hosts       with --observe: the run's network is the\n"
    "                        egress proxy, which records every host\n"
    "  --serve @name         become a warm pool for policy.cpol on the\n"
    "                        abstract socket @name (cordon(1) WARM POOLS)\n"
    "  --submit @name        first option: run snippet in the warm pool\n"
    "                        @name (no policy operand)\n"
    "  --stdin               the run reads cordon's standard input\n"
    "                        (not /dev/null; a snippet file only)\n"
    "  --session             with --stdin: a session (cells on stdin):\n"
    "                        bounded by the policy's session statement\n"
    "                        (else its timeout), --timeout only below it;\n"
    "                        stdout (the cells' frames) is not capped\n"
    "  --landlock-watch      name Landlock's refusals where the kernel's\n"
    "                        audit cannot: cordon sees each path and port\n"
    "                        call and checks it against the policy's rules\n"
    "                        (a notification per call: slower)\n"
    "  --version             print the version\n"
    "  --help                print this help\n"
    "Exit status: the snippet's; 124 timeout, 125 cordon failed, 126 or\n"
    "127 the command cannot run or is missing, 137 output past the cap,\n"
    "128+N signal N (cordon(1) has the details).\n";

/* The usage, then more (the options, or where to find them); 0. */
static int help(FILE *f, const char *more)
{
	fputs(usage_text, f);
	fputs(more, f);
	return 0;
}

/* Options only tighten: given again (a pool's, then its request's,
 * serve.c and warm.py), a limit keeps the lower value. */
static int parse_limit(const char *s, struct opts *o)
{
	const char *eq = strchr(s, '=');
	unsigned int r;
	uint64_t v;

	for (r = 1; eq && r <= CPOL_RLIM_MAX; r++)
		if (strlen(cpol_rlim_name(r)) == (size_t)(eq - s) &&
		    strncmp(s, cpol_rlim_name(r), (size_t)(eq - s)) == 0) {
			if (cpol_size_parse(eq + 1, &v) < 0)
				return -1;
			o->limit[r] = v < o->limit[r] ? v : o->limit[r];
			return 0;
		}
	return -1;
}

/* A plain decimal count no larger than max: no sign, suffix or space. */
static int parse_count(const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	errno = 0;
	if (s[0] < '0' || s[0] > '9')
		return -1;
	*v = strtoull(s, &end, 10);
	return errno || *end || *v > max ? -1 : 0;
}

/* --status-fd: 3 or above, and open.  0, -1 (bad value), or an exit
 * status after a message. */
static int parse_status_fd(const char *s, struct opts *o)
{
	uint64_t v;

	if (parse_count(s, INT32_MAX, &v) < 0)
		return -1;
	o->status_fd = (int)v;
	if (v <= 2) {
		fprintf(stderr, "cordon: --status-fd %d: 0, 1 and 2 carry the "
		    "snippet's input and output; use 3 or above (e.g. "
		    "3>status.json)\n", o->status_fd);
		return EXIT_CORDON;
	}
	/* Else a pipe cordon makes could land on it. */
	if (fcntl(o->status_fd, F_GETFD) < 0) {
		fprintf(stderr, "cordon: --status-fd %d: not an open "
		    "descriptor\n", o->status_fd);
		return EXIT_CORDON;
	}
	return 0;
}

static int parse_timeout(const char *s, struct opts *o)
{
	char *end;
	double d = strtod(s, &end);

	uint64_t ms;

	if (*end || !(d > 0 && d < 1e9))
		return -1;
	ms = (uint64_t)(d * 1000) ? (uint64_t)(d * 1000) : 1;
	if (!o->timeout_ms || ms < o->timeout_ms)   /* the tighter */
		o->timeout_ms = ms;
	return 0;
}

/* --output: given again, the lower cap holds. */
static int parse_output(const char *s, struct opts *o)
{
	uint64_t v;

	if (cpol_size_parse(s, &v) < 0)
		return -1;
	o->output_cap = v < o->output_cap ? v : o->output_cap;
	return 0;
}

/* --credential NAME or NAME=@PATH: a name as a policy spells one. */
static int cred_spec_ok(const char *s)
{
	char name[256];
	size_t n = strcspn(s, "=");

	if (n == 0 || n >= sizeof(name) || (s[n] && (s[n + 1] != '@' ||
	    !s[n + 2])))
		return 0;
	memcpy(name, s, n);
	name[n] = '\0';
	return cpol_env_name_ok(name);
}

/* The named hosts' options: --resolve (tests and local services: see
 * cordon(1)), --credential NAME[=@PATH] (tls.c reads it), --upstream-ca
 * (tests). */
static int egress_opt(struct opts *o, int c, const char *arg)
{
	if (c == 'U') {
		o->upstream_ca = arg;
		return 0;
	}
	if (c == 'R')
		return o->nresolve == EGRESS_MAP_MAX ? -1 :
		    egress_map_parse(arg, &o->resolve[o->nresolve++]);
	if (o->ncred == CPOL_MAX_HTTP || !cred_spec_ok(arg))
		return -1;
	o->cred[o->ncred++].spec = arg;
	return 0;
}

/* Every option (submit.c scans a warm request's with it). */
const struct option cordon_options[] = {
	{ "workdir", 1, NULL, 'w' }, { "keep-workdir", 0, NULL, 'k' },
	{ "timeout", 1, NULL, 't' }, { "output", 1, NULL, 'o' },
	{ "limit", 1, NULL, 'l' }, { "status-fd", 1, NULL, 'f' },
	{ "status-file", 1, NULL, 'F' }, { "check", 0, NULL, 'c' },
	{ "no-namespaces", 0, NULL, 'n' }, { "quiet", 0, NULL, 'q' },
	{ "nice", 1, NULL, 'N' }, { "idle", 0, NULL, 'I' },
	{ "version", 0, NULL, 'V' }, { "help", 0, NULL, 'h' },
	{ "cgroup", 1, NULL, 'C' }, { "resolve", 1, NULL, 'R' },
	{ "observe", 1, NULL, 'L' }, { "serve", 1, NULL, 'S' },
	{ "observe-hosts", 0, NULL, 'H' }, { "stdin", 0, NULL, 'i' },
	{ "session", 0, NULL, 'E' },
	{ "landlock-watch", 0, NULL, 'W' }, { "json", 0, NULL, 'j' },
	{ "credential", 1, NULL, 'A' }, { "upstream-ca", 1, NULL, 'U' },
	{ NULL, 0, NULL, 0 },
};

/* The options a warm request may carry, by letter: a run's own, and
 * those that need a spare made for the request.  Any other is refused
 * (warm.py reads these through the extension; submit.c and warmhold.c
 * check with opts_warm_scan). */
const char warm_run_options[] = "wtoqfFiE";
const char warm_setup_options[] = "klNIR";

/* Whether word is --name or --name=..., not an abbreviation of it. */
static int spelled_out(const char *word, const char *name)
{
	size_t n = strlen(name);

	return strncmp(word, "--", 2) == 0 && strncmp(word + 2, name, n) ==
	    0 && (word[n + 2] == '\0' || word[n + 2] == '=');
}

int opts_warm_scan(int argc, char **argv, int setup, char *msg,
    size_t len)
{
	int c, li = 0;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+", cordon_options, &li)) !=
	    -1) {
		if (c == '?' || !(strchr(warm_run_options, c) || (setup &&
		    strchr(warm_setup_options, c))))
			snprintf(msg, len, "%s%s is refused in a warm run",
			    c == '?' ? "" : "--", c == '?' ? argv[optind - 1] :
			    cordon_options[li].name);
		else if (!spelled_out(cordon_options[li].has_arg && optarg ==
		    argv[optind - 1] ? argv[optind - 2] : argv[optind - 1],
		    cordon_options[li].name))
			snprintf(msg, len, "write --%s in full (the pool "
			    "matches names, not prefixes)",
			    cordon_options[li].name);
		else
			continue;
		opterr = 1;
		return -1;
	}
	opterr = 1;
	return optind;
}

/* A pool's own options are those of its spares' set-up (serve.c), and
 * the --timeout and --output every request starts from: one operand,
 * the policy; a run's options come with each request and only tighten
 * the pool's (warmhold.c). */
static int serve_opts_ok(const struct opts *o, int operands)
{
	return operands == 1 && !o->observe && !o->no_namespaces &&
	    !o->workdir && !o->keep_workdir && o->status_fd < 0 &&
	    !o->status_file && !o->nresolve && !o->quiet && !o->keep_stdin &&
	    !o->ll_watch && !o->ncred && !o->upstream_ca;
}

/* --stdin gives the run cordon's stdin: a snippet read from it would
 * leave none, and --check runs nothing; --json is --check's.  1 (said)
 * when refused. */
int opts_conflict(const struct opts *o)
{
	if (o->json && (!o->check || o->serve)) {
		fprintf(stderr, "cordon: --json is a form of --check's "
		    "output: only with --check\n");
		return 1;
	}
	if (o->session && (!o->keep_stdin || o->check)) {
		fprintf(stderr, "cordon: --session is a run that reads cells "
		    "on its stdin: only with --stdin, not --check\n");
		return 1;
	}
	if (!o->keep_stdin || (!o->check && strcmp(o->snippet, "-") != 0))
		return 0;
	fprintf(stderr, "cordon: --stdin needs a snippet file (not - or "
	    "--check)\n");
	return 1;
}

/* The options that only switch something on. */
static int *flag(struct opts *o, int c)
{
	switch (c) {
	case 'k': return &o->keep_workdir;
	case 'c': return &o->check;
	case 'n': return &o->no_namespaces;
	case 'q': return &o->quiet;
	case 'i': return &o->keep_stdin;
	case 'E': return &o->session;
	case 'W': return &o->ll_watch;
	case 'I': return &o->idle;
	case 'H': return &o->observe_hosts;
	case 'j': return &o->json;
	}
	return NULL;
}

/* Returns -1 to go on, or an exit status (help, version, bad usage). */
int opts_parse(int argc, char **argv, struct opts *o)
{
	uint64_t v;
	int c, li = 0, rc, *f;

	opts_init(o);
	while ((c = getopt_long(argc, argv, "+", cordon_options, &li)) != -1) {
		if ((f = flag(o, c)) != NULL) {
			*f = 1;
			continue;
		}
		switch (c) {
		case 'w': o->workdir = optarg; break;
		case 'N':       /* an increment, 0..19: lower only */
			if (parse_count(optarg, 19, &v) < 0)
				goto bad;
			o->nice = (int)v > o->nice ? (int)v : o->nice;
			break;
		case 'F': o->status_file = optarg; break;
		case 'C': o->cgroup = optarg; break;
		case 'R': case 'A': case 'U':
			if (egress_opt(o, c, optarg) < 0)
				goto bad;
			break;
		case 'L': o->observe = optarg; break;
		case 'S': o->serve = optarg; break;
		case 'V': printf("cordon %s\n", CORDON_VERSION); return 0;
		case 'h': return help(stdout, options_text);
		case 't':
			if (parse_timeout(optarg, o) < 0)
				goto bad;
			break;
		case 'o':
			if (parse_output(optarg, o) < 0)
				goto bad;
			break;
		case 'l':
			if (parse_limit(optarg, o) < 0)
				goto bad;
			break;
		case 'f':
			if ((rc = parse_status_fd(optarg, o)) < 0)
				goto bad;
			if (rc)
				return rc;
			break;
		default:
			goto bad;
		}
	}
	if (o->serve)
		o->check = 1;         /* one operand, the policy */
	if (argc - optind < (o->check ? 1 : 2) || (o->serve &&
	    !serve_opts_ok(o, argc - optind)))
		goto bad;
	/* A warm run (serve.c's template calls cordon in-process) has
	 * every layer of a cold run: no learn mode, no fallback. */
	if (warm_resume && (o->check || o->observe || o->no_namespaces)) {
		fprintf(stderr, "cordon: --check, --observe, --no-namespaces "
		    "and --serve are not for a warm run\n");
		return EXIT_CORDON;
	}
	o->policy = argv[optind];
	o->snippet = o->check ? NULL : argv[optind + 1];
	o->args = argv + optind + 2;
	o->nargs = o->check ? 0 : argc - optind - 2;
	return -1;
bad:
	if (c != '?' && c != -1)
		fprintf(stderr, "cordon: bad value for --%s: %s\n",
		    cordon_options[li].name, optarg);
	help(stderr, "cordon --help describes every option\n");
	return EXIT_CORDON;
}
