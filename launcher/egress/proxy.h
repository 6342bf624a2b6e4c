/*
 * proxy.h - the egress proxy's own header, inside its room (launcher/
 * egress/): the process cordon-egress, cordon-tls and cordon-observe
 * start for a run with named hosts (proxy.c), which takes HTTP CONNECT
 * requests (proxyreq.c parses them), resolves the allowed names itself
 * (dns.c), connects to nothing else and records what it refused
 * (refused.c); with a credential or http rules, the run's TLS ended and
 * the request checked (tls.c, proxyhttp.c).  The launcher sees only
 * egress.h.
 */
#ifndef CORDON_PROXY_H
#define CORDON_PROXY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>

#include "cpol.h"
#include "egress.h"

/* The longest request head (request line and headers) the proxy reads:
 * CONNECT needs a line and a Host header; clients send a few more. */
#define PROXYREQ_HEAD_MAX 8192
#define PROXYREQ_HEADERS_MAX 64     /* header lines in one head */

/* Why the parser refused a head (each also the proxy's HTTP answer). */
enum proxyreq_error {
	PROXYREQ_OK = 0,
	PROXYREQ_MORE,          /* no end of head yet: read on */
	PROXYREQ_TOO_LONG,      /* no end within PROXYREQ_HEAD_MAX */
	PROXYREQ_BAD,           /* not HTTP/1.x: 400 */
	PROXYREQ_NOT_CONNECT,   /* another method (plain http): 405 */
	PROXYREQ_BAD_TARGET,    /* not host:port: 400 */
	PROXYREQ_BAD_NAME,      /* a CONNECT to host:port where host is no
	                         * address and no host name (cpol_host_name):
	                         * 400, host and port filled in */
};

struct proxyreq {
	char host[CPOL_MAX_HOSTNAME + 1];  /* lower case; v6 without [];
	                                    * a name without the root's dot */
	int literal;            /* 4 or 6: an address literal; 0: a name */
	uint16_t port;
	size_t head_len;        /* bytes of the head, CRLFCRLF included */
};

/* Parse buf[0..len): a CONNECT request head.  No system call, no
 * allocation; touches only buf[0..len). */
enum proxyreq_error proxyreq_parse(const char *buf, size_t len,
    struct proxyreq *out);

/* The proxy's per-run bounds (EGRESS_MAX_OPEN and the tables': egress.h).
 * The run's timeout bounds its time: the proxy ends with the run. */
#define EGRESS_MAX_CONNS 256        /* connections a run may open in all */
#define EGRESS_MAX_BYTES (2ull << 30)  /* both ways, the whole run */
#define EGRESS_HEAD_MS 10000        /* to send a request head */
#define EGRESS_CONNECT_MS 10000     /* to connect to an allowed host */
#define EGRESS_DNS_MS 2000          /* per DNS query and server */
#define EGRESS_DNS_QUERIES 64       /* DNS queries a run may send in all:
                                     * 32 names' A and AAAA at one server */
#define EGRESS_DNS_CACHE 32         /* names whose answers are kept */
#define EGRESS_ADDRS_MAX 16         /* addresses tried per name */
#define EGRESS_FILE_MAX 65536       /* /etc/hosts, /etc/resolv.conf read */

