/* The planner on synthetic piecewise-linear functions with known
 * breakpoints: a test adapter measured in-process, with seeded noise. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "planner/planner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct synthetic {
	const double *bx, *by;     /* true breakpoints (x, seconds), ascending */
	size_t n;
	double noise;              /* relative, uniform +-noise */
	uint64_t rng;
	size_t calls;
};

static double truth(const struct synthetic *s, double x)
{
	size_t k = 1;

	while (k + 1 < s->n && s->bx[k] < x)
		k++;
	return s->by[k - 1] + (s->by[k] - s->by[k - 1]) * (x - s->bx[k - 1]) /
	       (s->bx[k] - s->bx[k - 1]);
}

static int measure(void *ctx, uint64_t metric, double *seconds, char *err, size_t errlen)
{
	struct synthetic *s = ctx;
	double u = (double)(sibyl_random(&s->rng) >> 11) / 9007199254740992.0;

	(void)err;
	(void)errlen;
	s->calls++;
	*seconds = truth(s, (double)metric) * (1 + s->noise * (2 * u - 1));
	return 0;
}

static struct sibyl_plan_result plan(struct synthetic *s, uint64_t lo, uint64_t hi,
				     uint64_t seed, double threshold)
{
	struct sibyl_plan_params p;
	struct sibyl_plan_result r;

	sibyl_plan_defaults(&p);
	p.max_seconds = 0; /* the outcome depends on the seed alone, not on the clock */
	if (threshold > 0)
		p.segment_error = p.sample_error = threshold;
	p.lo = lo;
	p.hi = hi;
	p.seed = seed;
	s->rng = seed * 7 + 1;
	assert_int_equal(sibyl_plan_run(&p, measure, s, NULL, NULL, &r), 0);
	assert_int_equal(r.status, SIBYL_PLAN_DONE);
	assert_non_null(r.profile);
	assert_true(r.profile->complete);
	return r;
}

/* Every true breakpoint has a profile point within tol (work metric), and
 * the profile predicts the noise-free function within max_err. */
static void check(const struct synthetic *s, const struct sibyl_plan_result *r, double tol,
		  double max_err)
{
	const struct sibyl_profile *p = r->profile;

	for (size_t k = 1; k + 1 < s->n; k++) {
		double best = INFINITY;

		for (size_t j = 0; j < p->npoints; j++)
			best = fmin(best, fabs(p->points[j].x - s->bx[k]));
		if (best > tol)
			fail_msg("breakpoint %g: nearest profile point %g away (%zu points, %zu samples)",
				 s->bx[k], best, p->npoints, r->samples);
	}
	assert_float_equal(p->points[0].x, s->bx[0], 0);
	assert_float_equal(p->points[p->npoints - 1].x, s->bx[s->n - 1], 0);
	for (double x = s->bx[0]; x <= s->bx[s->n - 1]; x += (s->bx[s->n - 1] - s->bx[0]) / 997) {
		double want = truth(s, x), got = sibyl_profile_eval(p, x);

		if (fabs(got - want) > max_err * want)
			fail_msg("at %g: profile %g, truth %g", x, got, want);
	}
	assert_int_equal(p->nsamples, r->samples);
}

static void test_two_breakpoints(void **state)
{
	(void)state;
	/* Slopes 1, 4 and 1 ns per unit over a 10 us offset.  A line across
	 * the second kink stays within 6% of the truth, so the default 10%
	 * thresholds may merge it: ask for 3%. */
	static const double bx[] = { 1, 20000, 60000, 100000 };
	static const double by[] = { 10e-6, 30e-6, 190e-6, 230e-6 };

	for (uint64_t seed = 1; seed <= 5; seed++) {
		struct synthetic s = { bx, by, 4, 0.01, 0, 0 };
		struct sibyl_plan_result r = plan(&s, 1, 100000, seed, 0.03);

		check(&s, &r, 0.03 * 100000, 0.03);
		assert_int_equal(s.calls, r.samples);
		sibyl_plan_result_free(&r);
	}
}

