/* Composing the wrapper library's C source from the planned generators. */
#ifndef SIBYL_WRAPGEN_EMIT_H
#define SIBYL_WRAPGEN_EMIT_H

#include "wrapgen/plan.h"
#include "wrapgen/select.h"

struct wg_emit_opts {
	const struct sibyl_strlist *headers;
	const struct wg_unit *unit;
	const char *command_line;	/* for the banner comment */
	const char *source_name;	/* the file the source is compiled as (#line) */
};

/* The whole source, malloc'd; NULL with the error line in err (a
 * generator's setup refused its parameters). */
char *wg_emit_source(const struct wg_emit_opts *o, struct wg_plan *plan,
		     const struct wg_selection *sel, char *err, size_t errlen);

#endif
