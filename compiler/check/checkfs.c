/*
 * checkfs.c - the semantic pass for path, private and network statements:
 * Landlock path rules and rights, private /tmp and /dev/shm, network mode
 * and TCP ports.  (The seccomp side of network is in rules.c.)
 */
#include <stdlib.h>
#include <string.h>

#include "checkctx.h"
#include "landlock_compat.h"
#include "tables.h"


static uint64_t right_bits(struct check_ctx *c, const struct ast_item *it)
{
	char dym[DIAG_SUGGEST_MAX];
	const char *names[64], *s;
	uint64_t bits;
	unsigned int i;

	if (tables_right(it->name, &bits) == 0)
		return bits;
	for (i = 0; i < 63 && (names[i] = tables_right_at(i, NULL)); i++)
		;
	names[i] = NULL;
	s = tables_suggest_among(it->name, names);
	diag_error(c->d, &it->loc, "unknown right %s%s", it->name,
	    diag_did_you_mean(dym, sizeof(dym), "", s, ""));
	return 0;
}

/* Why a path is not absolute and canonical, or NULL if it is. */
static const char *path_problem(const char *s)
{
	const char *rest = s, *seg, *end;
	size_t n;

	if (strcmp(s, "$SNIPPET") == 0)
		return NULL;
	if (strncmp(s, "$WORKDIR", 8) == 0)
		rest = s + 8;
	else if (s[0] != '/')
		return s[0] == '$' ? "only $WORKDIR and $SNIPPET may start a "
		    "path" : "relative path: paths must be absolute (or start "
		    "with $WORKDIR)";
	if (strcmp(rest, "/") == 0 && rest == s)
		return NULL;
	if (rest[0] == '\0' && rest != s)
		return NULL;
	if (rest[0] != '/')
		return "$WORKDIR must be followed by / or nothing";
	for (; *rest; rest = seg + n) {
		seg = rest + 1;
		end = strchr(seg, '/');
		n = end ? (size_t)(end - seg) : strlen(seg);
		if (n == 0)
			return end || seg == s + 1 ? "path is not canonical "
			    "(\"//\")" : "path is not canonical (trailing /)";
		if ((n == 1 && seg[0] == '.') ||
		    (n == 2 && seg[0] == '.' && seg[1] == '.'))
			return "path is not canonical (\".\" or \"..\")";
	}
	return NULL;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct cpol_fs *)a)->path,
	    ((const struct cpol_fs *)b)->path);
}

/* Resolve and check the path of a statement; heap copy, or NULL. */
static char *stmt_path(struct check_ctx *c, const struct ast_val *v)
{
	const char *why;
	char *path;

	if (value_str(c, v, &path) < 0)
		return NULL;
	why = path_problem(path);
	if (why) {
		diag_error(c->d, &v->loc, "%s", why);
		free(path);
		return NULL;
	}
	return path;
}

static void add_rule(struct check_ctx *c, struct cpol *out,
    const struct mention *m)
{
	const struct ast_item *it;
	struct cpol_fs *f;
	uint64_t bits = 0;

	if (m->s->flags & AST_F_NONE)
		return;
	for (it = m->s->items; it; it = it->next)
		bits |= right_bits(c, it);
	if (bits == 0)
		return;
	f = &out->fs[out->nfs];
	f->path = check_mem(c, strdup(m->key));
	if (!f->path)
		return;
	f->access = bits;
	f->flags = (m->s->flags & AST_F_OPTIONAL) ? CPOL_FS_OPTIONAL : 0;
	out->nfs++;
}

