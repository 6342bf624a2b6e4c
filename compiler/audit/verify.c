/* verify.c - a committed blob against its source (see verify.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diff.h"
#include "infile.h"
#include "jsonout.h"
#include "verify.h"

/* Read the whole file, no symlink, at most CPOL_MAX_SIZE (+1 to see it
 * is too big).  0, or -1 with errno. */
static int slurp(const char *path, uint8_t **buf, size_t *len)
{
	struct stat st;
	int fd = infile_open(path, O_NOFOLLOW, &st);
	size_t cap = CPOL_MAX_SIZE + 1, n = 0;
	uint8_t *b;
	ssize_t r;

	if (fd < 0)
		return -1;
	if (!(b = malloc(cap))) {
		close(fd);
		return -1;
	}
	while (n < cap && (r = read(fd, b + n, cap - n)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(b);
			close(fd);
			return -1;
		}
		n += (size_t)r;
	}
	close(fd);
	*buf = b;
	*len = n;
	return 0;
}

static void hex(char *out, const uint8_t *d)
{
	for (int i = 0; i < 32; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

/* What diff does not look at: provenance and the raw program. */
static int meta_diff(const struct cpol *blob, const struct cpol *src,
    struct diff_list *l)
{
	char a[65], b[65];

	if (strcmp(blob->compiler_version, src->compiler_version) != 0 &&
	    diff_add(l, DIFF_CHANGED, "meta", "compiler", NULL, "%s -> %s",
	    blob->compiler_version, src->compiler_version) < 0)
		return -1;
	hex(a, blob->source_digest);
	hex(b, src->source_digest);
	if (strcmp(a, b) != 0 && diff_add(l, DIFF_CHANGED, "meta",
	    "source digest", NULL, "%s -> %s", a, b) < 0)
		return -1;
	if ((blob->ninsns != src->ninsns || memcmp(blob->insns, src->insns,
	    blob->ninsns * sizeof(*blob->insns)) != 0) &&
	    diff_add(l, DIFF_CHANGED, "seccomp", "program", NULL,
	    "%u -> %u instructions", (unsigned int)blob->ninsns,
	    (unsigned int)src->ninsns) < 0)
		return -1;
	return 0;
}

static int report(const char *policy, const char *blob, const uint8_t *bb,
    size_t blen, const struct input *in, int json, FILE *out)
{
	struct diff_list l = { 0 };
	struct cpol old;
	char err[256];
	int r = 1;

	if (cpol_read(bb, blen, &old, err, sizeof(err)) < 0) {
		if (json) {
			fputs("{\"match\":false,\"error\":", out);
			json_str(out, err);
			fputs("}\n", out);
		} else {
			fprintf(out, "%s: not a valid blob: %s\n", blob, err);
		}
		return 1;
	}
	if (diff_run(&old, &in->pol, &l) < 0 || meta_diff(&old, &in->pol,
	    &l) < 0)
		r = 2;
	else if (json)
		diff_print_json(out, &l, blob, policy);
	else {
		fprintf(out, "%s does not match %s:\n", blob, policy);
		diff_print_text(out, &l, blob, policy);
	}
	diff_list_free(&l);
	cpol_free(&old);
	return r;
}

int verify_run(const char *policy, const char *blob,
    const struct compile_opts *o, int json, FILE *out)
{
	uint8_t *mine = NULL, *theirs = NULL;
	size_t mlen, tlen;
	struct input in;
	char err[256];
	int r;

	if (input_load(policy, o, &in) < 0)
		return 2;
	if (!in.is_source) {
		fprintf(o->errf, "cordonc verify: %s is a blob, not a source\n",
		    policy);
		input_free(&in);
		return 2;
	}
	if (cpol_write(&in.pol, &mine, &mlen, err, sizeof(err)) < 0) {
		fprintf(o->errf, "%s: %s\n", policy, err);
		input_free(&in);
		return 2;
	}
	if (slurp(blob, &theirs, &tlen) < 0) {
		fprintf(o->errf, "%s: %s\n", blob, infile_strerror(errno));
		r = 1;
	} else if (tlen == mlen && memcmp(mine, theirs, mlen) == 0) {
		if (json)
			fputs("{\"match\":true}\n", out);
		else
			fprintf(out, "%s matches %s\n", blob, policy);
		r = 0;
	} else {
		r = report(policy, blob, theirs, tlen, &in, json, out);
	}
	free(mine);
	free(theirs);
	input_free(&in);
	return r;
}
