/*
 * parser.y - grammar of the policy language (see cordon.policy(5)).
 * Actions only build syntax tree nodes; every range check, duplicate and
 * unknown name is left to compiler/check.c.  A syntax error skips to the
 * next ';' and parsing goes on, so one run reports every error.
 */
%require "3.8"
%define api.pure full
%define api.prefix {pol}
%define api.location.type {struct ast_loc}
%define parse.error custom
%locations
%expect 0
%param {yyscan_t scanner}
%parse-param {struct lex_state *ls}

%code requires {
#include "ast.h"
typedef void *yyscan_t;
struct lex_state;
}

%code {
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "parse.h"

int pollex(POLSTYPE *lval, POLLTYPE *lloc, yyscan_t scanner);
struct lex_state *polget_extra(yyscan_t scanner);
static void polerror(POLLTYPE *loc, yyscan_t scanner, struct lex_state *ls,
    const char *msg);
/* The parser reads its tokens through tracked(), which remembers the
 * last two for "missing ';' after ...". */
static int tracked(POLSTYPE *lval, POLLTYPE *lloc, yyscan_t scanner);
#undef yylex
#define yylex tracked

/* Spans keep the file of their first symbol. */
#define YYLLOC_DEFAULT(Cur, Rhs, N) do {				\
	if (N) {							\
		(Cur).file = YYRHSLOC(Rhs, 1).file;			\
		(Cur).first_line = YYRHSLOC(Rhs, 1).first_line;		\
		(Cur).first_column = YYRHSLOC(Rhs, 1).first_column;	\
		(Cur).last_line = YYRHSLOC(Rhs, N).last_line;		\
		(Cur).last_column = YYRHSLOC(Rhs, N).last_column;	\
	} else {							\
		(Cur).file = YYRHSLOC(Rhs, 0).file;			\
		(Cur).first_line = (Cur).last_line =			\
		    YYRHSLOC(Rhs, 0).last_line;				\
		(Cur).first_column = (Cur).last_column =		\
		    YYRHSLOC(Rhs, 0).last_column;			\
	}								\
} while (0)

static void add(struct lex_state *ls, struct ast_stmt *s);
static struct ast_val *val_str(const POLLTYPE *loc, enum ast_val_kind kind,
    char *s);
static struct ast_stmt *st_val(enum ast_kind kind, const POLLTYPE *loc,
    struct ast_val *v);
static struct ast_stmt *st_items(enum ast_kind kind, const POLLTYPE *loc,
    struct ast_item *items);
static void spaced_unit(struct ast_val *v, char *unit, const POLLTYPE *loc);
}

%union {
	char *str;
	struct ast_val *val;
	struct ast_cond *cond;
	struct ast_item *item;
	struct ast_stmt *stmt;
	struct ast_action act;
	int op;
}

%token INCLUDE "include" DEFINE "define" POLICY "policy"
%token DESCRIPTION "description" LANDLOCK "landlock"
%token BEST_EFFORT "best-effort" DEFAULT "default" GROUP_KW "group"
%token ALSO "also"
%token ALLOW "allow" ERRNO "errno" KILL "kill" TRAP "trap" LOG "log"
%token DENY "deny" PATH_KW "path" OPTIONAL "optional" NONE "none"
%token PRIVATE "private" REQUIRED "required" NETWORK "network" OFF "off"
%token CONNECT "connect" BIND "bind" LIMIT "limit" TIMEOUT "timeout"
%token SESSION "session"
%token OUTPUT "output" ENV "env" KEEP "keep" SET "set"
%token COMMAND "command" EXPECT "expect" PRELOAD "preload"
%token CREDENTIAL "credential" HEADER "header" FOR "for" HTTP "http"
%token PLAIN "plain"
%token EQ "==" NE "!=" LE "<=" GE ">=" LT "<" GT ">"
%token ELLIPSIS "..."
%token <str> IDENT "identifier" GROUP "@group" VAR "${name}"
%token <str> STRING "string" PATH "path name" DOTTED "dotted name"
%token <val> NUMBER "number" QUANTITY "number with a unit"

%type <str> sysname module argname
%type <val> scalar scalars dest dests pathval fspath word words atom valexpr pattern patterns
%type <cond> cond conds
%type <item> item items exitem exitems names assigns rights modules
%type <item> hrule hrules
%type <act> action
%type <stmt> stmt network expectation
%type <op> cmpop

