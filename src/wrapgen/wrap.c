#define _GNU_SOURCE
#include "wrapgen/wrap.h"
#include "wrapgen/build.h"
#include "wrapgen/defs.h"
#include "wrapgen/defs_hint.h"
#include "wrapgen/app_imports.h"
#include "wrapgen/elfsyms.h"
#include "wrapgen/emit.h"
#include "wrapgen/headers.h"
#include "wrapgen/libpath.h"
#include "wrapgen/plan.h"
#include "wrapgen/select.h"
#include "core/alloc.h"
#include "core/fs.h"
#include "core/log.h"
#include "core/output.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Everything one run owns, released in one place. */
struct job {
	char *library_path;
	struct wg_symtab exports, imports;
	struct wg_protos protos;
	struct wg_defs defs;
	struct wg_plan plan;
	struct wg_selection sel;
	struct sibyl_strlist iflags, dflags;	/* "-IDIR", "-DM" */
	char *err;				/* the caller's, for the error line */
	size_t errlen;
	char *source;
	char *tmpdir;
};

static void flags(const struct sibyl_strlist *in, const char *prefix, struct sibyl_strlist *out)
{
	for (size_t i = 0; i < in->count; i++) {
		char *f;

		f = sibyl_xasprintf("%s%s", prefix, in->items[i]);
		sibyl_strlist_take(out, f);
	}
}


/* --defs without worksize.manual would silently do nothing. */
static void add_implied_gens(const struct sibyl_wrap_opts *o, struct sibyl_strlist *gens)
{
	bool have = false;

	for (size_t i = 0; i < o->gens.count; i++) {
		sibyl_strlist_add(gens, o->gens.items[i]);
		have = have || !strncmp(o->gens.items[i], "worksize.manual", 15);
	}
	if (!o->gens.count) {
		sibyl_strlist_add(gens, "time");
		sibyl_strlist_add(gens, "trace");
	}
	if (o->defs.count && !have)
		sibyl_strlist_add(gens, "worksize.manual");
}

static int load_inputs(const struct sibyl_wrap_opts *o, struct job *j)
{
	struct sibyl_strlist gens = { 0 };
	int rc;

	j->library_path = wg_find_library(o->library, j->err, j->errlen);
	if (!j->library_path || wg_elf_exports(j->library_path, &j->exports, j->err, j->errlen) < 0)
		return -1;
	if (!j->exports.soname) {	/* plain files without DT_SONAME */
		const char *b = strrchr(j->library_path, '/');

		j->exports.soname = sibyl_xstrdup(b ? b + 1 : j->library_path);
	}
	if (o->app) {
		char real[PATH_MAX];
		struct wg_app_ctx ac = { o->app, &j->exports, realpath(j->library_path, real) ?
					 real : j->library_path, j->exports.soname, o->verbose };

		if (wg_app_imports(&ac, &j->imports, j->err, j->errlen) < 0)
			return -1;
	}
	for (size_t i = 0; i < o->defs.count; i++)
		if (wg_defs_load(o->defs.items[i], &j->defs, j->err, j->errlen) < 0)
			return -1;
	add_implied_gens(o, &gens);
	rc = wg_plan_build(&gens, &o->gen_path, &j->plan, j->err, j->errlen);
	sibyl_strlist_free(&gens);
	if (rc < 0)
		return -1;
	flags(&o->incdirs, "-I", &j->iflags);
	flags(&o->defines, "-D", &j->dflags);
	struct wg_header_opts ho = { &o->headers, &j->iflags, &j->dflags };

	return wg_parse_headers(&ho, &j->protos, j->err, j->errlen);
}

static void count_reasons(const struct wg_selection *s, size_t *per)
{
	memset(per, 0, WG_SKIP_NREASONS * sizeof(*per));
	for (size_t i = 0; i < s->nskips; i++)
		per[s->skips[i].reason]++;
}

/* The summary a note; the list with -v, and in OUT.so.skipped.txt beside
 * a wrapper that was made (a failed run leaves no file). */
static int report_skipped(const struct sibyl_wrap_opts *o, const struct job *j, bool made)
{
	struct sibyl_strbuf b = { 0 };
	size_t per[WG_SKIP_NREASONS];
	char *path = NULL;
	int rc = 0;

	sibyl_strbuf_puts(&b, "# symbol\treason\tdetail\n");
	for (size_t i = 0; i < j->sel.nskips; i++)
		sibyl_strbuf_printf(&b, "%s\t%s\n", j->sel.skips[i].name,
				    wg_skip_reason_text(j->sel.skips[i].reason));
	if (made) {
		path = sibyl_xasprintf("%s.skipped.txt", o->output);
		rc = sibyl_output_write(path, b.s, b.len, 0666);
		if (rc < 0)
			sibyl_seterr_errno(j->err, j->errlen, "wrap: %s", path);
	}
	for (size_t i = 0; o->verbose && i < j->sel.nskips; i++)
		sibyl_notice(SIBYL_NOTICE_DIAG, "%s\t%s", j->sel.skips[i].name,
			     wg_skip_reason_text(j->sel.skips[i].reason));
	count_reasons(&j->sel, per);
	sibyl_notice(SIBYL_NOTICE_NOTE, "wrap: %zu function(s) wrapped, %zu skipped (%zu without "
		     "prototype, %zu variadic, %zu not exported, %zu data); %s%s",
		     j->sel.npicks, j->sel.nskips,
		     per[WG_SKIP_NO_PROTOTYPE] + per[WG_SKIP_UNPROTOTYPED], per[WG_SKIP_VARIADIC],
		     per[WG_SKIP_NOT_EXPORTED], per[WG_SKIP_DATA],
		     path ? "list in " : o->verbose ? "listed above" : "-v lists them", path ? path : "");
	free(path);
	sibyl_strbuf_free(&b);
	return rc;
}

