/* Baselines and envelopes on hand-built data. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "planner/envelope.h"
#include "planner/evaluate.h"

#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static void test_power_fit_recovers(void **state)
{
	(void)state;
	static const double shapes[][3] = { { 2e-9, 1.0, 5e-6 }, { 3e-10, 2.0, 1e-8 },
					    { 1e-8, 1.3, 0 }, { 5e-11, 3.0, 2e-6 } };

	for (size_t s = 0; s < 4; s++) {
		double x[200], y[200], a, b, c;

		for (size_t i = 0; i < 200; i++) {
			x[i] = 1 + 50.0 * (double)i;
			y[i] = shapes[s][0] * pow(x[i], shapes[s][1]) + shapes[s][2];
		}
		assert_int_equal(sibyl_power_fit(x, y, 200, &a, &b, &c), 0);
		for (size_t i = 0; i < 200; i += 37)
			assert_float_equal(a * pow(x[i], b) + c, y[i], 1e-3 * y[i]);
		assert_float_equal(b, shapes[s][1], 1e-3);
	}
}

static void test_power_fit_rejects(void **state)
{
	(void)state;
	double x[3] = { 1, 2, 3 }, y[3] = { 1, 0, 2 }, a, b, c;

	assert_int_equal(sibyl_power_fit(x, y, 3, &a, &b, &c), -1);
	assert_int_equal(sibyl_power_fit(x, y, 2, &a, &b, &c), -1);
}

static void test_uniform_metrics(void **state)
{
	(void)state;
	size_t n;
	uint64_t *v = sibyl_uniform_metrics(1, 1000, 5, &n);

	assert_int_equal(n, 5);
	assert_int_equal(v[0], 1);
	assert_int_equal(v[4], 1000);
	assert_int_equal(v[2], 501);   /* 1 + round(999 / 2) */
	free(v);
	v = sibyl_uniform_metrics(1, 4, 10, &n);   /* no repeats */
	assert_int_equal(n, 4);
	free(v);
}

static struct sibyl_profile *line(const char *name, double x0, double y0, double x1, double y1)
{
	struct sibyl_profile *p = calloc(1, sizeof(*p));

	p->name = strdup(name);
	p->work_metric = strdup("n");
	p->lo = x0;
	p->hi = x1;
	p->complete = true;
	p->npoints = 2;
	p->points = calloc(2, sizeof(*p->points));
	p->points[0] = (struct sibyl_point){ x0, y0 };
	p->points[1] = (struct sibyl_point){ x1, y1 };
	return p;
}

static void test_envelope_crossing(void **state)
{
	(void)state;
	/* a: 10 + x, b: 2 x; they cross at x = 10. */
	struct sibyl_profile *in[2] = { line("a", 0, 10, 100, 110), line("b", 0, 0, 100, 200) };
	char err[200];
	struct sibyl_profile *e = sibyl_envelope((const struct sibyl_profile *const *)in, 2, err,
						 sizeof(err));

	assert_non_null(e);
	assert_int_equal(e->npieces, 2);
	assert_string_equal(e->pieces[0].name, "b");
	assert_float_equal(e->pieces[0].to, 10, 1e-9);
	assert_string_equal(e->pieces[1].name, "a");
	for (double x = 0; x <= 100; x += 7)
		assert_float_equal(sibyl_profile_eval(e, x), fmin(10 + x, 2 * x), 1e-9);
	sibyl_profile_free(e);
	/* A gap between the ranges is refused. */
	in[1]->points[0].x = 200;
	in[1]->points[1].x = 300;
	assert_null(sibyl_envelope((const struct sibyl_profile *const *)in, 2, err, sizeof(err)));
	assert_non_null(strstr(err, "no profile covers"));
	sibyl_profile_free(in[0]);
	sibyl_profile_free(in[1]);
}

/* A linear implementation on a machine 1% slow until the second pass of
 * the evaluation, then 1% fast, as a VM's speed phases go: the errors
 * see the first (slow) pass, and the noise floor, comparing the two
 * passes, is 2% / sqrt(2) (back-to-back pairs would have seen none). */
static unsigned calls, slow_calls;

static int phases(void *ctx, uint64_t metric, double *seconds, char *err, size_t errlen)
{
	(void)ctx;
	(void)err;
	(void)errlen;
	*seconds = 1e-6 * (double)metric * (calls++ < slow_calls ? 1.01 : 0.99);
	return 0;
}

