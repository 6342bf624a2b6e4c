/* utf8.c - one UTF-8 sequence, checked (see utf8.h). */
#include "utf8.h"

size_t utf8_decode(const unsigned char *s, uint32_t *cp)
{
	size_t n, i;
	uint32_t c = s[0];

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	n = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 && c < 0xf0 ? 3 :
	    c >= 0xc2 && c < 0xe0 ? 2 : 0;
	if (n == 0)
		return 0;
	c &= 0x3fu >> (n - 1);
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3fu);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && c < 0x10000) ||
	    c > 0x10ffff || (c >= 0xd800 && c < 0xe000))
		return 0;
	*cp = c;
	return n;
}
