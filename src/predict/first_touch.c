/*
 * Memory an accelerated implementation touches for the first time as a
 * program's calls grow.  OpenBLAS, for one, works in buffers of its own
 * sized by the product: each call larger than any before touches new
 * pages, a page fault each (matmul 384's products, ascending: 2-12
 * faults per call, none when the same size came again), which a planner
 * repeating one size at a time never meets.  The planner records the
 * faults of a fresh worker's first run at a ladder of work metrics
 * (stats.one_time.first_touch, planner/worker.h); here each call is
 * charged what its work adds to the largest work of that profile's
 * calls before it, at the page fault cost sibyl trace measured.  The
 * first call's own share is in the one-time cost (first_call_seconds).
 * The walk comes before the choice of which calls to accelerate, which
 * needs each call's charge: a call --best-of or --outside keep leaves on
 * the original still raises the mark, so later calls may be charged
 * less than the accelerated implementation would pay.
 * A profile that records each work metric's first call apart
 * (stats.one_time.first_calls, a replay's: FFTW's first execute of a
 * plan faults its output in) charges a call that is the first at its
 * metric that measured excess instead: it holds the faults the ladder
 * would count.  The implementation's first call is left to the one-time
 * cost, measured at a first call as well.
 */
#include "predict/internal.h"

#include "core/alloc.h"
#include "model/profile.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct touch_curve {
	const struct sibyl_profile *profile;
	const char *path;	/* the profile's file: kernels sharing it share memory */
	json_t *points;		/* [[work metric, faults], ...], ascending */
	double high_water;	/* largest work of its calls so far */
	bool started;		/* a call of it was met */
	double *met;		/* works met that have a first call recorded */
	size_t nmet;
};

/* What c pays as the first call at its work, or 0 (NAN: no record). */
static double first_at(struct touch_curve *tc, const struct predict_call *c)
{
	double excess = sibyl_profile_first_call_at(tc->profile, c->work);
	bool first = !tc->started;

	tc->started = true;
	if (isnan(excess))
		return NAN;
	for (size_t i = 0; i < tc->nmet; i++)
		if (tc->met[i] == c->work)
			return 0;
	tc->met = sibyl_xreallocarray(tc->met, tc->nmet + 1, sizeof(*tc->met));
	tc->met[tc->nmet++] = c->work;
	return first ? 0 : excess;
}

/* Faults of a fresh first run at w: linear in log w between the ladder's
 * points, flat beyond its ends (no extrapolation). */
static double faults_at(json_t *points, double w)
{
	size_t n = json_array_size(points);
	double px = 0, py = 0;

	for (size_t i = 0; i < n; i++) {
		json_t *pt = json_array_get(points, i);
		double x = json_number_value(json_array_get(pt, 0));
		double y = json_number_value(json_array_get(pt, 1));

		if (w <= x)
			return i == 0 || x <= px ? y : py + (y - py) * log(w / px) / log(x / px);
		px = x;
		py = y;
	}
	return py;
}

static struct touch_curve *curve_of(struct touch_curve *c, size_t *n,
				    const struct sibyl_predict_model *m)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(c[i].path, m->path))
			return &c[i];
	json_t *one_time = m->profile->stats ? json_object_get(m->profile->stats, "one_time") : NULL;
	json_t *points = json_object_get(one_time, "first_touch");
	json_t *first = json_object_get(one_time, "first_call_metric");

	c[*n] = (struct touch_curve){ m->profile, m->path,
				      json_array_size(points) > 0 ? points : NULL,
				      json_is_number(first) ? json_number_value(first) : 0, false,
				      NULL, 0 };
	return &c[(*n)++];
}

static int by_start(const void *a, const void *b)
{
	const struct predict_call *x = *(struct predict_call *const *)a;
	const struct predict_call *y = *(struct predict_call *const *)b;

	return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

void predict_first_touch(const struct sibyl_prediction *out, struct predict_calls *calls,
			 double page_fault_ns)
{
	struct predict_call **order = sibyl_xcalloc(calls->n + 1, sizeof(*order));
	struct touch_curve *curves = sibyl_xcalloc(out->nkernels + 1, sizeof(*curves));
	size_t n = 0, ncurves = 0;

	for (size_t i = 0; i < calls->n; i++)
		if (!calls->v[i].nested)
			order[n++] = &calls->v[i];
	qsort(order, n, sizeof(*order), by_start);
	for (size_t i = 0; i < n; i++) {
		struct predict_call *c = order[i];
		struct touch_curve *tc = curve_of(curves, &ncurves, out->kernels[c->kernel].model);
		double at = first_at(tc, c);

		if (!isnan(at))
			c->first_at_s = at;
		if (!tc->points || c->work <= tc->high_water || !isfinite(page_fault_ns))
			continue;
		if (isnan(at)) {
			c->touch_faults = fmax(0, faults_at(tc->points, c->work) -
						      faults_at(tc->points, tc->high_water));
			c->touch_s = c->touch_faults * page_fault_ns * 1e-9;
		}
		tc->high_water = c->work;
	}
	for (size_t i = 0; i < ncurves; i++)
		free(curves[i].met);
	free(curves);
	free(order);
}
