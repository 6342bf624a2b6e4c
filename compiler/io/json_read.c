/* json_read.c - strict, bounded JSON reader (see json_read.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "infile.h"
#include "utf8.h"
#include "json_read.h"

struct cur {
	const char *p, *end;
	unsigned int line;
	char *err;
	size_t errlen;
	int failed;
};

static int bad(struct cur *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int bad(struct cur *c, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (c->failed)
		return -1;
	c->failed = 1;
	n = snprintf(c->err, c->errlen, "line %u: ", c->line);
	if (n < 0 || (size_t)n >= c->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static void skip_ws(struct cur *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' ||
	    *c->p == '\n' || *c->p == '\r')) {
		if (*c->p == '\n')
			c->line++;
		c->p++;
	}
}

static int literal(struct cur *c, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n) != 0)
		return bad(c, "unexpected character '%c'", *c->p);
	c->p += n;
	return 0;
}

static int put_utf8(char *out, size_t *o, uint32_t cp)
{
	if (cp < 0x80) {
		out[(*o)++] = (char)cp;
	} else if (cp < 0x800) {
		out[(*o)++] = (char)(0xc0 | cp >> 6);
		out[(*o)++] = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		out[(*o)++] = (char)(0xe0 | cp >> 12);
		out[(*o)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[(*o)++] = (char)(0x80 | (cp & 0x3f));
	} else {
		out[(*o)++] = (char)(0xf0 | cp >> 18);
		out[(*o)++] = (char)(0x80 | ((cp >> 12) & 0x3f));
		out[(*o)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[(*o)++] = (char)(0x80 | (cp & 0x3f));
	}
	return 0;
}

static int hex4(struct cur *c, uint32_t *v)
{
	*v = 0;
	if (c->end - c->p < 4)
		return bad(c, "short \\u escape");
	for (int i = 0; i < 4; i++) {
		char h = *c->p++;
		uint32_t d;

		if (h >= '0' && h <= '9')
			d = (uint32_t)(h - '0');
		else if (h >= 'a' && h <= 'f')
			d = (uint32_t)(h - 'a' + 10);
		else if (h >= 'A' && h <= 'F')
			d = (uint32_t)(h - 'A' + 10);
		else
			return bad(c, "bad \\u escape");
		*v = *v << 4 | d;
	}
	return 0;
}

static int escape(struct cur *c, char *out, size_t *o)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *k;
	uint32_t cp, lo;

	if (c->p >= c->end)
		return bad(c, "unterminated string");
	if (*c->p != 'u') {
		k = strchr(from, *c->p);
		if (!k || !*c->p)
			return bad(c, "bad escape \\%c", *c->p);
		out[(*o)++] = to[k - from];
		c->p++;
		return 0;
	}
	c->p++;
	if (hex4(c, &cp) < 0)
		return -1;
	if (cp >= 0xdc00 && cp <= 0xdfff)
		return bad(c, "lone low surrogate");
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if (c->end - c->p < 2 || c->p[0] != '\\' || c->p[1] != 'u')
			return bad(c, "lone high surrogate");
		c->p += 2;
		if (hex4(c, &lo) < 0)
			return -1;
		if (lo < 0xdc00 || lo > 0xdfff)
			return bad(c, "bad surrogate pair");
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	if (cp == 0)
		return bad(c, "NUL in a string");
	return put_utf8(out, o, cp);
}

/* A string at c->p (just past the opening quote) into a heap copy. */
static char *string(struct cur *c)
{
	const char *start = c->p;
	size_t o = 0, n;
	uint32_t cp;
	char *out;

	while (c->p < c->end && *c->p != '"')
		c->p += (*c->p == '\\' && c->p + 1 < c->end) ? 2 : 1;
	if (c->p >= c->end || (size_t)(c->p - start) > JSON_MAX_STR) {
		bad(c, c->p >= c->end ? "unterminated string" :
		    "string longer than %u bytes", JSON_MAX_STR);
		return NULL;
	}
	out = malloc((size_t)(c->p - start) + 1);
	if (!out) {
		bad(c, "out of memory");
		return NULL;
	}
	for (c->p = start; *c->p != '"';) {
		unsigned char b = (unsigned char)*c->p;

		if (b < 0x20) {
			bad(c, "control character in a string");
			goto fail;
		} else if (b == '\\') {
			c->p++;
			if (escape(c, out, &o) < 0)
				goto fail;
		} else if (b < 0x80) {
			out[o++] = *c->p++;
		} else if ((n = utf8_decode((const unsigned char *)c->p,
		    &cp)) == 0) {
			bad(c, "invalid UTF-8");
			goto fail;
		} else {
			memcpy(out + o, c->p, n);
			o += n;
			c->p += n;
		}
	}
	c->p++;
	out[o] = '\0';
	return out;
fail:
	free(out);
	return NULL;
}

