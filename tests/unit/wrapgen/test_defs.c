#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "wrapgen/defs.h"

/* The error line of the last call that failed. */
static char err[512];

static void parses_both_forms(void **state)
{
	(void)state;
	struct wg_defs d = { 0 };
	const char *text =
		"// comment { not a body\n"
		"libblas*::*gemm_::postfix {\n"
		"  output_size = *m * *n; /* } */ const char *s = \"}{\"; char c = '}';\n"
		"  if (1) { work = 1; }\n"
		"}\n"
		"/* block\n comment */\n"
		"libjpeg*:jpeg_read_*:prefix { input_size = 1; }\n";

	assert_int_equal(wg_defs_parse(text, "t.defs", &d, err, sizeof(err)), 0);
	assert_int_equal(d.n, 2);
	assert_string_equal(d.v[0].lib_glob, "libblas*");
	assert_string_equal(d.v[0].fn_glob, "*gemm_");
	assert_int_equal(d.v[0].loc, WG_DEFS_POSTFIX);
	assert_int_equal(d.v[0].line, 2);
	assert_non_null(strstr(d.v[0].code, "work = 1; }"));
	assert_non_null(strstr(d.v[0].code, "'}'"));
	assert_string_equal(d.v[1].fn_glob, "jpeg_read_*");
	assert_int_equal(d.v[1].loc, WG_DEFS_PREFIX);
	assert_int_equal(d.v[1].line, 8);
	assert_string_equal(d.v[1].code, " input_size = 1; ");
	wg_defs_free(&d);
}

static void matches_soname_file_and_function(void **state)
{
	(void)state;
	struct wg_defs d = { 0 };

	assert_int_equal(wg_defs_parse("libblas.so*::dgemm_::prefix {}", "t", &d, err, sizeof(err)), 0);
	assert_true(wg_def_matches(&d.v[0], "libblas.so.3", "/usr/lib/x/libblas.so.3.11.0", "dgemm_"));
	assert_true(wg_def_matches(&d.v[0], NULL, "/usr/lib/x/libblas.so.3", "dgemm_"));
	assert_false(wg_def_matches(&d.v[0], "libblas.so.3", "/x/libblas.so.3", "sgemm_"));
	assert_false(wg_def_matches(&d.v[0], "libcblas.so.3", "/x/libcblas.so.3", "dgemm_"));
	wg_defs_free(&d);
}

static void loads_fixture(void **state)
{
	(void)state;
	struct wg_defs d = { 0 };

	assert_int_equal(wg_defs_load(FIXTURE_DIR "/blas.defs", &d, err, sizeof(err)), 0);
	assert_int_equal(d.n, 2);
	assert_string_equal(d.v[0].fn_glob, "cblas_dgemm");
	assert_string_equal(d.v[1].lib_glob, "libblas*");
	assert_string_equal(d.v[1].fn_glob, "*gemm_");
	wg_defs_free(&d);
}

/* Each malformed input fails with "file:line: error" and leaks nothing. */
static void rejects_malformed(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"lib::fn::middle { x; }",		/* bad location */
		"lib::fn { x; }",			/* two parts */
		"lib::fn::prefix::x { }",		/* four parts */
		"lib::::prefix { }",			/* empty function */
		"lib::fn::prefix { x; ",		/* unclosed body */
		"lib::fn::prefix { \"x; }",		/* unterminated string */
		"lib::fn::prefix x; }",			/* no brace */
		"{ x; }",				/* no header */
		"lib::fn::prefix { } /* open",		/* unterminated comment */
		"lib::fn::postfix",			/* header at EOF */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct wg_defs d = { 0 };

		assert_int_equal(wg_defs_parse(bad[i], "bad.defs", &d, err, sizeof(err)), -1);
		wg_defs_free(&d);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parses_both_forms),
		cmocka_unit_test(matches_soname_file_and_function),
		cmocka_unit_test(loads_fixture),
		cmocka_unit_test(rejects_malformed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