/*
 * Flat, then ten times steeper: a cache falling out, say.  One seed
 * proves little here: with 10% thresholds a line may cross the kink
 * wherever no sample sits near it, so the profile misses the truth by
 * more than 3% somewhere in about half of all seeds (by up to 20% in the
 * worst of a hundred, with either fit).  What the planner promises is
 * the threshold over nearly all of the range and the kink found, in
 * every seed, within two growth steps (2 x 10% of its work metric: the
 * chain grows by about one step per sample there).
 */
static void test_steep_kink(void **state)
{
	(void)state;
	static const double bx[] = { 1, 3000, 10000 };
	static const double by[] = { 1e-3, 1.3e-3, 8.3e-3 };
	size_t grid = 0, within10 = 0, within3 = 0;

	for (uint64_t seed = 1; seed <= 100; seed++) {
		struct synthetic s = { bx, by, 3, 0.005, 0, 0 };
		struct sibyl_plan_result r = plan(&s, 1, 10000, seed, 0);

		check(&s, &r, 2 * 0.10 * 3000, INFINITY);
		for (double x = 1; x <= 10000; x += 10, grid++) {
			double e = fabs(sibyl_profile_eval(r.profile, x) / truth(&s, x) - 1);

			within10 += e <= 0.10;
			within3 += e <= 0.03;
		}
		sibyl_plan_result_free(&r);
	}
	if (within10 < 0.99 * (double)grid || within3 < 0.90 * (double)grid)
		fail_msg("within 10%% of the truth: %.1f%% of the range, within 3%%: %.1f%%",
			 100.0 * (double)within10 / (double)grid, 100.0 * (double)within3 / (double)grid);
}

/*
 * Bent between the smallest integer work metrics: longest common
 * subsequence against 256 characters costs 557 ns for one character, 509
 * more for the second, 341 for the third and about 380 for each after
 * (measured here).  A segment that can chain holds at least three work
 * metrics, and no line fits 1, 2 and 3 within the curvature check's 2%,
 * yet no shorter segment can take its place: the planner must accept
 * it rather than sample 1 to 4 until its safety stop.
 */
static void test_bent_at_smallest_metrics(void **state)
{
	(void)state;
	static const double bx[] = { 1, 2, 3, 100000 };
	static const double by[] = { 557e-9, 1066e-9, 1407e-9, 1407e-9 + 380e-9 * 99997 };

	for (uint64_t seed = 1; seed <= 3; seed++) {
		struct synthetic s = { bx, by, 4, 0.02, 0, 0 };
		struct sibyl_plan_result r = plan(&s, 1, 100000, seed, 0);

		check(&s, &r, INFINITY, 0.10);
		sibyl_plan_result_free(&r);
	}
}

static void test_deterministic(void **state)
{
	(void)state;
	static const double bx[] = { 1, 500, 2000 };
	static const double by[] = { 1e-6, 5e-6, 50e-6 };
	struct synthetic s1 = { bx, by, 3, 0.02, 0, 0 }, s2 = s1;
	struct sibyl_plan_result a = plan(&s1, 1, 2000, 9, 0),
				  b = plan(&s2, 1, 2000, 9, 0);

	assert_int_equal(a.samples, b.samples);
	assert_memory_equal(a.taken, b.taken, a.samples * sizeof(*a.taken));
	assert_int_equal(a.profile->npoints, b.profile->npoints);
	sibyl_plan_result_free(&a);
	sibyl_plan_result_free(&b);
}

/* The same noise on a busy machine: every sample pre-empted. */
static int measure_preempted(void *ctx, uint64_t metric, double *seconds, char *err,
			     size_t errlen)
{
	return measure(ctx, metric, seconds, err, errlen) ? -1 : SIBYL_MEASURE_PREEMPTED;
}

