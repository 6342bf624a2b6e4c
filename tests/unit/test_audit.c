/*
 * test_audit.c - the audit engines on hand-built struct cpol values:
 * Landlock coverage (pathq), lint rules that need no source, diff of
 * paths, network, named hosts, limits and environment, and of every
 * blob section and layer flag (a new one fails here until diff compares
 * it), JSON escaping.  Syscall
 * semantics go through real BPF and are covered by tests/test_audit.py.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "diff.h"
#include "input.h"
#include "jsonout.h"
#include "landlock_compat.h"
#include "lint.h"
#include "pathq.h"

#define RX (CORDON_LL_FS_READ_FILE | CORDON_LL_FS_READ_DIR | \
	CORDON_LL_FS_EXECUTE)
#define RW (CORDON_LL_FS_READ_FILE | CORDON_LL_FS_READ_DIR | \
	CORDON_LL_FS_WRITE_FILE | CORDON_LL_FS_MAKE_REG)

static struct cpol_fs fs_a[] = {
	{ RX, 0, "/usr" }, { RW, 0, "$WORKDIR" },
	{ CORDON_LL_FS_READ_FILE, 0, "/etc/localtime" },
};
static struct cpol_limit lim_a[] = { { CPOL_RLIM_AS, 1u << 30 },
	{ CPOL_RLIM_FSIZE, 1u << 24 }, { CPOL_RLIM_NPROC, 16 },
	{ CPOL_RLIM_MEMORY, 1u << 30 }, { CPOL_RLIM_PIDS, 16 },
	{ CPOL_RLIM_DISK, 1u << 26 }, { CPOL_RLIM_FILES, 1000 } };
static struct cpol_env env_a[] = { { CPOL_ENV_KEEP, "LANG", "" } };
static char *argv_a[] = { "/usr/bin/python3", "$SNIPPET" };

static void policy(struct cpol *p)
{
	memset(p, 0, sizeof(*p));
	p->name = "t";
	p->description = "";
	p->compiler_version = "test";
	p->landlock_abi_min = 6;
	p->flags = CPOL_F_NET_OFF | CPOL_F_REQUIRE_MEMORY;
	p->fs = fs_a;
	p->nfs = 3;
	p->limits = lim_a;
	p->nlimits = 7;
	p->env = env_a;
	p->nenv = 1;
	p->argv = argv_a;
	p->nargv = 2;
	p->timeout_ms = 10000;
	p->output_cap = 65536;
	p->default_action = 0x00050026u;   /* errno(ENOSYS) */
}

static void test_covers(void **state)
{
	(void)state;
	assert_true(pathq_covers("/usr", "/usr"));
	assert_true(pathq_covers("/usr", "/usr/lib/x"));
	assert_false(pathq_covers("/usr", "/usrlocal"));
	assert_true(pathq_covers("/", "/etc"));
	assert_false(pathq_covers("/", "$WORKDIR/x"));
	assert_true(pathq_covers("$WORKDIR", "$WORKDIR/out"));
	assert_false(pathq_covers("$WORKDIR", "$WORKDIRX"));
	assert_true(pathq_covers("/usr/", "/usr/lib"));
}

static void test_rights(void **state)
{
	struct cpol p;
	uint64_t need, deny;
	char buf[128];

	(void)state;
	policy(&p);
	assert_int_equal(pathq_rights(&p, "/usr/lib/python3"), RX);
	assert_int_equal(pathq_rights(&p, "/etc/passwd"), 0);
	assert_int_equal(pathq_rights(&p, "$WORKDIR/a/b"), RW);
	assert_int_equal(pathq_right("read", &need, &deny), 0);
	assert_int_equal(need, CORDON_LL_FS_READ_FILE);
	assert_true(deny & CORDON_LL_FS_READ_DIR);
	assert_int_equal(pathq_right("write", &need, &deny), 0);
	assert_true(deny & CORDON_LL_FS_MAKE_REG);
	assert_int_equal(pathq_right("bogus", &need, &deny), -1);
	pathq_format(RX, buf, sizeof(buf));
	assert_string_equal(buf, "execute,read-file,read-dir");
	pathq_format(0, buf, sizeof(buf));
	assert_string_equal(buf, "none");
	assert_string_equal(pathq_sensitive("/"), "/");
	assert_string_equal(pathq_sensitive("/etc"), "/etc");
	assert_string_equal(pathq_sensitive("/home/u/.ssh"), ".ssh");
	assert_null(pathq_sensitive("/etc/ssl"));
	assert_null(pathq_sensitive("/usr"));
}

static unsigned int count_id(const struct finding_list *l, const char *id)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < l->n; i++)
		n += strcmp(l->v[i].id, id) == 0 && !l->v[i].suppressed;
	return n;
}

