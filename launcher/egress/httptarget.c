/*
 * httptarget.c - a request target's normal form (see httptarget.h and
 * cordon.policy(5)).  One pass over the target's bytes, then one over
 * its path, each escape decoded once; nothing is copied or rewritten:
 * a target is taken as it is or refused.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "httptarget.h"
#include "utf8.h"

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

/* The byte at t[i], an escape decoded; *w, how many bytes it takes. */
static int unit(const char *t, size_t i, size_t *w)
{
	*w = t[i] == '%' ? 3 : 1;
	return t[i] == '%' ? unescape(t + i) : (unsigned char)t[i];
}

/* An escaped byte at or above 0x80 at t[i] starts a sequence: its bytes,
 * decoded (a raw byte is ASCII: it ends one), must be UTF-8 in shortest
 * form by common/utf8.c.  The number of target bytes it spans, or 0. */
static size_t sequence(const char *t, size_t i, size_t n)
{
	unsigned char seq[5] = { 0 };
	size_t k, w, at = i, len;
	uint32_t cp;
	int b;

	for (k = 0; k < 4 && at < n && (b = unit(t, at, &w)) >= 0; k++) {
		seq[k] = (unsigned char)b;
		at += w;
	}
	len = utf8_decode(seq, &cp);
	for (at = i, k = 0; k < len; k++)
		at += t[at] == '%' ? 3 : 1;
	return len > 1 ? at - i : 0;
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
	size_t i, w, seg = 1;
	int c;

	for (i = 1; i <= n; i += w) {
		w = 1;
		if (i == n || t[i] == '/') {
			if (segment_bad(t + seg, i - seg, i == n))
				return HTTPTARGET_SEGMENT;
			seg = i + 1;
			if (i == n)
				break;
		}
		if (t[i] == ';')
			return HTTPTARGET_PARAM;
		if ((c = unit(t, i, &w)) < 0)
			return HTTPTARGET_ESCAPE;
		if (c < 0x20 || c == 0x7f || (w == 3 && (c == '.' ||
		    c == '/' || c == '\\' || c == '%' || c == ';')))
			return HTTPTARGET_ENCODED;
		if (c >= 0x80 && (w = sequence(t, i, n)) == 0)
			return HTTPTARGET_UTF8;
	}
	return HTTPTARGET_OK;
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
