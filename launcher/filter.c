/*
 * filter.c - the programs cordon installs in place of the blob's when it
 * holds the filter's listener: built here and only here, and proven here
 * before the run starts, as cordonc proves what it emits
 * (compiler/backend/validate.c): each copy is compared with the blob
 * instruction by instruction (its RET K values rewritten as its kind
 * says), and the prefix is run through cordon's interpreter
 * (common/bpf.c) with a RET in place of each copy's first instruction,
 * so every call tried shows where the prefix sends it, to be compared
 * with the contract; the blob itself is never run (about 85 us for the
 * notify rewrite of a shipped policy, against 420 us running both the
 * program and the blob for every call).
 *
 * A program is a prefix that routes a call, then copies of the blob's
 * program whose RET K values are rewritten; a copy's jumps are the
 * blob's, untouched (bpf_check passed them).  The copies:
 *
 *   OWN       the blob's program as it is
 *   REFUSALS  kill (process or thread) and errno -> USER_NOTIF; allow, log
 *             and trap unchanged (the snippet's SIGSYS handler must see
 *             its traps)
 *   LEARN     every action but allow and log -> USER_NOTIF
 *   WATCH     kill, errno, allow and log -> USER_NOTIF; trap unchanged
 *
 * The contracts, B the blob's own answer.  "Own text" is x86-64 with the
 * instruction pointer in cordon's text [lo, hi): the payload's first exec
 * comes from there (run.c exec_here) while init waits for it, before init
 * can hand cordon the listener, so notifying it would wait for ever.  The
 * payload shares cordon's memory until that exec; no later exec's pointer
 * lies there.
 *
 *   FPROG_NOTIFY   execve from own text -> OWN(B); every other input, other
 *                  architectures included -> REFUSALS(B)
 *   FPROG_LEARN    x86-64: a call learn watches -> USER_NOTIF; execve, exit
 *                  and exit_group -> LEARN(B) from own text, else
 *                  USER_NOTIF (a thread's exit is the last moment its last
 *                  call can be judged, learnjudge.c; the payload's own exit,
 *                  should its exec fail, is cordon's); everything else ->
 *                  LEARN(B)
 *   FPROG_LLWATCH  x86-64: execve -> OWN(B) from own text, else WATCH(B); a
 *                  call the watch watches -> WATCH(B); everything else ->
 *                  REFUSALS(B)
 *
 * x32 numbers (nr | 0x40000000) are other calls: no prefix names one.
 */
#include <errno.h>
#include <linux/audit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "bpf.h"
#include "filter.h"
#include "plan.h"

#define X32_BIT 0x40000000u
#define TEXT_CHECK 5                  /* instructions of text_check() */
#define PROOF_IPS 8                   /* instruction pointers per call */

/* Offsets in struct seccomp_data. */
enum { OFF_NR = 0, OFF_ARCH = 4, OFF_IP_LO = 8, OFF_IP_HI = 12 };

enum copy { COPY_OWN, COPY_REFUSALS, COPY_LEARN, COPY_WATCH, COPY_NOTIF };

/* The calls sent to cordon, one column per program: learn's name a path
 * or a port, or make a process (its trace records them); the watch's
 * name a path or a port (what Landlock rules).  execve, exit and
 * exit_group are each prefix's own (see the top). */
enum { W_LEARN = 1u << FPROG_LEARN, W_LLWATCH = 1u << FPROG_LLWATCH,
	W_BOTH = W_LEARN | W_LLWATCH };

