/*
 * check.h - the semantic pass: names, groups, constants, definitions and
 * the merge rule (HACKING.md, "How statements combine"); lowers a parsed
 * policy to a struct cpol with every section but the BPF program.
 */
#ifndef CORDON_CHECK_H
#define CORDON_CHECK_H

#include <stdint.h>

#include "cpol.h"
#include "parse.h"

/* The blob's compiler field: major.minor of VERSION (Makefile). */
#define CHECK_COMPILER_VERSION "cordonc " CORDON_VERSION_MINOR
#define CHECK_DEFAULT_TIMEOUT_MS 30000u      /* 30 s: a long tool call */
#define CHECK_DEFAULT_OUTPUT_CAP (1u << 20)  /* 1 MiB of stdout+stderr */
#define CHECK_DEFAULT_LANDLOCK 6  /* abstract-socket and signal scopes */
#define CHECK_MAX_LANDLOCK 7      /* the newest ABI this compiler knows */
#define CHECK_MAX_LIST 1024       /* members of one list in a statement */
#define CHECK_MAX_GROUP_DEPTH 8   /* @group inside @group inside ... */
#define CHECK_MAX_DEFINE_DEPTH 8  /* ${A} defined as ${B} ... */

/*
 * check_policy: lower p into *out (zeroed first; no BPF: insns empty)
 * and, when expects is not NULL, resolve its expectations into *expects
 * (free with check_expect_free).  Errors and warnings go to d.  Returns
 * 0 if no error was reported, else -1 (*out freed, *expects empty).
 */
struct check_expect;
int check_policy(const struct policy *p, struct diag *d, struct cpol *out,
    struct check_expect **expects, unsigned int *nexpects);

/* An expectation (`expect ...;`), resolved, for `cordonc test`. */
enum check_expect_kind {
	CHECK_EXPECT_SYSCALL = 1,
	CHECK_EXPECT_PATH,
	CHECK_EXPECT_NETWORK,
};

#define CHECK_EXPECT_DENY 0xffffffffu  /* action: anything but allow */

struct check_expect {
	enum check_expect_kind kind;
	struct ast_loc loc;
	/* syscall: action is SECCOMP_RET_* (with errno data) or
	 * CHECK_EXPECT_DENY; nargs 0 when no parentheses were written. */
	uint32_t action;
	const char *syscall;
	int nr;
	unsigned int nargs;
	struct {
		int wild;            /* '*' */
		uint64_t value;      /* sign-extended to 64 bits */
	} args[6];
	/* path: right is read, write, exec, no-read, no-write, no-exec */
	const char *right;
	char *path;
	/* network: off, connect or bind; port 0 for off; host (owned) for
	 * connect "host":port, else NULL */
	const char *net;
	uint16_t port;
	char *host;
};

/*
 * check_expectations: every expectation of p alone (no other section), in reading order, resolved
 * (constants, definitions).  Errors go to d.  *out (free with
 * check_expect_free) may be non-empty even with errors.  Returns 0 if
 * none was reported, else -1.
 */
int check_expectations(const struct policy *p, struct diag *d,
    struct check_expect **out, unsigned int *n);
void check_expect_free(struct check_expect *e, unsigned int n);

#endif
