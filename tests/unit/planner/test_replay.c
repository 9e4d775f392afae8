/* Replayed plans (planner/replay.h): which calls are replayed within a
 * budget, that they are measured in the traced order, and the points the
 * samples make. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "planner/first_calls.h"
#include "planner/replay.h"

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* A mix of calls at metrics[0..n), in that order, as a trace gives it. */
static struct sibyl_call_mix mix_of(const uint64_t *metrics, size_t n)
{
	struct sibyl_call_mix mix = { .kind = "trace", .nseq = n };

	mix.seq = calloc(n, sizeof(*mix.seq));
	mix.v = calloc(n, sizeof(*mix.v));
	for (size_t i = 0; i < n; i++)
		mix.seq[i] = mix.v[i] = (struct sibyl_mix_entry){ metrics[i], 1, 1e-6 };
	/* v as call_mix.c keeps it: ascending, merged (the tests' metrics
	 * are distinct). */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && mix.v[j - 1].metric > mix.v[j].metric; j--) {
			struct sibyl_mix_entry t = mix.v[j];

			mix.v[j] = mix.v[j - 1];
			mix.v[j - 1] = t;
		}
	mix.n = mix.calls = n;
	return mix;
}

static void test_all_fit_twice(void **state)
{
	(void)state;
	uint64_t m[] = { 5, 1, 9 };
	struct sibyl_call_mix mix = mix_of(m, 3);
	struct sibyl_replay_plan plan;

	sibyl_replay_pick(&mix, 6, &plan);
	assert_int_equal(plan.passes, 2);
	assert_int_equal(plan.n, 1);
	assert_int_equal(plan.runs, 6);
	sibyl_replay_plan_free(&plan);
	sibyl_replay_pick(&mix, 14, &plan);   /* four times, not five */
	assert_int_equal(plan.passes, 4);
	assert_int_equal(plan.runs, 12);
	sibyl_replay_plan_free(&plan);
	sibyl_replay_pick(&mix, 400, &plan);   /* five at most */
	assert_int_equal(plan.passes, 5);
	assert_int_equal(plan.runs, 15);
	sibyl_replay_plan_free(&plan);
	sibyl_replay_pick(&mix, 5, &plan);   /* once only */
	assert_int_equal(plan.passes, 1);
	assert_int_equal(plan.runs, 3);
	sibyl_replay_plan_free(&plan);
	sibyl_call_mix_free(&mix);
}

/* 1000 calls at 100-599, the smallest (1) at 3, the largest (10000) at
 * 996. */
static void fill_calls(uint64_t *m)
{
	for (size_t i = 0; i < 1000; i++)
		m[i] = 100 + (i * 7) % 500;
	m[3] = 1;
	m[996] = 10000;
}

/* 1000 calls, budget 204: four windows of 50 led in, evenly spread, and
 * the extremes (calls 3 and 996, outside them) with the call before. */
static void test_windows(void **state)
{
	(void)state;
	uint64_t m[1000];
	struct sibyl_replay_plan plan;

	fill_calls(m);
	struct sibyl_call_mix mix = mix_of(m, 1000);

	sibyl_replay_pick(&mix, 204, &plan);
	assert_int_equal(plan.passes, 1);
	assert_int_equal(plan.n, 6);
	assert_int_equal(plan.v[0].first, 2);
	assert_int_equal(plan.v[0].len, 2);
	assert_true(plan.v[0].lead);
	assert_int_equal(plan.v[1].first, 100);
	assert_int_equal(plan.v[1].len, 50);
	assert_int_equal(plan.v[4].first, 850);
	assert_int_equal(plan.v[5].first, 995);
	assert_true(plan.runs <= 204);
	sibyl_replay_plan_free(&plan);
	sibyl_call_mix_free(&mix);
}

/* Whether the plan runs the traced call at index i: timed, or (when
 * `lead`) as a lead-in too. */
static bool in_plan(const struct sibyl_replay_plan *plan, size_t i, bool lead)
{
	for (size_t k = 0; k < plan->n; k++)
		if (plan->v[k].first + (lead ? 0 : plan->v[k].lead) <= i &&
		    i < plan->v[k].first + plan->v[k].len)
			return true;
	return false;
}

#define runs_call(plan, i) in_plan(plan, i, true)
#define times_call(plan, i) in_plan(plan, i, false)

