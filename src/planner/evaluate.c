/* --evaluate: planner profile and baselines against fresh measurements. */
#include "planner/evaluate.h"
#include "core/alloc.h"
#include "core/clock.h"
#include "core/log.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add_error(double *sum, double *sq, double pred, double meas)
{
	double e = (pred - meas) / meas;

	*sum += fabs(e);
	*sq += e * e;
}

static struct sibyl_error finish(double sum, double sq, size_t n)
{
	if (!n)
		return (struct sibyl_error){ NAN, NAN };
	return (struct sibyl_error){ 100 * sum / (double)n, 100 * sqrt(sq / (double)n) };
}

/* A random work metric, or random invocation parameters and their
 * metric. */
static int draw_point(const struct sibyl_plan_params *p, const struct sibyl_param_eval *pe,
		      uint64_t *rng, struct sibyl_eval_point *pt, char *err, size_t errlen)
{
	memset(pt, 0, sizeof(*pt));
	if (!pe) {
		pt->x = (double)sibyl_random_between(rng, p->lo, p->hi);
		return 0;
	}
	pt->nparams = pe->draw(sibyl_random(rng), p->lo, p->hi, pt->params);
	pt->x = pe->metric_of && pt->nparams && pt->nparams <= SIBYL_MAX_PARAMS ?
		pe->metric_of(pt->params, pt->nparams) : -1;
	if (!(pt->x >= 0))
		return sibyl_seterr(err, errlen, "drew %zu parameters without a work metric",
				    pt->nparams);
	return 0;
}

static int measure_point(sibyl_measure_fn measure, void *ctx, const struct sibyl_param_eval *pe,
			 const struct sibyl_eval_point *pt, double *y, char *err,
			 size_t errlen)
{
	return pt->nparams ? pe->measure(ctx, pt->params, pt->nparams, (uint64_t)llround(pt->x), y,
					 err, errlen)
			   : measure(ctx, (uint64_t)pt->x, y, err, errlen);
}

/*
 * One measurement of each point, into its measured[pass].  A measurement
 * that came back unguarded (timed while the machine ran slow) is taken
 * again after all the others, when the slow stretch has most likely
 * passed, up to EVAL_RETRIES times; a point that never comes back guarded
 * keeps its fastest measurement (a slow machine only ever adds time).
 * The evaluation's reference then is the same as the planner's: the time
 * at the machine's best speed.
 */
#define EVAL_RETRIES 3

int sibyl_eval_measure_pass(sibyl_measure_fn measure, void *ctx,
			    const struct sibyl_param_eval *pe, struct sibyl_eval_point *pts,
			    size_t n, int pass, struct sibyl_eval *e, char *err, size_t errlen)
{
	bool *again = calloc(n ? n : 1, sizeof(*again));
	int rc = -1;

	if (!again)
		return sibyl_seterr(err, errlen, "out of memory");
	for (int round = 0; round <= EVAL_RETRIES; round++)
		for (size_t i = 0; i < n; i++) {
			double t, *y = &pts[i].measured[pass];
			int got;

			if (round && !again[i])
				continue;
			got = measure_point(measure, ctx, pe, &pts[i], &t, err, errlen);
			if (got < 0)
				goto out;
			bool guarded = got != SIBYL_MEASURE_UNGUARDED;

			e->remeasured += round > 0;
			if (round == 0 || guarded || t < *y)
				*y = t;
			if (round == 0 || guarded)
				again[i] = !guarded;
		}
	for (size_t i = 0; i < n; i++)
		e->unguarded += again[i];
	rc = 0;
out:
	free(again);
	return rc;
}

