/*
 * notls.c - the proxy's TLS as the launcher sees it (egress.h), in a
 * program without OpenSSL: cordon and cordon-pool, which never start the
 * proxy, and cordon-egress, whose proxy has no TLS (notlsproxy.c holds
 * the proxy's half).  A run whose policy names an HTTP host (plan.c:
 * pl->tls) is never launched by these programs: main.c executes
 * cordon-tls for it before anything is made.
 */
#include "egress.h"

const int tls_built = 0;

/* No credential was ever read here: nothing to forget. */
void tls_forget(void)
{
}
