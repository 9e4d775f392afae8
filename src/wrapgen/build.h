/* Compiling the generated source into the wrapper library. */
#ifndef SIBYL_WRAPGEN_BUILD_H
#define SIBYL_WRAPGEN_BUILD_H

#include "core/options.h"

struct wg_build_opts {
	const char *source_path;	/* the generated .c */
	const char *output;		/* OUT.so, replaced atomically */
	const struct sibyl_strlist *incdirs;	/* "-IDIR" */
	const struct sibyl_strlist *defines;	/* "-DM=V" */
	bool verbose;
	char **diagnostics;	/* if not NULL: what the compiler said (malloc'd) */
};

/* Where wrap_rt.h and libsibyl-rt.so are: next to the sibyl executable
 * when installed, else the build tree.  malloc'd. */
void wg_runtime_dirs(char **include_dir, char **lib_dir);
/* Run ${CC:-cc}; 0, or -1 with the error line in err (the compiler's own
 * output goes to stderr as it is). */
int wg_build(const struct wg_build_opts *o, char *err, size_t errlen);

#endif
