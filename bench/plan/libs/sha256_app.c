/*
 * A content store's use of SHA-256 (bench/plan/libs): records hashed with
 * EVP_Digest as they come: mostly packet-sized (40 to 1500 bytes), some
 * pages (4 to 16 KiB), a few blobs (64 to 256 KiB).  Prints an xor of
 * the digests.  Usage: sha256_app [RECORDS]
 */
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_RECORD (256u << 10)

static unsigned long long next(unsigned long long *x)
{
	*x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
	return *x;
}

int main(int argc, char **argv)
{
	long records = argc > 1 ? atol(argv[1]) : 5000;
	unsigned char *data = malloc(MAX_RECORD), md[EVP_MAX_MD_SIZE], acc = 0;
	unsigned long long x = 0x2545f4914f6cdd1dull;
	unsigned int len;

	if (!data)
		return 1;
	for (size_t i = 0; i < MAX_RECORD; i++)
		data[i] = (unsigned char)next(&x);
	for (long r = 0; r < records; r++) {
		unsigned long long v = next(&x), kind = v % 100;
		size_t n = kind < 70 ? 40 + (v >> 8) % 1461 : kind < 95 ? 4096 + (v >> 8) % 12289 :
			   (64u << 10) + (v >> 8) % (192u << 10);

		if (!EVP_Digest(data, n, md, &len, EVP_sha256(), NULL))
			return 1;
		acc ^= md[0];
	}
	printf("%ld records, digest xor %02x\n", records, acc);
	free(data);
	return 0;
}
