/*
 * refused.c - what the egress proxy refused, as the status report reads
 * it: the reasons' names (one table) and the record in the shared page.
 * Both proxy.c and proxyhttp.c refuse; neither owns the other.
 */
#include <stdint.h>
#include <stdio.h>

#include "proxy.h"

static const char untrusted[] = "upstream certificate not trusted (its "
    "chain reaches no CA of the system's store or --upstream-ca)";

/* The refusal names (the status report's "why"): the one table. */
static const char *const whys[] = {
	[EGRESS_BAD_REQUEST] = "bad request",
	[EGRESS_NOT_CONNECT] = "not a CONNECT request",
	[EGRESS_NOT_ALLOWED] = "not a host the policy names",
	[EGRESS_NO_ADDRESS] = "no address",
	[EGRESS_PRIVATE_ADDRESS] = "resolves to a private address",
	[EGRESS_UNREACHABLE] = "connect failed",
	[EGRESS_CONN_LIMIT] = "connection limit",
	[EGRESS_BYTE_LIMIT] = "byte limit",
	[EGRESS_TIMEOUT] = "timeout",
	[EGRESS_BAD_NAME] = "not a host name",
	[EGRESS_DNS_LIMIT] = "DNS query limit",
	[EGRESS_HTTP_RULE] = "not a method and path the policy allows",
	[EGRESS_HTTP_HOST] = "Host header names another host",
	[EGRESS_HTTP_BAD] = "bad HTTP request",
	[EGRESS_HTTP_TOO_LONG] = "request head too long",
	[EGRESS_HTTP_UNSUPPORTED] = "Transfer-Encoding not supported",
	[EGRESS_TLS_CLIENT] = "TLS with the run failed",
	[EGRESS_TLS_UPSTREAM] = "upstream TLS failed",
	[EGRESS_HTTP_TARGET] = "request target not in normal form",
	[EGRESS_HTTP_UNDERSCORE] = "header name with '_'",
	[EGRESS_HTTP_REWRITE] = "method-override or URL-rewrite header",
	[EGRESS_PRIVATE_LITERAL] =
	    "a private address the policy does not mark private",
	[EGRESS_AROUND_RULES] =
	    "the server of a host with http rules, around them",
	[EGRESS_TLS_UNTRUSTED] = untrusted,
	[EGRESS_TLS_NAME] = "upstream certificate names another host",
	[EGRESS_TLS_INVALID] = "upstream certificate not valid",
};

const char *egress_why_name(unsigned int why)
{
	return why && why < sizeof(whys) / sizeof(whys[0]) ? whys[why] :
	    "?";
}

void egress_refuse(struct egress_shared *sh, const char *dest,
    enum egress_why why, const char *method, const char *path)
{
	uint32_t i = __atomic_fetch_add(&sh->refused, 1, __ATOMIC_RELAXED);

	if (i >= EGRESS_REFUSED_MAX)
		return;
	snprintf(sh->r[i].dest, sizeof(sh->r[i].dest), "%s", dest);
	snprintf(sh->r[i].method, sizeof(sh->r[i].method), "%s",
	    method ? method : "");
	snprintf(sh->r[i].path, sizeof(sh->r[i].path), "%s",
	    path ? path : "");
	sh->r[i].why = (uint8_t)why;
	__atomic_store_n(&sh->r[i].ready, 1, __ATOMIC_RELEASE);
}

size_t egress_answer(char *buf, size_t size, const char *status,
    const char *dest, enum egress_why why, const char *what,
    const char *detail)
{
	char body[EGRESS_ANSWER_MAX / 2];
	int n, h;

	n = snprintf(body, sizeof(body), "cordon refused %s%s%.200s: %s%s%s\n",
	    dest, what ? " " : "", what ? what : "", egress_why_name(why),
	    detail ? ": " : "", detail ? detail : "");
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(body))
		n = (int)sizeof(body) - 1;
	h = snprintf(buf, size, "HTTP/1.1 %s\r\nContent-Type: text/plain\r\n"
	    "X-Cordon-Refused: %s\r\nContent-Length: %d\r\n"
	    "Connection: close\r\n\r\n%.*s", status, egress_why_name(why),
	    n, n, body);
	return h < 0 ? 0 : (size_t)h < size ? (size_t)h : size - 1;
}
