/*
 * nolearn.c - learn mode and the Landlock watch in cordon, the program
 * without them (learn.c, learnjudge.c, pathcall.c and llwatch.c, which
 * read the run's paths, are in cordon-observe): a run with --observe or
 * --landlock-watch is never launched by this program, main.c executes
 * cordon-observe for it (companion.c) before anything is made.  So none
 * of these is reached; each fails closed if it were.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cordon.h"
#include "learnmode.h"

const int learn_built = 0;

int llwatch_watched(uint32_t nr)
{
	(void)nr;
	return 0;               /* no call is the watch's: each is a denial */
}

void llwatch_call(struct llwatch *w, struct audit *a,
    const struct bpf_input *in, pid_t pid)
{
	(void)w, (void)a, (void)in, (void)pid;
}

/* Called for every run (NULL: not learn mode); learn mode here would
 * be a run with fewer layers than asked. */
void learn_begin(const struct cpol *pol, const char *workdir)
{
	(void)workdir;
	if (!pol)
		return;
	fputs("cordon: this cordon has no learn mode (cordon-observe runs "
	    "--observe)\n", stderr);
	abort();
}

/* A call let through unseen would be a run with fewer layers than asked:
 * end cordon, and the run with it (its parent-death signal). */
void learn_take(int listener, const struct sup *sp)
{
	(void)listener, (void)sp;
	fputs("cordon: this cordon has no learn mode (cordon-observe runs "
	    "--observe)\n", stderr);
	abort();
}

int learn_write(const char *file, const struct report *r, char *err)
{
	(void)file, (void)r;
	snprintf(err, ERRLEN, "this cordon has no learn mode "
	    "(cordon-observe runs --observe)");
	return -1;
}
