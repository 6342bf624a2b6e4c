/*
 * egress.h - the run's way out under "network connect" with named hosts,
 * as the rest of the launcher sees it: a network namespace with loopback
 * alone (netns.c), a proxy cordon starts for the run (its own process:
 * the room's proxy.h) that connects to the allowed hosts and nothing
 * else, and what it refused (the status report).  In cordon, the program
 * without the proxy, noegress.c and notls.c answer for the room.
 */
#ifndef CORDON_EGRESS_H
#define CORDON_EGRESS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "cpol.h"

/* The per-run bounds the launcher sees (the proxy's own: proxy.h). */
#define EGRESS_MAX_OPEN 32          /* connections at once (one process
                                     * each), and the proxy with them
                                     * within the run's pids and nproc
                                     * bounds */
#define EGRESS_REFUSED_MAX 16       /* refusals listed; more are counted */
#define EGRESS_DEST_MAX 96          /* bytes of a refused destination */
#define EGRESS_MAP_MAX 16           /* --resolve NAME:ADDR entries */
#define EGRESS_SEEN_MAX 64          /* learn mode: hosts:ports recorded;
                                     * more are counted */

/* Why the proxy refused a request (enum egress_why, proxy.h), named:
 * the one table is in refused.c. */
const char *egress_why_name(unsigned int why);

/* Shared (MAP_SHARED) between cordon, the proxy and its connection
 * processes: counters and refusals, read by cordon after the run.  A
 * refusal's slot is taken with an atomic add; ready is set last. */
#define EGRESS_PATH_MAX 128         /* bytes of a refused request's path */
struct egress_refusal {
	char dest[EGRESS_DEST_MAX];
	char method[CPOL_MAX_HTTP_METHOD + 1];  /* "" unless an HTTP request */
	char path[EGRESS_PATH_MAX];
	uint8_t why, ready;
};
/* Learn mode: a host and port the proxy connected to (a slot taken
 * with an atomic add, ready set last; a repeat counts in its slot). */
struct egress_seen {
	char host[CPOL_MAX_HOSTNAME + 1];
	uint16_t port;
	uint8_t ready;
	uint32_t count;
};
struct egress_shared {
	uint32_t conns, refused;
	uint32_t dns_queries;       /* sent, at most EGRESS_DNS_QUERIES */
	uint64_t bytes;
	struct egress_refusal r[EGRESS_REFUSED_MAX];
	uint32_t nseen;             /* slots taken; past the last: dropped */
	struct egress_seen seen[EGRESS_SEEN_MAX];
};

/* A name the caller maps (--resolve), trusted as given. */
struct egress_map {
	char name[CPOL_MAX_HOSTNAME + 1];
	struct sockaddr_storage addr;
	socklen_t len;
};

/* netns.c: in the child, in its new network namespace: loopback up, the
 * proxy's listening socket made and sent to cordon. */
int netns_listen(int sock);

struct egress_conf;           /* the proxy's (proxy.h) */
/* egress.c: the run's side in launch.c.  One per run; sock[1] is the
 * child's (struct launch net_w). */
struct egress_run {
	int on;                     /* the policy names hosts, or observe */
	int observe;                /* learn mode: every host let through,
	                             * each reached one recorded */
	int sock[2];                /* the listener's way from the child */
	struct egress_shared *sh;   /* MAP_SHARED, or NULL */
	struct egress_conf *conf;
	pid_t pid;                  /* the proxy, or -1 */
};
/* --credential NAME (cordon's own environment variable NAME) or
 * --credential NAME=@PATH (the file's contents, one final newline
 * dropped): read by tls.c. */
struct tls_cred {
	const char *spec;
};
/* The caller's side of HTTP hosts: --credential, and --upstream-ca
 * (tests: another CA than the system's for the upstream). */
struct egress_creds {
	const struct tls_cred *cred;
	int n;
	const char *upstream_ca;
	int wfd;                    /* the run's workdir: its CA bundle */
};
int egress_map_parse(const char *arg, struct egress_map *m);
void egress_init(struct egress_run *e);
int egress_prepare(struct egress_run *e, const struct cpol *p,
    unsigned int procs, const struct egress_map *map, int nmap,
    const struct egress_creds *cr, char *err, size_t errlen);
int egress_go(struct egress_run *e, int null_fd, char *err, size_t errlen);
void egress_end(struct egress_run *e, struct egress_shared *out);
/* What the proxy needs (proxy.h), made before it starts: the policy, the
 * --resolve names, its process bound, learn mode, the HTTP hosts' TLS
 * with the credentials (creds).  egress_conf_make: 0, or -1 with err;
 * egress_conf_free takes NULL.  In cordon (noegress.c) the one fails
 * closed and the other does nothing. */
int egress_conf_make(struct egress_conf **out, const struct cpol *p,
    const struct egress_map *map, int nmap, unsigned int procs,
    int observe, const struct egress_creds *cr, char *err, size_t errlen);
void egress_conf_free(struct egress_conf *c);
/* proxy.c; in cordon, the program without the proxy, noegress.c, whose
 * every function fails closed (companion.c: cordon executes cordon-egress
 * for a run with the proxy, before anything of it is made).  1 in a
 * program with the proxy, 0 in cordon. */
extern const int egress_built;
pid_t egress_start(int listener, const struct egress_conf *c,
    struct egress_shared *sh, int null_fd);
/* tls.c; notls.c in a program without OpenSSL.  1 in a program with
 * the proxy's TLS: cordon-tls, cordon-static, the warm pool's extension;
 * 0 in cordon, which leaves OpenSSL out because a static PIE relocates
 * all of its tables at every start (about 95 pages written:
 * bench/README.md section 1) and runs a policy with HTTP hosts by
 * executing cordon-tls (main.c). */
extern const int tls_built;
/* In the run's child, first thing after the clone: its copy of the
 * credentials' header lines (the pages copied on write) cleansed, so the
 * values are not in its memory even before its execve. */
void tls_forget(void);

#endif