/* Why the proxy refused a request: the one table is in refused.c. */
enum egress_why {
	EGRESS_BAD_REQUEST = 1, EGRESS_NOT_CONNECT, EGRESS_NOT_ALLOWED,
	EGRESS_NO_ADDRESS, EGRESS_PRIVATE_ADDRESS, EGRESS_UNREACHABLE,
	EGRESS_CONN_LIMIT, EGRESS_BYTE_LIMIT, EGRESS_TIMEOUT,
	EGRESS_BAD_NAME, EGRESS_DNS_LIMIT,
	/* a host with a credential or http rules (proxyhttp.c) */
	EGRESS_HTTP_RULE, EGRESS_HTTP_HOST, EGRESS_HTTP_BAD,
	EGRESS_HTTP_TOO_LONG, EGRESS_HTTP_UNSUPPORTED, EGRESS_TLS_CLIENT,
	EGRESS_TLS_UPSTREAM, EGRESS_HTTP_TARGET, EGRESS_HTTP_UNDERSCORE,
	EGRESS_HTTP_REWRITE,
	/* a special address literal without "private"; a tunnel to the
	 * server (address and port) of a host with http rules */
	EGRESS_PRIVATE_LITERAL, EGRESS_AROUND_RULES,
	/* the upstream's certificate: its chain reaches no trusted CA, it
	 * names another host, or it is not valid otherwise (expired...) */
	EGRESS_TLS_UNTRUSTED, EGRESS_TLS_NAME, EGRESS_TLS_INVALID,
};

/* The DNS answers the run's connections share (MAP_SHARED, dns.c): a
 * slot is taken with an atomic add, written once, then marked ready. */
struct egress_dns_entry {
	char name[CPOL_MAX_HOSTNAME + 1];
	uint64_t expires_ms;        /* CLOCK_MONOTONIC: the answer's TTL */
	struct sockaddr_storage addr[EGRESS_ADDRS_MAX];
	uint8_t n, ready;
};
struct egress_dns {
	uint32_t used;
	struct egress_dns_entry e[EGRESS_DNS_CACHE];
};


struct egress_tls;
/* What the proxy needs, all read before it starts (it opens nothing). */
struct egress_conf {
	const struct cpol *pol;
	struct egress_tls *tls;     /* HTTP hosts' TLS (tls.c), or NULL */
	const struct egress_map *map;
	int nmap;
	unsigned int procs;         /* the proxy's processes at most, itself
	                             * included: EGRESS_MAX_OPEN + 1, or the
	                             * run's pids or nproc bound if lower */
	struct egress_dns *dns;     /* MAP_SHARED */
	int observe;                /* learn mode: any host and port */
	char hosts[EGRESS_FILE_MAX];    /* /etc/hosts, "" if none */
	char resolv[EGRESS_FILE_MAX];   /* /etc/resolv.conf, "" if none */
};

static inline uint64_t egress_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* dns.c: the addresses of name (hosts file, the answers kept, then the
 * resolv.conf name servers over UDP within the run's query budget in
 * sh); returns how many (0: none), at most max, or -1: none known and
 * the budget spent. */
int dns_resolve(const struct egress_conf *c, struct egress_shared *sh,
    const char *name, struct sockaddr_storage *out, int max);
/* Parse a DNS message as the answer to the query (id, name, qtype): -1
 * when it is not (another id or question, not a response, malformed up
 * to the question), else its A or AAAA records into out (port 0), how
 * many (0 for an error or truncated answer), and their least TTL in
 * seconds into *ttl (UINT32_MAX: none).  No system call; fuzzed. */
int dns_parse(const uint8_t *msg, size_t len, uint16_t id, const char *name,
    uint16_t qtype, struct sockaddr_storage *out, int max, uint32_t *ttl);

/* sni.c: the server name of a TLS ClientHello (in one record) from
 * b[0..n) into name: SNI_OK (name "" when it names none), SNI_MORE
 * (read on), SNI_NONE (not TLS), SNI_BAD (malformed, a record over
 * SNI_RECORD_MAX, or a hello split across records).  No system call. */
#define SNI_RECORD_MAX 16384        /* TLS's largest plaintext record */
enum sni_result { SNI_OK = 0, SNI_MORE, SNI_NONE, SNI_BAD };
enum sni_result sni_parse(const uint8_t *b, size_t n, char *name,
    size_t namelen);
/* around.c: a tunnel that would reach around a host's http rules.
 * Does the policy have a host with http rules (and not learn mode)? */
int egress_has_rules(const struct egress_conf *c);
/* 1 when a tunnel for rq to addrs[0..n) reaches around such a host: its
 * name has rules, or an address is one such a host on rq's port
 * resolves to in this run (or none is known: the query budget spent). */
