#include "core/strbuf.h"

#include "core/alloc.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void reserve(struct sibyl_strbuf *b, size_t extra)
{
	if (b->len + extra + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 256;

	while (cap < b->len + extra + 1)
		cap *= 2;
	b->s = sibyl_xreallocarray(b->s, cap, 1);
	b->cap = cap;
}

void sibyl_strbuf_add(struct sibyl_strbuf *b, const char *s, size_t n)
{
	reserve(b, n);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

void sibyl_strbuf_puts(struct sibyl_strbuf *b, const char *s)
{
	sibyl_strbuf_add(b, s, strlen(s));
}

void sibyl_strbuf_printf(struct sibyl_strbuf *b, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = sibyl_xvasprintf(fmt, ap);
	va_end(ap);
	sibyl_strbuf_puts(b, s);
	free(s);
}

const char *sibyl_strbuf_str(const struct sibyl_strbuf *b)
{
	return b->s ? b->s : "";
}

char *sibyl_strbuf_take(struct sibyl_strbuf *b)
{
	char *s = b->s ? b->s : sibyl_xstrdup("");

	b->s = NULL;
	b->len = b->cap = 0;
	return s;
}

void sibyl_strbuf_free(struct sibyl_strbuf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}
