/*
 * noegress.c - the egress proxy in cordon, the program without it (the
 * proxy, its DNS client and its request parsers are in cordon-egress,
 * cordon-tls and cordon-observe): a run whose plan has the proxy (plan.c:
 * pl->egress) is never launched by this program, main.c executes the
 * program that holds it (companion.c) before anything is made.  So none
 * of these is reached with the proxy; each fails closed if it were.
 */
#include <errno.h>
#include <stdio.h>

#include "egress.h"

const int egress_built = 0;

int egress_conf_make(struct egress_conf **out, const struct cpol *p,
    const struct egress_map *map, int nmap, unsigned int procs,
    int observe, const struct egress_creds *cr, char *err, size_t errlen)
{
	(void)p, (void)map, (void)nmap, (void)procs, (void)observe, (void)cr;
	*out = NULL;
	snprintf(err, errlen, "this cordon has no egress proxy "
	    "(cordon-egress runs policies with named hosts)");
	return -1;
}

void egress_conf_free(struct egress_conf *c)
{
	(void)c;                /* never made here */
}

pid_t egress_start(int listener, const struct egress_conf *c,
    struct egress_shared *sh, int null_fd)
{
	(void)listener, (void)c, (void)sh, (void)null_fd;
	errno = ENOSYS;
	return -1;
}

/* No proxy ran, so no refusal was recorded to be named. */
const char *egress_why_name(unsigned int why)
{
	(void)why;
	return "?";
}
