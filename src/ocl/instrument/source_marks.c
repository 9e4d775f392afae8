/*
 * Marking an OpenCL C file's source regions with libclang (source.h):
 * edits at byte offsets of the user's file, applied in one pass.
 *
 * Where a mark goes decides whether the host analysis IR stays the plain
 * IR plus calls.  A statement arm gets `{ M; ... }` (braces make no
 * code).  An operand of `&&`, `||` or `?:` gets `(M, x)` around its
 * leftmost *leaf*, not around itself: clang branches on `a && (b || c)`
 * through the inner `||` directly, while `(M, b || c)` would be a value
 * it compares, another CFG; a leaf is evaluated as a value either way,
 * and the comma only puts the call before it.  Constructs that come from
 * a macro body cannot be edited in the file, and are refused.
 */
#include "ocl/instrument/source.h"
#include "ocl/instrument/source_internal.h"

#include "core/alloc.h"
#include "core/fs.h"
#include "core/log.h"
#include "core/options.h"
#include "core/strbuf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* The largest file marked, as sibyl kernel reads any kernel file. */
#define SIBYL_SOURCE_MAX ((size_t)1 << 30)

#ifndef SIBYL_CLANG_RESOURCE_DIR
#define SIBYL_CLANG_RESOURCE_DIR "/usr/lib/llvm-14/lib/clang/14.0.6"
#endif

/* At one offset, closings go before openings (they end what came
 * before), expressions' inside statements'. */
enum prio { CLOSE_EXPR, CLOSE_ARG, CLOSE_STMT, CLOSE_BODY, OPEN_BODY, OPEN_STMT, OPEN_EXPR };

struct edit {
	size_t off, del;	/* replace del bytes at off by text */
	int prio;
	size_t seq;
	char *text;
};

struct marker {
	struct sm_file f;	/* first: the cursor helpers take it */
	const char *file;
	struct edit *e;
	size_t n, cap, nmarks;
	struct sibyl_strlist helpers;
	const char *const *kernels;
	size_t nkernels;
	bool in_kernel;
	bool failed;		/* in the function being marked: why says why */
	bool fatal;		/* the program cannot be marked at all */
	char why[512];
	struct sibyl_strlist refused_fns, refused_why;
	struct sm_offsets kept;	/* macros that branch, not expanded */
};

static void add_edit(struct marker *m, size_t off, size_t del, int prio, char *text)
{
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 64;
		m->e = sibyl_xreallocarray(m->e, m->cap, sizeof(*m->e));
	}
	m->e[m->n] = (struct edit){ off, del, prio, m->n, text };
	m->n++;
}

static void add(struct marker *m, size_t off, int prio, const char *text)
{
	add_edit(m, off, 0, prio, sibyl_xstrdup(text));
}

static char *next_mark(struct marker *m, const char *fmt)
{
	return sibyl_xasprintf(fmt, m->nmarks++);
}

static void refuse(struct marker *m, CXCursor c, const char *what)
{
	if (m->failed)
		return;
	m->failed = true;
	sibyl_seterr(m->why, sizeof(m->why), "kernel: %s:%u: %s: not supported by "
		     "--source-counters", m->file, sm_line_of(clang_getCursorLocation(c)), what);
}

/* (M, leaf) at the leftmost leaf of c. */
static void mark_operand(struct marker *m, CXCursor owner, CXCursor c)
{
	CXCursor leaf = sm_leftmost_leaf(&m->f, c);
	size_t start, end;

	if (!sm_extent(&m->f, leaf, &start, &end) || end == start)
		return refuse(m, owner, "a ?:, && or || written in a macro");
	add_edit(m, start, 0, OPEN_EXPR, next_mark(m, "(__sibyl_M(%zu), "));
	add(m, end, CLOSE_EXPR, ")");
}

static void skip_space(const struct marker *m, size_t *p)
{
	while (*p < m->f.len) {
		if (isspace((unsigned char)m->f.src[*p])) {
			(*p)++;
		} else if (m->f.src[*p] == '/' && *p + 1 < m->f.len && m->f.src[*p + 1] == '/') {
			*p += strcspn(m->f.src + *p, "\n");
		} else if (m->f.src[*p] == '/' && *p + 1 < m->f.len && m->f.src[*p + 1] == '*') {
			const char *e = strstr(m->f.src + *p + 2, "*/");
			*p = e ? (size_t)(e - m->f.src) + 2 : m->f.len;
		} else {
			return;
		}
	}
}

