/* FNV-1a: stable ids for functions, shared by wrapgen and the reader. */
#ifndef SIBYL_CORE_HASH_H
#define SIBYL_CORE_HASH_H

#include <stdint.h>

static inline uint32_t sibyl_fnv1a32(uint32_t h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h;
}

/* The id of `function` in wrapper library `library` (never 0). */
static inline uint32_t sibyl_function_id(const char *library, const char *function)
{
	uint32_t h = sibyl_fnv1a32(2166136261u, library);

	h = sibyl_fnv1a32(h ^ 0xff, function);
	return h ? h : 1;
}

#endif
