/*
 * cpol.h - the compiled policy ("blob"): its on-disk format and the
 * in-memory form that the reader produces and the writer consumes.
 *
 * This header is the one definition of the format; man/cordon.cpol.5 is
 * its prose version.  They change together.  Nothing here needs
 * libseccomp: the launcher links only common/.
 *
 * On disk, every integer is little-endian and every field is decoded one
 * by one through a bounds-checked cursor (cpol_read.c); no host struct is
 * ever copied in or out.
 *
 *   header (CPOL_HEADER_LEN bytes)
 *     0  magic[8]      CPOL_MAGIC
 *     8  u16 version   CPOL_VERSION
 *    10  u16 hdrlen    CPOL_HEADER_LEN
 *    12  u32 arch      AUDIT_ARCH_* of the seccomp program
 *    16  u32 size      total bytes, header included
 *    20  u32 nsect     number of sections
 *    24  u32 flags     0 (no flag is defined; others are refused)
 *    28  u32 reserved  0
 *    32  u8[32] sum    SHA-256 of bytes [0,32) and [64,size)
 *   sections, in strictly increasing type order, each at most once:
 *     u16 type, u16 flags (CPOL_SECT_CRITICAL), u32 len, len bytes
 *   A reader refuses an unknown section marked critical and skips an
 *   unknown one that is not.  Every section defined here is marked
 *   critical (a reader refuses one that is not: one policy, one
 *   encoding).  No byte may follow the last section.
 *
 *   A string is u16 length then that many bytes, no NUL among them.
 */
#ifndef CORDON_CPOL_H
#define CORDON_CPOL_H

#include <stddef.h>
#include <stdint.h>

#define CPOL_MAGIC "\x89" "CPOL\r\n\x1a"
#define CPOL_MAGIC_LEN 8
#define CPOL_VERSION 1
#define CPOL_HEADER_LEN 64
#define CPOL_SUM_OFF 32
#define CPOL_SUM_LEN 32

/* Limits.  Each bounds something a reader allocates or a kernel takes. */
#define CPOL_MAX_SIZE (4u << 20)   /* whole blob; policies are a few KiB */
#define CPOL_MAX_SECTIONS 32       /* more than the defined types */
#define CPOL_MAX_STR 4096          /* PATH_MAX: the longest path Linux takes */
#define CPOL_MAX_INSNS 4096        /* BPF_MAXINSNS: the kernel's own limit */
#define CPOL_MAX_FS 512            /* Landlock rules; ~1 open fd each */
#define CPOL_MAX_NET 64            /* TCP port rules */
#define CPOL_MAX_HOSTS 64          /* named-host rules: each a proxy match */
#define CPOL_MAX_HOSTNAME 253      /* RFC 1035: the longest DNS name */
#define CPOL_MAX_HTTP 64           /* HTTP hosts: at most one per host rule */
#define CPOL_MAX_HTTP_RULES 64     /* method and prefix pairs per host */
#define CPOL_MAX_HTTP_METHOD 16    /* longer than any registered method */
#define CPOL_MAX_HTTP_PREFIX 1024  /* a path prefix: a reviewable length */
#define CPOL_MAX_HTTP_HEADER 256   /* a credential's header template */
#define CPOL_MAX_ENV 128           /* environment entries */
#define CPOL_MAX_ARGV 64           /* command-line words */
#define CPOL_MAX_PRELOAD 64        /* modules a warm template imports */
#define CPOL_MAX_MODULE 255        /* a dotted Python module name */
#define CPOL_MAX_RULES 8192        /* explain table: ~450 syscalls x conds */
#define CPOL_MAX_CONDS 6           /* one per syscall argument */

