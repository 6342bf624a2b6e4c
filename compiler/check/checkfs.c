/*
 * checkfs.c - the semantic pass for path, private and network statements:
 * Landlock path rules and rights, private /tmp and /dev/shm, network mode
 * and TCP ports.  (The seccomp side of network is in rules.c.)
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkctx.h"
#include "landlock_compat.h"
#include "pathq.h"
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
	s = tables_right_alias(it->name);
	if (!s)
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
	else if (s[0] == '$')
		return "$SNIPPET is a whole path (the snippet's); a path below "
		    "the working directory starts with $WORKDIR";
	else if (s[0] != '/')
		return "relative path: paths must be absolute (or start with "
		    "$WORKDIR)";
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

/* A path that starts with a $NAME cordon does not bind there: said,
 * with the bound name it was most likely meant to be.  1 when said. */
static int unbound(struct check_ctx *c, const struct ast_val *v,
    const char *s)
{
	static const char word[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop"
	    "qrstuvwxyz_0123456789";
	const char *bound[8], *sug;
	char name[64], say[64];
	size_t n;

	n = s[0] == '$' ? strspn(s + 1, word) : 0;
	if (s[0] != '$' || tables_var_bound(s + 1, n, TABLES_VAR_PATH))
		return 0;
	snprintf(name, sizeof(name), "%.*s", (int)n, s + 1);
	tables_vars(TABLES_VAR_PATH, bound, 8);
	sug = n ? tables_suggest_among(name, bound) : NULL;
	diag_error(c->d, &v->loc, "%s%s%sonly %s may start a path%s%s%s",
	    n ? "unknown $" : "", name, n ? ": " : "",
	    tables_vars_say(TABLES_VAR_PATH, say, sizeof(say)),
	    sug ? "; did you mean $" : "", sug ? sug : "", sug ? "?" : "");
	return 1;
}

/* Resolve and check the path of a statement; heap copy, or NULL. */
static char *stmt_path(struct check_ctx *c, const struct ast_val *v)
{
	const char *why;
	char *path;

	if (value_str(c, v, &path) < 0)
		return NULL;
	if (unbound(c, v, path)) {
		free(path);
		return NULL;
	}
	why = path_problem(path);
	if (why) {
		diag_error(c->d, &v->loc, "%s", why);
		free(path);
		return NULL;
	}
	return path;
}

/* A path rule cordon needs at launch (not optional) naming a path this
 * host lacks: the run would be refused here; say how to make it
 * optional. */
static void absent_here(struct check_ctx *c, const struct mention *m)
{
	struct stat st;

	if ((m->s->flags & AST_F_OPTIONAL) || m->key[0] != '/' ||
	    stat(m->key, &st) == 0 || (errno != ENOENT && errno != ENOTDIR))
		return;
	diag_warning(c->d, &m->v->loc, "%s does not exist on this host: "
	    "cordon refuses to run where it is absent; write `path optional "
	    "%s ...` if it may be", m->key, m->key);
}

/* A rule in a private /tmp or /dev/shm grants what the run cannot see:
 * with a mount namespace its own fresh tmpfs hides the host's folder. */
static void hidden_here(struct check_ctx *c, const struct cpol *out,
    const struct mention *m)
{
	const char *dir = pathq_hidden(out, m->key);

	if (dir)
		diag_warning(c->d, &m->v->loc, "%s is in the run's private "
		    "%s (a fresh tmpfs of its own): with a mount namespace "
		    "the run cannot see it; put it outside %s, or give it "
		    "to the run in its workdir", m->key, dir, dir);
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
	absent_here(c, m);
	hidden_here(c, out, m);
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
	out->flags |= (tmp ? CPOL_F_PRIVATE_TMP : 0) |
	    (shm ? CPOL_F_PRIVATE_SHM : 0);
	if (ms.n > CPOL_MAX_FS)
		diag_error(c->d, &ms.m[CPOL_MAX_FS].s->loc, "more than %d "
		    "path rules", CPOL_MAX_FS);
	out->fs = check_mem(c, calloc(ms.n ? ms.n : 1, sizeof(*out->fs)));
	for (i = 0; out->fs && i < ms.n && i < CPOL_MAX_FS; i++)
		add_rule(c, out, &ms.m[i]);
	if (out->fs && out->nfs > 0)  /* fs is NULL if calloc failed */
		qsort(out->fs, out->nfs, sizeof(*out->fs), by_path);
	mentions_free(&ms);
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

static int by_host(const void *a, const void *b)
{
	const struct cpol_host *x = a, *y = b;
	int d = strcmp(x->host, y->host);

	return d ? d : x->port - y->port;
}

int check_host(struct check_ctx *c, const struct ast_loc *loc,
    const char *h)
{
	if (cpol_host_kind(h) != CPOL_HOST_BAD)
		return 0;
	if (h[strspn(h, "0123456789abcdefxABCDEFX.")] == '\0' &&
	    strspn(h, "0123456789") > 0) {
		diag_error(c->d, loc, "\"%s\" is not an IPv4 address as "
		    "inet_ntop writes it (four decimal parts, no leading "
		    "zeros): other spellings (127.1, 0x7f.0.0.1, 2130706433) "
		    "reach addresses too, and are refused", h);
		return -1;
	}
	diag_error(c->d, loc, "\"%s\" is not a host: a lower-case DNS name "
	    "of two labels or more, \"*.\" and such a name, or an IPv4 or "
	    "IPv6 address as inet_ntop writes it", h);
	return -1;
}

/* A literal for the host's own, its network's or its cloud's services
 * (cpol_host_special) is a rule only with the word "private" after it,
 * and the word only after such a literal. */
static int check_private(struct check_ctx *c, const struct ast_val *v,
    const char *h, unsigned int port)
{
	const char *what = cpol_host_special(h);

	if (what && !v->priv) {
		diag_error(c->d, &v->loc, "\"%s\" is not a public address "
		    "(%s): the host's own, its network's or its cloud's "
		    "services are there; if the run must reach it, write "
		    "\"%s\":%u private", h, what, h, port);
		return -1;
	}
	if (!what && v->priv) {
		diag_error(c->d, &v->priv_loc, "\"private\" is for a "
		    "loopback, private, link-local or other special address "
		    "literal; \"%s\" is not one", h);
		return -1;
	}
	return 0;
}

/* "host":port: a rule for the run's egress proxy. */
static void host(struct check_ctx *c, struct cpol *out,
    const struct ast_val *v)
{
	uint64_t port;
	unsigned int i;
	char *h = NULL;
	int neg;

	if (value_num(c, v->port, &port, &neg) < 0 ||
	    value_str(c, v, &h) < 0)
		goto done;
	if (neg || port < 1 || port > 65535) {
		diag_error(c->d, &v->port->loc, "port must be 1 to 65535");
		goto done;
	}
	if (check_host(c, &v->loc, h) < 0 ||
	    check_private(c, v, h, (unsigned int)port) < 0)
		goto done;
	for (i = 0; i < out->nhosts; i++)
		if (strcmp(out->hosts[i].host, h) == 0 &&
		    out->hosts[i].port == port) {
			diag_error(c->d, &v->loc, "%s:%u listed twice", h,
			    (unsigned)port);
			goto done;
		}
	if (out->nhosts == CPOL_MAX_HOSTS) {
		diag_error(c->d, &v->loc, "more than %d hosts",
		    CPOL_MAX_HOSTS);
		goto done;
	}
	out->hosts[out->nhosts++] = (struct cpol_host){ h, (uint16_t)port,
	    v->priv ? CPOL_HOST_PRIVATE : 0 };
	h = NULL;
done:
	free(h);
}

int check_network_form(struct check_ctx *c, const struct ast_stmt *s)
{
	const char *verb = (s->flags & AST_F_NET_BIND) ? "bind" : "connect";
	const struct ast_val *v;
	const char *colon;
	int bad = 0;

	if (s->flags & AST_F_NET_OFF)
		return 0;
	if (!s->val) {
		diag_error(c->d, &s->loc, "network %s lists nothing: write "
		    "ports (network %s 443;)%s", verb, verb,
		    *verb == 'c' ? " or named hosts (network connect "
		    "\"api.example.org\":443;)" : "");
		return -1;
	}
	for (v = s->val; v; v = v->next) {
		if (v->port || v->kind != AST_V_STR)
			continue;
		colon = strrchr(v->str, ':');
		if (colon && *verb == 'c' && !strchr(v->str, ']'))
			diag_error(c->d, &v->loc, "a named host's port goes "
			    "outside the quotes: \"%.*s\":%s", (int)(colon -
			    v->str), v->str, colon + 1);
		else if (!colon && *verb == 'c')
			diag_error(c->d, &v->loc, "a named host needs its "
			    "port: \"%s\":443", v->str);
		else
			diag_error(c->d, &v->loc, "network %s takes ports%s, "
			    "not a string", verb, *verb == 'c' ? " or "
			    "\"host\":port" : "");
		bad = -1;
	}
	return bad;
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

	if (check_network_form(c, s) < 0)
		return;
	for (v = s->val; v; v = v->next) {
		if (v->port || (v != s->val && s->val->port)) {
			if (!v->port || !s->val->port)
				diag_error(c->d, &v->loc, "network connect "
				    "names hosts (\"host\":port) or lists "
				    "ports, not both");
			else if (out->hosts)
				host(c, out, v);
			continue;
		}
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
	out->hosts = check_mem(c, calloc(CPOL_MAX_HOSTS, sizeof(*out->hosts)));
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
	if (out->net && out->nhosts > 0 && out->nnet < CPOL_MAX_NET) {
		/* Named hosts: TCP reaches the run's proxy alone. */
		out->flags |= CPOL_F_NET_HOSTS;
		out->net[out->nnet++] = (struct cpol_net){ CPOL_NET_CONNECT,
		    CPOL_PROXY_PORT };
		qsort(out->hosts, out->nhosts, sizeof(*out->hosts), by_host);
	}
	if (out->net && out->nnet > 0)
		qsort(out->net, out->nnet, sizeof(*out->net), by_net);
	mentions_free(&ms);
}

/* The rights Landlock gives the file a path names on this host (the
 * rules see the resolved path), or the path as written if it is absent. */
static uint64_t host_rights(const struct cpol *out, const char *path,
    char *real)
{
	if (!realpath(path, real))
		snprintf(real, PATH_MAX, "%s", path);
	return pathq_rights(out, real);
}

/* The ELF interpreter (PT_INTERP) or the #! interpreter of the file at
 * path on this host into interp; 0 if there is one. */
static int interp_of(const char *path, char *interp, size_t len)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	unsigned int i;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), r = -1;

	if (fd < 0)
		return -1;
	n = pread(fd, &eh, sizeof(eh), 0);
	if (n >= 2 && !memcmp(&eh, "#!", 2)) {
		const char *t = (const char *)&eh + 2;
		size_t k;

		t += strspn(t, " \t");
		k = strcspn(t, " \t\n");
		if (k > 0 && k < len && t + k < (const char *)&eh + n) {
			snprintf(interp, len, "%.*s", (int)k, t);
			r = 0;
		}
	} else if (n == (ssize_t)sizeof(eh) && !memcmp(eh.e_ident, ELFMAG,
	    SELFMAG) && eh.e_ident[EI_CLASS] == ELFCLASS64) {
		for (i = 0; r < 0 && i < eh.e_phnum && i < 64; i++) {
			if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff +
			    i * sizeof(ph))) != (ssize_t)sizeof(ph))
				break;
			if (ph.p_type != PT_INTERP || ph.p_filesz >= len ||
			    ph.p_filesz < 2)
				continue;
			n = pread(fd, interp, ph.p_filesz, (off_t)ph.p_offset);
			interp[n > 0 ? n - 1 : 0] = '\0';
			r = n == (ssize_t)ph.p_filesz ? 0 : -1;
		}
	}
	close(fd);
	return r;
}

