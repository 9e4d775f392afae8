/*
 * redirect: call an alternative implementation of the same function in
 * another library (the paper's transparent acceleration): the wrapper
 * resolves the function of the same name in `library` on its first call
 * and calls it instead of the original, optionally only when the call's
 * `work` is at least `threshold` (sibyl predict's crossover).  The call
 * is still traced, so a redirected run can be compared with its
 * prediction.  A library that cannot be loaded, or lacks the function,
 * leaves the original in place.
 */
#define _GNU_SOURCE
#include "wrapgen/gen.h"
#include "core/alloc.h"
#include "core/log.h"
#include "wrapgen/defs.h"

#include <sibyl/wrap_rt.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct redirect {
	char *library;		/* absolute path, or a soname for dlopen's search */
	double threshold;	/* NAN: every call */
};

/* The work a threshold compares is only known before the call when a
 * definition computes it in `prefix`. */
static bool has_prefix_def(const struct wg_unit *u)
{
	for (size_t i = 0; u->defs && i < u->defs->n; i++)
		if (u->defs->v[i].loc == WG_DEFS_PREFIX)
			return true;
	return false;
}

static int setup(struct wg_inst *inst, const struct wg_unit *u, char *err, size_t errlen)
{
	const char *lib = wg_param(inst, "library"), *thr = wg_param(inst, "threshold");
	struct redirect *r = sibyl_xcalloc(1, sizeof(*r));

	inst->data = r;
	r->threshold = NAN;
	if (!lib || !*lib)
		return sibyl_seterr(err, errlen, "wrap: redirect: needs library=PATH (the "
				    "alternative implementation)");
	if (strpbrk(lib, "\"\\\n"))
		return sibyl_seterr(err, errlen, "wrap: redirect: library path with a quote, "
				    "backslash or newline");
	/* A path is fixed now (the program may run elsewhere); a bare soname
	 * is left to the dynamic linker's search, like DT_NEEDED. */
	r->library = strchr(lib, '/') ? realpath(lib, NULL) : sibyl_xstrdup(lib);
	if (!r->library)
		return sibyl_seterr(err, errlen, "wrap: redirect: library %s: %s", lib,
				    strerror(errno));
	if (thr) {
		char *end;

		r->threshold = strtod(thr, &end);
		if (end == thr || *end || !isfinite(r->threshold))
			return sibyl_seterr(err, errlen, "wrap: redirect: threshold '%s' is not a "
					    "number", thr);
		if (!has_prefix_def(u))
			return sibyl_seterr(err, errlen, "wrap: redirect: threshold needs the work "
					    "before the call: compute `work` in a --defs prefix "
					    "definition");
	}
	return 0;
}

static void unit(struct wg_inst *inst, const struct wg_unit *u, const struct wg_fn *fns,
		 size_t nfns, struct sibyl_strbuf *out)
{
	const struct redirect *r = inst->data;

	(void)u;
	(void)fns;
	(void)nfns;
	/* Exported: the audit module lets this library call the original
	 * (its calls there are the alternative's own, not the program's). */
	sibyl_strbuf_printf(&out[WG_HEADER],
			    "__attribute__((visibility(\"default\"))) const char %s[] = \"%s\";\n",
			    SIBYL_REDIRECT_LIBRARY_SYMBOL, r->library);
}

static void function(struct wg_inst *inst, const struct wg_unit *u, const struct wg_fn *fn,
		     struct sibyl_strbuf *out)
{
	const struct redirect *r = inst->data;

	(void)u;
	/* sibyl_use_alt stays 0 on the runtime's bypass path, which calls
	 * the original before this generator's prefix runs. */
	sibyl_strbuf_puts(&out[WG_LOCALS], "\tstatic __typeof__(sibyl_real) sibyl_alt;\n"
			  "\tstatic int sibyl_alt_state;\t/* 0: not tried, 1: found, -1: missing */\n"
			  "\tint sibyl_use_alt = 0;\n");
	sibyl_strbuf_printf(&out[WG_PREFIX],
			    "\tif (__builtin_expect(!sibyl_alt_state, 0)) {\n"
			    "\t\tsibyl_alt = (__typeof__(sibyl_alt))"
			    "sibyl_rt_resolve(\"%s\", " SIBYL_REDIRECT_LIBRARY_SYMBOL ", 0);\n"
			    "\t\tsibyl_alt_state = sibyl_alt ? 1 : -1;\n\t}\n",
			    fn->target->name);
	if (isnan(r->threshold))
		sibyl_strbuf_puts(&out[WG_PREFIX], "\tsibyl_use_alt = sibyl_alt_state > 0;\n");
	else
		sibyl_strbuf_printf(&out[WG_PREFIX],
				    "\tsibyl_use_alt = sibyl_alt_state > 0 && work >= %.17g;\n",
				    r->threshold);
}

static void cleanup(struct wg_inst *inst)
{
	struct redirect *r = inst->data;

	if (r)
		free(r->library);
	free(r);
}

static const char *const keys[] = { "library", "threshold", NULL };

const struct wg_generator wg_gen_redirect = {
	.name = "redirect",
	.requires = "trace",
	.before = "time",
	.keeps_errno = true,
	.redirects = true,
	.keys = keys,
	.help = "call the function of the same name in library=PATH instead "
		"(only calls with work >= threshold=W, when given)",
	.setup = setup,
	.unit = unit,
	.function = function,
	.cleanup = cleanup,
};
