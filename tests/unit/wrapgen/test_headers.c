/* Header parsing on fixture.h, selection, and a compile of the output. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "wrapgen/emit.h"
#include "wrapgen/headers.h"
#include "wrapgen/select.h"
#include "core/output.h"

/* The error line of the last call that failed. */
static char err[512];

static struct wg_protos protos;

static int parse_fixture(void **state)
{
	struct sibyl_strlist h = { 0 }, i = { 0 }, d = { 0 };
	struct wg_header_opts o = { &h, &i, &d };
	int rc;

	(void)state;
	sibyl_strlist_add(&h, FIXTURE_DIR "/fixture.h");
	sibyl_strlist_add(&d, "-DFX_UNUSED=1");
	rc = wg_parse_headers(&o, &protos, err, sizeof(err));
	sibyl_strlist_free(&h);
	sibyl_strlist_free(&d);
	return rc;
}

static int free_fixture(void **state)
{
	(void)state;
	wg_protos_free(&protos);
	return 0;
}

static const struct wg_proto *get(const char *name)
{
	const struct wg_proto *p = wg_protos_find(&protos, name);

	assert_non_null(p);
	return p;
}

static void types_survive(void **state)
{
	(void)state;
	const struct wg_proto *p = get("fx_typedef");

	assert_string_equal(p->ret, "fx_size");
	assert_int_equal(p->nparams, 2);
	assert_string_equal(p->params[1].type, "const fx_ctx *");
	assert_string_equal(p->params[1].name, "ctx");
	assert_true(p->in_user_header);
	p = get("fx_struct");
	assert_string_equal(p->params[0].type, "struct fx_ctx *");
	assert_string_equal(p->params[1].type, "enum fx_mode");
	p = get("fx_funcptr");
	assert_non_null(strchr(p->params[0].type, '('));
	assert_string_equal(p->params[2].type, "fx_cb");
	p = get("fx_signal");
	assert_non_null(strchr(p->ret, '('));
	assert_string_equal(get("fx_void")->ret, "void");
	assert_int_equal(get("fx_void")->nparams, 0);
}

static void unnamed_variadic_knr(void **state)
{
	(void)state;
	const struct wg_proto *p = get("fx_unnamed");

	assert_int_equal(p->nparams, 3);
	assert_string_equal(p->params[0].name, "arg1");
	assert_string_equal(p->params[2].name, "arg3");
	assert_true(get("fx_printf")->variadic);
	assert_true(get("fx_vprintf")->ends_in_va_list);
	assert_true(get("fx_knr")->noproto);
	assert_null(wg_protos_find(&protos, "fx_inline"));	/* static */
}

static void declare(void **state)
{
	(void)state;
	char *a = wg_declare("const int *", "p"), *b = wg_declare("int (*)(void *, int)", "cb");

	assert_string_equal(a, "const int * p");
	assert_string_equal(b, "__typeof__(int (*)(void *, int)) cb");
	free(a);
	free(b);
}

/* A fake export table: every fx_ function but fx_const, plus a variable. */
static void fake_exports(struct wg_symtab *t)
{
	static const char *const names[] = { "fx_array", "fx_data", "fx_funcptr", "fx_knr",
		"fx_log", "fx_printf", "fx_signal", "fx_struct", "fx_typedef", "fx_unnamed",
		"fx_vprintf", "fx_void", "zz_undeclared" };
	size_t n = sizeof(names) / sizeof(names[0]);

	memset(t, 0, sizeof(*t));
	t->v = calloc(n, sizeof(*t->v));
	assert_non_null(t->v);
	for (size_t i = 0; i < n; i++) {
		t->v[i].name = strdup(names[i]);
		t->v[i].kind = strcmp(names[i], "fx_data") ? WG_SYM_FUNC : WG_SYM_DATA;
	}
	t->n = n;
	t->soname = strdup("libfx.so.1");
}

static enum wg_skip_reason reason_of(const struct wg_selection *s, const char *name)
{
	for (size_t i = 0; i < s->nskips; i++)
		if (!strcmp(s->skips[i].name, name))
			return s->skips[i].reason;
	fail_msg("%s was not skipped", name);
	return WG_SKIP_NREASONS;
}

static void select_reasons(void **state)
{
	(void)state;
	struct wg_symtab ex;
	struct wg_selection s;

	fake_exports(&ex);
	wg_select(&ex, NULL, &protos, NULL, &s);
	assert_int_equal(reason_of(&s, "fx_data"), WG_SKIP_DATA);
	assert_int_equal(reason_of(&s, "zz_undeclared"), WG_SKIP_NO_PROTOTYPE);
	assert_int_equal(reason_of(&s, "fx_knr"), WG_SKIP_UNPROTOTYPED);
	assert_int_equal(reason_of(&s, "fx_log"), WG_SKIP_VARIADIC);
	assert_int_equal(reason_of(&s, "fx_const"), WG_SKIP_NOT_EXPORTED);
	assert_int_equal(s.npicks, 9);	/* fx_printf through its va_list twin */
	for (size_t i = 0; i < s.npicks; i++)
		if (!strcmp(s.picks[i].proto->name, "fx_printf"))
			assert_string_equal(s.picks[i].twin->name, "fx_vprintf");
	wg_selection_free(&s);
	wg_symtab_free(&ex);
}

