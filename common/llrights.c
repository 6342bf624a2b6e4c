/* llrights.c - the trace's right letters (llrights.h). */
#include <stddef.h>

#include "llrights.h"

/* Letter i stands for bit i of a record (CPOL_TR_*). */
static const struct {
	char letter;
	uint64_t right;
} trace[CPOL_TRACE_NRIGHTS] = {
	{ 'r', CORDON_LL_FS_READ_FILE }, { 'l', CORDON_LL_FS_READ_DIR },
	{ 'w', CORDON_LL_FS_WRITE_FILE }, { 'c', CORDON_LL_FS_MAKE_REG },
	{ 'd', CORDON_LL_FS_MAKE_DIR }, { 'x', CORDON_LL_FS_EXECUTE },
	{ 'u', CORDON_LL_FS_REMOVE_FILE }, { 'v', CORDON_LL_FS_REMOVE_DIR },
	{ 't', CORDON_LL_FS_TRUNCATE }, { 's', CORDON_LL_FS_MAKE_SYM },
};

void cpol_trace_letters(unsigned int bits, char *buf)
{
	size_t i;

	for (i = 0; i < CPOL_TRACE_NRIGHTS; i++)
		if (bits & (1u << i))
			*buf++ = trace[i].letter;
	*buf = '\0';
}

int cpol_trace_right(char c, uint64_t *right)
{
	size_t i;

	for (i = 0; i < CPOL_TRACE_NRIGHTS; i++)
		if (trace[i].letter == c) {
			*right = trace[i].right;
			return 0;
		}
	return -1;
}

uint64_t cpol_trace_access(unsigned int bits)
{
	uint64_t have = 0;
	size_t i;

	for (i = 0; i < CPOL_TRACE_NRIGHTS; i++)
		if (bits & (1u << i))
			have |= trace[i].right;
	return have;
}
