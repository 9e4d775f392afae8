/*
 * After the headers failed to parse: explain the most common cause, a
 * header that uses a type before any header declares it (jpeglib.h needs
 * FILE and size_t from stdio.h).  The headers are included in the order
 * given, so the fix is to name the declaring header first: one of the
 * later --header's when it declares the type (parsed alone to find out),
 * else the standard header that does.
 */
#define _GNU_SOURCE
#include "wrapgen/headers.h"
#include "core/alloc.h"
#include "core/log.h"
#include "core/strbuf.h"

#include <clang-c/Index.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Standard headers and the types they declare, most common first. */
static const struct {
	const char *header;
	const char *types[12];
} standard[] = {
	{ "stdio.h", { "FILE", "size_t", "fpos_t", "off_t", "ssize_t" } },
	{ "stdint.h", { "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t",
			"uint32_t", "uint64_t", "intptr_t", "uintptr_t", "intmax_t", "uintmax_t" } },
	{ "stddef.h", { "ptrdiff_t", "wchar_t", "max_align_t" } },
	{ "stdarg.h", { "va_list" } },
	{ "stdbool.h", { "bool" } },
	{ "time.h", { "time_t", "clock_t", "clockid_t", "timer_t" } },
	{ "sys/types.h", { "pid_t", "uid_t", "gid_t", "mode_t", "dev_t", "ino_t", "key_t" } },
	{ "pthread.h", { "pthread_t", "pthread_mutex_t", "pthread_cond_t", "pthread_attr_t" } },
};

struct unknown {
	char *type;
	char *user;		/* the header that used it (as given) */
	const char *fix;	/* the header to name before it */
};

static const char *standard_header(const char *type)
{
	for (size_t i = 0; i < sizeof(standard) / sizeof(standard[0]); i++)
		for (size_t k = 0; k < 12 && standard[i].types[k]; k++)
			if (!strcmp(standard[i].types[k], type))
				return standard[i].header;
	return NULL;
}

/* Whether clang's `file` is the header given as `h`: the same file when
 * h exists from here, else found under an include directory as h. */
static bool is_header(const char *file, const char *h)
{
	char a[PATH_MAX], b[PATH_MAX];
	size_t nf = strlen(file), nh = strlen(h);

	if (realpath(h, a))
		return realpath(file, b) && !strcmp(a, b);
	return nf >= nh && !strcmp(file + nf - nh, h) && (nf == nh || file[nf - nh - 1] == '/');
}

/* The --header that `file` (a path clang reports) is, or NULL. */
static const char *given_header(const struct wg_header_opts *o, const char *file, size_t *at)
{
	for (size_t i = 0; i < o->headers->count; i++)
		if (is_header(file, o->headers->items[i])) {
			*at = i;
			return o->headers->items[i];
		}
	return NULL;
}

static bool listed(const struct unknown *u, size_t n, const struct unknown *x)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(u[i].type, x->type) && !strcmp(u[i].user, x->user))
			return true;
	return false;
}

struct decl_search {
	const char *name;
	bool found;
};

static enum CXChildVisitResult find_decl(CXCursor c, CXCursor parent, CXClientData data)
{
	struct decl_search *s = data;
	enum CXCursorKind k = clang_getCursorKind(c);
	CXString name;

	(void)parent;
	if (k != CXCursor_TypedefDecl && k != CXCursor_StructDecl && k != CXCursor_EnumDecl &&
	    k != CXCursor_UnionDecl)
		return CXChildVisit_Continue;
	name = clang_getCursorSpelling(c);
	s->found = s->found || !strcmp(clang_getCString(name), s->name);
	clang_disposeString(name);
	return s->found ? CXChildVisit_Break : CXChildVisit_Continue;
}

/* Whether `header` alone declares `type`. */
static bool declares(CXIndex idx, const char *header, const char *type, const char *const *argv,
		     int argc)
{
	char *line = wg_include_line(header);
	struct CXUnsavedFile f = { "sibyl-wrap-order.c", line, (unsigned long)strlen(line) };
	CXTranslationUnit tu = NULL;
	struct decl_search s = { type, false };

	if (clang_parseTranslationUnit2(idx, f.Filename, argv, argc, &f, 1,
					CXTranslationUnit_SkipFunctionBodies, &tu) == CXError_Success && tu)
		clang_visitChildren(clang_getTranslationUnitCursor(tu), find_decl, &s);
	if (tu)
		clang_disposeTranslationUnit(tu);
	free(line);
	return s.found;
}

