/*
 * User definition files (paper IV.C.3): C code inserted before or after
 * the call of matching functions, e.g. to compute the work size.
 *
 *   libblas*::*gemm_::postfix { output_size = *m * *n * sizeof(*c); }
 *   libblas*:dgemm_:prefix { ... }          (single colons also accepted)
 *   libblas*::dgemm_::metric { floating-point operations (2mnk) }
 *
 * Library and function are fnmatch(3) globs; the library glob is tried on
 * the soname, the file name and the full path of the wrapped library.
 */
#ifndef SIBYL_WRAPGEN_DEFS_H
#define SIBYL_WRAPGEN_DEFS_H

#include <stdbool.h>
#include <stddef.h>

/* METRIC: the body names what `work` counts (recorded in the trace). */
enum wg_defs_loc { WG_DEFS_PREFIX, WG_DEFS_POSTFIX, WG_DEFS_METRIC };

struct wg_def {
	char *lib_glob;
	char *fn_glob;
	enum wg_defs_loc loc;
	char *code;		/* the body, without the outer braces (METRIC: normalized) */
	char *file;
	unsigned line;		/* line of the body's '{' */
	bool used;
};

struct wg_defs {
	struct wg_def *v;
	size_t n;
};

/* Append the definitions in `text`; -1 with "file:line: error: ..." in
 * err. */
int wg_defs_parse(const char *text, const char *file, struct wg_defs *out, char *err,
		  size_t errlen);
/* The largest definition file (or generator template) read. */
#define WG_DEFS_MAX_BYTES ((size_t)16 << 20)
/* Read and parse a definition file; -1 with the error line in err (a
 * parse error's "FILE:LINE: error:" line is a diagnostic notice first). */
int wg_defs_load(const char *path, struct wg_defs *out, char *err, size_t errlen);
bool wg_def_matches(const struct wg_def *d, const char *soname, const char *path,
		    const char *function);
void wg_defs_free(struct wg_defs *d);

#endif
