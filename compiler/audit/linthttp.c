/*
 * linthttp.c - the lint rules on credentials and HTTP rules (the HTTP
 * section): a credential the run may spend on any request, and one sent
 * in the clear.  Findings are located at the network statement.
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
