/* fsgrant.c - the rights a policy's path rules give a path (fsgrant.h). */
#include <string.h>

#include "fsgrant.h"
#include "llrights.h"

int cpol_path_beneath(const char *dir, const char *path)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return path[0] == '/';
	return strncmp(dir, path, n) == 0 && (!path[n] || path[n] == '/');
}

uint64_t cpol_fs_granted(const struct cpol *b, const char *path)
{
	uint64_t have = 0;
	uint32_t i;

	for (i = 0; i < b->nfs; i++)
		if (cpol_path_beneath(b->fs[i].path, path))
			have |= b->fs[i].access;
	if (((b->flags & CPOL_F_PRIVATE_TMP) &&
	    cpol_path_beneath("/tmp", path) && strcmp(path, "/tmp")) ||
	    ((b->flags & CPOL_F_PRIVATE_SHM) &&
	    cpol_path_beneath("/dev/shm", path) && strcmp(path, "/dev/shm")))
		have |= CPOL_LL_TMP;
	return have;
}