%destructor { free($$); } <str>
%destructor { ast_val_free($$); } <val>
%destructor { ast_cond_free($$); } <cond>
%destructor { ast_item_free($$); } <item>
%destructor { ast_stmt_free($$); } <stmt>
%destructor { ast_val_free($$.errno_val); } <act>

%%

file:	  %empty
	| file stmt		{ add(ls, $2); }
	| file error ';'	{ yyerrok; }
	;

stmt:	  "include" pathval ';'
		{ if (!($$ = st_val(AST_INCLUDE, &@$, $2))) YYNOMEM; }
	| "define" IDENT '=' scalar ';'
		{ if (!($$ = st_val(AST_DEFINE, &@$, $4))) { free($2); YYNOMEM; }
		  $$->name = $2; $$->name_loc = @2; }
	| "policy" scalar ';'
		{ if (!($$ = st_val(AST_POLICY, &@$, $2))) YYNOMEM; }
	| "description" scalar ';'
		{ if (!($$ = st_val(AST_DESCRIPTION, &@$, $2))) YYNOMEM; }
	| "landlock" scalar ';'
		{ if (!($$ = st_val(AST_LANDLOCK, &@$, $2))) YYNOMEM; }
	| "best-effort" "landlock" ';'
		{ if (!($$ = st_val(AST_BEST_EFFORT, &@$, NULL))) YYNOMEM; }
	| "default" action ';'
		{ if (!($$ = st_val(AST_DEFAULT, &@$, NULL))) {
		      ast_val_free($2.errno_val); YYNOMEM; }
		  $$->action = $2; }
	| "group" GROUP '{' items '}' ';'
		{ if (!($$ = st_items(AST_GROUP, &@$, $4))) { free($2); YYNOMEM; }
		  $$->name = $2; $$->name_loc = @2; }
	| action items ';'
		{ if (!($$ = st_items(AST_RULE, &@$, $2))) {
		      ast_val_free($1.errno_val); YYNOMEM; }
		  $$->action = $1; }
	| action "also" items ';'
		{ if (!($$ = st_items(AST_RULE, &@$, $3))) {
		      ast_val_free($1.errno_val); YYNOMEM; }
		  $$->action = $1; $$->flags = AST_F_ALSO; }
	| "path" fspath rights ';'
		{ if (!($$ = st_items(AST_PATH, &@$, $3))) {
		      ast_val_free($2); YYNOMEM; }
		  $$->val = $2; $$->flags = $3 ? 0 : AST_F_NONE; }
	| "path" "optional" fspath rights ';'
		{ if (!($$ = st_items(AST_PATH, &@$, $4))) {
		      ast_val_free($3); YYNOMEM; }
		  $$->val = $3;
		  $$->flags = AST_F_OPTIONAL | ($4 ? 0 : AST_F_NONE); }
	| "private" pathval ';'
		{ if (!($$ = st_val(AST_PRIVATE, &@$, $2))) YYNOMEM; }
	| "private" "required" ';'
		{ if (!($$ = st_val(AST_PRIVATE, &@$, NULL))) YYNOMEM;
		  $$->flags = AST_F_REQUIRED; }
	| network ';'		{ $$ = $1; $$->loc = @$; }
	| "limit" IDENT scalar ';'
		{ if (!($$ = st_val(AST_LIMIT, &@$, $3))) { free($2); YYNOMEM; }
		  $$->name = $2; $$->name_loc = @2; }
	| "limit" IDENT scalar IDENT ';'
		{ spaced_unit($3, $4, &@4);
		  if (!($$ = st_val(AST_LIMIT, &@$, $3))) { free($2); YYNOMEM; }
		  $$->name = $2; $$->name_loc = @2; }
	| "limit" IDENT "required" ';'
		{ if (!($$ = st_val(AST_LIMIT, &@$, NULL))) { free($2); YYNOMEM; }
		  $$->name = $2; $$->name_loc = @2; $$->flags = AST_F_REQUIRED; }
	| "timeout" scalar ';'
		{ if (!($$ = st_val(AST_TIMEOUT, &@$, $2))) YYNOMEM; }
	| "timeout" scalar IDENT ';'
		{ spaced_unit($2, $3, &@3);
		  if (!($$ = st_val(AST_TIMEOUT, &@$, $2))) YYNOMEM; }
	| "session" scalar ';'
		{ if (!($$ = st_val(AST_SESSION, &@$, $2))) YYNOMEM; }
	| "session" scalar IDENT ';'
		{ spaced_unit($2, $3, &@3);
		  if (!($$ = st_val(AST_SESSION, &@$, $2))) YYNOMEM; }
	| "output" scalar ';'
		{ if (!($$ = st_val(AST_OUTPUT, &@$, $2))) YYNOMEM; }
	| "output" scalar IDENT ';'
		{ if (!($$ = st_val(AST_OUTPUT, &@$, $2))) { free($3); YYNOMEM; }
		  $$->name = $3; $$->name_loc = @3; }
	| "env" "keep" names ';'
		{ if (!($$ = st_items(AST_ENV_KEEP, &@$, $3))) YYNOMEM; }
	| "env" "set" assigns ';'
		{ if (!($$ = st_items(AST_ENV_SET, &@$, $3))) YYNOMEM; }
	| "command" words ';'
		{ if (!($$ = st_val(AST_COMMAND, &@$, ast_val_reverse($2))))
		      YYNOMEM; }
	| "expect" expectation ';'	{ $$ = $2; $$->loc = @$; }
	| "preload" modules ';'
		{ if (!($$ = st_items(AST_PRELOAD, &@$, $2))) YYNOMEM; }
	| "credential" STRING "header" STRING "for" dests ';'
		{ struct ast_val *h = val_str(&@4, AST_V_STR, $4);
		  if (!h) { free($2); ast_val_free($6); YYNOMEM; }
		  if (!($$ = st_val(AST_CREDENTIAL, &@$,
		      ast_val_reverse($6)))) {
		      ast_val_free(h); free($2); YYNOMEM; }
		  $$->name = $2; $$->name_loc = @2; $$->aux = h; }
	| "http" dest hrules ';'
		{ if (!($$ = st_items(AST_HTTP, &@$, $3))) {
		      ast_val_free($2); YYNOMEM; }
		  $$->val = $2; }
	| "http" "plain" dest hrules ';'
		{ if (!($$ = st_items(AST_HTTP, &@$, $4))) {
		      ast_val_free($3); YYNOMEM; }
		  $$->val = $3; $$->flags = AST_F_PLAIN; }
	;

