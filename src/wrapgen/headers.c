#define _GNU_SOURCE
#include "wrapgen/headers.h"
#include "core/alloc.h"
#include "core/strbuf.h"
#include "core/fs.h"
#include "core/log.h"

#include <clang-c/Index.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct collect {
	struct wg_protos *out;
	size_t cap;
	char **user_files;	/* realpaths of the headers the TU includes directly */
	size_t nuser;
};

char *wg_include_line(const char *header)
{
	struct sibyl_strbuf b = { 0 };
	char abs[PATH_MAX];

	/* A file that exists from here is the user's (like "quotes" for cc):
	 * `--header tiny.h` in tiny.h's directory. */
	if (realpath(header, abs))
		sibyl_strbuf_printf(&b, "#include \"%s\"\n", abs);
	else
		sibyl_strbuf_printf(&b, "#include <%s>\n", header);
	return sibyl_strbuf_take(&b);
}

char *wg_declare(const char *type, const char *name)
{
	struct sibyl_strbuf b = { 0 };

	if (strpbrk(type, "(["))
		sibyl_strbuf_printf(&b, "__typeof__(%s) %s", type, name);
	else
		sibyl_strbuf_printf(&b, "%s %s", type, name);
	return sibyl_strbuf_take(&b);
}

static char *take_string(CXString s)
{
	char *r = sibyl_xstrdup(clang_getCString(s) ? clang_getCString(s) : "");

	clang_disposeString(s);
	return r;
}

static bool is_va_list(CXType t)
{
	CXString s = clang_getTypeSpelling(t);
	CXString c = clang_getTypeSpelling(clang_getCanonicalType(t));
	bool r = !strcmp(clang_getCString(s), "va_list") ||
		 strstr(clang_getCString(c), "__va_list_tag") != NULL;

	clang_disposeString(s);
	clang_disposeString(c);
	return r;
}

static void fill_params(CXCursor c, struct wg_proto *p)
{
	int n = clang_Cursor_getNumArguments(c);
	CXType ft = clang_getCursorType(c);

	p->nparams = n > 0 ? (size_t)n : 0;
	p->params = sibyl_xcalloc(p->nparams ? p->nparams : 1, sizeof(*p->params));
	for (int i = 0; i < n; i++) {
		CXCursor a = clang_Cursor_getArgument(c, (unsigned)i);
		/* The function type keeps the type as declared by the header
		 * author (typedef names, arrays decayed the same way). */
		CXType t = clang_getArgType(ft, (unsigned)i);
		struct wg_param *q = &p->params[i];

		q->name = take_string(clang_getCursorSpelling(a));
		if (!*q->name) {
			free(q->name);
			q->name = sibyl_xasprintf("arg%d", i + 1);
		}
		q->type = take_string(clang_getTypeSpelling(t));
		q->canon = take_string(clang_getTypeSpelling(clang_getCanonicalType(t)));
		CXType pointee = clang_getPointeeType(clang_getCanonicalType(t));

		if (pointee.kind == CXType_Record && clang_Type_getSizeOf(pointee) > 0)
			q->record_size = clang_Type_getSizeOf(pointee);
		if (i == n - 1)
			p->ends_in_va_list = is_va_list(t);
	}
}

static bool in_user_header(const struct collect *st, CXFile f)
{
	char *name = take_string(clang_getFileName(f));
	char abs[PATH_MAX];
	bool r = false;

	if (realpath(name, abs))
		for (size_t i = 0; i < st->nuser && !r; i++)
			r = !strcmp(st->user_files[i], abs);
	free(name);
	return r;
}

static void add_proto(struct collect *st, CXCursor c)
{
	CXType ft = clang_getCursorType(c);
	CXSourceLocation loc = clang_getCursorLocation(c);
	struct wg_proto *p;
	CXFile file;
	unsigned line;

	if (st->out->n == st->cap) {
		st->cap = st->cap ? st->cap * 2 : 256;
		st->out->v = sibyl_xreallocarray(st->out->v, st->cap, sizeof(*st->out->v));
	}
	p = &st->out->v[st->out->n++];
	memset(p, 0, sizeof(*p));
	p->seq = st->out->n;
	p->name = take_string(clang_getCursorSpelling(c));
	p->ret = take_string(clang_getTypeSpelling(clang_getResultType(ft)));
	p->noproto = ft.kind == CXType_FunctionNoProto;
	p->variadic = !p->noproto && clang_isFunctionTypeVariadic(ft);
	if (!p->noproto)
		fill_params(c, p);
	clang_getSpellingLocation(loc, &file, &line, NULL, NULL);
	p->file = file ? take_string(clang_getFileName(file)) : sibyl_xstrdup("?");
	p->line = line;
	p->in_user_header = file && in_user_header(st, file);
}

static enum CXChildVisitResult visit(CXCursor c, CXCursor parent, CXClientData data)
{
	(void)parent;
	if (clang_getCursorKind(c) == CXCursor_FunctionDecl &&
	    clang_Cursor_getStorageClass(c) != CX_SC_Static)
		add_proto(data, c);
	return CXChildVisit_Continue;
}

/* Headers included directly by the synthetic file are "the user's". */
static void note_inclusion(CXFile f, CXSourceLocation *stack, unsigned depth, CXClientData data)
{
	struct collect *st = data;
	char *name;
	char abs[PATH_MAX];

	(void)stack;
	if (depth != 1)
		return;
	name = take_string(clang_getFileName(f));
	if (realpath(name, abs)) {
		st->user_files = sibyl_xreallocarray(st->user_files, st->nuser + 1, sizeof(char *));
		st->user_files[st->nuser++] = sibyl_xstrdup(abs);
	}
	free(name);
}

