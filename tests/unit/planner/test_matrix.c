/* The sample matrix: incremental insertion (Figs 2-3) equals a rebuild
 * from scratch, for random insertion orders with repeated work metrics;
 * the chain update after one insertion equals a full recomputation. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "planner/chain.h"
#include "planner/matrix.h"
#include "planner/planner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The paper's checks and ordinary least squares. */
static const struct sibyl_matrix_params params = { 0.10, 0.10, 0.95, 0, 0, false };
/* With sibyl's curvature check (fits_thirds in matrix.c). */
static const struct sibyl_matrix_params thirds = { 0.10, 0.10, 0.95, 0, 0.03, false };
/* sibyl's defaults: the curvature check and relative residuals. */
static const struct sibyl_matrix_params relative = { 0.10, 0.10, 0.95, 0, 0.03, true };

static double curve(double x, uint64_t *rng)
{
	double noise = ((double)(sibyl_random(rng) >> 11) / 9007199254740992.0 - 0.5) * 0.04;

	return (x < 40 ? 1e-6 * (1 + x) : 1e-6 * (41 + 3 * (x - 40))) * (1 + noise);
}

static void copy_matrix(const struct sibyl_matrix *m, struct sibyl_matrix *c)
{
	sibyl_matrix_init(c, &m->p);
	for (size_t i = 0; i < m->count; i++)
		for (size_t j = 0; j < m->nodes[i].nys; j++) {
			size_t k;

			assert_int_equal(sibyl_matrix_insert(c, m->nodes[i].x, m->nodes[i].ys[j], &k), 0);
		}
}

static void assert_same_cells(const struct sibyl_matrix *a, const struct sibyl_matrix *b,
			      bool chains)
{
	assert_int_equal(a->count, b->count);
	for (size_t r = 0; r < a->count; r++)
		for (size_t c = r; c < a->count; c++) {
			const struct sibyl_cell *x = sibyl_cell_at(a, r, c), *y = sibyl_cell_at(b, r, c);

			assert_memory_equal(&x->s, &y->s, sizeof(x->s));
			assert_int_equal(x->valid, y->valid);
			assert_int_equal(x->oor, y->oor);
			if (!chains)
				continue;
			assert_int_equal(x->chained, y->chained);
			assert_int_equal(x->col_best_row, y->col_best_row);
			assert_int_equal(x->run_row, y->run_row);
			assert_int_equal(x->run_col, y->run_col);
			if (!x->chained)
				continue;
			assert_int_equal(x->pred_row, y->pred_row);
			assert_int_equal(x->pred_col, y->pred_col);
			assert_int_equal(x->chain_oor, y->chain_oor);
			assert_int_equal(x->chain_segs, y->chain_segs);
		}
}

static void test_incremental_equals_rebuild(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 30; seed++) {
		struct sibyl_matrix m, fresh;
		uint64_t rng = seed;

		const struct sibyl_matrix_params *kinds[] = { &params, &thirds, &relative };

		sibyl_matrix_init(&m, kinds[seed % 3]);
		for (int k = 0; k < 60; k++) {
			double x = (double)sibyl_random_between(&rng, 1, 80);
			size_t i;

			assert_int_equal(sibyl_matrix_insert(&m, x, curve(x, &rng), &i), 0);
			assert_true(m.nodes[i].x == x);
			sibyl_chain_update(&m, i);
			/* Same nodes, every cell regenerated and every chain redone. */
			copy_matrix(&m, &fresh);
			sibyl_matrix_rebuild(&fresh);
			sibyl_chain_update(&fresh, 0);
			assert_same_cells(&m, &fresh, true);
			sibyl_matrix_free(&fresh);
		}
		for (size_t i = 1; i < m.count; i++)
			assert_true(m.nodes[i - 1].x < m.nodes[i].x);
		assert_int_equal(m.samples, 60);
		sibyl_matrix_free(&m);
	}
}

static void test_duplicates_merge(void **state)
{
	(void)state;
	struct sibyl_matrix m;
	size_t i;

	sibyl_matrix_init(&m, &params);
	assert_int_equal(sibyl_matrix_insert(&m, 5, 1.0, &i), 0);
	assert_int_equal(sibyl_matrix_insert(&m, 3, 2.0, &i), 0);
	assert_int_equal(i, 0);
	assert_int_equal(sibyl_matrix_insert(&m, 5, 3.0, &i), 0);
	assert_int_equal(i, 1);
	assert_int_equal(m.count, 2);
	assert_int_equal(m.samples, 3);
	assert_float_equal(sibyl_cell_at(&m, 1, 1)->s.sy, 4.0, 0);
	assert_float_equal(sibyl_cell_at(&m, 0, 1)->s.n, 3, 0);
	sibyl_matrix_free(&m);
}

/* The same noise-free samples, (x, y) = shape(k) for k < n in ascending
 * x, into a matrix with the paper's checks and one with sibyl's.
 * Returns the node of sample `mark`. */
