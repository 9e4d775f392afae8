/*
 * What an application imports from the wrapped library (--app): a
 * program often calls a library through others (convert reaches zlib
 * through libMagickCore and libpng), and those calls go through the same
 * symbol lookup, so a wrapper interposes them too.  The candidates are
 * the undefined symbols of the executable and of every library it needs,
 * found as the dynamic loader would (RUNPATH/RPATH with $ORIGIN, then
 * LD_LIBRARY_PATH, then the cache and the standard directories), and
 * sibyl says which of them imports how many of the library's functions.
 */
#define _GNU_SOURCE
#include "wrapgen/app_imports.h"
#include "wrapgen/libpath.h"
#include "core/alloc.h"
#include "core/fs.h"
#include "core/log.h"
#include "core/strbuf.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* At most this many objects are read (a program with more libraries is
 * still wrapped, from what was read). */
#define MAX_OBJECTS 512

struct closure {
	char **paths;		/* realpaths, the executable first */
	char **names;		/* as named: the program, then DT_NEEDED names */
	size_t n;
};

static void add_object(struct closure *c, const char *real, const char *name)
{
	c->paths = sibyl_xreallocarray(c->paths, c->n + 1, sizeof(*c->paths));
	c->names = sibyl_xreallocarray(c->names, c->n + 1, sizeof(*c->names));
	c->paths[c->n] = sibyl_xstrdup(real);
	c->names[c->n++] = sibyl_xstrdup(name);
}

static bool seen(const struct closure *c, const char *real)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->paths[i], real))
			return true;
	return false;
}

/* `dir` with $ORIGIN and ${ORIGIN} replaced by the object's directory. */
static char *expand_origin(const char *dir, const char *object)
{
	char *copy = sibyl_xstrdup(object), *origin = dirname(copy);
	struct sibyl_strbuf b = { 0 };

	for (const char *p = dir; *p;) {
		if (!strncmp(p, "$ORIGIN", 7) || !strncmp(p, "${ORIGIN}", 9)) {
			sibyl_strbuf_puts(&b, origin);
			p += p[1] == '{' ? 9 : 7;
		} else {
			sibyl_strbuf_add(&b, p++, 1);
		}
	}
	free(copy);
	return sibyl_strbuf_take(&b);
}

/* The first dir of a colon list holding `name`, or NULL. */
static char *in_dirs(const char *list, const char *name, const char *object)
{
	for (const char *p = list ? list : ""; *p;) {
		size_t n = strcspn(p, ":");
		char *dir = sibyl_xstrndup(p, n), *exp = expand_origin(dir, object);
		char *file = sibyl_path_join(exp, name);

		free(dir);
		free(exp);
		if (n && access(file, R_OK) == 0)
			return file;
		free(file);
		p += n + (p[n] == ':');
	}
	return NULL;
}

static char *resolve_needed(const char *name, const struct wg_symtab *object, const char *path)
{
	char *found;

	if (strchr(name, '/'))
		return sibyl_xstrdup(name);
	if ((found = in_dirs(object->runpath, name, path)) ||
	    (found = in_dirs(getenv("LD_LIBRARY_PATH"), name, path)))
		return found;
	return wg_lookup_library(name);
}

/* One object's imports of the library's functions, added to `out`;
 * its needed libraries appended to the closure. */
static size_t scan_object(const char *path, const struct wg_app_ctx *ctx, struct closure *c,
			  struct wg_symtab *out, struct sibyl_strbuf *names)
{
	struct wg_symtab imp;
	size_t count = 0;
	char why[512];

