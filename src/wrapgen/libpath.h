/* Find the file behind a library name, the way the dynamic loader would. */
#ifndef SIBYL_WRAPGEN_LIBPATH_H
#define SIBYL_WRAPGEN_LIBPATH_H

/*
 * `name` with a '/', or naming a file in the current directory, is a path
 * (made absolute); otherwise it is a soname
 * or file name looked up in the `ldconfig -p` cache, then in the standard
 * directories.  Never dlopen()s it: running its constructors just to find
 * it would be a surprise.  malloc'd path, or NULL with the error line in
 * err.
 */
#include <stddef.h>

char *wg_find_library(const char *name, char *err, size_t errlen);
/* The same for a soname, without an error: NULL when not found. */
char *wg_lookup_library(const char *name);
/* An executable named without a '/' is looked up in $PATH, as a shell
 * would; malloc'd path, or NULL with "wrap: --app NAME: ..." in err. */
char *wg_find_program(const char *name, char *err, size_t errlen);

#endif