static const struct {
	uint32_t nr;
	unsigned int by;              /* W_* */
} watched[] = {
	{ SYS_open, W_BOTH }, { SYS_openat, W_BOTH },
	{ SYS_openat2, W_BOTH }, { SYS_creat, W_BOTH },
	{ SYS_execveat, W_BOTH }, { SYS_mkdir, W_BOTH },
	{ SYS_mkdirat, W_BOTH }, { SYS_mknod, W_LLWATCH },
	{ SYS_mknodat, W_LLWATCH }, { SYS_unlink, W_BOTH },
	{ SYS_unlinkat, W_BOTH }, { SYS_rmdir, W_BOTH },
	{ SYS_rename, W_BOTH }, { SYS_renameat, W_BOTH },
	{ SYS_renameat2, W_BOTH }, { SYS_symlink, W_BOTH },
	{ SYS_symlinkat, W_BOTH }, { SYS_link, W_LLWATCH },
	{ SYS_linkat, W_LLWATCH }, { SYS_truncate, W_BOTH },
	{ SYS_connect, W_BOTH }, { SYS_bind, W_BOTH },
	{ SYS_clone, W_LEARN }, { SYS_clone3, W_LEARN },
	{ SYS_fork, W_LEARN }, { SYS_vfork, W_LEARN },
};
#define NWATCHED (sizeof(watched) / sizeof(watched[0]))

static const char *const prog_name[] = {
	[FPROG_NOTIFY] = "the notify rewrite's",
	[FPROG_LEARN] = "learn mode's (--observe)",
	[FPROG_LLWATCH] = "the Landlock watch's (--landlock-watch)",
};

extern char __executable_start[], etext[];

struct filter_text filter_own_text(void)
{
	return (struct filter_text){ (uintptr_t)__executable_start,
	    (uintptr_t)etext };
}

int filter_watches(enum filter_prog which, uint32_t nr)
{
	size_t i;

	for (i = 0; i < NWATCHED; i++)
		if (watched[i].nr == nr && (watched[i].by & (1u << which)))
			return 1;
	return 0;
}

static size_t nwatched(enum filter_prog which)
{
	size_t i, n = 0;

	for (i = 0; i < NWATCHED; i++)
		n += (watched[i].by & (1u << which)) != 0;
	return n;
}

/* The prefix's length, and how many copies of the blob follow it. */
static size_t prefix_len(enum filter_prog which)
{
	switch (which) {
	case FPROG_NOTIFY:
		return NOTIFY_PREFIX;
	case FPROG_LEARN:       /* arch, nr, 3 + watched, ja, text, notify */
		return 6 + nwatched(which) + 1 + TEXT_CHECK + 1;
	case FPROG_LLWATCH:     /* arch, nr, execve, text, ja, watched, 2 ja */
		return 4 + TEXT_CHECK + 1 + nwatched(which) + 2;
	}
	return 0;
}

static size_t ncopies(enum filter_prog which)
{
	return which == FPROG_NOTIFY ? 2 : which == FPROG_LEARN ? 1 : 3;
}

/* What copy c answers where the blob answers k. */
static uint32_t answer(enum copy c, uint32_t k)
{
	uint32_t act = k & BPF_ACT_FULL_MASK;
	int refusal = bpf_act_refuses(k);
	int lets = act == BPF_ACT_ALLOW || act == BPF_ACT_LOG;
	int notify = 1;

	switch (c) {
	case COPY_OWN:
		notify = 0;
		break;
	case COPY_REFUSALS:
		notify = refusal;
		break;
	case COPY_LEARN:
		notify = !lets;
		break;
	case COPY_WATCH:
		notify = refusal || lets;
		break;
	case COPY_NOTIF:
		break;
	}
	return notify ? BPF_ACT_USER_NOTIF : k;
}

/* The instructions, written once.  Jumps name their targets by index;
 * every offset in these prefixes fits a byte (the proof would catch one
 * that did not). */
static struct cpol_insn ld(uint32_t off)
{
	return (struct cpol_insn){ BPF_LD | BPF_W | BPF_ABS, 0, 0, off };
}

static struct cpol_insn ret(uint32_t k)
{
	return (struct cpol_insn){ BPF_RET | BPF_K, 0, 0, k };
}

static struct cpol_insn jmp(uint16_t op, uint32_t k, size_t at, size_t t,
    size_t f)
{
	return (struct cpol_insn){ (uint16_t)(BPF_JMP | op | BPF_K),
	    (uint8_t)(t - at - 1), (uint8_t)(f - at - 1), k };
}