/* "unknown type name 'X'" in a --header: X and that header, else false. */
static bool unknown_type(const struct wg_header_opts *o, CXDiagnostic d, struct unknown *u,
			 size_t *at)
{
	CXString text = clang_getDiagnosticSpelling(d);
	const char *s = clang_getCString(text), *q;
	CXFile file;
	bool ok = false;

	if (!strncmp(s, "unknown type name '", 19) && (q = strchr(s + 19, '\''))) {
		clang_getExpansionLocation(clang_getDiagnosticLocation(d), &file, NULL, NULL, NULL);
		CXString fname = clang_getFileName(file);
		const char *user = clang_getCString(fname) ?
				   given_header(o, clang_getCString(fname), at) : NULL;

		if (user) {
			u->type = sibyl_xstrndup(s + 19, (size_t)(q - s - 19));
			u->user = sibyl_xstrdup(user);
			ok = true;
		}
		clang_disposeString(fname);
	}
	clang_disposeString(text);
	return ok;
}

static void print_advice(const struct unknown *u, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct sibyl_strbuf types = { 0 }, fixes = { 0 };
		bool seen = false;

		for (size_t k = 0; k < i && !seen; k++)
			seen = !strcmp(u[k].user, u[i].user);
		if (seen)
			continue;
		for (size_t k = i; k < n; k++) {
			if (strcmp(u[k].user, u[i].user))
				continue;
			sibyl_strbuf_printf(&types, "%s%s", types.len ? ", " : "", u[k].type);
			if (u[k].fix && !strstr(sibyl_strbuf_str(&fixes), u[k].fix))
				sibyl_strbuf_printf(&fixes, "--header %s ", u[k].fix);
		}
		const char *it = strchr(sibyl_strbuf_str(&types), ',') ? "them" : "it";

		if (fixes.len)
			sibyl_notice(SIBYL_NOTICE_NOTE, "wrap: headers: %s uses %s before any header "
				     "declares %s; headers are included in the order given, so name "
				     "first the one declaring %s: %s--header %s", u[i].user,
				     sibyl_strbuf_str(&types), it, it, sibyl_strbuf_str(&fixes),
				     u[i].user);
		else
			sibyl_notice(SIBYL_NOTICE_NOTE, "wrap: headers: %s uses %s before any header "
				     "declares %s; headers are included in the order given: add the "
				     "header declaring %s before %s", u[i].user,
				     sibyl_strbuf_str(&types), it, it, u[i].user);
		sibyl_strbuf_free(&types);
		sibyl_strbuf_free(&fixes);
	}
}

/* A later --header that declares `type` (after position `at`), else a
 * standard one, else NULL. */
static const char *declaring_header(const struct wg_header_opts *o, CXIndex idx, size_t at,
				    const char *type, const char *const *argv, int argc)
{
	for (size_t j = at + 1; j < o->headers->count; j++)
		if (declares(idx, o->headers->items[j], type, argv, argc))
			return o->headers->items[j];
	return standard_header(type);
}

void wg_explain_header_order(const struct wg_header_opts *o, CXTranslationUnit tu,
			     const char *const *argv, int argc)
{
	unsigned nd = clang_getNumDiagnostics(tu);
	struct unknown *u = sibyl_xcalloc(nd ? nd : 1, sizeof(*u));
	CXIndex idx = clang_createIndex(0, 0);
	size_t n = 0;

	for (unsigned i = 0; i < nd; i++) {
		CXDiagnostic d = clang_getDiagnostic(tu, i);
		size_t at = 0;

		if (unknown_type(o, d, &u[n], &at)) {
			if (listed(u, n, &u[n])) {
				free(u[n].type);
				free(u[n].user);
				memset(&u[n], 0, sizeof(u[n]));
			} else {
				u[n].fix = declaring_header(o, idx, at, u[n].type, argv, argc);
				n++;
			}
		}
		clang_disposeDiagnostic(d);
	}
	print_advice(u, n);
	for (size_t i = 0; i < n; i++) {
		free(u[i].type);
		free(u[i].user);
	}
	free(u);
	clang_disposeIndex(idx);
}
