/* explain_fmt.c - formatting shared by explain's views (explain_fmt.h). */
#include <stdio.h>
#include <string.h>

#include "bpf.h"
#include "explain_fmt.h"
#include "sysdecode.h"
#include "tables.h"
#include "units.h"

const char *explain_arg(const char *syscall, unsigned int arg, char *buf,
    size_t len)
{
	const char *n = tables_arg_name(syscall, arg);

	if (n)
		snprintf(buf, len, "%s", n);
	else
		snprintf(buf, len, "arg%u", arg);
	return buf;
}

/* Which constants name the values of an argument. */
struct hint {
	const char *syscall;
	unsigned int arg;
	const char *prefixes; /* space-separated prefixes or full names */
	int flags;            /* values are OR-ed single bits */
};

static const struct hint hints[] = {
	{ "socket", 0, "AF_", 0 }, { "socketpair", 0, "AF_", 0 },
	{ "socket", 1, "SOCK_", 0 }, { "socketpair", 1, "SOCK_", 0 },
	{ "socket", 2, "IPPROTO_", 0 }, { "socketpair", 2, "IPPROTO_", 0 },
	{ "ioctl", 1, "TC TIOC FIO", 0 }, { "fcntl", 1, "F_", 0 },
	{ "prctl", 0, "PR_", 0 },
	{ "personality", 0, "PER_ ADDR_ READ_IMPLIES_EXEC UNAME26 "
	    "MMAP_PAGE_ZERO SHORT_INODE WHOLE_SECONDS STICKY_TIMEOUTS "
	    "FDPIC_FUNCPTRS", 1 },
	{ "mmap", 2, "PROT_", 1 }, { "mprotect", 2, "PROT_", 1 },
	{ "pkey_mprotect", 2, "PROT_", 1 }, { "mmap", 3, "MAP_", 1 },
	{ "clone", 0, "CLONE_", 1 }, { "unshare", 0, "CLONE_", 1 },
	{ "setns", 1, "CLONE_", 1 },
	{ "open", 1, "O_", 1 }, { "openat", 2, "O_", 1 },
	{ "madvise", 2, "MADV_", 0 }, { "futex", 1, "FUTEX_", 1 },
	{ "kill", 1, "SIG", 0 }, { "tkill", 1, "SIG", 0 },
	{ "tgkill", 2, "SIG", 0 }, { "pidfd_send_signal", 1, "SIG", 0 },
	{ "sendto", 3, "MSG_", 1 }, { "sendmsg", 2, "MSG_", 1 },
	{ "sendmmsg", 3, "MSG_", 1 }, { "recvfrom", 3, "MSG_", 1 },
	{ "recvmsg", 2, "MSG_", 1 }, { "execveat", 4, "AT_", 1 },
	{ "execveat", 0, "AT_FDCWD", 0 }, { "openat", 0, "AT_FDCWD", 0 },
	{ "mknod", 1, "S_I", 1 }, { "mknodat", 2, "S_I", 1 },
	{ "memfd_create", 1, "MFD_", 1 }, { "getrandom", 2, "GRND_", 1 },
};

static const struct hint *find_hint(const char *syscall, unsigned int arg)
{
	size_t i;

	for (i = 0; i < sizeof(hints) / sizeof(hints[0]); i++)
		if (hints[i].arg == arg && strcmp(hints[i].syscall, syscall) == 0)
			return &hints[i];
	return NULL;
}

static int has_prefix(const char *name, const char *prefixes)
{
	const char *p = prefixes;

	while (*p) {
		size_t n = strcspn(p, " ");

		if (strncmp(name, p, n) == 0)
			return 1;
		p += n;
		p += strspn(p, " ");
	}
	return 0;
}

/* The first constant (in table order) with the prefixes and value v
 * (compared on width bits); NULL if none.  onebit: only single bits. */
static const char *lookup(const char *prefixes, unsigned int width,
    uint64_t v, int onebit)
{
	uint64_t m = width == 32 ? 0xffffffffu : ~(uint64_t)0, c;
	const char *n;
	unsigned int i;

	for (i = 0; (n = tables_constant_at(i)) != NULL; i++) {
		if (!has_prefix(n, prefixes) || tables_constant(n, &c) < 0)
			continue;
		if (onebit && (c == 0 || (c & (c - 1))))
			continue;
		/* a 64-bit constant never names a 32-bit value */
		if (width == 32 && c > 0xffffffffu &&
		    c < 0xffffffff80000000u)
			continue;
		if ((c & m) == (v & m))
			return n;
	}
	return NULL;
}

const char *explain_symbol(const char *syscall, unsigned int arg,
    unsigned int width, uint64_t value, char *buf, size_t len)
{
	const struct hint *h = syscall ? find_hint(syscall, arg) : NULL;
	uint64_t rest, bit;
	const char *n;

	if (!h)
		return NULL;
	n = lookup(h->prefixes, width, value, 0);
	if (n) {
		snprintf(buf, len, "%s", n);
		return buf;
	}
	if (!h->flags || value == 0)
		return NULL;
	buf[0] = '\0';
	for (rest = value; rest; rest &= ~bit) {
		bit = rest & -rest;
		n = lookup(h->prefixes, width, bit, 1);
		if (!n)
			return NULL;
		sysdecode_add(buf, len, "%s%s", buf[0] ? "|" : "", n);
	}
	return buf;
}

