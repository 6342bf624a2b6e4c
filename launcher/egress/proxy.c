/*
 * proxy.c - the run's egress proxy.  cordon forks it after the run has
 * started, in the host's network namespace, with the listening socket
 * the child made on 127.0.0.1:CPOL_PROXY_PORT inside the run's own
 * namespace (netns.c): only the run can connect to it, and it is the
 * run's only way out.  One process per connection (at most
 * EGRESS_MAX_OPEN at once, EGRESS_MAX_CONNS in all): read a CONNECT
 * head (proxyreq.c), match host and port against the policy's rules,
 * resolve the name (a --resolve mapping, or dns.c), keep only public
 * addresses for a name found in DNS, connect, answer 200, relay bytes
 * both ways within the run's byte budget.  Everything refused is
 * recorded in the shared page that cordon reads into the status.
 * In learn mode (cordon --observe with --observe-hosts, or a base that
 * names hosts) every host and port is let through, and each one the
 * proxy connected to is recorded there for the trace.
 *
 * The proxy opens no file: the hosts file and resolv.conf were read
 * before it started.  It drops every capability, takes no_new_privs, a
 * parent-death signal and a Landlock domain of its own (no file at all,
 * TCP connect to the policy's ports only, scoped); it dies with the run.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cordon.h"
#include "proxy.h"
#include "wall.h"

static void refuse(struct egress_shared *sh, const char *dest,
    enum egress_why why)
{
	egress_refuse(sh, dest, why, NULL, NULL);
}

const int egress_built = 1;

static void answer(int fd, const char *status, const char *dest,
    enum egress_why why)
{
	char buf[EGRESS_ANSWER_MAX];
	size_t n = egress_answer(buf, sizeof(buf), status, dest, why, NULL,
	    NULL);

	if (write(fd, buf, n) < 0)
		return;    /* the client is gone: nothing more to say */
}

/* Refuse a head the parser refused: a name that is none is listed as
 * asked (host:port), anything else by a placeholder. */
static void head_refuse(int fd, enum proxyreq_error e,
    const struct proxyreq *rq, struct egress_shared *sh)
{
	char dest[EGRESS_DEST_MAX];

	const char *status = e == PROXYREQ_NOT_CONNECT ?
	    "405 Method Not Allowed" : "400 Bad Request";
	enum egress_why why = e == PROXYREQ_BAD_NAME ? EGRESS_BAD_NAME :
	    e == PROXYREQ_NOT_CONNECT ? EGRESS_NOT_CONNECT :
	    EGRESS_BAD_REQUEST;

	if (e == PROXYREQ_BAD_NAME)   /* a long name cut, for ":port" */
		snprintf(dest, sizeof(dest), "%.*s:%u", (int)sizeof(dest) - 7,
		    rq->host, (unsigned int)rq->port);
	else
		snprintf(dest, sizeof(dest), "%s", e == PROXYREQ_NOT_CONNECT ?
		    "(plain http)" : "(request)");
	answer(fd, status, dest, why);
	refuse(sh, dest, why);
}

/* Does the policy name a plain http:// host (requests sent in clear)? */
static int plain_hosts(const struct egress_conf *c)
{
	for (uint32_t i = 0; c->tls && i < c->pol->nhttp; i++)
		if (c->pol->http[i].flags & CPOL_HTTP_PLAIN)
			return 1;
	return 0;
}

/* Read the head; -1 on a refusal (answered and recorded), 1 for a plain
 * http request where the policy has plain http:// hosts. */
static int head_read(int fd, char *buf, size_t *len, struct proxyreq *rq,
    const struct egress_conf *c, struct egress_shared *sh)
{
	struct pollfd pf = { .fd = fd, .events = POLLIN };
	uint64_t end = egress_now_ms() + EGRESS_HEAD_MS, t;
	enum proxyreq_error e = PROXYREQ_MORE;
	ssize_t n;

	while (e == PROXYREQ_MORE) {
		t = egress_now_ms();
		if (t >= end || poll(&pf, 1, (int)(end - t)) != 1) {
			refuse(sh, "(no request)", EGRESS_TIMEOUT);
			return -1;
		}
		n = read(fd, buf + *len, PROXYREQ_HEAD_MAX - *len);
		if (n <= 0)
			return -1;   /* closed before asking: nothing refused */
		*len += (size_t)n;
		e = proxyreq_parse(buf, *len, rq);
	}
	if (e == PROXYREQ_OK)
		return 0;
	if (e == PROXYREQ_NOT_CONNECT && plain_hosts(c))
		return 1;
	head_refuse(fd, e, rq, sh);
	return -1;
}

/* Learn mode: rq reached (its connection made), counted once a host
 * and port.  Two connections at once may each take a slot for the same
 * one: cordonc learn's reader of the trace adds them up. */
