#define _GNU_SOURCE
#include "wrapgen/build.h"
#include "core/alloc.h"
#include "core/strbuf.h"
#include "core/fs.h"
#include "core/log.h"
#include "core/output.h"
#include "core/run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void wg_runtime_dirs(char **include_dir, char **lib_dir)
{
	char *self = sibyl_self_dir();

	*include_dir = *lib_dir = NULL;
	if (self) {
		char *inc = sibyl_path_join(self, "../include");
		char *hdr = sibyl_path_join(inc, "sibyl/wrap_rt.h");

		if (access(hdr, R_OK) == 0) {
			*include_dir = inc;
			*lib_dir = sibyl_path_join(self, "../lib");
		} else {
			free(inc);
		}
		free(hdr);
		free(self);
	}
	if (!*include_dir) {
		*include_dir = sibyl_xstrdup(SIBYL_BUILD_INCLUDE_DIR);
		*lib_dir = sibyl_xstrdup(SIBYL_BUILD_LIB_DIR);
	}
}

struct argv {
	char **v;
	size_t n;
};

static void push(struct argv *a, char *s)
{
	a->v = sibyl_xreallocarray(a->v, a->n + 2, sizeof(*a->v));
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

static void pushf(struct argv *a, const char *fmt, const char *s)
{
	char *p;

	p = sibyl_xasprintf(fmt, s);
	push(a, p);
}

/* $CC may be "ccache gcc": split on blanks. */
static void push_cc(struct argv *a)
{
	const char *cc = getenv("CC");

	if (!cc || !*cc)
		cc = "cc";
	for (const char *p = cc; *p;) {
		size_t n = strcspn(p, " \t");

		if (n)
			push(a, sibyl_xstrndup(p, n));
		p += n;
		p += strspn(p, " \t");
	}
}

static void compose(const struct wg_build_opts *o, const char *tmp_out, struct argv *a)
{
	char *inc, *lib;

	wg_runtime_dirs(&inc, &lib);
	push_cc(a);
	/* The wrapper is never linked against the wrapped library: it must
	 * find the original at run time (RTLD_NEXT), wherever it is. */
	static const char *const fixed[] = { "-std=gnu11", "-shared", "-fPIC", "-O2",
		"-fvisibility=hidden", "-Wno-deprecated-declarations", "-o" };
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		push(a, sibyl_xstrdup(fixed[i]));
	push(a, sibyl_xstrdup(tmp_out));
	push(a, sibyl_xstrdup(o->source_path));
	pushf(a, "-I%s", inc);
	for (size_t i = 0; i < o->incdirs->count; i++)
		push(a, sibyl_xstrdup(o->incdirs->items[i]));
	for (size_t i = 0; i < o->defines->count; i++)
		push(a, sibyl_xstrdup(o->defines->items[i]));
	pushf(a, "-L%s", lib);
	push(a, sibyl_xstrdup("-lsibyl-rt"));
	push(a, sibyl_xstrdup("-ldl"));
	pushf(a, "-Wl,-rpath,%s", lib);
	free(inc);
	free(lib);
}

/* The compiler's messages are passed on as they are, and kept for the
 * caller, which may explain the ones about definition files. */
static int run(char **argv, bool verbose, char **diagnostics, char *err, size_t errlen)
{
	struct sibyl_run_spec spec = { .argv = argv };
	struct sibyl_run_status st;
	char why[128], *said = NULL;
	size_t len = 0;

	if (verbose) {
		struct sibyl_strbuf b = { 0 };

		for (size_t i = 0; argv[i]; i++)
			sibyl_strbuf_printf(&b, "%s%s", i ? " " : "", argv[i]);
		sibyl_info("wrap: %s", sibyl_strbuf_str(&b));
		sibyl_strbuf_free(&b);
	}
	sibyl_run_capture(&spec, STDERR_FILENO, (size_t)1 << 20, &said, &len, &st);
	for (const char *p = said; *p;) {	/* one notice a line: they are short */
		size_t n = strcspn(p, "\n");

		sibyl_notice(SIBYL_NOTICE_DIAG, "%.*s", (int)n, p);
		p += n + (p[n] == '\n');
	}
	if (diagnostics)
		*diagnostics = said;
	else
		free(said);
	if (st.outcome == SIBYL_RUN_NOT_STARTED)
		return sibyl_seterr(err, errlen, "wrap: cannot run %s: %s", argv[0],
				    strerror(st.code));
	if (st.outcome != SIBYL_RUN_OK)
		return sibyl_seterr(err, errlen, "wrap: %s: compiling the wrapper failed (%s)",
				    argv[0], sibyl_run_describe(&st, why, sizeof(why)));
	return 0;
}

int wg_build(const struct wg_build_opts *o, char *err, size_t errlen)
{
	struct argv a = { 0 };
	struct sibyl_output out;
	int rc;

	if (sibyl_output_open(&out, o->output, 0777) < 0)
		return sibyl_seterr(err, errlen, "wrap: %s: %s", o->output, strerror(errno));
	close(out.fd);	/* the compiler writes the temporary by name */
	out.fd = -1;
	compose(o, out.tmp, &a);
	rc = run(a.v, o->verbose, o->diagnostics, err, errlen);
	if (rc)
		sibyl_output_discard(&out);
	else if (sibyl_output_commit(&out) < 0)
		rc = sibyl_seterr(err, errlen, "wrap: %s: %s", o->output, strerror(errno));
	for (size_t i = 0; i < a.n; i++)
		free(a.v[i]);
	free(a.v);
	return rc;
}