enum cpol_section {
	CPOL_S_META = 1,     /* name, description, compiler, source digest */
	CPOL_S_LAYERS = 2,   /* Landlock ABI minimum, layer flags */
	CPOL_S_SECCOMP = 3,  /* the BPF program, ready for the kernel */
	CPOL_S_FS = 4,       /* Landlock path rules */
	CPOL_S_NET = 5,      /* Landlock TCP port rules */
	CPOL_S_LIMITS = 6,   /* rlimits, timeout, output cap */
	CPOL_S_ENV = 7,      /* environment allowlist and fixed values */
	CPOL_S_ARGV = 8,     /* the command line to exec */
	CPOL_S_RULES = 9,    /* the syscall rules, for explain/diff/audit */
	CPOL_S_HOSTS = 10,   /* named hosts the run's egress proxy reaches */
	CPOL_S_PRELOAD = 11, /* modules a warm template imports (cordon --serve) */
	CPOL_S_HTTP = 12,    /* named hosts the proxy speaks HTTP to: rules,
	                      * credentials (names only) */
	CPOL_S_PRIVATE = 13, /* host rules for special address literals */
	CPOL_S_SESSION = 14, /* how long a session (cordon --session) lives */
	CPOL_S_MAX = 14,
};
#define CPOL_SECT_CRITICAL 0x0001u

/*
 * META:   str name, str description, str compiler_version,
 *         u8[32] source_digest (SHA-256 over every source file read, in
 *         the order read, each as u32 length then bytes)
 * LAYERS: u32 landlock_abi_min, u32 flags (CPOL_F_*), u32 errata_min (0)
 */
#define CPOL_F_BEST_EFFORT_LANDLOCK 0x0001u /* run below landlock_abi_min */
#define CPOL_F_NET_OFF 0x0002u    /* no network: Landlock TCP handled, netns */
#define CPOL_F_NET_TCP 0x0004u    /* TCP limited to the NET section's ports */
#define CPOL_F_PRIVATE_TMP 0x0008u  /* fresh tmpfs on /tmp (mount namespace) */
#define CPOL_F_PRIVATE_SHM 0x0010u  /* fresh tmpfs on /dev/shm */
#define CPOL_F_BEST_EFFORT_NS 0x0020u /* private tmp/shm may be missing */
#define CPOL_F_OUTPUT_TRUNCATE 0x0040u /* past the output cap: drop, run on */
#define CPOL_F_REQUIRE_MEMORY 0x0080u /* limit memory required: a controller */
#define CPOL_F_REQUIRE_PIDS 0x0100u   /* limit pids required: a controller */
#define CPOL_F_REQUIRE_DISK 0x0200u   /* limit disk required: a run tmpfs */
#define CPOL_F_REQUIRE_FILES 0x0400u  /* limit files required: a run tmpfs */
#define CPOL_F_NET_HOSTS 0x0800u  /* with NET_TCP: named hosts, by a proxy */
#define CPOL_F_ALL 0x0fffu
/* Exactly one of NET_OFF and NET_TCP is set: "network on" is not a mode.
 * NET_HOSTS comes with NET_TCP and a HOSTS section, and only then: the
 * run gets a network namespace with loopback alone, its TCP (the NET
 * section) reaches only CPOL_PROXY_PORT there, and cordon's egress proxy
 * listens on that port and connects to the named hosts alone.  A reader
 * that predates it refuses the flag and the critical section. */

/*
 * SECCOMP: u32 count (1..CPOL_MAX_INSNS), then count instructions, each
 *          u16 code, u8 jt, u8 jf, u32 k.  Installed as is.
 */
struct cpol_insn {
	uint16_t code;
	uint8_t jt;
	uint8_t jf;
	uint32_t k;
};

/*
 * FS: u32 count, then per rule: u64 access (LANDLOCK_ACCESS_FS_* bits,
 *     the kernel's numbering), u8 flags (CPOL_FS_*), str path.
 *     The path is absolute, or starts with "$WORKDIR" or is "$SNIPPET"
 *     (the launcher binds those); no "." or ".." component, no "//".
 */
#define CPOL_FS_OPTIONAL 0x01u /* absent at launch: skipped, not an error */
#define CPOL_FS_ALL 0x01u

/*
 * NET: u32 count, then per rule: u8 kind (CPOL_NET_*), u16 port (1..65535).
 */
enum cpol_net_kind { CPOL_NET_CONNECT = 1, CPOL_NET_BIND = 2 };

