/*
 * status.c - the status report: one JSON object on one line, keys in the
 * order HACKING.md gives, written to a descriptor or to a file (sink_file:
 * a regular file replaced by rename, a device or FIFO in place).
 */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kaudit.h"
#include "cordon.h"
#include "jsonesc.h"

/* The outcome names: the one table of them (cordon.1 describes each). */
static const char *const outcomes[] = {
	[OUT_EXITED] = "exited", [OUT_SIGNALED] = "signaled",
	[OUT_TIMEOUT] = "timeout", [OUT_SECCOMP] = "seccomp",
	[OUT_CPU] = "cpu_limit", [OUT_OOM] = "oom",
	[OUT_OUTPUT] = "output_limit", [OUT_INTERRUPTED] = "interrupted",
	[OUT_DISK] = "disk_limit", [OUT_ERROR] = "error",
};

static const char *const bound_by[] = {
	[BY_NONE] = "none", [BY_CGROUP1] = "cgroup-v1",
	[BY_CGROUP2] = "cgroup-v2", [BY_RLIMIT] = "rlimit",
	[BY_RLIMIT_PROC] = "rlimit-per-process",
	[BY_TMPFS] = "tmpfs", [BY_WATCH] = "watch",
};

const char *status_bound_by(enum bound_by by)
{
	return bound_by[by];
}

/* The report's fixed part and short strings fit in 8 KiB; the strings a
 * run or its caller chose are counted at their worst, every byte
 * escaped (JSON_ESCAPE_MAX): the workdir and kept_reason, each refused
 * request's destination and path; each of DENIALS_MAX entries takes at
 * most about 420 bytes (escaping included), each of AUDIT_DENIALS_MAX
 * Landlock ones under 8 KiB (its path and its advice).  A cut would
 * leave the line that is no longer JSON: the sum holds them all. */
#define REPORT_WORKDIR sizeof(((struct report *)0)->workdir)
#define STATUS_RUN_STRINGS (JSON_ESCAPE_MAX * (REPORT_WORKDIR + ERRLEN + \
	2 * BOUND_WHY_LEN + \
	EGRESS_REFUSED_MAX * (EGRESS_DEST_MAX + EGRESS_PATH_MAX)))
struct out {
	char buf[8192 + STATUS_RUN_STRINGS + DENIALS_MAX * 448 +
	    AUDIT_DENIALS_MAX * 8192];
	size_t len;
};

