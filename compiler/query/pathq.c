/* pathq.c - Landlock rule coverage (see pathq.h). */
#include <stdio.h>
#include <string.h>

#include "landlock_compat.h"
#include "llrights.h"
#include "pathq.h"
#include "secret.h"
#include "tables.h"

/* Landlock's filesystem rights are bits 0..NRIGHTS-1; their names are
 * names/'s (one table for the whole compiler). */
#define NRIGHTS TABLES_NRIGHTS

struct shorthand {
	const char *name;
	uint64_t need;
	uint64_t deny;
};

static const struct shorthand shorthands[] = {
	{ "read", CORDON_LL_FS_READ_FILE, CPOL_LL_READ },
	{ "write", CORDON_LL_FS_WRITE_FILE, CPOL_LL_MODIFY },
	{ "exec", CORDON_LL_FS_EXECUTE, CORDON_LL_FS_EXECUTE },
	{ "ro", CPOL_LL_READ, CPOL_LL_READ },
	{ "rx", CPOL_LL_READ | CORDON_LL_FS_EXECUTE,
	  CPOL_LL_READ | CORDON_LL_FS_EXECUTE },
	{ "rw", CPOL_LL_READ | CPOL_LL_WRITE | CPOL_LL_CREATE | CPOL_LL_REMOVE,
	  CPOL_LL_READ | CPOL_LL_MODIFY },
	{ "create", CPOL_LL_CREATE, CPOL_LL_CREATE },
	{ "remove", CPOL_LL_REMOVE, CPOL_LL_REMOVE },
};

int pathq_covers(const char *rule, const char *path)
{
	size_t n = strlen(rule);

	if (n == 1 && rule[0] == '/')
		return path[0] == '/';
	while (n > 1 && rule[n - 1] == '/')
		n--;
	if (strncmp(rule, path, n) != 0)
		return 0;
	return path[n] == '\0' || path[n] == '/';
}

uint64_t pathq_rights(const struct cpol *p, const char *path)
{
	uint64_t r = 0;

	for (uint32_t i = 0; i < p->nfs; i++)
		if (pathq_covers(p->fs[i].path, path))
			r |= p->fs[i].access;
	return r;
}

int pathq_right(const char *name, uint64_t *need, uint64_t *deny)
{
	for (size_t i = 0; i < sizeof(shorthands) / sizeof(shorthands[0]); i++)
		if (strcmp(name, shorthands[i].name) == 0) {
			*need = shorthands[i].need;
			*deny = shorthands[i].deny;
			return 0;
		}
	for (size_t i = 0; i < NRIGHTS; i++)
		if (strcmp(name, tables_right_name((unsigned int)i)) == 0) {
			*need = *deny = 1ull << i;
			return 0;
		}
	return -1;
}

void pathq_format(uint64_t mask, char *buf, size_t len)
{
	size_t used = 0;

	if (len == 0)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < NRIGHTS; i++) {
		int n;

		if (!(mask & (1ull << i)))
			continue;
		n = snprintf(buf + used, len - used, "%s%s", used ? "," : "",
		    tables_right_name((unsigned int)i));
		if (n < 0 || (size_t)n >= len - used)
			return;
		used += (size_t)n;
	}
	if (mask >> NRIGHTS)
		snprintf(buf + used, len - used, "%s0x%llx", used ? "," : "",
		    (unsigned long long)mask >> NRIGHTS << NRIGHTS);
	else if (used == 0)
		snprintf(buf, len, "none");
}

int pathq_in_workdir(const char *path)
{
	return pathq_covers("$WORKDIR", path);
}

const char *pathq_hidden(const struct cpol *p, const char *path)
{
	if ((p->flags & CPOL_F_PRIVATE_TMP) && pathq_covers("/tmp", path))
		return "/tmp";
	if ((p->flags & CPOL_F_PRIVATE_SHM) && pathq_covers("/dev/shm", path))
		return "/dev/shm";
	return NULL;
}

static const char *const harmless_writes[] = {
	"/dev/null", "/dev/zero", "/dev/full", "$SNIPPET",
};

int pathq_write_ok(const struct cpol *p, const char *path)
{
	int ns = !(p->flags & CPOL_F_BEST_EFFORT_NS);

	if (pathq_in_workdir(path))
		return 1;
	for (size_t i = 0; i < sizeof(harmless_writes) /
	    sizeof(harmless_writes[0]); i++)
		if (strcmp(path, harmless_writes[i]) == 0)
			return 1;
	if (ns && (p->flags & CPOL_F_PRIVATE_TMP) &&
	    pathq_covers("/tmp", path))
		return 1;
	if (ns && (p->flags & CPOL_F_PRIVATE_SHM) &&
	    pathq_covers("/dev/shm", path))
		return 1;
	return 0;
}

/* Sensitive as a whole: a rule on one of these or an ancestor of one;
 * the credential stores are common/secret.c's, which cordon's advice
 * uses too. */
static const char *const sensitive[] = {
	"/", "/home", "/root", "/etc", "/proc", "/run", "/var/run",
	"/var/run/docker.sock", "/run/docker.sock", "/var/lib/docker",
	"/boot", "/sys/firmware",
};

const char *pathq_sensitive(const char *path)
{
	const char *s;

	for (size_t i = 0; i < sizeof(sensitive) / sizeof(sensitive[0]); i++)
		if (pathq_covers(path, sensitive[i]))
			return sensitive[i];
	s = secret_below(path);
	return s ? s : secret_path(path);
}

