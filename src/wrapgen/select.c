#define _GNU_SOURCE
#include "wrapgen/select.h"
#include "core/alloc.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool wg_names_match(const struct sibyl_strlist *globs, const char *name)
{
	bool any_positive = false, hit = false;

	for (size_t i = 0; globs && i < globs->count; i++) {
		const char *g = globs->items[i];

		if (g[0] == '!') {
			if (!fnmatch(g + 1, name, 0))
				return false;
			continue;
		}
		any_positive = true;
		hit = hit || !fnmatch(g, name, 0);
	}
	return hit || !any_positive;
}

const char *wg_skip_reason_text(enum wg_skip_reason r)
{
	static const char *const text[WG_SKIP_NREASONS] = {
		[WG_SKIP_NO_PROTOTYPE] = "no-prototype\tnot declared in the headers",
		[WG_SKIP_UNPROTOTYPED] = "no-prototype\tdeclared without parameter list (K&R)",
		[WG_SKIP_VARIADIC] = "variadic\tno exported, declared va_list twin",
		[WG_SKIP_NOT_EXPORTED] = "not-exported\tdeclared in the headers, not defined by the library",
		[WG_SKIP_DATA] = "data-symbol\ta variable, not a function",
	};
	return text[r];
}

/* Same fixed parameters, then one va_list. */
static bool twin_fits(const struct wg_proto *p, const struct wg_proto *t)
{
	if (t->variadic || t->noproto || !t->ends_in_va_list || t->nparams != p->nparams + 1)
		return false;
	if (strcmp(p->ret, t->ret))
		return false;
	for (size_t i = 0; i < p->nparams; i++)
		if (strcmp(p->params[i].canon, t->params[i].canon))
			return false;
	return true;
}

static const struct wg_proto *twin_named(const struct wg_protos *protos,
					 const struct wg_symtab *exports,
					 const struct wg_proto *p, const char *name)
{
	const struct wg_proto *t = wg_protos_find(protos, name);
	const struct wg_sym *s = wg_symtab_find(exports, name);

	return t && s && s->kind == WG_SYM_FUNC && twin_fits(p, t) ? t : NULL;
}

const struct wg_proto *wg_va_twin(const struct wg_protos *protos,
				  const struct wg_symtab *exports, const struct wg_proto *p)
{
	static const char *const forms[] = { "v%s", "%s_v", "%sv", "%s_valist" };

	const struct wg_proto *t;

	if (!p->nparams)	/* va_start needs a named parameter */
		return NULL;
	/* BIO_printf -> BIO_vprintf, ERR_add_error_data -> ERR_add_error_vdata */
	for (const char *u = strchr(p->name, '_'); u; u = strchr(u + 1, '_')) {
		char *name;

		name = sibyl_xasprintf("%.*sv%s", (int)(u + 1 - p->name), p->name, u + 1);
		t = twin_named(protos, exports, p, name);
		free(name);
		if (t)
			return t;
	}
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		char *name;

		name = sibyl_xasprintf(forms[i], p->name);
		t = twin_named(protos, exports, p, name);
		free(name);
		if (t)
			return t;
	}
	return NULL;
}

static void skip(struct wg_selection *out, const char *name, enum wg_skip_reason r)
{
	out->skips = sibyl_xreallocarray(out->skips, out->nskips + 1, sizeof(*out->skips));
	out->skips[out->nskips++] = (struct wg_skip){ name, r };
}

static void pick(struct wg_selection *out, const struct wg_proto *p, const struct wg_proto *twin)
{
	out->picks = sibyl_xreallocarray(out->picks, out->npicks + 1, sizeof(*out->picks));
	out->picks[out->npicks++] = (struct wg_pick){ p, twin };
}

static void consider(const struct wg_sym *s, const struct wg_symtab *exports,
		     const struct wg_protos *protos, struct wg_selection *out)
{
	const struct wg_proto *p = wg_protos_find(protos, s->name), *twin = NULL;

	if (s->kind == WG_SYM_DATA)
		skip(out, s->name, WG_SKIP_DATA);
	else if (!p)
		skip(out, s->name, WG_SKIP_NO_PROTOTYPE);
	else if (p->noproto)
		skip(out, s->name, WG_SKIP_UNPROTOTYPED);
	else if (p->variadic && !(twin = wg_va_twin(protos, exports, p)))
		skip(out, s->name, WG_SKIP_VARIADIC);
	else
		pick(out, p, twin);
}

static void report_not_exported(const struct wg_symtab *exports, const struct wg_symtab *imports,
				const struct wg_protos *protos, const struct sibyl_strlist *globs,
				struct wg_selection *out);

void wg_select(const struct wg_symtab *exports, const struct wg_symtab *imports,
	       const struct wg_protos *protos, const struct sibyl_strlist *globs,
	       struct wg_selection *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < exports->n; i++) {
		const struct wg_sym *s = &exports->v[i];

		if (imports && !wg_symtab_find(imports, s->name))
			continue;
		if (wg_names_match(globs, s->name))
			consider(s, exports, protos, out);
	}
	report_not_exported(exports, imports, protos, globs, out);
}

/* A header "belongs" to the library when it declares one of its exports. */
static bool library_header(const struct wg_symtab *exports, const struct wg_protos *protos,
			   const char *file)
{
	for (size_t i = 0; i < protos->n; i++)
		if (!strcmp(protos->v[i].file, file) && wg_symtab_find(exports, protos->v[i].name))
			return true;
	return false;
}

/* Only the named headers that belong to the library: stdio.h, named for
 * jpeglib.h's sake, would otherwise flood the list. */
static void report_not_exported(const struct wg_symtab *exports, const struct wg_symtab *imports,
				const struct wg_protos *protos, const struct sibyl_strlist *globs,
				struct wg_selection *out)
{
	const char *last_file = NULL;
	bool last_ok = false;

	for (size_t i = 0; i < protos->n; i++) {
		const struct wg_proto *p = &protos->v[i];

		if (!p->in_user_header || wg_symtab_find(exports, p->name) ||
		    (imports && !wg_symtab_find(imports, p->name)) || !wg_names_match(globs, p->name))
			continue;
		if (!last_file || strcmp(last_file, p->file)) {
			last_file = p->file;
			last_ok = library_header(exports, protos, p->file);
		}
		if (last_ok)
			skip(out, p->name, WG_SKIP_NOT_EXPORTED);
	}
}

void wg_selection_free(struct wg_selection *s)
{
	free(s->picks);
	free(s->skips);
	memset(s, 0, sizeof(*s));
}
