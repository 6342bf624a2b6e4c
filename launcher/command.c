/*
 * command.c - what the child will exec, prepared in the parent: the
 * policy's command line with $SNIPPET and $WORKDIR bound, the environment
 * built from nothing (kept names copied from cordon's own environment,
 * fixed values with $WORKDIR bound).  The limits it runs under are
 * limits.c's.
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

/* name=val in the environment *envp (grown): a name already there is
 * replaced where replace, else left.  0, or -1 (out of memory). */
int command_setenv(char ***envp, const char *name, const char *val,
    int replace)
{
	size_t n = 0, j, k = strlen(name);
	char **v = *envp, *s;

	while (v[n])
		n++;
	for (j = 0; j < n; j++)
		if (strncmp(v[j], name, k) == 0 && v[j][k] == '=')
			break;
	if (j < n && !replace)
		return 0;
	if (!(s = malloc(k + strlen(val) + 2)))
		return -1;
	sprintf(s, "%s=%s", name, val);
	if (j == n && !(v = realloc(v, (n + 2) * sizeof(*v)))) {
		free(s);
		return -1;
	}
	if (j < n)
		free(v[j]);
	else
		v[n + 1] = NULL;
	v[j] = s;
	*envp = v;
	return 0;
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
	char url[64], ca[4200];
	size_t i, nv = workdir ? 9 : 6;

	snprintf(url, sizeof(url), "http://127.0.0.1:%u", CPOL_PROXY_PORT);
	snprintf(ca, sizeof(ca), "%s/%s", workdir ? workdir : "",
	    CPOL_CA_BUNDLE_NAME);
	for (i = 0; i < nv; i++)
		if (command_setenv(envp, vars[i], i < 4 ? url : i < 6 ? "" :
		    ca, 1) < 0)
			return -1;
	return 0;
}
