/*
 * input.c - load a policy for the audit tools (see input.h): a blob as
 * is, or a source through parse, check, emit and translation validation,
 * keeping what only the source knows (statement locations, lint
 * comments, expectations).  Reads the AST; changes nothing in it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emit.h"
#include "infile.h"
#include "input.h"
#include "parse.h"

static int is_blob(const char *path)
{
	char magic[CPOL_MAGIC_LEN];
	struct stat st;
	int fd = infile_open(path, 0, &st);
	ssize_t n;

	if (fd < 0)
		return 0;   /* the source reader reports why */
	n = read(fd, magic, sizeof(magic));
	close(fd);
	return n == CPOL_MAGIC_LEN && memcmp(magic, CPOL_MAGIC,
	    CPOL_MAGIC_LEN) == 0;
}

char *input_origin_file(const char *origin, unsigned int *line)
{
	const char *colon = origin ? strrchr(origin, ':') : NULL;
	char *end;
	unsigned long n;

	*line = 0;
	if (!origin)
		return strdup("-");
	if (!colon || colon[1] == '\0')
		return strdup(origin);
	errno = 0;
	n = strtoul(colon + 1, &end, 10);
	if (*end || errno || n > 0xffffffffu)
		return strdup(origin);
	*line = (unsigned int)n;
	return strndup(origin, (size_t)(colon - origin));
}

const char *input_file_path(const struct input *in, const char *name)
{
	for (unsigned int i = 0; i < in->nfiles; i++)
		if (strcmp(in->file_names[i], name) == 0)
			return in->file_paths[i];
	return name;
}

const char *input_where(const struct input *in, int kind, const char *key,
    unsigned int *line)
{
	const struct input_stmt *hit = NULL;

	for (unsigned int i = 0; i < in->nstmts; i++) {
		const struct input_stmt *s = &in->stmts[i];

		if (s->kind == kind && (!key || (s->key &&
		    strcmp(s->key, key) == 0)))
			hit = s;   /* the last one wins, as in merging */
	}
	for (unsigned int i = 0; !hit && i < in->nstmts; i++)
		if (in->stmts[i].kind == INPUT_POLICY)
			hit = &in->stmts[i];
	if (hit) {
		*line = hit->line;
		return hit->file;
	}
	*line = 0;
	return in->path;
}

static int stmt_add(struct input *in, int kind, const char *key,
    const struct ast_loc *loc)
{
	struct input_stmt *v, *s;

	v = realloc(in->stmts, (in->nstmts + 1) * sizeof(*v));
	if (!v)
		return -1;
	in->stmts = v;
	s = &v[in->nstmts];
	s->kind = kind;
	s->line = loc->first_line > 0 ? (unsigned int)loc->first_line : 0;
	s->file = strdup(loc->file ? loc->file : in->path);
	s->key = key ? strdup(key) : NULL;
	if (!s->file || (key && !s->key)) {
		free(s->file);
		free(s->key);
		return -1;
	}
	in->nstmts++;
	return 0;
}

/* A path as check.c would compile it, when it is written literally. */
static char *path_key(const struct ast_val *v)
{
	char *s;
	size_t n;

	if (!v || v->kind != AST_V_STR || !v->str)
		return NULL;
	if (!(s = strdup(v->str)))
		return NULL;
	n = strlen(s);
	while (n > 1 && s[n - 1] == '/')
		s[--n] = '\0';
	return s;
}

static const int kinds[][2] = {
	{ AST_POLICY, INPUT_POLICY }, { AST_NETWORK, INPUT_NETWORK },
	{ AST_TIMEOUT, INPUT_TIMEOUT }, { AST_OUTPUT, INPUT_OUTPUT },
	{ AST_DEFAULT, INPUT_DEFAULT }, { AST_LANDLOCK, INPUT_LANDLOCK },
	{ AST_BEST_EFFORT, INPUT_BEST_EFFORT }, { AST_COMMAND, INPUT_COMMAND },
	{ AST_LIMIT, INPUT_LIMIT },
};

static int stmt_one(struct input *in, const struct ast_stmt *s)
{
	const struct ast_item *it;
	char *key;
	int r;

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if ((int)s->kind == kinds[i][0])
			return stmt_add(in, kinds[i][1], s->kind == AST_LIMIT ?
			    s->name : NULL, &s->loc);
	if (s->kind == AST_PRIVATE && !(s->flags & AST_F_REQUIRED))
		return stmt_add(in, INPUT_BEST_EFFORT, NULL, &s->loc);
	if (s->kind == AST_PATH) {
		key = path_key(s->val);
		r = stmt_add(in, INPUT_PATH, key, &s->loc);
		free(key);
		return r;
	}
	if (s->kind != AST_ENV_KEEP && s->kind != AST_ENV_SET)
		return 0;
	for (it = s->items; it; it = it->next)
		if (stmt_add(in, INPUT_ENV, it->name, &it->loc) < 0)
			return -1;
	return 0;
}

