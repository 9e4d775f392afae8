/* Plans guided by a program's calls (guided.h). */
#include "planner/guided.h"
#include "planner/evaluate.h"
#include "core/alloc.h"
#include "core/clock.h"
#include "core/json.h"
#include "core/log.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The unpicked entry with the most time, or -1. */
static long heaviest(const struct sibyl_call_mix *mix, const bool *picked)
{
	long best = -1;

	for (size_t i = 0; i < mix->n; i++)
		if (!picked[i] && (best < 0 || mix->v[i].seconds > mix->v[best].seconds))
			best = (long)i;
	return best;
}

/* The unpicked entry nearest (by index) the one where the calls'
 * cumulative share crosses q, or -1. */
static long at_quantile(const struct sibyl_call_mix *mix, const bool *picked, double q)
{
	double cum = 0, want = q * (double)mix->calls;
	size_t i = 0;

	while (i + 1 < mix->n && cum + (double)mix->v[i].calls < want)
		cum += (double)mix->v[i++].calls;
	for (size_t d = 0; d < mix->n; d++) {
		if (i + d < mix->n && !picked[i + d])
			return (long)(i + d);
		if (d <= i && !picked[i - d])
			return (long)(i - d);
	}
	return -1;
}

size_t sibyl_guided_pick(const struct sibyl_call_mix *mix, size_t count, bool *picked)
{
	size_t n = 0, quantiles = count > 2 ? (count - 2 + 1) / 2 : 1, q = 0;

	memset(picked, 0, mix->n * sizeof(*picked));
	if (count >= mix->n) {
		for (size_t i = 0; i < mix->n; i++)
			picked[i] = true;
		return mix->n;
	}
	for (size_t ends = 0; ends < 2 && n < count; ends++)
		if (!picked[ends ? mix->n - 1 : 0])
			picked[ends ? mix->n - 1 : 0] = true, n++;
	for (bool by_time = true; n < count; by_time = !by_time) {
		long i = by_time ? heaviest(mix, picked) :
			 at_quantile(mix, picked, ((double)q++ + 0.5) / (double)quantiles);

		if (i >= 0)
			picked[i] = true, n++;
	}
	return n;
}

/* The measure function, counted for the progress line. */
struct counted {
	sibyl_measure_fn measure;
	void *ctx;
	sibyl_guided_progress_fn progress;
	void *pctx;
	size_t done, planned;
};

static int measure_counted(void *ctx, uint64_t metric, double *seconds, char *err, size_t errlen)
{
	struct counted *c = ctx;
	int rc = c->measure(c->ctx, metric, seconds, err, errlen);

	c->done++;
	if (c->planned < c->done)
		c->planned = c->done;
	if (c->progress)
		c->progress(c->pctx, c->done, c->planned);
	return rc;
}

static void shuffle(struct sibyl_eval_point *v, size_t n, uint64_t *rng)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)(sibyl_random(rng) % i);
		struct sibyl_eval_point t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}

static int by_x(const void *a, const void *b)
{
	const struct sibyl_eval_point *x = a, *y = b;

	return (x->x > y->x) - (x->x < y->x);
}

static bool over_time(const struct sibyl_plan_params *p, double t0)
{
	return p->max_seconds > 0 && ((double)sibyl_mono_ns() - t0) * 1e-9 >= p->max_seconds;
}

/* The two passes' measurements of pts[i] disagree. */
static bool disagree(const struct sibyl_eval_point *pt, double tolerance)
{
	double a = pt->measured[0], b = pt->measured[1];

	return fabs(a - b) > tolerance * fmin(a, b);
}

/* Measure: two passes, then a third of the disagreeing points within
 * what is left of the budget.  third[i] holds that measurement (NAN:
 * none).  The number of measurements taken, or -1. */
static long measure_points(const struct sibyl_plan_params *p, struct counted *c,
			   struct sibyl_eval_point *pts, size_t n, double *third,
			   struct sibyl_eval *e, double t0, char *err, size_t errlen)
{
	uint64_t rng = p->seed ^ 0x9d1dedull;
	size_t taken = 0, budget = p->max_samples ? p->max_samples : SIZE_MAX;

