/* sha256.h - SHA-256 (FIPS 180-4), for blob checksums and source digests. */
#ifndef CORDON_SHA256_H
#define CORDON_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct sha256 {
	uint32_t h[8];
	uint64_t total;      /* bytes hashed so far */
	uint8_t buf[64];
	size_t used;         /* bytes waiting in buf */
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
void sha256_final(struct sha256 *s, uint8_t out[32]);

#endif
