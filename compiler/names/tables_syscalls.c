/*
 * tables_syscalls.c - syscall names and numbers for the target
 * architecture (x86-64), and name suggestions for every kind of name.
 *
 * Names come from libseccomp, plus the syscalls this kernel (6.18) has
 * and Debian's libseccomp 2.5.4 does not know.  The numbers below were
 * checked against arch/x86/entry/syscalls/syscall_64.tbl of Linux 6.18
 * and probed on the running kernel (470 and up answer ENOSYS there).
 */
#include <ctype.h>
#include <errno.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>

#include "action.h"
#include "bpf.h"
#include "cpol.h"
#include "tables.h"

#if !defined(__x86_64__)
#error "cordon targets x86-64 only"
#endif

/* AUDIT_ARCH_X86_64 (EM_X86_64 | __AUDIT_ARCH_64BIT | __AUDIT_ARCH_LE). */
#define TABLES_ARCH 0xc000003eu

/* Highest number in the x86-64 table of Linux 6.18 (file_setattr). */
#define TABLES_SYSCALL_MAX 469

struct extra_syscall {
	const char *name;
	int nr;
};

/* Known to the kernel, unknown to libseccomp 2.5.4 (x86-64 numbers). */
static const struct extra_syscall extras[] = {
	{ "uretprobe", 335 },
	{ "statmount", 457 },
	{ "listmount", 458 },
	{ "lsm_get_self_attr", 459 },
	{ "lsm_set_self_attr", 460 },
	{ "lsm_list_modules", 461 },
	{ "mseal", 462 },
	{ "setxattrat", 463 },
	{ "getxattrat", 464 },
	{ "listxattrat", 465 },
	{ "removexattrat", 466 },
	{ "open_tree_attr", 467 },
	{ "file_getattr", 468 },
	{ "file_setattr", 469 },
};

/* Also known to some libseccomp releases; kept here so that the table
 * does not depend on the exact libseccomp build (checked at load). */
static const struct extra_syscall extras_checked[] = {
	{ "cachestat", 451 },
	{ "fchmodat2", 452 },
	{ "map_shadow_stack", 453 },
	{ "futex_wake", 454 },
	{ "futex_wait", 455 },
	{ "futex_requeue", 456 },
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* names[nr]: the name of each number 0..TABLES_SYSCALL_MAX, or NULL. */
static char *names[TABLES_SYSCALL_MAX + 1];
static int names_loaded;

static void set_name(int nr, const char *name)
{
	if (nr < 0 || nr > TABLES_SYSCALL_MAX || names[nr])
		return;
	names[nr] = strdup(name);
}

static void load_names(void)
{
	size_t i;
	int nr;

	if (names_loaded)
		return;
	names_loaded = 1;
	for (i = 0; i < NELEM(extras); i++)
		set_name(extras[i].nr, extras[i].name);
	for (i = 0; i < NELEM(extras_checked); i++)
		set_name(extras_checked[i].nr, extras_checked[i].name);
	for (nr = 0; nr <= TABLES_SYSCALL_MAX; nr++) {
		char *n;

		if (names[nr])
			continue;
		n = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, nr);
		names[nr] = n;
	}
}

uint32_t tables_arch(void)
{
	return TABLES_ARCH;
}

int tables_syscall_max(void)
{
	return TABLES_SYSCALL_MAX;
}

const char *tables_syscall_name(int nr)
{
	if (nr < 0 || nr > TABLES_SYSCALL_MAX)
		return NULL;
	load_names();
	return names[nr];
}

int tables_syscall_nr(const char *name)
{
	int nr;

	if (!name || !*name)
		return -1;
	load_names();
	for (nr = 0; nr <= TABLES_SYSCALL_MAX; nr++)
		if (names[nr] && strcmp(names[nr], name) == 0)
			return nr;
	return -1;
}

/* Case does not count: "af_unix" still finds AF_UNIX. */
static int same(char x, char y)
{
	return tolower((unsigned char)x) == tolower((unsigned char)y);
}

/* Edit distance; loose: case does not count and a swap of neighbours is
 * one edit (optimal string alignment: "sokcet" is 1 from socket), else
 * plain Levenshtein.  Strings longer than 63 never match. */
