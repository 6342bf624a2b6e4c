/*
 * auditsay.c - what to add for a Landlock denial audit.c kept, in the
 * policy language (cordon.policy(5)), and the summary on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kaudit.h"
#include "cordon.h"
#include "polquote.h"
#include "secret.h"
#include "sysdecode.h"

/* Is one of the comma-separated names in list?  ("fs.read_file,..."). */
static int has(const char *list, const char *name)
{
	size_t k = strlen(name);
	const char *p = list;

	while ((p = strstr(p, name)) != NULL) {
		if ((p == list || p[-1] == ',') && (p[k] == 0 || p[k] == ','))
			return 1;
		p += k;
	}
	return 0;
}

/* The right a path rule needs for these accesses (cordon.policy(5):
 * ro = read, rx = read + execute, rw = read + write + create + remove). */
static const char *mode(const char *access)
{
	static const char *const rw[] = { "fs.write_file", "fs.truncate",
	    "fs.make_reg", "fs.make_dir", "fs.remove_file", "fs.remove_dir",
	    "fs.make_sym", "fs.make_fifo", "fs.make_sock", "fs.make_char",
	    "fs.make_block", "fs.refer", "fs.ioctl_dev" };
	size_t i;

	for (i = 0; i < sizeof(rw) / sizeof(rw[0]); i++)
		if (has(access, rw[i]))
			return "rw";
	return has(access, "fs.execute") ? "rx" : "ro";
}

static int under(const char *path, const char *dir)
{
	size_t k = strlen(dir);

	return strncmp(path, dir, k) == 0 && (path[k] == 0 || path[k] == '/');
}

/* Bytes into a fixed buffer; a line that does not fit is not given. */
struct line {
	char *buf;
	size_t len, cap;
	int over;
};

static void put_line(void *ctx, const char *p, size_t n)
{
	struct line *l = ctx;

	if (l->over || n >= l->cap - l->len) {
		l->over = 1;
		return;
	}
	memcpy(l->buf + l->len, p, n);
	l->len += n;
	l->buf[l->len] = '\0';
}

static void put_str(struct line *l, const char *s)
{
	put_line(l, s, strlen(s));
}

/* A path rule for d, pasted as it is into a policy, grants exactly
 * d's path (quoted by common/polquote.c), or says why none is advised:
 * a name the policy language cannot hold, a path cut to the record's
 * field, a credential store or a folder holding one of the host's
 * (common/secret.c). */
static void path_advice(const struct audit_denial *d, char *buf,
    size_t len)
{
	struct line l = { buf, 0, len, 0 };
	const char *why = polq_path_problem(d->object);
	const char *store = why ? NULL : secret_path(d->object);
	const char *holds = why || store ? NULL : secret_below(d->object);

	if (strlen(d->object) + 1 >= sizeof(d->object)) {
		snprintf(buf, len, "not advised: the path is longer than "
		    "cordon keeps (%zu bytes), so it is cut",
		    sizeof(d->object) - 1);
		return;
	}
	if (why) {
		snprintf(buf, len, "not advised: the path cannot be written "
		    "in a policy as it is (%s)", why);
		return;
	}
	buf[0] = '\0';
	put_str(&l, store || holds ? "not advised: " : "path ");
	polq_path(d->object, put_line, &l);
	if (store || holds) {
		put_str(&l, store ? " is a credential file (" :
		    " holds a credential file (");
		put_str(&l, store ? store : holds);
		put_str(&l, ")");
	} else {
		put_str(&l, " ");
		put_str(&l, mode(d->access));
		put_str(&l, ";");
	}
	if (l.over)
		snprintf(buf, len, "not advised: the rule is longer than "
		    "cordon's line");
}

/* What to add for d, into buf (AUDIT_ADVICE_LEN). */
const char *audit_advice(const struct audit *a,
    const struct audit_denial *d, char *buf, size_t len)
{
	const char *port = strrchr(d->object, ':');

	if (d->net && has(d->access, "net.connect_tcp") && a->named)
		snprintf(buf, len, "a direct connection: the policy names "
		    "hosts, so the only way out is cordon's proxy "
		    "(HTTPS_PROXY in the run's environment), to a host the "
		    "policy names");
	else if (d->net)
		snprintf(buf, len, "network %s %s;", has(d->access,
		    "net.bind_tcp") ? "bind" : "connect", port ? port + 1 :
		    "PORT");
	else if (strncmp(d->access, "scope.", 6) == 0)
		snprintf(buf, len, "Landlock's scope of the run (no rule "
		    "widens it)");
	else if ((a->private_tmp && under(d->object, "/tmp")) ||
	    (a->private_shm && under(d->object, "/dev/shm")))
		snprintf(buf, len, "this path is under the run's private %s, "
		    "whose rights are fixed (no rule widens them)",
		    under(d->object, "/tmp") ? "/tmp" : "/dev/shm");
	else if (d->object[0] != '/')
		snprintf(buf, len, "a path rule (the kernel gave no path)");
	else
		path_advice(d, buf, len);
	return buf;
}

/* One denial's line on stderr. */
static void say_one(const struct audit *a, const struct audit_denial *d)
{
	char adv[AUDIT_ADVICE_LEN], obj[AUDITREC_OBJ_LEN * 4];
	char advs[sizeof(adv) * 4], comm[sizeof(d->comm) * 4], who[200];

	audit_advice(a, d, adv, sizeof(adv));
	if (d->pid >= 0)
		snprintf(who, sizeof(who), " (%s, pid %ld)",
		    sink_shown(d->comm, comm, sizeof(comm)), d->pid);
	else
		who[0] = 0;
	/* "add:" before a rule alone: a credential file is warned of,
	 * never offered (nor is anything no rule widens). */
	sink_say("cordon: Landlock refused %s on %s%s, %llu time%s; %s%s",
	    d->access, sink_shown(d->object, obj, sizeof(obj)), who,
	    (unsigned long long)d->count, d->count == 1 ? "" : "s",
	    strncmp(adv, "path ", 5) && strncmp(adv, "network ", 8) ? "" :
	    "add: ", sink_shown(adv, advs, sizeof(advs)));
}

/* The summary on cordon's stderr after a run that failed. */
void audit_say(const struct audit *a)
{
	unsigned int i;
	const char *name;

	for (i = 0; a->by && i < a->n && i < DENIALS_SAY; i++)
		say_one(a, &a->d[i]);
	if (a->by && (a->n > DENIALS_SAY || a->dropped))
		sink_say("cordon: and %u more Landlock denials (see the "
		    "status report)", a->n > DENIALS_SAY ? a->n - DENIALS_SAY :
		    0);
	if (a->seccomp_nr >= 0) {
		name = sysdecode_name((uint32_t)a->seccomp_nr);
		sink_say("cordon: the seccomp filter killed the run at system "
		    "call %ld (%s), as the kernel's audit record says",
		    a->seccomp_nr, name ? name : "unknown");
	}
}
