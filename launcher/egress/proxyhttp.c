/*
 * proxyhttp.c - one connection to a named host with a credential or http
 * rules, in its connection process (proxy.c's serve()): the upstream's
 * TLS first (its certificate verified for the name against the CA store
 * loaded before the proxy confined itself), then the run's TLS, ended
 * here with the leaf made for the name (tls.c), then one request: its
 * head read within bounds (httpreq.c), its Host and its method and path
 * checked against the policy, the credential's header put in (the run's
 * own copy of that field dropped), "Connection: close" said, the body
 * (Content-Length bytes, no more) and the answer relayed.  One request
 * per connection: whatever the run sends after its body is never
 * forwarded, so no second request rides past the checks.  A refusal is
 * answered 403 (or 400, 431, 501) and recorded with its method and path.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include "proxy.h"
#include "httpreq.h"
#include "httptarget.h"
#include "wall.h"

/* One side of the exchange: TLS (ssl) or, for a plain http:// host, the
 * socket itself. */
struct end {
	SSL *ssl;
	int fd;
};

static int rd(struct end *e, char *b, size_t n)
{
	ssize_t r;

	if (e->ssl)
		return SSL_read(e->ssl, b, n > INT_MAX ? INT_MAX : (int)n);
	r = read(e->fd, b, n);
	return r < 0 ? -1 : (int)r;
}

