/* Chain selection (Figs 4-5) on hand-built sample matrices. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "planner/chain.h"
#include "planner/matrix.h"

#include <stdlib.h>

static const struct sibyl_matrix_params params = { 0.10, 0.10, 0.95, 0, 0, false };

/* n nodes on y = x, then every cell invalid: the test marks segments. */
static void blank(struct sibyl_matrix *m, size_t n)
{
	size_t i;

	sibyl_matrix_init(m, &params);
	for (size_t k = 0; k < n; k++)
		assert_int_equal(sibyl_matrix_insert(m, (double)k + 1, (double)k + 1, &i), 0);
	for (size_t r = 0; r < n; r++)
		for (size_t c = r; c < n; c++)
			sibyl_cell_at(m, r, c)->valid = false;
}

static void segment(struct sibyl_matrix *m, size_t r, size_t c, unsigned oor)
{
	sibyl_cell_at(m, r, c)->valid = true;
	sibyl_cell_at(m, r, c)->oor = oor;
}

static void expect_best(struct sibyl_matrix *m, size_t row, size_t col, unsigned oor,
			unsigned segs)
{
	size_t r, c;

	sibyl_chain_update(m, 0);
	assert_true(sibyl_chain_best(m, &r, &c));
	assert_int_equal(r, row);
	assert_int_equal(c, col);
	assert_int_equal(sibyl_cell_at(m, r, c)->chain_oor, oor);
	assert_int_equal(sibyl_cell_at(m, r, c)->chain_segs, segs);
}

static void test_fewest_out_of_range(void **state)
{
	(void)state;
	struct sibyl_matrix m;

	blank(&m, 5);
	segment(&m, 0, 2, 0);
	segment(&m, 0, 3, 0);
	segment(&m, 1, 4, 3);   /* reaches the end but with 3 bad samples */
	segment(&m, 2, 4, 0);   /* reaches it after (0, 3) with none */
	expect_best(&m, 2, 4, 0, 2);
	assert_int_equal(sibyl_cell_at(&m, 2, 4)->pred_row, 0);
	assert_int_equal(sibyl_cell_at(&m, 2, 4)->pred_col, 3);
	size_t n;
	struct sibyl_segment *s = sibyl_chain_segments(&m, 2, 4, &n);

	assert_int_equal(n, 2);
	assert_float_equal(s[0].from, 1, 0);
	assert_float_equal(s[0].to, 4, 0);
	assert_float_equal(s[1].from, 3, 0);
	assert_float_equal(s[1].to, 5, 0);
	free(s);
	sibyl_matrix_free(&m);
}

static void test_furthest_first(void **state)
{
	(void)state;
	struct sibyl_matrix m;

	blank(&m, 6);
	segment(&m, 0, 4, 0);
	segment(&m, 0, 2, 0);
	segment(&m, 1, 5, 4);   /* further, despite its out-of-range samples */
	expect_best(&m, 1, 5, 4, 2);
	sibyl_matrix_free(&m);
}

static void test_fewest_segments_on_tie(void **state)
{
	(void)state;
	struct sibyl_matrix m;

	blank(&m, 6);
	segment(&m, 0, 2, 1);
	segment(&m, 1, 3, 0);
	segment(&m, 2, 5, 0);   /* after (1, 3): 3 segments, or after (0, 3): 2 */
	segment(&m, 0, 3, 1);
	expect_best(&m, 2, 5, 1, 2);
	assert_int_equal(sibyl_cell_at(&m, 2, 5)->pred_row, 0);
	sibyl_matrix_free(&m);
}

static void test_needs_overlap(void **state)
{
	(void)state;
	struct sibyl_matrix m;
	size_t r, c;

	blank(&m, 6);
	segment(&m, 0, 2, 0);
	segment(&m, 2, 5, 0);   /* shares one sample only: no overlap */
	segment(&m, 3, 5, 0);   /* starts after the end: a gap */
	sibyl_chain_update(&m, 0);
	assert_true(sibyl_chain_best(&m, &r, &c));
	assert_int_equal(r, 0);
	assert_int_equal(c, 2);
	assert_false(sibyl_cell_at(&m, 2, 5)->chained);
	sibyl_matrix_free(&m);
}

static void test_no_chain_without_start(void **state)
{
	(void)state;
	struct sibyl_matrix m;
	size_t r, c;

	blank(&m, 5);
	segment(&m, 1, 4, 0);   /* does not start at the lowest work metric */
	sibyl_chain_update(&m, 0);
	assert_false(sibyl_chain_best(&m, &r, &c));
	sibyl_matrix_free(&m);
}

static void test_points(void **state)
{
	(void)state;
	/* y = x on [1, 10] and y = 10 + 5 (x - 10) on [8, 20] cross at 10. */
	struct sibyl_segment s[2] = { { 1, 12, 0, 1, 5, 0 }, { 8, 20, -40, 5, 5, 0 } };
	size_t n;
	struct sibyl_point *p = sibyl_chain_points(s, 2, 1, 20, &n);

	assert_int_equal(n, 3);
	assert_float_equal(p[0].x, 1, 1e-12);
	assert_float_equal(p[0].y, 1, 1e-12);
	assert_float_equal(p[1].x, 10, 1e-12);
	assert_float_equal(p[1].y, 10, 1e-12);
	assert_float_equal(p[2].y, 60, 1e-12);
	free(p);
	/* Parallel lines: the middle of the overlap, the mean of both. */
	struct sibyl_segment q[2] = { { 1, 12, 0, 1, 5, 0 }, { 8, 20, 2, 1, 5, 0 } };

	p = sibyl_chain_points(q, 2, 1, 20, &n);
	assert_int_equal(n, 3);
	assert_float_equal(p[1].x, 10, 1e-12);
	assert_float_equal(p[1].y, 11, 1e-12);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fewest_out_of_range),
		cmocka_unit_test(test_furthest_first),
		cmocka_unit_test(test_fewest_segments_on_tie),
		cmocka_unit_test(test_needs_overlap),
		cmocka_unit_test(test_no_chain_without_start),
		cmocka_unit_test(test_points),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