/*
 * HOSTS: u32 count (1..CPOL_MAX_HOSTS), then per rule: str host, u16 port
 *        (1..65535).  Sorted by (host, port), no repeats.  host is a DNS
 *        name in lower case (labels of [a-z0-9-], 1..63 bytes, not
 *        starting or ending with '-', at most CPOL_MAX_HOSTNAME bytes), or
 *        "*." then such a name (any name below it, not the name itself),
 *        or an IPv4 literal (dotted decimal) or an IPv6 literal (no
 *        brackets) in the canonical form inet_ntop gives.  Present if and
 *        only if CPOL_F_NET_HOSTS is set.  The run reaches its proxy at
 *        127.0.0.1:CPOL_PROXY_PORT inside its own network namespace.
 */
/*
 * PRIVATE: u32 count (1..CPOL_MAX_HOSTS), then per rule: str host, u16
 *        port.  Sorted by (host, port), no repeats; each a HOSTS rule
 *        whose host is an address literal cpol_host_special names (the
 *        policy's "private" word), and every such HOSTS rule is here: a
 *        reader refuses a special literal without it.  Present only with
 *        HOSTS and when used; critical (old readers refuse it).
 */
#define CPOL_PROXY_PORT 3128
/* Where a policy with an HTTP section (credentials, http rules) has its
 * run's CA bundle: the proxy's CA for this run, then the system's, in
 * the workdir (SSL_CERT_FILE and the like name it); cordon writes it,
 * the client does not return it as an output. */
#define CPOL_CA_BUNDLE_NAME ".cordon-ca.pem"
/* A run's semaphores without a private /dev/shm (launcher/shm/shm.c) */
#define CPOL_SHM_DIR_NAME ".cordon-shm"
/* PRIVATE: the policy said "private" for this literal, which is an
 * address cpol_addr_special names (loopback, private, link-local,
 * metadata...): the only way such a literal is a rule.  Carried in the
 * PRIVATE section. */
#define CPOL_HOST_PRIVATE 0x01u
struct cpol_host {
	char *host;
	uint16_t port;
	uint8_t flags;          /* CPOL_HOST_* */
};
enum cpol_host_kind {
	CPOL_HOST_BAD = 0, CPOL_HOST_NAME, CPOL_HOST_WILDCARD, CPOL_HOST_IPV4,
	CPOL_HOST_IPV6,
};
/* Is s[0..len) a host name: labels of 1..63 letters (either case),
 * digits and '-', not starting or ending with '-', joined by single dots,
 * two labels or more, the last not all digits (that reads as an
 * address), CPOL_MAX_HOSTNAME bytes at most, no trailing dot (the root's
 * dot is the caller's to drop)?  THE check of a name: the compiler's (a
 * rule, through cpol_host_kind) and the proxy's (a CONNECT target).  No
 * system call. */
int cpol_host_name(const char *s, size_t len);
/* What kind of host rule s is (CPOL_HOST_BAD: none): a name must also be
 * in lower case, the one spelling a blob holds.  No system call. */
enum cpol_host_kind cpol_host_kind(const char *s);
/* Does the rule pattern match the host name (any case)? */
int cpol_host_match(const char *pattern, const char *host);
/* What kind of special address addr[0..len) is (len 4: IPv4, 16: IPv6;
 * IPv4-mapped and NAT64 forms read as the IPv4 address they hold):
 * "loopback", "private (RFC 1918)", "cloud metadata"..., or NULL for a
 * public address.  THE table of them: the compiler's (a literal rule),
 * the reader's and the proxy's (a literal, a name's answers). */
const char *cpol_addr_special(const uint8_t *addr, size_t len);
/* The same for a rule's host: NULL unless an address literal that is
 * special. */
const char *cpol_host_special(const char *host);

