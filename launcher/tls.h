/*
 * tls.h - the proxy's TLS for named hosts with a credential or http
 * rules (OpenSSL, linked statically; only tls.c and proxyhttp.c include
 * its headers).  Before the run: a CA made for this run, one leaf
 * certificate per such host signed by it (the CA's key is then freed:
 * nothing can sign again), the run's CA bundle written into its
 * workdir, the upstream context with the system's CA store loaded, and
 * the credentials' values read from the caller into header lines.  All
 * of it is in memory before the proxy confines itself.
 */
#ifndef CORDON_TLS_H
#define CORDON_TLS_H

#include <stddef.h>
#include <stdint.h>

#include "cpol.h"

#define TLS_CRED_MAX 4096          /* bytes of a credential's value */
#define TLS_BUNDLE_MAX (4u << 20)  /* the system CA bundle read */
#define TLS_SYSTEM_CA "/etc/ssl/certs/ca-certificates.crt"

/* --credential NAME (cordon's own environment variable NAME) or
 * --credential NAME=@PATH (the file's contents, one final newline
 * dropped). */
struct tls_cred {
	const char *spec;
};

struct ssl_ctx_st;
struct egress_tls {
	struct ssl_ctx_st *upstream;            /* verifies the real host */
	struct ssl_ctx_st *server[CPOL_MAX_HTTP]; /* per HTTP host: its leaf */
	char *header[CPOL_MAX_HTTP];    /* "Field: value\r\n", or NULL */
	size_t header_len[CPOL_MAX_HTTP];
};

/* Make everything for p's HTTP hosts; write the run's bundle (this CA,
 * then the system's) as CPOL_CA_BUNDLE_NAME in the directory wfd.  0, or -1
 * with err (nothing of a credential's value in it). */
int tls_prepare(struct egress_tls **out, const struct cpol *p,
    const struct tls_cred *creds, int ncreds, const char *upstream_ca,
    int wfd, char *err, size_t errlen);
/* Everything freed, the values and keys cleansed first. */
void tls_free(struct egress_tls *t);
/* In the run's child, first thing after the clone: its copy of the
 * credentials' header lines (the pages copied on write) cleansed, so the
 * values are not in its memory even before its execve. */
void tls_forget(void);

#endif
