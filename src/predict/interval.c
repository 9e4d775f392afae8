/*
 * How sure a prediction is.  Each accelerated call's predicted time comes
 * from one regression segment of its profile, refitted here from the
 * profile's own samples (the planner keeps them).  Two things make the
 * actual time differ from it:
 *
 *   - the segment's line itself is uncertain: its 95% confidence half
 *     width at the call's work (sibyl_ols_ci_half).  Every call on one
 *     segment shares that error, so these add linearly within a segment;
 *   - single runs scatter around the line with the segment's residual
 *     spread (relative for the planner's relative fits).  Calls scatter
 *     independently, so these add in quadrature.
 *
 * Segments of different profiles, or of one profile, are independent
 * fits: their parts add in quadrature.  The group (kernel, segment) with
 * the largest share of the variance is the one that dominates.
 */
#include "predict/internal.h"

#include "core/alloc.h"
#include "model/ols.h"
#include "model/profile.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define Z95 1.959963984540054	/* two-sided 95% normal quantile */

struct segment_fit {
	double from, to;
	struct sibyl_ols_fit fit;
	double t;		/* Student quantile for its degrees of freedom */
	bool ok;
};

struct point_fit;

struct predict_fits {
	bool relative;		/* weights 1/y^2: residual spread is relative */
	struct segment_fit *seg;
	size_t n;
	struct point_fit *pt;	/* a profile without segments: its points */
	size_t npt;
};

static bool relative_fit(const struct sibyl_profile *p)
{
	json_t *params = p->provenance ?
		json_object_get(p->provenance, "parameters") : NULL;
	const char *fit = json_string_value(json_object_get(params, "fit"));

	return !fit || strcmp(fit, "ols");	/* the planner's default is relative */
}

static bool point_fits(const struct sibyl_profile *p, struct predict_fits *f);

struct predict_fits *predict_fits_new(const struct sibyl_profile *p)
{
	struct predict_fits *f = sibyl_xcalloc(1, sizeof(*f));

	f->relative = relative_fit(p);
	f->n = p->nsegments;
	f->seg = sibyl_xcalloc(f->n, sizeof(*f->seg));
	for (size_t i = 0; i < f->n; i++) {
		struct segment_fit *s = &f->seg[i];
		struct sibyl_ols_sums sums = { 0 };

		s->from = p->segments[i].from;
		s->to = p->segments[i].to;
		for (size_t k = 0; k < p->nsamples; k++) {
			double x = p->samples[k].x, y = p->samples[k].y;

			if (x >= s->from && x <= s->to && y > 0)
				sibyl_ols_add_weighted(&sums, x, y, f->relative ? 1 / (y * y) : 1);
		}
		s->ok = sums.n >= 3 && sibyl_ols_fit(&sums, &s->fit);
		if (s->ok)
			s->t = sibyl_t_quantile(0.95, s->fit.n - 2);
	}
	if (!f->n && p->npoints && p->nsamples)
		point_fits(p, f);
	return f;
}

void predict_fits_free(struct predict_fits *f)
{
	if (f) {
		free(f->seg);
		free(f->pt);
	}
	free(f);
}

/* The segment holding w, else the nearest one; -1 without any. */
static long segment_of(const struct predict_fits *f, double w)
{
	long best = -1;
	double dist = INFINITY;

	for (size_t i = 0; i < f->n; i++) {
		if (!f->seg[i].ok)
			continue;
		double d = w < f->seg[i].from ? f->seg[i].from - w :
			   w > f->seg[i].to ? w - f->seg[i].to : 0;

		if (d < dist) {
			dist = d;
			best = (long)i;
		}
	}
	return best;
}

static struct predict_group *group_of(struct sibyl_prediction *p, size_t kernel, long segment,
				      double from, double to)
{
	for (size_t i = 0; i < p->ngroups; i++)
		if (p->groups[i].kernel == kernel && p->groups[i].segment == segment)
			return &p->groups[i];
	p->groups = sibyl_xreallocarray(p->groups, p->ngroups + 1, sizeof(*p->groups));
	p->groups[p->ngroups] = (struct predict_group){
		.kernel = kernel, .segment = segment, .from = from, .to = to };
	return &p->groups[p->ngroups++];
}

/*
 * Profiles without segments (a plan guided by a program's calls, or a
 * replay: docs/plan.md) predict by interpolating between points, each
 * the mean of the samples grouped around it.  A point's samples give
 * both parts of the interval: the standard error of their mean (shared
 * by every call between that point and its neighbours) and their
 * relative spread (a single run's scatter).  Samples belong to the
 * nearest point; a point with fewer than MIN_POINT_SAMPLES of them takes
 * the spread pooled over the whole profile.
 */
#define MIN_POINT_SAMPLES 3

struct point_fit {
	double x;
	double spread;		/* relative standard deviation of one run */
	double half;		/* relative 95% half width of the point's mean */
};

static size_t nearest_point(const struct sibyl_profile *p, double x)
{
	size_t best = 0;

	for (size_t k = 1; k < p->npoints; k++)
		if (fabs(p->points[k].x - x) < fabs(p->points[best].x - x))
			best = k;
	return best;
}

/* Relative squared deviations of the samples from their point, summed
 * per point, and counted. */
static void point_deviations(const struct sibyl_profile *p, double *ss, size_t *n)
{
	for (size_t j = 0; j < p->nsamples; j++) {
		size_t k = nearest_point(p, p->samples[j].x);
		double y = p->points[k].y;

		if (!(y > 0) || !(p->samples[j].y > 0))
			continue;
		double r = p->samples[j].y / y - 1;

		ss[k] += r * r;
		n[k]++;
	}
}

