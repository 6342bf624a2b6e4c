/*
 * json_read.h - a small, strict JSON reader for files the user gives
 * (OCI and Docker seccomp profiles).  RFC 8259 only: no comments, no
 * trailing commas, no duplicate keys, no NUL in strings, UTF-8 checked.
 * Every size is capped (below) so a hostile file costs bounded memory
 * and stack.
 */
#ifndef CORDON_JSON_READ_H
#define CORDON_JSON_READ_H

#include <stddef.h>
#include <stdint.h>

/* Docker's default profile is ~25 KiB; 4 MiB leaves room for any
 * hand-written profile and bounds what we read. */
#define JSON_MAX_SIZE (4u << 20)
/* Nesting depth: profiles nest 5 deep; the cap bounds recursion. */
#define JSON_MAX_DEPTH 32
/* Elements of one array or members of one object. */
#define JSON_MAX_ITEMS 65536u
/* Longest string (a syscall name, a comment). */
#define JSON_MAX_STR 65536u

enum json_type {
	JSON_NULL = 1, JSON_BOOL, JSON_NUM, JSON_STR, JSON_ARR, JSON_OBJ,
};

struct json_val {
	int type;
	int boolean;              /* JSON_BOOL */
	char *str;                /* JSON_STR: the text; JSON_NUM: the token */
	int is_uint;              /* JSON_NUM: integer in 0..UINT64_MAX */
	uint64_t num;             /* ... and its value */
	unsigned int n;           /* JSON_ARR / JSON_OBJ: items */
	struct json_val *items;
	char **keys;              /* JSON_OBJ: keys, in file order */
	unsigned int line;        /* where the value starts */
};

/* Parse buf[0..len).  0, or -1 with "line N: why" in err (*out empty). */
int json_parse(const char *buf, size_t len, struct json_val *out,
    char *err, size_t errlen);
/* Read a regular file (size-capped) and parse it. */
int json_load(const char *path, struct json_val *out, char *err,
    size_t errlen);
void json_free(struct json_val *v);

/* Member key of object v, or NULL (also when v is not an object). */
const struct json_val *json_get(const struct json_val *v, const char *key);

#endif
