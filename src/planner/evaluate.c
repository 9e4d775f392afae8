/* --evaluate: planner profile and baselines against fresh measurements. */
#include "planner/evaluate.h"
#include "core/clock.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void add_error(double *sum, double *sq, double pred, double meas)
{
	double e = (pred - meas) / meas;

	*sum += fabs(e);
	*sq += e * e;
}

static struct sibyl_error finish(double sum, double sq, size_t n)
{
	return (struct sibyl_error){ 100 * sum / (double)n, 100 * sqrt(sq / (double)n) };
}

/* Measure the uniform baseline's samples and turn them into a profile. */
static int uniform_profile(const struct sibyl_plan_params *p, size_t budget,
			   sibyl_measure_fn measure, void *ctx, struct sibyl_profile *u,
			   char *err, size_t errlen)
{
	size_t n;
	uint64_t *xs = sibyl_uniform_metrics(p->lo, p->hi, budget, &n);

	u->points = calloc(n, sizeof(*u->points));
	for (size_t i = 0; i < n; i++) {
		u->points[i].x = (double)xs[i];
		if (measure(ctx, xs[i], &u->points[i].y, err, errlen)) {
			free(xs);
			return -1;
		}
		u->npoints++;
	}
	free(xs);
	return 0;
}

/* One evaluation point: a random work metric, or random invocation
 * parameters and their metric; measured twice. */
static int measure_twice(const struct sibyl_plan_params *p, sibyl_measure_fn measure,
			 void *ctx, const struct sibyl_param_eval *pe, uint64_t *rng, double *x,
			 double y[2], char *err, size_t errlen)
{
	double params[SIBYL_MAX_PARAMS];
	size_t np;

	if (!pe) {
		uint64_t metric = sibyl_random_between(rng, p->lo, p->hi);

		*x = (double)metric;
		return measure(ctx, metric, &y[0], err, errlen) ||
		       measure(ctx, metric, &y[1], err, errlen) ? -1 : 0;
	}
	np = pe->draw(sibyl_random(rng), p->lo, p->hi, params);
	*x = np && np <= SIBYL_MAX_PARAMS ? pe->metric_of(params, np) : -1;
	if (!(*x >= 0))
		return snprintf(err, errlen, "drew %zu parameters without a work metric", np), -1;
	return pe->measure(ctx, params, np, &y[0], err, errlen) ||
	       pe->measure(ctx, params, np, &y[1], err, errlen) ? -1 : 0;
}

int sibyl_plan_evaluate(const struct sibyl_profile *prof, const struct sibyl_plan_params *p,
			size_t n, size_t budget, sibyl_measure_fn measure, void *ctx,
			const struct sibyl_param_eval *pe, struct sibyl_eval *e, char *err,
			size_t errlen)
{
	struct sibyl_profile uni = { 0 };
	double t0 = (double)sibyl_mono_ns(), a = 0, b = 0, c = 0;
	double s[3] = { 0 }, q[3] = { 0 }, diff = 0;
	uint64_t rng = p->seed ^ 0x5eedf00dull;
	int rc = -1;

	e->n = n;
	e->budget = budget;
	e->by_params = pe != NULL;
	if (uniform_profile(p, budget, measure, ctx, &uni, err, errlen))
		goto out;
	double *ux = malloc(uni.npoints * sizeof(*ux)), *uy = malloc(uni.npoints * sizeof(*uy));

	for (size_t i = 0; i < uni.npoints; i++)
		ux[i] = uni.points[i].x, uy[i] = uni.points[i].y;
	bool have_power = sibyl_power_fit(ux, uy, uni.npoints, &a, &b, &c) == 0;

	free(ux);
	free(uy);
	for (size_t i = 0; i < n; i++) {
		double x, y[2];

		if (measure_twice(p, measure, ctx, pe, &rng, &x, y, err, errlen))
			goto out;
		diff += fabs(y[0] - y[1]) / ((y[0] + y[1]) / 2);
		add_error(&s[0], &q[0], sibyl_profile_eval(prof, x), y[0]);
		add_error(&s[1], &q[1], sibyl_profile_eval(&uni, x), y[0]);
		add_error(&s[2], &q[2], have_power ? a * pow(x, b) + c : NAN, y[0]);
	}
	e->planner = finish(s[0], q[0], n);
	e->uniform = finish(s[1], q[1], n);
	e->power = finish(s[2], q[2], n);
	e->power_a = a, e->power_b = b, e->power_c = c;
	e->noise_pct = 100 * diff / (double)n / sqrt(2);
	rc = 0;
out:
	e->seconds = ((double)sibyl_mono_ns() - t0) * 1e-9;
	free(uni.points);
	return rc;
}