void check_paths(struct check_ctx *c, struct cpol *out)
{
	struct mentions ms = { 0 };
	const struct ast_stmt *s;
	unsigned int i, tmp = 0, shm = 0, req = 0;
	char *path;

	for (s = c->p->stmts; s; s = s->next) {
		if (s->kind != AST_PATH && s->kind != AST_PRIVATE)
			continue;
		if (s->kind == AST_PRIVATE && (s->flags & AST_F_REQUIRED)) {
			req = 1;
			continue;
		}
		if (!(path = stmt_path(c, s->val)))
			continue;
		if (s->kind == AST_PRIVATE) {
			tmp |= strcmp(path, "/tmp") == 0;
			shm |= strcmp(path, "/dev/shm") == 0;
			if (strcmp(path, "/tmp") && strcmp(path, "/dev/shm"))
				diag_error(c->d, &s->val->loc, "only /tmp and "
				    "/dev/shm can be private");
		} else if (mentions_add(&ms, path, s, NULL, s->val) < 0) {
			diag_error(c->d, NULL, "out of memory");
		}
		free(path);
	}
	mentions_merge(c, &ms, 0, "path");
	if (ms.n > CPOL_MAX_FS)
		diag_error(c->d, &ms.m[CPOL_MAX_FS].s->loc, "more than %d "
		    "path rules", CPOL_MAX_FS);
	out->fs = check_mem(c, calloc(ms.n ? ms.n : 1, sizeof(*out->fs)));
	for (i = 0; out->fs && i < ms.n && i < CPOL_MAX_FS; i++)
		add_rule(c, out, &ms.m[i]);
	if (out->fs && out->nfs > 0)  /* fs is NULL if calloc failed */
		qsort(out->fs, out->nfs, sizeof(*out->fs), by_path);
	mentions_free(&ms);
	out->flags |= (tmp ? CPOL_F_PRIVATE_TMP : 0) |
	    (shm ? CPOL_F_PRIVATE_SHM : 0);
	if ((tmp || shm) && !req)
		out->flags |= CPOL_F_BEST_EFFORT_NS;
}

static int by_net(const void *a, const void *b)
{
	const struct cpol_net *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind - y->kind;
	return x->port - y->port;
}

static void ports(struct check_ctx *c, struct cpol *out,
    const struct ast_stmt *s)
{
	const struct ast_val *v;
	uint8_t kind = (s->flags & AST_F_NET_BIND) ? CPOL_NET_BIND :
	    CPOL_NET_CONNECT;
	uint64_t port;
	unsigned int i;
	int neg;

	for (v = s->val; v; v = v->next) {
		if (value_num(c, v, &port, &neg) < 0)
			continue;
		if (neg || port < 1 || port > 65535) {
			diag_error(c->d, &v->loc, "port must be 1 to 65535");
			continue;
		}
		for (i = 0; i < out->nnet; i++)
			if (out->net[i].kind == kind && out->net[i].port == port)
				break;
		if (i < out->nnet) {
			diag_error(c->d, &v->loc, "port %u listed twice",
			    (unsigned)port);
			continue;
		}
		if (out->nnet == CPOL_MAX_NET) {
			diag_error(c->d, &v->loc, "more than %d ports",
			    CPOL_MAX_NET);
			return;
		}
		out->net[out->nnet++] = (struct cpol_net){ kind,
		    (uint16_t)port };
	}
}

void check_network(struct check_ctx *c, struct cpol *out)
{
	struct mentions ms = { 0 };
	const struct ast_stmt *s, *seen[3] = { NULL, NULL, NULL };
	unsigned int i, k;

	for (s = c->p->stmts; s; s = s->next)
		if (s->kind == AST_NETWORK && mentions_add(&ms, "network", s,
		    NULL, NULL) < 0)
			diag_error(c->d, NULL, "out of memory");
	mentions_merge(c, &ms, 1, "");
	out->net = check_mem(c, calloc(CPOL_MAX_NET, sizeof(*out->net)));
	for (i = 0; out->net && i < ms.n; i++) {
		s = ms.m[i].s;
		k = (s->flags & AST_F_NET_OFF) ? 0 :
		    (s->flags & AST_F_NET_CONNECT) ? 1 : 2;
		if (seen[k]) {
			diag_error(c->d, &s->loc, "network %s given twice in "
			    "one file", k == 0 ? "off" : k == 1 ? "connect" :
			    "bind");
			diag_note(c->d, &seen[k]->loc, "first given here");
			continue;
		}
		seen[k] = s;
		if (k > 0)
			ports(c, out, s);
		c->net_stmt = s;
	}
	if (seen[0] && (seen[1] || seen[2])) {
		diag_error(c->d, &seen[0]->loc, "network off in the same file "
		    "as network %s", seen[1] ? "connect" : "bind");
		diag_note(c->d, &(seen[1] ? seen[1] : seen[2])->loc,
		    "network %s here", seen[1] ? "connect" : "bind");
	}
	c->net_tcp = !seen[0] && (seen[1] || seen[2]);
	out->flags |= c->net_tcp ? CPOL_F_NET_TCP : CPOL_F_NET_OFF;
	if (out->net && out->nnet > 0)
		qsort(out->net, out->nnet, sizeof(*out->net), by_net);
	mentions_free(&ms);
}
