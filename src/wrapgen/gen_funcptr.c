/* funcptr: the static pointer to the original implementation. */
#include "wrapgen/gen.h"

static void function(struct wg_inst *inst, const struct wg_unit *u, const struct wg_fn *fn,
		     struct sibyl_strbuf *out)
{
	(void)inst;
	(void)u;
	/* Function-local so every wrapper has its own, file-scope names
	 * stay free; __typeof__ keeps the exact header prototype. */
	sibyl_strbuf_printf(&out[WG_LOCALS], "\tstatic __typeof__(%s) *sibyl_real;\n", fn->target->name);
}

const struct wg_generator wg_gen_funcptr = {
	.name = "funcptr",
	.keeps_errno = true,
	.help = "static pointer to the original function",
	.function = function,
};