/* The largest metric and one with a large share of the traced time,
 * each called three times outside every window, are timed at their
 * three calls (one run was one run's luck: FFTW's 65536 at 2.5 times
 * its median), each led in; the budget still holds. */
static void test_repeated_calls(void **state)
{
	(void)state;
	uint64_t m[1000];
	struct sibyl_replay_plan plan;

	fill_calls(m);
	m[30] = m[60] = m[996] = 10000;
	m[20] = m[40] = m[80] = 5000;
	struct sibyl_call_mix mix = mix_of(m, 1000);

	assert_true(mix.v[994].metric == 5000);
	mix.v[999].calls = mix.v[994].calls = 3;	/* merged, as call_mix.c counts */
	mix.v[994].seconds = 1e-2;
	mix.seconds = 1e-3 + 1e-2;
	sibyl_replay_pick(&mix, 204, &plan);
	assert_true(times_call(&plan, 30) && times_call(&plan, 60) && times_call(&plan, 996));
	assert_true(runs_call(&plan, 29) && runs_call(&plan, 59) && runs_call(&plan, 995));
	assert_true(times_call(&plan, 20) && times_call(&plan, 40) && times_call(&plan, 80));
	assert_true(times_call(&plan, 3) && plan.runs <= 204);
	sibyl_replay_plan_free(&plan);
	sibyl_call_mix_free(&mix);
}

/* Budgets of a few runs: never more runs than the budget, and the
 * smallest and largest calls timed whenever the budget holds two runs
 * (with their lead-ins when it holds those too); below that, nothing. */
static void test_small_budgets(void **state)
{
	(void)state;
	uint64_t inner[] = { 50, 60, 1, 70, 80, 90, 900, 40, 30 };	/* extremes led in */
	uint64_t edges[] = { 1, 60, 70, 80, 90, 40, 30, 900 };	/* the first and last */
	uint64_t same[] = { 7, 7, 7, 7, 7, 7, 7, 7 };
	struct { const uint64_t *m; size_t n; } mixes[] = { { inner, 9 }, { edges, 8 }, { same, 8 } };

	for (size_t t = 0; t < 3; t++) {
		struct sibyl_call_mix mix = mix_of(mixes[t].m, mixes[t].n);
		if (t == 2)
			mix.n = 1;	/* one metric, merged as call_mix.c merges */
		uint64_t lo = mix.v[0].metric, hi = mix.v[mix.n - 1].metric;

		for (size_t budget = 1; budget < mixes[t].n; budget++) {
			struct sibyl_replay_plan plan;

			sibyl_replay_pick(&mix, budget, &plan);
			assert_true(plan.runs <= budget);
			assert_int_equal(plan.passes, 1);
			if (budget >= 2 || lo == hi) {
				assert_true(sibyl_replay_plan_times(&plan, &mix, lo));
				assert_true(sibyl_replay_plan_times(&plan, &mix, hi));
			} else {
				assert_int_equal(plan.n, 0);
			}
			if (t == 0 && budget >= 4) {	/* led in: the calls before them run */
				assert_true(runs_call(&plan, 1));
				assert_true(runs_call(&plan, 5));
			}
			sibyl_replay_plan_free(&plan);
		}
		sibyl_call_mix_free(&mix);
	}
}

/* The metrics measured, in the order asked; each "takes" as long as the
 * metric measured before it says. */
struct order {
	uint64_t got[64];
	size_t n;
};

static int measure_seq(void *ctx, const uint64_t *metrics, size_t n, double *seconds,
		       char *err, size_t errlen)
{
	struct order *o = ctx;

	(void)err;
	(void)errlen;
	for (size_t i = 0; i < n; i++) {
		seconds[i] = o->n ? (double)o->got[o->n - 1] * 1e-6 : 1e-6;
		o->got[o->n++] = metrics[i];
	}
	return 0;
}

/* Small and large calls by turns, replayed through measure. */
static const uint64_t interleaved[] = { 10, 1000, 11, 1001, 12, 1002, 13, 1003 };

static int replay_interleaved(sibyl_measure_seq_fn measure, struct order *o,
			      struct sibyl_plan_result *r)
{
	struct sibyl_call_mix mix = mix_of(interleaved, 8);
	struct sibyl_plan_params p;

	sibyl_plan_defaults(&p);
	p.max_samples = 16;	/* two passes */
	int rc = sibyl_plan_replay(&p, &mix, measure, o, NULL, NULL, r);

