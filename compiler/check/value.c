/*
 * value.c - values of the semantic pass: definitions (define statements
 * and -D), numbers and symbolic constants, quantities with units,
 * strings with ${NAME} substituted, actions.  No system calls.
 */
#include <ctype.h>
#include <errno.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "action.h"
#include "checkctx.h"
#include "units.h"
#include "tables.h"

/* -D NAME=VALUE: a number (with unit) if it reads as one, else a string. */
static struct ast_val *cmdline_value(const char *text)
{
	static const struct ast_loc none;
	struct ast_val *v;
	const char *p = text + (text[0] == '-');
	char *end;
	int base = 10;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		base = 16, p += 2;
	if (!isxdigit((unsigned char)*p) || (base == 10 &&
	    !isdigit((unsigned char)*p))) {
		v = ast_val_new(AST_V_STR, &none);
		if (v && !(v->str = strdup(text)))
			ast_val_free(v), v = NULL;
		return v;
	}
	v = ast_val_new(AST_V_NUM, &none);
	if (!v)
		return NULL;
	errno = 0;
	v->num = strtoull(p, &end, base);
	v->neg = text[0] == '-';
	if (*end) {
		v->kind = AST_V_QTY;
		if (!(v->str = strdup(end)))
			ast_val_free(v), v = NULL;
	}
	return v;
}

int value_init(struct check_ctx *c)
{
	struct ast_val *v;
	unsigned int i;

	for (i = c->p->ndefines; i > 0; i--) {
		v = cmdline_value(c->p->defines[i - 1].value);
		if (!v)
			return -1;
		v->next = c->cmdline;
		c->cmdline = v;
	}
	return 0;
}

void value_fini(struct check_ctx *c)
{
	ast_val_free(c->cmdline);
	c->cmdline = NULL;
}

/* -D first, then the merged define statements. */
static const struct ast_val *lookup(struct check_ctx *c, const char *name)
{
	const struct ast_val *v = c->cmdline;
	unsigned int i;

	for (i = 0; v && i < c->p->ndefines; i++, v = v->next)
		if (strcmp(c->p->defines[i].name, name) == 0)
			return v;
	for (i = 0; i < c->defs.n; i++)
		if (strcmp(c->defs.m[i].key, name) == 0)
			return c->defs.m[i].v;
	return NULL;
}

static const struct ast_val *resolve(struct check_ctx *c,
    const struct ast_val *v)
{
	const struct ast_val *r = v;
	int depth;

	for (depth = 0; r && r->kind == AST_V_VAR; depth++) {
		if (depth == CHECK_MAX_DEFINE_DEPTH) {
			diag_error(c->d, &v->loc, "definitions of ${%s} nest "
			    "deeper than %d", v->str, CHECK_MAX_DEFINE_DEPTH);
			return NULL;
		}
		r = lookup(c, r->str);
		if (!r)
			diag_error(c->d, &v->loc, "${%s} is not defined "
			    "(define it, or pass -D %s=VALUE)", v->str, v->str);
	}
	return r;
}

static int atom_num(struct check_ctx *c, const struct ast_val *v,
    uint64_t *mag, int *neg)
{
	char dym[DIAG_SUGGEST_MAX];
	const char *s;

	if (!(v = resolve(c, v)))
		return -1;
	switch (v->kind) {
	case AST_V_NUM:
		*mag = v->num;
		*neg = v->neg && v->num != 0;
		return 0;
	case AST_V_IDENT:
		*neg = 0;
		if (tables_constant(v->str, mag) == 0)
			return 0;
		s = tables_suggest('c', v->str);
		diag_error(c->d, &v->loc, "unknown constant %s%s", v->str,
		    diag_did_you_mean(dym, sizeof(dym), "", s, ""));
		return -1;
	case AST_V_QTY:
		*neg = v->neg;
		return value_qty(c, v, VALUE_SIZE, 0, mag);
	default:
		diag_error(c->d, &v->loc, "expected a number or a constant");
		return -1;
	}
}

int value_num(struct check_ctx *c, const struct ast_val *v, uint64_t *mag,
    int *neg)
{
	const struct ast_val *a;
	uint64_t m;
	int n;

	if (atom_num(c, v, mag, neg) < 0)
		return -1;
	for (a = v->alt; a; a = a->alt) {
		if (atom_num(c, a, &m, &n) < 0)
			return -1;
		if (n || *neg) {
			diag_error(c->d, &a->loc, "a negative number cannot be "
			    "combined with |");
			return -1;
		}
		*mag |= m;
	}
	return 0;
}

