/*
 * Macros that branch, expanded in place before marking (source.h).
 * A mark cannot go into a macro body, which every invocation shares, and
 * real kernels branch in macros all the time (Rodinia's hotspot:
 * `IN_RANGE(y, 0, rows - 1) && IN_RANGE(x, 0, cols - 1)`, with `&&` in
 * IN_RANGE).  So each invocation in the user's file of a macro whose
 * body holds `&&`, `||`, `?` or a branching keyword is replaced by its
 * expansion: the body with each parameter replaced by the argument's
 * text, as the preprocessor would (the arguments' own macros are left
 * to the compiler).  The tokens are the same, so the IR is too.  Bodies
 * with `#` or `##`, and variadic macros, are left alone (and refused).
 */
#define _GNU_SOURCE
#include "ocl/instrument/source_internal.h"

#include "core/alloc.h"
#include "core/strbuf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct expansion {
	size_t start, end;	/* the invocation in the user's file */
	char *text;
};

struct expander {
	const struct sm_file *f;
	struct expansion *x;
	size_t n, cap;
	struct sm_offsets *kept;	/* branching invocations left as they are */
};

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* The body branches: a short circuit, a ?:, or a statement keyword. */
static bool branches(const char *body, size_t len)
{
	static const char *const words[] = { "if", "for", "while", "do", "switch", "return",
					     "goto", "case" };

	for (size_t i = 0; i < len; i++) {
		if (body[i] == '?' || (i + 1 < len && ((body[i] == '&' && body[i + 1] == '&') ||
						       (body[i] == '|' && body[i + 1] == '|'))))
			return true;
		if (!ident_char(body[i]) || (i && ident_char(body[i - 1])))
			continue;
		for (size_t w = 0; w < sizeof(words) / sizeof(*words); w++) {
			size_t wl = strlen(words[w]);

			if (i + wl <= len && !strncmp(body + i, words[w], wl) &&
			    (i + wl == len || !ident_char(body[i + wl])))
				return true;
		}
	}
	return false;
}

/* Split "(a, f(b, c), d)" at its top-level commas; returns the count, or
 * -1; *close: the offset of the closing parenthesis. */
static int split_args(const char *s, size_t len, size_t open, size_t *from, size_t *to, int max,
		      size_t *close)
{
	int depth = 0, n = 0;

	for (size_t i = open; i < len; i++) {
		char c = s[i];

		if (c == '"' || c == '\'') {	/* a literal: to its end */
			for (i++; i < len && s[i] != c; i++)
				i += s[i] == '\\';
			continue;
		}
		depth += (c == '(' || c == '[' || c == '{') - (c == ')' || c == ']' || c == '}');
		if (depth == 1 && c == '(' && i == open) {
			from[n] = i + 1;
		} else if ((depth == 1 && c == ',') || depth == 0) {
			if (n >= max)
				return -1;
			to[n++] = i;
			if (!depth) {
				*close = i;
				return n;
			}
			from[n] = i + 1;
		}
	}
	return -1;
}

#define MAX_PARAMS 32

/* The definition's parameters (names into def) and body. */
struct macro {
	const char *def, *body;
	size_t len, body_len;
	size_t pfrom[MAX_PARAMS], pto[MAX_PARAMS];
	int nparams;	/* -1: object-like */
};

/* 1: a macro that branches, read; 0: one that does not; -1: one that
 * branches but cannot be expanded here. */
static int read_macro(const struct sm_file *m, CXCursor def, struct macro *mac)
{
	CXSourceRange r = clang_getCursorExtent(def);
	CXFile f = NULL;
	unsigned s = 0, e = 0;
	size_t size = 0, close, i;

	clang_getSpellingLocation(clang_getRangeStart(r), &f, NULL, NULL, &s);
	clang_getSpellingLocation(clang_getRangeEnd(r), NULL, NULL, NULL, &e);
	const char *text = f ? clang_getFileContents(m->tu, f, &size) : NULL;

	if (!text || e > size || s >= e)
		return 0;
	mac->def = text + s;
	mac->len = e - s;
	for (i = 0; i < mac->len && ident_char(mac->def[i]); i++)
		;
	mac->nparams = -1;
	if (clang_Cursor_isMacroFunctionLike(def)) {
		mac->nparams = split_args(mac->def, mac->len, i, mac->pfrom, mac->pto, MAX_PARAMS,
					  &close);
		if (mac->nparams < 0)
			return branches(mac->def, mac->len) ? -1 : 0;
		i = close + 1;
	}
	mac->body = mac->def + i;
	mac->body_len = mac->len - i;
	if (!branches(mac->body, mac->body_len))
		return 0;
	return memchr(mac->body, '#', mac->body_len) || memmem(mac->def, i, "...", 3) ? -1 : 1;
}

static void keep(struct expander *x, size_t off)
{
	struct sm_offsets *k = x->kept;

	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 8;
		k->off = sibyl_xreallocarray(k->off, k->cap, sizeof(*k->off));
	}
	k->off[k->n++] = off;
}

static void trimmed(const char *s, size_t *from, size_t *to)
{
	while (*from < *to && isspace((unsigned char)s[*from]))
		(*from)++;
	while (*to > *from && isspace((unsigned char)s[*to - 1]))
		(*to)--;
}