static int number(struct cur *c, struct json_val *v)
{
	const char *s = c->p;
	int integer = 1, neg = 0;
	uint64_t n = 0;

	if (c->p < c->end && *c->p == '-') {
		neg = 1;
		c->p++;
	}
	if (c->p >= c->end || *c->p < '0' || *c->p > '9')
		return bad(c, "bad number");
	if (*c->p == '0' && c->p + 1 < c->end && c->p[1] >= '0' &&
	    c->p[1] <= '9')
		return bad(c, "leading zero in a number");
	for (; c->p < c->end && *c->p >= '0' && *c->p <= '9'; c->p++) {
		unsigned d = (unsigned)(*c->p - '0');

		if (n > (UINT64_MAX - d) / 10)
			integer = 0;
		n = n * 10 + d;
	}
	if (c->p < c->end && *c->p == '.') {
		integer = 0;
		if (++c->p >= c->end || *c->p < '0' || *c->p > '9')
			return bad(c, "bad number");
		while (c->p < c->end && *c->p >= '0' && *c->p <= '9')
			c->p++;
	}
	if (c->p < c->end && (*c->p == 'e' || *c->p == 'E')) {
		integer = 0;
		c->p++;
		if (c->p < c->end && (*c->p == '+' || *c->p == '-'))
			c->p++;
		if (c->p >= c->end || *c->p < '0' || *c->p > '9')
			return bad(c, "bad number");
		while (c->p < c->end && *c->p >= '0' && *c->p <= '9')
			c->p++;
	}
	v->type = JSON_NUM;
	v->is_uint = integer && !(neg && n != 0);
	v->num = v->is_uint ? n : 0;
	v->str = strndup(s, (size_t)(c->p - s));
	return v->str ? 0 : bad(c, "out of memory");
}

static int value(struct cur *c, struct json_val *v, unsigned int depth);

/* Grow an array/object by one slot. */
static struct json_val *grow(struct cur *c, struct json_val *v, int keys)
{
	struct json_val *items;

	if (v->n >= JSON_MAX_ITEMS) {
		bad(c, "more than %u items", JSON_MAX_ITEMS);
		return NULL;
	}
	items = realloc(v->items, (v->n + 1) * sizeof(*items));
	if (items)
		v->items = items;
	if (items && keys) {
		char **k = realloc(v->keys, (v->n + 1) * sizeof(*k));

		if (!k)
			items = NULL;
		else
			v->keys = k;
	}
	if (!items) {
		bad(c, "out of memory");
		return NULL;
	}
	memset(&items[v->n], 0, sizeof(items[v->n]));
	return &items[v->n];
}

static int member(struct cur *c, struct json_val *v, unsigned int depth)
{
	struct json_val *slot;
	char *key;

	skip_ws(c);
	if (c->p >= c->end || *c->p != '"')
		return bad(c, "expected a string key");
	c->p++;
	key = string(c);
	if (!key)
		return -1;
	if (json_get(v, key)) {
		bad(c, "duplicate key \"%s\"", key);
		free(key);
		return -1;
	}
	slot = grow(c, v, 1);
	if (!slot) {
		free(key);
		return -1;
	}
	v->keys[v->n] = key;
	v->n++;
	skip_ws(c);
	if (c->p >= c->end || *c->p != ':')
		return bad(c, "expected ':'");
	c->p++;
	return value(c, slot, depth + 1);
}