/* Measure a baseline's work metrics xs[0..n) into points (malloc'd). */
static int measure_metrics(const uint64_t *xs, size_t n, sibyl_measure_fn measure, void *ctx,
			   struct sibyl_point **points, struct sibyl_eval *e, char *err,
			   size_t errlen)
{
	struct sibyl_eval_point *at = calloc(n ? n : 1, sizeof(*at));
	int rc = -1;

	*points = calloc(n ? n : 1, sizeof(**points));
	if (!at || !*points) {
		sibyl_seterr(err, errlen, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		at[i].x = (double)xs[i];
	if (sibyl_eval_measure_pass(measure, ctx, NULL, at, n, 0, e, err, errlen))
		goto out;
	for (size_t i = 0; i < n; i++)
		(*points)[i] = (struct sibyl_point){ at[i].x, at[i].measured[0] };
	rc = 0;
out:
	free(at);
	return rc;
}

/* Measure the uniform baseline's samples and turn them into a profile. */
static int uniform_profile(const struct sibyl_plan_params *p, size_t budget,
			   sibyl_measure_fn measure, void *ctx, struct sibyl_profile *u,
			   struct sibyl_eval *e, char *err, size_t errlen)
{
	size_t n;
	uint64_t *xs = sibyl_uniform_metrics(p->lo, p->hi, budget, &n);
	int rc = measure_metrics(xs, n, measure, ctx, &u->points, e, err, errlen);

	u->npoints = rc ? 0 : n;
	free(xs);
	return rc;
}

/*
 * The history baseline's past runs: budget random work metrics drawn as
 * the evaluation's are (uniform over the range, from a stream of their
 * own), as a StarPU user's history holds the sizes the program ran
 * before.  Over a small range some repeat, and the evaluation meets
 * them again; over a wide one the model is mostly its regression.
 */
static int history_model(const struct sibyl_plan_params *p, size_t budget,
			 sibyl_measure_fn measure, void *ctx, struct sibyl_eval *e, char *err,
			 size_t errlen)
{
	uint64_t rng = p->seed ^ 0x4157a2c0ull, *xs = sibyl_xmalloc(budget * sizeof(*xs));
	struct sibyl_point *m = NULL;
	int rc;

	for (size_t i = 0; i < budget; i++)
		xs[i] = sibyl_random_between(&rng, p->lo, p->hi);
	rc = measure_metrics(xs, budget, measure, ctx, &m, e, err, errlen);
	if (rc == 0)
		sibyl_history_build(&e->history_model, m, budget);
	free(xs);
	free(m);
	return rc;
}

/*
 * The predictions and errors.  A point beyond the profile's points (an
 * incomplete profile, planning stopped early) would be extrapolated from
 * its last segment: the three are scored over the covered points alone,
 * and the extrapolated points apart (e->outside), so that stopping early
 * shows as what it is rather than as a profile's error.
 */
static void score(const struct sibyl_profile *prof, struct sibyl_eval *e, bool have_power,
		  double a, double b, double c)
{
	double s[5] = { 0 }, q[5] = { 0 }, diff = 0;
	size_t inside = 0;

	for (size_t i = 0; i < e->n; i++) {
		struct sibyl_eval_point *pt = &e->points[i];
		const double *m = pt->measured;
		enum sibyl_cover where = sibyl_profile_cover(prof, pt->x);

		pt->planner = sibyl_profile_eval(prof, pt->x);
		pt->uniform = sibyl_profile_eval(&e->uniform_profile, pt->x);
		pt->power = have_power ? a * pow(pt->x, b) + c : NAN;
		pt->history = sibyl_history_predict(&e->history_model, pt->x, &pt->history_seen);
		pt->outside = where == SIBYL_COVER_BELOW || where == SIBYL_COVER_ABOVE;
		diff += fabs(m[0] - m[1]) / ((m[0] + m[1]) / 2);
		if (pt->outside) {
			add_error(&s[3], &q[3], pt->planner, m[0]);
			e->outside_n++;
			continue;
		}
		inside++;
		add_error(&s[0], &q[0], pt->planner, m[0]);
		add_error(&s[1], &q[1], pt->uniform, m[0]);
		add_error(&s[2], &q[2], pt->power, m[0]);
		add_error(&s[4], &q[4], pt->history, m[0]);
		e->history_hits += pt->history_seen;
	}
	e->planner = finish(s[0], q[0], inside);
	e->uniform = finish(s[1], q[1], inside);
	e->power = finish(s[2], q[2], inside);
	e->history = finish(s[4], q[4], inside);
	e->outside = finish(s[3], q[3], e->outside_n);
	e->noise_pct = 100 * diff / (double)e->n / sqrt(2);
}

static int check_input(const struct sibyl_profile *prof, const struct sibyl_plan_params *p,
		       size_t n, size_t budget, const struct sibyl_param_eval *pe, char *err,
		       size_t errlen)
{
	if (n < 1 || n > SIBYL_EVAL_MAX_POINTS)
		return sibyl_seterr(err, errlen, "evaluate: %zu is not between 1 and %d", n,
				    SIBYL_EVAL_MAX_POINTS);
	if (budget < 1)
		return sibyl_seterr(err, errlen, "no samples for the baselines (a budget of 0)");
	if (!prof->npoints)
		return sibyl_seterr(err, errlen, "no profile points to evaluate");
	if (pe && !(pe->draw && pe->measure))
		return sibyl_seterr(err, errlen, "parameters to draw without a way to draw or "
				    "measure them");
	return sibyl_plan_check(p, err, errlen);
}

int sibyl_plan_evaluate(const struct sibyl_profile *prof, const struct sibyl_plan_params *p,
			size_t n, size_t budget, sibyl_measure_fn measure, void *ctx,
			const struct sibyl_param_eval *pe, struct sibyl_eval *e, char *err,
			size_t errlen)
{
	double t0 = (double)sibyl_mono_ns(), a = 0, b = 0, c = 0;
	uint64_t rng = p->seed ^ 0x5eedf00dull;

	memset(e, 0, sizeof(*e));
	if (check_input(prof, p, n, budget, pe, err, errlen))
		return -1;
	struct sibyl_eval_point *pts = sibyl_xcalloc(n, sizeof(*pts));
	int rc = -1;

	e->n = n;
	e->points = pts;
	e->budget = budget;
	e->by_params = pe != NULL;
	if (uniform_profile(p, budget, measure, ctx, &e->uniform_profile, e, err, errlen))
		goto out;
	const struct sibyl_profile *uni = &e->uniform_profile;
	double *ux = sibyl_xmalloc(uni->npoints * sizeof(*ux));
	double *uy = sibyl_xmalloc(uni->npoints * sizeof(*uy));

	for (size_t i = 0; i < uni->npoints; i++)
		ux[i] = uni->points[i].x, uy[i] = uni->points[i].y;
	bool have_power = sibyl_power_fit(ux, uy, uni->npoints, &a, &b, &c) == 0;

	free(ux);
	free(uy);
	for (size_t i = 0; i < n; i++)
		if (draw_point(p, pe, &rng, &pts[i], err, errlen))
			goto out;
	/* The second pass comes after all of the first, so the noise floor
	 * also sees the machine's slow phases (seconds to minutes), which
	 * separate planning from evaluation too; back-to-back pairs would
	 * share them. */
	for (int pass = 0; pass < 2; pass++)
		if (sibyl_eval_measure_pass(measure, ctx, pe, pts, n, pass, e, err, errlen))
			goto out;
	if (history_model(p, budget, measure, ctx, e, err, errlen))
		goto out;
	score(prof, e, have_power, a, b, c);
	e->power_a = a, e->power_b = b, e->power_c = c;
	rc = 0;
out:
	e->seconds = ((double)sibyl_mono_ns() - t0) * 1e-9;
	return rc;
}

void sibyl_eval_free(struct sibyl_eval *e)
{
	free(e->points);
	free(e->uniform_profile.points);
	sibyl_history_free(&e->history_model);
	e->points = NULL;
	e->uniform_profile.points = NULL;
}

int sibyl_eval_write_csv(const struct sibyl_eval *e, FILE *f)
{
	fprintf(f, "work_metric,params,measured_s,measured_again_s,planner_s,uniform_s,power_s,"
		"history_s\n");
	for (size_t i = 0; i < e->n; i++) {
		const struct sibyl_eval_point *pt = &e->points[i];

		fprintf(f, "%.17g,", pt->x);
		for (size_t k = 0; k < pt->nparams; k++)
			fprintf(f, "%s%.17g", k ? ";" : "", pt->params[k]);
		fprintf(f, ",%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", pt->measured[0], pt->measured[1],
			pt->planner, pt->uniform, pt->power, pt->history);
	}
	return fflush(f) || ferror(f) ? -1 : 0;
}