/* Evaluate the profile of 1e-6 * metric seconds over [1, 1000] at n
 * random work metrics (or, with pe, invocation parameters), its
 * baselines given 10 samples. */
static void evaluate_exact(sibyl_measure_fn measure, const struct sibyl_param_eval *pe,
			   size_t n, struct sibyl_eval *e)
{
	static struct sibyl_point exact[2] = { { 1, 1e-6 }, { 1000, 1e-3 } };
	struct sibyl_profile prof = { .lo = 1, .hi = 1000, .points = exact, .npoints = 2 };
	struct sibyl_plan_params p;
	char err[128];

	sibyl_plan_defaults(&p);
	p.lo = 1;
	p.hi = 1000;
	if (sibyl_plan_evaluate(&prof, &p, n, 10, measure, NULL, pe, e, err, sizeof(err)))
		fail_msg("evaluate: %s", err);
}

/* Two lines crossing by 1%: a tie when their samples scatter by 2%, a
 * crossover when they have no noise; profiles of two work metrics are
 * refused. */
static void test_envelope_ties(void **state)
{
	(void)state;
	struct sibyl_profile *in[2] = { line("a", 0, 10, 100, 110), line("b", 0, 10.1, 100, 109) };
	char err[200];
	struct sibyl_profile *e = sibyl_envelope((const struct sibyl_profile *const *)in, 2, err,
						 sizeof(err));
	json_t *c = json_array_get(json_object_get(e->provenance, "crossovers"), 0);

	assert_int_equal(e->npieces, 2);
	assert_false(json_is_true(json_object_get(c, "tie")));
	assert_float_equal(json_number_value(json_object_get(c, "noise_pct")), 0, 1e-12);
	sibyl_profile_free(e);
	for (size_t k = 0; k < 2; k++) {
		in[k]->nsamples = 4;
		in[k]->samples = calloc(4, sizeof(*in[k]->samples));
		for (size_t i = 0; i < 4; i++)
			in[k]->samples[i] = (struct sibyl_point){ 25.0 * (double)i,
				sibyl_profile_eval(in[k], 25.0 * (double)i) * (i % 2 ? 1.02 : 0.98) };
	}
	e = sibyl_envelope((const struct sibyl_profile *const *)in, 2, err, sizeof(err));
	c = json_array_get(json_object_get(e->provenance, "crossovers"), 0);
	assert_true(json_is_true(json_object_get(c, "tie")));
	assert_float_equal(json_number_value(json_object_get(c, "noise_pct")), 2 * sqrt(2), 1e-6);
	sibyl_profile_free(e);
	free(in[1]->work_metric);
	in[1]->work_metric = strdup("bytes");
	assert_null(sibyl_envelope((const struct sibyl_profile *const *)in, 2, err, sizeof(err)));
	assert_string_equal(err, "a is measured in 'n' and b in 'bytes': an envelope compares "
			    "profiles of one work metric");
	sibyl_profile_free(in[0]);
	sibyl_profile_free(in[1]);
}

static void test_evaluate_noise_floor(void **state)
{
	(void)state;
	struct sibyl_eval e;

	calls = 0;
	slow_calls = 10 + 50;
	/* 10 uniform samples (one call each), then 50 metrics twice. */
	evaluate_exact(phases, NULL, 50, &e);
	assert_false(e.by_params);
	/* + 10 samples of the history baseline, after the two passes. */
	assert_int_equal(calls, 10 + 2 * 50 + 10);
	assert_float_equal(e.noise_pct, 2 / sqrt(2), 1e-9);
	assert_float_equal(e.planner.mean_pct, 100 * (1 - 1 / 1.01), 1e-9);
	assert_float_equal(e.planner.rmse_pct, 100 * (1 - 1 / 1.01), 1e-9);
	/* Each point keeps its measurements and predictions, and so does
	 * its CSV line. */
	const struct sibyl_eval_point *pt = &e.points[7];

	assert_float_equal(pt->measured[0], 1e-6 * pt->x * 1.01, 1e-15);
	assert_float_equal(pt->measured[1], 1e-6 * pt->x * 0.99, 1e-15);
	assert_float_equal(pt->planner, 1e-6 * pt->x, 1e-15);
	char *csv = NULL, line[256];
	size_t len = 0;
	FILE *f = open_memstream(&csv, &len);

	assert_int_equal(sibyl_eval_write_csv(&e, f), 0);
	fclose(f);
	const char *header = "work_metric,params,measured_s,measured_again_s,planner_s,"
			     "uniform_s,power_s,history_s\n";

	assert_int_equal(strncmp(csv, header, strlen(header)), 0);
	size_t lines = 0;
	for (const char *c = csv; *c; c++)
		lines += *c == '\n';
	assert_int_equal(lines, 1 + 50);
	snprintf(line, sizeof(line), "\n%.17g,,%.9g,", pt->x, pt->measured[0]);
	assert_non_null(strstr(csv, line));
	free(csv);
	sibyl_eval_free(&e);
}

