/*
 * linthttp.c - the lint rules on credentials and HTTP rules (the HTTP
 * section): a credential the run may spend on any request, and one sent
 * in the clear, a wildcard that reaches a host with http rules, and
 * a special address literal allowed with "private".  Findings are
 * located at the network statement.
 */
#include "lint.h"

int lint_http(const struct input *in, struct finding_list *out)
{
	const struct cpol *p = &in->pol;
	unsigned int line;
	const char *file = input_where(in, INPUT_NETWORK, NULL, &line);

	for (uint32_t i = 0; i < p->nhttp; i++) {
		const struct cpol_http *h = &p->http[i];

		if (!*h->credential)
			continue;
		if ((h->flags & CPOL_HTTP_PLAIN) && finding_add(out, "CL017",
		    FINDING_ERROR, file, line, "credential %s goes to \"%s\""
		    ":%u over plain http: anyone on the path reads it",
		    h->credential, h->host, (unsigned int)h->port) < 0)
			return -1;
		if (h->nrules == 0 && finding_add(out, "CL016",
		    FINDING_WARNING, file, line, "credential %s is added to "
		    "any request to \"%s\":%u: give http rules (methods and "
		    "path prefixes) for what the tool needs", h->credential,
		    h->host, (unsigned int)h->port) < 0)
			return -1;
	}
	return 0;
}

/* CL018: a wildcard over a host with http rules (a blob the compiler
 * did not check: cordonc refuses it); CL019: "private" literals. */
int lint_hosts(const struct input *in, struct finding_list *out)
{
	const struct cpol *p = &in->pol;
	unsigned int line;
	const char *file = input_where(in, INPUT_NETWORK, NULL, &line);
	uint32_t hi;

	for (uint32_t i = 0; i < p->nhosts; i++) {
		const struct cpol_host *h = &p->hosts[i];

		if (cpol_wildcard_over(p, i, &hi) && finding_add(out,
		    "CL018", FINDING_ERROR, file, line, "\"%s\":%u reaches "
		    "\"%s\", which has http rules: a name below it that "
		    "resolves to that server is a plain tunnel around them",
		    h->host, (unsigned int)h->port, p->http[hi].host) < 0)
			return -1;
		if ((h->flags & CPOL_HOST_PRIVATE) && finding_add(out,
		    "CL019", FINDING_WARNING, file, line, "\"%s\":%u is not "
		    "a public address (%s), allowed with \"private\": the "
		    "run reaches the host's, its network's or its cloud's "
		    "own service there",
		    h->host, (unsigned int)h->port,
		    cpol_host_special(h->host)) < 0)
			return -1;
	}
	return 0;
}
