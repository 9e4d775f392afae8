#include "wrapgen/defs.h"
#include "core/alloc.h"
#include "core/strbuf.h"
#include "core/fs.h"
#include "core/log.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lexer {
	const char *p;
	const char *file;
	unsigned line;
	char *err;		/* the caller's: "FILE:LINE: error: why" */
	size_t errlen;
};

static int error_at(const struct lexer *lx, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int error_at(const struct lexer *lx, unsigned line, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return sibyl_seterr(lx->err, lx->errlen, "%s:%u: error: %s", lx->file, line, why);
}

static void advance(struct lexer *lx)
{
	if (*lx->p == '\n')
		lx->line++;
	lx->p++;
}

/* Skip a comment starting at lx->p; 0 if none, 1 if skipped, -1 if open. */
static int skip_comment(struct lexer *lx)
{
	unsigned start = lx->line;

	if (lx->p[0] == '/' && lx->p[1] == '/') {
		while (*lx->p && *lx->p != '\n')
			advance(lx);
		return 1;
	}
	if (lx->p[0] != '/' || lx->p[1] != '*')
		return 0;
	lx->p += 2;
	while (*lx->p && !(lx->p[0] == '*' && lx->p[1] == '/'))
		advance(lx);
	if (!*lx->p)
		return error_at(lx, start, "unterminated comment");
	lx->p += 2;
	return 1;
}

static int skip_space_and_comments(struct lexer *lx)
{
	for (;;) {
		while (isspace((unsigned char)*lx->p))
			advance(lx);
		int r = skip_comment(lx);

		if (r <= 0)
			return r;
	}
}

/* Skip a "..." or '...' literal inside a body. */
static int skip_literal(struct lexer *lx)
{
	char q = *lx->p;
	unsigned start = lx->line;

	advance(lx);
	while (*lx->p && *lx->p != q && *lx->p != '\n') {
		if (*lx->p == '\\' && lx->p[1])
			advance(lx);
		advance(lx);
	}
	if (*lx->p != q)
		return error_at(lx, start, "unterminated %s literal in body",
				q == '"' ? "string" : "character");
	advance(lx);
	return 0;
}

/* lx->p is on '{': find the matching '}' and return the text between. */
static char *read_body(struct lexer *lx)
{
	unsigned start = lx->line;
	const char *begin = lx->p + 1;
	int depth = 0;

	do {
		int r = 0;

		if (*lx->p == '"' || *lx->p == '\'') {
			r = skip_literal(lx);
		} else if ((r = skip_comment(lx)) == 0) {
			depth += *lx->p == '{';
			depth -= *lx->p == '}';
			if (depth)
				advance(lx);
		}
		if (r < 0)
			return NULL;
		if (!*lx->p) {
			error_at(lx, start, "unbalanced '{': body never closed");
			return NULL;
		}
	} while (depth);
	char *body = sibyl_xstrndup(begin, (size_t)(lx->p - begin));

	advance(lx);	/* the closing brace */
	return body;
}

/* Split "lib::fn::loc" (or "lib:fn:loc") into its three parts. */
static int split_header(const struct lexer *lx, unsigned line, char *h, char *part[3])
{
	const char *sep = strstr(h, "::") ? "::" : ":";
	size_t seplen = strlen(sep);
	char *p = h;

	for (int i = 0; i < 3; i++) {
		char *end = i < 2 ? strstr(p, sep) : p + strlen(p);

		if (!end || (i == 2 && strstr(p, sep)))
			return error_at(lx, line, "expected 'library%sfunction%sprefix|postfix|metric {', got '%s'",
					sep, sep, h);
		*end = 0;
		if (!*p)
			return error_at(lx, line, "empty %s name in '%s'",
					i == 0 ? "library" : i == 1 ? "function" : "location", h);
		part[i] = p;
		p = end + (i < 2 ? seplen : 0);
	}
	return 0;
}

static int parse_header(struct lexer *lx, struct wg_def *d)
{
	unsigned line = lx->line;
	const char *begin = lx->p;
	char *part[3] = { NULL, NULL, NULL };
	int rc;

	while (*lx->p && *lx->p != '{' && !isspace((unsigned char)*lx->p))
		advance(lx);
	char *h = sibyl_xstrndup(begin, (size_t)(lx->p - begin));

	if (skip_space_and_comments(lx) < 0) {
		free(h);
		return -1;
	}
	if (*lx->p != '{')
		rc = error_at(lx, lx->line, "expected '{' after '%s'", h);
	else
		rc = split_header(lx, line, h, part);
	if (!rc && strcmp(part[2], "prefix") && strcmp(part[2], "postfix") &&
	    strcmp(part[2], "metric"))
		rc = error_at(lx, line, "location '%s' is neither 'prefix', 'postfix' nor 'metric'",
			      part[2]);
	if (!rc) {
		d->lib_glob = sibyl_xstrdup(part[0]);
		d->fn_glob = sibyl_xstrdup(part[1]);
		d->loc = !strcmp(part[2], "prefix") ? WG_DEFS_PREFIX :
			 !strcmp(part[2], "metric") ? WG_DEFS_METRIC : WG_DEFS_POSTFIX;
	}
	free(h);
	return rc;
}

/*
 * A metric body is the name of what the function's `work` counts, e.g.
 * "floating-point operations (2mnk)": whitespace runs become one space,
 * and it must be printable text that a C string literal and a TSV field
 * hold as is, since it is compared with the work metric of profiles.
 */
static int normalize_metric(const struct lexer *lx, struct wg_def *d)
{
	char *w = d->code;
	bool space = false;

	for (const char *r = d->code; *r; r++) {
		unsigned char c = (unsigned char)*r;

		if (isspace(c)) {
			space = w != d->code;
			continue;
		}
		if (c < 0x20 || c == 0x7f || c == '"' || c == '\\')
			return error_at(lx, d->line, "a metric is plain text without quotes or backslashes");
		if (space)
			*w++ = ' ';
		space = false;
		*w++ = (char)c;
	}
	*w = 0;
	if (!*d->code)
		return error_at(lx, d->line, "empty metric: name what `work` counts");
	if (strlen(d->code) > 200)
		return error_at(lx, d->line, "metric longer than 200 characters");
	return 0;
}

static void push(struct wg_defs *out, const struct wg_def *d)
{
	out->v = sibyl_xreallocarray(out->v, out->n + 1, sizeof(*out->v));
	out->v[out->n++] = *d;
}

int wg_defs_parse(const char *text, const char *file, struct wg_defs *out, char *err,
		  size_t errlen)
{
	struct lexer lx = { text, file, 1, err, errlen };

	for (;;) {
		struct wg_def d = { 0 };

		if (skip_space_and_comments(&lx) < 0)
			return -1;
		if (!*lx.p)
			return 0;
		if (*lx.p == '{' || *lx.p == '}')
			return error_at(&lx, lx.line, "'%c' without a 'library::function::location' before it",
					*lx.p);
		if (parse_header(&lx, &d) < 0)
			return -1;
		d.line = lx.line;
		d.file = sibyl_xstrdup(file);
		d.code = read_body(&lx);
		if (d.code && d.loc == WG_DEFS_METRIC && normalize_metric(&lx, &d) < 0) {
			free(d.code);
			d.code = NULL;
		}
		if (!d.code) {
			free(d.lib_glob);
			free(d.fn_glob);
			free(d.file);
			return -1;
		}
		push(out, &d);
	}
}

int wg_defs_load(const char *path, struct wg_defs *out, char *err, size_t errlen)
{
	size_t len;
	char why[512];
	char *text = sibyl_read_file(path, WG_DEFS_MAX_BYTES, &len, why, sizeof(why));
	int rc;

	if (!text)
		return sibyl_seterr(err, errlen, "wrap: %s: %s", path, why);
	if (memchr(text, 0, len)) {
		rc = sibyl_seterr(err, errlen, "wrap: %s: contains NUL bytes, not a definition "
				  "file", path);
	} else if ((rc = wg_defs_parse(text, path, out, why, sizeof(why))) < 0) {
		/* The line at fault as a compiler says it, then the verdict. */
		sibyl_notice(SIBYL_NOTICE_DIAG, "%s", why);
		sibyl_seterr(err, errlen, "wrap: %s: invalid definition file", path);
	}
	free(text);
	return rc;
}

bool wg_def_matches(const struct wg_def *d, const char *soname, const char *path,
		    const char *function)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	if (fnmatch(d->fn_glob, function, 0))
		return false;
	return (soname && !fnmatch(d->lib_glob, soname, 0)) || !fnmatch(d->lib_glob, base, 0) ||
	       !fnmatch(d->lib_glob, path, 0);
}

void wg_defs_free(struct wg_defs *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->v[i].lib_glob);
		free(d->v[i].fn_glob);
		free(d->v[i].code);
		free(d->v[i].file);
	}
	free(d->v);
	memset(d, 0, sizeof(*d));
}