/* A machine slow in the calls [slow_from, slow_to) and from stays_slow on:
 * those measurements come back unguarded and 2, 3 or 4 times slow. */
static unsigned slow_from, slow_to, stays_slow;

static int unsteady(void *ctx, uint64_t metric, double *seconds, char *err, size_t errlen)
{
	unsigned call = calls++;
	bool slow = (call >= slow_from && call < slow_to) || call >= stays_slow;

	(void)ctx;
	(void)err;
	(void)errlen;
	*seconds = 1e-6 * (double)metric * (slow ? 2 + call % 3 : 1);
	return slow ? SIBYL_MEASURE_UNGUARDED : 0;
}

static void test_evaluate_remeasures_unguarded(void **state)
{
	(void)state;
	struct sibyl_eval e;

	/* Calls 0-9: the baseline's samples, 3-6 slow and taken again (10-13)
	 * after the others; then the two passes.  Next, calls 10-59 are the
	 * first pass, 20-29 slow and taken again at 60-69; 70-119 the
	 * second.  Only calm measurements count. */
	calls = 0;
	slow_from = 3, slow_to = 7, stays_slow = UINT_MAX;
	evaluate_exact(unsteady, NULL, 50, &e);
	assert_int_equal(calls, 10 + 4 + 50 + 50 + 10);
	assert_int_equal(e.remeasured, 4);
	assert_int_equal(e.unguarded, 0);
	assert_float_equal(e.uniform.mean_pct, 0, 1e-9);
	sibyl_eval_free(&e);
	calls = 0;
	slow_from = 20, slow_to = 30;
	evaluate_exact(unsteady, NULL, 50, &e);
	assert_int_equal(calls, 10 + 50 + 10 + 50 + 10);
	assert_int_equal(e.remeasured, 10);
	assert_int_equal(e.unguarded, 0);
	assert_float_equal(e.planner.mean_pct, 0, 1e-9);
	assert_float_equal(e.noise_pct, 0, 1e-9);
	sibyl_eval_free(&e);
	/* Slow for good from the second pass: each of its points, and each
	 * history sample after them, is measured four times in vain and
	 * keeps the fastest (2 times slow). */
	calls = 0;
	slow_from = slow_to = 0, stays_slow = 10 + 50;
	evaluate_exact(unsteady, NULL, 50, &e);
	assert_int_equal(calls, 10 + 50 + 4 * 50 + 4 * 10);
	assert_int_equal(e.remeasured, 3 * 50 + 3 * 10);
	assert_int_equal(e.unguarded, 50 + 10);
	for (size_t i = 0; i < 50; i++)
		assert_float_equal(e.points[i].measured[1], 2 * e.points[i].measured[0], 1e-15);
	sibyl_eval_free(&e);
}

/* Evaluation at random parameters: an implementation taking (a, b) in
 * 1e-6 * a * b seconds.  An adapter metric of a * b predicts it exactly;
 * one that folds the parameters into a alone misses by b - 1 times. */
static unsigned param_calls;

static size_t draw_pair(uint64_t seed, uint64_t lo, uint64_t hi, double *params)
{
	(void)lo;
	(void)hi;
	params[0] = 1 + (double)(seed % 30);
	params[1] = 1 + (double)(seed / 30 % 30);
	return 2;
}

static double product(const double *params, size_t n)
{
	return n == 2 ? params[0] * params[1] : -1;
}

static double first_only(const double *params, size_t n)
{
	return n == 2 ? params[0] : -1;
}