	sibyl_call_mix_free(&mix);
	return rc;
}

static void test_traced_order(void **state)
{
	(void)state;
	const uint64_t *m = interleaved;
	struct sibyl_plan_result r;
	struct order o = { .n = 0 };

	assert_int_equal(replay_interleaved(measure_seq, &o, &r), 0);
	assert_int_equal(o.n, 16);
	assert_memory_equal(o.got, m, sizeof(interleaved));
	assert_memory_equal(o.got + 8, m, sizeof(interleaved));
	/* Points: the smallest metric alone, then groups of four samples
	 * (two metrics), the largest alone.  The small calls came after
	 * large ones. */
	assert_int_equal(r.profile->npoints, 5);
	assert_true(r.profile->points[0].x == 10 && r.profile->points[4].x == 1003);
	assert_true(r.profile->points[0].y > 10 * r.profile->points[4].y);
	assert_int_equal(r.samples, 16);
	assert_int_equal(r.unique, 8);
	sibyl_plan_result_free(&r);
}

/* The worker dies in the second pass: after 12 of its 16 runs. */
static int measure_dies(void *ctx, const uint64_t *metrics, size_t n, double *seconds,
			char *err, size_t errlen)
{
	struct order *o = ctx;

	if (o->n + n > 12) {
		snprintf(err, errlen, "adapter died");
		return -1;
	}
	return measure_seq(ctx, metrics, n, seconds, err, errlen);
}

static void test_failed_pass_keeps_whole_ones(void **state)
{
	(void)state;
	struct sibyl_plan_result r;
	struct order o = { .n = 0 };

	assert_int_equal(replay_interleaved(measure_dies, &o, &r), -1);
	assert_int_equal(r.status, SIBYL_PLAN_FAILED);
	assert_string_equal(r.message, "adapter died");
	/* The first pass, every call once, is the profile. */
	assert_non_null(r.profile);
	assert_int_equal(r.profile->nsamples, 8);
	assert_true(r.profile->points[0].x == 10);
	sibyl_plan_result_free(&r);
}

/* A staircase: the prime 1009 runs 14 times as long as 1024. */
static int measure_staircase(void *ctx, const uint64_t *metrics, size_t n, double *seconds,
			     char *err, size_t errlen)
{
	(void)ctx;
	(void)err;
	(void)errlen;
	for (size_t i = 0; i < n; i++)
		seconds[i] = (metrics[i] == 1009 ? 14 : 1) * 1e-6 * (double)metrics[i] / 1000;
	return 0;
}

/* Metrics the program called again keep their own points, however few
 * their samples: grouped with its neighbour, 1009's three runs fell into
 * 1024's point and were interpolated away. */
static void test_repeated_metrics_alone(void **state)
{
	(void)state;
	uint64_t m[] = { 10, 1009, 1024, 1009, 1024, 1009, 1024, 2000 };
	struct sibyl_call_mix mix = mix_of(m, 8);
	struct sibyl_plan_params p;
	struct sibyl_plan_result r;

	mix.v[2] = mix.v[4], mix.v[3] = mix.v[7];	/* merged, as call_mix.c keeps them */
	mix.v[1].calls = mix.v[2].calls = 3;
	mix.n = 4;
	sibyl_plan_defaults(&p);
	p.max_samples = 8;	/* one pass */
	assert_int_equal(sibyl_plan_replay(&p, &mix, measure_staircase, NULL, NULL, NULL, &r), 0);
	assert_int_equal(r.profile->npoints, 4);
	assert_true(r.profile->points[1].x == 1009 && r.profile->points[2].x == 1024);
	assert_true(r.profile->points[1].y > 10 * r.profile->points[2].y);
	sibyl_plan_result_free(&r);
	sibyl_call_mix_free(&mix);
}

/* The staircase, 1009's first run in the worker losing its CPU. */
static int measure_staircase_lost(void *ctx, const uint64_t *metrics, size_t n, double *seconds,
				  char *err, size_t errlen)
{
	bool *met = ctx;

	measure_staircase(NULL, metrics, n, seconds, err, errlen);
	for (size_t i = 0; i < n; i++)
		if (metrics[i] == 1009 && !*met) {
			seconds[i] = -seconds[i];
			*met = true;
		}
	return 0;
}

/* A metric called twice keeps its point when its first run lost the CPU
 * and left the samples: one short of two a pass, 1009 fell into 1100's
 * group, whose point read 9.8 us against 1009's 14.1. */
