/*
 * parse.c - read a policy and its includes into one statement list.
 *
 * An include is read at the point where it appears: the included file's
 * statements follow the include statement.  Each file read gets its own
 * number (ast_stmt.file), which the merge rule (check.c) uses.  File
 * names shown in messages and origins are relative to the top file's
 * directory (or to the -I directory an include was found in), so blobs
 * and messages do not depend on where the checkout lives.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "infile.h"
#include "lexer.h"
#include "parse.h"
#include "parser.h"
#include "sha256.h"

/* The files being read, outermost first, for cycle detection. */
struct chain {
	dev_t dev;
	ino_t ino;
};

struct reader {
	struct policy *p;
	struct diag *d;
	const char *const *incdirs;
	unsigned int nincdirs;
	struct chain chain[PARSE_MAX_DEPTH + 1];
	struct ast_stmt **tail;
	struct parse_lint **lint_tail;
	struct sha256 sum;
};

/* Read a whole regular file (capped).  -1 with errno set on failure. */
static int read_file(const char *path, char **textp, size_t *lenp,
    struct stat *st)
{
	char *buf = NULL;
	size_t len = 0;
	ssize_t n;
	int fd, saved;

	fd = infile_open(path, 0, st);
	if (fd < 0)
		return -1;
	if (st->st_size > (off_t)PARSE_MAX_FILE_SIZE) {
		errno = EFBIG;
		goto fail_fd;
	}
	buf = malloc((size_t)st->st_size + 1);
	if (!buf)
		goto fail_fd;
	while (len < (size_t)st->st_size) {
		n = read(fd, buf + len, (size_t)st->st_size - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail_buf;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	close(fd);
	*textp = buf;
	*lenp = len;
	return 0;
fail_buf:
	saved = errno;
	free(buf);
	errno = saved;
fail_fd:
	saved = errno;
	close(fd);
	errno = saved;
	return -1;
}

struct ast_stmt *parse_buffer(const char *name, const char *text, size_t len,
    struct diag *d, struct parse_lint **lint)
{
	struct lex_state ls = { .file = name, .line = 1, .col = 1, .diag = d,
	    .lint_tail = lint, .src = text };
	yyscan_t scanner;
	YY_BUFFER_STATE b;
	int r;

	while (ls.lint_tail && *ls.lint_tail)
		ls.lint_tail = &(*ls.lint_tail)->next;
	if (pollex_init_extra(&ls, &scanner) != 0) {
		diag_error(d, NULL, "out of memory");
		return NULL;
	}
	b = pol_scan_bytes(text, (int)len, scanner);
	r = b ? polparse(scanner, &ls) : 2;
	if (r == 2)
		diag_error(d, NULL, "out of memory");
	if (b)
		pol_delete_buffer(b, scanner);
	pollex_destroy(scanner);
	free(ls.buf);
	return ast_stmt_reverse(ls.stmts);
}

/* dir part of a display name, with a trailing '/', or "". */
static char *join(const char *base, const char *name)
{
	const char *slash = strrchr(base, '/');
	size_t n = slash ? (size_t)(slash - base + 1) : 0;
	char *out = malloc(n + strlen(name) + 1);

	if (out) {
		memcpy(out, base, n);
		strcpy(out + n, name);
	}
	return out;
}

static char *join_dir(const char *dir, const char *name)
{
	size_t n = strlen(dir);
	char *out = malloc(n + strlen(name) + 2);

	if (out) {
		/* strcpy below terminates the string. */
		/* NOLINTNEXTLINE(bugprone-not-null-terminated-result) */
		memcpy(out, dir, n);
		out[n] = '/';
		strcpy(out + n + 1, name);
	}
	return out;
}

static int read_one(struct reader *r, char *path, char *name,
    unsigned int depth, const struct ast_loc *from);

/* "in the -I directories a, b, " for the message below (cut with "..."
 * when they do not fit: the message stays one line). */
static void incdir_list(const struct reader *r, char *buf, size_t len)
{
	size_t at = 0;
	unsigned int i;
	int n;

	buf[0] = '\0';
	if (!r->nincdirs)
		return;
	n = snprintf(buf, len, "in the -I director%s ",
	    r->nincdirs > 1 ? "ies" : "y");
	at = n > 0 ? (size_t)n : 0;
	for (i = 0; i < r->nincdirs && at < len; i++) {
		n = snprintf(buf + at, len - at, "%s, ", r->incdirs[i]);
		if (n < 0 || (size_t)n >= len - at) {
			snprintf(buf + at, len - at, "..., ");
			return;
		}
		at += (size_t)n;
	}
}

/* "cannot find included file", with where it looked and a near name. */
static void not_found(struct reader *r, const struct ast_stmt *s,
    const char *from)
{
	char dym[DIAG_SUGGEST_MAX], where[512];
	const char *dirs[PARSE_MAX_INCDIRS + 2], *inc = s->val->str;
	char *here = join(from, ".");
	char near[256];
	unsigned int i, n = 0;

	if (here)
		dirs[n++] = here;
	for (i = 0; i < r->nincdirs; i++)
		dirs[n++] = r->incdirs[i];
	dirs[n++] = parse_default_incdir;
	i = (unsigned int)parse_include_suggest(inc, dirs, n, near,
	    sizeof(near));
	incdir_list(r, where, sizeof(where));
	diag_error(r->d, &s->val->loc, "cannot find included file \"%s\" "
	    "(searched beside this file, %sin %s)%s", inc, where,
	    parse_default_incdir, diag_did_you_mean(dym, sizeof(dym), "\"",
	    i ? near : NULL, "\""));
	free(here);
}

/* Find an include: beside the including file, then in each -I dir, then
 * in the installed bases (parse_default_incdir). */
static int include(struct reader *r, const struct ast_stmt *s,
    const struct parse_file *from, unsigned int depth)
{
	const char *inc = s->val ? s->val->str : NULL;
	char *path, *name;
	unsigned int i;

	if (!s->val || s->val->kind != AST_V_STR || !inc[0]) {
		diag_error(r->d, &s->loc, "include needs a file name string");
		return 0;
	}
	if (inc[0] == '/') {
		path = strdup(inc);
		name = strdup(inc);
		return read_one(r, path, name, depth, &s->val->loc);
	}
	path = join(from->path, inc);
	if (path && access(path, F_OK) == 0)
		return read_one(r, path, join(from->name, inc), depth,
		    &s->val->loc);
	free(path);
	for (i = 0; i <= r->nincdirs; i++) {
		path = join_dir(i < r->nincdirs ? r->incdirs[i] :
		    parse_default_incdir, inc);
		if (path && access(path, F_OK) == 0)
			return read_one(r, path, strdup(inc), depth,
			    &s->val->loc);
		free(path);
	}
	not_found(r, s, from->path);
	return 0;
}

static void digest_add(struct sha256 *sum, const char *text, size_t len)
{
	uint8_t n[4] = { (uint8_t)len, (uint8_t)(len >> 8),
	    (uint8_t)(len >> 16), (uint8_t)(len >> 24) };

	sha256_update(sum, n, 4);
	sha256_update(sum, text, len);
}

/* Splice a parsed file's statements into the output, reading includes. */
static int splice_stmts(struct reader *r, struct ast_stmt *list, unsigned int id,
    unsigned int depth)
{
	struct ast_stmt *s, *next;
	int ret = 0;

	for (s = list; s; s = next) {
		next = s->next;
		s->next = NULL;
		s->file = id;
		*r->tail = s;
		r->tail = &s->next;
		if (s->kind == AST_INCLUDE && ret == 0)
			ret = include(r, s, &r->p->files[id], depth + 1);
	}
	return ret;
}

/* Takes path and name.  Returns -1 only when out of memory. */
static int read_one(struct reader *r, char *path, char *name,
    unsigned int depth, const struct ast_loc *from)
{
	struct parse_file *f;
	struct ast_stmt *list;
	struct stat st;
	unsigned int i, id;
	char *text;
	size_t len;

	if (!path || !name)
		goto nomem;
	if (depth > PARSE_MAX_DEPTH) {
		diag_error(r->d, from, "includes nested deeper than %u",
		    PARSE_MAX_DEPTH);
		goto done;
	}
	if (r->p->nfiles >= PARSE_MAX_FILES) {
		diag_error(r->d, from, "more than %u files read",
		    PARSE_MAX_FILES);
		goto done;
	}
	if (read_file(path, &text, &len, &st) < 0) {
		/* the file named on the command line: as given (its
		 * display name is its last component) */
		diag_error(r->d, from, "cannot read \"%s\": %s", from ? name :
		    path, infile_strerror(errno));
		goto done;
	}
	for (i = 0; i < depth; i++) {
		if (r->chain[i].dev == st.st_dev &&
		    r->chain[i].ino == st.st_ino) {
			diag_error(r->d, from, "include cycle: \"%s\" is "
			    "already being read", name);
			free(text);
			goto done;
		}
	}
	r->chain[depth] = (struct chain){ st.st_dev, st.st_ino };
	id = r->p->nfiles++;
	f = &r->p->files[id];
	*f = (struct parse_file){ name, path, text, len, depth };
	digest_add(&r->sum, text, len);
	if (diag_source(r->d, name, text, len) < 0)
		return -1;
	list = parse_buffer(name, text, len, r->d, r->lint_tail);
	while (*r->lint_tail)
		r->lint_tail = &(*r->lint_tail)->next;
	return splice_stmts(r, list, id, depth);
nomem:
	diag_error(r->d, NULL, "out of memory");
	free(path);
	free(name);
	return -1;
done:
	free(path);
	free(name);
	return 0;
}

int parse_policy(struct policy *p, const char *path,
    const char *const *incdirs, unsigned int nincdirs,
    const struct parse_define *defines, unsigned int ndefines,
    struct diag *d)
{
	struct reader r = { .p = p, .d = d, .incdirs = incdirs,
	    .nincdirs = nincdirs };
	const char *base = strrchr(path, '/');
	unsigned int i;
	int ret;

	memset(p, 0, sizeof(*p));
	r.tail = &p->stmts;
	r.lint_tail = &p->lint;
	p->files = calloc(PARSE_MAX_FILES, sizeof(*p->files));
	if (!p->files || ndefines > PARSE_MAX_DEFINES)
		return -1;
	for (i = 0; i < ndefines; i++) {
		p->defines[i].name = strdup(defines[i].name);
		p->defines[i].value = strdup(defines[i].value);
		p->ndefines++;
		if (!p->defines[i].name || !p->defines[i].value)
			return -1;
	}
	sha256_init(&r.sum);
	ret = read_one(&r, strdup(path), strdup(base ? base + 1 : path), 0,
	    NULL);
	sha256_final(&r.sum, p->digest);
	if (ret < 0)
		return -1;
	return p->nfiles > 0 ? 0 : -1;
}

const struct parse_lint *parse_lint_comments(const struct policy *p)
{
	return p->lint;
}

void parse_free(struct policy *p)
{
	struct parse_lint *l, *next;
	unsigned int i;

	ast_stmt_free(p->stmts);
	for (i = 0; i < p->nfiles; i++) {
		free(p->files[i].name);
		free(p->files[i].path);
		free(p->files[i].text);
	}
	free(p->files);
	for (i = 0; i < p->ndefines; i++) {
		free(p->defines[i].name);
		free(p->defines[i].value);
	}
	for (l = p->lint; l; l = next) {
		next = l->next;
		free(l->text);
		free(l);
	}
	memset(p, 0, sizeof(*p));
}
