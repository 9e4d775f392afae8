/*
 * A log shipper's use of zlib (bench/plan/libs): batches of log text
 * whose sizes are log-uniform from 256 bytes to 1 MiB, each compressed
 * with compress2 at level 6 into a reused buffer.  Prints the bytes in
 * and out.  Usage: zlib_app [BATCHES]
 */
#include "corpus.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>

#define MAX_BATCH (1u << 20)
#define TEXT (8u << 20)

int main(int argc, char **argv)
{
	long batches = argc > 1 ? atol(argv[1]) : 200;
	unsigned char *text = malloc(TEXT), *out = malloc(compressBound(MAX_BATCH));
	uint64_t s = 0x9e3779b97f4a7c15ull;
	unsigned long long in_bytes = 0, out_bytes = 0;

	if (!text || !out)
		return 1;
	corpus_fill(text, TEXT, 42);
	for (long b = 0; b < batches; b++) {
		uint64_t r = corpus_next(&s);
		size_t n = (size_t)(256 * pow(MAX_BATCH / 256.0, (double)(r & 0xffffff) / 0x1000000));
		size_t at = (size_t)(r >> 32) % (TEXT - n);
		uLongf len = compressBound(MAX_BATCH);

		if (compress2(out, &len, text + at, (uLong)n, 6) != Z_OK)
			return 1;
		in_bytes += n;
		out_bytes += len;
	}
	printf("%ld batches, %llu bytes in, %llu out\n", batches, in_bytes, out_bytes);
	free(text);
	free(out);
	return 0;
}