/* Where statement c ends, its `;` included; false when not found. */
static bool stmt_end(const struct marker *m, CXCursor c, size_t *end)
{
	size_t start;

	switch (clang_getCursorKind(c)) {
	case CXCursor_IfStmt: case CXCursor_ForStmt: case CXCursor_WhileStmt:
	case CXCursor_SwitchStmt: case CXCursor_LabelStmt: case CXCursor_CaseStmt:
	case CXCursor_DefaultStmt: {
		struct sm_kids k = sm_children(c);
		bool ok = k.n && stmt_end(m, k.c[k.n - 1], end);

		free(k.c);
		return ok;
	}
	default:
		break;
	}
	if (!sm_extent(&m->f, c, &start, end))
		return false;
	if (clang_getCursorKind(c) == CXCursor_CompoundStmt || (*end && m->f.src[*end - 1] == ';'))
		return true;
	skip_space(m, end);
	if (*end >= m->f.len || m->f.src[*end] != ';')
		return false;
	(*end)++;
	return true;
}

/* Statement s, an arm: a mark first, braces around it when it has none. */
static void mark_stmt(struct marker *m, CXCursor owner, CXCursor s)
{
	size_t start, end;

	if (!sm_extent(&m->f, s, &start, &end) || !stmt_end(m, s, &end))
		return refuse(m, owner, "a statement written in a macro");
	if (clang_getCursorKind(s) == CXCursor_CompoundStmt) {
		add_edit(m, start + 1, 0, OPEN_STMT, next_mark(m, " __sibyl_M(%zu);"));
		return;
	}
	add_edit(m, start, 0, OPEN_STMT, next_mark(m, "{ __sibyl_M(%zu); "));
	add(m, end, CLOSE_STMT, " }");
}

static void walk(struct marker *m, CXCursor c);

static void walk_kids(struct marker *m, struct sm_kids *k, unsigned from)
{
	for (unsigned i = from; i < k->n && !m->failed; i++)
		walk(m, k->c[i]);
}

/* A `case`/`default`/label: a mark before the statement it labels,
 * once per chain of labels (`case 1: case 2:` share a block). */
static void walk_label(struct marker *m, CXCursor c, struct sm_kids *k)
{
	CXCursor sub = k->c[k->n - 1];
	enum CXCursorKind sk = clang_getCursorKind(sub);
	size_t start, end;

	if (sk != CXCursor_CaseStmt && sk != CXCursor_DefaultStmt && sk != CXCursor_LabelStmt) {
		if (sm_from_macro(c) || !sm_extent(&m->f, sub, &start, &end))
			return refuse(m, c, "a label written in a macro");
		add_edit(m, start, 0, OPEN_STMT, next_mark(m, "__sibyl_M(%zu); "));
	}
	walk(m, sub);
}

static void walk_return(struct marker *m, CXCursor c, struct sm_kids *k)
{
	size_t start, end;

	if (m->in_kernel) {
		if (sm_from_macro(c) || !sm_extent(&m->f, c, &start, &end) || !stmt_end(m, c, &end))
			return refuse(m, c, "a return written in a macro");
		add(m, start, OPEN_STMT, "{ __sibyl_F; ");
		add(m, end, CLOSE_STMT, " }");
	}
	walk_kids(m, k, 0);
}

static bool is_helper(const struct marker *m, const char *name)
{
	for (size_t i = 0; i < m->helpers.count; i++)
		if (!strcmp(m->helpers.items[i], name))
			return true;
	return false;
}

/* A call of a helper passes the counters on. */
static void walk_call(struct marker *m, CXCursor c, struct sm_kids *k)
{
	CXString name = clang_getCursorSpelling(c);
	bool helper = is_helper(m, clang_getCString(name));
	size_t start, end;

	clang_disposeString(name);
	if (helper && (sm_from_macro(c) || !sm_extent(&m->f, c, &start, &end) || !end ||
		       m->f.src[end - 1] != ')'))
		return refuse(m, c, "a call of a helper written in a macro");
	if (helper)
		add(m, end - 1, CLOSE_ARG, clang_Cursor_getNumArguments(c) ? " __SIBYL_A" :
			"__SIBYL_A0");
	walk_kids(m, k, 0);
}

/* Both arms constant: clang selects instead of branching. */
static bool selects(CXCursor t, CXCursor f)
{
	CXEvalResult a = clang_Cursor_Evaluate(t), b = a ? clang_Cursor_Evaluate(f) : NULL;
	bool both = a && b;

	if (a)
		clang_EvalResult_dispose(a);
	if (b)
		clang_EvalResult_dispose(b);
	return both;
}

