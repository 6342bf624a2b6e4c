/*
 * test_parse.c - lexer and parser edge cases: block comments ending in
 * "**" + "/", unterminated comments and strings (the scanner must reset and
 * stop), escapes, numbers (hex, negative, units, 64-bit overflow),
 * keywords that are also syscall names, error recovery at ';' so every
 * error is reported, locations, lint comments, and the check pass's
 * expectation accessor.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ast.h"
#include "check.h"
#include "diag.h"
#include "parse.h"

struct run {
	char *msgs;
	size_t len;
	FILE *f;
	struct diag *d;
	struct parse_lint *lint;
	struct ast_stmt *s;
};

static void run_parse(struct run *r, const char *src)
{
	memset(r, 0, sizeof(*r));
	r->f = open_memstream(&r->msgs, &r->len);
	assert_non_null(r->f);
	r->d = diag_new(r->f);
	assert_non_null(r->d);
	assert_int_equal(diag_source(r->d, "t.policy", src, strlen(src)), 0);
	r->s = parse_buffer("t.policy", src, strlen(src), r->d, &r->lint);
	diag_flush(r->d);
	fflush(r->f);
}

static void run_free(struct run *r)
{
	struct parse_lint *l, *next;

	ast_stmt_free(r->s);
	for (l = r->lint; l; l = next) {
		next = l->next;
		free(l->text);
		free(l);
	}
	diag_free(r->d);
	fclose(r->f);
	free(r->msgs);
}

static unsigned int count(const struct ast_stmt *s)
{
	unsigned int n = 0;

	for (; s; s = s->next)
		n++;
	return n;
}

static void test_star_comment(void **state)
{
	struct run r;

	(void)state;
	run_parse(&r, "/** x **/ allow read;\n/* a ***/ kill ptrace;\n");
	assert_int_equal(diag_errors(r.d), 0);
	assert_int_equal(count(r.s), 2);
	assert_int_equal(r.s->next->kind, AST_RULE);
	assert_string_equal(r.s->next->items->name, "ptrace");
	assert_int_equal(r.s->next->loc.first_line, 2);
	run_free(&r);
}

static void test_unterminated(void **state)
{
	struct run r;

	(void)state;
	run_parse(&r, "allow read;\n/* open\nallow write;\n");
	assert_int_equal(diag_errors(r.d), 1);
	assert_non_null(strstr(r.msgs, "t.policy:2:1: error: unterminated "
	    "comment"));
	assert_int_equal(count(r.s), 1);
	run_free(&r);
	run_parse(&r, "description \"abc");
	assert_non_null(strstr(r.msgs, "t.policy:1:13: error: unterminated "
	    "string"));
	run_free(&r);
	run_parse(&r, "description \"a\\\"b\\\\c\";");
	assert_int_equal(diag_errors(r.d), 0);
	assert_string_equal(r.s->val->str, "a\"b\\c");
	run_free(&r);
}

static void test_numbers(void **state)
{
	struct run r;

	(void)state;
	run_parse(&r, "limit as 4G; allow read(fd == -1, count == 0x10);\n"
	    "limit cpu 99999999999999999999999;");
	assert_int_equal(diag_errors(r.d), 1);
	assert_non_null(strstr(r.msgs, "t.policy:2:11: error: number does "
	    "not fit in 64 bits"));
	assert_int_equal(r.s->val->kind, AST_V_QTY);
	assert_string_equal(r.s->val->str, "G");
	assert_int_equal(r.s->val->num, 4);
	assert_int_equal(r.s->next->items->conds->value->neg, 1);
	assert_int_equal(r.s->next->items->conds->next->value->num, 16);
	run_free(&r);
}

static void test_keywords_as_syscalls(void **state)
{
	struct run r;

	(void)state;
	run_parse(&r, "kill kill, connect, bind; allow @basic-io;");
	assert_int_equal(diag_errors(r.d), 0);
	assert_int_equal(r.s->action.kind, AST_A_KILL);
	assert_string_equal(r.s->items->name, "kill");
	assert_string_equal(r.s->items->next->next->name, "bind");
	assert_int_equal(r.s->next->items->is_group, 1);
	assert_string_equal(r.s->next->items->name, "basic-io");
	run_free(&r);
}

static void test_recovery(void **state)
{
	struct run r;

	(void)state;
	run_parse(&r, "allow read\nallow write;\nlimit as;\nkill ptrace;\n"
	    "path /usr rx, best-effort;\n");
	assert_int_equal(diag_errors(r.d), 3);
	/* at the end of the statement, not at the next line's start */
	assert_non_null(strstr(r.msgs, "t.policy:1:11: error: missing ';' "
	    "after read\n"));
	assert_non_null(strstr(r.msgs, "t.policy:3:9:"));
	assert_int_equal(count(r.s), 1);
	assert_string_equal(r.s->items->name, "ptrace");
	run_free(&r);
}

static void test_bad_bytes(void **state)
{
	struct run r;
	static const char src[] = "allow read;\0 allow \x01 write;";

	(void)state;
	memset(&r, 0, sizeof(r));
	r.f = open_memstream(&r.msgs, &r.len);
	r.d = diag_new(r.f);
	r.s = parse_buffer("t.policy", src, sizeof(src) - 1, r.d, &r.lint);
	diag_flush(r.d);
	fflush(r.f);
	assert_int_equal(diag_errors(r.d), 2);
	assert_non_null(strstr(r.msgs, "NUL byte"));
	assert_non_null(strstr(r.msgs, "unexpected byte 0x01"));
	assert_int_equal(count(r.s), 2);
	run_free(&r);
}

static void test_lint_comments(void **state)
{
	struct run r;

	(void)state;
	run_parse(&r, "# plain\nallow read; #  cordon-lint: ignore CL001 "
	    "needed here  \n");
	assert_non_null(r.lint);
	assert_null(r.lint->next);
	assert_int_equal(r.lint->line, 2);
	assert_string_equal(r.lint->text, "ignore CL001 needed here");
	run_free(&r);
}

static void test_expectations(void **state)
{
	static const char src[] = "expect deny ptrace;\n"
	    "expect allow socket(AF_UNIX, *, 0);\n"
	    "expect errno(EPERM) mount;\nexpect no-write /etc;\n"
	    "expect network connect 443;\n";
	struct policy p;
	struct check_expect *e;
	unsigned int n;
	struct run r;

	(void)state;
	run_parse(&r, src);
	assert_int_equal(diag_errors(r.d), 0);
	memset(&p, 0, sizeof(p));
	p.stmts = r.s;
	assert_int_equal(check_expectations(&p, r.d, &e, &n), 0);
	assert_int_equal(n, 5);
	assert_int_equal(e[0].action, CHECK_EXPECT_DENY);
	assert_string_equal(e[1].syscall, "socket");
	assert_int_equal(e[1].nargs, 3);
	assert_int_equal(e[1].args[0].value, 1);
	assert_int_equal(e[1].args[1].wild, 1);
	assert_int_equal(e[1].loc.first_line, 2);
	assert_string_equal(e[3].right, "no-write");
	assert_string_equal(e[3].path, "/etc");
	assert_string_equal(e[4].net, "connect");
	assert_int_equal(e[4].port, 443);
	check_expect_free(e, n);
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_star_comment),
		cmocka_unit_test(test_unterminated),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_keywords_as_syscalls),
		cmocka_unit_test(test_recovery),
		cmocka_unit_test(test_bad_bytes),
		cmocka_unit_test(test_lint_comments),
		cmocka_unit_test(test_expectations),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
