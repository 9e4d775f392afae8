/*
 * What worksize.fast and worksize.full share: the pointer arguments'
 * flags from the header's types (pointee const: input; pointer to
 * pointers: follow the array), the arguments passed by value (their
 * sizeof is input), and where the sizes go (the call record, unless a
 * manual expression or another method has it: a worksize record then).
 */
#include "wrapgen/gen.h"

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

/* Tells `sibyl trace` to preload the region tracker (wrap_rt.h). */
void wg_ws_wanted(struct sibyl_strbuf *out)
{
	/* Once, whichever worksize generators the library has. */
	sibyl_strbuf_puts(&out[WG_FOOTER], "#ifndef SIBYL_WS_WANTED_DEFINED\n"
			  "#define SIBYL_WS_WANTED_DEFINED\n"
			  "__attribute__((visibility(\"default\"))) const unsigned sibyl_worksize_wanted = 1;\n"
			  "#endif\n");
}

unsigned wg_ws_pointer_count(const struct wg_fn *fn)
{
	unsigned n = 0;

	for (size_t i = 0; i < fn->proto->nparams; i++)
		n += pointer_flags(fn->proto->params[i].canon) >= 0;
	return n;
}

void wg_ws_args(const struct wg_fn *fn, struct sibyl_strbuf *b)
{
	const struct wg_proto *p = fn->proto;

	sibyl_strbuf_puts(b, "\t\tconst struct sibyl_rt_ws_arg sibyl_ws_args[] = {\n");
	for (size_t i = 0; i < p->nparams; i++) {
		int flags = pointer_flags(p->params[i].canon);

		/* A struct is one object, not an array: its size bounds it. */
		if (flags >= 0)
			sibyl_strbuf_printf(b, "\t\t\t{ (const void *)%s, %d, %lld },\n",
					    p->params[i].name, flags,
					    p->params[i].record_size < (1ll << 31) ? p->params[i].record_size : 0);
	}
	sibyl_strbuf_puts(b, "\t\t};\n");
}

void wg_ws_by_value(const struct wg_fn *fn, const char *in_bytes, struct sibyl_strbuf *b)
{
	const struct wg_proto *p = fn->proto;

	/* A function pointer and a va_list are not data. */
	for (size_t i = 0; i < p->nparams; i++)
		if (pointer_flags(p->params[i].canon) < 0 && !strchr(p->params[i].canon, '(') &&
		    !(p->ends_in_va_list && i + 1 == p->nparams))
			sibyl_strbuf_printf(b, "\t%s += sizeof(%s);\n", in_bytes, p->params[i].name);
}

/*
 * The sizes in `sizes` (a struct sibyl_rt_ws_sizes), valid when `known`:
 * into the call record, which trace emits in its postfix, when no manual
 * expression and no other method's sizes are there; else into a worksize
 * record after it.
 */
void wg_ws_result(const struct wg_fn *fn, const char *known, const char *sizes,
		  const char *method, struct sibyl_strbuf *out)
{
	if (!fn->manual_sizes)
		sibyl_strbuf_printf(&out[WG_POSTFIX], "\tif (%s && !sibyl_size_method) {\n"
				    "\t\tinput_size = %s.in_bytes;\n"
				    "\t\toutput_size = %s.out_bytes;\n"
				    "\t\tsibyl_inout_size = %s.inout_bytes;\n"
				    "\t\tsibyl_size_method = %s;\n\t}\n",
				    known, sizes, sizes, sizes, method);
	sibyl_strbuf_printf(&out[WG_RETURN],
			    "\tif (%s && sibyl_size_method != %s)\n\t\tsibyl_rt_emit_worksize(sibyl_t, %s, "
			    "sibyl_t0, %s, %s, &%s);\n",
			    known, method, fn->fid, method, fn->manual_sizes ? "SIBYL_WS_MANUAL" : "0",
			    sizes);
}
