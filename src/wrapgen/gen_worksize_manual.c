/* worksize.manual: the user's --defs code around matching functions. */
#include "wrapgen/gen.h"

static void insert(struct wg_buf *b, struct wg_def *d)
{
	/* Own block: definitions may declare variables of their own. */
	wg_buf_printf(b, "\t/* %s:%u */\n\t{%s}\n", d->file, d->line, d->code);
	d->used = true;
}

static void function(struct wg_inst *inst, const struct wg_unit *u, const struct wg_fn *fn,
		     struct wg_buf *out)
{
	(void)inst;
	for (size_t i = 0; u->defs && i < u->defs->n; i++) {
		/* `used` is bookkeeping for the "matched nothing" warning. */
		struct wg_def *d = &((struct wg_defs *)u->defs)->v[i];

		if (!wg_def_matches(d, u->soname, u->library_path, fn->proto->name))
			continue;
		insert(&out[d->loc == WG_DEFS_PREFIX ? WG_PREFIX : WG_POSTFIX], d);
	}
}

const struct wg_generator wg_gen_worksize_manual = {
	.name = "worksize.manual",
	.requires = "trace",
	.before = "time",
	.help = "insert the --defs code (input_size, output_size, work)",
	.function = function,
};
