/* expect.c - checking expectation statements (see expect.h). */
#include <stdlib.h>
#include <string.h>

#include "bpf.h"
#include "expect.h"
#include "explain_fmt.h"
#include "jsonout.h"
#include "pathq.h"
#include "reach.h"
#include "sysq.h"
#include "tables.h"

struct sys_walk {
	const struct cpol *p;
	const struct check_expect *e;
	unsigned long points;
	uint32_t got;
	uint64_t args[6];
};

/* 1 if the filter's answer is what the expectation asks for. */
static int wanted(uint32_t want, uint32_t got)
{
	uint32_t w = want & BPF_ACT_FULL_MASK, g = got & BPF_ACT_FULL_MASK;

	if (want == CHECK_EXPECT_DENY)
		return !sysq_allows(got);
	if (w == BPF_ACT_ALLOW)
		return g == BPF_ACT_ALLOW || g == BPF_ACT_LOG;
	if (w == BPF_ACT_KILL_PROCESS || w == BPF_ACT_KILL_THREAD)
		return g == BPF_ACT_KILL_PROCESS || g == BPF_ACT_KILL_THREAD;
	if (w == BPF_ACT_TRAP)
		return g == BPF_ACT_TRAP;
	return want == got;   /* errno(n), log */
}

static int sys_step(const uint64_t args[6], void *ctx)
{
	struct sys_walk *w = ctx;
	uint32_t got = sysq_run(w->p, (uint32_t)w->e->nr, args);

	w->points++;
	if (wanted(w->e->action, got))
		return 0;
	w->got = got;
	memcpy(w->args, args, sizeof(w->args));
	return 1;
}

static void want_str(uint32_t action, char *buf, size_t len)
{
	if (action == CHECK_EXPECT_DENY)
		snprintf(buf, len, "deny");
	else
		cpol_action_name(action, buf, len);
}

/* One argument as the author would write it: TIOCSTI, not 0x5412. */
static const char *arg_str(const char *syscall, unsigned int i, uint64_t v,
    char *buf, size_t len)
{
	unsigned int width = tables_arg_width(syscall, i);

	return explain_value(syscall, i, width ? width : 64, v, buf, len);
}

static void sys_text(const struct check_expect *e, char *buf, size_t len)
{
	char want[48], v[96];
	size_t used;

	want_str(e->action, want, sizeof(want));
	used = (size_t)snprintf(buf, len, "%s %s", want, e->syscall);
	for (unsigned int i = 0; i < e->nargs && i < 6 && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
		    i ? ", " : "(", e->args[i].wild ? "*" : arg_str(e->syscall,
		    i, e->args[i].value, v, sizeof(v)));
	if (e->nargs && used < len)
		snprintf(buf + used, len - used, ")");
}

static void check_sys(const struct cpol *p, struct expect_result *r)
{
	const struct check_expect *e = r->e;
	struct sys_walk w = { p, e, 0, 0, { 0 } };
	struct sysq_space s;
	char ex[240], got[48];

	sys_text(e, r->text, sizeof(r->text));
	if (e->nr < 0) {
		snprintf(r->detail, sizeof(r->detail), "unknown syscall %s",
		    e->syscall);
		return;
	}
	sysq_space_init(&s, p, NULL, (uint32_t)e->nr);
	for (unsigned int i = 0; i < e->nargs && i < 6; i++)
		if (!e->args[i].wild)
			sysq_space_fix(&s, i, e->args[i].value);
	r->pass = !sysq_walk(&s, sys_step, &w);
	r->points = w.points;
	if (r->pass) {
		snprintf(r->detail, sizeof(r->detail), "%lu argument "
		    "combination%s checked", w.points, w.points == 1 ? "" : "s");
		return;
	}
	explain_call(e->syscall, w.args, ex, sizeof(ex));
	snprintf(r->detail, sizeof(r->detail), "%s -> %s", ex,
	    cpol_action_name(w.got, got, sizeof(got)));
}

