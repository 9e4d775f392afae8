/*
 * User micro-generators without recompiling sibyl: a NAME.gen file with
 * a preamble ("requires:", "before:", "help:" lines, '#' comments) and
 * then sections "[locals]", "[prefix]", ... holding C code in which
 * ${function}, ${call}, ${param:KEY}, ... are substituted.
 */
#define _GNU_SOURCE
#include "wrapgen/plan.h"
#include "core/alloc.h"
#include "core/fs.h"
#include "core/log.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const place_names[WG_NPLACES] = {
	[WG_HEADER] = "header", [WG_DECLS] = "declarations", [WG_LOCALS] = "locals",
	[WG_PREFIX] = "prefix", [WG_CALL] = "call", [WG_POSTFIX] = "postfix",
	[WG_RETURN] = "return", [WG_FOOTER] = "footer",
};

/* Placeholders valid everywhere, and those that need a function. */
static const char *const unit_vars[] = { "library", "soname", NULL };
static const char *const fn_vars[] = { "function", "args", "call", "id", "result",
				       "assign", "return_type", NULL };

struct tmpl {
	struct wg_generator gen;	/* first: the plan sees only this */
	char *name, *requires, *before, *help, *path;
	char *sect[WG_NPLACES];
	char **keys;			/* ${param:KEY} names used */
	size_t nkeys;
	char *err;			/* while loading: the caller's */
	size_t errlen;
};

static bool in_list(const char *const *l, const char *s, size_t n)
{
	for (; *l; l++)
		if (strlen(*l) == n && !strncmp(*l, s, n))
			return true;
	return false;
}

static void note_key(struct tmpl *t, const char *k, size_t n)
{
	for (size_t i = 0; i < t->nkeys; i++)
		if (strlen(t->keys[i]) == n && !strncmp(t->keys[i], k, n))
			return;
	t->keys = sibyl_xreallocarray(t->keys, t->nkeys + 1, sizeof(*t->keys));
	t->keys[t->nkeys++] = sibyl_xstrndup(k, n);
}

/* Check the placeholders of one section line; record ${param:KEY}s. */
static int check_line(struct tmpl *t, const char *line, unsigned lineno, enum wg_place pl)
{
	for (const char *p = strstr(line, "${"); p; p = strstr(p + 2, "${")) {
		const char *v = p + 2;
		size_t n = strcspn(v, "}\n");
		bool unit_place = pl == WG_HEADER || pl == WG_FOOTER;

		if (v[n] != '}')
			return sibyl_seterr(t->err, t->errlen, "%s:%u: error: unterminated '${'",
					    t->path, lineno);
		if (n > 6 && !strncmp(v, "param:", 6)) {
			note_key(t, v + 6, n - 6);
			continue;
		}
		if (in_list(unit_vars, v, n) || (!unit_place && in_list(fn_vars, v, n)))
			continue;
		return sibyl_seterr(t->err, t->errlen, "%s:%u: error: unknown placeholder '${%.*s}'%s", t->path, lineno,
				 (int)n, v, unit_place ? " (header/footer see only ${library}, ${soname}, ${param:KEY})" : "");
	}
	return 0;
}

static char *trimmed(const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s))
		s++, n--;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return sibyl_xstrndup(s, n);
}

/* A preamble line "key: value". */
static int preamble_line(struct tmpl *t, const char *line, size_t n, unsigned lineno)
{
	const char *colon = memchr(line, ':', n);
	char *key, **slot;

	if (!colon)
		return sibyl_seterr(t->err, t->errlen, "%s:%u: error: expected 'requires:', "
				    "'before:', 'help:' or a [section]", t->path, lineno);
	key = trimmed(line, (size_t)(colon - line));
	slot = !strcmp(key, "requires") ? &t->requires : !strcmp(key, "before") ? &t->before :
	       !strcmp(key, "help") ? &t->help : NULL;
	if (!slot) {
		sibyl_seterr(t->err, t->errlen, "%s:%u: error: unknown key '%s'", t->path, lineno,
			     key);
		free(key);
		return -1;
	}
	free(key);
	free(*slot);
	*slot = trimmed(colon + 1, n - (size_t)(colon + 1 - line));
	return 0;
}

/* "[prefix]" alone on a line -> its place, or -1. */
static int section_of(const char *line, size_t n)
{
	char *s = trimmed(line, n);
	size_t len = strlen(s);
	int r = -1;

	if (len > 2 && s[0] == '[' && s[len - 1] == ']')
		for (int i = 0; i < WG_NPLACES; i++)
			if (strlen(place_names[i]) == len - 2 && !strncmp(s + 1, place_names[i], len - 2))
				r = i;
	free(s);
	return r;
}

static int parse(struct tmpl *t, const char *text)
{
	struct sibyl_strbuf sect[WG_NPLACES] = { 0 };
	int cur = -1, rc = 0;
	unsigned lineno = 0;

	for (const char *line = text; !rc && *line;) {
		size_t n = strcspn(line, "\n");
		int s = section_of(line, n);
		const char *blank = line + strspn(line, " \t");

		lineno++;
		if (s >= 0)
			cur = s;
		else if (cur >= 0) {
			char *l = sibyl_xstrndup(line, n);

			rc = check_line(t, l, lineno, (enum wg_place)cur);
			free(l);
			sibyl_strbuf_add(&sect[cur], line, n);
			sibyl_strbuf_puts(&sect[cur], "\n");
		} else if (*blank != '#' && blank < line + n) {
			rc = preamble_line(t, line, n, lineno);
		}
		line += n + (line[n] == '\n');
	}
	for (int i = 0; i < WG_NPLACES; i++)
		t->sect[i] = sect[i].len ? sibyl_strbuf_take(&sect[i]) : NULL;
	return rc;
}

