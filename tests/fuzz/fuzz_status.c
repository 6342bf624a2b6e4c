/*
 * fuzz_status.c - launcher/status.c, the status report: one JSON text
 * on one line, whatever the run named (paths, comms, hosts, requests,
 * calls, reasons: every byte of them is the snippet's choice).
 *
 * Input: a cursor of bytes filling a struct report: counts (each within
 * its array's bound), numbers, flags, enum values (in range), and
 * strings (a length byte, then that many bytes, cut at the field's size
 * and at a NUL) for every string the report carries: the reason, the
 * workdir and why it was kept, the bounds' reasons, each refused
 * request's destination, method and path, each seccomp denial's name,
 * call, action and rule and the reason when none were seen, each
 * Landlock denial's access, path (or destination), comm, and the
 * audit's reason.
 *
 * Properties: status_write, into a memfd, writes one line that is one
 * JSON text (RFC 8259, checked by a strict parser here: no trailing
 * bytes, nesting bounded) in well-formed UTF-8; every Landlock denial's
 * path or dest and comm, every seccomp denial's syscall, call, action
 * and rule and every refused request's method and path come back, in
 * order, once \udc80..\udcff are decoded as the bytes 0x80..0xff
 * (cordon(1), STATUS).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "../../launcher/cordon.h"
#include "../../launcher/kaudit.h"

/* Nesting the status never exceeds (layers, bounds: 3); the parser
 * refuses deeper. */
#define CHECK_DEPTH 8
/* Decoded strings kept for the comparison: more than the report holds
 * (AUDIT_DENIALS_MAX * 4 + DENIALS_MAX * 5 + EGRESS_REFUSED_MAX * 4
 * and the fixed keys). */
#define CHECK_STRINGS 1024
/* The status's largest size (status.c's buffer is about 1.2 MiB). */
#define CHECK_OUT_MAX (4u << 20)

struct cur {
	const uint8_t *p;
	size_t left;
};

static unsigned int byte(struct cur *c)
{
	if (!c->left)
		return 0;
	c->left--;
	return *c->p++;
}

static uint64_t num64(struct cur *c)
{
	uint64_t v = 0;
	unsigned int i, n = byte(c) & 7;

	/* mostly small, sometimes UINT64_MAX (null) or large */
	if (n == 7)
		return UINT64_MAX;
	for (i = 0; i < n + 1; i++)
		v = v << 8 | byte(c);
	return v;
}

/* A string into dst (cap bytes): a length byte (times 4 past 0xc0, for
 * the long fields), then the bytes, cut at cap - 1 and at a NUL. */
static void text(struct cur *c, char *dst, size_t cap)
{
	size_t n = byte(c), i;

	if (n >= 0xc0)
		n = (n - 0xc0 + 1) * 64;
	if (n > cap - 1)
		n = cap - 1;
	for (i = 0; i < n && c->left; i++)
		dst[i] = (char)byte(c);
	dst[i] = '\0';
}

struct world {
	struct report r;
	struct denials d;
	struct audit a;
	char why_d[240];
	uint8_t digest[32];
};

static void fill_net(struct cur *c, struct egress_shared *n)
{
	uint32_t i;

	n->conns = (uint32_t)num64(c);
	n->bytes = num64(c);
	n->dns_queries = byte(c);
	n->refused = byte(c) % (EGRESS_REFUSED_MAX + 4);
	for (i = 0; i < EGRESS_REFUSED_MAX && i < n->refused; i++) {
		n->r[i].ready = (uint8_t)(byte(c) & 1);
		n->r[i].why = (uint8_t)byte(c);
		text(c, n->r[i].dest, sizeof(n->r[i].dest));
		text(c, n->r[i].method, sizeof(n->r[i].method));
		text(c, n->r[i].path, sizeof(n->r[i].path));
	}
}