static void add(struct out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void add(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, sizeof(o->buf) - o->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
	if (o->len >= sizeof(o->buf))
		o->len = sizeof(o->buf) - 1;
}

/* Append n bytes of p, cut where the buffer ends (as add() does). */
static void put_out(void *ctx, const char *p, size_t n)
{
	struct out *o = ctx;
	size_t room = sizeof(o->buf) - 1 - o->len;

	if (n > room)
		n = room;
	memcpy(o->buf + o->len, p, n);
	o->len += n;
	o->buf[o->len] = '\0';
}

/* A JSON string, or null. */
static void str(struct out *o, const char *key, const char *s)
{
	add(o, "\"%s\":", key);
	if (!s) {
		add(o, "null,");
		return;
	}
	add(o, "\"");
	json_escape(s, put_out, o);
	add(o, "\",");
}

static const char *tf(int b)
{
	return b ? "true" : "false";
}

/* Only what was applied: layers_fill() runs once the child exists.
 * Before that (outcome "error", nothing started) the struct holds what
 * landlock_check() found the kernel could do, which is reported as the
 * ABI only. */
static void layers(struct out *o, const struct layers *given)
{
	const struct layers none = { .landlock_abi = given->landlock_abi,
	    .landlock_errata = given->landlock_errata };
	const struct layers *l = given->seccomp ? given : &none;
	static const struct { unsigned long flag; const char *name; } ns[] = {
		{ CLONE_NEWUSER, "user" }, { CLONE_NEWNET, "net" },
		{ CLONE_NEWNS, "mnt" }, { CLONE_NEWPID, "pid" },
	};
	const char *sep = "";
	size_t i;

	add(o, "\"layers\":{\"no_new_privs\":%s,\"seccomp\":%s,"
	    "\"landlock_abi\":%d,\"landlock_errata\":%d,\"landlock_fs\":%s,"
	    "\"landlock_net\":%s,\"scope_abstract_unix\":%s,"
	    "\"scope_signal\":%s,\"caps_dropped\":%s,\"rlimits\":%s,"
	    "\"env\":%s,\"fds_closed\":%s,\"new_session\":%s,"
	    "\"namespaces\":[", tf(l->no_new_privs), tf(l->seccomp),
	    l->landlock_abi, l->landlock_errata, tf(l->landlock_fs),
	    tf(l->landlock_net), tf(l->scope_abstract_unix),
	    tf(l->scope_signal), tf(l->caps_dropped), tf(l->rlimits),
	    tf(l->env), tf(l->fds_closed), tf(l->new_session));
	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		if (l->ns_flags & ns[i].flag) {
			add(o, "%s\"%s\"", sep, ns[i].name);
			sep = ",";
		}
	add(o, "],\"private_tmp\":%s,\"private_shm\":%s,"
	    "\"workdir_noexec\":%s}}\n", tf(l->private_tmp),
	    tf(l->private_shm), tf(l->workdir_noexec));
}

/* A count, or null when cordon could not read it. */
static void num(struct out *o, const char *key, uint64_t v)
{
	if (v == UINT64_MAX)
		add(o, "\"%s\":null,", key);
	else
		add(o, "\"%s\":%llu,", key, (unsigned long long)v);
}

/* "copyback": what came back into the caller's folder (bytes of data
 * written, entries created, skipped for their kind, left out past the
 * bounds), or null when nothing was copied back. */
static void copyback(struct out *o, const struct report *r)
{
	const struct runfs_budget *b = &r->copyback;

	if (!r->copied_back) {
		add(o, "\"copyback\":null,");
		return;
	}
	add(o, "\"copyback\":{\"bytes\":%llu,\"entries\":%llu,"
	    "\"skipped\":%llu,\"over_bound\":%llu,\"truncated\":%s},",
	    (unsigned long long)b->wrote, (unsigned long long)b->made,
	    (unsigned long long)b->skipped, (unsigned long long)b->over,
	    tf(b->over > 0));
}

/* Named hosts: what the proxy carried ("egress", null without named
 * hosts) and what it refused, in order, at most EGRESS_REFUSED_MAX
 * listed and the rest counted. */
static void egress(struct out *o, const struct report *r)
{
	const struct egress_shared *n = &r->net;
	uint32_t i, listed = n->refused;

	if (listed > EGRESS_REFUSED_MAX)
		listed = EGRESS_REFUSED_MAX;
	if (!r->egress) {
		add(o, "\"egress\":null,\"network_refused\":[],"
		    "\"network_refused_dropped\":0,");
		return;
	}
	add(o, "\"egress\":{\"proxy\":\"127.0.0.1:%u\",\"connections\":%u,"
	    "\"bytes\":%llu,\"dns_queries\":%u},\"network_refused\":[",
	    CPOL_PROXY_PORT, n->conns, (unsigned long long)n->bytes,
	    n->dns_queries);
	for (i = 0; i < listed; i++) {
		add(o, "%s{", i ? "," : "");
		str(o, "dest", n->r[i].ready ? n->r[i].dest : "?");
		if (n->r[i].ready && n->r[i].method[0]) {
			/* an HTTP request the proxy read: what it asked */
			str(o, "method", n->r[i].method);
			str(o, "path", n->r[i].path);
		}
		add(o, "\"why\":\"%s\"}", egress_why_name(n->r[i].why));
	}
	add(o, "],\"network_refused_dropped\":%u,", n->refused - listed);
}

/* "bounds": each whole-run limit, what held it, and what the run used;
 * "reason": for memory and pids why no controller held it, for disk and
 * files what a watch holds, or null. */
static void bounds(struct out *o, const struct bounds *b)
{
	static const char *const names[NBOUNDS] = {
		"memory", "pids", "disk", "files",
	};
	static const uint64_t none = UINT64_MAX;
	const uint64_t *used[NBOUNDS] = {
		&b->memory_peak, &none, &b->disk_used, &b->files_used,
	};
	int i;

	add(o, "\"bounds\":{");
	for (i = 0; i < NBOUNDS; i++) {
		add(o, "\"%s\":{", names[i]);
		num(o, "limit", b->limit[i]);
		if (i == B_PIDS) {
			num(o, "refused", b->pids_refused);
			num(o, "proxy", b->proxy_procs ? b->proxy_procs :
			    UINT64_MAX);
		}
		else
			num(o, i == B_MEMORY ? "peak" : "used", *used[i]);
		if (i <= B_PIDS)
			str(o, "reason", b->why[i][0] ? b->why[i] : NULL);
		else
			str(o, "reason", b->by[i] == BY_WATCH ?
			    RUNFS_WATCH_WHY : NULL);
		add(o, "\"by\":\"%s\"}%s", bound_by[b->by[i]],
		    i + 1 < NBOUNDS ? "," : "},");
	}
}

/* "denials": what the filter refused, or null when cordon could not see
 * it; "denials_unobserved": what kinds of refusal it cannot see. */
static void denials(struct out *o, const struct denials *d,
    const struct audit *a)
{
	char why[512];
	unsigned int i;
	const char *sep = "";

	if (!d || !d->observed) {
		add(o, "\"denials\":null,\"denials_dropped\":null,"
		    "\"denials_rate_limited\":null,");
	} else {
		add(o, "\"denials\":[");
		for (i = 0; i < d->n; i++) {
			add(o, "%s{", i ? "," : "");
			str(o, "syscall", d->d[i].name);
			str(o, "call", d->d[i].call);
			str(o, "action", d->d[i].action);
			str(o, "rule", d->d[i].rule);
			add(o, "\"expected\":%s,\"count\":%llu}",
			    tf(d->d[i].expected),
			    (unsigned long long)d->d[i].count);
		}
		add(o, "],\"denials_dropped\":%llu,\"denials_rate_limited\":%s,",
		    (unsigned long long)d->dropped, tf(d->rate_limited));
	}
	add(o, "\"denials_unobserved\":[");
	if (!d || !d->observed) {
		add(o, "\"seccomp\"");
		sep = ",";
	} else if (d->traps) {
		add(o, "\"seccomp-trap\"");
		sep = ",";
	}
	if (!a || !a->by || !a->landlock)
		add(o, "%s\"landlock\"", sep);
	add(o, "],");
	if (d && !d->observed && a && !a->by) {
		snprintf(why, sizeof(why), "%s; a kill's call is not named "
		    "either: %s", d->why, a->why);
		str(o, "denials_reason", why);
		return;
	}
	str(o, "denials_reason", !d ? "the snippet did not run" :
	    !d->observed ? d->why : NULL);
}

/* "landlock_denials": what Landlock refused the run, from the kernel's
 * audit records (audit.c), or null with landlock_denials_reason. */
static void landlock_denials(struct out *o, const struct audit *a)
{
	char adv[AUDIT_ADVICE_LEN];
	unsigned int i;

	if (!a || !a->by || (!a->landlock && !a->watch)) {
		add(o, "\"landlock_denials\":null,"
		    "\"landlock_denials_dropped\":null,"
		    "\"landlock_denials_by\":null,");
		snprintf(adv, sizeof(adv), "%s%s", a ? a->why : "",
		    a && a->why[0] && strcmp(a->why, "Landlock was not "
		    "applied") != 0 && !strstr(a->why, "--landlock-watch") ?
		    "; cordon --landlock-watch names them from the policy's "
		    "rules" : "");
		str(o, "landlock_denials_reason", !a ?
		    "the snippet did not run" : adv);
		return;
	}
	add(o, "\"landlock_denials\":[");
	for (i = 0; i < a->n; i++) {
		add(o, "%s{", i ? "," : "");
		str(o, "access", a->d[i].access);
		str(o, a->d[i].net ? "dest" : "path", a->d[i].object);
		if (a->d[i].pid >= 0)
			add(o, "\"pid\":%ld,", a->d[i].pid);
		else
			add(o, "\"pid\":null,");
		str(o, "comm", a->d[i].pid >= 0 ? a->d[i].comm : NULL);
		str(o, "add", audit_advice(a, &a->d[i], adv, sizeof(adv)));
		add(o, "\"count\":%llu}", (unsigned long long)a->d[i].count);
	}
	add(o, "],\"landlock_denials_dropped\":%llu,", (unsigned long long)
	    a->dropped);
	str(o, "landlock_denials_by", a->by);
	str(o, "landlock_denials_reason", a->watch ? NULL :
	    a->incomplete ? "the audit "
	    "records may be incomplete: cordon's end mark did not come "
	    "back, or more records came than cordon reads" : a->lost ?
	    "audit records were lost during the run (cordon's socket "
	    "overflowed, or the kernel's backlog was full): the list may "
	    "be incomplete" : NULL);
}

static void render(struct out *o, const struct report *r)
{
	char hex[65];
	int i;

	for (i = 0; r->digest && i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", r->digest[i]);
	add(o, "{\"cordon\":1,");
	str(o, "policy", r->policy);
	str(o, "blob", r->digest ? hex : NULL);
	str(o, "outcome", outcomes[r->outcome]);
	if (r->warm)          /* cordon --serve: a warm pool's run */
		add(o, "\"warm\":true,");
	add(o, "\"exit_code\":%d,\"signal\":%d,", r->exit_code, r->signal);
	str(o, "reason", r->reason);
	add(o, "\"stdout_bytes\":%llu,\"stderr_bytes\":%llu,"
	    "\"output_truncated\":%s,\"output_dropped\":%llu,"
	    "\"wall_ms\":%llu,\"user_ms\":%llu,"
	    "\"sys_ms\":%llu,\"max_rss_kb\":%llu,",
	    (unsigned long long)r->stdout_bytes,
	    (unsigned long long)r->stderr_bytes, tf(r->truncated),
	    (unsigned long long)r->output_dropped,
	    (unsigned long long)r->wall_ms, (unsigned long long)r->user_ms,
	    (unsigned long long)r->sys_ms, (unsigned long long)r->max_rss_kb);
	str(o, "workdir", r->workdir[0] ? r->workdir : NULL);
	add(o, "\"kept_workdir\":%s,", tf(r->kept_workdir));
	str(o, "kept_reason", r->kept_workdir ? r->kept_reason : NULL);
	copyback(o, r);
	egress(o, r);
	bounds(o, &r->bounds);
	denials(o, r->denials, r->audit);
	landlock_denials(o, r->audit);
	layers(o, &r->layers);
}

int status_write(const struct report *r, int fd, const char *file,
    char *err, size_t errlen)
{
	/* Static: only the pages written are touched (each first touch is
	 * a page fault). */
	static struct out o;

	o.len = 0;
	render(&o, r);
	/* Never blocks for long: the caller has STATUS_WAIT_MS to take it. */
	if (fd >= 0) {
		struct sink s;
		int rc;

		sink_open(fd, &s);
		rc = sink_write_all(&s, o.buf, o.len, clock_now_ms() +
		    STATUS_WAIT_MS);
		sink_close(&s);
		if (rc < 0) {
			snprintf(err, errlen, "--status-fd %d: %s", fd,
			    errno == ETIMEDOUT ? "the caller did not read "
			    "the status in time" : strerror(errno));
			return -1;
		}
	}
	if (!file)
		return 0;
	return sink_file(file, o.buf, o.len, clock_now_ms() +
	    STATUS_WAIT_MS, err, errlen);
}
