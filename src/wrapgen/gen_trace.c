/* trace: one call record per wrapped call, with the nesting depth. */
#include "wrapgen/gen.h"

static void unit(struct wg_inst *inst, const struct wg_unit *u, const struct wg_fn *fns,
		 size_t nfns, struct sibyl_strbuf *out)
{
	struct sibyl_strbuf *f = &out[WG_FOOTER];

	(void)inst;
	if (!nfns)
		return;
	sibyl_strbuf_puts(f, "static const char *const sibyl_names[] = {\n");
	for (size_t i = 0; i < nfns; i++)
		sibyl_strbuf_printf(f, "\t\"%s\",\n", fns[i].proto->name);
	sibyl_strbuf_puts(f, "};\nstatic const uint32_t sibyl_ids[] = {\n");
	for (size_t i = 0; i < nfns; i++)
		sibyl_strbuf_printf(f, "\t%s,\n", fns[i].fid);
	/* Registered at load time so that the trace names every id, even
	 * for functions that are never called. */
	sibyl_strbuf_printf(f, "};\n\n__attribute__((constructor)) static void sibyl_register(void)\n{\n"
			    "\tsibyl_rt_register(\"%s\", sibyl_names, sibyl_ids, %zu);\n}\n",
			    u->soname, nfns);
}

static void function(struct wg_inst *inst, const struct wg_unit *u, const struct wg_fn *fn,
		     struct sibyl_strbuf *out)
{
	(void)inst;
	(void)u;
	sibyl_strbuf_puts(&out[WG_LOCALS],
			  "\tstruct sibyl_rt_thread *sibyl_t = sibyl_rt_self();\n"
			  "\tuint64_t sibyl_t0 = 0, sibyl_t1 = 0;\n"
			  "\tuint32_t sibyl_d;\n"
			  "\tuint64_t input_size = 0, output_size = 0;\n"
			  "\tuint64_t sibyl_inout_size = 0;\n"
			  "\tunsigned sibyl_size_method = 0;\n"
			  "\tdouble work = 0;\n");
	/* The runtime's own calls (e.g. a library it uses), and a signal
	 * handler's calls while a record is being stored, are not traced:
	 * call straight through, skipping every other generator's code. */
	sibyl_strbuf_printf(&out[WG_PREFIX],
			    "\tif (__builtin_expect(sibyl_rt_busy(sibyl_t) != 0, 0)) {\n"
			    "\t\tsibyl_rt_bypass(sibyl_t);\n"
			    "\t\t%s", wg_assign(fn));
	wg_call_expr(fn, &out[WG_PREFIX]);
	sibyl_strbuf_puts(&out[WG_PREFIX], fn->save_errno ? ";\n\t\tsibyl_errno = errno;\n" : ";\n");
	/* The call's frame (wrap_rt.h): a call left by longjmp or an
	 * exception is recorded when the next one starts or this one ends. */
	sibyl_strbuf_printf(&out[WG_PREFIX], "\t\tgoto sibyl_return;\n\t}\n"
			    "\tsibyl_d = sibyl_rt_enter(sibyl_t, %s, sibyl_rt_sp(), "
			    "(uintptr_t)__builtin_dwarf_cfa());\n", fn->fid);
	/* The record's depth counts the wrapped calls outside this one. */
	sibyl_strbuf_printf(&out[WG_POSTFIX],
			    "\tsibyl_rt_leave(sibyl_t, sibyl_d);\n"
			    "\tsibyl_rt_emit_returned(sibyl_t, %s, sibyl_t0, sibyl_t1,"
			    " input_size, output_size, sibyl_inout_size, sibyl_size_method, work,"
			    " sibyl_d);\n",
			    fn->fid);
}

const struct wg_generator wg_gen_trace = {
	.name = "trace",
	.keeps_errno = true,
	.requires = "caller",
	.help = "record each call (id, depth, times, input/output size, work)",
	.unit = unit,
	.function = function,
};
