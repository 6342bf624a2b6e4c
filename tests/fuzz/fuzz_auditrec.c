/*
 * fuzz_auditrec.c - the kernel's audit records as launcher/kaudit/auditrec.c
 * reads them.  Their text carries what the snippet chose (paths, its
 * comm), so every byte is input.
 *
 * Input: the first byte chooses the record type (modulo 6: Landlock's
 * access and domain records, SECCOMP, SYSCALL, EOE, another type); the
 * rest is the record's text, without a terminating NUL.
 *
 * Properties:
 *   - auditrec_parse never crashes, hangs or reads outside the input
 *     (the text is copied to a buffer of its own size);
 *   - it returns 0 or -1, and -1 for a text not starting with
 *     "audit(" and for a type it does not read;
 *   - every string it fills is NUL-terminated within its field, and
 *     holds no NUL before its end (strlen < the size);
 *   - an accepted Landlock record has a domain (not 0), an accepted
 *     SECCOMP record a pid and a call number, an accepted SYSCALL
 *     record a pid;
 *   - an "ok-" regression input is accepted.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "../../launcher/kaudit/auditrec.h"

static const int types[] = { AUDITREC_LL_ACCESS, AUDITREC_LL_DOMAIN,
    AUDITREC_SECCOMP, AUDITREC_SYSCALL, AUDITREC_EOE, 1327 };

static void terminated(const char *s, size_t size, const char *what)
{
	if (memchr(s, 0, size) == NULL)
		fuzz_fail("%s is not NUL-terminated", what);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct auditrec r;
	char *text;
	int type, rc;

	if (size < 1)
		return 0;
	type = types[data[0] % (sizeof(types) / sizeof(types[0]))];
	text = malloc(size - 1 ? size - 1 : 1);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	rc = auditrec_parse(type, text, size - 1, &r);
	if (rc != 0 && rc != -1)
		fuzz_fail("returned %d", rc);
	if (fuzz_expect_accept && rc != 0)
		fuzz_fail("an ok- record refused");
	if (rc == 0 && (size - 1 < 6 || memcmp(text, "audit(", 6) != 0))
		fuzz_fail("accepted a text without audit(");
	if (rc == 0 && type == 1327)
		fuzz_fail("accepted a type it does not read");
	terminated(r.access, sizeof(r.access), "access");
	terminated(r.object, sizeof(r.object), "object");
	terminated(r.comm, sizeof(r.comm), "comm");
	if (rc == 0 && (type == AUDITREC_LL_ACCESS ||
	    type == AUDITREC_LL_DOMAIN) && r.domain == 0)
		fuzz_fail("a Landlock record without a domain");
	if (rc == 0 && type == AUDITREC_SECCOMP && (r.pid < 0 ||
	    r.syscall < 0))
		fuzz_fail("a SECCOMP record without pid or call");
	if (rc == 0 && type == AUDITREC_SYSCALL && r.pid < 0)
		fuzz_fail("a SYSCALL record without pid");
	free(text);
	return 0;
}