static void warn_unused_defs(const struct job *j)
{
	for (size_t i = 0; i < j->defs.n; i++)
		if (!j->defs.v[i].used)
			sibyl_warn("wrap: %s:%u: definition '%s::%s' matches no wrapped function",
				   j->defs.v[i].file, j->defs.v[i].line, j->defs.v[i].lib_glob,
				   j->defs.v[i].fn_glob);
}

/* The generated source goes to a private temporary directory (and to
 * --emit-c FILE): it is compiled as that file, which #line names. */
static int source_path(struct job *j, char **path)
{
	if (!(j->tmpdir = sibyl_private_tmpdir("sibyl-wrap")))
		return sibyl_seterr_errno(j->err, j->errlen, "wrap: temporary directory");
	*path = sibyl_path_join(j->tmpdir, "wrapper.c");
	return 0;
}

static int write_source(const struct sibyl_wrap_opts *o, struct job *j, const char *path)
{
	if (o->emit_c && sibyl_output_write(o->emit_c, j->source, strlen(j->source), 0666) < 0)
		return sibyl_seterr_errno(j->err, j->errlen, "wrap: %s", o->emit_c);
	if (sibyl_output_write(path, j->source, strlen(j->source), 0666) < 0)
		return sibyl_seterr_errno(j->err, j->errlen, "wrap: %s", path);
	return 0;
}

static int compile(const struct sibyl_wrap_opts *o, struct job *j, const char *src_path)
{
	char *said = NULL;
	struct wg_build_opts bo = { src_path, o->output, &j->iflags, &j->dflags, o->verbose,
				    &said };
	int rc = wg_build(&bo, j->err, j->errlen);

	if (rc) {	/* the error, what the definitions may use, then where to look */
		struct wg_defs_hint_ctx c = { &j->defs, &j->sel, j->exports.soname,
					      j->library_path };

		sibyl_notice(SIBYL_NOTICE_ERROR, "%s", j->err);
		wg_defs_hint(said, &c);
		sibyl_seterr(j->err, j->errlen, "wrap: the generated source is kept in %s",
			     src_path);
	}
	free(said);
	return rc;
}

static int generate_and_build(const struct sibyl_wrap_opts *o, struct job *j)
{
	struct wg_unit u = { j->library_path, j->exports.soname, &j->defs };
	char *src_path = NULL;
	int rc;

	wg_select(&j->exports, o->app ? &j->imports : NULL, &j->protos, &o->functions, &j->sel);
	if (!j->sel.npicks) {
		report_skipped(o, j, false);
		return sibyl_seterr(j->err, j->errlen, "wrap: %s: no function to wrap",
				    j->library_path);
	}
	if (source_path(j, &src_path) < 0)
		return -1;
	struct wg_emit_opts eo = { &o->headers, &u, o->command_line, src_path };

	j->source = wg_emit_source(&eo, &j->plan, &j->sel, j->err, j->errlen);
	rc = j->source ? 0 : -1;
	if (!rc) {
		warn_unused_defs(j);
		rc = write_source(o, j, src_path);
	}
	if (!rc)
		rc = compile(o, j, src_path);
	if (!rc)
		rc = report_skipped(o, j, true);
	if (!rc || !j->source) {	/* keep the source for a failed build */
		unlink(src_path);
		rmdir(j->tmpdir);
	}
	free(src_path);
	return rc;
}

/* Outputs follow the rule of every writer: replaced only with --force,
 * only if regular files, never over the library or application read. */
static int check_outputs(const struct sibyl_wrap_opts *o, char *err, size_t errlen)
{
	const char *inputs[] = { o->library, o->app, NULL };
	const char *outputs[] = { o->output, o->emit_c };
	char why[1024];

	for (size_t i = 0; i < sizeof(outputs) / sizeof(outputs[0]); i++)
		if (outputs[i] && sibyl_output_check(outputs[i], o->force, inputs, why, sizeof(why)))
			return sibyl_seterr(err, errlen, "wrap: %s", why);
	return 0;
}

int sibyl_wrap(const struct sibyl_wrap_opts *o, char *err, size_t errlen)
{
	struct job j = { .err = err, .errlen = errlen };
	int rc = check_outputs(o, err, errlen);

	if (!rc)
		rc = load_inputs(o, &j);

	if (!rc)
		rc = generate_and_build(o, &j);
	free(j.library_path);
	wg_symtab_free(&j.exports);
	wg_symtab_free(&j.imports);
	wg_protos_free(&j.protos);
	wg_defs_free(&j.defs);
	wg_plan_free(&j.plan);
	wg_selection_free(&j.sel);
	sibyl_strlist_free(&j.iflags);
	sibyl_strlist_free(&j.dflags);
	free(j.source);
	free(j.tmpdir);
	return rc;
}
