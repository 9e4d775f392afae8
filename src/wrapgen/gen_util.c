#include "wrapgen/gen.h"

#include <string.h>

const char *wg_param(const struct wg_inst *inst, const char *key)
{
	for (size_t i = 0; i < inst->nparams; i++)
		if (!strcmp(inst->params[i].key, key))
			return inst->params[i].value;
	return NULL;
}

void wg_call_expr(const struct wg_fn *fn, struct sibyl_strbuf *b)
{
	if (fn->redirected)
		sibyl_strbuf_printf(b, "(sibyl_use_alt ? sibyl_alt : sibyl_real)(%s)", fn->args);
	else
		sibyl_strbuf_printf(b, "sibyl_real(%s)", fn->args);
}

const char *wg_assign(const struct wg_fn *fn)
{
	return fn->is_void ? "" : "sibyl_result = ";
}

void wg_c_string(struct sibyl_strbuf *b, const char *s)
{
	sibyl_strbuf_puts(b, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			sibyl_strbuf_printf(b, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			sibyl_strbuf_printf(b, "\\%03o", c);
		else
			sibyl_strbuf_add(b, s, 1);
	}
	sibyl_strbuf_puts(b, "\"");
}