static void fill_denials(struct cur *c, struct world *w)
{
	unsigned int i, flags = byte(c);

	w->d.observed = flags & 1;
	w->d.traps = flags >> 1 & 1;
	w->d.rate_limited = flags >> 2 & 1;
	text(c, w->why_d, sizeof(w->why_d));
	w->d.why = w->why_d;
	w->d.dropped = num64(c);
	w->d.n = byte(c) % (DENIALS_MAX + 1);
	for (i = 0; i < w->d.n; i++) {
		struct denial *e = &w->d.d[i];

		e->count = num64(c);
		e->expected = (int)(byte(c) & 1);
		text(c, e->name, sizeof(e->name));
		text(c, e->call, sizeof(e->call));
		text(c, e->action, sizeof(e->action));
		text(c, e->rule, sizeof(e->rule));
	}
	w->r.denials = flags & 8 ? &w->d : NULL;
}

static void fill_audit(struct cur *c, struct world *w)
{
	static const char *const by[] = { NULL, "audit", "watch" };
	unsigned int i, flags = byte(c);

	w->a.landlock = flags & 1;
	w->a.watch = flags >> 1 & 1;
	w->a.by = by[(flags >> 2 & 3) % 3];
	w->a.named = flags >> 4 & 1;
	w->a.private_tmp = flags >> 5 & 1;
	w->a.private_shm = flags >> 6 & 1;
	w->a.lost = byte(c) & 1;
	w->a.incomplete = byte(c) & 1;
	text(c, w->a.why, sizeof(w->a.why));
	w->a.dropped = num64(c);
	w->a.n = byte(c) % (AUDIT_DENIALS_MAX + 1);
	for (i = 0; i < w->a.n; i++) {
		struct audit_denial *e = &w->a.d[i];

		e->net = (int)(byte(c) & 1);
		e->pid = byte(c) & 1 ? -1 : (long)(num64(c) >> 1);
		e->count = num64(c);
		text(c, e->access, sizeof(e->access));
		text(c, e->object, sizeof(e->object));
		text(c, e->comm, sizeof(e->comm));
	}
	w->r.audit = flags & 0x80 ? NULL : &w->a;
}

static void fill_report(struct cur *c, struct world *w)
{
	struct report *r = &w->r;
	unsigned int i, flags = byte(c);

	r->policy = flags & 1 ? "/p.cpol" : NULL;
	r->digest = flags & 2 ? w->digest : NULL;
	r->outcome = (enum outcome)(byte(c) % (OUT_ERROR + 1));
	r->exit_code = (int)(int8_t)byte(c);
	r->signal = (int)byte(c);
	text(c, r->reason, sizeof(r->reason));
	r->stdout_bytes = num64(c);
	r->stderr_bytes = num64(c);
	r->output_dropped = num64(c);
	r->truncated = flags >> 2 & 1;
	r->wall_ms = num64(c);
	r->max_rss_kb = num64(c);
	text(c, r->workdir, sizeof(r->workdir));
	r->kept_workdir = flags >> 3 & 1;
	text(c, r->kept_reason, sizeof(r->kept_reason));
	r->warm = flags >> 4 & 1;
	r->egress = flags >> 5 & 1;
	r->copied_back = flags >> 6 & 1;
	r->copyback.wrote = num64(c);
	r->copyback.over = num64(c);
	r->layers.seccomp = (int)(byte(c) & 1);
	r->layers.ns_flags = byte(c) & 1 ? ~0ul : 0;
	for (i = 0; i < NBOUNDS; i++) {
		r->bounds.limit[i] = num64(c);
		r->bounds.by[i] = (enum bound_by)(byte(c) % (BY_WATCH + 1));
	}
	r->bounds.memory_peak = num64(c);
	r->bounds.proxy_procs = byte(c);
	text(c, r->bounds.why[0], sizeof(r->bounds.why[0]));
	text(c, r->bounds.why[1], sizeof(r->bounds.why[1]));
	fill_net(c, &r->net);
	fill_denials(c, w);
	fill_audit(c, w);
}

/* A strict JSON reader of the status: every string value decoded into
 * arena, with its key and the key of the array holding its object. */