/* One file the exec needs: execute and read-file under the policy's own
 * Landlock rules. */
static void exec_needs(struct check_ctx *c, const struct cpol *out,
    const struct ast_loc *loc, const char *what, const char *path)
{
	const uint64_t need = CORDON_LL_FS_EXECUTE | CORDON_LL_FS_READ_FILE;
	char real[PATH_MAX];

	if (((host_rights(out, path, real) | pathq_rights(out, path)) & need)
	    == need)
		return;
	diag_error(c->d, loc, "%s %s%s%s cannot be executed under this "
	    "policy's Landlock rules (it needs execute and read-file): add "
	    "`path %s rx;` or a rule on a directory above it", what, path,
	    strcmp(real, path) ? " -> " : "", strcmp(real, path) ? real : "",
	    path);
}

void check_exec(struct check_ctx *c, const struct cpol *out,
    const struct ast_loc *loc)
{
	char interp[PATH_MAX];

	if (out->nargv == 0 || out->argv[0][0] != '/' ||
	    access(out->argv[0], F_OK) != 0)
		return;
	exec_needs(c, out, loc, "the command", out->argv[0]);
	if (interp_of(out->argv[0], interp, sizeof(interp)) == 0 &&
	    interp[0] == '/')
		exec_needs(c, out, loc, "the command's interpreter", interp);
}
