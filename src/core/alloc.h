/*
 * Allocation that cannot fail: out of memory, the command prints one line
 * and aborts (there is nothing sensible to continue with, and a NULL
 * checked at every call site is code nobody tests).  Never used by the
 * runtime, which must not abort the traced program.
 */
#ifndef SIBYL_CORE_ALLOC_H
#define SIBYL_CORE_ALLOC_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

void *sibyl_xmalloc(size_t size);
void *sibyl_xcalloc(size_t count, size_t size);
/* realloc of count * size bytes, the product checked for overflow. */
void *sibyl_xreallocarray(void *p, size_t count, size_t size);
char *sibyl_xstrdup(const char *s);
char *sibyl_xstrndup(const char *s, size_t n);
/* A malloc'd string formatted like printf. */
char *sibyl_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *sibyl_xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* open_memstream: a stream writing into *buf (malloc'd, *len bytes). */
FILE *sibyl_xmemstream(char **buf, size_t *len);

#endif