struct sval {
	size_t off, len;
	char key[24], ctx[24];
};
struct js {
	const unsigned char *p, *end;
	unsigned char *arena;
	size_t used;
	struct sval v[CHECK_STRINGS];
	size_t nv;
};

static void value(struct js *j, const char *key, const char *ctx,
    int depth);

static void ws(struct js *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' ||
	    *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static void expect_ch(struct js *j, unsigned char ch)
{
	ws(j);
	if (j->p == j->end || *j->p != ch)
		fuzz_fail("expected '%c', %zu bytes before the end", ch,
		    (size_t)(j->end - j->p));
	j->p++;
}

static unsigned int hex4(struct js *j)
{
	unsigned int v = 0, i, d;

	if ((size_t)(j->end - j->p) < 4)
		fuzz_fail("a \\u escape cut short");
	for (i = 0; i < 4; i++, j->p++) {
		d = *j->p;
		if (d >= '0' && d <= '9')
			d -= '0';
		else if ((d | 0x20) >= 'a' && (d | 0x20) <= 'f')
			d = (d | 0x20) - 'a' + 10;
		else
			fuzz_fail("a \\u escape with a non-hex digit");
		v = v << 4 | d;
	}
	return v;
}

static void put_cp(struct js *j, unsigned int cp)
{
	unsigned char *o = j->arena + j->used;

	if (cp < 0x80) {
		o[0] = (unsigned char)cp;
		j->used += 1;
	} else if (cp < 0x800) {
		o[0] = (unsigned char)(0xc0 | cp >> 6);
		o[1] = (unsigned char)(0x80 | (cp & 0x3f));
		j->used += 2;
	} else if (cp < 0x10000) {
		o[0] = (unsigned char)(0xe0 | cp >> 12);
		o[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		o[2] = (unsigned char)(0x80 | (cp & 0x3f));
		j->used += 3;
	} else {
		o[0] = (unsigned char)(0xf0 | cp >> 18);
		o[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
		o[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		o[3] = (unsigned char)(0x80 | (cp & 0x3f));
		j->used += 4;
	}
}

/* After a backslash: one escape, decoded; \udc80..\udcff is the byte. */
static void escape(struct js *j)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *at;
	unsigned int v, lo;

	if (j->p == j->end)
		fuzz_fail("a lone backslash at the end");
	if (*j->p != 'u') {
		at = *j->p ? strchr(from, *j->p) : NULL;
		if (!at)
			fuzz_fail("a bad escape \\%c", *j->p);
		j->arena[j->used++] = (unsigned char)to[at - from];
		j->p++;
		return;
	}
	j->p++;
	v = hex4(j);
	if (v >= 0xd800 && v <= 0xdbff) {
		if (j->end - j->p < 2 || j->p[0] != '\\' || j->p[1] != 'u')
			fuzz_fail("a high surrogate alone");
		j->p += 2;
		lo = hex4(j);
		if (lo < 0xdc00 || lo > 0xdfff)
			fuzz_fail("a high surrogate without its low one");
		put_cp(j, 0x10000 + ((v - 0xd800) << 10) + (lo - 0xdc00));
	} else if (v >= 0xdc80 && v <= 0xdcff) {
		j->arena[j->used++] = (unsigned char)(v & 0xff);
	} else if (v >= 0xdc00 && v <= 0xdfff) {
		fuzz_fail("a lone low surrogate \\u%04x", v);
	} else {
		put_cp(j, v);
	}
}

/* A string at j->p (its opening quote), decoded into the arena. */
static struct sval string(struct js *j)
{
	struct sval s = { .off = j->used };
	size_t k;

	expect_ch(j, '"');
	while (j->p < j->end && *j->p != '"') {
		if (*j->p < 0x20)
			fuzz_fail("a raw 0x%02x in a string", *j->p);
		if (*j->p == '\\') {
			j->p++;
			escape(j);
			continue;
		}
		if (!(k = fuzz_wellformed(j->p, (size_t)(j->end - j->p))))
			fuzz_fail("a string not in UTF-8");
		memcpy(j->arena + j->used, j->p, k);
		j->used += k;
		j->p += k;
	}
	if (j->p == j->end)
		fuzz_fail("a string without its closing quote");
	j->p++;
	s.len = j->used - s.off;
	return s;
}

static void digits(struct js *j)
{
	if (j->p == j->end || *j->p < '0' || *j->p > '9')
		fuzz_fail("a number without digits");
	while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
		j->p++;
}

static void number(struct js *j)
{
	if (*j->p == '-')
		j->p++;
	if (j->p < j->end && *j->p == '0')
		j->p++;
	else
		digits(j);
	if (j->p < j->end && *j->p == '.') {
		j->p++;
		digits(j);
	}
	if (j->p < j->end && (*j->p | 0x20) == 'e') {
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		digits(j);
	}
}

static void word(struct js *j, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n) != 0)
		fuzz_fail("a bad literal at %.8s", (const char *)j->p);
	j->p += n;
}

/* A ',' next (taken): 1; otherwise 0. */
static int comma(struct js *j)
{
	ws(j);
	if (j->p == j->end || *j->p != ',')
		return 0;
	j->p++;
	return 1;
}

static void object(struct js *j, const char *ctx, int depth)
{
	struct sval k;
	char key[24];

	expect_ch(j, '{');
	ws(j);
	if (j->p < j->end && *j->p == '}') {
		j->p++;
		return;
	}
	do {
		ws(j);
		k = string(j);
		snprintf(key, sizeof(key), "%.*s", (int)(k.len < 23 ? k.len :
		    23), (const char *)j->arena + k.off);
		expect_ch(j, ':');
		value(j, key, ctx, depth + 1);
		ws(j);
	} while (comma(j));
	expect_ch(j, '}');
}

static void array(struct js *j, const char *key, int depth)
{
	expect_ch(j, '[');
	ws(j);
	if (j->p < j->end && *j->p == ']') {
		j->p++;
		return;
	}
	do
		value(j, NULL, key, depth + 1);
	while (comma(j));
	expect_ch(j, ']');
}

/* A value; a string is recorded with its key and the array of its
 * object (ctx). */
static void value(struct js *j, const char *key, const char *ctx,
    int depth)
{
	struct sval s;

	if (depth > CHECK_DEPTH)
		fuzz_fail("nested deeper than %d", CHECK_DEPTH);
	ws(j);
	if (j->p == j->end)
		fuzz_fail("a value missing at the end");
	if (*j->p == '{') {
		object(j, key || !ctx ? "" : ctx, depth);
	} else if (*j->p == '[') {
		array(j, key ? key : "", depth);
	} else if (*j->p == '"') {
		s = string(j);
		if (j->nv == CHECK_STRINGS)
			fuzz_fail("more than %d strings", CHECK_STRINGS);
		snprintf(s.key, sizeof(s.key), "%s", key ? key : "");
		snprintf(s.ctx, sizeof(s.ctx), "%s", ctx ? ctx : "");
		j->v[j->nv++] = s;
	} else if (*j->p == '-' || (*j->p >= '0' && *j->p <= '9')) {
		number(j);
	} else {
		word(j, *j->p == 't' ? "true" : *j->p == 'f' ? "false" :
		    "null");
	}
}

/* The strings under key in the objects of array ctx, in order, are
 * exactly want[0..n). */
static void expect(const struct js *j, const char *ctx, const char *key,
    const char *const *want, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < j->nv; i++) {
		const struct sval *s = &j->v[i];

		if (strcmp(s->ctx, ctx) != 0 || strcmp(s->key, key) != 0)
			continue;
		if (k == n)
			fuzz_fail("%s: more \"%s\" than given", ctx, key);
		if (s->len != strlen(want[k]) || memcmp(j->arena + s->off,
		    want[k], s->len) != 0)
			fuzz_fail("%s[%zu].%s does not decode to the string "
			    "given", ctx, k, key);
		k++;
	}
	if (k != n)
		fuzz_fail("%s: %zu \"%s\" of %zu given", ctx, k, key, n);
}

