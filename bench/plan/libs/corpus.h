/*
 * Text-like bytes for the zlib adapter and the program it is planned
 * for (bench/plan/libs): words of a small vocabulary, spaces and
 * newlines, in proportions that compress about 3:1 with zlib level 6, as
 * log files do.  Both draw from the same source with their own seeds, so
 * the adapter measures the kind of data the program compresses.
 */
#ifndef SIBYL_BENCH_CORPUS_H
#define SIBYL_BENCH_CORPUS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t corpus_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static inline void corpus_fill(unsigned char *buf, size_t n, uint64_t seed)
{
	static const char *const words[] = {
		"request", "served", "in", "ms", "user", "id", "GET", "POST", "/api/v1/items",
		"status", "200", "404", "cache", "miss", "hit", "upstream", "timeout", "retry",
		"session", "token", "expired", "connection", "closed", "by", "peer", "bytes",
	};
	uint64_t s = seed | 1;
	size_t i = 0;

	while (i < n) {
		uint64_t r = corpus_next(&s);
		const char *w = words[r % (sizeof(words) / sizeof(*words))];
		char num[24];

		/* One word in four is a number: the part that does not repeat. */
		if (r >> 32 & 3) {
			size_t len = strlen(w);

			memcpy(buf + i, w, len < n - i ? len : n - i);
			i += len < n - i ? len : n - i;
		} else {
			int len = (int)(r >> 40 & 0xffff);
			size_t k = 0;

			do
				num[k++] = (char)('0' + len % 10);
			while ((len /= 10) && k < sizeof(num));
			memcpy(buf + i, num, k < n - i ? k : n - i);
			i += k < n - i ? k : n - i;
		}
		if (i < n)
			buf[i++] = (r >> 20 & 15) ? ' ' : '\n';
	}
}

#endif
