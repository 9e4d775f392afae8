/* A planning request's defaults and checks, and a session's job and
 * adapter checks: every caller's input is refused with what and why. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "planner/evaluate.h"
#include "planner/session.h"

#include <string.h>

static struct sibyl_plan_session open_builtin(const char *name,
					      const struct sibyl_plan_settings *set, int expect,
					      char *err, size_t errlen)
{
	struct sibyl_plan_session s;

	assert_int_equal(sibyl_plan_session_open(&s, name, NULL, set, err, errlen), expect);
	return s;
}

static void test_defaults_pass(void **state)
{
	(void)state;
	struct sibyl_plan_settings set;
	char err[256];

	sibyl_plan_settings_defaults(&set);
	struct sibyl_plan_session s = open_builtin("insertion-sort", &set, 0, err, sizeof(err));
	const struct sibyl_plan_request *rq = &s.rq;

	/* The settings' percent and milliseconds are the planner's fractions
	 * and seconds. */
	assert_int_equal(rq->params.lo, rq->adapter->min_metric);
	assert_int_equal(rq->params.hi, rq->adapter->max_metric);
	assert_true(rq->params.segment_error == 0.10 && rq->params.confidence == 0.95);
	assert_true(rq->params.fit_error == 0.02 && rq->params.relative_fit);
	assert_true(rq->sampling.min_seconds == 1e-3 && rq->sampling.guard_tolerance == 0.10);
	assert_int_equal(rq->sampling.repeat, 3);
	assert_int_equal(rq->config.threads, 1);
	assert_true(rq->params.time_floor > 0);
	assert_int_equal(sibyl_plan_request_check(rq, err, sizeof(err)), 0);
	sibyl_plan_session_close(&s);
}

/* One bad setting at a time: the message names its option. */
static void expect_refused(void (*spoil)(struct sibyl_plan_settings *), const char *why)
{
	struct sibyl_plan_settings set;
	char err[256];

	sibyl_plan_settings_defaults(&set);
	spoil(&set);
	struct sibyl_plan_session s = open_builtin("insertion-sort", &set, -1, err, sizeof(err));

	if (!strstr(err, why))
		fail_msg("'%s' lacks '%s'", err, why);
	sibyl_plan_session_close(&s);
}

static void bad_range(struct sibyl_plan_settings *s) { s->range = "5:x"; }
static void negative_range(struct sibyl_plan_settings *s) { s->range = "-5:10"; }
static void backwards_range(struct sibyl_plan_settings *s) { s->range = "100:10"; }
static void bad_fit(struct sibyl_plan_settings *s) { s->fit = "wls"; }
static void zero_percent(struct sibyl_plan_settings *s) { s->segment_error = 0; }
static void negative_seed(struct sibyl_plan_settings *s) { s->seed = -1; }
static void zero_rounds(struct sibyl_plan_settings *s) { s->rounds = 0; }
static void long_sample(struct sibyl_plan_settings *s) { s->sample_ms = 20000; }
static void no_timeout(struct sibyl_plan_settings *s) { s->timeout = 0; }
static void long_guard(struct sibyl_plan_settings *s) { s->speed_guard = 4000; }
static void no_tolerance(struct sibyl_plan_settings *s) { s->guard_tolerance = 0; }
static void two_threads(struct sibyl_plan_settings *s) { s->threads = 2; }
static void many_threads(struct sibyl_plan_settings *s) { s->threads = 5000; }

static void test_settings_refused(void **state)
{
	(void)state;
	expect_refused(bad_range, "--range: '5:x' is not LO:HI");
	expect_refused(negative_range, "--range: '-5:10' is not LO:HI");
	expect_refused(backwards_range, "range 100:10 holds fewer than 5 work metrics");
	expect_refused(bad_fit, "--fit: 'wls' is neither 'relative' nor 'ols'");
	expect_refused(zero_percent, "--segment-error: 0 is not a percentage between 0 and 100");
	expect_refused(negative_seed, "--seed: -1 is negative");
	expect_refused(zero_rounds, "--rounds: 0 is not between 1 and 100");
	expect_refused(long_sample, "--sample-time: 20000 ms is not between 0 and 10000");
	expect_refused(no_timeout, "--timeout: 0 s is not above 0");
	expect_refused(long_guard, "--speed-guard: 4000 s is not between 0 and 3600");
	expect_refused(no_tolerance, "--speed-guard-tolerance: 0% is not above 0 and at most 100");
	expect_refused(two_threads, "--threads: adapter insertion-sort is single-threaded");
	expect_refused(many_threads, "--threads: 5000 is not between 1 and 4096");
}

/* A request changed by hand after sibyl_plan_request_init is checked
 * where it is used: planning it fails before any worker starts. */