static void test_repeated_metric_lost_first_alone(void **state)
{
	(void)state;
	uint64_t m[] = { 10, 1009, 1100, 1009, 1200, 2000 };
	struct sibyl_call_mix mix = mix_of(m, 6);
	struct sibyl_plan_params p;
	struct sibyl_plan_result r;
	bool met = false;

	mix.v[1].calls = 2;	/* 10, 1009 (twice), 1100, 1200, 2000 */
	memmove(&mix.v[2], &mix.v[3], 3 * sizeof(*mix.v));
	mix.n = 5;
	sibyl_plan_defaults(&p);
	p.max_samples = 12;	/* two passes */
	assert_int_equal(sibyl_plan_replay(&p, &mix, measure_staircase_lost, &met, NULL, NULL,
					   &r), 0);
	assert_true(met);
	/* 10, 1009 alone, 1100 and 1200 (one call each) grouped, 2000. */
	assert_int_equal(r.profile->npoints, 4);
	assert_true(r.profile->points[1].x == 1009 && r.profile->points[2].x == 1150);
	assert_float_equal(r.profile->points[1].y, 14e-6 * 1009 / 1000, 1e-12);
	sibyl_plan_result_free(&r);
	sibyl_call_mix_free(&mix);
}

/* A library that makes state per size on its first call there: each
 * metric's first run in the "worker" costs `first` times its warm time.
 * The worker's own first sample, before the replay, met the first
 * metric it was sent. */
struct per_size {
	double first;
	bool lost;		/* each first run lost the CPU (negated) */
	uint64_t met[16];
	size_t nmet;
};

static int measure_per_size(void *ctx, const uint64_t *metrics, size_t n, double *seconds,
			    char *err, size_t errlen)
{
	struct per_size *ps = ctx;

	(void)err;
	(void)errlen;
	if (!ps->nmet && n)
		ps->met[ps->nmet++] = metrics[0];
	for (size_t i = 0; i < n; i++) {
		bool met = false;

		for (size_t k = 0; k < ps->nmet; k++)
			met |= ps->met[k] == metrics[i];
		if (!met)
			ps->met[ps->nmet++] = metrics[i];
		seconds[i] = (met ? 1 : ps->first) * 1e-9 * (double)metrics[i];
		if (!met && ps->lost)
			seconds[i] = -seconds[i];
	}
	return 0;
}

static const uint64_t sizes_again[] = { 100, 200, 300, 100, 200, 300, 100, 200, 300, 400 };

static int replay_sizes(struct per_size *ps, struct sibyl_plan_result *r)
{
	struct sibyl_call_mix mix = mix_of(sizes_again, 10);
	struct sibyl_plan_params p;

	mix.v[0] = (struct sibyl_mix_entry){ 100, 3, 3e-6 };
	mix.v[1] = (struct sibyl_mix_entry){ 200, 3, 3e-6 };
	mix.v[2] = (struct sibyl_mix_entry){ 300, 3, 3e-6 };
	mix.v[3] = (struct sibyl_mix_entry){ 400, 1, 1e-6 };
	mix.n = 4;
	sibyl_plan_defaults(&p);
	p.max_samples = 20;	/* two passes */
	int rc = sibyl_plan_replay(&p, &mix, measure_per_size, ps, NULL, NULL, r);

	sibyl_call_mix_free(&mix);
	return rc;
}

/* Each metric's first call, ten times its warm ones, is recorded apart
 * and kept out of the points, which are the warm calls' times; the
 * profile then charges it (sibyl_profile_first_call_at). */
static void test_first_calls_apart(void **state)
{
	(void)state;
	struct per_size ps = { .first = 10 };
	struct sibyl_plan_result r;

	assert_int_equal(replay_sizes(&ps, &r), 0);
	assert_int_equal(r.samples, 20);
	assert_int_equal(r.profile->nsamples, 17);	/* 200, 300, 400's first runs apart */
	assert_int_equal(r.profile->npoints, 4);
	for (size_t i = 0; i < 4; i++)
		assert_float_equal(r.profile->points[i].y, 1e-9 * r.profile->points[i].x, 1e-15);
	json_t *metrics = json_object_get(r.first_calls, "metrics");

	assert_int_equal(json_array_size(metrics), 3);
	assert_float_equal(json_number_value(json_array_get(json_array_get(metrics, 0), 0)), 200, 0);
	assert_float_equal(json_number_value(json_array_get(json_array_get(metrics, 2), 1)),
			   4000e-9, 1e-15);
	r.profile->stats = json_pack("{s{sO}}", "one_time", "first_calls", r.first_calls);
	assert_float_equal(sibyl_profile_first_call_at(r.profile, 300), 2700e-9, 1e-15);
	assert_true(isnan(sibyl_profile_first_call_at(r.profile, 100)));	/* the worker's first */
	assert_true(isnan(sibyl_profile_first_call_at(r.profile, 250)));
	sibyl_plan_result_free(&r);
}