/* What the report named comes back: Landlock's, the filter's and the
 * proxy's lists. */
static void expect_all(const struct js *j, const struct world *w)
{
	static const char *want[4][DENIALS_MAX + AUDIT_DENIALS_MAX];
	const struct audit *a = w->r.audit;
	const struct denials *d = w->r.denials;
	const struct egress_shared *n = &w->r.net;
	size_t c[4] = { 0 };
	unsigned int i;

	if (a && a->by && (a->landlock || a->watch)) {
		for (i = 0; i < a->n; i++) {
			want[a->d[i].net][c[a->d[i].net]++] = a->d[i].object;
			if (a->d[i].pid >= 0)
				want[2][c[2]++] = a->d[i].comm;
		}
		expect(j, "landlock_denials", "path", want[0], c[0]);
		expect(j, "landlock_denials", "dest", want[1], c[1]);
		expect(j, "landlock_denials", "comm", want[2], c[2]);
	}
	if (d && d->observed) {
		for (i = 0; i < d->n; i++) {
			want[0][i] = d->d[i].name;
			want[1][i] = d->d[i].call;
			want[2][i] = d->d[i].action;
			want[3][i] = d->d[i].rule;
		}
		expect(j, "denials", "syscall", want[0], d->n);
		expect(j, "denials", "call", want[1], d->n);
		expect(j, "denials", "action", want[2], d->n);
		expect(j, "denials", "rule", want[3], d->n);
	}
	if (!w->r.egress)
		return;
	memset(c, 0, sizeof(c));
	for (i = 0; i < n->refused && i < EGRESS_REFUSED_MAX; i++) {
		want[0][c[0]++] = n->r[i].ready ? n->r[i].dest : "?";
		if (n->r[i].ready && n->r[i].method[0]) {
			want[1][c[1]] = n->r[i].method;
			want[2][c[1]++] = n->r[i].path;
		}
	}
	expect(j, "network_refused", "dest", want[0], c[0]);
	expect(j, "network_refused", "method", want[1], c[1]);
	expect(j, "network_refused", "path", want[2], c[1]);
}