/*
 * HTTP: u32 count (1..CPOL_MAX_HTTP), then per host: str host, u16 port,
 *       u8 flags (CPOL_HTTP_*), str credential, str header, u32 nrules
 *       (0..CPOL_MAX_HTTP_RULES), then per rule: str method, str prefix.
 *       Sorted by (host, port), no repeats; each (host, port) is also a
 *       HOSTS rule, and host a name (not "*." nor an address: the proxy
 *       makes a certificate for it).  credential is the NAME of a value
 *       the caller gives cordon at run time (cpol_env_name_ok), or ""
 *       for none; the value itself is never in a blob.  header is ""
 *       exactly when credential is, else "Field-Name: text" with exactly
 *       one "{}" in the text (where the value goes), printable ASCII.
 *       nrules 0: any method and path; else a request passes when its
 *       method equals one rule's method (cpol_http_method_ok) and its path
 *       starts with that rule's prefix (cpol_http_prefix_ok); the rules
 *       are sorted by (method, prefix), no repeats.  PLAIN: the run speaks
 *       plain http:// to the proxy for this host; otherwise the proxy
 *       ends the run's TLS with a certificate from a CA made for the run.
 *       Present only with CPOL_F_NET_HOSTS; critical (old readers refuse).
 */
#define CPOL_HTTP_PLAIN 0x01u
#define CPOL_HTTP_ALL 0x01u
struct cpol_http_rule {
	char *method;
	char *prefix;
};
struct cpol_http {
	char *host;
	uint16_t port;
	uint8_t flags;
	char *credential;
	char *header;
	struct cpol_http_rule *rules;
	uint32_t nrules;
};
/* An HTTP method as a rule names it: 1..CPOL_MAX_HTTP_METHOD of A-Z. */
int cpol_http_method_ok(const char *s);
/* A path prefix: '/' then printable ASCII without space, '#', '\\' or
 * "..", at most CPOL_MAX_HTTP_PREFIX bytes. */
int cpol_http_prefix_ok(const char *s);
/* A header template: a field name (an RFC 9110 token), ": ", then
 * printable ASCII holding "{}" exactly once, CPOL_MAX_HTTP_HEADER bytes
 * at most. */
int cpol_http_header_ok(const char *s);
/* Does a request (method, path) pass h's rules? */
int cpol_http_allows(const struct cpol_http *h, const char *method,
    const char *path);

/*
 * LIMITS: u64 timeout_ms (0 < t), u64 output_cap (bytes, stdout+stderr),
 *         u32 count, then per limit: u8 resource (CPOL_RLIM_*), u64 value
 *         (CPOL_RLIM_INFINITY for unlimited).  Each resource at most once,
 *         in increasing order.  Resources up to CPOL_RLIM_KERNEL_MAX are
 *         per-process rlimits (soft = hard, never above the caller's);
 *         the others bound the whole run: its memory and processes (a
 *         cgroup), its writable space in bytes and inodes (a run tmpfs).
 */
/*
 * SESSION (optional): u64 session_ms (0 < s): how long a session of the
 *         tool (cordon --session: one run that executes cells) may live.
 *         Absent: a session is bounded by the timeout, as any run.
 */
enum cpol_rlim {
	CPOL_RLIM_CPU = 1,    /* seconds */
	CPOL_RLIM_AS = 2,     /* bytes */
	CPOL_RLIM_DATA = 3,
	CPOL_RLIM_FSIZE = 4,
	CPOL_RLIM_NPROC = 5,
	CPOL_RLIM_NOFILE = 6,
	CPOL_RLIM_CORE = 7,
	CPOL_RLIM_STACK = 8,
	CPOL_RLIM_MEMLOCK = 9,
	CPOL_RLIM_SIGPENDING = 10, /* queued signals and POSIX timers */
	CPOL_RLIM_KERNEL_MAX = 10, /* the last setrlimit() resource */
	CPOL_RLIM_MEMORY = 11, /* bytes, every process and tmpfs page */
	CPOL_RLIM_PIDS = 12,   /* processes and threads at once */
	CPOL_RLIM_DISK = 13,   /* bytes writable: workdir, /tmp, /dev/shm */
	CPOL_RLIM_FILES = 14,  /* inodes in that space */
	CPOL_RLIM_MAX = 14,
};
#define CPOL_RLIM_INFINITY UINT64_MAX