/* The first rule path that gives path some of mask. */
static const char *granting(const struct cpol *p, const char *path,
    uint64_t mask)
{
	for (uint32_t i = 0; i < p->nfs; i++)
		if ((p->fs[i].access & mask) && pathq_covers(p->fs[i].path, path))
			return p->fs[i].path;
	return "?";
}

static void check_path(const struct cpol *p, struct expect_result *r)
{
	const struct check_expect *e = r->e;
	int neg = strncmp(e->right, "no-", 3) == 0;
	uint64_t need, deny, have;
	char buf[256];

	snprintf(r->text, sizeof(r->text), "%s %s", e->right, e->path);
	if (pathq_right(e->right + (neg ? 3 : 0), &need, &deny) < 0) {
		snprintf(r->detail, sizeof(r->detail), "unknown right %s",
		    e->right);
		return;
	}
	have = pathq_rights(p, e->path);
	pathq_format(have, buf, sizeof(buf));
	if (neg) {
		r->pass = !(have & deny);
		if (r->pass)
			snprintf(r->detail, sizeof(r->detail), "rights: %s", buf);
		else
			snprintf(r->detail, sizeof(r->detail), "granted by "
			    "rule %s (rights: %s)", granting(p, e->path,
			    have & deny), buf);
		return;
	}
	r->pass = (have & need) == need;
	if (r->pass && pathq_hidden(p, e->path)) {
		r->pass = 0;    /* as the run answers: not there */
		snprintf(r->detail, sizeof(r->detail), "in the run's private "
		    "%s: the run sees a fresh tmpfs there, not this path",
		    pathq_hidden(p, e->path));
		return;
	}
	if (r->pass)
		snprintf(r->detail, sizeof(r->detail), "rights: %s", buf);
	else
		snprintf(r->detail, sizeof(r->detail), "not granted (rights: "
		    "%s)", buf);
}

static int has_port(const struct cpol *p, int kind, unsigned int port)
{
	for (uint32_t i = 0; i < p->nnet; i++)
		if (p->net[i].kind == kind && p->net[i].port == port)
			return 1;
	return 0;
}

/* "host":port: what the network reaches (reach.h).  connect holds when
 * every name the host stands for is reached, no-connect when none is. */
static void check_host(const struct cpol *p, struct expect_result *r,
    int neg)
{
	const struct check_expect *e = r->e;
	const struct cpol_host *by;
	enum reach got = reach_host(p, e->host, e->port, &by);
	char h[CPOL_MAX_HOSTNAME + 16], o[CPOL_MAX_HOSTNAME + 16];

	r->pass = neg ? got == REACH_NONE : got == REACH_ALL;
	reach_format(e->host, e->port, h, sizeof(h));
	if (by)
		snprintf(r->detail, sizeof(r->detail), "%s %s reached through "
		    "%s (named hosts, by cordon's proxy)", h, got == REACH_ALL ?
		    "is" : "is partly (some names below it)",
		    reach_format(by->host, by->port, o, sizeof(o)));
	else if (got == REACH_ALL)
		snprintf(r->detail, sizeof(r->detail), "%s is reached: network "
		    "%s", h, p->flags & CPOL_F_NET_TCP ? "tcp reaches any host "
		    "at that port" : "unrestricted");
	else
		snprintf(r->detail, sizeof(r->detail), "%s is not reached "
		    "(network %s, %u named-host rule%s)", h, p->flags &
		    CPOL_F_NET_HOSTS ? "named hosts" : p->flags & CPOL_F_NET_TCP ?
		    "tcp, not that port" : "off", (unsigned int)p->nhosts,
		    p->nhosts == 1 ? "" : "s");
}