/* http: METHOD "prefix", ... (the check reads the method's spelling). */
hrules:	  hrule
	| hrules ',' hrule	{ $$ = $3; $$->next = $1; }
	;

hrule:	  IDENT STRING
		{ if (!($$ = ast_item_new(&@1, $1))) {
		      free($1); free($2); YYNOMEM; }
		  if (!($$->value = val_str(&@2, AST_V_STR, $2))) {
		      ast_item_free($$); YYNOMEM; } }
	;

network:  "network" "off"
		{ if (!($$ = st_val(AST_NETWORK, &@$, NULL))) YYNOMEM;
		  $$->flags = AST_F_NET_OFF; }
	| "network" "connect" dests
		{ if (!($$ = st_val(AST_NETWORK, &@$, ast_val_reverse($3))))
		      YYNOMEM;
		  $$->flags = AST_F_NET_CONNECT; }
	| "network" "bind" scalars
		{ if (!($$ = st_val(AST_NETWORK, &@$, ast_val_reverse($3))))
		      YYNOMEM;
		  $$->flags = AST_F_NET_BIND; }
	/* Nothing listed: the check says what to write. */
	| "network" "connect"
		{ if (!($$ = st_val(AST_NETWORK, &@$, NULL))) YYNOMEM;
		  $$->flags = AST_F_NET_CONNECT; }
	| "network" "bind"
		{ if (!($$ = st_val(AST_NETWORK, &@$, NULL))) YYNOMEM;
		  $$->flags = AST_F_NET_BIND; }
	;

expectation:
	  action exitems
		{ if (!($$ = st_items(AST_EXPECT, &@$, $2))) {
		      ast_val_free($1.errno_val); YYNOMEM; }
		  $$->action = $1; $$->ekind = AST_E_SYSCALL; }
	| "deny" exitems
		{ if (!($$ = st_items(AST_EXPECT, &@$, $2))) YYNOMEM;
		  $$->action.kind = AST_A_DENY; $$->action.loc = @1;
		  $$->ekind = AST_E_SYSCALL; }
	/* "deny write PATH": meant as no-write PATH; the check says so. */
	| "deny" IDENT pathval
		{ if (!($$ = st_val(AST_EXPECT, &@$, $3))) { free($2); YYNOMEM; }
		  $$->name = $2; $$->name_loc = @2; $$->ekind = AST_E_PATH;
		  $$->action.kind = AST_A_DENY; $$->action.loc = @1; }
	| IDENT pathval
		{ if (!($$ = st_val(AST_EXPECT, &@$, $2))) { free($1); YYNOMEM; }
		  $$->name = $1; $$->name_loc = @1; $$->ekind = AST_E_PATH; }
	| network
		{ $$ = $1; $$->kind = AST_EXPECT; $$->ekind = AST_E_NETWORK; }
	| "network" IDENT dests
		{ if (!($$ = st_val(AST_EXPECT, &@$, ast_val_reverse($3)))) {
		      free($2); YYNOMEM; }
		  $$->name = $2; $$->name_loc = @2; $$->ekind = AST_E_NETWORK; }
	;

