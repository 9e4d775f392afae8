/*
 * worksize.fast: the paper's pointer tracking (IV.C.1) without any
 * expression to write.  Before the call, the wrapper hands its pointer
 * arguments to the region tracker (libsibyl-regions.so), flagged from the
 * header's types (gen_worksize_args.c); arguments passed by value add
 * their sizeof to the input.  The sizes go into the call record, unless
 * a manual expression gives this function's sizes: then into a worksize
 * record after it (docs/worksize.md), so `sibyl report --worksize-check`
 * can compare the two.
 */
#include "wrapgen/gen.h"

static void unit(struct wg_inst *inst, const struct wg_unit *u, const struct wg_fn *fns,
		 size_t nfns, struct sibyl_strbuf *out)
{
	(void)inst;
	(void)u;
	(void)fns;
	(void)nfns;
	/* Tells `sibyl trace` to preload the region tracker (wrap_rt.h).
	 * Weak: preloaded by hand without it, the tracker is NULL and the
	 * calls go through without automatic sizes. */
	sibyl_strbuf_puts(&out[WG_HEADER], "#pragma weak sibyl_regions_worksize\n");
	wg_ws_wanted(out);
}

static void function(struct wg_inst *inst, const struct wg_unit *u, const struct wg_fn *fn,
		     struct sibyl_strbuf *out)
{
	unsigned n = wg_ws_pointer_count(fn);

	(void)inst;
	(void)u;
	sibyl_strbuf_puts(&out[WG_LOCALS], "\tstruct sibyl_rt_ws_sizes sibyl_ws = { 0 };\n"
			  "\tint sibyl_ws_known = 1;\n");
	if (n) {
		sibyl_strbuf_puts(&out[WG_PREFIX], "\t{\n");
		wg_ws_args(fn, &out[WG_PREFIX]);
		/* The wrapper's CFA: above its saved frame pointer and return address. */
		sibyl_strbuf_printf(&out[WG_PREFIX], "\t\tsibyl_ws_known = sibyl_regions_worksize &&\n"
				    "\t\t\tsibyl_regions_worksize(sibyl_t, sibyl_ws_args, %u,\n"
				    "\t\t\t(char *)__builtin_frame_address(0) + 2 * sizeof(void *),\n"
				    "\t\t\t__builtin_return_address(0), &sibyl_ws);\n\t}\n", n);
	}
	wg_ws_by_value(fn, "sibyl_ws.in_bytes", &out[WG_PREFIX]);
	wg_ws_result(fn, "sibyl_ws_known", "sibyl_ws", "SIBYL_WS_FAST", out);
}

const struct wg_generator wg_gen_worksize_fast = {
	.name = "worksize.fast",
	.requires = "trace",
	.before = "time,redirect,worksize.manual",
	.keeps_errno = true,
	.help = "input/output bytes from the regions the pointer arguments point into",
	.unit = unit,
	.function = function,
};
