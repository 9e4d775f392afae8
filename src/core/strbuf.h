/* A growable string: what every component builds text in (generated
 * code, command lines, file names).  Allocation aborts on exhaustion, like
 * core/alloc.h, so it is not for the runtime. */
#ifndef SIBYL_CORE_STRBUF_H
#define SIBYL_CORE_STRBUF_H

#include <stddef.h>

struct sibyl_strbuf {
	char *s;	/* always NUL-terminated once anything was added */
	size_t len;
	size_t cap;
};

void sibyl_strbuf_add(struct sibyl_strbuf *b, const char *s, size_t n);
void sibyl_strbuf_puts(struct sibyl_strbuf *b, const char *s);
void sibyl_strbuf_printf(struct sibyl_strbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The contents ("" when empty); the buffer keeps ownership. */
const char *sibyl_strbuf_str(const struct sibyl_strbuf *b);
/* Hand the string to the caller (malloc'd, never NULL) and reset. */
char *sibyl_strbuf_take(struct sibyl_strbuf *b);
void sibyl_strbuf_free(struct sibyl_strbuf *b);

#endif
