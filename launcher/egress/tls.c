/*
 * tls.c - the run's CA, the leaf certificates, the upstream context and
 * the credentials' values (see tls.h).  OpenSSL is initialised without
 * reading any configuration file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "infile.h"
#include "proxy.h"
#include "wall.h"

#define CA_DAYS 2              /* the run's CA and leaves: valid 2 days */

/* The run's credentials while they exist (one run per process). */
const int tls_built = 1;

static struct egress_tls *held;

static void tls_err(char *err, size_t errlen, const char *what)
{
	unsigned long e = ERR_get_error();

	snprintf(err, errlen, "egress TLS: %s%s%s", what, e ? ": " : "",
	    e ? ERR_reason_error_string(e) ? ERR_reason_error_string(e) :
	    "?" : "");
	ERR_clear_error();
}

static int ext(X509 *x, X509 *issuer, int nid, const char *value)
{
	X509V3_CTX ctx;
	X509_EXTENSION *e;
	int ok;

	X509V3_set_ctx(&ctx, issuer, x, NULL, NULL, 0);
	e = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
	if (!e)
		return 0;
	ok = X509_add_ext(x, e, -1);
	X509_EXTENSION_free(e);
	return ok;
}

/* A certificate for key, named cn, signed by ikey (issuer NULL: self). */
static X509 *cert(EVP_PKEY *key, const char *cn, X509 *issuer,
    EVP_PKEY *ikey)
{
	X509 *x = X509_new();
	BIGNUM *bn = BN_new();
	char san[CPOL_MAX_HOSTNAME + 8];
	int ok;

	ok = x && bn && BN_rand(bn, 63, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) &&
	    BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x)) &&
	    X509_set_version(x, 2) &&
	    X509_gmtime_adj(X509_getm_notBefore(x), -3600) &&
	    X509_gmtime_adj(X509_getm_notAfter(x), 86400L * CA_DAYS) &&
	    X509_set_pubkey(x, key) &&
	    X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN",
	    MBSTRING_ASC, (const unsigned char *)cn, -1, -1, 0) &&
	    X509_set_issuer_name(x, X509_get_subject_name(issuer ? issuer :
	    x)) && ext(x, issuer ? issuer : x, NID_subject_key_identifier,
	    "hash");
	if (ok && !issuer)
		ok = ext(x, x, NID_basic_constraints, "critical,CA:TRUE,"
		    "pathlen:0") && ext(x, x, NID_key_usage, "critical,"
		    "keyCertSign,cRLSign");
	else if (ok) {
		snprintf(san, sizeof(san), "DNS:%s", cn);
		ok = ext(x, issuer, NID_basic_constraints, "critical,CA:FALSE")
		    && ext(x, issuer, NID_key_usage, "critical,"
		    "digitalSignature") && ext(x, issuer, NID_ext_key_usage,
		    "serverAuth") && ext(x, issuer, NID_subject_alt_name, san)
		    && ext(x, issuer, NID_authority_key_identifier, "keyid");
	}
	ok = ok && X509_sign(x, ikey, EVP_sha256()) > 0;
	BN_free(bn);
	if (!ok) {
		X509_free(x);
		return NULL;
	}
	return x;
}

/* A server context for host, its leaf signed by the run's CA. */
static SSL_CTX *server(const char *host, X509 *ca, EVP_PKEY *cakey)
{
	EVP_PKEY *key = EVP_EC_gen("P-256");
	X509 *leaf = key ? cert(key, host, ca, cakey) : NULL;
	SSL_CTX *ctx = leaf ? SSL_CTX_new(TLS_server_method()) : NULL;

	if (ctx && (!SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) ||
	    SSL_CTX_use_certificate(ctx, leaf) != 1 ||
	    SSL_CTX_use_PrivateKey(ctx, key) != 1 ||
	    SSL_CTX_check_private_key(ctx) != 1)) {
		SSL_CTX_free(ctx);
		ctx = NULL;
	}
	if (ctx)
		SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION |
		    SSL_OP_NO_COMPRESSION | SSL_OP_NO_TICKET);
	X509_free(leaf);
	EVP_PKEY_free(key);
	return ctx;
}

static SSL_CTX *client(const char *cafile, char *err, size_t errlen)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());

	if (!ctx || !SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION)) {
		tls_err(err, errlen, "the upstream context");
		SSL_CTX_free(ctx);
		return NULL;
	}
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	if (SSL_CTX_load_verify_file(ctx, cafile) != 1) {
		tls_err(err, errlen, "loading the CA store for the upstream");
		snprintf(err + strlen(err), errlen - strlen(err), " (%s)",
		    cafile);
		SSL_CTX_free(ctx);
		return NULL;
	}
	return ctx;
}

/* The value of one credential, from spec: cordon's environment, or a
 * file.  Printable ASCII (it goes into a header line), 1 to
 * TLS_CRED_MAX bytes.  0, or -1 with err naming the credential only. */