static unsigned int distance(const char *a, const char *b, int loose)
{
	unsigned int r0[64], r1[64], r2[64], *pp = r0, *p = r1, *c = r2, *t;
	unsigned int i, j, la, lb;

	la = (unsigned int)strlen(a);
	lb = (unsigned int)strlen(b);
	if (la > 63 || lb > 63)
		return 99;
	for (j = 0; j <= lb; j++)
		p[j] = j;
	for (i = 1; i <= la; i++) {
		c[0] = i;
		for (j = 1; j <= lb; j++) {
			unsigned int best = p[j - 1] + !(loose ?
			    same(a[i - 1], b[j - 1]) : a[i - 1] == b[j - 1]);

			if (p[j] + 1 < best)
				best = p[j] + 1;
			if (c[j - 1] + 1 < best)
				best = c[j - 1] + 1;
			if (loose && i > 1 && j > 1 &&
			    same(a[i - 1], b[j - 2]) &&
			    same(a[i - 2], b[j - 1]) && pp[j - 2] + 1 < best)
				best = pp[j - 2] + 1;
			c[j] = best;
		}
		t = pp;
		pp = p;
		p = c;
		c = t;
	}
	return p[lb];
}

/* The i-th known name of a kind, or NULL past the end.  Syscall numbers
 * have holes, so a NULL name there is skipped with "" instead. */
static const char *name_at(char kind, unsigned int i)
{
	switch (kind) {
	case 's':
		if (i > TABLES_SYSCALL_MAX)
			return NULL;
		{
			const char *n = tables_syscall_name((int)i);

			return n ? n : "";
		}
	case 'g':
		return tables_group_at(i);
	case 'c':
		return tables_constant_at(i);
	case 'e':
		if (i > 4095)
			return NULL;
		{
			const char *n = cpol_errno_name((int)i);

			return n ? n : "";
		}
	default:
		return NULL;
	}
}

const char *tables_suggest(char kind, const char *word)
{
	const char *best = NULL, *n;
	unsigned int bestd = 99, d, limit, i;
	size_t len;

	if (!word)
		return NULL;
	if (kind == 'g' && word[0] == '@')
		word++;
	len = strlen(word);
	/* Close means: one edit for short words, a third of the length for
	 * longer ones ("sokcet" -> socket, not "read" -> "rseq"). */
	limit = len < 6 ? 1 : (unsigned int)(len / 3);
	for (i = 0; (n = name_at(kind, i)) != NULL; i++) {
		if (!*n || strcmp(n, word) == 0)
			continue;
		d = distance(word, n, 1);
		if (d < bestd) {
			bestd = d;
			best = n;
		}
	}
	return bestd <= limit ? best : NULL;
}

const char *tables_suggest_among(const char *word, const char *const *cands)
{
	const char *best = NULL;
	unsigned int d, bestd = 3;

	for (; *cands; cands++) {
		d = distance(word, *cands, 0);
		if (d < bestd)
			bestd = d, best = *cands;
	}
	return best;
}

const char *const tables_fixed_enosys[] = {
	"clone3", "io_uring_setup", "io_uring_enter", "io_uring_register",
	NULL,
};
#define NFIXED (sizeof(tables_fixed_enosys) / sizeof(tables_fixed_enosys[0]) - 1)

enum tables_net_owner tables_net_owner(const char *name)
{
	static const struct {
		const char *name;
		enum tables_net_owner owner;
	} owned[] = {
		{ "socket", TABLES_NET_ALWAYS },
		{ "socketpair", TABLES_NET_ALWAYS },
		{ "sendto", TABLES_NET_TCP }, { "sendmsg", TABLES_NET_TCP },
		{ "sendmmsg", TABLES_NET_TCP },
		{ "connect", TABLES_NET_CONNECT },
		{ "bind", TABLES_NET_BIND }, { "listen", TABLES_NET_BIND },
		{ "accept", TABLES_NET_BIND }, { "accept4", TABLES_NET_BIND },
	};
	size_t i;

	for (i = 0; name && i < sizeof(owned) / sizeof(owned[0]); i++)
		if (strcmp(owned[i].name, name) == 0)
			return owned[i].owner;
	return TABLES_NET_NONE;
}

/* Is nr one of tables_fixed_enosys?  (Numbers resolved once: this is called
 * for every probe of the translation validation.) */
static int is_fixed(uint32_t nr)
{
	static int nrs[NFIXED];
	static int loaded;
	size_t i;

	if (!loaded) {
		for (i = 0; i < sizeof(nrs) / sizeof(nrs[0]); i++)
			nrs[i] = tables_syscall_nr(tables_fixed_enosys[i]);
		loaded = 1;
	}
	for (i = 0; i < sizeof(nrs) / sizeof(nrs[0]); i++)
		if (nrs[i] >= 0 && (uint32_t)nrs[i] == nr)
			return 1;
	return 0;
}

int tables_fixed_action(const struct cpol *p, uint32_t nr, uint32_t *action)
{
	uint32_t r;

	if (!is_fixed(nr))
		return 0;
	for (r = 0; r < p->nrules; r++)
		if (p->rules[r].nr == nr)
			return 0;
	*action = BPF_ACT_ERRNO | ENOSYS;
	return 1;
}

int tables_libseccomp_knows(const char *name)
{
	return seccomp_syscall_resolve_name(name) != __NR_SCMP_ERROR;
}