static void test_lint_blob_like(void **state)
{
	struct cpol_fs bad_fs[] = { { RX, 0, "/usr" },
		{ RW | CORDON_LL_FS_EXECUTE, 0, "/opt/x" },
		{ CORDON_LL_FS_READ_DIR, 0, "/proc" } };
	struct cpol_env bad_env[] = { { CPOL_ENV_SET, "GH_TOKEN", "x" } };
	struct cpol_net ports[] = { { CPOL_NET_BIND, 8080 } };
	struct finding_list l = { 0 };
	struct input in;

	(void)state;
	memset(&in, 0, sizeof(in));
	in.path = "blob.cpol";
	policy(&in.pol);
	assert_int_equal(lint_run(&in, &l), 0);
	assert_int_equal(l.n, 0);
	finding_list_free(&l);

	in.pol.fs = bad_fs;
	in.pol.nfs = 3;
	in.pol.env = bad_env;
	in.pol.flags = CPOL_F_NET_TCP | CPOL_F_BEST_EFFORT_LANDLOCK;
	in.pol.net = ports;
	in.pol.nnet = 1;
	in.pol.nlimits = 1;
	in.pol.landlock_abi_min = 4;
	in.pol.default_action = 0x7fff0000u;
	assert_int_equal(lint_run(&in, &l), 0);
	assert_int_equal(count_id(&l, "CL003"), 1);
	assert_int_equal(count_id(&l, "CL004"), 1);
	assert_int_equal(count_id(&l, "CL005"), 1);
	assert_int_equal(count_id(&l, "CL006"), 1);
	assert_int_equal(count_id(&l, "CL007"), 1);
	assert_int_equal(count_id(&l, "CL008"), 1);
	assert_int_equal(count_id(&l, "CL010"), 1);
	assert_int_equal(count_id(&l, "CL011"), 1);
	assert_int_equal(count_id(&l, "CL012"), 1);
	assert_int_equal(count_id(&l, "CL013"), 1);
	for (unsigned int i = 0; i < l.n; i++)
		assert_string_equal(l.v[i].file, "blob.cpol");
	finding_list_free(&l);
}

static const struct diff_change *find(const struct diff_list *l,
    const char *kind, const char *subject)
{
	for (unsigned int i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].kind, kind) &&
		    !strcmp(l->v[i].subject, subject))
			return &l->v[i];
	return NULL;
}

static void test_diff_fields(void **state)
{
	struct cpol_fs fs_b[] = { { RX, 0, "/usr" },
		{ RW | CORDON_LL_FS_REMOVE_FILE, 0, "$WORKDIR" },
		{ CORDON_LL_FS_READ_FILE, 0, "/etc/ssl" } };
	struct cpol_limit lim_b[] = { { CPOL_RLIM_AS, 1u << 31 },
		{ CPOL_RLIM_NPROC, 8 } };
	struct cpol_env env_b[] = { { CPOL_ENV_KEEP, "LANG", "" },
		{ CPOL_ENV_KEEP, "TZ", "" } };
	struct cpol_net net_b[] = { { CPOL_NET_CONNECT, 443 } };
	struct diff_list l = { 0 };
	const struct diff_change *c;
	struct cpol a, b;

	(void)state;
	policy(&a);
	policy(&b);
	b.fs = fs_b;
	b.limits = lim_b;
	b.nlimits = 2;
	b.env = env_b;
	b.nenv = 2;
	b.net = net_b;
	b.nnet = 1;
	b.flags = CPOL_F_NET_TCP;
	assert_int_equal(diff_run(&a, &b, &l), 0);
	assert_non_null(c = find(&l, "path", "$WORKDIR"));
	assert_int_equal(c->dir, DIFF_WIDER);
	assert_string_equal(c->detail, "remove-file added");
	assert_non_null(c = find(&l, "path", "/etc/ssl"));
	assert_int_equal(c->dir, DIFF_WIDER);
	assert_non_null(c = find(&l, "path", "/etc/localtime"));
	assert_int_equal(c->dir, DIFF_NARROWER);
	assert_int_equal(find(&l, "limit", "as")->dir, DIFF_WIDER);
	assert_int_equal(find(&l, "limit", "nproc")->dir, DIFF_NARROWER);
	assert_int_equal(find(&l, "limit", "fsize")->dir, DIFF_WIDER);
	assert_int_equal(find(&l, "env", "TZ")->dir, DIFF_WIDER);
	assert_int_equal(find(&l, "network", "mode")->dir, DIFF_WIDER);
	assert_int_equal(find(&l, "network", "443")->dir, DIFF_WIDER);
	assert_null(find(&l, "command", "command"));
	diff_list_free(&l);

	assert_int_equal(diff_run(&b, &a, &l), 0);
	assert_int_equal(find(&l, "network", "mode")->dir, DIFF_NARROWER);
	assert_int_equal(find(&l, "env", "TZ")->dir, DIFF_NARROWER);
	diff_list_free(&l);
}