static struct cpol_insn jeq(uint32_t k, size_t at, size_t t, size_t f)
{
	return jmp(BPF_JEQ, k, at, t, f);
}

static struct cpol_insn ja(size_t at, size_t to)
{
	return (struct cpol_insn){ BPF_JMP | BPF_JA, 0, 0,
	    (uint32_t)(to - at - 1) };
}

/* f[at..at+4]: on to `in` when the instruction pointer lies in t, else
 * to `out` (t's halves share their high word: filter_build). */
static void text_check(struct cpol_insn *f, size_t at, struct filter_text t,
    size_t in, size_t out)
{
	f[at] = ld(OFF_IP_HI);
	f[at + 1] = jeq((uint32_t)(t.lo >> 32), at + 1, at + 2, out);
	f[at + 2] = ld(OFF_IP_LO);
	f[at + 3] = jmp(BPF_JGE, (uint32_t)t.lo, at + 3, at + 4, out);
	f[at + 4] = jmp(BPF_JGE, (uint32_t)t.hi, at + 4, out, in);
}

/* The blob's n instructions at f, as copy c. */
static void copy(struct cpol_insn *f, const struct cpol_insn *blob,
    size_t n, enum copy c)
{
	size_t i;

	for (i = 0; i < n; i++) {
		f[i] = blob[i];
		if (f[i].code == (BPF_RET | BPF_K))
			f[i].k = answer(c, f[i].k);
	}
}

/* The watched calls of which at f[at...], each a jeq to t; the index
 * after them. */
static size_t watch_jumps(struct cpol_insn *f, size_t at,
    enum filter_prog which, size_t t)
{
	size_t i;

	for (i = 0; i < NWATCHED; i++)
		if (watched[i].by & (1u << which)) {
			f[at] = jeq(watched[i].nr, at, t, at + 1);
			at++;
		}
	return at;
}

/* arch, nr, execve from own text to OWN, the rest to REFUSALS. */
static void notify_build(struct cpol_insn *f, const struct cpol_insn *blob,
    size_t n, struct filter_text t)
{
	size_t r = NOTIFY_PREFIX, o = r + n;

	f[0] = ld(OFF_ARCH);
	f[1] = jeq(AUDIT_ARCH_X86_64, 1, 2, r);
	f[2] = ld(OFF_NR);
	f[3] = jeq(SYS_execve, 3, 4, r);
	text_check(f, 4, t, 9, r);
	f[9] = ja(9, o);
	copy(f + r, blob, n, COPY_REFUSALS);
	copy(f + o, blob, n, COPY_OWN);
}

/* c: the copy; x: the text check; notif: the prefix's USER_NOTIF. */
static void learn_build(struct cpol_insn *f, const struct cpol_insn *blob,
    size_t n, struct filter_text t)
{
	size_t c = prefix_len(FPROG_LEARN), notif = c - 1,
	    x = notif - TEXT_CHECK, at;

	f[0] = ld(OFF_ARCH);
	f[1] = jeq(AUDIT_ARCH_X86_64, 1, 2, c);
	f[2] = ld(OFF_NR);
	f[3] = jeq(SYS_execve, 3, x, 4);
	f[4] = jeq(SYS_exit, 4, x, 5);
	f[5] = jeq(SYS_exit_group, 5, x, 6);
	at = watch_jumps(f, 6, FPROG_LEARN, notif);
	f[at] = ja(at, c);
	text_check(f, x, t, c, notif);
	f[notif] = ret(BPF_ACT_USER_NOTIF);
	copy(f + c, blob, n, COPY_LEARN);
}

