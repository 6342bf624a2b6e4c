/*
 * compile.c - the compile driver (see compile.h): parse -> check (the
 * sections and the expectations, once) -> emit -> validate, then the
 * source map from the AST.  Reads the AST; changes nothing in it.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compile.h"
#include "emit.h"
#include "infile.h"
#include "validate.h"

int compile_is_blob(const char *path)
{
	char magic[CPOL_MAGIC_LEN];
	struct stat st;
	int fd = infile_open(path, 0, &st), r = 0;

	if (fd < 0)
		return 0;
	if (read(fd, magic, sizeof(magic)) == (ssize_t)sizeof(magic))
		r = memcmp(magic, CPOL_MAGIC, CPOL_MAGIC_LEN) == 0;
	close(fd);
	return r;
}

static int stmt_add(struct compile_map *m, int kind, const char *key,
    const struct ast_loc *loc, const char *path)
{
	struct input_stmt *v, *s;

	v = realloc(m->stmts, (m->nstmts + 1) * sizeof(*v));
	if (!v)
		return -1;
	m->stmts = v;
	s = &v[m->nstmts];
	s->kind = kind;
	s->line = loc->first_line > 0 ? (unsigned int)loc->first_line : 0;
	s->file = strdup(loc->file ? loc->file : path);
	s->key = key ? strdup(key) : NULL;
	if (!s->file || (key && !s->key)) {
		free(s->file);
		free(s->key);
		return -1;
	}
	m->nstmts++;
	return 0;
}

static const int kinds[][2] = {
	{ AST_POLICY, INPUT_POLICY }, { AST_NETWORK, INPUT_NETWORK },
	{ AST_TIMEOUT, INPUT_TIMEOUT }, { AST_OUTPUT, INPUT_OUTPUT },
	{ AST_DEFAULT, INPUT_DEFAULT }, { AST_LANDLOCK, INPUT_LANDLOCK },
	{ AST_BEST_EFFORT, INPUT_BEST_EFFORT }, { AST_COMMAND, INPUT_COMMAND },
	{ AST_LIMIT, INPUT_LIMIT }, { AST_SESSION, INPUT_SESSION },
};

/* A path statement's key is its path as written, when literal (check
 * refused any that is not canonical). */
static int stmt_one(struct compile_map *m, const struct ast_stmt *s,
    const char *path)
{
	const struct ast_item *it;
	const struct ast_val *v = s->val;

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if ((int)s->kind == kinds[i][0])
			return stmt_add(m, kinds[i][1], s->kind == AST_LIMIT ?
			    s->name : NULL, &s->loc, path);
	if (s->kind == AST_PRIVATE && !(s->flags & AST_F_REQUIRED))
		return stmt_add(m, INPUT_BEST_EFFORT, NULL, &s->loc, path);
	if (s->kind == AST_PATH)
		return stmt_add(m, INPUT_PATH, v && v->kind == AST_V_STR ?
		    v->str : NULL, &s->loc, path);
	if (s->kind != AST_ENV_KEEP && s->kind != AST_ENV_SET)
		return 0;
	for (it = s->items; it; it = it->next)
		if (stmt_add(m, INPUT_ENV, it->name, &it->loc, path) < 0)
			return -1;
	return 0;
}

/* "ignore ID reason..." -> a suppression (reason may be empty). */
static int sup_add(struct compile_map *m, const struct parse_lint *l)
{
	const char *t = l->text, *id, *end;
	struct input_suppress *v, *s;

	if (strncmp(t, "ignore", 6) != 0 || (t[6] != ' ' && t[6] != '\t'))
		return 0;
	for (id = t + 6; *id == ' ' || *id == '\t'; id++)
		;
	for (end = id; *end && *end != ' ' && *end != '\t'; end++)
		;
	if (!(v = realloc(m->sups, (m->nsups + 1) * sizeof(*v))))
		return -1;
	m->sups = v;
	s = &v[m->nsups];
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
	m->nsups++;
	return 0;
}