/* Every blob section has a comparer, every layer flag a meaning: a new
 * CPOL_S_* or CPOL_F_* fails here until diff compares it. */
static void test_diff_every_section_and_flag(void **state)
{
	(void)state;
	for (unsigned int t = 1; t <= CPOL_S_MAX; t++) {
		const struct diff_section *d;

		if (!(d = diff_section(t))) {
			fail_msg("blob section %u has no diff comparer", t);
			return;
		}
		assert_int_equal(d->type, t);
		assert_non_null(d->compare);
	}
	assert_null(diff_section(0));
	assert_null(diff_section(CPOL_S_MAX + 1));
	for (uint32_t bit = 1; bit; bit <<= 1) {
		const struct diff_flag *f = diff_flag(bit);

		if ((CPOL_F_ALL & bit) && !f)
			fail_msg("layer flag 0x%x has no diff meaning", bit);
		if (!(CPOL_F_ALL & bit))
			assert_null(f);
	}
}

/* A seccomp program of one instruction: return k. */
static struct cpol_insn ret_errno[] = { { 0x06, 0, 0, 0x00050026u } };
static struct cpol_insn ret_allow[] = { { 0x06, 0, 0, 0x7fff0000u } };
static struct cpol_host host_a[] = { { "api.example.org", 443, 0 } };
static char *preload_a[] = { "json", NULL };

/* b = a with section t changed (and nothing else). */
static void mutate(struct cpol *b, unsigned int t)
{
	static struct cpol_fs fs_m[] = { { RX, 0, "/usr" },
		{ RW, 0, "$WORKDIR" }, { RX, 0, "/etc/localtime" } };
	static struct cpol_net net_m[] = { { CPOL_NET_CONNECT, 443 } };
	static struct cpol_limit lim_m[7];
	static struct cpol_env env_m[] = { { CPOL_ENV_SET, "LANG", "C" } };
	static char *argv_m[] = { "/usr/bin/python3", "-c" };
	static struct cpol_host host_m[] = { { "api.example.org", 443, 0 },
		{ "*.example.net", 443, 0 } };
	static char *preload_m[] = { "json", "csv", NULL };
	/* the same rule, with the word (what the comparer sees; a reader
	 * takes it only on a special literal) */
	static struct cpol_host host_p[] = { { "api.example.org", 443,
		CPOL_HOST_PRIVATE } };
	static struct cpol_http http_m[] = { { "api.example.org", 443, 0,
		"TOKEN", "Authorization: Bearer {}", NULL, 0 } };

	switch (t) {
	case CPOL_S_META: b->description = "other"; break;
	case CPOL_S_LAYERS: b->landlock_abi_min = 5; break;
	case CPOL_S_SECCOMP: b->insns = ret_allow; break;
	case CPOL_S_FS: b->fs = fs_m; break;
	case CPOL_S_NET: b->net = net_m; b->nnet = 1; break;
	case CPOL_S_LIMITS:
		memcpy(lim_m, lim_a, sizeof(lim_m));
		lim_m[2].value = 32;   /* nproc */
		b->limits = lim_m;
		break;
	case CPOL_S_ENV: b->env = env_m; break;
	case CPOL_S_ARGV: b->argv = argv_m; break;
	case CPOL_S_RULES: b->default_action = 0x00050001u; break;
	case CPOL_S_HOSTS: b->hosts = host_m; b->nhosts = 2; break;
	case CPOL_S_PRELOAD: b->preload = preload_m; b->npreload = 2; break;
	case CPOL_S_HTTP: b->http = http_m; b->nhttp = 1; break;
	case CPOL_S_PRIVATE: b->hosts = host_p; break;
	case CPOL_S_SESSION: b->session_ms = 3600000; break;
	default: fail_msg("no change written for blob section %u", t);
	}
}

/* Two policies that differ in one section only: diff says so. */
static void test_diff_each_section_changed(void **state)
{
	(void)state;
	for (unsigned int t = 1; t <= CPOL_S_MAX; t++) {
		struct diff_list l = { 0 };
		struct cpol a, b;

		policy(&a);
		a.flags = CPOL_F_NET_TCP | CPOL_F_NET_HOSTS;
		a.insns = ret_errno;
		a.ninsns = 1;
		a.hosts = host_a;
		a.nhosts = 1;
		a.preload = preload_a;
		a.npreload = 1;
		b = a;
		mutate(&b, t);
		assert_int_equal(diff_run(&a, &a, &l), 0);
		assert_int_equal(l.n, 0);
		assert_int_equal(diff_run(&a, &b, &l), 0);
		if (l.n == 0)
			fail_msg("a change to blob section %u is not seen", t);
		diff_list_free(&l);
	}
}