static void test_safety_stop(void **state)
{
	(void)state;
	/* 60% noise never gives a 10%-wide interval within 50 samples. */
	static const double bx[] = { 1, 100000 };
	static const double by[] = { 1e-6, 1e-6 };
	struct synthetic s = { bx, by, 2, 0.6, 1, 0 };
	struct sibyl_plan_params p;
	struct sibyl_plan_result r;

	sibyl_plan_defaults(&p);
	p.lo = 1;
	p.hi = 100000;
	p.max_samples = 50;
	/* Repeats that disagree by 60% are diagnosed before the limit
	 * (diagnose.h); without the diagnosis, the safety stop ends it. */
	assert_int_equal(sibyl_plan_run(&p, measure, &s, NULL, NULL, &r), -1);
	assert_int_equal(r.status, SIBYL_PLAN_DIAGNOSED);
	assert_true(r.samples < 50);
	assert_non_null(strstr(r.message, "repeats at one work metric disagree"));
	sibyl_plan_result_free(&r);
	s.calls = 0;
	p.no_diagnosis = true;
	assert_int_equal(sibyl_plan_run(&p, measure, &s, NULL, NULL, &r), -1);
	assert_int_equal(r.status, SIBYL_PLAN_LIMIT);
	assert_int_equal(r.samples, 50);
	assert_non_null(strstr(r.message, "--max-samples"));
	/* No segment was found, and the samples are kept all the same. */
	assert_true(r.chain_end < 1);
	assert_non_null(r.profile);
	assert_false(r.profile->complete);
	assert_int_equal(r.profile->npoints, 0);
	assert_int_equal(r.profile->nsamples, 50);
	sibyl_plan_result_free(&r);
	/* Repeats that scatter while the worker is pre-empted are the
	 * machine's, not the implementation's: with the diagnosis on,
	 * planning still goes on to its safety stop, every sample kept. */
	s.calls = 0;
	p.no_diagnosis = false;
	assert_int_equal(sibyl_plan_run(&p, measure_preempted, &s, NULL, NULL, &r), -1);
	assert_int_equal(r.status, SIBYL_PLAN_LIMIT);
	assert_int_equal(r.samples, 50);
	assert_int_equal(r.skipped, 0);
	sibyl_plan_result_free(&r);
}

/* Every `every`-th measurement (from the `from`-th call on, all of them
 * when every is 1) comes back unguarded and, like a run in a slow phase,
 * 1.5 times slow. */
struct slow_phases {
	struct synthetic s;
	unsigned every, from;
	size_t unguarded;
	uint64_t left_out;         /* the last work metric left out, 0: none */
};

static int measure_slow_phases(void *ctx, uint64_t metric, double *seconds, char *err,
			       size_t errlen)
{
	struct slow_phases *sp = ctx;

	/* A sample left out is taken again at the same work metric (with
	 * every > 1 no two in a row are unguarded, so every one is left out). */
	if (sp->left_out && sp->every > 1)
		assert_int_equal(metric, sp->left_out);
	sp->left_out = 0;
	measure(&sp->s, metric, seconds, err, errlen);
	if (sp->s.calls < sp->from || sp->s.calls % sp->every)
		return 0;
	sp->unguarded++;
	sp->left_out = metric;
	*seconds *= 1.5;
	return SIBYL_MEASURE_UNGUARDED;
}