static int product_time(void *ctx, const double *params, size_t n, uint64_t metric,
			double *seconds, char *err, size_t errlen)
{
	(void)ctx;
	(void)metric;
	(void)err;
	(void)errlen;
	assert_int_equal(n, 2);
	param_calls++;
	*seconds = 1e-6 * params[0] * params[1];
	return 0;
}

static void test_evaluate_by_params(void **state)
{
	(void)state;
	struct sibyl_param_eval pe = { draw_pair, product, product_time };
	struct sibyl_eval e;

	calls = param_calls = slow_calls = 0;
	evaluate_exact(phases, &pe, 40, &e);
	assert_true(e.by_params);
	assert_int_equal(calls, 10 + 10);      /* the uniform and history baselines only */
	assert_int_equal(param_calls, 2 * 40);
	assert_float_equal(e.planner.mean_pct, 0, 1e-9);
	assert_float_equal(e.noise_pct, 0, 1e-9);
	/* Folding (a, b) into a: predicted a, measured a * b. */
	pe.metric_of = first_only;
	sibyl_eval_free(&e);
	evaluate_exact(phases, &pe, 40, &e);
	assert_true(e.planner.mean_pct > 50);
	assert_int_equal(e.points[0].nparams, 2);
	sibyl_eval_free(&e);
}

/* The history model: the mean of each metric seen, a*n^b+c over the
 * means elsewhere, the nearest mean when that cannot be fitted. */
static void test_history_model(void **state)
{
	(void)state;
	static const struct sibyl_point m[] = { { 10, 4 }, { 5, 1 }, { 40, 16 }, { 5, 3 },
						{ 20, 8 } };
	struct sibyl_history h;
	bool seen;

	sibyl_history_build(&h, m, 5);
	assert_int_equal(h.n, 4);
	assert_int_equal(h.samples, 5);
	assert_float_equal(sibyl_history_predict(&h, 5, &seen), 2, 1e-12);
	assert_true(seen);
	/* The means lie on 0.4 n: the regression gives 12 at 30. */
	assert_float_equal(sibyl_history_predict(&h, 30, &seen), 12, 1e-3);
	assert_false(seen);
	sibyl_history_free(&h);
	sibyl_history_build(&h, m, 2);	/* two metrics: no fit */
	assert_false(h.have_fit);
	assert_float_equal(sibyl_history_predict(&h, 9, &seen), 4, 1e-12);
	assert_float_equal(sibyl_history_predict(&h, 6, &seen), 1, 1e-12);
	assert_float_equal(sibyl_history_predict(&h, 100, &seen), 4, 1e-12);
	sibyl_history_free(&h);
}

/* Over a range of ten metrics the history meets the evaluation's. */
static void test_evaluate_history_hits(void **state)
{
	(void)state;
	static struct sibyl_point exact[2] = { { 1, 1e-6 }, { 10, 1e-5 } };
	struct sibyl_profile prof = { .lo = 1, .hi = 10, .points = exact, .npoints = 2 };
	struct sibyl_plan_params p;
	struct sibyl_eval e;
	char err[128];

	sibyl_plan_defaults(&p);
	p.lo = 1;
	p.hi = 10;
	calls = 0;
	slow_calls = 0;
	assert_int_equal(sibyl_plan_evaluate(&prof, &p, 40, 20, phases, NULL, NULL, &e, err,
					     sizeof(err)), 0);
	/* Ten uniform samples (no repeats), 40 points twice, 20 of history. */
	assert_int_equal(calls, 10 + 2 * 40 + 20);
	assert_true(e.history_hits > 20);
	assert_true(e.history_model.n <= 10);
	for (size_t i = 0; i < e.n; i++)
		if (e.points[i].history_seen)
			assert_float_equal(e.points[i].history, 0.99e-6 * e.points[i].x, 1e-15);
	sibyl_eval_free(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_power_fit_recovers),
		cmocka_unit_test(test_power_fit_rejects),
		cmocka_unit_test(test_uniform_metrics),
		cmocka_unit_test(test_envelope_crossing),
		cmocka_unit_test(test_envelope_ties),
		cmocka_unit_test(test_evaluate_noise_floor),
		cmocka_unit_test(test_evaluate_by_params),
		cmocka_unit_test(test_evaluate_remeasures_unguarded),
		cmocka_unit_test(test_history_model),
		cmocka_unit_test(test_evaluate_history_hits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
