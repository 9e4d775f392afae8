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
 * (stats.one_time.first_calls, a replay's or a guided plan's: FFTW's
 * first execute of a plan faults its output in) charges a call that is
 * the first at its metric that measured excess instead, at the typical
 * speed as the profile's times are: the measured run holds the faults
 * the ladder would count and those the trace counted on the call, so
 * neither is charged (at such a metric, never the ladder's).  The
 * implementation's first call in the trace is left to the one-time cost,
 * measured at a first call as well.
 * Each process has its own library state (FFTW's twiddles, faulted-in
 * outputs; a program that forks or execs several): the walk is per
 * process and profile, as plan evaluate --from-trace charges first calls.
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
	size_t process;
	json_t *points;		/* [[work metric, faults], ...], ascending */
	double high_water;	/* largest work of its calls so far */
	double *met;		/* works met that have a first call recorded */
	size_t nmet;
};

/* Whether the process met w before (a first call is recorded there); it has now. */
static bool met_before(struct touch_curve *tc, double w)
{
	for (size_t i = 0; i < tc->nmet; i++)
		if (tc->met[i] == w)
			return true;
	tc->met = sibyl_xreallocarray(tc->met, tc->nmet + 1, sizeof(*tc->met));
	tc->met[tc->nmet++] = w;
	return false;
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

struct curves {
	struct touch_curve *v;
	size_t n;
};

/* The curve of m's profile in process proc, made on its first call;
 * *first: that call is the profile's first in the trace. */
static struct touch_curve *curve_of(struct curves *c, const struct sibyl_predict_model *m,
				    size_t proc, bool *first)
{
	*first = true;
	for (size_t i = 0; i < c->n; i++) {
		if (strcmp(c->v[i].path, m->path))
			continue;
		*first = false;
		if (c->v[i].process == proc)
			return &c->v[i];
	}
	json_t *one_time = m->profile->stats ? json_object_get(m->profile->stats, "one_time") : NULL;
	json_t *points = json_object_get(one_time, "first_touch");
	json_t *start = json_object_get(one_time, "first_call_metric");

	c->v = sibyl_xreallocarray(c->v, c->n + 1, sizeof(*c->v));
	c->v[c->n] = (struct touch_curve){ m->profile, m->path, proc,
					   json_array_size(points) > 0 ? points : NULL,
					   json_is_number(start) ? json_number_value(start) : 0,
					   NULL, 0 };
	return &c->v[c->n++];
}

static int by_start(const void *a, const void *b)
{
	const struct predict_call *x = *(struct predict_call *const *)a;
	const struct predict_call *y = *(struct predict_call *const *)b;

	return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

/* Call c, the first of its profile in the trace (first) or not, at a
 * metric whose first call the profile records (excess, in the profile's
 * time base). */
static void charge_first(struct touch_curve *tc, struct predict_call *c, double excess,
			 bool first)
{
	if (met_before(tc, c->work) || first)
		return;
	bool scaled = c->typical > 0 && sibyl_profile_first_calls_in_points_base(tc->profile);

	c->first_at = true;
	c->first_at_s = excess * (scaled ? c->typical : 1);
	c->faults = 0;
	c->fault_s = 0;
}

/* Call c at a metric without a recorded first call: the ladder's faults
 * its work adds to the largest before it in its process. */
static void charge_touch(struct touch_curve *tc, struct predict_call *c, double page_fault_ns)
{
	c->touch_faults = fmax(0, faults_at(tc->points, c->work) -
				  faults_at(tc->points, tc->high_water));
	c->touch_s = c->touch_faults * page_fault_ns * 1e-9;
}

void predict_first_touch(const struct sibyl_prediction *out, struct predict_calls *calls,
			 double page_fault_ns)
{
	struct predict_call **order = sibyl_xcalloc(calls->n + 1, sizeof(*order));
	struct curves curves = { NULL, 0 };
	size_t n = 0;

	for (size_t i = 0; i < calls->n; i++)
		if (!calls->v[i].nested)
			order[n++] = &calls->v[i];
	qsort(order, n, sizeof(*order), by_start);
	for (size_t i = 0; i < n; i++) {
		struct predict_call *c = order[i];
		bool first;
		struct touch_curve *tc = curve_of(&curves, out->kernels[c->kernel].model, c->process,
						  &first);
		double excess = sibyl_profile_first_call_at(tc->profile, c->work);

		if (!isnan(excess))
			charge_first(tc, c, excess, first);
		if (!tc->points || c->work <= tc->high_water || !isfinite(page_fault_ns))
			continue;
		if (isnan(excess))
			charge_touch(tc, c, page_fault_ns);
		tc->high_water = c->work;
	}
	for (size_t i = 0; i < curves.n; i++)
		free(curves.v[i].met);
	free(curves.v);
	free(order);
}