/* r, o, w: the REFUSALS, OWN and WATCH copies; x: the jump to w. */
static void llwatch_build(struct cpol_insn *f, const struct cpol_insn *blob,
    size_t n, struct filter_text t)
{
	size_t r = prefix_len(FPROG_LLWATCH), o = r + n, w = o + n, x = r - 1,
	    at;

	f[0] = ld(OFF_ARCH);
	f[1] = jeq(AUDIT_ARCH_X86_64, 1, 2, r);
	f[2] = ld(OFF_NR);
	f[3] = jeq(SYS_execve, 3, 4, 10);
	text_check(f, 4, t, 9, x);
	f[9] = ja(9, o);
	at = watch_jumps(f, 10, FPROG_LLWATCH, x);
	f[at] = ja(at, r);
	f[x] = ja(x, w);
	copy(f + r, blob, n, COPY_REFUSALS);
	copy(f + o, blob, n, COPY_OWN);
	copy(f + w, blob, n, COPY_WATCH);
}

int filter_fits(enum filter_prog which, size_t n)
{
	return n > 0 && n <= CPOL_MAX_INSNS && prefix_len(which) <= UINT8_MAX &&
	    prefix_len(which) + ncopies(which) * n <= CPOL_MAX_INSNS;
}

struct cpol_insn *filter_build(enum filter_prog which,
    const struct cpol_insn *blob, size_t n, struct filter_text t,
    size_t *len)
{
	size_t total = prefix_len(which) + ncopies(which) * n;
	struct cpol_insn *f;

	if (!filter_fits(which, n) || t.lo > t.hi ||
	    t.lo >> 32 != t.hi >> 32) {
		errno = E2BIG;
		return NULL;
	}
	f = calloc(total, sizeof(*f));
	if (!f)
		return NULL;
	if (which == FPROG_NOTIFY)
		notify_build(f, blob, n, t);
	else if (which == FPROG_LEARN)
		learn_build(f, blob, n, t);
	else
		llwatch_build(f, blob, n, t);
	*len = total;
	return f;
}

/* Which copy answers `in` by which's contract (the top); COPY_NOTIF: the
 * prefix's own USER_NOTIF. */
static enum copy route(enum filter_prog which, const struct bpf_input *in,
    struct filter_text t)
{
	int x86 = in->arch == AUDIT_ARCH_X86_64;
	int own = x86 && in->ip >= t.lo && in->ip < t.hi;
	uint32_t nr = in->nr;

	switch (which) {
	case FPROG_NOTIFY:
		return own && nr == SYS_execve ? COPY_OWN : COPY_REFUSALS;
	case FPROG_LEARN:
		if (x86 && filter_watches(which, nr))
			return COPY_NOTIF;
		if (x86 && (nr == SYS_execve || nr == SYS_exit ||
		    nr == SYS_exit_group))
			return own ? COPY_LEARN : COPY_NOTIF;
		return COPY_LEARN;
	case FPROG_LLWATCH:
		if (x86 && nr == SYS_execve)
			return own ? COPY_OWN : COPY_WATCH;
		return x86 && filter_watches(which, nr) ? COPY_WATCH :
		    COPY_REFUSALS;
	}
	return COPY_NOTIF;
}

/* The route program's answers: the slot a call reached (its copies, as a
 * mask of 1 << enum copy), or a landing that is no slot's start. */
#define ROUTE_SLOT 0x7ff00000u
#define ROUTE_BAD (ROUTE_SLOT | 0xffffu)

struct proof {
	enum filter_prog which;
	const struct cpol_insn *route;  /* the prefix, then markers */
	size_t len;
	struct filter_text t;
	char *err;
	size_t errlen;
};

/* Which copies the n instructions at f are, as a mask (1 << copy): the
 * blob's, each RET K rewritten as that copy rewrites it, every other
 * field as it is.  Several where they coincide (a blob that refuses
 * nothing is its own REFUSALS); 0 where none. */
static unsigned int slot_is(const struct cpol_insn *f,
    const struct cpol_insn *blob, size_t n)
{
	unsigned int mask = 0;
	struct cpol_insn w;
	size_t i;
	int c;

	for (c = COPY_OWN; c < COPY_NOTIF; c++) {
		for (i = 0; i < n; i++) {
			w = blob[i];
			if (w.code == (BPF_RET | BPF_K))
				w.k = answer((enum copy)c, w.k);
			if (w.code != f[i].code || w.jt != f[i].jt ||
			    w.jf != f[i].jf || w.k != f[i].k)
				break;
		}
		if (i == n)
			mask |= 1u << c;
	}
	return mask;
}