static char *synthetic_source(const struct wg_header_opts *o)
{
	struct sibyl_strbuf b = { 0 };

	for (size_t i = 0; i < o->headers->count; i++) {
		char *line = wg_include_line(o->headers->items[i]);

		sibyl_strbuf_puts(&b, line);
		free(line);
	}
	if (!o->headers->count)
		sibyl_strbuf_puts(&b, "/* no headers */\n");
	return sibyl_strbuf_take(&b);
}

static const char **clang_args(const struct wg_header_opts *o, int *argc)
{
	size_t n = 0, max = 4 + o->incdirs->count + o->defines->count;
	const char **argv = sibyl_xcalloc(max, sizeof(char *));

	argv[n++] = "-std=gnu11";
	argv[n++] = "-xc";
	for (size_t i = 0; i < o->incdirs->count; i++)
		argv[n++] = o->incdirs->items[i];	/* already "-IDIR" */
	for (size_t i = 0; i < o->defines->count; i++)
		argv[n++] = o->defines->items[i];	/* already "-DM=V" */
	*argc = (int)n;
	return argv;
}

/* Each error as clang says it (a diagnostic notice), then the count. */
static int report_errors(CXTranslationUnit tu, char *err, size_t errlen)
{
	unsigned n = clang_getNumDiagnostics(tu), errors = 0;

	for (unsigned i = 0; i < n; i++) {
		CXDiagnostic d = clang_getDiagnostic(tu, i);

		if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error) {
			CXString s = clang_formatDiagnostic(d,
				clang_defaultDiagnosticDisplayOptions());

			sibyl_notice(SIBYL_NOTICE_DIAG, "%s", clang_getCString(s));
			clang_disposeString(s);
			errors++;
		}
		clang_disposeDiagnostic(d);
	}
	return errors ? sibyl_seterr(err, errlen, "wrap: headers: %u error(s) while parsing",
				     errors) : 0;
}

static int by_name(const void *a, const void *b)
{
	const struct wg_proto *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c || !x->seq || !y->seq)	/* seq 0: a lookup key */
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void free_proto(struct wg_proto *p)
{
	for (size_t i = 0; i < p->nparams; i++) {
		free(p->params[i].name);
		free(p->params[i].type);
		free(p->params[i].canon);
	}
	free(p->params);
	free(p->name);
	free(p->ret);
	free(p->file);
}

/* Stable sort keeps the first declaration of a name; drop the rest. */
static void sort_unique(struct wg_protos *p)
{
	size_t w = 0;

	qsort(p->v, p->n, sizeof(*p->v), by_name);
	for (size_t r = 0; r < p->n; r++) {
		if (w && !strcmp(p->v[w - 1].name, p->v[r].name)) {
			p->v[w - 1].in_user_header |= p->v[r].in_user_header;
			free_proto(&p->v[r]);
			continue;
		}
		p->v[w++] = p->v[r];
	}
	p->n = w;
}

/* A header given as a path must be a regular file: libclang would wait
 * forever on a FIFO.  (A name such as stdio.h is found by the compiler.) */
static int check_header_files(const struct wg_header_opts *o, char *err, size_t errlen)
{
	for (size_t i = 0; i < o->headers->count; i++) {
		const char *h = o->headers->items[i];
		struct stat st;
		char why[128];
		int fd;

		if (access(h, F_OK) != 0)
			continue;
		if ((fd = sibyl_open_regular(h, SIZE_MAX, &st, why, sizeof(why))) < 0)
			return sibyl_seterr(err, errlen, "wrap: %s: %s", h, why);
		close(fd);
	}
	return 0;
}

int wg_parse_headers(const struct wg_header_opts *o, struct wg_protos *out, char *err,
		     size_t errlen)
{
	struct collect st = { .out = out };
	char *src = synthetic_source(o);
	struct CXUnsavedFile file = { "sibyl-wrap-headers.c", src, (unsigned long)strlen(src) };
	int argc, rc = 0;
	const char **argv = clang_args(o, &argc);
	CXIndex idx = clang_createIndex(0, 0);
	CXTranslationUnit tu = NULL;
	enum CXErrorCode ec;

	memset(out, 0, sizeof(*out));
	if (check_header_files(o, err, errlen) < 0) {
		rc = -1;
		goto out;
	}
	ec = clang_parseTranslationUnit2(idx, file.Filename, argv, argc, &file, 1,
					 CXTranslationUnit_SkipFunctionBodies, &tu);
	if (ec != CXError_Success || !tu) {
		rc = sibyl_seterr(err, errlen, "wrap: headers: libclang could not parse them "
				  "(error %d)", (int)ec);
		goto out;
	}
	rc = report_errors(tu, err, errlen);
	if (rc) {
		wg_explain_header_order(o, tu, argv, argc);
		goto out;
	}
	clang_getInclusions(tu, note_inclusion, &st);
	clang_visitChildren(clang_getTranslationUnitCursor(tu), visit, &st);
	sort_unique(out);
out:
	for (size_t i = 0; i < st.nuser; i++)
		free(st.user_files[i]);
	free(st.user_files);
	if (tu)
		clang_disposeTranslationUnit(tu);
	clang_disposeIndex(idx);
	free(argv);
	free(src);
	return rc;
}

const struct wg_proto *wg_protos_find(const struct wg_protos *p, const char *name)
{
	struct wg_proto key = { .name = (char *)name };

	if (!p->n)
		return NULL;
	return bsearch(&key, p->v, p->n, sizeof(*p->v), by_name);
}

void wg_protos_free(struct wg_protos *p)
{
	for (size_t i = 0; i < p->n; i++)
		free_proto(&p->v[i]);
	free(p->v);
	memset(p, 0, sizeof(*p));
}
