/*
 * reach.h - which hosts a policy's network lets a connection out to,
 * answered the way the run's network answers: network off reaches none;
 * plain tcp reaches every host at its connect ports (Landlock limits the
 * port, not the address); named hosts (cordon's proxy, CPOL_F_NET_HOSTS)
 * reach the names their rules match (common/host.c, cpol_host_match) at
 * the rule's port; no network flag at all reaches every host.  diff,
 * expect and audit ask it, so a host means one thing to all three.
 */
#ifndef CORDON_REACH_H
#define CORDON_REACH_H

#include <stddef.h>

#include "cpol.h"

enum reach {
	REACH_NONE = 0,   /* no name host stands for */
	REACH_SOME,       /* some names below a "*.name" host, not all */
	REACH_ALL,        /* host, or every name below a "*.name" host */
};

/* How much of host:port p reaches.  host is a name, an address, or
 * "*.name" (every name below name).  *rule (rule may be NULL) is the
 * host rule that decided (NULL when no host rule did: off, plain tcp,
 * unrestricted). */
enum reach reach_host(const struct cpol *p, const char *host,
    unsigned int port, const struct cpol_host **rule);

/* host:port as people and JSON read it: "api.example.org:443",
 * "*.example.net:443", "[2001:db8::1]:443".  Returns buf. */
char *reach_format(const char *host, unsigned int port, char *buf,
    size_t len);

#endif