const char *explain_value(const char *syscall, unsigned int arg,
    unsigned int width, uint64_t value, char *buf, size_t len)
{
	if (width == 32)
		value &= 0xffffffffu;
	if (explain_symbol(syscall, arg, width, value, buf, len))
		return buf;
	if (value < 4096)
		snprintf(buf, len, "%llu", (unsigned long long)value);
	else
		snprintf(buf, len, "0x%llx", (unsigned long long)value);
	return buf;
}

const char *explain_call(const char *syscall, const uint64_t args[6],
    char *buf, size_t len)
{
	char n[32], v[256];
	unsigned int last = 5;

	snprintf(buf, len, "%s(", syscall);
	while (last > 0 && args[last] == 0)
		last--;
	for (unsigned int i = 0; i <= last; i++) {
		unsigned int width = tables_arg_width(syscall, i);

		sysdecode_add(buf, len, "%s%s=%s", i ? ", " : "",
		    explain_arg(syscall, i, n, sizeof(n)),
		    explain_value(syscall, i, width ? width : 64, args[i], v,
		    sizeof(v)));
	}
	sysdecode_add(buf, len, ")");
	return buf;
}

const char *explain_cond(const char *syscall, const struct cpol_cond *c,
    char *buf, size_t len)
{
	char name[32], v[256], m[256];
	const char *op = cpol_op_name(c->op);

	explain_arg(syscall, c->arg, name, sizeof(name));
	explain_value(syscall, c->arg, c->width, c->value, v, sizeof(v));
	/* "prot & PROT_EXEC == 0", but "flags & O_ACCMODE == O_RDONLY" */
	if (c->op == CPOL_OP_MASKED_EQ && c->value == 0 &&
	    (c->mask & (c->mask - 1)) == 0)
		snprintf(v, sizeof(v), "0");
	if (c->op == CPOL_OP_MASKED_EQ && (c->mask | (c->width == 32 ?
	    0xffffffff00000000u : 0)) == ~(uint64_t)0) {
		/* a full mask is plain equality on the argument's width */
		snprintf(buf, len, "%s == %s", name, v);
	} else if (c->op == CPOL_OP_MASKED_EQ) {
		explain_value(syscall, c->arg, c->width, c->mask, m, sizeof(m));
		snprintf(buf, len, "%s & %s == %s", name, m, v);
	} else {
		snprintf(buf, len, "%s %s %s", name, op ? op : "?", v);
	}
	return buf;
}

const char *explain_rule(const struct cpol_rule *r, char *buf, size_t len)
{
	char c[512];
	unsigned int i;

	snprintf(buf, len, "%s", r->name);
	if (!r->ncond)
		return buf;
	sysdecode_add(buf, len, "(");
	for (i = 0; i < r->ncond && i < CPOL_MAX_CONDS; i++)
		sysdecode_add(buf, len, "%s%s", i ? ", " : "",
		    explain_cond(r->name, &r->cond[i], c, sizeof(c)));
	sysdecode_add(buf, len, ")");
	return buf;
}

const char *explain_rights(uint64_t access, char *buf, size_t len)
{
	const char *s = tables_rights_shorthand(access);
	uint64_t rest = access, bits;
	unsigned int i;

	buf[0] = '\0';
	if (s || !access) {
		snprintf(buf, len, "%s", s ? s : "none");
		return buf;
	}
	for (i = 0; (s = tables_rights_pair(i, &bits)) != NULL; i++)
		if ((rest & bits) == bits) {
			sysdecode_add(buf, len, "%s%s", buf[0] ? ", " : "", s);
			rest &= ~bits;
		}
	for (i = 0; i < 64; i++) {
		if (!(rest >> i & 1))
			continue;
		if (i < TABLES_NRIGHTS)
			sysdecode_add(buf, len, "%s%s", buf[0] ? ", " : "",
			    tables_right_name(i));
		else
			sysdecode_add(buf, len, "%sbit%u", buf[0] ? ", " : "", i);
	}
	return buf;
}

const char *explain_size(uint64_t bytes, char *buf, size_t len)
{
	return cpol_unit_format(CPOL_UNIT_SIZE, bytes, buf, len);
}

const char *explain_ms(uint64_t ms, char *buf, size_t len)
{
	return cpol_unit_format(CPOL_UNIT_TIME, ms, buf, len);
}

const char *explain_limit(const struct cpol_limit *l, char *buf,
    size_t len)
{
	if (l->value == CPOL_RLIM_INFINITY) {
		snprintf(buf, len, "unlimited");
		return buf;
	}
	switch (l->resource) {
	case CPOL_RLIM_CPU:
		if (l->value <= UINT64_MAX / 1000)
			return explain_ms(l->value * 1000, buf, len);
		break;
	case CPOL_RLIM_NPROC:
	case CPOL_RLIM_NOFILE:
	case CPOL_RLIM_SIGPENDING:
	case CPOL_RLIM_PIDS:
	case CPOL_RLIM_FILES:
		break;
	default:
		return explain_size(l->value, buf, len);
	}
	snprintf(buf, len, "%llu", (unsigned long long)l->value);
	return buf;
}

const char *explain_digest(const uint8_t d[32], char *buf, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	int any = 0;
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < 32; i++)
		any |= d[i];
	if (!any || len < 65)
		return NULL;
	for (i = 0; i < 32; i++) {
		buf[2 * i] = hex[d[i] >> 4];
		buf[2 * i + 1] = hex[d[i] & 15];
	}
	buf[64] = '\0';
	return buf;
}