	for (int pass = 0; pass < 2; pass++) {
		if (pass && (over_time(p, t0) || taken + n > budget))
			break;
		shuffle(pts, n, &rng);
		if (sibyl_eval_measure_pass(measure_counted, c, NULL, pts, n, pass, e, err, errlen))
			return -1;
		taken += n;
	}
	qsort(pts, n, sizeof(*pts), by_x);
	for (size_t i = 0; i < n; i++) {
		struct sibyl_eval_point one = pts[i];

		third[i] = NAN;
		if (taken < 2 * n || taken >= budget || over_time(p, t0) ||
		    !disagree(&pts[i], p->sample_error))
			continue;
		if (sibyl_eval_measure_pass(measure_counted, c, NULL, &one, 1, 0, e, err, errlen))
			return -1;
		third[i] = one.measured[0];
		taken++;
	}
	return (long)taken;
}

/* A point's time: one measurement, the mean of two, or the median of
 * three (the two that disagreed and the one that settles it). */
static double point_time(const struct sibyl_eval_point *pt, double third, bool two)
{
	double v[3] = { pt->measured[0], pt->measured[1], third };

	if (!two)
		return v[0];
	if (isnan(third))
		return (v[0] + v[1]) / 2;
	gsl_sort(v, 1, 3);
	return v[1];
}

/* How far each interior point lies from the line through its two
 * neighbours, median, in percent: what interpolating the metrics that
 * were not sampled is likely to miss.  NAN with fewer than three. */
static double interpolation_error(const struct sibyl_point *v, size_t n)
{
	double *e = sibyl_xmalloc((n ? n : 1) * sizeof(*e)), med = NAN;
	size_t k = 0;

	for (size_t i = 1; i + 1 < n; i++) {
		double f = (v[i].x - v[i - 1].x) / (v[i + 1].x - v[i - 1].x);
		double line = v[i - 1].y + f * (v[i + 1].y - v[i - 1].y);

		if (v[i].y > 0)
			e[k++] = 100 * fabs(line - v[i].y) / v[i].y;
	}
	if (k) {
		gsl_sort(e, 1, k);
		med = gsl_stats_median_from_sorted_data(e, 1, k);
	}
	free(e);
	return med;
}

json_t *sibyl_guided_coverage(const struct sibyl_call_mix *mix, const bool *picked,
			      const struct sibyl_profile *prof, double noise_pct)
{
	json_t *metrics = json_array();
	double at = 0, calls_at = 0;

	for (size_t i = 0; i < mix->n; i++)
		if (picked[i]) {
			json_array_append_new(metrics, json_integer((json_int_t)mix->v[i].metric));
			at += mix->v[i].seconds;
			calls_at += (double)mix->v[i].calls;
		}
	double share = mix->seconds > 0 ? at / mix->seconds : calls_at / (double)mix->calls;
	json_t *c = json_pack("{sssIsIsIsfsfsf}", "kind", mix->kind,
			      "calls", (json_int_t)mix->calls,
			      "distinct_metrics", (json_int_t)mix->n,
			      "sampled_metrics", (json_int_t)json_array_size(metrics),
			      "sampled_share", share, "interpolated_share", 1 - share,
			      "sampled_calls_share", calls_at / (double)mix->calls);

	json_object_set_new(c, "interpolation_error_pct",
			    sibyl_json_real_or_null(interpolation_error(prof->points, prof->npoints)));
	json_object_set_new(c, "noise_floor_pct", sibyl_json_real_or_null(noise_pct));
	json_object_set_new(c, "left_out_calls", json_integer((json_int_t)mix->left_out));
	json_object_set_new(c, "metrics", metrics);
	return c;
}

