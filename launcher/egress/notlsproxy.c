/*
 * notlsproxy.c - the proxy's TLS half in cordon-egress, the proxy
 * without OpenSSL (tls.c and proxyhttp.c are in cordon-tls): a run whose
 * policy names an HTTP host is never launched by it (notls.c), so none of
 * these is reached with one; each fails closed if it were.
 */
#include <stdio.h>

#include "proxy.h"

static const char no_tls[] = "this cordon has no TLS (cordon-tls runs "
    "policies with HTTP hosts)";

int tls_prepare(struct egress_tls **out, const struct cpol *p,
    const struct tls_cred *creds, int ncreds, const char *upstream_ca,
    int wfd, char *err, size_t errlen)
{
	(void)p, (void)creds, (void)ncreds, (void)upstream_ca, (void)wfd;
	*out = NULL;
	snprintf(err, errlen, "%s", no_tls);
	return -1;
}

void tls_free(struct egress_tls *t)
{
	(void)t;
}

int proxyhttp_upstream(int ufd, const struct egress_conf *c, uint32_t hi,
    void **u)
{
	(void)ufd, (void)c, (void)hi;
	*u = NULL;
	return EGRESS_TLS_UPSTREAM;     /* the proxy answers 502 */
}

void proxyhttp_serve(int fd, void *u, const struct egress_conf *c,
    uint32_t hi, struct egress_shared *sh, const char *dest)
{
	(void)fd, (void)u, (void)c, (void)hi, (void)sh, (void)dest;
}

/* No plain HTTP host: a plain request is refused as any other. */
int proxyhttp_plain_host(const struct egress_conf *c, const char *buf,
    size_t len, uint32_t *hi, char *host, size_t hostlen, uint16_t *port)
{
	(void)c, (void)buf, (void)len, (void)hi, (void)host, (void)hostlen;
	(void)port;
	return -1;
}

void proxyhttp_plain(int fd, int out, const struct egress_conf *c,
    uint32_t hi, struct egress_shared *sh, const char *dest,
    const char *buf, size_t len)
{
	(void)fd, (void)out, (void)c, (void)hi, (void)sh, (void)dest;
	(void)buf, (void)len;
}