/* Which parameter the identifier body[i..i+n) names, or -1. */
static int param_of(const struct macro *mac, size_t i, size_t n)
{
	for (int p = 0; p < mac->nparams; p++) {
		size_t a = mac->pfrom[p], b = mac->pto[p];

		trimmed(mac->def, &a, &b);
		if (b - a == n && !strncmp(mac->def + a, mac->body + i, n))
			return p;
	}
	return -1;
}

/* An argument's text on one line, a space either side: `(a)-b` with b
 * = `-1` must not become `--1`. */
static void add_argument(struct sibyl_strbuf *b, const char *s, size_t from, size_t to)
{
	sibyl_strbuf_puts(b, " ");
	for (size_t i = from; i < to; i++)
		sibyl_strbuf_add(b, s[i] == '\n' ? " " : s + i, 1);
	sibyl_strbuf_puts(b, " ");
}

/* The body, each parameter replaced by its argument's text, on one line,
 * then as many newlines as the invocation src[start, end) spanned, so
 * the lines after it keep their numbers. */
static char *substitute(const struct macro *mac, const char *src, size_t start, size_t end,
			const size_t *afrom, const size_t *ato)
{
	struct sibyl_strbuf b = { 0 };

	sibyl_strbuf_puts(&b, " ");
	for (size_t i = 0; i < mac->body_len;) {
		size_t n = 0;

		while (i + n < mac->body_len && ident_char(mac->body[i + n]))
			n++;
		int p = n && (!i || !ident_char(mac->body[i - 1])) ? param_of(mac, i, n) : -1;

		if (p >= 0) {
			add_argument(&b, src, afrom[p], ato[p]);
		} else if (n) {
			sibyl_strbuf_add(&b, mac->body + i, n);
		} else if (mac->body[i] == '\\' || mac->body[i] == '\n') {
			sibyl_strbuf_puts(&b, " ");	/* continued lines: one line */
		} else {
			sibyl_strbuf_add(&b, mac->body + i, 1);
		}
		i += n ? n : 1;
	}
	sibyl_strbuf_puts(&b, " ");
	for (size_t i = start; i < end; i++)
		if (src[i] == '\n')
			sibyl_strbuf_puts(&b, "\n");
	return sibyl_strbuf_take(&b);
}

static void add_expansion(struct expander *x, size_t start, size_t end, char *text)
{
	for (size_t i = 0; i < x->n; i++)	/* inside another's arguments: next pass */
		if (start < x->x[i].end && end > x->x[i].start) {
			free(text);
			return;
		}
	if (x->n == x->cap) {
		x->cap = x->cap ? 2 * x->cap : 16;
		x->x = sibyl_xreallocarray(x->x, x->cap, sizeof(*x->x));
	}
	x->x[x->n++] = (struct expansion){ start, end, text };
}

static void expand_one(struct expander *x, CXCursor c)
{
	struct macro mac;
	size_t start, end, afrom[MAX_PARAMS], ato[MAX_PARAMS], close = 0, i;
	const char *s = x->f->src;

	if (!sm_extent(x->f, c, &start, &end))
		return;
	int r = read_macro(x->f, clang_getCursorReferenced(c), &mac);

	if (r <= 0) {
		if (r < 0)
			keep(x, start);
		return;
	}
	if (mac.nparams >= 0) {
		for (i = start; i < x->f->len && ident_char(s[i]); i++)
			;
		while (i < x->f->len && isspace((unsigned char)s[i]))
			i++;
		if (i >= x->f->len || s[i] != '(' ||
		    split_args(s, x->f->len, i, afrom, ato, MAX_PARAMS, &close) !=
		    (mac.nparams ? mac.nparams : 1)) {
			keep(x, start);
			return;
		}
		for (int p = 0; p < mac.nparams; p++)
			trimmed(s, &afrom[p], &ato[p]);
		end = close + 1;
	}
	add_expansion(x, start, end, substitute(&mac, s, start, end, afrom, ato));
}

static enum CXChildVisitResult on_expansion(CXCursor c, CXCursor parent, CXClientData data)
{
	struct expander *x = data;
	size_t off;
	(void)parent;

	if (clang_getCursorKind(c) == CXCursor_MacroExpansion &&
	    sm_offset(x->f, clang_getCursorLocation(c), &off))
		expand_one(x, c);
	return CXChildVisit_Continue;
}

static int by_start(const void *a, const void *b)
{
	const struct expansion *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

char *sm_expand_macros(const struct sm_file *f, struct sm_offsets *kept)
{
	struct expander x = { .f = f, .kept = kept };
	struct sibyl_strbuf b = { 0 };
	size_t at = 0;

	clang_visitChildren(clang_getTranslationUnitCursor(f->tu), on_expansion, &x);
	if (!x.n)
		return NULL;
	qsort(x.x, x.n, sizeof(*x.x), by_start);
	for (size_t i = 0; i < x.n; i++) {
		sibyl_strbuf_add(&b, f->src + at, x.x[i].start - at);
		sibyl_strbuf_puts(&b, x.x[i].text);
		at = x.x[i].end;
		free(x.x[i].text);
	}
	sibyl_strbuf_add(&b, f->src + at, f->len - at);
	free(x.x);
	return sibyl_strbuf_take(&b);
}