static void expand(const struct tmpl *t, const char *text, const struct wg_inst *inst,
		   const struct wg_unit *u, const struct wg_fn *fn, struct sibyl_strbuf *out)
{
	(void)t;
	for (const char *p = text; *p;) {
		const char *v = strstr(p, "${");

		if (!v) {
			sibyl_strbuf_puts(out, p);
			return;
		}
		sibyl_strbuf_add(out, p, (size_t)(v - p));
		v += 2;
		size_t n = strcspn(v, "}");
		char *name = sibyl_xstrndup(v, n);

		if (!strncmp(name, "param:", 6))
			sibyl_strbuf_puts(out, wg_param(inst, name + 6));
		else if (!strcmp(name, "library"))
			sibyl_strbuf_puts(out, u->library_path);
		else if (!strcmp(name, "soname"))
			sibyl_strbuf_puts(out, u->soname);
		else if (!strcmp(name, "function"))
			sibyl_strbuf_puts(out, fn->proto->name);
		else if (!strcmp(name, "args"))
			sibyl_strbuf_puts(out, fn->args);
		else if (!strcmp(name, "call"))
			wg_call_expr(fn, out);
		else if (!strcmp(name, "id"))
			sibyl_strbuf_puts(out, fn->fid);
		else if (!strcmp(name, "result"))
			sibyl_strbuf_puts(out, fn->is_void ? "" : "sibyl_result");
		else if (!strcmp(name, "assign"))
			sibyl_strbuf_puts(out, wg_assign(fn));
		else if (!strcmp(name, "return_type"))
			sibyl_strbuf_puts(out, fn->proto->ret);
		free(name);
		p = v + n + (v[n] == '}');
	}
}

static int setup(struct wg_inst *inst, const struct wg_unit *u, char *err, size_t errlen)
{
	const struct tmpl *t = (const struct tmpl *)inst->gen;

	(void)u;
	for (size_t i = 0; i < t->nkeys; i++)
		if (!wg_param(inst, t->keys[i]))
			return sibyl_seterr(err, errlen, "wrap: generator '%s' needs a value for "
					    "'%s' (--gen %s:%s=VALUE)", t->name, t->keys[i],
					    t->name, t->keys[i]);
	return 0;
}

static void unit(struct wg_inst *inst, const struct wg_unit *u, const struct wg_fn *fns,
		 size_t nfns, struct sibyl_strbuf *out)
{
	const struct tmpl *t = (const struct tmpl *)inst->gen;

	(void)fns;
	(void)nfns;
	if (t->sect[WG_HEADER])
		expand(t, t->sect[WG_HEADER], inst, u, NULL, &out[WG_HEADER]);
	if (t->sect[WG_FOOTER])
		expand(t, t->sect[WG_FOOTER], inst, u, NULL, &out[WG_FOOTER]);
}

static void function(struct wg_inst *inst, const struct wg_unit *u, const struct wg_fn *fn,
		     struct sibyl_strbuf *out)
{
	const struct tmpl *t = (const struct tmpl *)inst->gen;

	for (int i = WG_DECLS; i <= WG_RETURN; i++)
		if (t->sect[i])
			expand(t, t->sect[i], inst, u, fn, &out[i]);
}

struct wg_generator *wg_template_load(const char *path, const char *name, char *err,
				      size_t errlen)
{
	struct tmpl *t = sibyl_xcalloc(1, sizeof(*t));
	size_t len;
	char why[128];
	char *text = sibyl_read_file(path, WG_DEFS_MAX_BYTES, &len, why, sizeof(why));

	t->path = sibyl_xstrdup(path);
	t->name = sibyl_xstrdup(name);
	t->err = err;
	t->errlen = errlen;
	if (!text) {
		sibyl_seterr(err, errlen, "wrap: %s: %s", path, why);
		wg_template_free(&t->gen);
		return NULL;
	}
	if (parse(t, text) < 0) {
		free(text);
		wg_template_free(&t->gen);
		return NULL;
	}
	free(text);
	t->gen = (struct wg_generator){
		.name = t->name, .requires = t->requires, .before = t->before,
		.help = t->help ? t->help : "(template)", .any_keys = true,
		.setup = setup, .unit = unit, .function = function,
	};
	return &t->gen;
}

void wg_template_free(struct wg_generator *g)
{
	struct tmpl *t = (struct tmpl *)g;

	if (!t)
		return;
	free(t->name);
	free(t->requires);
	free(t->before);
	free(t->help);
	free(t->path);
	for (int i = 0; i < WG_NPLACES; i++)
		free(t->sect[i]);
	for (size_t i = 0; i < t->nkeys; i++)
		free(t->keys[i]);
	free(t->keys);
	free(t);
}
