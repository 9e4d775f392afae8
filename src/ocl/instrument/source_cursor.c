/* libclang cursors of the file being marked (source_internal.h). */
#include "ocl/instrument/source_internal.h"

#include "core/alloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

unsigned sm_line_of(CXSourceLocation loc)
{
	unsigned line = 0;

	clang_getExpansionLocation(loc, NULL, &line, NULL, NULL);
	return line;
}

/* The offset in the user's file where loc expands; false elsewhere. */
bool sm_offset(const struct sm_file *m, CXSourceLocation loc, size_t *off)
{
	CXFile f = NULL;
	unsigned o = 0;

	clang_getExpansionLocation(loc, &f, NULL, NULL, &o);
	*off = o;
	return f && clang_File_isEqual(f, m->main) && o <= m->len;
}

/* Spelt elsewhere than it expands: inside a macro. */
static bool in_macro(CXSourceLocation loc)
{
	CXFile f1 = NULL, f2 = NULL;
	unsigned o1 = 0, o2 = 0;

	clang_getSpellingLocation(loc, &f1, NULL, NULL, &o1);
	clang_getExpansionLocation(loc, &f2, NULL, NULL, &o2);
	return !f1 || !f2 || !clang_File_isEqual(f1, f2) || o1 != o2;
}

/* The construct itself (its keyword, or where it starts) is written in a macro. */
bool sm_from_macro(CXCursor c)
{
	return in_macro(clang_getCursorLocation(c));
}

bool sm_extent(const struct sm_file *m, CXCursor c, size_t *start, size_t *end)
{
	CXSourceRange r = clang_getCursorExtent(c);

	return sm_offset(m, clang_getRangeStart(r), start) &&
	       sm_offset(m, clang_getRangeEnd(r), end) && *start <= *end;
}


static enum CXChildVisitResult collect(CXCursor c, CXCursor parent, CXClientData data)
{
	struct sm_kids *k = data;
	(void)parent;

	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 8;
		k->c = sibyl_xreallocarray(k->c, k->cap, sizeof(*k->c));
	}
	k->c[k->n++] = c;
	return CXChildVisit_Continue;
}

struct sm_kids sm_children(CXCursor c)
{
	struct sm_kids k = { 0 };

	clang_visitChildren(c, collect, &k);
	return k;
}

/* Where c's operator is: after its first operand (binary, `?:`), or
 * at its start (unary); libclang puts a cursor at its start. */
static CXSourceLocation op_location(CXCursor c)
{
	CXSourceRange r = clang_getCursorExtent(c);

	if (clang_getCursorKind(c) != CXCursor_UnaryOperator) {
		struct sm_kids k = sm_children(c);

		if (k.n)
			r = clang_getCursorExtent(k.c[0]);
		free(k.c);
		return k.n ? clang_getRangeEnd(r) : clang_getRangeStart(r);
	}
	return clang_getRangeStart(r);
}

/* The text of c's operator (where it is spelt, also inside a macro). */
static const char *sm_operator(const struct sm_file *m, CXCursor c, size_t *avail)
{
	CXFile f = NULL;
	unsigned o = 0;
	size_t size = 0;

	clang_getSpellingLocation(op_location(c), &f, NULL, NULL, &o);
	const char *text = f ? clang_getFileContents(m->tu, f, &size) : NULL;

	while (text && o < size && isspace((unsigned char)text[o]))
		o++;
	*avail = text && o < size ? size - o : 0;
	return *avail ? text + o : "";
}

bool sm_op_from_macro(CXCursor c)
{
	return in_macro(op_location(c));
}

bool sm_is_vector(CXCursor c)
{
	enum CXTypeKind k = clang_getCanonicalType(clang_getCursorType(c)).kind;

	return k == CXType_Vector || k == CXType_ExtVector;
}

/* `&&` or `||` on scalars: the operator that short-circuits. */
bool sm_is_logical(const struct sm_file *m, CXCursor c)
{
	size_t avail;
	const char *op;

	if (clang_getCursorKind(c) != CXCursor_BinaryOperator || sm_is_vector(c))
		return false;
	op = sm_operator(m, c, &avail);
	return avail >= 2 && (!strncmp(op, "&&", 2) || !strncmp(op, "||", 2));
}

bool sm_is_not(const struct sm_file *m, CXCursor c)
{
	size_t avail;

	if (clang_getCursorKind(c) != CXCursor_UnaryOperator || sm_is_vector(c))
		return false;
	return *sm_operator(m, c, &avail) == '!' && avail >= 2 && sm_operator(m, c, &avail)[1] != '=';
}

/* An implicit conversion around one expression of the same extent. */
static bool sm_is_wrapper(const struct sm_file *m, CXCursor c, CXCursor *inner)
{
	size_t s1, e1, s2, e2;
	enum CXCursorKind k = clang_getCursorKind(c);

	if (k != CXCursor_UnexposedExpr && k != CXCursor_ParenExpr)
		return false;
	struct sm_kids kids = sm_children(c);
	bool one = kids.n == 1;

	if (one)
		*inner = kids.c[0];
	free(kids.c);
	if (!one || k == CXCursor_ParenExpr)
		return one;
	return sm_extent(m, c, &s1, &e1) && sm_extent(m, *inner, &s2, &e2) && s1 == s2 && e1 == e2;
}

/* The expression evaluated first when c is: through parentheses,
 * conversions, `!`, the left of `&&`/`||` and a `?:`'s condition. */
CXCursor sm_leftmost_leaf(const struct sm_file *m, CXCursor c)
{
	for (;;) {
		CXCursor inner;
		bool logical = sm_is_logical(m, c), not = sm_is_not(m, c);
		bool cond = clang_getCursorKind(c) == CXCursor_ConditionalOperator;

		if ((logical || not || cond) && sm_op_from_macro(c))
			return c;
		if (logical || not || cond) {
			struct sm_kids k = sm_children(c);

			if (!k.n) {
				free(k.c);
				return c;
			}
			inner = k.c[0];
			free(k.c);
		} else if (!sm_is_wrapper(m, c, &inner)) {
			return c;
		}
		c = inner;
	}
}