	if (wg_elf_imports(path, &imp, why, sizeof(why)) < 0) {
		sibyl_notice(SIBYL_NOTICE_WARNING, "%s (its imports are not counted)", why);
		return 0;
	}
	for (size_t i = 0; i < imp.n; i++) {
		const struct wg_sym *e = wg_symtab_find(ctx->exports, imp.v[i].name);

		if (!e || e->kind != WG_SYM_FUNC)
			continue;
		sibyl_strbuf_printf(names, "%s%s", count++ ? " " : "", imp.v[i].name);
		if (!wg_symtab_find(out, imp.v[i].name)) {
			out->v = sibyl_xreallocarray(out->v, out->n + 1, sizeof(*out->v));
			out->v[out->n++] = (struct wg_sym){ .name = sibyl_xstrdup(imp.v[i].name) };
		}
	}
	for (size_t i = 0; i < imp.nneeded && c->n < MAX_OBJECTS; i++) {
		char *lib = resolve_needed(imp.needed[i], &imp, path);
		char real[PATH_MAX];

		if (lib && realpath(lib, real) && !seen(c, real) && strcmp(real, ctx->library)) {
			add_object(c, real, imp.needed[i]);
		} else if (!lib) {
			sibyl_info("wrap: --app: %s needs %s: not found, not read", path,
				   imp.needed[i]);
		}
		free(lib);
	}
	wg_symtab_free(&imp);
	return count;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct wg_sym *)a)->name, ((const struct wg_sym *)b)->name);
}

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* "convert-im6.q16 imports none; libMagickCore-6.Q16.so.6 12, libpng16.so.16 3" */
static void say_who(const struct closure *c, const size_t *counts, const struct wg_app_ctx *ctx,
		    struct sibyl_strbuf *lists)
{
	struct sibyl_strbuf b = { 0 };
	size_t others = 0;

	for (size_t i = 1; i < c->n; i++)
		if (counts[i])
			sibyl_strbuf_printf(&b, "%s%s %zu", others++ ? ", " : "", c->names[i],
					    counts[i]);
	if (others)
		sibyl_notice(SIBYL_NOTICE_NOTE, "wrap: --app %s imports %zu of %s's functions "
			     "itself, its libraries import: %s%s", c->names[0], counts[0],
			     ctx->soname, sibyl_strbuf_str(&b), ctx->verbose ? "" : " (-v lists them)");
	for (size_t i = 0; ctx->verbose && i < c->n; i++)
		if (counts[i])
			sibyl_notice(SIBYL_NOTICE_DIAG, "  %s: %s", c->names[i],
				     sibyl_strbuf_str(&lists[i]));
	sibyl_strbuf_free(&b);
}

static bool is_elf(const char *path)
{
	char magic[4] = { 0 };
	FILE *f = fopen(path, "rbe");
	bool elf = f && fread(magic, 1, 4, f) == 4 && !memcmp(magic, "\177ELF", 4);

	if (f)
		fclose(f);
	return elf;
}

int wg_app_imports(const struct wg_app_ctx *ctx, struct wg_symtab *out, char *err, size_t errlen)
{
	char *app = wg_find_program(ctx->app, err, errlen), real[PATH_MAX];
	struct closure c = { 0 };
	size_t *counts = sibyl_xcalloc(MAX_OBJECTS, sizeof(*counts));
	struct sibyl_strbuf *lists = sibyl_xcalloc(MAX_OBJECTS, sizeof(*lists));
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (!app || !realpath(app, real)) {
		rc = app ? sibyl_seterr_errno(err, errlen, "wrap: --app %s", app) : -1;
		goto out;
	}
	if (!is_elf(real)) {
		rc = sibyl_seterr(err, errlen, "wrap: --app %s: %s is not an ELF program (a "
				  "script?): give the program it runs", ctx->app, real);
		goto out;
	}
	add_object(&c, real, base(ctx->app));
	for (size_t i = 0; i < c.n; i++)
		counts[i] = scan_object(c.paths[i], ctx, &c, out, &lists[i]);
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), by_name);
	say_who(&c, counts, ctx, lists);
out:
	for (size_t i = 0; i < MAX_OBJECTS; i++)
		sibyl_strbuf_free(&lists[i]);
	for (size_t i = 0; i < c.n; i++) {
		free(c.paths[i]);
		free(c.names[i]);
	}
	free(c.paths);
	free(c.names);
	free(lists);
	free(counts);
	free(app);
	return rc;
}
