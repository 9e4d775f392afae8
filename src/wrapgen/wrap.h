/*
 * `sibyl wrap`: from a shared library and its headers to an LD_PRELOAD
 * wrapper library (the paper's dyliberator).  The CLI fills the options;
 * everything else happens here.
 */
#ifndef SIBYL_WRAPGEN_WRAP_H
#define SIBYL_WRAPGEN_WRAP_H

#include <stdbool.h>

#include "core/options.h"

struct sibyl_wrap_opts {
	const char *library;		/* path or soname */
	struct sibyl_strlist headers;
	struct sibyl_strlist incdirs;	/* DIR, as given to -I */
	struct sibyl_strlist defines;	/* M or M=V, as given to -D */
	const char *app;		/* only what this executable imports */
	struct sibyl_strlist functions;	/* globs, "!glob" excludes */
	struct sibyl_strlist gens;	/* "name[:k=v...]" */
	struct sibyl_strlist defs;	/* definition files */
	struct sibyl_strlist gen_path;	/* template directories */
	const char *output;
	const char *emit_c;		/* keep the generated source here */
	const char *command_line;	/* for the banner of the source */
	bool verbose;
	bool force;			/* replace existing outputs */
};

/* 0 on success, or -1 with the error line in err.  The summary ("N
 * function(s) wrapped, ...") is a note, the -v list of skipped symbols
 * diagnostic lines (core/log.h). */
int sibyl_wrap(const struct sibyl_wrap_opts *o, char *err, size_t errlen);

#endif
