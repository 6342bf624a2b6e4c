/*
 * command.c - what the child will exec, prepared in the parent: the
 * policy's command line with $SNIPPET and $WORKDIR bound, the environment
 * built from nothing (kept names copied from cordon's own environment,
 * fixed values with $WORKDIR bound), and the rlimits (the policy's,
 * tightened by the command line, never loosened).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "cordon.h"
#include "egress.h"

/* word with every "$SNIPPET" and "$WORKDIR" replaced; a heap copy. */
static char *expand(const char *word, const char *workdir,
    const char *snippet)
{
	size_t cap = strlen(word) + 1, len = 0;
	const char *w;
	char *out;

	for (w = word; (w = strchr(w, '$')) != NULL; w++)
		cap += strlen(workdir) + strlen(snippet);
	out = malloc(cap);
	if (!out)
		return NULL;
	for (w = word; *w; ) {
		const char *with = NULL;

		if (strncmp(w, "$WORKDIR", 8) == 0)
			with = workdir;
		else if (strncmp(w, "$SNIPPET", 8) == 0)
			with = snippet;
		if (with) {
			memcpy(out + len, with, strlen(with));
			len += strlen(with);
			w += 8;
		} else {
			out[len++] = *w++;
		}
	}
	out[len] = '\0';
	return out;
}

