#define _GNU_SOURCE
#include "core/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *checked(void *p, size_t count, size_t size)
{
	if (!p && count && size) {
		/* No log helper: it may itself need memory. */
		fprintf(stderr, "sibyl: out of memory (%zu x %zu bytes)\n", count, size);
		abort();
	}
	return p;
}

void *sibyl_xmalloc(size_t size)
{
	return checked(malloc(size ? size : 1), 1, size ? size : 1);
}

void *sibyl_xcalloc(size_t count, size_t size)
{
	return checked(calloc(count ? count : 1, size ? size : 1), count ? count : 1,
		       size ? size : 1);
}

void *sibyl_xreallocarray(void *p, size_t count, size_t size)
{
	if (!count || !size)
		count = size = 1;
	return checked(reallocarray(p, count, size), count, size);
}

char *sibyl_xstrdup(const char *s)
{
	return checked(strdup(s), 1, strlen(s) + 1);
}

char *sibyl_xstrndup(const char *s, size_t n)
{
	return checked(strndup(s, n), 1, n + 1);
}