/* Points, every measurement as a sample, the range of the calls. */
static struct sibyl_profile *guided_profile(const struct sibyl_call_mix *mix,
					    const struct sibyl_eval_point *pts,
					    const double *third, size_t n, bool two)
{
	struct sibyl_profile *prof = sibyl_xcalloc(1, sizeof(*prof));

	prof->lo = (double)mix->v[0].metric;
	prof->hi = (double)mix->v[mix->n - 1].metric;
	prof->complete = true;
	prof->points = sibyl_xmalloc(n * sizeof(*prof->points));
	prof->samples = sibyl_xmalloc(3 * n * sizeof(*prof->samples));
	prof->npoints = n;
	for (size_t i = 0; i < n; i++) {
		prof->points[i] = (struct sibyl_point){ pts[i].x, point_time(&pts[i], third[i], two) };
		for (int k = 0; k < (two ? 2 : 1); k++)
			prof->samples[prof->nsamples++] = (struct sibyl_point){ pts[i].x,
										pts[i].measured[k] };
		if (!isnan(third[i]))
			prof->samples[prof->nsamples++] = (struct sibyl_point){ pts[i].x, third[i] };
	}
	return prof;
}

double sibyl_guided_noise(const struct sibyl_eval_point *pts, size_t n)
{
	double d = 0;

	for (size_t i = 0; i < n; i++)
		d += fabs(pts[i].measured[0] - pts[i].measured[1]) /
		     ((pts[i].measured[0] + pts[i].measured[1]) / 2);
	return n ? 100 * d / (double)n / sqrt(2) : NAN;
}

static size_t metric_count(const struct sibyl_plan_params *p, size_t distinct)
{
	/* Two measurements each, and a tenth of the budget for the third
	 * measurements of those whose two disagree. */
	size_t count = p->max_samples ? p->max_samples * 9 / 20 : distinct;

	return count < 2 ? 2 : count;
}

int sibyl_plan_guided(const struct sibyl_plan_params *p, const struct sibyl_call_mix *mix,
		      sibyl_measure_fn measure, void *ctx, sibyl_guided_progress_fn progress,
		      void *pctx, struct sibyl_plan_result *r)
{
	double t0 = (double)sibyl_mono_ns();
	bool *picked = sibyl_xcalloc(mix->n ? mix->n : 1, sizeof(*picked));
	size_t n = sibyl_guided_pick(mix, metric_count(p, mix->n), picked), k = 0;
	struct sibyl_eval_point *pts = sibyl_xcalloc(n ? n : 1, sizeof(*pts));
	double *third = sibyl_xmalloc((n ? n : 1) * sizeof(*third));
	struct counted c = { measure, ctx, progress, pctx, 0, 2 * n };
	struct sibyl_eval e = { 0 };

	memset(r, 0, sizeof(*r));
	r->status = SIBYL_PLAN_FAILED;
	for (size_t i = 0; i < mix->n; i++)
		if (picked[i])
			pts[k++].x = (double)mix->v[i].metric;
	long taken = n ? measure_points(p, &c, pts, n, third, &e, t0, r->message,
					sizeof(r->message)) : -1;

	if (!n)
		snprintf(r->message, sizeof(r->message), "no work metric to sample");
	if (taken >= 0) {
		bool two = (size_t)taken >= 2 * n;

		r->status = SIBYL_PLAN_DONE;
		r->profile = guided_profile(mix, pts, third, n, two);
		r->profile->coverage = sibyl_guided_coverage(mix, picked, r->profile,
						     two ? sibyl_guided_noise(pts, n) : NAN);
		r->samples = (size_t)taken;
		r->unique = n;
		r->skipped = e.remeasured;
		r->chain_end = r->profile->hi;
		r->taken = sibyl_xmalloc(r->profile->nsamples * sizeof(*r->taken));
		memcpy(r->taken, r->profile->samples, r->profile->nsamples * sizeof(*r->taken));
	}
	r->seconds = ((double)sibyl_mono_ns() - t0) * 1e-9;
	free(picked);
	free(pts);
	free(third);
	return r->status == SIBYL_PLAN_DONE ? 0 : -1;
}