/* Array or object after its opening bracket. */
static int container(struct cur *c, struct json_val *v, unsigned int depth)
{
	char close = v->type == JSON_OBJ ? '}' : ']';
	struct json_val *slot;

	if (depth >= JSON_MAX_DEPTH)
		return bad(c, "nested deeper than %d", JSON_MAX_DEPTH);
	skip_ws(c);
	if (c->p < c->end && *c->p == close) {
		c->p++;
		return 0;
	}
	for (;;) {
		if (v->type == JSON_OBJ) {
			if (member(c, v, depth) < 0)
				return -1;
		} else {
			if (!(slot = grow(c, v, 0)))
				return -1;
			v->n++;
			if (value(c, slot, depth + 1) < 0)
				return -1;
		}
		skip_ws(c);
		if (c->p < c->end && *c->p == ',') {
			c->p++;
			continue;
		}
		if (c->p < c->end && *c->p == close) {
			c->p++;
			return 0;
		}
		return bad(c, "expected ',' or '%c'", close);
	}
}

static int value(struct cur *c, struct json_val *v, unsigned int depth)
{
	skip_ws(c);
	if (c->p >= c->end)
		return bad(c, "unexpected end of input");
	v->line = c->line;
	switch (*c->p) {
	case '{':
	case '[':
		v->type = *c->p++ == '{' ? JSON_OBJ : JSON_ARR;
		return container(c, v, depth);
	case '"':
		c->p++;
		v->type = JSON_STR;
		v->str = string(c);
		return v->str ? 0 : -1;
	case 't':
		v->type = JSON_BOOL;
		v->boolean = 1;
		return literal(c, "true");
	case 'f':
		v->type = JSON_BOOL;
		return literal(c, "false");
	case 'n':
		v->type = JSON_NULL;
		return literal(c, "null");
	default:
		return number(c, v);
	}
}

int json_parse(const char *buf, size_t len, struct json_val *out,
    char *err, size_t errlen)
{
	struct cur c = { buf, buf + len, 1, err, errlen, 0 };

	memset(out, 0, sizeof(*out));
	if (len > JSON_MAX_SIZE)
		return bad(&c, "larger than %u bytes", JSON_MAX_SIZE);
	if (value(&c, out, 0) == 0) {
		skip_ws(&c);
		if (c.p == c.end)
			return 0;
		bad(&c, "trailing characters after the value");
	}
	json_free(out);
	return -1;
}

int json_load(const char *path, struct json_val *out, char *err,
    size_t errlen)
{
	struct stat st;
	char *buf = NULL;
	size_t got = 0;
	ssize_t n;
	int fd, r = -1;

	memset(out, 0, sizeof(*out));
	fd = infile_open(path, 0, &st);
	if (fd < 0) {
		snprintf(err, errlen, "%s", infile_strerror(errno));
		goto close_fd;
	}
	if (st.st_size > (off_t)JSON_MAX_SIZE) {
		snprintf(err, errlen, "larger than %u bytes", JSON_MAX_SIZE);
		goto close_fd;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		snprintf(err, errlen, "out of memory");
		goto close_fd;
	}
	while (got <= (size_t)st.st_size &&
	    (n = read(fd, buf + got, (size_t)st.st_size + 1 - got)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(err, errlen, "%s", strerror(errno));
			goto close_fd;
		}
		got += (size_t)n;
	}
	if (got != (size_t)st.st_size) {
		snprintf(err, errlen, "file changed while read");
		goto close_fd;
	}
	r = json_parse(buf, got, out, err, errlen);
close_fd:
	free(buf);
	if (fd >= 0)
		close(fd);
	return r;
}

void json_free(struct json_val *v)
{
	unsigned int i;

	for (i = 0; i < v->n; i++) {
		json_free(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
	memset(v, 0, sizeof(*v));
}

const struct json_val *json_get(const struct json_val *v, const char *key)
{
	unsigned int i;

	if (!v || v->type != JSON_OBJ)
		return NULL;
	for (i = 0; i < v->n; i++)
		if (strcmp(v->keys[i], key) == 0)
			return &v->items[i];
	return NULL;
}

