/*
 * tables_rights.c - the Landlock filesystem rights by name: the sixteen
 * single rights (bit i is the i-th), then the language's shorthands
 * (HACKING.md).  The one list: check/ reads names with it, explain/ and
 * query/ write them back.
 */
#include <string.h>
#include <strings.h>

#include "landlock_compat.h"
#include "llrights.h"
#include "tables.h"

static const struct right {
	const char *name;
	uint64_t bits;
} rights[] = {
	{ "execute", CORDON_LL_FS_EXECUTE },
	{ "write-file", CORDON_LL_FS_WRITE_FILE },
	{ "read-file", CORDON_LL_FS_READ_FILE },
	{ "read-dir", CORDON_LL_FS_READ_DIR },
	{ "remove-dir", CORDON_LL_FS_REMOVE_DIR },
	{ "remove-file", CORDON_LL_FS_REMOVE_FILE },
	{ "make-char", CORDON_LL_FS_MAKE_CHAR },
	{ "make-dir", CORDON_LL_FS_MAKE_DIR },
	{ "make-reg", CORDON_LL_FS_MAKE_REG },
	{ "make-sock", CORDON_LL_FS_MAKE_SOCK },
	{ "make-fifo", CORDON_LL_FS_MAKE_FIFO },
	{ "make-block", CORDON_LL_FS_MAKE_BLOCK },
	{ "make-sym", CORDON_LL_FS_MAKE_SYM },
	{ "refer", CORDON_LL_FS_REFER },
	{ "truncate", CORDON_LL_FS_TRUNCATE },
	{ "ioctl-dev", CORDON_LL_FS_IOCTL_DEV },
	/* the pairs, in the order explain writes them */
	{ "read", CPOL_LL_READ },
	{ "write", CPOL_LL_WRITE },
	{ "create", CPOL_LL_CREATE },
	{ "remove", CPOL_LL_REMOVE },
	/* the whole shorthands */
	{ "ro", CPOL_LL_READ },
	{ "rx", CPOL_LL_READ | CORDON_LL_FS_EXECUTE },
	{ "rw", CPOL_LL_READ | CPOL_LL_WRITE | CPOL_LL_CREATE | CPOL_LL_REMOVE },
};
#define NRIGHTS (sizeof(rights) / sizeof(rights[0]))
#define FIRST_PAIR TABLES_NRIGHTS
#define FIRST_WHOLE (TABLES_NRIGHTS + 4)

_Static_assert(TABLES_NRIGHTS == 16 && CORDON_LL_FS_IOCTL_DEV == 1ull << 15,
    "a single right's bit is its index");

const char *tables_right_at(unsigned int i, uint64_t *bits)
{
	if (i >= NRIGHTS)
		return NULL;
	if (bits)
		*bits = rights[i].bits;
	return rights[i].name;
}

const char *tables_right_name(unsigned int bit)
{
	return bit < TABLES_NRIGHTS ? rights[bit].name : NULL;
}

int tables_right(const char *name, uint64_t *bits)
{
	size_t i;

	for (i = 0; i < NRIGHTS; i++)
		if (strcmp(rights[i].name, name) == 0) {
			*bits = rights[i].bits;
			return 0;
		}
	return -1;
}

const char *tables_rights_shorthand(uint64_t access)
{
	size_t i;

	for (i = FIRST_WHOLE; i < NRIGHTS; i++)
		if (access == rights[i].bits)
			return rights[i].name;
	return NULL;
}

const char *tables_rights_pair(unsigned int i, uint64_t *bits)
{
	if (i >= FIRST_WHOLE - FIRST_PAIR)
		return NULL;
	*bits = rights[FIRST_PAIR + i].bits;
	return rights[FIRST_PAIR + i].name;
}

/* What authors write for the shorthands (spellings of other tools). */
const char *tables_right_alias(const char *word)
{
	static const char *const alias[][2] = {
		{ "readonly", "ro" }, { "read-only", "ro" },
		{ "read_only", "ro" }, { "r", "ro" },
		{ "readwrite", "rw" }, { "read-write", "rw" },
		{ "read_write", "rw" }, { "writable", "rw" },
		{ "writeable", "rw" }, { "w", "rw" },
		{ "exec", "rx" }, { "executable", "rx" }, { "x", "rx" },
	};
	size_t i;

	for (i = 0; i < sizeof(alias) / sizeof(alias[0]); i++)
		if (strcasecmp(word, alias[i][0]) == 0)
			return alias[i][1];
	return NULL;
}