action:	  "allow"		{ $$ = (struct ast_action){ AST_A_ALLOW, @$, NULL }; }
	| "errno" '(' atom ')'	{ $$ = (struct ast_action){ AST_A_ERRNO, @$, $3 }; }
	| "kill"		{ $$ = (struct ast_action){ AST_A_KILL, @$, NULL }; }
	| "trap"		{ $$ = (struct ast_action){ AST_A_TRAP, @$, NULL }; }
	| "log"			{ $$ = (struct ast_action){ AST_A_LOG, @$, NULL }; }
	;

/* Syscall names that are also keywords. */
sysname:  IDENT
	| "kill"		{ if (!($$ = strdup("kill"))) YYNOMEM; }
	| "connect"		{ if (!($$ = strdup("connect"))) YYNOMEM; }
	| "bind"		{ if (!($$ = strdup("bind"))) YYNOMEM; }
	;

items:	  item
	| items ',' item	{ $$ = $3; $$->next = $1; }
	;

item:	  sysname
		{ if (!($$ = ast_item_new(&@$, $1))) { free($1); YYNOMEM; } }
	| sysname '(' conds ')'
		{ if (!($$ = ast_item_new(&@1, $1))) {
		      free($1); ast_cond_free($3); YYNOMEM; }
		  $$->conds = ast_cond_reverse($3); }
	| GROUP
		{ if (!($$ = ast_item_new(&@$, $1))) { free($1); YYNOMEM; }
		  $$->is_group = 1; }
	;

conds:	  cond
	| conds ',' cond	{ $$ = $3; $$->next = $1; }
	;

/* An argument's name: the table's (compiler/names/tables_args.c), two of
 * which are also keywords (rt_sigprocmask's set, futex's timeout...). */
argname:  IDENT
	| "set"		{ if (!($$ = strdup("set"))) YYNOMEM; }
	| "timeout"	{ if (!($$ = strdup("timeout"))) YYNOMEM; }
	;

cond:	  argname cmpop valexpr
		{ if (!($$ = ast_cond_new(&@$))) {
		      free($1); ast_val_free($3); YYNOMEM; }
		  $$->arg = $1; $$->arg_loc = @1; $$->op = $2; $$->value = $3; }
	| argname '&' valexpr "==" valexpr
		{ if (!($$ = ast_cond_new(&@$))) {
		      free($1); ast_val_free($3); ast_val_free($5); YYNOMEM; }
		  $$->arg = $1; $$->arg_loc = @1; $$->op = AST_OP_EQ;
		  $$->mask = $3; $$->value = $5; }
	;

cmpop:	  "=="	{ $$ = AST_OP_EQ; }
	| "!="	{ $$ = AST_OP_NE; }
	| "<"	{ $$ = AST_OP_LT; }
	| "<="	{ $$ = AST_OP_LE; }
	| ">"	{ $$ = AST_OP_GT; }
	| ">="	{ $$ = AST_OP_GE; }
	;

/* A|B|C: bitwise or of constants; alternatives chain through alt. */
valexpr:  atom
	| valexpr '|' atom
		{ struct ast_val *t = $1;
		  while (t->alt) t = t->alt;
		  t->alt = $3; $$ = $1; }
	;

atom:	  NUMBER
	| QUANTITY
	| IDENT		{ if (!($$ = val_str(&@$, AST_V_IDENT, $1))) YYNOMEM; }
	| VAR		{ if (!($$ = val_str(&@$, AST_V_VAR, $1))) YYNOMEM; }
	;

exitems:  exitem
	| exitems ',' exitem	{ $$ = $3; $$->next = $1; }
	;

exitem:	  sysname
		{ if (!($$ = ast_item_new(&@$, $1))) { free($1); YYNOMEM; } }
	| sysname '(' patterns ')'
		{ if (!($$ = ast_item_new(&@1, $1))) {
		      free($1); ast_val_free($3); YYNOMEM; }
		  $$->args = ast_val_reverse($3); $$->has_args = 1; }
	;

