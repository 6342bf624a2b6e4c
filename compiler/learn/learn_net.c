/*
 * learn_net.c - the network part of a learned policy: the hosts the
 * samples reached through cordon's egress proxy (cordonc learn --hosts)
 * as one `network connect "NAME":PORT` statement, a host a line, or
 * else the TCP ports they connected to and bound.
 */
#include <stdio.h>

#include "learn.h"

/* The hosts the samples reached through the proxy, one a line in one
 * statement, each with what used it; direct connects then reach
 * nothing (the run's network is the proxy alone): said, not learned. */
static void write_hosts(FILE *out, const struct learn *l)
{
	unsigned int i;

	fprintf(out, "\n# Network: the hosts reached through cordon's egress "
	    "proxy (HTTPS_PROXY);\n# the run's network is that proxy "
	    "alone.\nnetwork connect");
	for (i = 0; i < l->nhost; i++) {
		fputs("\n    ", out);
		polq_string(l->host[i].host, polq_put_file, out);
		fprintf(out, ":%u%s  # %llu connection%s, ", l->host[i].port,
		    i + 1 < l->nhost ? "," : ";",
		    (unsigned long long)l->host[i].count,
		    l->host[i].count == 1 ? "" : "s");
		learn_first(out, NULL, l->host[i].sample, "");
	}
	fputc('\n', out);
	for (i = 0; i < l->nport; i++)
		if (!l->port[i].bind) {
			fprintf(out, "# not learned: direct connect to port %u "
			    "(a policy that names hosts reaches them through "
			    "the proxy alone); %llu, ", l->port[i].port,
			    (unsigned long long)l->port[i].count);
			learn_first(out, NULL, l->port[i].sample, "\n");
		}
}

/* Special address literals the samples reached (loopback, private,
 * metadata...): said, never learned. */
static void write_left(FILE *out, const struct learn *l)
{
	unsigned int i;

	for (i = 0; i < l->nleft; i++) {
		fputs("\n# not learned: \"", out);
		polq_note(l->left[i].host, polq_put_file, out);
		fprintf(out, "\":%u, not a public address: %s (%llu "
		    "connection%s, ",
		    l->left[i].port, cpol_host_special(l->left[i].host),
		    (unsigned long long)l->left[i].count,
		    l->left[i].count == 1 ? "" : "s");
		learn_first(out, NULL, l->left[i].sample, ");");
		fputs("\n# a rule for it needs the word \"private\" after "
		    "the port (cordon.policy(5)).", out);
	}
	if (l->nleft)
		fputc('\n', out);
}

void learn_write_net(FILE *out, const struct learn *l)
{
	unsigned int i, k;

	int bind = 0;

	write_left(out, l);

	for (i = 0; i < l->nport; i++)
		bind |= l->port[i].bind;
	if (l->nhost)
		write_hosts(out, l);
	if (l->nport == 0 || (l->nhost && !bind))
		return;
	fprintf(out, "\n# Network: the TCP ports used (by the samples: "
	    "Landlock bounds ports, not hosts).\n");
	for (k = l->nhost ? 1 : 0; k < 2; k++) {
		const char *sep = "";
		int any = 0;

		for (i = 0; i < l->nport; i++)
			any |= l->port[i].bind == (int)k;
		if (!any)
			continue;
		fprintf(out, "network %s ", k ? "bind" : "connect");
		for (i = 0; i < l->nport; i++)
			if (l->port[i].bind == (int)k) {
				fprintf(out, "%s%u", sep, l->port[i].port);
				sep = ", ";
			}
		fprintf(out, ";  #");
		for (i = 0; i < l->nport; i++)
			if (l->port[i].bind == (int)k) {
				fprintf(out, " %u: %llu, ", l->port[i].port,
				    (unsigned long long)l->port[i].count);
				learn_first(out, NULL, l->port[i].sample, ";");
			}
		fprintf(out, "\n");
	}
}
