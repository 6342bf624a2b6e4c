/*
 * httptarget.c - a request target's normal form (see httptarget.h and
 * cordon.policy(5)).  One pass over the target's bytes, then one over
 * its path, each escape decoded once; nothing is copied or rewritten:
 * a target is taken as it is or refused.
 */
#include <stddef.h>
#include <string.h>

#include "httptarget.h"

static const char *const names[] = {
	[HTTPTARGET_OK] = "normal form",
	[HTTPTARGET_NOT_PATH] = "not a path starting with '/'",
	[HTTPTARGET_BYTE] = "a control byte, space, non-ASCII byte, '#' or "
	    "'\\'",
	[HTTPTARGET_ESCAPE] = "a '%' without two hex digits",
	[HTTPTARGET_ENCODED] = "an encoded '.', '/', '\\', '%', ';' or "
	    "control byte in the path",
	[HTTPTARGET_UTF8] = "encoded bytes in the path that are not UTF-8 "
	    "in shortest form",
	[HTTPTARGET_SEGMENT] = "an empty, '.' or '..' segment in the path",
	[HTTPTARGET_PARAM] = "a ';' in the path",
};

const char *httptarget_fault_name(enum httptarget_fault f)
{
	return (unsigned int)f < sizeof(names) / sizeof(names[0]) ? names[f] :
	    "?";
}

static int hex(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ?
	    c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The byte the escape at s ("%XY", either case) stands for, or -1. */
static int unescape(const char *s)
{
	int hi = hex(s[1]), lo = hi < 0 ? -1 : hex(s[2]);

	return lo < 0 ? -1 : hi * 16 + lo;
}

/* UTF-8 in shortest form, one byte at a time: need, the continuation
 * bytes still owed; lo..hi, the next one's range (narrowed after E0 and
 * F0, which would be overlong, ED, a surrogate, and F4, past U+10FFFF). */
struct utf8 {
	unsigned int need;
	unsigned char lo, hi;
};

static int utf8_step(struct utf8 *u, unsigned char b)
{
	if (u->need) {
		if (b < u->lo || b > u->hi)
			return -1;
		u->need--;
		u->lo = 0x80;
		u->hi = 0xbf;
		return 0;
	}
	if (b < 0x80)
		return 0;
	if (b >= 0xc2 && b <= 0xdf) {
		u->need = 1;
	} else if (b >= 0xe0 && b <= 0xef) {
		u->need = 2;
		u->lo = b == 0xe0 ? 0xa0 : 0x80;
		u->hi = b == 0xed ? 0x9f : 0xbf;
	} else if (b >= 0xf0 && b <= 0xf4) {
		u->need = 3;
		u->lo = b == 0xf0 ? 0x90 : 0x80;
		u->hi = b == 0xf4 ? 0x8f : 0xbf;
	} else {
		return -1;              /* C0, C1, F5..FF, a lone continuation */
	}
	return 0;
}

/* The segment s[0..n) ends at a '/' (last: at the path's end). */
static int segment_bad(const char *s, size_t n, int last)
{
	return (n == 0 && !last) || (n == 1 && s[0] == '.') ||
	    (n == 2 && s[0] == '.' && s[1] == '.');
}

/* The path t[0..n). */
static enum httptarget_fault path(const char *t, size_t n)
{
	struct utf8 u = { 0, 0x80, 0xbf };
	size_t i, seg = 1;
	unsigned char c;

	for (i = 1; i <= n; i++) {
		if (i == n || t[i] == '/') {
			if (segment_bad(t + seg, i - seg, i == n))
				return HTTPTARGET_SEGMENT;
			seg = i + 1;
			if (i == n)
				break;
		}
		c = (unsigned char)t[i];
		if (c == ';')
			return HTTPTARGET_PARAM;
		if (c == '%') {
			if (unescape(t + i) < 0)
				return HTTPTARGET_ESCAPE;
			c = (unsigned char)unescape(t + i);
			i += 2;
			if (c < 0x20 || c == 0x7f || c == '.' || c == '/' ||
			    c == '\\' || c == '%' || c == ';')
				return HTTPTARGET_ENCODED;
		}
		if (utf8_step(&u, c) < 0)
			return HTTPTARGET_UTF8;
	}
	return u.need ? HTTPTARGET_UTF8 : HTTPTARGET_OK;
}

enum httptarget_fault httptarget_check(const char *t)
{
	size_t i;
	unsigned char c;

	if (t[0] != '/')
		return HTTPTARGET_NOT_PATH;
	for (i = 0; t[i]; i++) {
		c = (unsigned char)t[i];
		if (c <= ' ' || c >= 0x7f || c == '#' || c == '\\')
			return HTTPTARGET_BYTE;
		if (c == '%' && unescape(t + i) < 0)
			return HTTPTARGET_ESCAPE;
	}
	return path(t, strcspn(t, "?"));
}