static int map_build(struct compile_map *m, const struct policy *p,
    const char *path)
{
	const struct parse_lint *l;

	for (const struct ast_stmt *s = p->stmts; s; s = s->next)
		if (stmt_one(m, s, path) < 0)
			return -1;
	for (l = parse_lint_comments(p); l; l = l->next)
		if (sup_add(m, l) < 0)
			return -1;
	m->file_names = calloc(p->nfiles + 1, sizeof(char *));
	m->file_paths = calloc(p->nfiles + 1, sizeof(char *));
	if (!m->file_names || !m->file_paths)
		return -1;
	for (unsigned int i = 0; i < p->nfiles; i++) {
		m->file_names[i] = strdup(p->files[i].name);
		m->file_paths[i] = strdup(p->files[i].path);
		m->nfiles++;
		if (!m->file_names[i] || !m->file_paths[i])
			return -1;
	}
	return 0;
}

/* The passes; 0, or -1 (reported).  *pol is empty on -1. */
static int passes(const char *path, const struct compile_opts *o,
    struct policy *p, struct diag *d, struct cpol *pol,
    struct compile_map *m)
{
	char err[512];
	unsigned int syntax;

	if (parse_policy(p, path, o->incdirs, o->nincdirs, o->defines,
	    o->ndefines, d) < 0)
		return -1;
	/* After syntax errors the statements that parsed are still checked
	 * (every error in one run), but nothing goes further. */
	syntax = diag_errors(d);
	if (check_policy(p, d, pol, m ? &m->expects : NULL,
	    m ? &m->nexpects : NULL) < 0)
		return -1;
	if (syntax > 0) {
		cpol_free(pol);
		return -1;
	}
	diag_flush(d);    /* the warnings, before what emit may say */
	if (emit_seccomp(pol, err, sizeof(err)) < 0 ||
	    validate_seccomp(pol, err, sizeof(err)) < 0) {
		fprintf(o->errf, "%s%s: %s\n", o->cli ? "cordonc: error: " :
		    "", path, err);
		cpol_free(pol);
		return -1;
	}
	if (m && map_build(m, p, path) < 0) {
		fprintf(o->errf, "%s%s: out of memory\n", o->cli ?
		    "cordonc: error: " : "", path);
		cpol_free(pol);
		return -1;
	}
	return 0;
}

int compile_source(const char *path, const struct compile_opts *o,
    struct cpol *pol, struct compile_map *map)
{
	struct policy *p = calloc(1, sizeof(*p));
	struct diag *d = diag_new(o->errf);
	int r = -1;

	memset(pol, 0, sizeof(*pol));
	if (map)
		memset(map, 0, sizeof(*map));
	if (p && d) {
		diag_set_werror(d, o->werror);
		r = passes(path, o, p, d, pol, map);
	} else {
		fprintf(o->errf, "%s%s: out of memory\n", o->cli ?
		    "cordonc: error: " : "", path);
	}
	if (d)
		diag_flush(d);
	if (r < 0 && o->cli && d && diag_errors(d) > 0)
		fprintf(o->errf, "cordonc: %u error%s; nothing written\n",
		    diag_errors(d), diag_errors(d) == 1 ? "" : "s");
	diag_free(d);
	if (map && r == 0) {
		map->src = p;
		return 0;
	}
	if (map)
		compile_map_free(map);
	if (p)
		parse_free(p);
	free(p);
	return r;
}

void compile_map_free(struct compile_map *m)
{
	for (unsigned int i = 0; i < m->nstmts; i++) {
		free(m->stmts[i].file);
		free(m->stmts[i].key);
	}
	for (unsigned int i = 0; i < m->nsups; i++) {
		free(m->sups[i].id);
		free(m->sups[i].reason);
		free(m->sups[i].file);
	}
	check_expect_free(m->expects, m->nexpects);
	for (unsigned int i = 0; i < m->nfiles; i++) {
		free(m->file_names[i]);
		free(m->file_paths[i]);
	}
	free(m->file_names);
	free(m->file_paths);
	if (m->src) {
		parse_free(m->src);
		free(m->src);
	}
	free(m->stmts);
	free(m->sups);
	memset(m, 0, sizeof(*m));
}
