/*
 * httpreq.h - the request heads the proxy reads inside a terminated TLS
 * connection (a host with a credential or http rules): one HTTP/1.x
 * request, parsed strictly (CRLF only, no folded lines, one Host, one
 * Content-Length, no Transfer-Encoding), so that the proxy and the
 * upstream cannot read one request two ways.  No system call.
 */
#ifndef CORDON_HTTPREQ_H
#define CORDON_HTTPREQ_H

#include <stddef.h>
#include <stdint.h>

#include "cpol.h"

#define HTTPREQ_HEAD_MAX 16384      /* request line and headers */
#define HTTPREQ_HEADERS_MAX 64      /* header lines in one head */
#define HTTPREQ_TARGET_MAX 2048     /* the request target (path, query) */
#define HTTPREQ_BODY_MAX (1ull << 32) /* a Content-Length taken */

enum httpreq_error {
	HTTPREQ_OK = 0,
	HTTPREQ_MORE,           /* no end of head yet: read on */
	HTTPREQ_TOO_LONG,       /* head, a header line or target too long,
	                         * or too many headers: 431 */
	HTTPREQ_BAD,            /* not a clean HTTP/1.x head: 400 */
	HTTPREQ_UNSUPPORTED,    /* Transfer-Encoding (a chunked body): 501 */
	HTTPREQ_UNDERSCORE,     /* a header name with '_' (servers that
	                         * read it as '-' would see another field,
	                         * "Transfer_Encoding"): 400 */
};

/* A header line of the head: buf[off, off + len) with its CRLF. */
struct httpreq_line {
	uint32_t off, len;
	uint8_t drop;           /* not forwarded (hop-by-hop, the
	                         * credential's own field, Proxy-*) */
};

/* httpreq_parse's flags: HTTPREQ_ABSOLUTE, a request sent to the proxy
 * in clear for a plain http:// host: its target is "http://" authority
 * path (absolute-form), the authority into authority, the path (with
 * its query; "/" when none) into target.  Without it: origin-form only. */
#define HTTPREQ_ABSOLUTE 1u

struct httpreq {
	char authority[CPOL_MAX_HOSTNAME + 8];  /* HTTPREQ_ABSOLUTE: host[:port] */
	char method[CPOL_MAX_HTTP_METHOD + 1];
	char target[HTTPREQ_TARGET_MAX + 1];
	char host[CPOL_MAX_HOSTNAME + 8];   /* the Host header, as sent */
	int minor;                  /* HTTP/1.minor: 0 or 1 */
	uint64_t length;            /* Content-Length, 0 if none */
	size_t line_len;            /* the request line, CRLF included */
	size_t head_len;            /* the head, CRLFCRLF included */
	uint8_t rewrite;            /* a method-override or URL-rewrite
	                             * field (X-HTTP-Method-Override,
	                             * X-Original-URL, ...): the request
	                             * would be read as another method or
	                             * path than the one checked */
	unsigned int nlines;
	struct httpreq_line line[HTTPREQ_HEADERS_MAX];
};

/* Parse buf[0..len): one request head (its target as sent: see
 * httptarget.h for its normal form).  drop names one more header field
 * (the credential's, any case) not to forward.  Touches only
 * buf[0..len). */
enum httpreq_error httpreq_parse(const char *buf, size_t len,
    const char *drop, size_t droplen, unsigned int flags,
    struct httpreq *out);
/* An authority "host" or "host:port" as host (lower case, a name
 * cpol_host_name accepts) and port (80 when none): 0, or -1. */
int httpreq_authority(const char *a, char *host, size_t hostlen,
    uint16_t *port);

#endif