/* First calls no dearer than the others stay samples: nothing apart. */
static void test_first_calls_like_others(void **state)
{
	(void)state;
	struct per_size ps = { .first = 1.05 };	/* within --sample-error */
	struct sibyl_plan_result r;

	assert_int_equal(replay_sizes(&ps, &r), 0);
	assert_null(r.first_calls);
	assert_int_equal(r.profile->nsamples, 20);
	sibyl_plan_result_free(&r);
}

/* A first call that lost its CPU is neither a first call nor a sample
 * of its metric: 400, called once a pass, would have been half of its
 * point's median of two (at an edge, 400's point is its own). */
static void test_lost_first_calls_dropped(void **state)
{
	(void)state;
	struct per_size ps = { .first = 3, .lost = true };
	struct sibyl_plan_result r;

	assert_int_equal(replay_sizes(&ps, &r), 0);
	assert_null(r.first_calls);
	assert_int_equal(r.profile->nsamples, 17);	/* 200, 300, 400's first runs */
	assert_int_equal(r.profile->npoints, 4);
	for (size_t i = 0; i < 4; i++)
		assert_float_equal(r.profile->points[i].y, 1e-9 * r.profile->points[i].x, 1e-15);
	sibyl_plan_result_free(&r);
}

/* A guided plan's first runs come as the runs come, its points at the
 * machine's best (the speed guard): the first call is weighed against
 * its metric's unguarded rounds, and its excess is their ratio applied
 * to the profile's time there.  Against the profile's time, 300's first
 * run (3 x 360 ns unguarded, 300 ns at best) read 780 ns of excess,
 * which predict's typical factor (1.2) then charged again. */
static void test_guided_first_calls_same_base(void **state)
{
	(void)state;
	uint64_t metrics[] = { 200, 300 };
	double first[] = { 3 * 240e-9, 3 * 360e-9 };
	struct sibyl_point unguarded[] = { { 200, 240e-9 }, { 200, 240e-9 }, { 300, 360e-9 },
					   { 300, 360e-9 } };
	struct sibyl_point points[] = { { 200, 200e-9 }, { 300, 300e-9 } };
	struct sibyl_profile prof = { .points = points, .npoints = 2, .lo = 200, .hi = 300 };
	json_t *j = sibyl_first_runs_guided(metrics, first, 2, unguarded, 4, 0.1);

	assert_non_null(j);
	prof.stats = json_pack("{s{so}}", "one_time", "first_calls", j);
	assert_float_equal(sibyl_profile_first_call_at(&prof, 300), 600e-9, 1e-15);
	assert_float_equal(sibyl_profile_first_call_at(&prof, 200), 400e-9, 1e-15);
	assert_true(sibyl_profile_first_calls_in_points_base(&prof));
	json_decref(prof.stats);
	/* A file from before the base was written: its excess is not scaled
	 * again by predict's typical factor. */
	prof.stats = json_pack("{s{s{s[[ifd]]}}}", "one_time", "first_calls", "metrics", 300,
			       3 * 360e-9, 300e-9);
	assert_false(sibyl_profile_first_calls_in_points_base(&prof));
	json_decref(prof.stats);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_fit_twice),
		cmocka_unit_test(test_repeated_metric_lost_first_alone),
		cmocka_unit_test(test_windows),
		cmocka_unit_test(test_small_budgets),
		cmocka_unit_test(test_traced_order),
		cmocka_unit_test(test_failed_pass_keeps_whole_ones),
		cmocka_unit_test(test_repeated_metrics_alone),
		cmocka_unit_test(test_repeated_calls),
		cmocka_unit_test(test_first_calls_apart),
		cmocka_unit_test(test_first_calls_like_others),
		cmocka_unit_test(test_lost_first_calls_dropped),
		cmocka_unit_test(test_guided_first_calls_same_base),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
