/*
 * Private to the source marker (source_marks.c): reading libclang
 * cursors of the user's file.
 */
#ifndef SIBYL_OCL_INSTRUMENT_SOURCE_INTERNAL_H
#define SIBYL_OCL_INSTRUMENT_SOURCE_INTERNAL_H

#include <clang-c/Index.h>
#include <stdbool.h>
#include <stddef.h>

/* The file being marked. */
struct sm_file {
	CXTranslationUnit tu;
	CXFile main;
	const char *src;
	size_t len;
};

struct sm_kids {
	CXCursor *c;
	unsigned n, cap;
};

/* A cursor's children (kids.c malloc'd). */
struct sm_kids sm_children(CXCursor c);
unsigned sm_line_of(CXSourceLocation loc);
/* The offset in the user's file where loc expands; false elsewhere. */
bool sm_offset(const struct sm_file *m, CXSourceLocation loc, size_t *off);
/* The construct itself (its keyword or operator) is written in a macro. */
bool sm_from_macro(CXCursor c);
/* The operator of c (binary, unary, `?:`) is written in a macro. */
bool sm_op_from_macro(CXCursor c);
/* c's extent as offsets in the user's file. */
bool sm_extent(const struct sm_file *m, CXCursor c, size_t *start, size_t *end);
bool sm_is_vector(CXCursor c);
/* `&&` or `||` on scalars; `!` on a scalar. */
bool sm_is_logical(const struct sm_file *m, CXCursor c);
bool sm_is_not(const struct sm_file *m, CXCursor c);
/* The expression evaluated first when c is: through parentheses,
 * conversions, `!`, the left of `&&`/`||` and a `?:`'s condition. */
CXCursor sm_leftmost_leaf(const struct sm_file *m, CXCursor c);

struct sm_offsets {
	size_t *off;
	size_t n, cap;
};

/* The file with every invocation of a macro that branches replaced by
 * its expansion (source_expand.c); NULL when there is none. The
 * invocations it cannot expand (# or ##, variadic) are added to kept. */
char *sm_expand_macros(const struct sm_file *m, struct sm_offsets *kept);

#endif