static const char *const unit_help[] = {
	[VALUE_SIZE] = "a size (plain bytes, or K, M, G, T)",
	[VALUE_TIME] = "a time (plain seconds, or ms, s, m, h)",
	[VALUE_COUNT] = "a plain count, without a unit",
};

/* Scale of a unit (common/units.c) for its kind, or 0. */
static uint64_t unit_scale(const char *u, enum value_unit unit)
{
	const struct cpol_unit_def *f = cpol_unit_find(u);

	return f && (enum value_unit)f->kind == unit ? f->scale : 0;
}

/* The unit meant by a spelling from elsewhere (sec, GB, MiB, M for
 * minutes), or NULL. */
static const char *unit_meant(const char *u, enum value_unit unit)
{
	static const struct { const char *from, *to; } alias[] = {
		{ "sec", "s" }, { "secs", "s" }, { "second", "s" },
		{ "seconds", "s" }, { "msec", "ms" }, { "msecs", "ms" },
		{ "millis", "ms" }, { "min", "m" }, { "mins", "m" },
		{ "minute", "m" }, { "minutes", "m" }, { "hr", "h" },
		{ "hrs", "h" }, { "hour", "h" }, { "hours", "h" },
		{ "KB", "K" }, { "KiB", "K" }, { "MB", "M" }, { "MiB", "M" },
		{ "GB", "G" }, { "GiB", "G" }, { "TB", "T" }, { "TiB", "T" },
	};
	const struct cpol_unit_def *f;
	size_t i;

	for (i = 0; i < sizeof(alias) / sizeof(alias[0]); i++)
		if (strcasecmp(alias[i].from, u) == 0 &&
		    unit_scale(alias[i].to, unit))
			return alias[i].to;
	for (i = 0; (f = cpol_unit_at(i)) != NULL; i++)
		if ((enum value_unit)f->kind == unit &&
		    strcasecmp(f->name, u) == 0)
			return f->name;
	return NULL;
}

/* "timeout 10 sec": a unit apart from its number. */
static void spaced(struct check_ctx *c, const struct ast_val *v,
    enum value_unit unit)
{
	char dym[DIAG_SUGGEST_MAX];
	const char *meant = unit_meant(v->str, unit);

	if (unit_scale(v->str, unit))
		diag_error(c->d, &v->unit_loc, "write %llu%s: a unit is "
		    "written against its number", (unsigned long long)v->num,
		    v->str);
	else if (meant)
		diag_error(c->d, &v->unit_loc, "unknown unit %s%s", v->str,
		    diag_did_you_mean(dym, sizeof(dym), "", meant, ""));
	else
		diag_error(c->d, &v->unit_loc, "unknown unit %s: expected %s",
		    v->str, unit_help[unit]);
}

int value_qty(struct check_ctx *c, const struct ast_val *v,
    enum value_unit unit, int allow_inf, uint64_t *out)
{
	uint64_t scale = 1;

	if (!(v = resolve(c, v)))
		return -1;
	if (v->kind == AST_V_IDENT && strcmp(v->str, "unlimited") == 0) {
		if (allow_inf) {
			*out = CPOL_RLIM_INFINITY;
			return 0;
		}
		diag_error(c->d, &v->loc, "this value cannot be unlimited");
		return -1;
	}
	if ((v->kind != AST_V_NUM && v->kind != AST_V_QTY) || v->alt) {
		diag_error(c->d, &v->loc, "expected %s", unit_help[unit]);
		return -1;
	}
	if (v->neg && v->num != 0) {
		diag_error(c->d, &v->loc, "negative value");
		return -1;
	}
	if (v->spaced) {
		spaced(c, v, unit);
		return -1;
	}
	if (v->kind == AST_V_QTY)
		scale = unit_scale(v->str, unit);
	else if (unit != VALUE_COUNT)
		scale = cpol_unit_bare((enum cpol_unit)unit);
	if (scale == 0) {
		char dym[DIAG_SUGGEST_MAX];

		diag_error(c->d, &v->loc, "bad unit \"%s\": expected %s%s",
		    v->str, unit_help[unit], diag_did_you_mean(dym,
		    sizeof(dym), "", unit_meant(v->str, unit), ""));
		return -1;
	}
	if (v->num > UINT64_MAX / scale ||
	    (v->num * scale == CPOL_RLIM_INFINITY && allow_inf)) {
		diag_error(c->d, &v->loc, "value too large");
		return -1;
	}
	*out = v->num * scale;
	return 0;
}

