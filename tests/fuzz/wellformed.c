/*
 * wellformed.c - the fuzz harnesses' own reading of UTF-8, by Unicode's
 * table 3-7 (well-formed byte sequences), written apart from
 * common/utf8.c on purpose: the harnesses check cordon's output with
 * it, so a mistake in the one reader cordon uses is not repeated here.
 */
#include "fuzz.h"

size_t fuzz_wellformed(const unsigned char *p, size_t left)
{
	unsigned char lo, hi;
	size_t n, i;

	if (left == 0)
		return 0;
	if (p[0] < 0x80)
		return 1;
	n = p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : p[0] >= 0xe0 &&
	    p[0] <= 0xef ? 3 : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;
	if (n == 0 || n > left)
		return 0;
	lo = p[0] == 0xe0 ? 0xa0 : p[0] == 0xf0 ? 0x90 : 0x80;
	hi = p[0] == 0xed ? 0x9f : p[0] == 0xf4 ? 0x8f : 0xbf;
	for (i = 1; i < n; i++)
		if (p[i] < (i == 1 ? lo : 0x80) || p[i] > (i == 1 ? hi : 0xbf))
			return 0;
	return n;
}