static int value(const char *name, const char *spec, char *out, size_t *len,
    char *err, size_t errlen)
{
	const char *v = NULL, *path = NULL;
	struct stat st;
	size_t n = 0, i;
	int fd;

	if (spec[strlen(name)] == '=')
		path = spec + strlen(name) + 2;    /* NAME=@PATH */
	else
		v = getenv(name);
	if (v && (n = strlen(v)) <= TLS_CRED_MAX) {
		memcpy(out, v, n);
		/* cordon's own environment: wiped where it lies (what
		 * /proc/PID/environ shows, and the run's child's copy) */
		OPENSSL_cleanse((char *)v, n);
	}
	else if (path && (fd = infile_open(path, 0, &st)) >= 0) {
		if (infile_read(fd, &st, out, TLS_CRED_MAX + 2, &n) < 0)
			n = TLS_CRED_MAX + 1;
		close(fd);
		if (n > 0 && out[n - 1] == '\n')
			n--;
		if (n > 0 && out[n - 1] == '\r')
			n--;
	} else if (path) {
		snprintf(err, errlen, "credential %s: cannot read %s: %s",
		    name, path, infile_strerror(errno));
		return -1;
	}
	for (i = 0; i < n && out[i] >= ' ' && out[i] < 0x7f; i++)
		;
	if (n == 0 || n > TLS_CRED_MAX || i < n) {
		snprintf(err, errlen, "credential %s: %s", name, !v && !path ?
		    "no such variable in cordon's environment" : n == 0 ?
		    "the value is empty" : "the value is not 1 to 4096 "
		    "bytes of printable ASCII on one line");
		return -1;
	}
	*len = n;
	return 0;
}

/* The spec that gives name: "NAME" or "NAME=@PATH". */
static const char *spec_for(const char *name, const struct tls_cred *c,
    int n)
{
	size_t k = strlen(name);

	for (int i = 0; i < n; i++)
		if (strncmp(c[i].spec, name, k) == 0 && (c[i].spec[k] == '\0' ||
		    (c[i].spec[k] == '=' && c[i].spec[k + 1] == '@')))
			return c[i].spec;
	return NULL;
}

/* The values read, once per name (cordon's environment is wiped as it
 * is read: a second host with the same credential finds it here). */
struct values {
	const char *name[CPOL_MAX_HTTP];
	char *v[CPOL_MAX_HTTP];
	size_t len[CPOL_MAX_HTTP];
	uint32_t n;
};

