/* A kernel's calibration on its profile (the least time above the
 * launch, at the largest profiled size) and R^2 size by size (the least
 * of a size's samples): a launch slowed by other work, or times of the
 * small sizes made of launch, must not move either. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "kmodel/timemodel.h"

#include <math.h>

static void test_scale_at_largest(void **state)
{
	(void)state;
	/* Estimates p = b + 1e-9 g; the kernel runs twice that above the
	 * launch b, but its smallest size took 10x (a cold start). */
	const double b = 5e-6, g[6] = { 1024, 1024, 2048, 2048, 4096, 4096 };
	double p[6], t[6];

	for (int i = 0; i < 6; i++) {
		p[i] = b + 1e-9 * g[i];
		t[i] = b + 2e-9 * g[i] * (i < 2 ? 10 : 1) * (i == 5 ? 1.3 : 1);
	}
	/* At 4096: ratios 2 and 2.6 (slowed by other work): 2. */
	double s = sibyl_kmodel_profile_scale(g, t, p, 6, b);

	assert_true(fabs(s - 2) < 1e-12);
	assert_true(fabs(sibyl_kmodel_calibrated(p[4], s, b) - (b + 2e-9 * 4096)) < 1e-18);
	/* Nothing above the launch: the plain median ratio; none: 1. */
	double lo[2] = { 1e-6, 2e-6 }, gg[2] = { 1, 2 }, pp[2] = { 1e-6, 1e-6 };

	assert_true(fabs(sibyl_kmodel_profile_scale(gg, lo, pp, 2, b) - 1.5) < 1e-12);
	assert_true(sibyl_kmodel_profile_scale(gg, lo, pp, 0, b) == 1);
}

static void test_r2_sizes(void **state)
{
	(void)state;
	/* Three sizes, three samples each, one of them a load spike. */
	const double g[9] = { 1, 1, 1, 2, 2, 2, 3, 3, 3 };
	const double y[9] = { 1, 1, 9, 2, 2, 2, 3, 3, 3 };
	double q[9];

	for (int i = 0; i < 9; i++)
		q[i] = g[i];
	assert_true(fabs(sibyl_kmodel_r2_sizes(g, y, q, 9) - 1) < 1e-12);
	/* One size: nothing varies, no R^2. */
	assert_true(isnan(sibyl_kmodel_r2_sizes(g, y, q, 3)));
	/* Sizes interleaved are grouped all the same; predicted 2 for 3:
	 * residuals 0, 0, 1 over a spread of 2: R^2 0.5. */
	const double g2[4] = { 3, 1, 2, 3 }, y2[4] = { 3, 1, 2, 3 }, q2[4] = { 2, 1, 2, 2 };

	assert_true(fabs(sibyl_kmodel_r2_sizes(g2, y2, q2, 4) - 0.5) < 1e-12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scale_at_largest),
		cmocka_unit_test(test_r2_sizes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
