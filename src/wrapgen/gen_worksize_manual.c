/* worksize.manual: the user's --defs code around matching functions, and
 * the work metric each function's `work` is declared to count. */
#include "wrapgen/gen.h"

#include <string.h>

static void insert(struct sibyl_strbuf *b, struct wg_def *d)
{
	/* Own block: definitions may declare variables of their own.  The
	 * compiler's messages about the code name the definition file's
	 * lines (the body starts on the line of its '{'); emit.c turns the
	 * resume marker into the generated file's own line again. */
	sibyl_strbuf_printf(b, "\t{\n#line %u ", d->line);
	wg_c_string(b, d->file);
	sibyl_strbuf_printf(b, "\n%s\n" WG_LINE_RESUME "\n\t}\n", d->code);
	d->used = true;
}

/* The last matching metric definition wins, as later code would. */
static struct wg_def *metric_of(const struct wg_unit *u, const char *function)
{
	struct wg_def *found = NULL;

	for (size_t i = 0; u->defs && i < u->defs->n; i++) {
		struct wg_def *d = &((struct wg_defs *)u->defs)->v[i];

		if (d->loc == WG_DEFS_METRIC && wg_def_matches(d, u->soname, u->library_path, function))
			found = d;
	}
	return found;
}

/* Declared once per process image, like the names: the trace then says
 * what `work` means for each function, and `sibyl predict` refuses a
 * profile measured in another metric. */
static void unit(struct wg_inst *inst, const struct wg_unit *u, const struct wg_fn *fns,
		 size_t nfns, struct sibyl_strbuf *out)
{
	struct sibyl_strbuf *f = &out[WG_FOOTER];
	size_t declared = 0;

	(void)inst;
	for (size_t i = 0; i < nfns; i++) {
		struct wg_def *d = metric_of(u, fns[i].proto->name);

		if (!d)
			continue;
		sibyl_strbuf_printf(f, "%s\t{ %s, \"%s\" },\n",
				    declared++ ? "" : "static const struct sibyl_rt_work_metric "
						      "sibyl_metrics[] = {\n",
				    fns[i].fid, d->code);
		d->used = true;
	}
	if (declared)
		sibyl_strbuf_printf(f, "};\n\n"
				    "__attribute__((constructor)) static void sibyl_declare_work(void)\n{\n"
				    "\tsibyl_rt_declare_work(sibyl_metrics, %zu);\n}\n", declared);
}

static void function(struct wg_inst *inst, const struct wg_unit *u, const struct wg_fn *fn,
		     struct sibyl_strbuf *out)
{
	(void)inst;
	for (size_t i = 0; u->defs && i < u->defs->n; i++) {
		/* `used` is bookkeeping for the "matched nothing" warning. */
		struct wg_def *d = &((struct wg_defs *)u->defs)->v[i];

		if (d->loc == WG_DEFS_METRIC ||
		    !wg_def_matches(d, u->soname, u->library_path, fn->proto->name))
			continue;
		insert(&out[d->loc == WG_DEFS_PREFIX ? WG_PREFIX : WG_POSTFIX], d);
	}
}

/* A definition for this function that assigns a size (one that sets
 * only `work` leaves the sizes to an automatic generator). */
static bool sets_sizes(const struct wg_unit *u, const struct wg_proto *proto)
{
	for (size_t i = 0; u->defs && i < u->defs->n; i++) {
		const struct wg_def *d = &u->defs->v[i];

		if (d->loc != WG_DEFS_METRIC && (strstr(d->code, "input_size") || strstr(d->code, "output_size")) &&
		    wg_def_matches(d, u->soname, u->library_path, proto->name))
			return true;
	}
	return false;
}

const struct wg_generator wg_gen_worksize_manual = {
	.name = "worksize.manual",
	.requires = "trace",
	.before = "time,redirect",	/* a redirect threshold reads `work` */
	.help = "insert the --defs code (input_size, output_size, work) and declare work metrics",
	.unit = unit,
	.function = function,
	.sets_sizes = sets_sizes,
};