void command_free(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

char **command_argv(const struct cpol *p, const char *workdir,
    const char *snippet, char **args, int nargs)
{
	size_t n = p->nargv + (size_t)nargs, i;
	char **v = calloc(n + 1, sizeof(*v));

	if (!v)
		return NULL;
	for (i = 0; i < n; i++) {
		v[i] = i < p->nargv ? expand(p->argv[i], workdir, snippet) :
		    strdup(args[i - p->nargv]);
		if (!v[i]) {
			command_free(v);
			return NULL;
		}
	}
	return v;
}

char **command_envp(const struct cpol *p, const char *workdir)
{
	char **v = calloc((size_t)p->nenv + 1, sizeof(*v));
	size_t n = 0;
	uint32_t i;

	if (!v)
		return NULL;
	for (i = 0; i < p->nenv; i++) {
		const struct cpol_env *e = &p->env[i];
		const char *val = e->value;
		char *x = NULL, *s;

		if (e->kind == CPOL_ENV_KEEP && !(val = getenv(e->name)))
			continue;
		if (e->kind == CPOL_ENV_SET && !(val = x = expand(val,
		    workdir, "$SNIPPET")))
			goto fail;
		s = malloc(strlen(e->name) + strlen(val) + 2);
		if (s)
			sprintf(s, "%s=%s", e->name, val);
		free(x);
		if (!s)
			goto fail;
		v[n++] = s;
	}
	return v;
fail:
	command_free(v);
	return NULL;
}

/* Named hosts: the run's way out is its proxy; every client that reads
 * the usual variables (urllib, requests, httpx, pip, curl) uses it.  They
 * replace any the policy set; NO_PROXY is empty: nothing goes direct.
 * With HTTP hosts (workdir not NULL), the CA bundle the proxy wrote
 * there (tls.c: this run's CA, then the system's) is the one the run's
 * TLS clients trust: OpenSSL's, requests', curl's variables. */
int command_proxy_env(char ***envp, const char *workdir)
{
	static const char *const vars[] = {
		"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy",
		"NO_PROXY", "no_proxy", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE",
		"CURL_CA_BUNDLE",
	};
	char url[64], ca[4200], **v, *s;
	size_t n = 0, i, j, k, nv = workdir ? 9 : 6;

	snprintf(url, sizeof(url), "http://127.0.0.1:%u", CPOL_PROXY_PORT);
	snprintf(ca, sizeof(ca), "%s/%s", workdir ? workdir : "",
	    CPOL_CA_BUNDLE_NAME);
	while ((*envp)[n])
		n++;
	v = realloc(*envp, (n + nv + 1) * sizeof(*v));
	if (!v)
		return -1;
	*envp = v;
	for (i = 0; i < nv; i++) {
		const char *val = i < 4 ? url : i < 6 ? "" : ca;

		k = strlen(vars[i]);
		for (j = 0; j < n; j++)
			if (strncmp(v[j], vars[i], k) == 0 && v[j][k] == '=')
				break;
		s = malloc(k + strlen(val) + 2);
		if (!s)
			return -1;
		sprintf(s, "%s=%s", vars[i], val);
		if (j < n)
			free(v[j]);
		else
			n++;
		v[j] = s;
		v[n] = NULL;
	}
	return 0;
}

/* Limit r: the policy's, tightened by cli[r] (UINT64_MAX: no option), or
 * the option's where the policy has none; UINT64_MAX when neither sets
 * it (which is also "unlimited": both leave the resource unbounded). */
uint64_t command_limit(const struct cpol *p, const uint64_t *cli,
    unsigned int r)
{
	uint64_t v = cli[r];
	uint32_t i;

	for (i = 0; i < p->nlimits; i++)
		if (p->limits[i].resource == r && p->limits[i].value < v)
			v = p->limits[i].value;
	return v;
}

/* The wall-clock bound: the policy's timeout, or a session's
 * (--session: the policy's session statement), tightened by --timeout. */
uint64_t command_timeout_ms(const struct cpol *p, const struct opts *o)
{
	uint64_t bound = o->session ? cpol_session_ms(p) : p->timeout_ms;

	return o->timeout_ms && o->timeout_ms < bound ? o->timeout_ms : bound;
}

/* A session asked to live longer than the policy lets one is refused,
 * not capped: the caller would count on hours it does not have. */
int command_session_ok(const struct cpol *p, const struct opts *o,
    char *err, size_t errlen)
{
	if (!o->session || o->timeout_ms <= cpol_session_ms(p))
		return 0;
	snprintf(err, errlen, "--session --timeout %g: longer than the "
	    "policy's session bound of %g s (its session statement, else its "
	    "timeout)", (double)o->timeout_ms / 1000,
	    (double)cpol_session_ms(p) / 1000);
	return -1;
}

/* The output cap: the policy's, tightened by --output (UINT64_MAX: none). */
uint64_t command_output_cap(const struct cpol *p, uint64_t cli)
{
	return cli < p->output_cap ? cli : p->output_cap;
}

/* The per-process limits the policy or the command line sets.  Returns
 * the count. */
int command_rlimits(const struct cpol *p, const uint64_t *cli,
    struct rlim *out)
{
	unsigned int r;
	uint32_t i;
	int n = 0, set;

	for (r = 1; r <= CPOL_RLIM_KERNEL_MAX; r++) {
		set = cli[r] != UINT64_MAX;
		for (i = 0; i < p->nlimits; i++)
			set |= p->limits[i].resource == r;
		if (!set)
			continue;
		out[n].resource = cpol_rlim_kernel(r);
		out[n++].value = command_limit(p, cli, r);
	}
	return n;
}

/* The soft and hard limit the child sets for one of them, from its value
 * and the limits cordon was started with (old): each the smaller of the
 * two (threat #26).  At the hard CPU limit the kernel sends SIGKILL; one
 * second of grace lets SIGXCPU (soft) arrive first and name the cause,
 * and where the caller's hard limit is the tighter the grace second
 * stays below it (tighter still, never looser).  The child applies it
 * (run.c); the supervisor judges a CPU kill by the same two numbers. */
void command_rlimit_pair(int resource, uint64_t value,
    const struct rlimit *old, struct rlimit *rl)
{
	rl->rlim_cur = rl->rlim_max = value;
	if (rl->rlim_max < RLIM_INFINITY && resource == RLIMIT_CPU)
		rl->rlim_max++;
	if (old->rlim_cur < rl->rlim_cur)
		rl->rlim_cur = old->rlim_cur;
	if (old->rlim_max < rl->rlim_max)
		rl->rlim_max = old->rlim_max;
	if (rl->rlim_cur > rl->rlim_max)
		rl->rlim_cur = rl->rlim_max;
	if (resource == RLIMIT_CPU && rl->rlim_max < RLIM_INFINITY &&
	    rl->rlim_cur == rl->rlim_max && rl->rlim_cur > 1)
		rl->rlim_cur--;
}