/* Append n bytes to a heap string; -1 after an error. */
static int append(struct check_ctx *c, char **s, size_t *len,
    const char *add, size_t n)
{
	size_t size = *len + n + 1;
	char *ns;

	if (size <= *len)             /* overflow: never a zero-size realloc */
		return -1;
	ns = realloc(*s, size);
	if (!ns) {                    /* *s is still ours: the caller frees */
		(void)check_mem(c, ns);   /* says "out of memory" */
		return -1;
	}
	memcpy(ns + *len, add, n);
	*len += n;
	ns[*len] = '\0';
	*s = ns;
	return 0;
}

/* One ${NAME} inside a string: its text appended, or -1. */
static int substitute(struct check_ctx *c, const struct ast_val *v,
    const char *name, size_t n, char **s, size_t *len)
{
	char key[128], num[32];
	const struct ast_val *d;

	snprintf(key, sizeof(key), "%.*s", (int)(n < 127 ? n : 127), name);
	d = lookup(c, key);
	if (!d || (d->kind != AST_V_STR && d->kind != AST_V_NUM)) {
		diag_error(c->d, &v->loc, d ? "${%s} is not a string or a "
		    "number" : "${%s} is not defined (define it, or pass -D "
		    "%s=VALUE)", key, key);
		return -1;
	}
	if (d->kind == AST_V_STR)
		return append(c, s, len, d->str, strlen(d->str));
	snprintf(num, sizeof(num), "%s%llu", d->neg ? "-" : "",
	    (unsigned long long)d->num);
	return append(c, s, len, num, strlen(num));
}

int value_str(struct check_ctx *c, const struct ast_val *v, char **out)
{
	const char *p, *open, *close;
	char *s = NULL;
	size_t len = 0;

	*out = NULL;
	if (!(v = resolve(c, v)))
		return -1;
	if (v->kind != AST_V_STR || v->alt) {
		diag_error(c->d, &v->loc, "expected a string");
		return -1;
	}
	if (append(c, &s, &len, "", 0) < 0)
		goto nomem;
	for (p = v->str; (open = strstr(p, "${")); p = close + 1) {
		close = strchr(open, '}');
		if (!close)
			break;
		if (append(c, &s, &len, p, (size_t)(open - p)) < 0)
			goto nomem;
		if (substitute(c, v, open + 2, (size_t)(close - open - 2), &s,
		    &len) < 0) {
			free(s);
			return -1;
		}
	}
	if (append(c, &s, &len, p, strlen(p)) < 0)
		goto nomem;
	*out = s;
	return 0;
nomem:
	free(s);
	return -1;
}

int value_errno(struct check_ctx *c, const struct ast_val *v, uint32_t *out)
{
	char dym[DIAG_SUGGEST_MAX];
	const struct ast_val *r = resolve(c, v);
	const char *s;
	int e;

	if (!r)
		return -1;
	if (r->kind == AST_V_IDENT) {
		e = cpol_errno_value(r->str);
		if (e >= 0) {
			*out = (uint32_t)e;
			return 0;
		}
		s = tables_suggest('e', r->str);
		diag_error(c->d, &r->loc, "unknown errno name %s%s", r->str,
		    diag_did_you_mean(dym, sizeof(dym), "", s, ""));
		return -1;
	}
	if (r->kind != AST_V_NUM || r->alt || (r->neg && r->num) ||
	    r->num > 4095) {
		diag_error(c->d, &r->loc, "errno must be a name (EPERM) or a "
		    "number from 0 to 4095");
		return -1;
	}
	*out = (uint32_t)r->num;
	return 0;
}

int value_action(struct check_ctx *c, const struct ast_action *a,
    uint32_t *out)
{
	uint32_t e;

	switch (a->kind) {
	case AST_A_ALLOW: *out = SECCOMP_RET_ALLOW; return 0;
	case AST_A_KILL: *out = SECCOMP_RET_KILL_PROCESS; return 0;
	case AST_A_TRAP: *out = SECCOMP_RET_TRAP; return 0;
	case AST_A_LOG: *out = SECCOMP_RET_LOG; return 0;
	case AST_A_ERRNO:
		if (value_errno(c, a->errno_val, &e) < 0)
			return -1;
		*out = SECCOMP_RET_ERRNO | e;
		return 0;
	default:
		diag_error(c->d, &a->loc, "\"deny\" is only for expectations");
		return -1;
	}
}