/* The status as written to a memfd: its bytes into buf; the length. */
static size_t write_status(const struct report *r, unsigned char *buf)
{
	char err[ERRLEN];
	ssize_t got;
	size_t len = 0;
	int fd = memfd_create("fuzz_status", MFD_CLOEXEC);

	if (fd < 0)
		fuzz_fail("memfd_create failed");
	if (status_write(r, fd, NULL, err, sizeof(err)) != 0)
		fuzz_fail("status_write: %s", err);
	if (lseek(fd, 0, SEEK_SET) != 0)
		fuzz_fail("lseek failed");
	while ((got = read(fd, buf + len, CHECK_OUT_MAX - len)) > 0)
		len += (size_t)got;
	if (got < 0 || len == CHECK_OUT_MAX)
		fuzz_fail("reading the status back failed");
	close(fd);
	return len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct world w;
	static struct js j;
	static unsigned char out[CHECK_OUT_MAX], arena[CHECK_OUT_MAX];
	struct cur c = { data, size };
	size_t len;

	memset(&w, 0, sizeof(w));
	memset(w.digest, 0xa5, sizeof(w.digest));
	fill_report(&c, &w);
	len = write_status(&w.r, out);
	if (len == 0 || out[len - 1] != '\n' || memchr(out, '\n', len - 1))
		fuzz_fail("the status is not one line");
	j.p = out;
	j.end = out + len;
	j.arena = arena;
	j.used = 0;
	j.nv = 0;
	if (out[0] != '{')
		fuzz_fail("the status is not an object");
	value(&j, NULL, NULL, 0);
	ws(&j);
	if (j.p != j.end)
		fuzz_fail("%zu bytes after the JSON text",
		    (size_t)(j.end - j.p));
	expect_all(&j, &w);
	return 0;
}