/* The prefix of prog, then in place of each copy a RET of its mask at its
 * first instruction and ROUTE_BAD at every other: run, it says where the
 * prefix sends a call without running the blob (the copies, checked by
 * slot_is, answer as the blob does, rewritten).  NULL with err. */
static struct cpol_insn *route_make(enum filter_prog which,
    const struct cpol_insn *blob, size_t n, const struct cpol_insn *prog,
    size_t len, char *err, size_t errlen)
{
	size_t pre = prefix_len(which), i, k;
	struct cpol_insn *r;
	unsigned int mask;

	if (len != pre + ncopies(which) * n) {
		snprintf(err, errlen, "%zu instructions, where the prefix and "
		    "%zu copies make %zu", len, ncopies(which),
		    pre + ncopies(which) * n);
		return NULL;
	}
	if (!(r = calloc(len, sizeof(*r)))) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	memcpy(r, prog, pre * sizeof(*r));
	for (i = 0; i < pre; i++)     /* the prefix reads no argument */
		if (BPF_CLASS(r[i].code) == BPF_LD && r[i].k != OFF_NR &&
		    r[i].k != OFF_ARCH && r[i].k != OFF_IP_LO &&
		    r[i].k != OFF_IP_HI) {
			snprintf(err, errlen, "instruction %zu loads %u, not "
			    "the call, arch or instruction pointer", i,
			    r[i].k);
			free(r);
			return NULL;
		}
	for (i = pre; i < len; i++)
		r[i] = ret(ROUTE_BAD);
	for (k = 0; k < ncopies(which); k++) {
		if (!(mask = slot_is(prog + pre + k * n, blob, n))) {
			snprintf(err, errlen, "instructions %zu to %zu are no "
			    "copy of the blob's program", pre + k * n,
			    pre + (k + 1) * n - 1);
			free(r);
			return NULL;
		}
		r[pre + k * n] = ret(ROUTE_SLOT | mask);
	}
	return r;
}

/* One input: the prefix sends it where the contract says (a copy of that
 * kind, or its own USER_NOTIF), or -1 with both. */
static int prove_one(const struct proof *pf, const struct bpf_input *in)
{
	enum copy want = route(pf->which, in, pf->t);
	uint32_t got = bpf_run(pf->route, pf->len, in);
	int ok = want == COPY_NOTIF ? got == BPF_ACT_USER_NOTIF :
	    (got & ~0xffffu) == ROUTE_SLOT && got != ROUTE_BAD &&
	    (got >> want & 1u);

	if (ok)
		return 0;
	snprintf(pf->err, pf->errlen, "call %u, arch 0x%08x, instruction "
	    "pointer 0x%llx: the prefix answers 0x%08x, where the contract "
	    "says %s", in->nr, in->arch, (unsigned long long)in->ip, got,
	    want == COPY_NOTIF ? "USER_NOTIF" : "a copy of another kind");
	return -1;
}

/* The instruction pointers tried: the first two, inside t (when it is
 * not empty) and just past it, for every call; all of them, outside t
 * on either side and t's low half under another high word, for the
 * calls some contract names (named()). */
static size_t proof_ips(struct filter_text t, uint64_t *ip)
{
	size_t k = 0;

	if (t.lo < t.hi)
		ip[k++] = t.lo + (t.hi - t.lo) / 2;
	ip[k++] = t.hi;
	if (t.lo < t.hi) {
		ip[k++] = t.lo;
		ip[k++] = t.hi - 1;
	}
	ip[k++] = t.lo - 1;
	ip[k++] = 0;
	ip[k++] = UINT64_MAX;
	ip[k++] = t.lo ^ (1ULL << 32);
	return k;
}

/* A call a contract names (its x32 twin too): execve, exit, exit_group,
 * the watched. */
static int named(uint32_t nr)
{
	nr &= ~X32_BIT;
	return nr == SYS_execve || nr == SYS_exit || nr == SYS_exit_group ||
	    filter_watches(FPROG_LEARN, nr) || filter_watches(FPROG_LLWATCH, nr);
}