static void walk_expr(struct marker *m, CXCursor c, struct sm_kids *k)
{
	enum CXCursorKind kind = clang_getCursorKind(c);

	if (kind == CXCursor_BinaryOperator && k->n == 2 && sm_is_logical(&m->f, c)) {
		if (sm_op_from_macro(c) || sm_from_macro(c))
			return refuse(m, c, "a && or || written in a macro");
		mark_operand(m, c, k->c[1]);
	} else if (kind == CXCursor_ConditionalOperator && k->n == 3 && !sm_is_vector(k->c[0]) &&
		   !selects(k->c[1], k->c[2])) {
		if (sm_op_from_macro(c) || sm_from_macro(c))
			return refuse(m, c, "a ?: written in a macro");
		mark_operand(m, c, k->c[1]);
	}
	walk_kids(m, k, 0);
}

static void walk_stmt(struct marker *m, CXCursor c, struct sm_kids *k)
{
	switch (clang_getCursorKind(c)) {
	case CXCursor_IfStmt:
		if (k->n >= 2)
			mark_stmt(m, c, k->c[1]);
		break;
	case CXCursor_ForStmt:
	case CXCursor_WhileStmt:
		if (k->n)
			mark_stmt(m, c, k->c[k->n - 1]);
		break;
	case CXCursor_DoStmt:
		if (k->n)
			mark_stmt(m, c, k->c[0]);
		break;
	default:
		break;
	}
	walk_kids(m, k, 0);
}

static void walk(struct marker *m, CXCursor c)
{
	struct sm_kids k = sm_children(c);
	enum CXCursorKind kind = clang_getCursorKind(c);

	if ((kind == CXCursor_IfStmt || kind == CXCursor_ForStmt || kind == CXCursor_WhileStmt ||
	     kind == CXCursor_DoStmt) && sm_from_macro(c))
		refuse(m, c, "a branch or loop written in a macro");
	else if (kind == CXCursor_IndirectGotoStmt)
		refuse(m, c, "a computed goto");
	else if (kind == CXCursor_CaseStmt || kind == CXCursor_DefaultStmt ||
		 kind == CXCursor_LabelStmt)
		k.n ? walk_label(m, c, &k) : (void)0;
	else if (kind == CXCursor_ReturnStmt)
		walk_return(m, c, &k);
	else if (kind == CXCursor_CallExpr)
		walk_call(m, c, &k);
	else if (kind == CXCursor_BinaryOperator || kind == CXCursor_ConditionalOperator)
		walk_expr(m, c, &k);
	else
		walk_stmt(m, c, &k);
	free(k.c);
}

static bool is_kernel(const struct marker *m, const char *name)
{
	for (size_t i = 0; i < m->nkernels; i++)
		if (!strcmp(m->kernels[i], name))
			return true;
	return false;
}

/* The parameter list of function f: the offsets of its parentheses
 * (comments skipped: Rodinia's heartwall comments a parameter out). */
static bool params(const struct marker *m, CXCursor f, size_t *open, size_t *close)
{
	int depth = 0;

	if (sm_from_macro(f) || !sm_offset(&m->f, clang_getCursorLocation(f), open))
		return false;
	while (*open < m->f.len && m->f.src[*open] != '(')
		(*open)++;
	for (*close = *open; *close < m->f.len; (*close)++) {
		skip_space(m, close);
		if (*close >= m->f.len)
			break;
		depth += m->f.src[*close] == '(' ? 1 : m->f.src[*close] == ')' ? -1 : 0;
		if (!depth)
			return true;
	}
	return false;
}

/* One more parameter: the counters (a kernel's buffer, a helper's array). */
static void add_param(struct marker *m, CXCursor f, bool kernel)
{
	size_t open, close;

	if (!params(m, f, &open, &close)) {
		refuse(m, f, "a function declared in a macro");
		m->fatal = true;
		return;
	}
	if (clang_Cursor_getNumArguments(f) > 0)
		add(m, close, CLOSE_ARG, kernel ? " __SIBYL_KP" : " __SIBYL_P");
	else
		add_edit(m, open + 1, close - open - 1, OPEN_EXPR,
			 sibyl_xstrdup(kernel ? "__SIBYL_KP0" : "__SIBYL_P0"));
}

/* A kernel's body: its counters set up and counted at entry, flushed at
 * the end (and at each return, walk_return). */