patterns: pattern
	| patterns ',' pattern	{ $$ = $3; $$->next = $1; }
	;

/* NAME=VALUE, NAME == VALUE and "...": meant as a position and the
 * rest left out; the check says how to write them. */
pattern:  valexpr
	| '*'		{ if (!($$ = ast_val_new(AST_V_ANY, &@$))) YYNOMEM; }
	| "..."		{ if (!($$ = ast_val_new(AST_V_REST, &@$))) YYNOMEM; }
	| argname '=' valexpr
		{ if (!($$ = val_str(&@$, AST_V_NAMED, $1))) {
		      ast_val_free($3); YYNOMEM; }
		  $$->port = $3; $$->num = AST_OP_EQ; }
	| argname cmpop valexpr
		{ if (!($$ = val_str(&@$, AST_V_NAMED, $1))) {
		      ast_val_free($3); YYNOMEM; }
		  $$->port = $3; $$->num = (uint64_t)$2; }
	;

scalar:	  atom
	| STRING	{ if (!($$ = val_str(&@$, AST_V_STR, $1))) YYNOMEM; }
	| PATH		{ if (!($$ = val_str(&@$, AST_V_STR, $1))) YYNOMEM; }
	;

scalars:  scalar
	| scalars ',' scalar	{ $$ = $3; $$->next = $1; }
	;

/* network connect: ports, or "host":port (named hosts, by the proxy);
 * "private" after one allows a special address literal (check). */
dest:	  scalar
	| STRING ':' atom
		{ if (!($$ = val_str(&@1, AST_V_STR, $1))) {
		      ast_val_free($3); YYNOMEM; }
		  $$->port = $3; }
	| STRING ':' atom "private"
		{ if (!($$ = val_str(&@1, AST_V_STR, $1))) {
		      ast_val_free($3); YYNOMEM; }
		  $$->port = $3; $$->priv = 1; $$->priv_loc = @4; }
	;

dests:	  dest
	| dests ',' dest	{ $$ = $3; $$->next = $1; }
	;

pathval:  STRING	{ if (!($$ = val_str(&@$, AST_V_STR, $1))) YYNOMEM; }
	| PATH		{ if (!($$ = val_str(&@$, AST_V_STR, $1))) YYNOMEM; }
	| VAR		{ if (!($$ = val_str(&@$, AST_V_VAR, $1))) YYNOMEM; }
	;

/* A path statement's path; a bare word too, for the check to refuse
 * as a relative path (the message the quoted form gets). */
fspath:	  pathval
	| IDENT		{ if (!($$ = val_str(&@$, AST_V_STR, $1))) YYNOMEM; }
	;

/* A right list, or "none" (NULL) to drop an included rule. */
rights:	  "none"	{ $$ = NULL; }
	| names		{ $$ = $1; }
	;

names:	  IDENT
		{ if (!($$ = ast_item_new(&@$, $1))) { free($1); YYNOMEM; } }
	| names ',' IDENT
		{ if (!($$ = ast_item_new(&@3, $3))) { free($3); YYNOMEM; }
		  $$->next = $1; }
	;

modules:  module
		{ if (!($$ = ast_item_new(&@$, $1))) { free($1); YYNOMEM; } }
	| modules ',' module
		{ if (!($$ = ast_item_new(&@3, $3))) { free($3); YYNOMEM; }
		  $$->next = $1; }
	;

module:	  IDENT
	| DOTTED
	;

assigns:  IDENT '=' scalar
		{ if (!($$ = ast_item_new(&@1, $1))) {
		      free($1); ast_val_free($3); YYNOMEM; }
		  $$->value = $3; }
	| assigns ',' IDENT '=' scalar
		{ if (!($$ = ast_item_new(&@3, $3))) {
		      free($3); ast_val_free($5); YYNOMEM; }
		  $$->value = $5; $$->next = $1; }
	;

words:	  word
	| words word		{ $$ = $2; $$->next = $1; }
	;

word:	  STRING	{ if (!($$ = val_str(&@$, AST_V_STR, $1))) YYNOMEM; }
	| PATH		{ if (!($$ = val_str(&@$, AST_V_STR, $1))) YYNOMEM; }
	| VAR		{ if (!($$ = val_str(&@$, AST_V_VAR, $1))) YYNOMEM; }
	;

%%

static void polerror(POLLTYPE *loc, yyscan_t scanner, struct lex_state *ls,
    const char *msg)
{
	(void)scanner;
	diag_error(ls->diag, loc, "%s", msg);
}

