/*
 * worksize.fast: the paper's pointer tracking (IV.C.1) without any
 * expression to write.  Before the call, the wrapper hands its pointer
 * arguments to the region tracker (libsibyl-regions.so), flagged from the header's
 * types (pointee const: input; pointer to pointers: follow the array);
 * arguments passed by value add their sizeof to the input.  The sizes go
 * into the call record, unless a manual expression gives this function's
 * sizes: then into a worksize record after it (docs/worksize.md), so
 * `sibyl report --worksize-check` can compare the two.
 */
#include "wrapgen/gen.h"

#include <stdbool.h>
#include <string.h>

/* Does the spelling s[0, n) carry the qualifier const at its top level?
 * "const int" and "int const" do; "const int *" does not (its pointee
 * does), "const int *const" does. */
static bool top_level_const(const char *s, size_t n)
{
	const char *star = NULL;

	for (size_t i = 0; i < n; i++)
		if (s[i] == '*')
			star = s + i;
	const char *from = star ? star + 1 : s;

	for (const char *c = from; c + 5 <= s + n; c++)
		if (!strncmp(c, "const", 5) && (c == s || c[-1] == ' ' || c[-1] == '*') &&
		    (c + 5 == s + n || c[5] == ' '))
			return true;
	return false;
}

/* The SIBYL_WS_* flags of a parameter of canonical type `canon`, or -1
 * when it is not a data pointer (passed by value, or a function). */
static int pointer_flags(const char *canon)
{
	const char *star = strrchr(canon, '*');

	if (!star || strchr(canon, '(') || strchr(canon, '['))
		return -1;
	size_t n = (size_t)(star - canon);
	int flags = top_level_const(canon, n) ? 1 : 0;	/* SIBYL_WS_CONST */

	if (memchr(canon, '*', n))
		flags |= 2;	/* SIBYL_WS_ARRAY */
	return flags;
}

static bool is_function(const char *canon)
{
	return strchr(canon, '(') != NULL;
}

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
	sibyl_strbuf_puts(&out[WG_FOOTER],
			  "__attribute__((visibility(\"default\"))) const unsigned sibyl_worksize_wanted = 1;\n");
}

/* The call to the tracker, with one entry per pointer argument. */
static void ask_runtime(const struct wg_fn *fn, struct sibyl_strbuf *b)
{
	const struct wg_proto *p = fn->proto;
	unsigned n = 0;

	sibyl_strbuf_puts(b, "\t{\n\t\tconst struct sibyl_rt_ws_arg sibyl_ws_args[] = {\n");
	for (size_t i = 0; i < p->nparams; i++) {
		int flags = pointer_flags(p->params[i].canon);

		if (flags < 0)
			continue;
		sibyl_strbuf_printf(b, "\t\t\t{ (const void *)%s, %d },\n", p->params[i].name, flags);
		n++;
	}
	/* The wrapper's CFA: above its saved frame pointer and return address. */
	sibyl_strbuf_printf(b, "\t\t};\n\t\tsibyl_ws_known = sibyl_regions_worksize &&\n"
			    "\t\t\tsibyl_regions_worksize(sibyl_t, sibyl_ws_args, %u,\n"
			    "\t\t\t(char *)__builtin_frame_address(0) + 2 * sizeof(void *),\n"
			    "\t\t\t__builtin_return_address(0), &sibyl_ws);\n\t}\n", n);
}

static void function(struct wg_inst *inst, const struct wg_unit *u, const struct wg_fn *fn,
		     struct sibyl_strbuf *out)
{
	const struct wg_proto *p = fn->proto;
	bool any_pointer = false;

	(void)inst;
	(void)u;
	sibyl_strbuf_puts(&out[WG_LOCALS], "\tstruct sibyl_rt_ws_sizes sibyl_ws = { 0 };\n"
			  "\tint sibyl_ws_known = 1;\n");
	for (size_t i = 0; i < p->nparams; i++)
		any_pointer |= pointer_flags(p->params[i].canon) >= 0;
	if (any_pointer)
		ask_runtime(fn, &out[WG_PREFIX]);
	/* Arguments passed by value are input (a va_list is not data). */
	for (size_t i = 0; i < p->nparams; i++)
		if (pointer_flags(p->params[i].canon) < 0 && !is_function(p->params[i].canon) &&
		    !(p->ends_in_va_list && i + 1 == p->nparams))
			sibyl_strbuf_printf(&out[WG_PREFIX], "\tsibyl_ws.in_bytes += sizeof(%s);\n",
					    p->params[i].name);
	/* The sizes go into the call record, which trace emits in its
	 * postfix; beside a manual expression's, into a record of their own
	 * after it. */
	if (!fn->manual_sizes)
		sibyl_strbuf_puts(&out[WG_POSTFIX], "\tif (sibyl_ws_known) {\n"
				  "\t\tinput_size = sibyl_ws.in_bytes;\n"
				  "\t\toutput_size = sibyl_ws.out_bytes;\n"
				  "\t\tsibyl_size_method = SIBYL_WS_FAST;\n\t}\n");
	else
		sibyl_strbuf_printf(&out[WG_RETURN],
				    "\tif (sibyl_ws_known)\n\t\tsibyl_rt_emit_worksize(sibyl_t, %s, sibyl_t0, "
				    "SIBYL_WS_FAST, SIBYL_WS_MANUAL, &sibyl_ws);\n",
				    fn->fid);
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
