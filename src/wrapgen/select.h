/*
 * Which exported symbols get a wrapper, and why the others do not (like
 * scorep-libwrap-init's missing/uncertain lists).
 */
#ifndef SIBYL_WRAPGEN_SELECT_H
#define SIBYL_WRAPGEN_SELECT_H

#include <stdbool.h>

#include "core/options.h"
#include "wrapgen/elfsyms.h"
#include "wrapgen/headers.h"

enum wg_skip_reason {
	WG_SKIP_NO_PROTOTYPE,	/* exported, not declared in the headers */
	WG_SKIP_UNPROTOTYPED,	/* declared K&R-style: "int f();" */
	WG_SKIP_VARIADIC,	/* "..." and no va_list twin */
	WG_SKIP_NOT_EXPORTED,	/* declared in the headers, not in the library */
	WG_SKIP_DATA,		/* a variable, cannot be wrapped */
	WG_SKIP_NREASONS
};

struct wg_skip {
	const char *name;
	enum wg_skip_reason reason;
};

struct wg_pick {
	const struct wg_proto *proto;
	const struct wg_proto *twin;	/* va_list twin for variadic functions, or NULL */
};

struct wg_selection {
	struct wg_pick *picks;
	size_t npicks;
	struct wg_skip *skips;
	size_t nskips;
};

/*
 * globs: fnmatch patterns, "!pattern" excludes; empty list = everything.
 * A name matches when it matches some positive pattern (or there is
 * none) and no negative one.
 */
bool wg_names_match(const struct sibyl_strlist *globs, const char *name);

/* imports: NULL, or the application's undefined symbols (the only candidates). */
void wg_select(const struct wg_symtab *exports, const struct wg_symtab *imports,
	       const struct wg_protos *protos, const struct sibyl_strlist *globs,
	       struct wg_selection *out);
/* The va_list twin of a variadic prototype (vfoo, foo_v, foov), or NULL. */
const struct wg_proto *wg_va_twin(const struct wg_protos *protos,
				  const struct wg_symtab *exports, const struct wg_proto *p);
const char *wg_skip_reason_text(enum wg_skip_reason r);
void wg_selection_free(struct wg_selection *s);

#endif
