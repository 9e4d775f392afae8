/*
 * worksize.full: the paper's buffer inspection (IV.C.2).  Before the
 * call the region tracker compares what the pointer arguments reach with
 * what the library saw there last (changed bytes: input); after it, again
 * (bytes the call changed: output; both: in-out).  Outside `time`, so the
 * inspection is not part of the call's duration.  Where the sizes go is
 * as for worksize.fast (gen_worksize_args.c).
 */
#include "wrapgen/gen.h"

static void unit(struct wg_inst *inst, const struct wg_unit *u, const struct wg_fn *fns,
		 size_t nfns, struct sibyl_strbuf *out)
{
	(void)inst;
	(void)u;
	(void)fns;
	(void)nfns;
	/* Weak, as for worksize.fast: without the tracker, no sizes. */
	sibyl_strbuf_puts(&out[WG_HEADER], "#pragma weak sibyl_regions_full_enter\n"
			  "#pragma weak sibyl_regions_full_exit\n");
	wg_ws_wanted(out);
}

static void function(struct wg_inst *inst, const struct wg_unit *u, const struct wg_fn *fn,
		     struct sibyl_strbuf *out)
{
	unsigned n = wg_ws_pointer_count(fn);

	(void)inst;
	(void)u;
	sibyl_strbuf_puts(&out[WG_LOCALS], "\tstruct sibyl_rt_ws_sizes sibyl_wsf_sizes = { 0 };\n"
			  "\tint sibyl_wsf_known = 1;\n");
	if (n) {
		sibyl_strbuf_puts(&out[WG_LOCALS], "\tstruct sibyl_rt_ws_full sibyl_wsf;\n");
		sibyl_strbuf_puts(&out[WG_PREFIX], "\t{\n");
		wg_ws_args(fn, &out[WG_PREFIX]);
		sibyl_strbuf_printf(&out[WG_PREFIX], "\t\tsibyl_wsf_known = sibyl_regions_full_enter &&\n"
				    "\t\t\tsibyl_regions_full_enter(sibyl_t, sibyl_ws_args, %u,\n"
				    "\t\t\t(char *)__builtin_frame_address(0) + 2 * sizeof(void *),\n"
				    "\t\t\t__builtin_return_address(0), &sibyl_wsf);\n\t}\n", n);
		sibyl_strbuf_puts(&out[WG_POSTFIX], "\tif (sibyl_wsf_known)\n"
				  "\t\tsibyl_wsf_known = sibyl_regions_full_exit(sibyl_t, &sibyl_wsf, "
				  "&sibyl_wsf_sizes);\n");
	}
	wg_ws_by_value(fn, "sibyl_wsf_sizes.in_bytes", &out[WG_POSTFIX]);
	wg_ws_result(fn, "sibyl_wsf_known", "sibyl_wsf_sizes", "SIBYL_WS_FULL", out);
	/* Last: the earlier call's records are long written (worksize_carry.c). */
	if (n)
		sibyl_strbuf_puts(&out[WG_RETURN], "\tif (sibyl_wsf_known && sibyl_wsf.carry)\n"
				  "\t\tsibyl_rt_emit_ws_carry(sibyl_t, SIBYL_WS_FULL, &sibyl_wsf);\n");
}

const struct wg_generator wg_gen_worksize_full = {
	.name = "worksize.full",
	.requires = "trace",
	.before = "time,redirect,worksize.manual",
	.keeps_errno = true,
	.help = "input/output/in-out bytes: what changed in the buffers the arguments reach",
	.unit = unit,
	.function = function,
};