static int tracked(POLSTYPE *lval, POLLTYPE *lloc, yyscan_t scanner)
{
	struct lex_state *ls = polget_extra(scanner);
	int tok = pollex(lval, lloc, scanner);
	int n = lloc->last_column - lloc->first_column + 1;

	ls->prev = ls->last;
	if (tok == POLEOF)
		return tok;    /* no match: lloc is stale */
	ls->last.loc = *lloc;
	ls->last.len = lloc->first_line == lloc->last_line && n > 0 &&
	    (size_t)n <= ls->pos ? n : 0;
	ls->last.off = ls->pos - (size_t)ls->last.len;
	return tok;
}

/* "missing ';' after X", at the end of X, when ';' could come next and
 * the next token is on a later line (or there is none). */
static int missing_semi(const yypcontext_t *ctx, struct lex_state *ls,
    const yysymbol_kind_t *exp, int n)
{
	const struct lex_tok *t = &ls->prev;
	POLLTYPE at;
	int i;

	for (i = 0; i < n && strcmp(yysymbol_name(exp[i]), "';'") != 0; i++)
		;
	if (i == n || !t->loc.file || (yypcontext_token(ctx) != YYSYMBOL_YYEOF
	    && yypcontext_location(ctx)->first_line <= t->loc.last_line))
		return 0;
	at = (POLLTYPE){ t->loc.file, t->loc.last_line,
	    t->loc.last_column + 1, t->loc.last_line, t->loc.last_column + 1 };
	diag_error(ls->diag, &at, "missing ';' after %.*s%s",
	    t->len > 40 ? 40 : t->len, ls->src + t->off,
	    t->len > 40 ? "..." : "");
	return 1;
}

/* Bison's "detailed" message (up to 4 expected tokens), or the missing
 * ';' above. */
static int yyreport_syntax_error(const yypcontext_t *ctx, yyscan_t scanner,
    struct lex_state *ls)
{
	yysymbol_kind_t exp[YYNTOKENS];
	char msg[256];
	int n = yypcontext_expected_tokens(ctx, exp, YYNTOKENS), i, len;

	(void)scanner;
	if (n < 0)
		return n;
	if (missing_semi(ctx, ls, exp, n))
		return 0;
	len = snprintf(msg, sizeof(msg), "syntax error, unexpected %s",
	    yysymbol_name(yypcontext_token(ctx)));
	for (i = 0; n <= 4 && i < n && len > 0 && (size_t)len < sizeof(msg);
	    i++)
		len += snprintf(msg + len, sizeof(msg) - (size_t)len, "%s%s",
		    i ? " or " : ", expecting ", yysymbol_name(exp[i]));
	diag_error(ls->diag, yypcontext_location(ctx), "%s", msg);
	return 0;
}

/* "timeout 10 sec": the word as the number's unit, marked spaced for
 * the check's message (a unit is written against its number).  Takes
 * unit. */
static void spaced_unit(struct ast_val *v, char *unit, const POLLTYPE *loc)
{
	if (v->kind != AST_V_NUM) {
		free(unit);
		return;
	}
	v->kind = AST_V_QTY;
	v->str = unit;
	v->unit_loc = *loc;
	v->spaced = 1;
}

static void add(struct lex_state *ls, struct ast_stmt *s)
{
	s->next = ls->stmts;
	ls->stmts = s;
}

/* Takes s; NULL (and s freed) when out of memory. */
static struct ast_val *val_str(const POLLTYPE *loc, enum ast_val_kind kind,
    char *s)
{
	struct ast_val *v = ast_val_new(kind, loc);

	if (!v) {
		free(s);
		return NULL;
	}
	v->str = s;
	return v;
}

/* Takes v; NULL (and v freed) when out of memory. */
static struct ast_stmt *st_val(enum ast_kind kind, const POLLTYPE *loc,
    struct ast_val *v)
{
	struct ast_stmt *s = ast_stmt_new(kind, loc);

	if (!s) {
		ast_val_free(v);
		return NULL;
	}
	s->val = v;
	return s;
}

/* Takes the (reversed) items; NULL (and items freed) when out of memory. */
static struct ast_stmt *st_items(enum ast_kind kind, const POLLTYPE *loc,
    struct ast_item *items)
{
	struct ast_stmt *s = ast_stmt_new(kind, loc);

	if (!s) {
		ast_item_free(items);
		return NULL;
	}
	s->items = ast_item_reverse(items);
	return s;
}