/* "ignore ID reason..." -> a suppression (reason may be empty). */
static int sup_add(struct input *in, const struct parse_lint *l)
{
	const char *t = l->text, *id, *end;
	struct input_suppress *v, *s;

	if (strncmp(t, "ignore", 6) != 0 || (t[6] != ' ' && t[6] != '\t'))
		return 0;
	for (id = t + 6; *id == ' ' || *id == '\t'; id++)
		;
	for (end = id; *end && *end != ' ' && *end != '\t'; end++)
		;
	if (!(v = realloc(in->sups, (in->nsups + 1) * sizeof(*v))))
		return -1;
	in->sups = v;
	s = &v[in->nsups];
	s->id = strndup(id, (size_t)(end - id));
	while (*end == ' ' || *end == '\t')
		end++;
	s->reason = strdup(end);
	s->file = strdup(l->file);
	s->line = l->line > 0 ? (unsigned int)l->line : 0;
	if (!s->id || !s->reason || !s->file) {
		free(s->id);
		free(s->reason);
		free(s->file);
		return -1;
	}
	in->nsups++;
	return 0;
}

static int source_info(struct input *in, const struct policy *p)
{
	const struct parse_lint *l;

	for (const struct ast_stmt *s = p->stmts; s; s = s->next)
		if (stmt_one(in, s) < 0)
			return -1;
	for (l = parse_lint_comments(p); l; l = l->next)
		if (sup_add(in, l) < 0)
			return -1;
	in->file_names = calloc(p->nfiles + 1, sizeof(char *));
	in->file_paths = calloc(p->nfiles + 1, sizeof(char *));
	if (!in->file_names || !in->file_paths)
		return -1;
	for (unsigned int i = 0; i < p->nfiles; i++) {
		in->file_names[i] = strdup(p->files[i].name);
		in->file_paths[i] = strdup(p->files[i].path);
		in->nfiles++;
		if (!in->file_names[i] || !in->file_paths[i])
			return -1;
	}
	return 0;
}

/* Parse, check, emit, validate: what `cordonc compile` does before
 * writing.  Expectations are resolved too.  0, or -1. */
static int compile(struct input *in, const struct input_opts *o,
    struct policy *p, struct diag *d)
{
	char err[512];

	if (parse_policy(p, in->path, o->incdirs, o->nincdirs, o->defines,
	    o->ndefines, d) < 0 || diag_errors(d))
		return -1;
	if (check_policy(p, d, &in->pol) < 0)
		return -1;
	if (check_expectations(p, d, &in->expects, &in->nexpects) < 0)
		return -1;
	if (emit_seccomp(&in->pol, err, sizeof(err)) < 0 ||
	    validate_seccomp(&in->pol, err, sizeof(err)) < 0) {
		fprintf(o->errf, "%s: %s\n", in->path, err);
		return -1;
	}
	return source_info(in, p);
}

int input_load(const char *path, const struct input_opts *o,
    struct input *in)
{
	struct diag *d;
	char err[512];
	int r;

	memset(in, 0, sizeof(*in));
	if (!(in->path = strdup(path)))
		return -1;
	if (is_blob(path)) {
		if (cpol_load(path, 0, &in->pol, err, sizeof(err)) == 0)
			return 0;
		fprintf(o->errf, "%s: %s\n", path, err);
		input_free(in);
		return -1;
	}
	in->is_source = 1;
	in->src = calloc(1, sizeof(*in->src));
	if (!in->src || !(d = diag_new(o->errf))) {
		input_free(in);
		return -1;
	}
	r = compile(in, o, in->src, d);
	diag_free(d);
	if (r < 0)
		input_free(in);
	return r;
}

void input_free(struct input *in)
{
	cpol_free(&in->pol);
	for (unsigned int i = 0; i < in->nstmts; i++) {
		free(in->stmts[i].file);
		free(in->stmts[i].key);
	}
	for (unsigned int i = 0; i < in->nsups; i++) {
		free(in->sups[i].id);
		free(in->sups[i].reason);
		free(in->sups[i].file);
	}
	check_expect_free(in->expects, in->nexpects);
	for (unsigned int i = 0; i < in->nfiles; i++) {
		free(in->file_names[i]);
		free(in->file_paths[i]);
	}
	free(in->file_names);
	free(in->file_paths);
	if (in->src) {
		parse_free(in->src);
		free(in->src);
	}
	free(in->stmts);
	free(in->sups);
	free(in->path);
	memset(in, 0, sizeof(*in));
}