/*
 * ENV: u32 count, then per entry: u8 kind (CPOL_ENV_*), str name, str value
 *      (empty for KEEP).  A SET value may contain "$WORKDIR".
 */
enum cpol_env_kind { CPOL_ENV_KEEP = 1, CPOL_ENV_SET = 2 };

/*
 * ARGV: u32 count (1..CPOL_MAX_ARGV), then count strings.  argv[0] is an
 *       absolute path (no PATH search in the sandbox).  "$SNIPPET" and
 *       "$WORKDIR" inside a word are replaced by the launcher.
 */

/*
 * PRELOAD: u32 count (1..CPOL_MAX_PRELOAD), then count strings, each a
 *          dotted Python module name (letters, digits, '_', '.'; no
 *          empty part, no part starting with a digit; at most
 *          CPOL_MAX_MODULE bytes).  Present only when the policy has a
 *          preload statement; only cordon --serve reads it (a cold run
 *          ignores it).
 */

/*
 * RULES: u32 default_action, u32 count, then per rule: u32 nr, str name,
 *        u32 action (SECCOMP_RET_* with its data), u8 ncond, ncond times
 *        { u8 arg (0..5), u8 op (CPOL_OP_*), u8 width (32 or 64),
 *          u64 mask, u64 value }, str origin ("file:line").
 *        Rules are sorted by (nr, action, conditions).  A syscall with no
 *        rule gets default_action; numbers the compiler did not know get
 *        ENOSYS.  This table is what explain and diff read; the kernel
 *        gets only the SECCOMP section, built from the same rules.
 */
enum cpol_op {
	CPOL_OP_EQ = 1,
	CPOL_OP_NE = 2,
	CPOL_OP_LT = 3,
	CPOL_OP_LE = 4,
	CPOL_OP_GT = 5,
	CPOL_OP_GE = 6,
	CPOL_OP_MASKED_EQ = 7, /* (arg & mask) == value */
	CPOL_OP_MAX = 7,
};

struct cpol_cond {
	uint8_t arg;
	uint8_t op;
	uint8_t width;
	uint64_t mask;
	uint64_t value;
};

struct cpol_rule {
	uint32_t nr;
	char *name;
	uint32_t action;
	uint8_t ncond;
	struct cpol_cond cond[CPOL_MAX_CONDS];
	char *origin;
};

/* 1 when args meet every condition of r, each compared on its width as
 * the filter compares it (cpolrule.c). */
int cpol_rule_matches(const struct cpol_rule *r, const uint64_t args[6]);

/* A rule's origin, in origin.c (the one owner of its syntax): "file:line",
 * or CPOL_ORIGIN_BUILTIN for a rule no statement wrote.  format returns
 * a heap string (NULL when out of memory); split returns a heap copy of
 * the file part with *line set, or of the whole origin with *line 0 when
 * it has no line ("-" for NULL). */
#define CPOL_ORIGIN_BUILTIN "builtin"
char *cpol_origin_format(const char *file, unsigned int line);
char *cpol_origin_split(const char *origin, unsigned int *line);

/* A rule's path as the blob may hold it: absolute or $WORKDIR-based or
 * exactly $SNIPPET, canonical (no "//", ".", "..", trailing /). */
int cpol_path_ok(const char *s);

struct cpol_fs {
	uint64_t access;
	uint8_t flags;
	char *path;
};

struct cpol_net {
	uint8_t kind;
	uint16_t port;
};

struct cpol_env {
	uint8_t kind;
	char *name;
	char *value;
};

struct cpol_limit {
	uint8_t resource;
	uint64_t value;
};

