/*
 * conf.c - what the proxy needs, made in cordon before the run starts
 * (the proxy opens nothing): the policy, the --resolve names, its process
 * bound, learn mode, the name files read whole, the page the run's
 * connections share their DNS answers on, and the HTTP hosts' TLS with
 * the credentials (tls.c).  egress.c asks for it through egress.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "infile.h"
#include "proxy.h"

/* Read a small text file whole ("" when absent), or refuse it: never a
 * part of it (a name past the cut would silently not resolve). */
static int slurp(const char *path, char *buf, size_t len, char *err,
    size_t errlen)
{
	struct stat st;
	size_t got;
	int fd = infile_open(path, 0, &st), rc = 0;

	buf[0] = '\0';
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0 || (rc = infile_read(fd, &st, buf, len - 1, &got)) < 0) {
		snprintf(err, errlen, "reading %s for the egress proxy: %s "
		    "(%zu bytes at most)", path, infile_strerror(errno),
		    len - 1);
		rc = -1;
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

int egress_conf_make(struct egress_conf **out, const struct cpol *p,
    const struct egress_map *map, int nmap, unsigned int procs,
    int observe, const struct egress_creds *cr, char *err, size_t errlen)
{
	struct egress_conf *c = calloc(1, sizeof(*c));
	void *dns;

	*out = c;
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	c->pol = p;
	c->map = map;
	c->nmap = nmap;
	c->procs = procs;
	c->observe = observe;
	if (slurp("/etc/hosts", c->hosts, sizeof(c->hosts), err, errlen) < 0 ||
	    slurp("/etc/resolv.conf", c->resolv, sizeof(c->resolv), err,
	    errlen) < 0 || (p->nhttp > 0 && tls_prepare(&c->tls, p, cr->cred,
	    cr->n, cr->upstream_ca, cr->wfd, err, errlen) < 0))
		return -1;              /* egress_conf_free undoes it */
	dns = mmap(NULL, sizeof(*c->dns), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (dns == MAP_FAILED) {
		snprintf(err, errlen, "egress proxy set-up: %s",
		    strerror(errno));
		return -1;
	}
	c->dns = dns;
	return 0;
}

void egress_conf_free(struct egress_conf *c)
{
	if (!c)
		return;
	if (c->dns)
		munmap(c->dns, sizeof(*c->dns));
	tls_free(c->tls);
	free(c);
}