static void seen(struct egress_shared *sh, const struct proxyreq *rq)
{
	uint32_t i, n = __atomic_load_n(&sh->nseen, __ATOMIC_ACQUIRE);

	for (i = 0; i < n && i < EGRESS_SEEN_MAX; i++)
		if (__atomic_load_n(&sh->seen[i].ready, __ATOMIC_ACQUIRE) &&
		    sh->seen[i].port == rq->port &&
		    strcmp(sh->seen[i].host, rq->host) == 0) {
			__atomic_fetch_add(&sh->seen[i].count, 1,
			    __ATOMIC_RELAXED);
			return;
		}
	i = __atomic_fetch_add(&sh->nseen, 1, __ATOMIC_RELAXED);
	if (i >= EGRESS_SEEN_MAX)
		return;
	snprintf(sh->seen[i].host, sizeof(sh->seen[i].host), "%s", rq->host);
	sh->seen[i].port = rq->port;
	sh->seen[i].count = 1;
	__atomic_store_n(&sh->seen[i].ready, 1, __ATOMIC_RELEASE);
}

/* The policy's rule for the request, if any: a name against names and
 * wildcards, an address literal against literals.  1: allowed; 0: no
 * rule; -1: a literal cpol_addr_special names, and its rule does not
 * say "private" (no blob the reader takes has one: the proxy checks
 * anyway). */
static int allowed(const struct cpol *p, const struct proxyreq *rq)
{
	char canon[INET6_ADDRSTRLEN];
	int af = rq->literal == 6 ? AF_INET6 : AF_INET;
	enum cpol_host_kind k;
	uint8_t a[16];
	uint32_t i;

	if (rq->literal && (inet_pton(af, rq->host, a) != 1 ||
	    !inet_ntop(af, a, canon, sizeof(canon))))
		return 0;
	for (i = 0; i < p->nhosts; i++) {
		if (p->hosts[i].port != rq->port)
			continue;
		k = cpol_host_kind(p->hosts[i].host);
		if (rq->literal && k == (rq->literal == 4 ? CPOL_HOST_IPV4 :
		    CPOL_HOST_IPV6) && strcmp(p->hosts[i].host, canon) == 0)
			return !cpol_addr_special(a, af == AF_INET ? 4 : 16) ||
			    (p->hosts[i].flags & CPOL_HOST_PRIVATE) ? 1 : -1;
		if (!rq->literal && (k == CPOL_HOST_NAME ||
		    k == CPOL_HOST_WILDCARD) &&
		    cpol_host_match(p->hosts[i].host, rq->host))
			return 1;
	}
	return 0;
}

/* Connect to one of the addresses within EGRESS_CONNECT_MS. */
static int dial(struct sockaddr_storage *a, int n, uint16_t port)
{
	struct pollfd pf = { .events = POLLOUT };
	int i, e = 0, one = 1;
	socklen_t el = sizeof(e);

	for (i = 0; i < n; i++) {
		socklen_t len = a[i].ss_family == AF_INET ?
		    sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);

		((struct sockaddr_in *)&a[i])->sin_port = htons(port);
		pf.fd = socket(a[i].ss_family, SOCK_STREAM | SOCK_CLOEXEC |
		    SOCK_NONBLOCK, 0);
		if (pf.fd < 0)
			continue;
		if ((connect(pf.fd, (struct sockaddr *)&a[i], len) == 0 ||
		    (errno == EINPROGRESS && poll(&pf, 1, EGRESS_CONNECT_MS) ==
		    1 && getsockopt(pf.fd, SOL_SOCKET, SO_ERROR, &e, &el) ==
		    0 && e == 0)) && fcntl(pf.fd, F_SETFL, 0) == 0) {
			setsockopt(pf.fd, IPPROTO_TCP, TCP_NODELAY, &one,
			    sizeof(one));
			return pf.fd;
		}
		close(pf.fd);
	}
	return -1;
}

/* Copy what is readable on from to to; 0 at EOF, -1 on a limit. */
static int pump(int from, int to, struct egress_shared *sh)
{
	char buf[65536];
	ssize_t n = read(from, buf, sizeof(buf));

	if (n <= 0)
		return n < 0 && errno == EINTR ? 1 : 0;
	if (__atomic_add_fetch(&sh->bytes, (uint64_t)n, __ATOMIC_RELAXED) >
	    EGRESS_MAX_BYTES)
		return -1;
	return write_all(to, buf, (size_t)n) < 0 ? 0 : 1;
}