static void test_unguarded_left_out(void **state)
{
	(void)state;
	static const double bx[] = { 1, 20000, 60000, 100000 };
	static const double by[] = { 10e-6, 30e-6, 190e-6, 230e-6 };
	struct sibyl_plan_params p;
	struct sibyl_plan_result r;

	sibyl_plan_defaults(&p);
	p.max_seconds = 0;
	p.segment_error = p.sample_error = 0.03;
	p.lo = 1;
	p.hi = 100000;
	/* One in four unguarded: all of them left out and their work metrics
	 * measured again, the profile as good as one planned without them. */
	for (uint64_t seed = 1; seed <= 3; seed++) {
		struct slow_phases sp = { { bx, by, 4, 0.01, seed * 7 + 1, 0 }, 4, 0, 0, 0 };

		p.seed = seed;
		assert_int_equal(sibyl_plan_run(&p, measure_slow_phases, &sp, NULL, NULL, &r), 0);
		assert_true(sp.unguarded > 0);
		assert_int_equal(r.skipped, sp.unguarded);
		assert_int_equal(r.samples + r.skipped, sp.s.calls);
		check(&sp.s, &r, 0.03 * 100000, 0.03);
		sibyl_plan_result_free(&r);
	}
	/* Every sample unguarded (a machine that stays slow): three in a row
	 * are left out, the fourth is kept, and planning ends. */
	struct slow_phases sp = { { bx, by, 4, 0.01, 8, 0 }, 1, 0, 0, 0 };

	p.seed = 1;
	p.segment_error = p.sample_error = 0.10;
	assert_int_equal(sibyl_plan_run(&p, measure_slow_phases, &sp, NULL, NULL, &r), 0);
	assert_int_equal(r.samples + r.skipped, sp.s.calls);
	assert_int_equal(r.skipped, 3 * r.samples);
	sibyl_plan_result_free(&r);
	/* Left-out samples count toward the safety stop. */
	sp = (struct slow_phases){ { bx, by, 4, 0.6, 8, 0 }, 2, 0, 0, 0 };
	p.max_samples = 40;
	p.no_diagnosis = true;      /* 60% noise is diagnosed otherwise */
	assert_int_equal(sibyl_plan_run(&p, measure_slow_phases, &sp, NULL, NULL, &r), -1);
	assert_int_equal(r.status, SIBYL_PLAN_LIMIT);
	assert_int_equal(r.samples + r.skipped, 40);
	assert_int_equal(r.skipped, 20);
	sibyl_plan_result_free(&r);
}

/* A busy hour: every measurement unguarded, and the one the planner
 * keeps after leaving three out (every fourth call) 1.5 times slow, as a
 * slow stretch would make any of them. */
static int measure_busy_hour(void *ctx, uint64_t metric, double *seconds, char *err,
			     size_t errlen)
{
	struct synthetic *s = ctx;

	measure(s, metric, seconds, err, errlen);
	if (s->calls % 4 == 0)
		*seconds *= 1.5;
	return SIBYL_MEASURE_UNGUARDED;
}

/* The defaults over 1..100000, without the time limit (a synthetic plan's
 * time is the test machine's). */
static void whole_range(struct sibyl_plan_params *p)
{
	sibyl_plan_defaults(p);
	p->max_seconds = 0;
	p->lo = 1;
	p->hi = 100000;
}

/* The planner keeps the fastest of the four measurements it took at a
 * work metric, not the last: the profile stays that of the implementation
 * (kept the last, every sample was 1.5 times slow). */
static void test_unguarded_keeps_the_fastest(void **state)
{
	static const double bx[] = { 1, 20000, 60000, 100000 };
	static const double by[] = { 10e-6, 30e-6, 190e-6, 230e-6 };
	struct synthetic s = { bx, by, 4, 0.01, 8, 0 };
	struct sibyl_plan_params p;
	struct sibyl_plan_result r;

	(void)state;
	whole_range(&p);
	assert_int_equal(sibyl_plan_run(&p, measure_busy_hour, &s, NULL, NULL, &r), 0);
	assert_int_equal(r.skipped, 3 * r.samples);
	check(&s, &r, 0.10 * 100000, 0.10);
	sibyl_plan_result_free(&r);
}

/* Slow phases longer than a work metric's four measurements: every
 * measurement unguarded, and blocks of 40 calls alternately at the best
 * speed and 1.8 times slower, so neighbours kept in different phases
 * differ as a staircase would. */
