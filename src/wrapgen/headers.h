/*
 * Function prototypes from C headers, parsed with libclang from one
 * synthetic translation unit that includes the headers in order (so that
 * jpeglib.h can rely on stdio.h coming first, as its users do).
 */
#ifndef SIBYL_WRAPGEN_HEADERS_H
#define SIBYL_WRAPGEN_HEADERS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/options.h"

struct wg_param {
	char *name;	/* header name, or argN when unnamed */
	char *type;	/* spelling as written, e.g. "const int *" */
	char *canon;	/* canonical spelling, for comparing types */
	/* A pointer to one complete struct or union: its size (0 otherwise). */
	long long record_size;
};

struct wg_proto {
	char *name;
	char *ret;		/* return type spelling */
	struct wg_param *params;
	size_t nparams;
	bool variadic;
	bool noproto;		/* K&R "int f();": parameters unknown */
	bool ends_in_va_list;	/* last parameter is a va_list */
	bool in_user_header;	/* declared in a header named on the command line */
	char *file;
	unsigned line;
	size_t seq;		/* declaration order, 1-based */
};

struct wg_protos {
	struct wg_proto *v;	/* sorted by name, first declaration wins */
	size_t n;
};

struct wg_header_opts {
	const struct sibyl_strlist *headers;	/* names or paths, in order */
	const struct sibyl_strlist *incdirs;
	const struct sibyl_strlist *defines;	/* "M" or "M=V" */
};

/* 0, or -1 with one summary line in err (the compiler's errors are
 * diagnostic notices first, core/log.h). */
int wg_parse_headers(const struct wg_header_opts *o, struct wg_protos *out, char *err,
		     size_t errlen);
const struct wg_proto *wg_protos_find(const struct wg_protos *p, const char *name);
void wg_protos_free(struct wg_protos *p);

/* After a failed parse (header_order.c): one line per header that used a
 * type before any header declared it, naming the header to put first.
 * argv/argc: the parser's arguments. */
struct CXTranslationUnitImpl;
void wg_explain_header_order(const struct wg_header_opts *o, struct CXTranslationUnitImpl *tu,
			     const char *const *argv, int argc);

/* `#include` line for one header (a path that exists becomes "abs"). */
char *wg_include_line(const char *header);
/* Declarator for `type name` that survives function-pointer and array
 * types: "__typeof__(T) name" when T contains '(' or '['. */
char *wg_declare(const char *type, const char *name);

#endif