/* The generated source must compile against the same header. */
static void generated_source_compiles(void **state)
{
	(void)state;
	struct wg_symtab ex;
	struct wg_selection s;
	struct wg_plan plan;
	struct sibyl_strlist specs = { 0 }, headers = { 0 };
	struct wg_defs defs = { 0 };
	char path[PATH_MAX], *src, *cmd;
	int fd;

	fake_exports(&ex);
	wg_select(&ex, NULL, &protos, NULL, &s);
	assert_int_equal(wg_defs_parse("libfx*::fx_typedef::postfix { output_size = n; }\n"
				       "libfx.so.1:fx_array:prefix { work = m[1][1]; }",
				       "t.defs", &defs, err, sizeof(err)), 0);
	sibyl_strlist_add(&specs, "time");
	sibyl_strlist_add(&specs, "worksize.manual");
	sibyl_strlist_add(&specs, "counters:events=page-faults");
	sibyl_strlist_add(&headers, FIXTURE_DIR "/fixture.h");
	assert_int_equal(wg_plan_build(&specs, NULL, &plan, err, sizeof(err)), 0);
	struct wg_unit u = { "/nowhere/libfx.so.1", "libfx.so.1", &defs };
	struct wg_emit_opts eo = { &headers, &u, "test", "gen.c" };

	src = wg_emit_source(&eo, &plan, &s, err, sizeof(err));
	assert_non_null(src);
	assert_non_null(strstr(src, "output_size = n;"));
	assert_true(defs.v[0].used && defs.v[1].used);
	snprintf(path, sizeof(path), "%s/sibyl-test-wrap-XXXXXX.c", sibyl_tmpdir());
	fd = mkstemps(path, 2);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, src, strlen(src)), (ssize_t)strlen(src));
	close(fd);
	assert_true(asprintf(&cmd, "cc -std=gnu11 -fsyntax-only -Wall -Wextra -Werror -I%s %s",
			     SIBYL_INCLUDE_DIR, path) > 0);
	assert_int_equal(system(cmd), 0);
	unlink(path);
	free(cmd);
	free(src);
	wg_plan_free(&plan);
	wg_defs_free(&defs);
	sibyl_strlist_free(&specs);
	sibyl_strlist_free(&headers);
	wg_selection_free(&s);
	wg_symtab_free(&ex);
}

/* Source for the fixture's functions with the generators in `csv`. */
static char *source_with(const char *csv)
{
	struct wg_symtab ex;
	struct wg_selection s;
	struct wg_plan plan;
	struct sibyl_strlist specs = { 0 }, headers = { 0 };
	struct wg_defs defs = { 0 };

	fake_exports(&ex);
	wg_select(&ex, NULL, &protos, NULL, &s);
	sibyl_strlist_add_split(&specs, csv);
	sibyl_strlist_add(&headers, FIXTURE_DIR "/fixture.h");
	assert_int_equal(wg_plan_build(&specs, NULL, &plan, err, sizeof(err)), 0);
	struct wg_unit u = { "/nowhere/libfx.so.1", "libfx.so.1", &defs };
	struct wg_emit_opts eo = { &headers, &u, "test", "gen.c" };
	char *src = wg_emit_source(&eo, &plan, &s, err, sizeof(err));

	assert_non_null(src);
	wg_plan_free(&plan);
	sibyl_strlist_free(&specs);
	sibyl_strlist_free(&headers);
	wg_selection_free(&s);
	wg_symtab_free(&ex);
	return src;
}

/* errno is saved around the wrapper's own work only when some generator's
 * code may change it (the runtime's entry points preserve it). */
static void errno_saved_only_when_needed(void **state)
{
	(void)state;
	char *plain = source_with("time"), *user = source_with("time,worksize.manual");

	assert_null(strstr(plain, "sibyl_errno"));
	assert_non_null(strstr(user, "sibyl_errno = errno;"));
	assert_non_null(strstr(user, "errno = sibyl_errno;"));
	free(plain);
	free(user);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(types_survive),
		cmocka_unit_test(unnamed_variadic_knr),
		cmocka_unit_test(declare),
		cmocka_unit_test(select_reasons),
		cmocka_unit_test(generated_source_compiles),
		cmocka_unit_test(errno_saved_only_when_needed),
	};
	return cmocka_run_group_tests(tests, parse_fixture, free_fixture);
}
