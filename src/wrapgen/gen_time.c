/* time: TSC timestamps around the call, innermost of all generators. */
#include "wrapgen/gen.h"

static void function(struct wg_inst *inst, const struct wg_unit *u, const struct wg_fn *fn,
		     struct sibyl_strbuf *out)
{
	(void)inst;
	(void)u;
	(void)fn;
	/* Also the start of the call's frame, should the call be left. */
	sibyl_strbuf_puts(&out[WG_PREFIX], "\tsibyl_t0 = sibyl_rt_clock();\n"
			  "\tsibyl_rt_started(sibyl_t, sibyl_d, sibyl_t0);\n");
	sibyl_strbuf_puts(&out[WG_POSTFIX], "\tsibyl_t1 = sibyl_rt_clock();\n");
}

const struct wg_generator wg_gen_time = {
	.name = "time",
	.keeps_errno = true,
	.requires = "trace",
	.help = "time stamp counter before and after the call",
	.function = function,
};
