/*
 * Compiling a kernel file: the options a user gives (-D, -I,
 * --build-options, -O) and the two ways they are used — clang-14 to SPIR
 * bitcode on the host (argument layout, instrumentation, static counts)
 * and the build-options string handed to clBuildProgram.
 */
#ifndef SIBYL_OCL_COMPILE_H
#define SIBYL_OCL_COMPILE_H

#include "core/options.h"

#include <stddef.h>

/* The largest kernel file read: an OpenCL source, SPIR bitcode, a cached
 * device binary or a counters dump. */
#define SIBYL_KERNEL_FILE_MAX ((size_t)1 << 30)

struct sibyl_compile_opts {
	const char *file;		/* the .cl file */
	struct sibyl_strlist defines;	/* -D NAME[=VALUE] */
	struct sibyl_strlist includes;	/* -I DIR */
	const char *build_options;	/* extra options, split on spaces */
	const char *opt_level;		/* "0" (default), "1", "2", "3", "s", "z" */
};

/* Compile to SPIR bitcode (spir64, OpenCL C 1.2) with clang-14. *bc is
 * malloc'd. Returns 0; -2 when clang refused the source (every message
 * of clang's a diagnostic notice, the first error in err); -1 with err
 * on other failures. With sibyl_verbose(), clang's warnings too. */
int sibyl_compile_spir(const struct sibyl_compile_opts *o, void **bc, size_t *size, char *err,
		       size_t errlen);

/* The front-end options of that compile (target, language, -D, -I, the
 * user's), for libclang. */
void sibyl_compile_frontend_args(const struct sibyl_compile_opts *o, struct sibyl_strlist *l);

/* malloc'd first "error:" line of a compiler log (or its first line). */
char *sibyl_first_error_line(const char *log);

/* A device compiler's log with its temporary file names replaced by
 * `file` (PoCL builds a copy of the source under its own name), in the
 * "FILE:LINE:COL: error: why" form; malloc'd. */
char *sibyl_build_log_map(const char *log, const char *file);

/* malloc'd option string for clBuildProgram: -D..., -I..., the user's. */
char *sibyl_build_options(const struct sibyl_compile_opts *o);

#endif