/* Call numbers past 0..FILTER_PROOF_NR: x32's (execve's own, 520, too),
 * numbers no table has, all ones. */
static const uint32_t proof_nrs[] = {
	X32_BIT, X32_BIT | SYS_execve, X32_BIT | SYS_exit,
	X32_BIT | SYS_exit_group, X32_BIT | SYS_open, X32_BIT | 520u, 520u,
	1024u, 0x7fffffffu, 0xffffffffu,
};
#define NPROOF_NRS (sizeof(proof_nrs) / sizeof(proof_nrs[0]))

/* Every call number on one architecture, arguments and the pointers. */
static int prove_calls(const struct proof *pf, struct bpf_input *in,
    const uint64_t *ip, size_t nip)
{
	size_t i, k;

	for (k = 0; k <= FILTER_PROOF_NR + NPROOF_NRS; k++) {
		in->nr = k <= FILTER_PROOF_NR ? (uint32_t)k :
		    proof_nrs[k - FILTER_PROOF_NR - 1];
		for (i = 0; i < (named(in->nr) ? nip : 2); i++) {
			in->ip = ip[i];
			if (prove_one(pf, in) < 0)
				return -1;
		}
	}
	return 0;
}

/* The checker's, then the copies (route_make), then the prefix's
 * routing of every input tried (prove_calls), all without running the
 * blob: a copy's instructions are the blob's, so it answers as the blob
 * does, rewritten as its kind says. */
int filter_prove(enum filter_prog which, const struct cpol_insn *blob,
    size_t n, const struct cpol_insn *prog, size_t len,
    struct filter_text t, char *err, size_t errlen)
{
	static const uint32_t archs[] = { AUDIT_ARCH_X86_64, AUDIT_ARCH_I386 };
	struct proof pf = { which, NULL, len, t, err, errlen };
	struct bpf_input in;
	uint64_t ip[PROOF_IPS];
	size_t nip = proof_ips(t, ip), a;
	int rc = 0;

	if (bpf_check_listener(prog, len, err, errlen) < 0 ||
	    !(pf.route = route_make(which, blob, n, prog, len, err, errlen)))
		return -1;
	memset(&in, 0, sizeof(in));
	for (a = 0; a < sizeof(archs) / sizeof(archs[0]) && rc == 0; a++) {
		in.arch = archs[a];
		rc = prove_calls(&pf, &in, ip, nip);
	}
	free((void *)pf.route);
	return rc;
}

struct sock_filter *filter_sock(const struct cpol_insn *prog, size_t n)
{
	struct sock_filter *f = calloc(n ? n : 1, sizeof(*f));
	size_t i;

	for (i = 0; f && i < n; i++)
		f[i] = (struct sock_filter){ prog[i].code, prog[i].jt,
		    prog[i].jf, prog[i].k };
	return f;
}

enum filter_result filter_make(enum filter_prog which, const struct cpol *p,
    struct sock_filter **out, unsigned short *n, char *err,
    size_t errlen)
{
	struct filter_text t = filter_own_text();
	struct cpol_insn *f;
	char why[256];
	size_t len = 0;

	*out = NULL;
	f = filter_build(which, p->insns, p->ninsns, t, &len);
	if (!f && errno == E2BIG)
		return FILTER_NO_FIT;
	if (f && filter_prove(which, p->insns, p->ninsns, f, len, t, why,
	    sizeof(why)) < 0) {
		snprintf(err, errlen, "%s generated filter failed its proof: "
		    "%s", prog_name[which], why);
		free(f);
		return FILTER_FAILED;
	}
	*out = f ? filter_sock(f, len) : NULL;
	free(f);
	if (!*out) {
		snprintf(err, errlen, "%s filter: out of memory",
		    prog_name[which]);
		return FILTER_FAILED;
	}
	*n = (unsigned short)len;     /* filter_build: <= CPOL_MAX_INSNS */
	return FILTER_MADE;
}
