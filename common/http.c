/*
 * http.c - what an HTTP rule of a named host may say (a method, a path
 * prefix, a credential's header template) and which requests it lets
 * through.  The compiler, the blob reader and the launcher use these, so
 * a rule means one thing everywhere.  No system call.
 */
#include <string.h>

#include "cpol.h"

int cpol_http_method_ok(const char *s)
{
	size_t n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ");

	return n > 0 && n <= CPOL_MAX_HTTP_METHOD && s[n] == '\0';
}

static int printable(char ch)
{
	return ch > ' ' && ch < 0x7f;
}

/* Does the path hold a "." or ".." segment, or an encoded '.', '/' or
 * '\\' (a server may decode them after the proxy matched)? */
static int dotted(const char *s)
{
	const char *p;

	for (p = s; *p; p++) {
		if (*p == '%' && p[1] && p[2] && (p[1] == '2' || p[1] == '5') &&
		    strchr("eEfFcC", p[2]))
			return 1;
		if (*p == '/' && p[1] == '.' && (p[2] == '/' || p[2] == '\0' ||
		    p[2] == '?' || (p[2] == '.' && (p[3] == '/' ||
		    p[3] == '\0' || p[3] == '?'))))
			return 1;
	}
	return 0;
}

int cpol_http_prefix_ok(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > CPOL_MAX_HTTP_PREFIX || s[0] != '/')
		return 0;
	for (i = 0; i < n; i++)
		if (!printable(s[i]) || s[i] == '#' || s[i] == '\\')
			return 0;
	return !dotted(s);
}

int cpol_http_header_ok(const char *s)
{
	static const char tchar[] = "!#$%&'*+-.^_`|~0123456789"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
	size_t name = strspn(s, tchar), i, n = strlen(s);
	const char *at;

	if (n > CPOL_MAX_HTTP_HEADER || name == 0 || s[name] != ':' ||
	    s[name + 1] != ' ')
		return 0;
	for (i = name + 2; i < n; i++)
		if (s[i] < ' ' || s[i] >= 0x7f)
			return 0;
	at = strstr(s + name, "{}");
	return at && !strstr(at + 2, "{}");
}

int cpol_http_allows(const struct cpol_http *h, const char *method,
    const char *path)
{
	uint32_t i;
	size_t n;

	if (!cpol_http_method_ok(method) || path[0] != '/' || dotted(path) ||
	    strchr(path, '\\'))
		return 0;
	if (h->nrules == 0)
		return 1;
	for (i = 0; i < h->nrules; i++) {
		n = strlen(h->rules[i].prefix);
		if (strcmp(h->rules[i].method, method) == 0 &&
		    strncmp(h->rules[i].prefix, path, n) == 0)
			return 1;
	}
	return 0;
}
