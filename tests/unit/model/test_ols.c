/* Least squares, t quantiles and confidence intervals against fixed values.
 *
 * The expected numbers were computed with Debian's scipy:
 *   /usr/bin/python3 -c "import numpy as np; from scipy import stats;
 *     x=np.array([1,2,3,4,5.]); y=np.array([2.1,3.9,6.2,7.8,10.1]);
 *     r=stats.linregress(x,y); res=y-(r.intercept+r.slope*x);
 *     s2=(res**2).sum()/3; t=stats.t.ppf(0.975,3);
 *     print(r.intercept, r.slope, s2, t,
 *           [t*np.sqrt(s2*(1/5+(x0-3)**2/10)) for x0 in (1,3,5)],
 *           stats.t.ppf(0.95,10), stats.t.ppf(0.995,1))"
 * The random-data comparison with scikit-learn is tests/unit/model/ols_sklearn.sh.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "model/ols.h"

#include <math.h>

static const double X[] = { 1, 2, 3, 4, 5 };
static const double Y[] = { 2.1, 3.9, 6.2, 7.8, 10.1 };

static struct sibyl_ols_sums sums_of(size_t from, size_t to)
{
	struct sibyl_ols_sums s = { 0 };

	for (size_t i = from; i < to; i++)
		sibyl_ols_add(&s, X[i], Y[i]);
	return s;
}

static void test_fit(void **state)
{
	(void)state;
	struct sibyl_ols_sums s = sums_of(0, 5);
	struct sibyl_ols_fit f;

	assert_true(sibyl_ols_fit(&s, &f));
	assert_float_equal(f.a, 0.05000000000000071, 1e-12);
	assert_float_equal(f.b, 1.99, 1e-12);
	assert_float_equal(f.s2, 0.03566666666666692, 1e-12);
	assert_float_equal(sibyl_ols_predict(&f, 2), 0.05 + 2 * 1.99, 1e-12);
}

static void test_merge_equals_whole(void **state)
{
	(void)state;
	struct sibyl_ols_sums a = sums_of(0, 2), b = sums_of(2, 5), all = sums_of(0, 5);
	struct sibyl_ols_sums m = sibyl_ols_merge(&a, &b);
	struct sibyl_ols_fit f1, f2;

	assert_true(sibyl_ols_fit(&m, &f1));
	assert_true(sibyl_ols_fit(&all, &f2));
	assert_float_equal(f1.a, f2.a, 1e-12);
	assert_float_equal(f1.b, f2.b, 1e-12);
	assert_float_equal(f1.s2, f2.s2, 1e-12);
}

static void test_t_quantiles(void **state)
{
	(void)state;
	assert_float_equal(sibyl_t_quantile(0.95, 3), 3.182446305284263, 1e-9);
	assert_float_equal(sibyl_t_quantile(0.90, 10), 1.8124611228107335, 1e-9);
	assert_float_equal(sibyl_t_quantile(0.99, 1), 63.65674116287399, 1e-7);
}

static void test_ci(void **state)
{
	(void)state;
	struct sibyl_ols_sums s = sums_of(0, 5);
	struct sibyl_ols_fit f;

	assert_true(sibyl_ols_fit(&s, &f));
	double t = sibyl_t_quantile(0.95, f.n - 2);

	assert_float_equal(sibyl_ols_ci_half(&f, 1, t), 0.4655517586700486, 1e-9);
	assert_float_equal(sibyl_ols_ci_half(&f, 3, t), 0.2687864331898562, 1e-9);
	assert_float_equal(sibyl_ols_ci_half(&f, 5, t), 0.4655517586700486, 1e-9);
}

static void test_degenerate(void **state)
{
	(void)state;
	struct sibyl_ols_sums s = { 0 };
	struct sibyl_ols_fit f;

	assert_false(sibyl_ols_fit(&s, &f));
	sibyl_ols_add(&s, 7, 1);
	sibyl_ols_add(&s, 7, 2);
	sibyl_ols_add(&s, 7, 3);
	assert_false(sibyl_ols_fit(&s, &f)); /* one size only: no slope */
	struct sibyl_ols_sums two = sums_of(0, 2);

	assert_true(sibyl_ols_fit(&two, &f));
	assert_true(isinf(sibyl_ols_ci_half(&f, 1, 12.7)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fit),
		cmocka_unit_test(test_merge_equals_whole),
		cmocka_unit_test(test_t_quantiles),
		cmocka_unit_test(test_ci),
		cmocka_unit_test(test_degenerate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