static size_t fill_both(struct sibyl_matrix *paper, struct sibyl_matrix *ours, int n,
			void (*shape)(int k, double *x, double *y), int mark)
{
	size_t i, marked = 0;

	sibyl_matrix_init(paper, &params);
	sibyl_matrix_init(ours, &thirds);
	for (int k = 0; k < n; k++) {
		double x, y;

		shape(k, &x, &y);
		assert_int_equal(sibyl_matrix_insert(paper, x, y, &i), 0);
		assert_int_equal(sibyl_matrix_insert(ours, x, y, &i), 0);
		if (k == mark)
			marked = i;
	}
	return marked;
}

static void square(int k, double *x, double *y)
{
	*x = 1000 + 5 * k;
	*y = 1e-9 * *x * *x;
}

/*
 * The least-squares line over y = x^2 on [1000, 3000] misses the curve
 * by 9% on average and by 66% at its low end, yet with 400 noise-free
 * samples the confidence interval of its mean response is narrow: the
 * paper's checks accept it, with 59 samples out of range.  The curvature
 * check rejects it and still accepts the line over [1000, 1100], which
 * is within 0.2% of the curve.
 */
static void test_curvature_check(void **state)
{
	(void)state;
	struct sibyl_matrix paper, ours;
	size_t short_end = fill_both(&paper, &ours, 400, square, 20);   /* x = 1100 */
	const struct sibyl_cell *p = sibyl_cell_at(&paper, 0, paper.count - 1),
				*o = sibyl_cell_at(&ours, 0, ours.count - 1);

	assert_true(p->valid);
	assert_int_equal(p->oor, 59);     /* numpy.polyfit agrees */
	assert_false(o->valid);
	assert_true(sibyl_cell_at(&ours, 0, short_end)->valid);
	sibyl_matrix_free(&paper);
	sibyl_matrix_free(&ours);
}

static void geometric_power(int k, double *x, double *y)
{
	*x = 1000 * pow(30, k / 299.0);
	*y = 1e-9 * pow(*x, 1.1);
}

/*
 * Samples that thin out with the work metric's logarithm, as the interval
 * of interest leaves them: 300 at geometric steps over [1000, 30000] of
 * y = x^1.1.  The least-squares line misses the low end by 52%, yet the
 * means of the thirds by span are all within 1.9% of it (numpy): the
 * first third holds 200 of the samples.  By sample count the first third
 * is missed by 16%, so the segment fails; the line over the first tenth
 * of the samples passes.
 */
static void test_curvature_check_by_count(void **state)
{
	(void)state;
	struct sibyl_matrix paper, ours;
	size_t tenth = fill_both(&paper, &ours, 300, geometric_power, 29);

	assert_true(sibyl_cell_at(&paper, 0, paper.count - 1)->valid);
	assert_false(sibyl_cell_at(&ours, 0, ours.count - 1)->valid);
	assert_true(sibyl_cell_at(&ours, 0, tenth)->valid);
	sibyl_matrix_free(&paper);
	sibyl_matrix_free(&ours);
}

/*
 * One long run 10% slow among 60 exact ones of y = 1e-6 x on [1, 60]:
 * ordinary least squares lets that run tilt the whole line, and it misses
 * the shortest run by 19% (numpy.polyfit: intercept -2.0e-7, 0.81e-6 at
 * x = 1); fitted on relative residuals the slow run weighs as much as any
 * other and the line stays within 0.3% of the 59 exact runs (numpy with
 * weights 1 / y^2).
 */
static void test_relative_fit(void **state)
{
	(void)state;
	struct sibyl_matrix ols, rel;
	struct sibyl_ols_fit fo, fr;
	size_t i;

	sibyl_matrix_init(&ols, &params);
	sibyl_matrix_init(&rel, &relative);
	for (int x = 1; x <= 60; x++) {
		double y = 1e-6 * x * (x == 60 ? 1.1 : 1);

		assert_int_equal(sibyl_matrix_insert(&ols, x, y, &i), 0);
		assert_int_equal(sibyl_matrix_insert(&rel, x, y, &i), 0);
	}
	assert_true(sibyl_matrix_fit(&ols, 0, 59, &fo));
	assert_true(sibyl_matrix_fit(&rel, 0, 59, &fr));
	assert_true(sibyl_ols_predict(&fo, 1) < 0.85e-6);
	for (int x = 1; x <= 59; x++)
		assert_true(fabs(sibyl_ols_predict(&fr, x) / (1e-6 * x) - 1) < 0.003);
	sibyl_matrix_free(&ols);
	sibyl_matrix_free(&rel);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_incremental_equals_rebuild),
		cmocka_unit_test(test_duplicates_merge),
		cmocka_unit_test(test_curvature_check),
		cmocka_unit_test(test_curvature_check_by_count),
		cmocka_unit_test(test_relative_fit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
