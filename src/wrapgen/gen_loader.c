/* loader: resolve the original lazily, on the first call. */
#include "wrapgen/gen.h"

static void unit(struct wg_inst *inst, const struct wg_unit *u, const struct wg_fn *fns,
		 size_t nfns, struct sibyl_strbuf *out)
{
	(void)inst;
	(void)fns;
	(void)nfns;
	/* RTLD_NEXT needs _GNU_SOURCE, which would change what the user's
	 * headers (already included) declare; glibc's value is ABI. */
	sibyl_strbuf_printf(&out[WG_HEADER],
			    "#include <dlfcn.h>\n#ifndef RTLD_NEXT\n#define RTLD_NEXT ((void *)-1l)\n#endif\n"
			    "static const char sibyl_library[] = \"%s\";\n"
			    "/* dlsym(RTLD_NEXT) must be called from this library, not the runtime. */\n"
			    "SIBYL_RT_NEXT_FUNCTION(sibyl_next)\n",
			    u->library_path);
}

static void function(struct wg_inst *inst, const struct wg_unit *u, const struct wg_fn *fn,
		     struct sibyl_strbuf *out)
{
	(void)inst;
	(void)u;
	/* Lazily, not in a constructor: the application may call in before
	 * our constructor ran (from another library's constructor).  Two
	 * threads racing here store the same value. */
	sibyl_strbuf_printf(&out[WG_PREFIX],
			    "\tif (__builtin_expect(!sibyl_real, 0))\n"
			    "\t\tsibyl_real = (__typeof__(sibyl_real))sibyl_rt_resolve(\"%s\", sibyl_library, sibyl_next);\n",
			    fn->target->name);
}

const struct wg_generator wg_gen_loader = {
	.name = "loader",
	.keeps_errno = true,
	.requires = "funcptr",
	.help = "resolve the original lazily (dlsym RTLD_NEXT, then the library itself)",
	.unit = unit,
	.function = function,
};