/* Each layer flag, toggled alone, is a change diff reports. */
static void test_diff_each_flag_changed(void **state)
{
	(void)state;
	for (uint32_t bit = 1; bit & CPOL_F_ALL; bit <<= 1) {
		struct diff_list l = { 0 };
		struct cpol a, b;

		policy(&a);
		a.flags = CPOL_F_NET_TCP | CPOL_F_NET_HOSTS;
		a.hosts = host_a;
		a.nhosts = 1;
		b = a;
		b.flags ^= bit;
		assert_int_equal(diff_run(&a, &b, &l), 0);
		if (l.n == 0)
			fail_msg("layer flag 0x%x toggled is not seen", bit);
		diff_list_free(&l);
	}
}

/* Hosts by what they reach: each kind of host rule, added, is wider;
 * a name below an allowed wildcard is not; a new port on an allowed
 * host is. */
static void test_diff_hosts(void **state)
{
	static const struct {
		const char *host;
		unsigned int port;
		int dir;
	} cases[] = {
		{ "evil.example.org", 443, DIFF_WIDER },      /* NAME */
		{ "*.amazonaws.com", 443, DIFF_WIDER },       /* WILDCARD */
		{ "192.0.2.1", 443, DIFF_WIDER },             /* IPV4 */
		{ "2001:db8::1", 443, DIFF_WIDER },           /* IPV6 */
		{ "a.example.net", 443, DIFF_CHANGED },       /* covered */
		{ "*.b.example.net", 443, DIFF_CHANGED },     /* covered */
		{ "*.example.net", 8443, DIFF_WIDER },        /* new port */
		{ "*.net", 443, DIFF_WIDER },                 /* over it */
	};
	struct cpol_host old_h[] = { { "*.example.net", 443, 0 } };
	unsigned int seen[CPOL_HOST_IPV6 + 1] = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cpol_host new_h[] = { { "*.example.net", 443, 0 },
			{ (char *)cases[i].host, (uint16_t)cases[i].port, 0 } };
		struct diff_list l = { 0 };
		const struct diff_change *c;
		char subject[300];
		struct cpol a, b;

		seen[cpol_host_kind(cases[i].host)]++;
		policy(&a);
		a.flags = CPOL_F_NET_TCP | CPOL_F_NET_HOSTS;
		a.hosts = old_h;
		a.nhosts = 1;
		b = a;
		b.hosts = new_h;
		b.nhosts = 2;
		assert_int_equal(diff_run(&a, &b, &l), 0);
		snprintf(subject, sizeof(subject), strchr(cases[i].host, ':') ?
		    "[%s]:%u" : "%s:%u", cases[i].host, cases[i].port);
		if (!(c = find(&l, "host", subject))) {
			fail_msg("host %s not reported", subject);
			return;
		}
		assert_int_equal(c->dir, cases[i].dir);
		assert_int_equal(l.n, 1);
		diff_list_free(&l);
		assert_int_equal(diff_run(&b, &a, &l), 0);
		assert_non_null(c = find(&l, "host", subject));
		assert_int_equal(c->dir, cases[i].dir == DIFF_WIDER ?
		    DIFF_NARROWER : DIFF_CHANGED);
		diff_list_free(&l);
	}
	for (int k = CPOL_HOST_NAME; k <= CPOL_HOST_IPV6; k++)
		if (!seen[k])
			fail_msg("no case for host kind %d", k);
}

static void test_json(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int first = 1;

	(void)state;
	assert_non_null(f);
	json_str(f, "a\"b\\c\n\x01");
	json_sep(f, &first);
	json_sep(f, &first);
	json_str(f, NULL);
	fclose(f);
	assert_string_equal(buf, "\"a\\\"b\\\\c\\n\\u0001\",null");
	free(buf);
}

static void test_origin(void **state)
{
	unsigned int line;
	char *f, *o;

	(void)state;
	o = cpol_origin_format("base/python.policy", 12);
	assert_string_equal(o, "base/python.policy:12");
	f = cpol_origin_split(o, &line);
	assert_string_equal(f, "base/python.policy");
	assert_int_equal(line, 12);
	free(f);
	free(o);
	o = cpol_origin_format(NULL, 0);
	f = cpol_origin_split(o, &line);
	assert_string_equal(f, CPOL_ORIGIN_BUILTIN);
	assert_int_equal(line, 0);
	free(f);
	free(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_covers),
		cmocka_unit_test(test_rights),
		cmocka_unit_test(test_lint_blob_like),
		cmocka_unit_test(test_diff_fields),
		cmocka_unit_test(test_diff_every_section_and_flag),
		cmocka_unit_test(test_diff_each_section_changed),
		cmocka_unit_test(test_diff_each_flag_changed),
		cmocka_unit_test(test_diff_hosts),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_origin),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
