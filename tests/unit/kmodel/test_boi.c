/* OCLBoi's choice of kind for extrapolation: forward cross validation
 * and the share of error a more complex kind must remove.  The counts
 * of a data-dependent loop (collatz's `br`, profiled at 1024..8192
 * work-items, 3 samples each: 231.6..239.9 per work-item, linear with
 * noise) chose a parabola whose curvature was the noise's, 30% high at
 * 16 times the profile. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "kmodel/boi.h"

#include <math.h>
#include <string.h>

#define NS 24	/* 8 sizes, 3 samples each */
#define NF 2

/* collatz's `br` per work-item in a profile kept by bench/kmodel/run
 * (/tmp/h30a/keep1, 2026-11-28), size by size. */
static const double per[NS] = {
	235.609, 238.133, 236.016, 235.279, 231.619, 239.871, 233.238, 234.473,
	236.947, 233.903, 231.635, 238.517, 235.204, 234.204, 235.230, 237.189,
	235.292, 235.996, 239.036, 235.748, 236.769, 236.892, 236.468, 238.064,
};

static void profile(double *g, double *C, double second(double))
{
	for (size_t i = 0; i < NS; i++) {
		g[i] = 1024.0 * (double)(i / 3 + 1);
		C[i * NF] = round(per[i] * g[i]);
		C[i * NF + 1] = second(g[i]);
	}
}

static double linear(double g)
{
	return 3 * g;
}

static double quadratic(double g)
{
	return 2 * g + g * g / 64;
}

static double three_halves(double g)
{
	return 5 * pow(g, 1.5);
}

/* OCLBoi of the noisy linear count and `second`; its counts at 16
 * times the profile's largest size into c. */
static void fit16(double second(double), struct sibyl_kmodel_boi *b, double *c)
{
	double g[NS], C[NS * NF];
	char err[256] = "";

	profile(g, C, second);
	assert_int_equal(sibyl_kmodel_boi_fit(g, C, NS, NF, b, err, sizeof(err)), 0);
	sibyl_kmodel_boi_predict(b, 16 * 8192, c);
}

static void test_noisy_linear(void **state)
{
	(void)state;
	struct sibyl_kmodel_boi b;
	double c[NF], want = 236.1 * 16 * 8192;

	fit16(linear, &b, c);
	assert_false(b.spec.poly2);
	/* The profile's mean count per work-item, 16 times further. */
	assert_true(fabs(c[0] - want) < 0.01 * want);
	assert_true(fabs(c[1] - 3 * 16 * 8192) < 1e-6 * c[1]);
	sibyl_kmodel_boi_free(&b);
}

static void test_curved_counts(void **state)
{
	(void)state;
	struct sibyl_kmodel_boi b;
	double c[NF], g = 16 * 8192;

	/* A count a g + b g^2 exactly: the parabola halves any other
	 * kind's error, and wins. */
	fit16(quadratic, &b, c);
	assert_true(b.spec.poly2 && !b.power);
	assert_true(fabs(c[1] - quadratic(g)) < 1e-6 * c[1]);
	sibyl_kmodel_boi_free(&b);
	/* g^1.5: the power law, tried before the parabolas. */
	fit16(three_halves, &b, c);
	assert_true(b.power);
	assert_true(fabs(c[1] - three_halves(g)) < 1e-6 * c[1]);
	sibyl_kmodel_boi_free(&b);
}

/* Least squares line of y on g over the samples of fold < f (forward)
 * or != f, evaluated at x; whether that training set holds the sizes a
 * fold's fit needs (SIBYL_KMODEL_BOI_FIT_SIZES). */
static bool line_at(const double *g, const double *y, const size_t *fold, size_t f,
		    bool forward, double x, double *at)
{
	double n = 0, sg = 0, sy = 0, sgg = 0, sgy = 0, seen[NS];
	size_t sizes = 0;

	for (size_t i = 0; i < NS; i++) {
		if (forward ? fold[i] >= f : fold[i] == f)
			continue;
		size_t j = 0;

		while (j < sizes && seen[j] != g[i])
			j++;
		if (j == sizes)
			seen[sizes++] = g[i];
		n++, sg += g[i], sy += y[i], sgg += g[i] * g[i], sgy += g[i] * y[i];
	}
	double slope = (n * sgy - sg * sy) / (n * sgg - sg * sg);

	*at = (sy - slope * sg) / n + slope * x;
	return !forward || sizes >= SIBYL_KMODEL_BOI_FIT_SIZES;
}

/* The cross-validated R^2 of a line, worked out here: 1 - the mean
 * squared error of the samples predicted over the variance of all. */
static double line_cv(const double *g, const double *y, const size_t *fold, bool forward)
{
	double mean = 0, var = 0, res = 0, m = 0;

	for (size_t i = 0; i < NS; i++)
		mean += y[i] / NS;
	for (size_t i = 0; i < NS; i++) {
		double p;

		var += (y[i] - mean) * (y[i] - mean) / NS;
		if (line_at(g, y, fold, fold[i], forward, g[i], &p))
			res += (y[i] - p) * (y[i] - p), m++;
	}
	return 1 - res / m / var;
}

static void test_forward_folds(void **state)
{
	(void)state;
	/* 5 runs of the 8 sizes; a fold predicted from the smaller ones. */
	double g[NS], C[NS * NF];
	size_t fold[NS];

	profile(g, C, quadratic);
	assert_int_equal(sibyl_kmodel_boi_folds(g, NS, 5, fold), 5);
	for (size_t i = 1; i < NS; i++)
		assert_true(fold[i] >= fold[i - 1]);
	/* A line through a curved count: extrapolated from the smaller
	 * sizes only, it misses the larger ones by more than when the folds
	 * on both sides train it.  The score must be the forward one (an
	 * exact line would score 1 either way and tell nothing). */
	struct sibyl_reg_spec ols = { SIBYL_REG_OLS, false, true, 0, 0, 0 };
	double y[NS], s, fwd, both;
	char err[256] = "";

	for (size_t i = 0; i < NS; i++)
		y[i] = C[i * NF + 1];
	fwd = line_cv(g, y, fold, true);
	both = line_cv(g, y, fold, false);
	assert_true(fwd < both - 0.01);
	assert_int_equal(sibyl_kmodel_boi_cv(&ols, g, y, NS, fold, 5, &s, err, sizeof(err)), 0);
	assert_true(fabs(s - fwd) < 1e-9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_noisy_linear),
		cmocka_unit_test(test_curved_counts),
		cmocka_unit_test(test_forward_folds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