static void relay(int a, int b, struct egress_shared *sh, const char *dest)
{
	struct pollfd pf[2] = { { .fd = a, .events = POLLIN },
	    { .fd = b, .events = POLLIN } };
	int i, r;

	for (;;) {
		if (poll(pf, 2, -1) < 0 && errno != EINTR)
			return;
		for (i = 0; i < 2; i++) {
			if (!pf[i].revents)
				continue;
			r = pump(pf[i].fd, pf[1 - i].fd, sh);
			if (r < 0)
				refuse(sh, dest, EGRESS_BYTE_LIMIT);
			if (r <= 0)
				return;
		}
	}
}

/* Resolve rq's host and connect to it: the upstream socket, or -1 once
 * the refusal is answered (502 when no address answered, 403 when there
 * was none to try or, for a tunnel, the address is a ruled host's) and
 * recorded.  In learn mode the host reached is recorded as seen.  Both
 * kinds of request, CONNECT and plain http. */
static int reach(int fd, const struct egress_conf *c,
    const struct proxyreq *rq, struct egress_shared *sh, const char *dest,
    int tunnel)
{
	struct sockaddr_storage addrs[EGRESS_ADDRS_MAX];
	enum egress_why why;
	int n, out;

	n = egress_addresses(c, rq, sh, addrs, &why);
	if (n > 0 && tunnel && egress_around_addr(c, rq, sh, addrs, n)) {
		answer(fd, "403 Forbidden", dest, EGRESS_AROUND_RULES);
		refuse(sh, dest, EGRESS_AROUND_RULES);
		return -1;
	}
	out = n > 0 ? dial(addrs, n, rq->port) : -1;
	if (out < 0) {
		why = n > 0 ? EGRESS_UNREACHABLE : why;
		answer(fd, n > 0 ? "502 Bad Gateway" : "403 Forbidden", dest,
		    why);
		refuse(sh, dest, why);
		return -1;
	}
	if (c->observe)
		seen(sh, rq);
	return out;
}

/* The HTTP host rq names, if the proxy ends its TLS: its index. */
static int http_host(const struct egress_conf *c, const struct proxyreq *rq,
    uint32_t *hi)
{
	const struct cpol *p = c->pol;

	for (uint32_t i = 0; c->tls && !rq->literal && i < p->nhttp; i++)
		if (p->http[i].port == rq->port && !(p->http[i].flags &
		    CPOL_HTTP_PLAIN) && strcmp(p->http[i].host, rq->host) == 0) {
			*hi = i;
			return 1;
		}
	return 0;
}

/* A host with a credential or http rules: its TLS ended here (closes
 * out).  0 when rq's host is tunnelled instead. */
static int terminated(int fd, int out, const struct egress_conf *c,
    const struct proxyreq *rq, size_t len, struct egress_shared *sh,
    const char *dest)
{
	static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
	uint32_t hi;
	int why;
	void *u;

	if (!http_host(c, rq, &hi))
		return 0;
	if (len > rq->head_len) {
		/* TLS sent before the 200: nothing ends it here */
		answer(fd, "400 Bad Request", dest, EGRESS_BAD_REQUEST);
		refuse(sh, dest, EGRESS_BAD_REQUEST);
	} else if ((why = proxyhttp_upstream(out, c, hi, &u)) != 0) {
		answer(fd, "502 Bad Gateway", dest, (enum egress_why)why);
		refuse(sh, dest, (enum egress_why)why);
	} else if (write(fd, ok, sizeof(ok) - 1) == (ssize_t)sizeof(ok) - 1) {
		proxyhttp_serve(fd, u, c, hi, sh, dest);
	}
	close(out);
	return 1;
}

/* A plain http:// request: to a plain HTTP host the policy names, its
 * rules checked (proxyhttp.c), or refused as any plain request is. */
static void plain(int fd, const char *buf, size_t len,
    const struct egress_conf *c, struct egress_shared *sh)
{
	struct proxyreq rq;
	char dest[EGRESS_DEST_MAX];
	uint32_t hi;
	int out;

	memset(&rq, 0, sizeof(rq));
	if (proxyhttp_plain_host(c, buf, len, &hi, rq.host, sizeof(rq.host),
	    &rq.port) < 0) {
		head_refuse(fd, PROXYREQ_NOT_CONNECT, &rq, sh);
		return;
	}
	/* A long name is cut to leave room for ":port". */
	snprintf(dest, sizeof(dest), "%.*s:%u", (int)sizeof(dest) - 7,
	    rq.host, (unsigned int)rq.port);
	if ((out = reach(fd, c, &rq, sh, dest, 0)) < 0)
		return;
	proxyhttp_plain(fd, out, c, hi, sh, dest, buf, len);
	close(out);
}

/* One connection, in its own process. */
static void serve(int fd, const struct egress_conf *c,
    struct egress_shared *sh)
{
	char buf[PROXYREQ_HEAD_MAX], dest[EGRESS_DEST_MAX];
	struct proxyreq rq;
	static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
	size_t len = 0;
	uint32_t hi;
	int n, out, one = 1;

