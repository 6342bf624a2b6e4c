/*
 * warmreq.c - the words a spare's cordon takes from the template (see
 * warm.h): taken apart in place, no system call (fuzzed:
 * tests/fuzz/fuzz_warmreq.c).
 */
#include <string.h>

#include "warm.h"

const char *warmreq_why(enum warmreq_error e)
{
	switch (e) {
	case WARMREQ_OK:
		return "ok";
	case WARMREQ_EMPTY:
		return "no words";
	case WARMREQ_RELATIVE:
		return "the caller's directory is not absolute";
	case WARMREQ_TOO_MANY:
		return "too many words";
	}
	return "?";
}

enum warmreq_error warmreq_split(char *buf, size_t len, struct warmreq *rq)
{
	char *p = buf, *end;
	int n = 0;

	rq->argc = 0;
	rq->argv[0] = NULL;
	rq->cwd = NULL;
	if (len == 0)
		return WARMREQ_EMPTY;
	if (buf[len - 1] != '\0')     /* the last word's NUL: buf has room */
		buf[len++] = '\0';
	end = buf + len;
	if (buf[0] != '/')
		return WARMREQ_RELATIVE;
	rq->cwd = p;
	p += strlen(p) + 1;
	rq->argv[n++] = "cordon";
	while (p < end) {
		if (n >= WARM_ARGV_MAX - 1) {
			rq->argv[0] = NULL;
			return WARMREQ_TOO_MANY;
		}
		rq->argv[n++] = p;
		p += strlen(p) + 1;
	}
	rq->argv[n] = NULL;
	rq->argc = n;
	return WARMREQ_OK;
}

int warmreq_status_fd(struct warmreq *rq, int end, char *num)
{
	int i, n = 0;

	for (i = 1; i + 1 < end && i + 1 < rq->argc; i++)
		if (strcmp(rq->argv[i], "--status-fd") == 0) {
			rq->argv[++i] = num;
			n++;
		}
	return n;
}
