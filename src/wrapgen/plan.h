/*
 * Choosing and ordering micro-generators: resolve names (built-in first,
 * then NAME.gen templates on the generator path), pull in requirements,
 * and sort topologically.
 */
#ifndef SIBYL_WRAPGEN_PLAN_H
#define SIBYL_WRAPGEN_PLAN_H

#include <stdio.h>

#include "core/options.h"
#include "wrapgen/gen.h"

struct wg_plan {
	struct wg_inst *v;	/* plan order: requirements first, innermost last */
	size_t n;
	struct wg_generator **loaded;	/* templates, owned */
	size_t nloaded;
};

/*
 * specs: "name" or "name:key=value:key=value".  dirs: --gen-path
 * directories (searched before $SIBYL_GEN_PATH and the installed set).
 * 0, or -1 with the error line in err (unknown generator, missing
 * requirement, cycle, bad parameter).  A template that does not load is
 * an error notice (core/log.h), and then unknown.
 */
int wg_plan_build(const struct sibyl_strlist *specs, const struct sibyl_strlist *dirs,
		  struct wg_plan *out, char *err, size_t errlen);
void wg_plan_free(struct wg_plan *p);
/* Print built-in and template generators with their requirements. */
void wg_plan_list(FILE *f, const struct sibyl_strlist *dirs);

/* Template generators (gen_template.c). */
/* NULL with the error line in err ("PATH:LINE: error: ..."). */
struct wg_generator *wg_template_load(const char *path, const char *name, char *err,
				      size_t errlen);
void wg_template_free(struct wg_generator *g);

#endif
