/* What an application imports, directly or through its libraries (--app). */
#ifndef SIBYL_WRAPGEN_APP_IMPORTS_H
#define SIBYL_WRAPGEN_APP_IMPORTS_H

#include <stdbool.h>

#include "wrapgen/elfsyms.h"

struct wg_app_ctx {
	const char *app;			/* path, or a name looked up in $PATH */
	const struct wg_symtab *exports;	/* the wrapped library's */
	const char *library;			/* its realpath: not scanned */
	const char *soname;			/* for messages */
	bool verbose;				/* list the functions per object */
};

/* The library's functions that the application or any library it needs
 * imports, sorted, in *out; a note says which object imports how many.
 * 0, or -1 with the error line in err. */
int wg_app_imports(const struct wg_app_ctx *ctx, struct wg_symtab *out, char *err,
		   size_t errlen);

#endif