static void kernel_body(struct marker *m, CXCursor f, CXCursor body)
{
	size_t start, end;

	if (!sm_extent(&m->f, body, &start, &end) || end <= start) {
		refuse(m, f, "a kernel body written in a macro");
		m->fatal = true;
		return;
	}
	add_edit(m, start + 1, 0, OPEN_BODY, next_mark(m, " __SIBYL_S __sibyl_M(%zu);"));
	add(m, end - 1, CLOSE_BODY, "__sibyl_F; ");
}

/* A macro that branches, left unexpanded in the body, cannot be marked. */
static void kept_macros(struct marker *m, CXCursor body)
{
	size_t start, end;

	if (!sm_extent(&m->f, body, &start, &end))
		return;
	for (size_t i = 0; i < m->kept.n; i++)
		if (m->kept.off[i] >= start && m->kept.off[i] < end && !m->failed) {
			size_t line = 1;

			for (size_t o = 0; o < m->kept.off[i]; o++)
				line += m->f.src[o] == '\n';
			m->failed = true;
			sibyl_seterr(m->why, sizeof(m->why), "kernel: %s:%zu: a macro that branches "
				     "and pastes tokens (# or ##) or is variadic: not supported by "
				     "--source-counters", m->file, line);
		}
}

/* A function that cannot be marked stays as it is (its counters
 * parameter aside): refused only if the kernel run reaches it. */
static void unmark(struct marker *m, CXCursor f, size_t keep)
{
	CXString s = clang_getCursorSpelling(f);

	while (m->n > keep)
		free(m->e[--m->n].text);
	sibyl_strlist_add(&m->refused_fns, clang_getCString(s));
	sibyl_strlist_add(&m->refused_why, m->why);
	clang_disposeString(s);
	m->failed = false;
}

static void function(struct marker *m, CXCursor f)
{
	CXString s = clang_getCursorSpelling(f);
	const char *name = clang_getCString(s);
	bool kernel = is_kernel(m, name), helper = is_helper(m, name);

	clang_disposeString(s);
	if (!kernel && !helper)
		return;
	add_param(m, f, kernel);
	if (!clang_isCursorDefinition(f))
		return;
	struct sm_kids k = sm_children(f);
	CXCursor body = k.n ? k.c[k.n - 1] : clang_getNullCursor();

	if (clang_getCursorKind(body) == CXCursor_CompoundStmt && !m->fatal) {
		m->in_kernel = kernel;
		if (kernel)
			kernel_body(m, f, body);
		size_t keep = m->n;

		walk(m, body);
		kept_macros(m, body);
		m->in_kernel = false;
		if (m->failed && !m->fatal)
			unmark(m, f, keep);
	}
	free(k.c);
}

static bool in_main(const struct marker *m, CXCursor c)
{
	size_t off;

	return sm_offset(&m->f, clang_getCursorLocation(c), &off);
}

static enum CXChildVisitResult find_helpers(CXCursor c, CXCursor parent, CXClientData data)
{
	struct marker *m = data;
	(void)parent;

	if (clang_getCursorKind(c) == CXCursor_FunctionDecl && clang_isCursorDefinition(c) &&
	    in_main(m, c)) {
		CXString s = clang_getCursorSpelling(c);

		if (!is_kernel(m, clang_getCString(s)))
			sibyl_strlist_add(&m->helpers, clang_getCString(s));
		clang_disposeString(s);
	}
	return CXChildVisit_Continue;
}

static enum CXChildVisitResult on_top(CXCursor c, CXCursor parent, CXClientData data)
{
	struct marker *m = data;
	(void)parent;

	if (clang_getCursorKind(c) == CXCursor_FunctionDecl && in_main(m, c))
		function(m, c);
	return m->fatal ? CXChildVisit_Break : CXChildVisit_Continue;
}

static int by_place(const void *pa, const void *pb)
{
	const struct edit *a = pa, *b = pb;

	if (a->off != b->off)
		return a->off < b->off ? -1 : 1;
	if (a->prio != b->prio)
		return a->prio < b->prio ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static char *apply(struct marker *m)
{
	struct sibyl_strbuf b = { 0 };
	size_t at = 0;

	qsort(m->e, m->n, sizeof(*m->e), by_place);
	sibyl_strbuf_puts(&b, "");
	for (size_t i = 0; i < m->n; i++) {
		if (m->e[i].off < at)	/* inside a replaced range: cannot happen */
			continue;
		sibyl_strbuf_add(&b, m->f.src + at, m->e[i].off - at);
		sibyl_strbuf_puts(&b, m->e[i].text);
		at = m->e[i].off + m->e[i].del;
	}
	sibyl_strbuf_add(&b, m->f.src + at, m->f.len - at);
	return sibyl_strbuf_take(&b);
}

static void marker_free(struct marker *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->e[i].text);
	free(m->e);
	sibyl_strlist_free(&m->helpers);
	sibyl_strlist_free(&m->refused_fns);
	sibyl_strlist_free(&m->refused_why);
	free(m->kept.off);
}

