/* Explaining a compiler error in a definition file's code (defs_hint.c). */
#ifndef SIBYL_WRAPGEN_DEFS_HINT_H
#define SIBYL_WRAPGEN_DEFS_HINT_H

#include "wrapgen/defs.h"
#include "wrapgen/select.h"

struct wg_defs_hint_ctx {
	const struct wg_defs *defs;
	const struct wg_selection *sel;		/* the wrapped functions */
	const char *soname, *library_path;	/* for matching the definitions */
};

/* For each definition the compiler's `diagnostics` find an unknown name
 * in, one line naming what its code can use. */
void wg_defs_hint(const char *diagnostics, const struct wg_defs_hint_ctx *c);

#endif
