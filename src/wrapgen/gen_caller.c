/* caller: call the original, keep its errno, return its result.  errno is
 * saved right after the call only when another generator's code may change
 * it: saving costs a call to __errno_location on the hot path. */
#include "wrapgen/gen.h"

static void function(struct wg_inst *inst, const struct wg_unit *u, const struct wg_fn *fn,
		     struct sibyl_strbuf *out)
{
	(void)inst;
	(void)u;
	if (fn->save_errno)
		sibyl_strbuf_puts(&out[WG_LOCALS], "\tint sibyl_errno;\n");
	if (fn->target != fn->proto) {
		/* Variadic: forward the arguments to the va_list twin. */
		sibyl_strbuf_puts(&out[WG_LOCALS], "\tva_list sibyl_ap;\n");
		sibyl_strbuf_printf(&out[WG_PREFIX], "\tva_start(sibyl_ap, %s);\n", fn->last_fixed);
	}
	sibyl_strbuf_printf(&out[WG_CALL], "\t%s", wg_assign(fn));
	wg_call_expr(fn, &out[WG_CALL]);
	/* Saved at once: postfix code (user definitions too) may clobber it. */
	sibyl_strbuf_puts(&out[WG_CALL], fn->save_errno ? ";\n\tsibyl_errno = errno;\n" : ";\n");
	/* Other generators may jump here to skip their own work. */
	sibyl_strbuf_puts(&out[WG_RETURN], "sibyl_return: __attribute__((unused));\n");
	if (fn->target != fn->proto)
		sibyl_strbuf_puts(&out[WG_RETURN], "\tva_end(sibyl_ap);\n");
	if (fn->save_errno)
		sibyl_strbuf_puts(&out[WG_RETURN], "\terrno = sibyl_errno;\n");
	sibyl_strbuf_printf(&out[WG_RETURN], "\treturn%s;\n", fn->is_void ? "" : " sibyl_result");
}

const struct wg_generator wg_gen_caller = {
	.name = "caller",
	.keeps_errno = true,
	.requires = "loader",
	.help = "call the original, preserve errno, return its result",
	.function = function,
};