/* The file as `src` says it is (its macros that branch expanded). */
static CXTranslationUnit parse(CXIndex idx, const char *file, const char *const *args, int nargs,
			       const char *src, size_t len)
{
	const char **all = sibyl_xcalloc((size_t)nargs + 3, sizeof(*all));
	CXTranslationUnit tu = NULL;
	struct CXUnsavedFile text = { file, src, (unsigned long)len };

	/* -resource-dir is not enough for libclang to find opencl-c-base.h. */
	all[0] = "-isystem";
	all[1] = SIBYL_CLANG_RESOURCE_DIR "/include";
	memcpy(all + 2, args, (size_t)nargs * sizeof(*all));
	if (clang_parseTranslationUnit2(idx, file, all, nargs + 2, &text, 1,
					CXTranslationUnit_DetailedPreprocessingRecord,
					&tu) != CXError_Success)
		tu = NULL;
	free(all);
	return tu;
}

/* Each round expands the outermost invocations only: this many nest. */
#define EXPAND_ROUNDS 16

/* Parse, expanding the macros that branch (source_expand.c) until none
 * is left (one may invoke another). *src may be replaced.  0, -1 when
 * libclang cannot parse it, -2 when macros nest deeper than the rounds. */
static int parse_expanded(struct marker *m, CXIndex idx, const char *const *args, int nargs,
			  char **src)
{
	for (int round = 0; round < EXPAND_ROUNDS; round++) {
		m->f.main = NULL;
		if (!(m->f.tu = parse(idx, m->file, args, nargs, *src, m->f.len)) ||
		    !(m->f.main = clang_getFile(m->f.tu, m->file)))
			return -1;
		m->f.src = *src;
		m->kept.n = 0;
		char *expanded = sm_expand_macros(&m->f, &m->kept);

		if (!expanded)
			return 0;
		clang_disposeTranslationUnit(m->f.tu);
		m->f.tu = NULL;
		m->f.main = NULL;
		free(*src);
		m->f.src = *src = expanded;
		m->f.len = strlen(expanded);
	}
	return -2;
}

int sibyl_source_mark(const char *file, const char *const *args, int nargs,
		      const char *const *kernels, size_t nkernels,
		      struct sibyl_source_marks *out, char *err, size_t errlen)
{
	struct marker m = { .file = file, .kernels = kernels, .nkernels = nkernels };
	CXIndex idx = clang_createIndex(0, 0);
	char why[128];
	char *src = sibyl_read_file(file, SIBYL_SOURCE_MAX, &m.f.len, why, sizeof(why));
	int r;

	*out = (struct sibyl_source_marks){ 0 };
	m.f.src = src;
	if (!src)
		sibyl_seterr(err, errlen, "kernel: %s: %s", file, why);
	else if ((r = parse_expanded(&m, idx, args, nargs, &src)) == -1)
		sibyl_seterr(err, errlen, "kernel: libclang could not parse %s", file);
	else if (r == -2)
		sibyl_seterr(err, errlen, "kernel: %s: macros that branch nest more than %d deep: "
			     "not supported by --source-counters", file, EXPAND_ROUNDS);
	if (m.f.main) {
		CXCursor top = clang_getTranslationUnitCursor(m.f.tu);

		clang_visitChildren(top, find_helpers, &m);
		clang_visitChildren(top, on_top, &m);
		if (m.fatal) {
			sibyl_seterr(err, errlen, "%s", m.why);
		} else {
			out->body = apply(&m);
			out->nmarks = m.nmarks;
			out->refused_fns = m.refused_fns;
			out->refused_why = m.refused_why;
			m.refused_fns = m.refused_why = (struct sibyl_strlist){ 0 };
		}
	}
	if (m.f.tu)
		clang_disposeTranslationUnit(m.f.tu);
	clang_disposeIndex(idx);
	marker_free(&m);
	free(src);
	return out->body ? 0 : -1;
}

void sibyl_source_marks_free(struct sibyl_source_marks *m)
{
	free(m->body);
	sibyl_strlist_free(&m->refused_fns);
	sibyl_strlist_free(&m->refused_why);
	*m = (struct sibyl_source_marks){ 0 };
}