static void test_plan_adapter_checks(void **state)
{
	(void)state;
	char err[256];
	struct sibyl_plan_session s = open_builtin("heap-sort", NULL, 0, err, sizeof(err));
	struct sibyl_plan_result r;

	s.rq.sampling.repeat = 0;
	assert_int_equal(sibyl_plan_adapter(&s.rq, &r, NULL), -1);
	assert_int_equal(r.status, SIBYL_PLAN_FAILED);
	assert_string_equal(r.message, "--repeat: 0 is not between 1 and 1000");
	assert_null(r.profile);
	sibyl_plan_session_close(&s);
}

static void test_unknown_adapter(void **state)
{
	(void)state;
	char err[512];
	struct sibyl_plan_session s = open_builtin("bogus", NULL, -1, err, sizeof(err));

	assert_non_null(strstr(err, "no adapter 'bogus' in builtin (known: heap-sort"));
	sibyl_plan_session_close(&s);
	assert_int_equal(sibyl_plan_session_open(&s, "heap-sort", "x.so", NULL, err, sizeof(err)),
			 -1);
	assert_string_equal(err, "name a built-in adapter or an adapter object, one of the two");
	sibyl_plan_session_close(&s);
}

static void expect_job(const struct sibyl_plan_job *job, const char *why)
{
	char err[256] = "";

	assert_int_equal(sibyl_plan_job_check(job, err, sizeof(err)), why ? -1 : 0);
	if (why)
		assert_string_equal(err, why);
}

static void test_jobs(void **state)
{
	(void)state;
	expect_job(&(struct sibyl_plan_job){ .output = "p.json" }, NULL);
	expect_job(&(struct sibyl_plan_job){ .evaluate = 5 }, NULL);
	expect_job(&(struct sibyl_plan_job){ .profile = "p.json", .evaluate = 5 }, NULL);
	expect_job(&(struct sibyl_plan_job){ 0 }, "-o PROFILE.json is required (or --evaluate N)");
	expect_job(&(struct sibyl_plan_job){ .profile = "p.json", .evaluate = 5, .output = "q" },
		   "--profile evaluates a stored profile: it needs --evaluate N (or --from-trace) and takes no -o");
	expect_job(&(struct sibyl_plan_job){ .evaluate = SIBYL_EVAL_MAX_POINTS + 1 },
		   "--evaluate: 1000001 is not between 1 and 1000000");
	expect_job(&(struct sibyl_plan_job){ .output = "p.json", .evaluate_csv = "e.csv" },
		   "--evaluate-csv needs --evaluate N");
	expect_job(&(struct sibyl_plan_job){ .output = "p.json", .evaluate_metrics = true },
		   "--evaluate-metrics needs --evaluate N");
}

static int never(void *ctx, uint64_t metric, double *seconds, char *err, size_t errlen)
{
	(void)ctx;
	(void)metric;
	(void)seconds;
	snprintf(err, errlen, "measured although the input was refused");
	return -1;
}

/* The evaluation checks its input too. */
static void test_evaluate_refuses(void **state)
{
	(void)state;
	static struct sibyl_point line[2] = { { 1, 1e-6 }, { 1000, 1e-3 } };
	struct sibyl_profile prof = { .lo = 1, .hi = 1000, .points = line, .npoints = 2 };
	struct sibyl_plan_params p;
	struct sibyl_eval e;
	char err[256];

	sibyl_plan_defaults(&p);
	p.lo = 1;
	p.hi = 1000;
	assert_int_equal(sibyl_plan_evaluate(&prof, &p, 0, 10, never, NULL, NULL, &e, err,
					     sizeof(err)), -1);
	assert_string_equal(err, "evaluate: 0 is not between 1 and 1000000");
	assert_int_equal(sibyl_plan_evaluate(&prof, &p, 5, 0, never, NULL, NULL, &e, err,
					     sizeof(err)), -1);
	assert_string_equal(err, "no samples for the baselines (a budget of 0)");
	p.confidence = 2;
	assert_int_equal(sibyl_plan_evaluate(&prof, &p, 5, 10, never, NULL, NULL, &e, err,
					     sizeof(err)), -1);
	assert_string_equal(err, "--confidence: 200 is not a percentage between 0 and 100");
	prof.npoints = 0;
	p.confidence = 0.95;
	assert_int_equal(sibyl_plan_evaluate(&prof, &p, 5, 10, never, NULL, NULL, &e, err,
					     sizeof(err)), -1);
	assert_string_equal(err, "no profile points to evaluate");
	sibyl_eval_free(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_pass),
		cmocka_unit_test(test_settings_refused),
		cmocka_unit_test(test_plan_adapter_checks),
		cmocka_unit_test(test_unknown_adapter),
		cmocka_unit_test(test_jobs),
		cmocka_unit_test(test_evaluate_refuses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
