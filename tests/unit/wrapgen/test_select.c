/* Glob matching and symbol selection. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "wrapgen/select.h"

static void globs(void **state)
{
	(void)state;
	struct sibyl_strlist none = { 0 }, l = { 0 }, neg = { 0 };

	assert_true(wg_names_match(&none, "anything"));
	assert_true(wg_names_match(NULL, "anything"));
	sibyl_strlist_add(&l, "cblas_*");
	sibyl_strlist_add(&l, "*gemm_");
	assert_true(wg_names_match(&l, "cblas_dgemm"));
	assert_true(wg_names_match(&l, "dgemm_"));
	assert_false(wg_names_match(&l, "ddot_"));
	sibyl_strlist_add(&l, "!cblas_s*");
	assert_false(wg_names_match(&l, "cblas_sgemm"));
	/* Only negative patterns: everything else matches. */
	sibyl_strlist_add(&neg, "!*_");
	assert_true(wg_names_match(&neg, "cblas_dgemm"));
	assert_false(wg_names_match(&neg, "dgemm_"));
	sibyl_strlist_free(&l);
	sibyl_strlist_free(&neg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(globs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
