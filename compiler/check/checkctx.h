/*
 * checkctx.h - state shared by the parts of the semantic pass (check.c,
 * value.c, rules.c, rulesentry.c, checkfs.c, checkexp.c).  Not a public
 * interface.
 */
#ifndef CORDON_CHECKCTX_H
#define CORDON_CHECKCTX_H

#include <stdint.h>

#include "check.h"
#include "units.h"

/* One mention of a key (a path, a limit, ...): the merge rule keeps the
 * mentions of the last file that has any. */
struct mention {
	char *key;
	const struct ast_stmt *s;
	const struct ast_item *it;   /* the list member, if any */
	const struct ast_val *v;
	unsigned int seq;            /* reading order */
};

struct mentions {
	struct mention *m;
	unsigned int n;
	unsigned int cap;
};

struct check_ctx {
	const struct policy *p;
	struct diag *d;
	struct mentions defs;        /* define statements, after merging */
	struct ast_val *cmdline;     /* -D values, as values */
	uint32_t default_action;
	int net_tcp;                 /* network connect/bind in effect */
	const struct ast_stmt *net_stmt;
	const struct ast_stmt *cmd_stmt;     /* the command statement kept */
	int partial;                 /* errors before the check (a syntax
	                              * error dropped statements): only
	                              * what each statement says is checked */
};

/* value.c */
/* enum cpol_unit's: a size or time takes the units of common/units.h,
 * a count none. */
enum value_unit { VALUE_SIZE = CPOL_UNIT_SIZE, VALUE_TIME = CPOL_UNIT_TIME,
	VALUE_COUNT = CPOL_UNIT_COUNT };
int value_init(struct check_ctx *c);
void value_fini(struct check_ctx *c);
/* An integer (constants, ${NAME}, A|B): magnitude and sign. */
int value_num(struct check_ctx *c, const struct ast_val *v, uint64_t *mag,
    int *neg);
/* A quantity: bytes, milliseconds or a count; "unlimited" gives
 * CPOL_RLIM_INFINITY if allow_inf. */
int value_qty(struct check_ctx *c, const struct ast_val *v,
    enum value_unit unit, int allow_inf, uint64_t *out);
/* A string with ${NAME} substituted; heap copy in *out. */
int value_str(struct check_ctx *c, const struct ast_val *v, char **out);
/* errno(...) argument: 0..4095. */
int value_errno(struct check_ctx *c, const struct ast_val *v, uint32_t *out);
/* Action of a rule or default (SECCOMP_RET_*). */
int value_action(struct check_ctx *c, const struct ast_action *a,
    uint32_t *out);


/* check.c: merge helpers */
int mentions_add(struct mentions *ms, const char *key,
    const struct ast_stmt *s, const struct ast_item *it,
    const struct ast_val *v);
/* Apply the merge rule: keep only the mentions of each key's last file;
 * several mentions of one key in that file are an error unless multi. */
void mentions_merge(struct check_ctx *c, struct mentions *ms, int multi,
    const char *what);
void mentions_free(struct mentions *ms);
void *check_mem(struct check_ctx *c, void *p);

/* checkfs.c: path, private and network statements */
void check_paths(struct check_ctx *c, struct cpol *out);
void check_network(struct check_ctx *c, struct cpol *out);
/* A network statement's form mistakes (nothing listed, "host:port" in
 * one string), said with the form to write; -1 when s has one.  Shared
 * by the statement and its expect. */
int check_network_form(struct check_ctx *c, const struct ast_stmt *s);
/* A host as a "host":port rule (and an expectation) may name it:
 * 0, or -1 with the error reported at loc. */
int check_host(struct check_ctx *c, const struct ast_loc *loc,
    const char *h);
/* The command and its interpreter as found on this host: executable
 * under the policy's own Landlock rules, else an error. */
void check_exec(struct check_ctx *c, const struct cpol *out,
    const struct ast_loc *loc);

/* checkhttp.c: credential and http statements (after check_network) */
void check_http(struct check_ctx *c, struct cpol *out);

/* checkexp.c */
void check_expect_all(struct check_ctx *c, struct check_expect **out,
    unsigned int *n);

/* rules.c */
void rules_lower(struct check_ctx *c, struct cpol *out);

#endif