	/* Small writes both ways go out at once (TLS handshakes). */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));

	if ((n = head_read(fd, buf, &len, &rq, c, sh)) != 0) {
		if (n > 0)
			plain(fd, buf, len, c, sh);
		return;
	}
	snprintf(dest, sizeof(dest), rq.literal == 6 ? "[%s]:%u" : "%s:%u",
	    rq.host, (unsigned int)rq.port);
	/* Learn mode lets every request through, and records what it
	 * reached once the connection is made. */
	if (!c->observe && (n = allowed(c->pol, &rq)) <= 0) {
		enum egress_why why = n < 0 ? EGRESS_PRIVATE_LITERAL :
		    EGRESS_NOT_ALLOWED;

		answer(fd, "403 Forbidden", dest, why);
		refuse(sh, dest, why);
		return;
	}
	if ((out = reach(fd, c, &rq, sh, dest, !http_host(c, &rq, &hi))) <
	    0)
		return;
	if (terminated(fd, out, c, &rq, len, sh, dest))
		return;
	/* A tunnel: where the policy has http rules, its first bytes may
	 * not name such a host (around.c). */
	if (write(fd, ok, sizeof(ok) - 1) == (ssize_t)sizeof(ok) - 1 &&
	    (egress_has_rules(c) ? egress_first_flight(fd, out, c, sh, dest,
	    buf + rq.head_len, len - rq.head_len) == 0 :
	    (len <= rq.head_len || write(out, buf + rq.head_len, len -
	    rq.head_len) == (ssize_t)(len - rq.head_len))))
		relay(fd, out, sh, dest);
	close(out);
}

/* One connection: in a process of its own, or, where the bound leaves
 * the proxy no process but itself, in the proxy (one at a time). */
static int connection(int lfd, int fd, int fork_it,
    const struct egress_conf *c, struct egress_shared *sh)
{
	pid_t pid;

	if (!fork_it) {
		serve(fd, c, sh);
		return 0;
	}
	pid = fork();
	if (pid == 0) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 ||
		    getppid() == 1)
			_exit(0);
		close(lfd);
		serve(fd, c, sh);
		_exit(0);
	}
	if (pid < 0) {
		answer(fd, "503 Service Unavailable", "(connection)",
		    EGRESS_CONN_LIMIT);
		refuse(sh, "(connection)", EGRESS_CONN_LIMIT);
		return 0;
	}
	return 1;                   /* a process more */
}

/* Reap the connection processes that ended; with open at most, wait for
 * one first.  Returns how many are left. */
static unsigned int reap(unsigned int open, unsigned int most)
{
	pid_t r;

	while (open > 0) {
		r = waitpid(-1, NULL, open >= most ? 0 : WNOHANG);
		if (r > 0)
			open--;
		else if (r < 0 && errno == EINTR)
			continue;
		else if (r < 0)
			return 0;           /* none left (ECHILD) */
		else
			break;
	}
	return open;
}

/* Accept until the run ends (cordon kills the proxy; the connection
 * processes die with it by their parent-death signal).  At most
 * c->procs - 1 connection processes at once: the next accept waits for
 * one to end. */
static void accept_loop(int lfd, const struct egress_conf *c,
    struct egress_shared *sh)
{
	unsigned int open = 0, most = c->procs > 1 ? c->procs - 1 : 0;
	int fd;

	for (;;) {
		open = reap(open, most);
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return;
		}
		if (++sh->conns > EGRESS_MAX_CONNS) {
			answer(fd, "429 Too Many Requests", "(connection)",
			    EGRESS_CONN_LIMIT);
			refuse(sh, "(connection)", EGRESS_CONN_LIMIT);
		} else {
			open += (unsigned int)connection(lfd, fd, most > 0, c,
			    sh);
		}
		close(fd);
	}
}

pid_t egress_start(int lfd, const struct egress_conf *c,
    struct egress_shared *sh, int null_fd)
{
	pid_t parent = getpid(), pid = fork();

	if (pid != 0)
		return pid;
	/* The proxy: only the listener, the shared page and /dev/null. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 ||
	    getppid() != parent || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0 ||
	    dup2(null_fd, 0) < 0 || dup2(null_fd, 1) < 0 ||
	    dup2(null_fd, 2) < 0 || dup2(lfd, 3) < 0 ||
	    syscall(SYS_close_range, 4, ~0U, 0) < 0)
		_exit(EXIT_CORDON);
	/* It parses what the run sends: no capability, no file, TCP out to
	 * the policy's ports only, should that parsing ever go wrong. */
	if (run_caps_drop() < 0 || landlock_confine(c->pol, c->observe) < 0)
		_exit(EXIT_CORDON);
	signal(SIGPIPE, SIG_IGN);
	accept_loop(3, c, sh);
	_exit(EXIT_CORDON);
}
