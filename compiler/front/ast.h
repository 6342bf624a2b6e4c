/*
 * ast.h - the syntax tree of a policy source, as the parser builds it.
 *
 * The parser only builds nodes; every range check, duplicate and unknown
 * name is found later by check.c.  Nodes own their strings; a location's
 * file name is owned by the parse context (parse.c) and outlives the tree.
 */
#ifndef CORDON_AST_H
#define CORDON_AST_H

#include <stddef.h>
#include <stdint.h>

/* Bison's location type: a span plus the (display) name of its file. */
struct ast_loc {
	const char *file;
	int first_line;
	int first_column;
	int last_line;
	int last_column;
};

enum ast_val_kind {
	AST_V_NUM = 1,   /* num (neg: the source had a minus sign) */
	AST_V_QTY,       /* num with a unit (str): 30s, 4G */
	AST_V_STR,       /* a quoted string or a bare path (str) */
	AST_V_IDENT,     /* a symbolic constant or name (str) */
	AST_V_VAR,       /* ${NAME} (str = NAME) */
	AST_V_ANY,       /* '*' in an expectation */
	AST_V_NAMED,     /* NAME=VALUE or NAME OP VALUE in an expectation
	                  * (str = NAME, port = VALUE, num = the ast_op):
	                  * refused by the check, which says the form */
	AST_V_REST,      /* "..." in an expectation: refused likewise */
};

/* A value.  alt chains the alternatives of A|B|C (bitwise or); next
 * chains the members of a list; port is the port of "host":port (a
 * network connect destination), whose host is str, or an AST_V_NAMED
 * pattern's value; priv says the
 * word "private" followed it. */
struct ast_val {
	enum ast_val_kind kind;
	struct ast_loc loc;
	uint64_t num;
	int neg;
	char *str;
	struct ast_val *alt;
	struct ast_val *port;
	struct ast_val *next;
	struct ast_loc unit_loc;  /* spaced: "10 sec", the unit's place */
	int spaced;
	int priv;             /* "host":port private */
	struct ast_loc priv_loc;
};

enum ast_op {
	AST_OP_EQ = 1, AST_OP_NE, AST_OP_LT, AST_OP_LE, AST_OP_GT, AST_OP_GE,
};

/* arg OP value, or arg & mask == value (mask set, op AST_OP_EQ). */
struct ast_cond {
	struct ast_loc loc;
	char *arg;
	struct ast_loc arg_loc;
	enum ast_op op;
	struct ast_val *mask;
	struct ast_val *value;
	struct ast_cond *next;
};

/* One list member: a syscall (with conditions or expectation argument
 * patterns), a @group, a right, an env name (with value for env set). */
struct ast_item {
	struct ast_loc loc;
	char *name;
	int is_group;
	int has_args;            /* an expectation pattern had parentheses */
	struct ast_cond *conds;
	struct ast_val *args;    /* expectation argument patterns */
	struct ast_val *value;   /* env set NAME = value */
	struct ast_item *next;
};

enum ast_act_kind {
	AST_A_ALLOW = 1, AST_A_ERRNO, AST_A_KILL, AST_A_TRAP, AST_A_LOG,
	AST_A_DENY,              /* expectations only: any refusal */
};

struct ast_action {
	enum ast_act_kind kind;
	struct ast_loc loc;
	struct ast_val *errno_val;
};

enum ast_kind {
	AST_INCLUDE = 1, AST_DEFINE, AST_POLICY, AST_DESCRIPTION, AST_LANDLOCK,
	AST_BEST_EFFORT, AST_DEFAULT, AST_GROUP, AST_RULE, AST_PATH,
	AST_PRIVATE, AST_NETWORK, AST_LIMIT, AST_TIMEOUT, AST_OUTPUT,
	AST_ENV_KEEP, AST_ENV_SET, AST_COMMAND, AST_EXPECT, AST_PRELOAD,
	AST_CREDENTIAL, AST_HTTP, AST_SESSION,
};

/* Statement flags. */
#define AST_F_OPTIONAL 0x01   /* path optional */
#define AST_F_NONE 0x02       /* path ... none */
#define AST_F_REQUIRED 0x04   /* private required, limit NAME required */
#define AST_F_NET_OFF 0x08    /* network off */
#define AST_F_NET_CONNECT 0x10
#define AST_F_NET_BIND 0x20
#define AST_F_ALSO 0x40       /* ACTION also ...: adds to included rules */
#define AST_F_PLAIN 0x80      /* http plain: the run speaks http:// */

enum ast_expect_kind {
	AST_E_SYSCALL = 1,      /* expect ACTION syscall[(args)] */
	AST_E_PATH,             /* expect read|no-write|... PATH (name) */
	AST_E_NETWORK,          /* expect network off|connect|bind ...,
	                         * or network no-connect|no-bind (name) ... */
};

/*
 * A statement.  Which fields are used depends on kind:
 *   INCLUDE val(str)  DEFINE name val  POLICY/DESCRIPTION val  LANDLOCK val
 *   DEFAULT action  GROUP name items  RULE action items  PATH val items flags
 *   PRIVATE val or flags  NETWORK flags val(ports)  LIMIT name val, or
 *   name flags(REQUIRED)
 *   TIMEOUT/OUTPUT val  ENV_KEEP items  ENV_SET items(value)
 *   COMMAND val(words)  EXPECT ekind action items | name val | flags val
 *   CREDENTIAL name(the value's name) aux(header) val(dests)
 *   HTTP val(dest) items(method, value: prefix) flags(PLAIN)
 * file is the include instance the statement was read from (parse.c).
 */
struct ast_stmt {
	enum ast_kind kind;
	struct ast_loc loc;
	unsigned int file;
	char *name;
	struct ast_loc name_loc;
	struct ast_val *val;
	struct ast_val *aux;      /* a second value: a credential's header */
	struct ast_action action;
	struct ast_item *items;
	int flags;
	enum ast_expect_kind ekind;
	struct ast_stmt *next;
};

struct ast_val *ast_val_new(enum ast_val_kind kind, const struct ast_loc *loc);
struct ast_cond *ast_cond_new(const struct ast_loc *loc);
struct ast_item *ast_item_new(const struct ast_loc *loc, char *name);
struct ast_stmt *ast_stmt_new(enum ast_kind kind, const struct ast_loc *loc);

/* Lists are built by prepending; reverse once complete. */
struct ast_val *ast_val_reverse(struct ast_val *v);
struct ast_item *ast_item_reverse(struct ast_item *it);
struct ast_cond *ast_cond_reverse(struct ast_cond *c);
struct ast_stmt *ast_stmt_reverse(struct ast_stmt *s);

void ast_val_free(struct ast_val *v);
void ast_cond_free(struct ast_cond *c);
void ast_item_free(struct ast_item *it);
void ast_stmt_free(struct ast_stmt *s);   /* the whole list */

/* Constructors return NULL when out of memory (the parser then stops
 * with YYNOMEM). */

#endif