static int measure_slow_blocks(void *ctx, uint64_t metric, double *seconds, char *err,
			       size_t errlen)
{
	struct synthetic *s = ctx;

	measure(s, metric, seconds, err, errlen);
	if ((s->calls / 40) % 2)
		*seconds *= 1.8;
	return SIBYL_MEASURE_UNGUARDED;
}

/* Such jumps and scattered repeats are the machine's: with a quarter of
 * the measurements unguarded they do not stop the plan as a diagnosis
 * (the safety limit does; without the rule, "repeats disagree" at 15
 * samples). */
static void test_slow_phases_are_not_a_staircase(void **state)
{
	static const double bx[] = { 1, 100000 };
	static const double by[] = { 1e-6, 1e-1 };
	struct synthetic s = { bx, by, 2, 0.005, 8, 0 };
	struct sibyl_plan_params p;
	struct sibyl_plan_result r;

	(void)state;
	whole_range(&p);
	p.max_samples = 1200;
	sibyl_plan_run(&p, measure_slow_blocks, &s, NULL, NULL, &r);
	if (r.status == SIBYL_PLAN_DIAGNOSED)
		fail_msg("%s (%zu samples)", r.message, r.samples);
	sibyl_plan_result_free(&r);
}

static void test_bad_params(void **state)
{
	(void)state;
	struct sibyl_plan_params p;
	char err[200];

	sibyl_plan_defaults(&p);
	p.lo = 10;
	p.hi = 5;
	assert_int_equal(sibyl_plan_check(&p, err, sizeof(err)), -1);
	p.hi = 1000;
	p.confidence = 1.5;
	assert_int_equal(sibyl_plan_check(&p, err, sizeof(err)), -1);
	p.confidence = 0.95;
	assert_int_equal(sibyl_plan_check(&p, err, sizeof(err)), 0);
	p.fit_error = 0;	/* off, as in the paper */
	assert_int_equal(sibyl_plan_check(&p, err, sizeof(err)), 0);
	p.fit_error = 1;
	assert_int_equal(sibyl_plan_check(&p, err, sizeof(err)), -1);
	assert_string_equal(err, "--fit-error: 100 is not a percentage between 0 and 100");
	p.fit_error = 0.02;
	p.growth = NAN;
	assert_int_equal(sibyl_plan_check(&p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--growth: "));
	p.growth = 0.1;
	p.max_seconds = -1;
	assert_int_equal(sibyl_plan_check(&p, err, sizeof(err)), -1);
	assert_string_equal(err, "--max-seconds: -1 is negative");
}

static int never_measured(void *ctx, uint64_t metric, double *seconds, char *err,
			  size_t errlen)
{
	(void)ctx;
	(void)seconds;
	(void)err;
	(void)errlen;
	fail_msg("work metric %llu measured with refused parameters", (unsigned long long)metric);
	return -1;
}

/* The planner checks its own input: bad parameters end the run before
 * any measurement, with the reason. */
static void test_run_refuses_bad_params(void **state)
{
	(void)state;
	struct sibyl_plan_params p;
	struct sibyl_plan_result r;

	sibyl_plan_defaults(&p);
	p.hi = 1000;
	p.segment_error = 0;
	assert_int_equal(sibyl_plan_run(&p, never_measured, NULL, NULL, NULL, &r), -1);
	assert_int_equal(r.status, SIBYL_PLAN_FAILED);
	assert_string_equal(r.message, "--segment-error: 0 is not a percentage between 0 and 100");
	assert_null(r.profile);
	sibyl_plan_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_breakpoints),
		cmocka_unit_test(test_steep_kink),
		cmocka_unit_test(test_bent_at_smallest_metrics),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_safety_stop),
		cmocka_unit_test(test_unguarded_left_out),
		cmocka_unit_test(test_unguarded_keeps_the_fastest),
		cmocka_unit_test(test_slow_phases_are_not_a_staircase),
		cmocka_unit_test(test_bad_params),
		cmocka_unit_test(test_run_refuses_bad_params),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
