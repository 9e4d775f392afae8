/* A growable string, the unit of code generation. */
#ifndef SIBYL_CORE_STRBUF_H
#define SIBYL_CORE_STRBUF_H

#include <stddef.h>

struct wg_buf {
	char *s;	/* always NUL-terminated once anything was added */
	size_t len;
	size_t cap;
};

void wg_buf_add(struct wg_buf *b, const char *s, size_t n);
void wg_buf_puts(struct wg_buf *b, const char *s);
void wg_buf_printf(struct wg_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The contents ("" when empty); the buffer keeps ownership. */
const char *wg_buf_str(const struct wg_buf *b);
/* Hand the string to the caller (malloc'd, never NULL) and reset. */
char *wg_buf_take(struct wg_buf *b);
void wg_buf_free(struct wg_buf *b);

/* malloc'd copy of s[0..n) (abort on OOM, like the rest of the CLI). */
char *wg_strndup(const char *s, size_t n);
char *wg_strdup(const char *s);

#endif