/* The value of h's credential: 0 with *v, *vlen, or -1 with err. */
static int value_of(struct values *vs, const struct cpol_http *h,
    const struct tls_cred *c, int n, const char **v, size_t *vlen,
    char *err, size_t errlen)
{
	const char *spec = spec_for(h->credential, c, n);
	uint32_t i;

	for (i = 0; i < vs->n; i++)
		if (strcmp(vs->name[i], h->credential) == 0)
			goto found;
	if (!spec) {
		snprintf(err, errlen, "the policy adds credential %s to "
		    "requests to \"%s\":%u, and no value was given: "
		    "--credential %s (from cordon's environment) or "
		    "--credential %s=@FILE", h->credential, h->host, h->port,
		    h->credential, h->credential);
		return -1;
	}
	if (!(vs->v[i] = OPENSSL_zalloc(TLS_CRED_MAX + 3))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	vs->name[i] = h->credential;
	vs->n++;
	if (value(h->credential, spec, vs->v[i], &vs->len[i], err,
	    errlen) < 0)
		return -1;
found:
	*v = vs->v[i];
	*vlen = vs->len[i];
	return 0;
}

static void values_free(struct values *vs)
{
	for (uint32_t i = 0; i < vs->n; i++)
		OPENSSL_clear_free(vs->v[i], TLS_CRED_MAX + 3);
	vs->n = 0;
}

/* The header line of h with the value: the template's "{}" replaced. */
static int header(struct egress_tls *t, uint32_t i, const struct cpol_http *h,
    const char *v, size_t vlen, char *err, size_t errlen)
{
	const char *at = strstr(h->header, "{}");
	size_t pre = (size_t)(at - h->header);
	size_t len = strlen(h->header) - 2 + vlen + 2;

	if (!(t->header[i] = OPENSSL_zalloc(len + 1))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memcpy(t->header[i], h->header, pre);
	memcpy(t->header[i] + pre, v, vlen);
	memcpy(t->header[i] + pre + vlen, at + 2, strlen(at + 2));
	memcpy(t->header[i] + len - 2, "\r\n", 2);
	t->header_len[i] = len;
	return 0;
}

/* Every HTTP host's header line. */
static int headers(struct egress_tls *t, const struct cpol *p,
    const struct tls_cred *c, int n, char *err, size_t errlen)
{
	struct values vs;
	const char *v;
	size_t vlen;
	int rc = 0;

	memset(&vs, 0, sizeof(vs));
	for (uint32_t i = 0; rc == 0 && i < p->nhttp; i++)
		if (*p->http[i].credential)
			rc = value_of(&vs, &p->http[i], c, n, &v, &vlen, err,
			    errlen) < 0 || header(t, i, &p->http[i], v, vlen,
			    err, errlen) < 0 ? -1 : 0;
	values_free(&vs);
	return rc;
}

/* Every --credential names one the policy binds (a typo is not a
 * silently missing header). */
static int creds_known(const struct cpol *p, const struct tls_cred *c,
    int n, char *err, size_t errlen)
{
	for (int i = 0; i < n; i++) {
		size_t k = strcspn(c[i].spec, "=");
		uint32_t j;

		for (j = 0; j < p->nhttp; j++)
			if (strlen(p->http[j].credential) == k &&
			    strncmp(p->http[j].credential, c[i].spec, k) == 0)
				break;
		if (j == p->nhttp) {
			snprintf(err, errlen, "--credential %.*s: the policy "
			    "binds no credential of that name", (int)k,
			    c[i].spec);
			return -1;
		}
	}
	return 0;
}

/* The run's bundle: this run's CA, then the system's (hosts that are
 * tunnelled keep their own certificates). */
static int bundle(int wfd, X509 *ca, char *err, size_t errlen)
{
	static char sys[TLS_BUNDLE_MAX + 1];
	BIO *b = BIO_new(BIO_s_mem());
	struct stat st;
	size_t n = 0;
	char *pem;
	long plen;
	int fd, out = -1, rc = -1;

	if (!b || !PEM_write_bio_X509(b, ca)) {
		tls_err(err, errlen, "the CA's PEM");
		goto done;
	}
	plen = BIO_get_mem_data(b, &pem);
	if ((fd = infile_open(TLS_SYSTEM_CA, 0, &st)) >= 0) {
		if (infile_read(fd, &st, sys, TLS_BUNDLE_MAX, &n) < 0)
			n = 0;
		close(fd);
	}
	if ((unlinkat(wfd, CPOL_CA_BUNDLE_NAME, 0) < 0 && errno != ENOENT) ||
	    (out = openat(wfd, CPOL_CA_BUNDLE_NAME, O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0644)) < 0 ||
	    write_all(out, pem, (size_t)plen) < 0 ||
	    write_all(out, sys, n) < 0) {
		snprintf(err, errlen, "writing the run's CA bundle %s: %s",
		    CPOL_CA_BUNDLE_NAME, strerror(errno));
		goto done;
	}
	rc = 0;
done:
	if (out >= 0 && close(out) < 0 && rc == 0) {
		snprintf(err, errlen, "writing %s: %s", CPOL_CA_BUNDLE_NAME,
		    strerror(errno));
		rc = -1;
	}
	BIO_free(b);
	return rc;
}

/* The CA, the leaves (CA key freed after), the bundle. */
static int certs(struct egress_tls *t, const struct cpol *p, int wfd,
    char *err, size_t errlen)
{
	EVP_PKEY *cakey = EVP_EC_gen("P-256");
	X509 *ca = cakey ? cert(cakey, "cordon run CA", NULL, cakey) : NULL;
	int rc = -1;

	if (!ca) {
		tls_err(err, errlen, "making the run's CA");
		goto done;
	}
	for (uint32_t i = 0; i < p->nhttp; i++)
		if (!(p->http[i].flags & CPOL_HTTP_PLAIN) &&
		    !(t->server[i] = server(p->http[i].host, ca, cakey))) {
			tls_err(err, errlen, "a certificate for a named host");
			goto done;
		}
	rc = bundle(wfd, ca, err, errlen);
done:
	X509_free(ca);
	EVP_PKEY_free(cakey);
	return rc;
}

int tls_prepare(struct egress_tls **out, const struct cpol *p,
    const struct tls_cred *creds, int ncreds, const char *upstream_ca,
    int wfd, char *err, size_t errlen)
{
	struct egress_tls *t;

	*out = NULL;
	if (!OPENSSL_init_ssl(OPENSSL_INIT_NO_LOAD_CONFIG, NULL) ||
	    !(t = OPENSSL_zalloc(sizeof(*t)))) {
		tls_err(err, errlen, "initialising OpenSSL");
		return -1;
	}
	*out = held = t;
	if (creds_known(p, creds, ncreds, err, errlen) < 0)
		return -1;
	if (headers(t, p, creds, ncreds, err, errlen) < 0)
		return -1;
	if (!(t->upstream = client(upstream_ca ? upstream_ca : TLS_SYSTEM_CA,
	    err, errlen)))
		return -1;
	return certs(t, p, wfd, err, errlen);
}

void tls_forget(void)
{
	for (uint32_t i = 0; held && i < CPOL_MAX_HTTP; i++)
		if (held->header[i])
			OPENSSL_cleanse(held->header[i], held->header_len[i]);
}

void tls_free(struct egress_tls *t)
{
	if (!t)
		return;
	if (t == held)
		held = NULL;
	for (uint32_t i = 0; i < CPOL_MAX_HTTP; i++) {
		SSL_CTX_free(t->server[i]);
		if (t->header[i])
			OPENSSL_clear_free(t->header[i], t->header_len[i] + 1);
	}
	SSL_CTX_free(t->upstream);
	OPENSSL_free(t);
}