int egress_around_addr(const struct egress_conf *c,
    const struct proxyreq *rq, struct egress_shared *sh,
    const struct sockaddr_storage *addrs, int n);
/* A tunnel's first bytes from the run (pre[0..npre): those sent with
 * the CONNECT), read on fd until they name a server (SNI, Host) or the
 * server on out speaks first: -1 (recorded) when they name a host with
 * http rules or are a malformed ClientHello, else 0 with what was read
 * sent on to out. */
int egress_first_flight(int fd, int out, const struct egress_conf *c,
    struct egress_shared *sh, const char *dest, const char *pre,
    size_t npre);

/* addrs.c */
/* The addresses to try for rq (a literal, a --resolve mapping, or what
 * DNS says less every address that is not public): how many; 0 with
 * *why when none. */
int egress_addresses(const struct egress_conf *c, const struct proxyreq *rq,
    struct egress_shared *sh, struct sockaddr_storage *out,
    enum egress_why *why);
int egress_addr_public(const struct sockaddr_storage *a);

/* refused.c: record a refusal (method and path: an HTTP request's, or
 * NULL). */
void egress_refuse(struct egress_shared *sh, const char *dest,
    enum egress_why why, const char *method, const char *path);
/* The answer to a refused request, into buf (EGRESS_ANSWER_MAX): its
 * status line, an X-Cordon-Refused header naming why, and a body that
 * says it in words: "cordon refused DEST[ WHAT]: WHY[: DETAIL]" (WHAT:
 * an HTTP request's method and path, cut; NULL for a tunnel).  Its
 * length.  Both the tunnel's refusals (proxy.c) and an HTTP host's
 * (proxyhttp.c) are answered so: the run sees who refused and why. */
#define EGRESS_ANSWER_MAX 1024
size_t egress_answer(char *buf, size_t size, const char *status,
    const char *dest, enum egress_why why, const char *what,
    const char *detail);

/* proxyhttp.c: a host with a credential or http rules (HTTP host hi).
 * proxyhttp_upstream: TLS to the host on ufd, verified; 0 with *u, or
 * why it failed (EGRESS_TLS_*).  proxyhttp_serve: the run's TLS on fd, ended here, one request
 * checked and forwarded through u (freed). */
int proxyhttp_upstream(int ufd, const struct egress_conf *c, uint32_t hi,
    void **u);
void proxyhttp_serve(int fd, void *u, const struct egress_conf *c,
    uint32_t hi, struct egress_shared *sh, const char *dest);
/* A plain http:// request (absolute-form) the proxy read in buf[0..len):
 * proxyhttp_plain_host finds the plain HTTP host it names (0 with *hi,
 * its host and port, or -1); proxyhttp_plain checks and forwards it to
 * out, connected to that host. */
int proxyhttp_plain_host(const struct egress_conf *c, const char *buf,
    size_t len, uint32_t *hi, char *host, size_t hostlen, uint16_t *port);
void proxyhttp_plain(int fd, int out, const struct egress_conf *c,
    uint32_t hi, struct egress_shared *sh, const char *dest,
    const char *buf, size_t len);

/* tls.c: the proxy's TLS for named hosts with a credential or http
 * rules (OpenSSL, linked statically; only tls.c and proxyhttp.c include
 * its headers).  Before the run: a CA made for this run, one leaf
 * certificate per such host signed by it (the CA's key is then freed:
 * nothing can sign again), the run's CA bundle written into its
 * workdir, the upstream context with the system's CA store loaded, and
 * the credentials' values read from the caller into header lines.  All
 * of it is in memory before the proxy confines itself.
 */
#define TLS_CRED_MAX 4096          /* bytes of a credential's value */
#define TLS_BUNDLE_MAX (4u << 20)  /* the system CA bundle read */
#define TLS_SYSTEM_CA "/etc/ssl/certs/ca-certificates.crt"

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

#endif