static bool point_fits(const struct sibyl_profile *p, struct predict_fits *f)
{
	double *ss = sibyl_xcalloc(p->npoints, sizeof(*ss)), pooled_ss = 0;
	size_t *n = sibyl_xcalloc(p->npoints, sizeof(*n)), pooled_n = 0;

	point_deviations(p, ss, n);
	for (size_t k = 0; k < p->npoints; k++) {
		pooled_ss += ss[k];
		pooled_n += n[k];
	}
	/* One degree of freedom per point goes to its mean. */
	bool ok = pooled_n > p->npoints;
	double pooled = ok ? sqrt(pooled_ss / (double)(pooled_n - p->npoints)) : 0;

	f->pt = sibyl_xcalloc(p->npoints, sizeof(*f->pt));
	f->npt = ok ? p->npoints : 0;
	for (size_t k = 0; k < f->npt; k++) {
		bool own = n[k] >= MIN_POINT_SAMPLES;
		double spread = own ? sqrt(ss[k] / (double)(n[k] - 1)) : pooled;
		double df = own ? (double)(n[k] - 1) : (double)(pooled_n - p->npoints);

		f->pt[k] = (struct point_fit){ p->points[k].x, spread,
			sibyl_t_quantile(0.95, df) * spread / sqrt((double)(n[k] ? n[k] : 1)) };
	}
	free(ss);
	free(n);
	return ok;
}

/* The span [pt[i], pt[i + 1]] holding w (the first or last outside
 * them), and w's place in it, 0 to 1. */
static size_t span_of(const struct predict_fits *f, double w, double *lambda)
{
	size_t i = 0;

	while (i + 2 < f->npt && w > f->pt[i + 1].x)
		i++;
	if (f->npt < 2) {
		*lambda = 0;
		return 0;
	}
	double a = f->pt[i].x, b = f->pt[i + 1].x;

	*lambda = fmin(1, fmax(0, (w - a) / (b - a)));
	return i;
}

/* Point k's group: every call its mean's error reaches, between its
 * neighbours. */
static struct predict_group *point_group(struct sibyl_prediction *p, size_t kernel,
					 const struct predict_fits *f, size_t k)
{
	return group_of(p, kernel, (long)k, f->pt[k ? k - 1 : k].x,
			f->pt[k + 1 < f->npt ? k + 1 : k].x);
}

/* A call between points a and b shares each one's error in proportion
 * to the interpolation's weight on it (a point's calls on both sides
 * add linearly); its own run scatters independently, counted with the
 * nearer point. */
static void point_interval_add(struct sibyl_prediction *p, size_t kernel,
			       const struct predict_fits *f, double w, double predicted)
{
	double l;
	size_t a = span_of(f, w, &l), b = f->npt > 1 ? a + 1 : a;
	double spread = predicted * ((1 - l) * f->pt[a].spread + l * f->pt[b].spread);
	struct predict_group *g = point_group(p, kernel, f, a);

	g->fit_half += predicted * (1 - l) * f->pt[a].half;
	if (l < 0.5) {
		g->calls++;
		g->noise_var += spread * spread;
	}
	g = point_group(p, kernel, f, b);	/* may move the groups: after a's */
	g->fit_half += predicted * l * f->pt[b].half;
	if (l >= 0.5) {
		g->calls++;
		g->noise_var += spread * spread;
	}
}

void predict_interval_add(struct sibyl_prediction *p, size_t kernel, const struct predict_fits *f,
			  double w, double predicted, double typical)
{
	long i = f ? segment_of(f, w) : -1;
	const struct segment_fit *s = i >= 0 ? &f->seg[i] : NULL;
	if (f && f->npt) {
		point_interval_add(p, kernel, f, w, predicted);
		return;
	}
	struct predict_group *g = group_of(p, kernel, i, s ? s->from : NAN, s ? s->to : NAN);

	g->calls++;
	if (!s) {
		g->unknown = true;
		return;
	}
	/* The fit is of the best-speed times; predicted is scaled already. */
	double spread = sqrt(s->fit.s2) * (f->relative ? predicted : typical);

	g->fit_half += typical * sibyl_ols_ci_half(&s->fit, w, s->t);
	g->noise_var += spread * spread;
}

static double group_var(const struct predict_group *g)
{
	return g->fit_half * g->fit_half + Z95 * Z95 * g->noise_var;
}

/* Half widths of the kernels' and the whole program's 95% intervals. */
void predict_interval_finish(struct sibyl_prediction *p)
{
	double total = 0, worst = -1;

	for (size_t k = 0; k < p->nkernels; k++)
		p->kernels[k].half_s = 0;
	p->dominant = -1;
	p->interval_known = p->ngroups > 0;
	for (size_t i = 0; i < p->ngroups; i++) {
		const struct predict_group *g = &p->groups[i];
		double v = group_var(g);

		p->interval_known &= !g->unknown;
		p->kernels[g->kernel].half_s += v;	/* variances for now */
		total += v;
		if (v > worst) {
			worst = v;
			p->dominant = (long)i;
		}
	}
	for (size_t k = 0; k < p->nkernels; k++)
		p->kernels[k].half_s = sqrt(p->kernels[k].half_s);
	p->half_s = sqrt(total);
	p->dominant_share = total > 0 ? worst / total : 0;
}
