/*
 * auditrec.c - one audit record's text, as the kernel writes it:
 * "audit(SECONDS.MS:SERIAL): key=value key=value ...".  No system calls
 * (tests/fuzz/fuzz_auditrec.c feeds it any bytes).
 *
 * A value is a bare token, or a string the kernel quoted: it quotes a
 * string only when it holds no space, quote or control character, and
 * writes any other one in hexadecimal, unquoted (audit_log_untrustedstring).
 * So values never hold a space, and a string field's bare value is hex.
 * The snippet chooses the paths and its own comm: every byte is input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auditrec.h"

/* The value of key in s[0, n) into out (cut to outlen - 1), 1 if found.
 * hex: a bare value is a string in hexadecimal (decoded when it is). */
static int field(const char *s, size_t n, const char *key, int hex,
    char *out, size_t outlen)
{
	size_t k = strlen(key), i = 0, j, e, o = 0;

	while (i < n) {
		for (e = i; e < n && s[e] != ' '; e++)
			;
		if (e - i > k && memcmp(s + i, key, k) == 0 && s[i + k] == '=')
			break;
		i = e + 1;
	}
	if (i >= n || outlen == 0)
		return 0;
	i += k + 1;
	if (i < e && s[i] == '"' && e - i >= 2 && s[e - 1] == '"') {
		i++;
		e--;
		hex = 0;
	}
	for (j = i; hex && j < e; j++)
		if (!strchr("0123456789ABCDEFabcdef", s[j]) || s[j] == 0)
			hex = 0;
	if (hex && (e - i) % 2 == 0 && e > i) {
		for (j = i; j < e && o + 1 < outlen; j += 2) {
			char h[3] = { s[j], s[j + 1], 0 };

			out[o] = (char)strtoul(h, NULL, 16);
			if (out[o++] == 0)
				o--;
		}
	} else {
		for (j = i; j < e && o + 1 < outlen; j++)
			if (s[j] != 0)
				out[o++] = s[j];
	}
	out[o] = 0;
	return 1;
}

/* A number field (base 10, or 16 for hex), or -1. */
static long number(const char *s, size_t n, const char *key, int base)
{
	char v[24], *end;
	long x;

	if (!field(s, n, key, 0, v, sizeof(v)) || !v[0])
		return -1;
	x = strtol(v, &end, base);
	return *end || x < 0 ? -1 : x;
}

/* "audit(1796175104.766:1884): ": the serial; the body's start in *body. */
static int header(const char *s, size_t n, uint64_t *serial, size_t *body)
{
	size_t i = 6;
	uint64_t v = 0;

	if (n < 6 || memcmp(s, "audit(", 6) != 0)
		return -1;
	while (i < n && s[i] != ':' && s[i] != ')')
		i++;
	if (i >= n || s[i] != ':')
		return -1;
	for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		if (v > UINT64_MAX / 10 - 1)
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (i + 2 > n || s[i] != ')' || s[i + 1] != ':')
		return -1;
	*serial = v;
	*body = i + 2 < n && s[i + 2] == ' ' ? i + 3 : i + 2;
	return 0;
}

/* Landlock's access record: the object, a path or an address. */
static void object(const char *s, size_t n, struct auditrec *r)
{
	char addr[64], port[8];

	if (field(s, n, "daddr", 0, addr, sizeof(addr)) ||
	    field(s, n, "saddr", 0, addr, sizeof(addr))) {
		if (!field(s, n, "dest", 0, port, sizeof(port)) &&
		    !field(s, n, "src", 0, port, sizeof(port)))
			port[0] = 0;
		r->net = 1;
		snprintf(r->object, sizeof(r->object), strchr(addr, ':') ?
		    "[%s]:%s" : "%s:%s", addr, port);
	} else if (!field(s, n, "path", 1, r->object, sizeof(r->object)) &&
	    !field(s, n, "name", 1, r->object, sizeof(r->object))) {
		snprintf(r->object, sizeof(r->object), "?");
	}
}

/* 0: r holds the record's fields; -1: not a record cordon reads. */
int auditrec_parse(int type, const char *text, size_t len,
    struct auditrec *r)
{
	char v[24];
	size_t b;
	const char *s;
	long code;

	memset(r, 0, sizeof(*r));
	r->type = type;
	r->pid = r->syscall = r->sig = -1;
	if (header(text, len, &r->serial, &b) < 0)
		return -1;
	s = text + b;
	len -= b;
	if (type == AUDITREC_LL_ACCESS || type == AUDITREC_LL_DOMAIN) {
		long d = number(s, len, "domain", 16);

		if (d <= 0)
			return -1;
		r->domain = (uint64_t)d;
	}
	r->pid = number(s, len, "pid", 10);
	field(s, len, "comm", 1, r->comm, sizeof(r->comm));
	switch (type) {
	case AUDITREC_LL_ACCESS:
		if (!field(s, len, "blockers", 0, r->access, sizeof(r->access)))
			return -1;
		object(s, len, r);
		return 0;
	case AUDITREC_LL_DOMAIN:
		r->allocated = field(s, len, "status", 0, v, sizeof(v)) &&
		    strcmp(v, "allocated") == 0;
		return 0;
	case AUDITREC_SECCOMP:
		r->syscall = number(s, len, "syscall", 10);
		r->sig = number(s, len, "sig", 10);
		code = field(s, len, "code", 0, v, sizeof(v)) &&
		    strncmp(v, "0x", 2) == 0 ? strtol(v + 2, NULL, 16) : -1;
		if (r->pid < 0 || r->syscall < 0 || code < 0)
			return -1;
		r->code = (uint32_t)code;
		return 0;
	case AUDITREC_SYSCALL:
		r->syscall = number(s, len, "syscall", 10);
		return r->pid < 0 ? -1 : 0;
	case AUDITREC_EOE:
		return 0;
	default:
		return -1;
	}
}
