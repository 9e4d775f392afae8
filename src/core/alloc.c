#define _GNU_SOURCE
#include "core/alloc.h"

#include <stdint.h>
#include <stdarg.h>
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

char *sibyl_xvasprintf(const char *fmt, va_list ap)
{
	va_list again;
	char *s;
	int n;

	va_copy(again, ap);
	n = vsnprintf(NULL, 0, fmt, ap);
	/* vsnprintf fails only for a result over INT_MAX bytes: asking for
	 * SIZE_MAX reports that like any other exhaustion. */
	s = sibyl_xmalloc(n < 0 ? SIZE_MAX : (size_t)n + 1);
	vsnprintf(s, (size_t)n + 1, fmt, again);
	va_end(again);
	return s;
}

char *sibyl_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = sibyl_xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

FILE *sibyl_xmemstream(char **buf, size_t *len)
{
	*buf = NULL;
	*len = 0;
	return checked(open_memstream(buf, len), 1, BUFSIZ);
}