static int put(struct end *e, const char *b, size_t n)
{
	int w;

	if (!e->ssl)
		return write_all(e->fd, b, n) < 0 ? -1 : 0;
	while (n > 0) {
		w = SSL_write(e->ssl, b, n > INT_MAX ? INT_MAX : (int)n);
		if (w <= 0)
			return -1;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

/* A refusal's answer (refused.c's words), for the request rq. */
static void say(struct end *e, const char *status, const char *dest,
    enum egress_why w, const struct httpreq *rq, const char *detail)
{
	char buf[EGRESS_ANSWER_MAX], what[EGRESS_ANSWER_MAX / 4];
	size_t n;

	snprintf(what, sizeof(what), "%.32s %.200s", rq->method, rq->target);
	n = egress_answer(buf, sizeof(buf), status, dest, w,
	    *rq->method ? what : NULL, detail);
	put(e, buf, n);
}

static int budget(struct egress_shared *sh, size_t n)
{
	return __atomic_add_fetch(&sh->bytes, (uint64_t)n, __ATOMIC_RELAXED) <=
	    EGRESS_MAX_BYTES;
}

static size_t drop_len(const struct cpol_http *h)
{
	return *h->credential ? strcspn(h->header, ":") : 0;
}

/* The request head, within HTTPREQ_HEAD_MAX and the head's time. */
static enum httpreq_error head(struct end *c, char *buf, size_t *len,
    const struct cpol_http *h, struct httpreq *rq)
{
	enum httpreq_error e = HTTPREQ_MORE;
	int n;

	while (e == HTTPREQ_MORE) {
		n = rd(c, buf + *len, HTTPREQ_HEAD_MAX - *len);
		if (n <= 0)
			return HTTPREQ_MORE;     /* gone, or out of time */
		*len += (size_t)n;
		e = httpreq_parse(buf, *len, h->header, drop_len(h), 0, rq);
	}
	return e;
}

/* Host: the rule's name, with or without its port. */
static int host_ok(const struct httpreq *rq, const struct cpol_http *h)
{
	char full[CPOL_MAX_HOSTNAME + 8];

	snprintf(full, sizeof(full), "%s:%u", h->host, (unsigned int)h->port);
	return strcasecmp(rq->host, h->host) == 0 ||
	    strcasecmp(rq->host, full) == 0 || (rq->minor == 0 && !*rq->host);
}

/* The head as forwarded: the request line (origin-form), kept fields,
 * the credential's line, "Connection: close" (and Host for HTTP/1.0
 * without one). */
static int forward_head(struct end *u, const char *buf,
    const struct httpreq *rq, const char *cred, size_t clen,
    const struct cpol_http *h)
{
	static char out[HTTPREQ_HEAD_MAX + TLS_CRED_MAX + 512];
	size_t n;
	int rc;

	n = (size_t)snprintf(out, sizeof(out), "%s %s HTTP/1.%d\r\n",
	    rq->method, rq->target, rq->minor);
	for (unsigned int i = 0; i < rq->nlines; i++)
		if (!rq->line[i].drop) {
			memcpy(out + n, buf + rq->line[i].off, rq->line[i].len);
			n += rq->line[i].len;
		}
	if (!*rq->host)
		n += (size_t)snprintf(out + n, sizeof(out) - n, "Host: %s\r\n",
		    h->host);
	if (cred) {
		memcpy(out + n, cred, clen);
		n += clen;
	}
	n += (size_t)snprintf(out + n, sizeof(out) - n,
	    "Connection: close\r\n\r\n");
	rc = put(u, out, n);
	OPENSSL_cleanse(out, n);
	return rc;
}

/* The body: Content-Length bytes, from what came with the head, then
 * from the run; nothing past it. */
static int body(struct end *c, struct end *u, const char *buf, size_t len,
    const struct httpreq *rq, struct egress_shared *sh)
{
	static char b[65536];
	uint64_t left = rq->length;
	size_t have = len - rq->head_len;
	int n;

	if (have > left)
		have = (size_t)left;
	if (have && (!budget(sh, have) || put(u, buf + rq->head_len, have)))
		return -1;
	left -= have;
	while (left > 0) {
		n = rd(c, b, left < sizeof(b) ? (size_t)left : sizeof(b));
		if (n <= 0 || !budget(sh, (size_t)n) || put(u, b, (size_t)n))
			return -1;
		left -= (uint64_t)n;
	}
	return 0;
}

/* The upstream's answer, to its end (it closes: Connection: close). */
static void answer_back(struct end *c, struct end *u,
    struct egress_shared *sh, const char *dest)
{
	static char b[65536];
	int n;

	while ((n = rd(u, b, sizeof(b))) > 0) {
		if (!budget(sh, (size_t)n)) {
			egress_refuse(sh, dest, EGRESS_BYTE_LIMIT, NULL, NULL);
			return;
		}
		if (put(c, b, (size_t)n) < 0)
			return;
	}
}

/* The parser's verdict as a refusal (0: none). */
static enum egress_why parse_why(enum httpreq_error e)
{
	return e == HTTPREQ_OK ? 0 : e == HTTPREQ_TOO_LONG ?
	    EGRESS_HTTP_TOO_LONG : e == HTTPREQ_UNSUPPORTED ?
	    EGRESS_HTTP_UNSUPPORTED : e == HTTPREQ_UNDERSCORE ?
	    EGRESS_HTTP_UNDERSCORE : EGRESS_HTTP_BAD;
}

/* The status line's words for a refusal. */
static const char *status_of(enum egress_why w)
{
	switch (w) {
	case EGRESS_HTTP_TOO_LONG:
		return "431 Request Header Fields Too Large";
	case EGRESS_HTTP_UNSUPPORTED:
		return "501 Not Implemented";
	case EGRESS_HTTP_BAD:
	case EGRESS_HTTP_UNDERSCORE:
	case EGRESS_HTTP_TARGET:
		return "400 Bad Request";
	default:
		return "403 Forbidden";
	}
}

/* A request's refusal, or 0: its head (e: the parser's verdict), its
 * target's form, its Host, its rewrite fields (on a host with rules),
 * its method and path. */
static enum egress_why verdict(const struct httpreq *rq,
    enum httpreq_error e, const struct cpol_http *h)
{
	if (e != HTTPREQ_OK)
		return parse_why(e);
	if (httptarget_check(rq->target) != HTTPTARGET_OK)
		return EGRESS_HTTP_TARGET;
	if (!host_ok(rq, h))
		return EGRESS_HTTP_HOST;
	if (h->nrules && rq->rewrite)
		return EGRESS_HTTP_REWRITE;
	if (!cpol_http_allows(h, rq->method, rq->target))
		return EGRESS_HTTP_RULE;
	return 0;
}

/* A parsed head (e: the parser's verdict) checked, then forwarded with
 * its body, and the answer relayed. */
static void exchange(struct end *c, struct end *u, const struct egress_conf *cf,
    uint32_t hi, struct egress_shared *sh, const char *dest, const char *buf,
    size_t len, const struct httpreq *rq, enum httpreq_error e)
{
	const struct cpol_http *h = &cf->pol->http[hi];
	enum egress_why w = verdict(rq, e, h);

	if (w) {
		say(c, status_of(w), dest, w, rq, w == EGRESS_HTTP_TARGET ?
		    httptarget_fault_name(httptarget_check(rq->target)) :
		    NULL);
		egress_refuse(sh, dest, w, rq->method, rq->target);
		return;
	}
	if (!budget(sh, len) || forward_head(u, buf, rq, cf->tls->header[hi],
	    cf->tls->header_len[hi], h) < 0 || body(c, u, buf, len, rq,
	    sh) < 0)
		return;
	answer_back(c, u, sh, dest);
}

/* One request on the run's side c; u is the upstream's. */
static void request(struct end *c, struct end *u,
    const struct egress_conf *cf, uint32_t hi, struct egress_shared *sh,
    const char *dest)
{
	static char buf[HTTPREQ_HEAD_MAX];
	static struct httpreq rq;
	size_t len = 0;
	enum httpreq_error e = head(c, buf, &len, &cf->pol->http[hi], &rq);

	if (e == HTTPREQ_MORE)
		return;                 /* closed or timed out: nothing asked */
	exchange(c, u, cf, hi, sh, dest, buf, len, &rq, e);
}

/* Why the upstream's certificate was refused (its verify result), or
 * the handshake failed for another reason (X509_V_OK). */
static int upstream_why(long v)
{
	switch (v) {
	case X509_V_OK:
		return EGRESS_TLS_UPSTREAM;
	case X509_V_ERR_HOSTNAME_MISMATCH:
		return EGRESS_TLS_NAME;
	case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
	case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
	case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
	case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
	case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
	case X509_V_ERR_CERT_UNTRUSTED:
		return EGRESS_TLS_UNTRUSTED;
	default:
		return EGRESS_TLS_INVALID;
	}
}

int proxyhttp_upstream(int ufd, const struct egress_conf *cf, uint32_t hi,
    void **out)
{
	SSL *u = SSL_new(cf->tls->upstream);
	const char *host = cf->pol->http[hi].host;
	int why;

	*out = NULL;
	if (!u || SSL_set_fd(u, ufd) != 1 || SSL_set1_host(u, host) != 1 ||
	    SSL_set_tlsext_host_name(u, host) != 1 || SSL_connect(u) != 1 ||
	    SSL_get_verify_result(u) != X509_V_OK) {
		why = upstream_why(u ? SSL_get_verify_result(u) : X509_V_OK);
		SSL_free(u);
		ERR_clear_error();
		return why;
	}
	*out = u;
	return 0;
}

void proxyhttp_serve(int fd, void *upstream, const struct egress_conf *cf,
    uint32_t hi, struct egress_shared *sh, const char *dest)
{
	SSL *u = upstream, *c = SSL_new(cf->tls->server[hi]);
	struct timeval tv = { EGRESS_HEAD_MS / 1000, 0 };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (!c || SSL_set_fd(c, fd) != 1 || SSL_accept(c) != 1) {
		egress_refuse(sh, dest, EGRESS_TLS_CLIENT, NULL, NULL);
	} else {
		request(&(struct end){ c, fd }, &(struct end){ u, -1 }, cf,
		    hi, sh, dest);
		SSL_shutdown(c);
	}
	SSL_shutdown(u);
	SSL_free(c);
	SSL_free(u);
	ERR_clear_error();
}

int proxyhttp_plain_host(const struct egress_conf *cf, const char *buf,
    size_t len, uint32_t *hi, char *host, size_t hostlen, uint16_t *port)
{
	static struct httpreq rq;
	const struct cpol *p = cf->pol;

	if (httpreq_parse(buf, len, "", 0, HTTPREQ_ABSOLUTE, &rq) != HTTPREQ_OK ||
	    httpreq_authority(rq.authority, host, hostlen, port) < 0)
		return -1;
	for (uint32_t i = 0; i < p->nhttp; i++)
		if ((p->http[i].flags & CPOL_HTTP_PLAIN) && p->http[i].port ==
		    *port && strcmp(p->http[i].host, host) == 0) {
			*hi = i;
			return 0;
		}
	return -1;
}

void proxyhttp_plain(int fd, int out, const struct egress_conf *cf,
    uint32_t hi, struct egress_shared *sh, const char *dest,
    const char *buf, size_t len)
{
	static struct httpreq rq;
	const struct cpol_http *h = &cf->pol->http[hi];
	enum httpreq_error e = httpreq_parse(buf, len, h->header, drop_len(h),
	    HTTPREQ_ABSOLUTE, &rq);
	struct timeval tv = { EGRESS_HEAD_MS / 1000, 0 };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	exchange(&(struct end){ NULL, fd }, &(struct end){ NULL, out }, cf, hi,
	    sh, dest, buf, len, &rq, e);
}