static void check_net(const struct cpol *p, struct expect_result *r)
{
	const struct check_expect *e = r->e;
	const char *what = e->net;
	int neg = strncmp(what, "no-", 3) == 0, ok;

	if (e->host)
		snprintf(r->text, sizeof(r->text), "network %s \"%s\":%u",
		    what, e->host, (unsigned int)e->port);
	else if (e->port)
		snprintf(r->text, sizeof(r->text), "network %s %u", what,
		    (unsigned int)e->port);
	else
		snprintf(r->text, sizeof(r->text), "network %s", what);
	what += neg ? 3 : 0;
	if (e->host && strcmp(what, "connect") == 0) {
		check_host(p, r, neg);
		return;
	}
	if (strcmp(what, "off") == 0)
		ok = (p->flags & CPOL_F_NET_OFF) && !(p->flags & CPOL_F_NET_TCP);
	else if (strcmp(what, "on") == 0 || strcmp(what, "tcp") == 0)
		ok = !!(p->flags & CPOL_F_NET_TCP);
	else if (!e->host && (strcmp(what, "connect") == 0 ||
	    strcmp(what, "bind") == 0))
		ok = (p->flags & CPOL_F_NET_TCP) && has_port(p, what[0] == 'c' ?
		    CPOL_NET_CONNECT : CPOL_NET_BIND, e->port);
	else {
		snprintf(r->detail, sizeof(r->detail), "unknown network "
		    "expectation %s", e->net);
		return;
	}
	r->pass = neg ? !ok : ok;
	snprintf(r->detail, sizeof(r->detail), "network is %s with %u port "
	    "rule%s", p->flags & CPOL_F_NET_HOSTS ? "named hosts" :
	    p->flags & CPOL_F_NET_TCP ? "tcp" : "off",
	    (unsigned int)p->nnet, p->nnet == 1 ? "" : "s");
}

int expect_run(const struct input *in, struct expect_result **out)
{
	struct expect_result *v;
	int failed = 0;

	*out = NULL;
	if (!(v = calloc(in->map.nexpects ? in->map.nexpects : 1, sizeof(*v))))
		return -1;
	for (unsigned int i = 0; i < in->map.nexpects; i++) {
		struct expect_result *r = &v[i];

		r->e = &in->map.expects[i];
		if (r->e->kind == CHECK_EXPECT_SYSCALL)
			check_sys(&in->pol, r);
		else if (r->e->kind == CHECK_EXPECT_PATH)
			check_path(&in->pol, r);
		else
			check_net(&in->pol, r);
		failed += !r->pass;
	}
	*out = v;
	return failed;
}

static const char *loc_file(const struct input *in, const struct ast_loc *l)
{
	return input_file_shown(in, l->file ? l->file : in->path);
}

void expect_print_text(FILE *f, const struct input *in,
    const struct expect_result *r, unsigned int n, int verbose)
{
	unsigned int failed = 0;

	for (unsigned int i = 0; i < n; i++) {
		failed += !r[i].pass;
		if (r[i].pass && !verbose)
			continue;
		fprintf(f, "%s: %s expect %s (%s:%d): %s\n", in->path,
		    r[i].pass ? "PASS" : "FAIL", r[i].text, loc_file(in,
		    &r[i].e->loc), r[i].e->loc.first_line, r[i].detail);
	}
	if (n == 0)
		fprintf(f, "%s: no expectations%s\n", in->path, in->is_source ?
		    "" : " (a blob carries none: test its source)");
	else if (failed == 0)
		fprintf(f, "%s: all %u expectation%s pass\n", in->path, n,
		    n == 1 ? "" : "s");
	else
		fprintf(f, "%s: %u of %u expectation%s failed\n", in->path,
		    failed, n, n == 1 ? "" : "s");
}

void expect_print_json(FILE *f, const struct input *in,
    const struct expect_result *r, unsigned int n)
{
	int first = 1;

	fputs("{\"file\":", f);
	json_str(f, in->path);
	fputs(",\"policy\":", f);
	json_str(f, in->pol.name);
	fputs(",\"expectations\":[", f);
	for (unsigned int i = 0; i < n; i++) {
		json_sep(f, &first);
		fputs("{\"file\":", f);
		json_str(f, loc_file(in, &r[i].e->loc));
		fprintf(f, ",\"line\":%d,\"expect\":", r[i].e->loc.first_line);
		json_str(f, r[i].text);
		fprintf(f, ",\"pass\":%s,\"points\":%lu,\"detail\":",
		    r[i].pass ? "true" : "false", r[i].points);
		json_str(f, r[i].detail);
		fputc('}', f);
	}
	fputs("]}", f);
}
