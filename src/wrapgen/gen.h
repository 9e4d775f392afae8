/*
 * Micro-generators (paper IV.B): each one inserts a few lines at named
 * places of every wrapper.  They are composed, not prioritised: a
 * generator names the generators it requires (pulled in automatically)
 * and, optionally, the ones it must run outside of ("before"); the plan
 * is a topological sort.  Prefix code runs in plan order, postfix and
 * return code in reverse, so the last generator is the innermost (time).
 */
#ifndef SIBYL_WRAPGEN_GEN_H
#define SIBYL_WRAPGEN_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wrapgen/defs.h"
#include "wrapgen/headers.h"
#include "core/strbuf.h"

enum wg_place {
	WG_HEADER,	/* file scope, once, after the includes */
	WG_DECLS,	/* file scope, before each wrapper */
	WG_LOCALS,	/* top of the wrapper body: declarations only */
	WG_PREFIX,	/* before the call, plan order */
	WG_CALL,	/* the call itself */
	WG_POSTFIX,	/* after the call, reverse plan order */
	WG_RETURN,	/* just before returning, reverse plan order */
	WG_FOOTER,	/* file scope, once, at the end */
	WG_NPLACES
};

/* Everything a generator may look at for one library. */
struct wg_unit {
	const char *library_path;
	const char *soname;
	const struct wg_defs *defs;
};

/* One wrapper being generated. */
struct wg_fn {
	const struct wg_proto *proto;	/* the wrapped function */
	const struct wg_proto *target;	/* what is called: proto, or its va_list twin */
	const char *args;		/* "n, dx, incx" (twin: "..., sibyl_ap") */
	const char *fid;		/* "SIBYL_FID_ddot_" */
	uint32_t id;
	bool is_void;
	const char *last_fixed;		/* last named parameter, for va_start */
	bool save_errno;		/* some generator's code may change errno */
	bool redirected;		/* a redirect generator is in the plan */
	bool manual_sizes;		/* some generator's code sets input/output_size */
};

struct wg_kv {
	char *key;
	char *value;
};

struct wg_inst;

struct wg_generator {
	const char *name;
	const char *requires;	/* comma-separated generator names */
	const char *before;	/* comma-separated: run outside these if present */
	const char *help;
	const char *const *keys;	/* accepted parameter names, NULL-terminated */
	bool any_keys;			/* templates: whatever ${param:KEY} they use */
	/* Its code never changes errno (it calls only runtime entry points,
	 * which preserve it): if every generator says so, the wrapper need
	 * not save and restore errno around its own work. */
	bool keeps_errno;
	/* It may call an alternative instead of the original (redirect):
	 * the call expression then picks one by sibyl_use_alt. */
	bool redirects;
	/* Validate parameters, set inst->data; 0, or -1 with the error
	 * line in err. */
	int (*setup)(struct wg_inst *inst, const struct wg_unit *u, char *err, size_t errlen);
	/* Once per library: WG_HEADER and WG_FOOTER of `out`. */
	void (*unit)(struct wg_inst *inst, const struct wg_unit *u,
		     const struct wg_fn *fns, size_t nfns, struct sibyl_strbuf *out);
	/* Once per wrapper: the per-function places of `out`. */
	void (*function)(struct wg_inst *inst, const struct wg_unit *u,
			 const struct wg_fn *fn, struct sibyl_strbuf *out);
	void (*cleanup)(struct wg_inst *inst);
	/* Its code sets input_size/output_size of this function (so an
	 * automatic estimate must not overwrite them). */
	bool (*sets_sizes)(const struct wg_unit *u, const struct wg_proto *proto);
};

struct wg_inst {
	const struct wg_generator *gen;
	struct wg_kv *params;
	size_t nparams;
	void *data;		/* generator-private (templates keep their sections here) */
};

/* Parameter value, or NULL. */
const char *wg_param(const struct wg_inst *inst, const char *key);
/* "sibyl_real(args)", the expression calling the original. */
void wg_call_expr(const struct wg_fn *fn, struct sibyl_strbuf *b);
/* "sibyl_result = " or "" for void functions. */
const char *wg_assign(const struct wg_fn *fn);
/* `s` as a C string literal, quotes included. */
void wg_c_string(struct sibyl_strbuf *b, const char *s);
/* A line of generated code after code from another file (a #line): the
 * emitter replaces it with the generated file's own #line. */
#define WG_LINE_RESUME "#line sibyl-resume"

/* ---- gen_worksize_args.c: what worksize.fast and worksize.full share ---- */
/* Export the symbol that makes `sibyl trace` preload the region tracker. */
void wg_ws_wanted(struct sibyl_strbuf *out);
/* The data pointers among fn's parameters. */
unsigned wg_ws_pointer_count(const struct wg_fn *fn);
/* Declare `sibyl_ws_args`, one struct sibyl_rt_ws_arg per data pointer. */
void wg_ws_args(const struct wg_fn *fn, struct sibyl_strbuf *b);
/* Add the sizeof of each argument passed by value to the lvalue `in_bytes`. */
void wg_ws_by_value(const struct wg_fn *fn, const char *in_bytes, struct sibyl_strbuf *b);
/* Put the sizes `sizes` (valid when `known`) measured by `method` in the
 * call record or, beside manual or other sizes, a worksize record. */
void wg_ws_result(const struct wg_fn *fn, const char *known, const char *sizes,
		  const char *method, struct sibyl_strbuf *out);

extern const struct wg_generator wg_gen_funcptr, wg_gen_loader, wg_gen_caller,
	wg_gen_time, wg_gen_trace, wg_gen_worksize_manual, wg_gen_worksize_fast,
	wg_gen_worksize_full, wg_gen_counters, wg_gen_redirect;

#endif
