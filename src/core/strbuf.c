#include "core/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void reserve(struct wg_buf *b, size_t extra)
{
	if (b->len + extra + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 256;

	while (cap < b->len + extra + 1)
		cap *= 2;
	b->s = realloc(b->s, cap);
	if (!b->s)
		abort();
	b->cap = cap;
}

void wg_buf_add(struct wg_buf *b, const char *s, size_t n)
{
	reserve(b, n);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

void wg_buf_puts(struct wg_buf *b, const char *s)
{
	wg_buf_add(b, s, strlen(s));
}

void wg_buf_printf(struct wg_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		abort();
	reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

const char *wg_buf_str(const struct wg_buf *b)
{
	return b->s ? b->s : "";
}

char *wg_buf_take(struct wg_buf *b)
{
	char *s = b->s ? b->s : wg_strdup("");

	b->s = NULL;
	b->len = b->cap = 0;
	return s;
}

void wg_buf_free(struct wg_buf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

char *wg_strndup(const char *s, size_t n)
{
	char *p = malloc(n + 1);

	if (!p)
		abort();
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *wg_strdup(const char *s)
{
	return wg_strndup(s, strlen(s));
}