/* A whole policy.  Strings are NUL-terminated heap copies. */
struct cpol {
	uint32_t arch;
	char *name;
	char *description;
	char *compiler_version;
	uint8_t source_digest[32];
	uint32_t landlock_abi_min;
	uint32_t flags;
	uint32_t errata_min;
	struct cpol_insn *insns;
	uint32_t ninsns;
	struct cpol_fs *fs;
	uint32_t nfs;
	struct cpol_net *net;
	uint32_t nnet;
	uint64_t timeout_ms;
	uint64_t output_cap;
	uint64_t session_ms;          /* 0: no session statement */
	struct cpol_limit *limits;
	uint32_t nlimits;
	struct cpol_env *env;
	uint32_t nenv;
	char **argv;
	uint32_t nargv;
	uint32_t default_action;
	struct cpol_rule *rules;
	uint32_t nrules;
	struct cpol_host *hosts;
	uint32_t nhosts;
	char **preload;            /* NULL-terminated; npreload entries */
	uint32_t npreload;
	struct cpol_http *http;
	uint32_t nhttp;
	uint8_t blob_digest[32];   /* filled by the reader: the header's sum */
};

/* How long a session of p may live: its session statement, else its
 * timeout (the one place that says so). */
static inline uint64_t cpol_session_ms(const struct cpol *p)
{
	return p->session_ms ? p->session_ms : p->timeout_ms;
}

/*
 * cpol_read: validate buf[0..len) completely and decode it into *out.
 * Returns 0, or -1 with a message in err (errlen bytes) and *out empty.
 * Makes no system call besides malloc.
 */
int cpol_read(const uint8_t *buf, size_t len, struct cpol *out,
    char *err, size_t errlen);

/* cpol_read_flags: cpol_read with these flags.  CPOL_READ_NO_RULES
 * validates the rules table as fully but keeps only its count (rules is
 * NULL): a launcher needs the program, not the table, and each page the
 * table would take costs it a page fault or two. */
#define CPOL_READ_NO_RULES 1u
int cpol_read_flags(const uint8_t *buf, size_t len, unsigned int flags,
    struct cpol *out, char *err, size_t errlen);

/* cpol_load: read a whole file (no symlink, regular, size-capped), then
 * cpol_read_flags.  Returns 0, or -1 with a message in err. */
int cpol_load(const char *path, unsigned int flags, struct cpol *out,
    char *err, size_t errlen);

/*
 * cpol_write: serialise *p into a fresh heap buffer (*bufp, *lenp).
 * The output depends only on *p: same policy, same bytes.  Returns 0, or
 * -1 with a message in err if *p breaks a limit the reader enforces.
 */
int cpol_write(const struct cpol *p, uint8_t **bufp, size_t *lenp,
    char *err, size_t errlen);

void cpol_free(struct cpol *p);
/* Does host rule w, a wildcard, reach a host with http rules on its
 * port (1, that HTTP host's index in *hi)?  A name below the wildcard
 * that resolves to that host's server would be a plain tunnel around
 * its rules: the compiler refuses it, lint flags it in a blob. */
int cpol_wildcard_over(const struct cpol *p, uint32_t w, uint32_t *hi);
/* How many of p's host rules carry CPOL_HOST_PRIVATE. */
uint32_t cpol_private_count(const struct cpol *p);

/* A dotted Python module name as PRELOAD takes it: 1 or 0. */
int cpol_module_ok(const char *s);

/* Names, for explain and diagnostics; NULL when out of range.  The one
 * table of limit names: the compiler, explain and cordon --limit use it. */
const char *cpol_rlim_name(unsigned int resource);
/* An environment variable's name (and a -D definition's): 1 or more of
 * A-Z, a-z, 0-9 and _, not starting with a digit.  The one spelling. */
int cpol_env_name_ok(const char *s);
/* The kernel's RLIMIT_* for a per-process limit; -1 for a whole-run one. */
int cpol_rlim_kernel(unsigned int resource);
/* The policy flag that makes a whole-run bound required, or 0. */
uint32_t cpol_rlim_required_flag(unsigned int resource);
/* What a limit's value counts: the compiler reads it, cordon's notes
 * write it, in that unit. */
enum cpol_unit { CPOL_UNIT_SIZE, CPOL_UNIT_TIME, CPOL_UNIT_COUNT };
enum cpol_unit cpol_rlim_unit(unsigned int resource);
const char *cpol_op_name(unsigned int op);

#endif
