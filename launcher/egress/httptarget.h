/*
 * httptarget.h - is a request target (origin-form: a path, then "?" and
 * a query) in the one normal form that an http rule is matched against,
 * so that no server downstream reads it as another path (dot segments,
 * ";" parameters, an encoded '.', '/', '\\', '%' or ';', "%u" escapes,
 * overlong or invalid UTF-8, a fragment, a backslash).  cordon.policy(5)
 * states the rule; this is its one implementation.  No system call.
 */
#ifndef CORDON_HTTPTARGET_H
#define CORDON_HTTPTARGET_H

/* Why a target is not in normal form: the first fault met, left to right. */
enum httptarget_fault {
	HTTPTARGET_OK = 0,
	HTTPTARGET_NOT_PATH,    /* empty, or not starting with '/' */
	HTTPTARGET_BYTE,        /* a control, space, non-ASCII, '#' or '\\' */
	HTTPTARGET_ESCAPE,      /* '%' without two hex digits ("%u002e") */
	HTTPTARGET_ENCODED,     /* in the path: an encoded '.', '/', '\\',
	                         * '%', ';' or control byte */
	HTTPTARGET_UTF8,        /* in the path: decoded bytes not UTF-8 in
	                         * shortest form ("%c0%ae") */
	HTTPTARGET_SEGMENT,     /* in the path: an empty, "." or ".." segment */
	HTTPTARGET_PARAM,       /* in the path: ';' (a segment's parameters) */
};

enum httptarget_fault httptarget_check(const char *target);
/* The fault in words, for the refusal's answer ("a dot segment"). */
const char *httptarget_fault_name(enum httptarget_fault f);

#endif
