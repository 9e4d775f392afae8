/*
 * When the wrapper does not compile because of a definition file's code:
 * the compiler already names the .defs line (the generated source carries
 * #line directives); for a name it does not know, say which names the
 * code can use there: the wrapped function's parameters, as the header
 * spells them (argN where it leaves them unnamed), and the wrapper's own.
 */
#define _GNU_SOURCE
#include "wrapgen/defs_hint.h"
#include "core/alloc.h"
#include "core/log.h"
#include "core/strbuf.h"

#include <stdlib.h>
#include <string.h>

/* The definition whose body holds `file`:`line`, or NULL. */
static struct wg_def *def_at(const struct wg_defs *defs, const char *file, unsigned line)
{
	for (size_t i = 0; i < defs->n; i++) {
		struct wg_def *d = &defs->v[i];
		unsigned last = d->line;

		for (const char *c = d->code; *c; c++)
			last += *c == '\n';
		if (d->loc != WG_DEFS_METRIC && !strcmp(d->file, file) && line >= d->line &&
		    line <= last)
			return d;
	}
	return NULL;
}

/* "N, TransA, ..." for one prototype. */
static void params_of(const struct wg_proto *p, struct sibyl_strbuf *b)
{
	for (size_t i = 0; i < p->nparams; i++)
		sibyl_strbuf_printf(b, "%s%s", i ? ", " : "", p->params[i].name);
	if (!p->nparams)
		sibyl_strbuf_puts(b, "(none)");
}

static void hint(const struct wg_def *d, const struct wg_defs_hint_ctx *c)
{
	struct sibyl_strbuf b = { 0 };
	size_t shown = 0;

	for (size_t i = 0; i < c->sel->npicks && shown < 3; i++) {
		const struct wg_proto *p = c->sel->picks[i].proto;

		if (!wg_def_matches(d, c->soname, c->library_path, p->name))
			continue;
		sibyl_strbuf_printf(&b, "%s%s(", shown++ ? "; " : "", p->name);
		params_of(p, &b);
		sibyl_strbuf_puts(&b, ")");
	}
	sibyl_notice(SIBYL_NOTICE_NOTE, "wrap: %s:%u: the %s code of '%s::%s' can use the "
		     "parameters of %s, and input_size, output_size, work%s", d->file, d->line,
		     d->loc == WG_DEFS_PREFIX ? "prefix" : "postfix", d->lib_glob, d->fn_glob,
		     b.len ? sibyl_strbuf_str(&b) : "the functions it matches",
		     d->loc == WG_DEFS_POSTFIX ? ", sibyl_result (the value returned)" : "");
	sibyl_strbuf_free(&b);
}

/* gcc: "'x' undeclared"; clang: "use of undeclared identifier 'x'". */
static bool unknown_name(const char *msg)
{
	return strstr(msg, "undeclared") || strstr(msg, "has no member named");
}

void wg_defs_hint(const char *diagnostics, const struct wg_defs_hint_ctx *c)
{
	bool *done = sibyl_xcalloc(c->defs->n ? c->defs->n : 1, sizeof(*done));

	for (const char *p = diagnostics; p && *p;) {
		size_t n = strcspn(p, "\n");
		char *line = sibyl_xstrndup(p, n), *colon = strchr(line, ':');
		unsigned at;
		char *rest;

		/* "FILE:LINE:COL: error: MESSAGE" */
		if (colon && (at = (unsigned)strtoul(colon + 1, &rest, 10)) && *rest == ':' &&
		    strstr(rest, ": error: ") && unknown_name(strstr(rest, ": error: "))) {
			*colon = '\0';
			struct wg_def *d = def_at(c->defs, line, at);

			if (d && !done[d - c->defs->v]) {
				done[d - c->defs->v] = true;
				hint(d, c);
			}
		}
		free(line);
		p += n + (p[n] == '\n');
	}
	free(done);
}
