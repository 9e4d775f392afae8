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

struct predict_fits {
	bool relative;		/* weights 1/y^2: residual spread is relative */
	struct segment_fit *seg;
	size_t n;
};

static bool relative_fit(const struct sibyl_profile *p)
{
	json_t *params = p->provenance ?
		json_object_get(p->provenance, "parameters") : NULL;
	const char *fit = json_string_value(json_object_get(params, "fit"));

	return !fit || strcmp(fit, "ols");	/* the planner's default is relative */
}

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
	return f;
}

void predict_fits_free(struct predict_fits *f)
{
	if (f)
		free(f->seg);
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
				      const struct segment_fit *s)
{
	for (size_t i = 0; i < p->ngroups; i++)
		if (p->groups[i].kernel == kernel && p->groups[i].segment == segment)
			return &p->groups[i];
	p->groups = sibyl_xreallocarray(p->groups, p->ngroups + 1, sizeof(*p->groups));
	p->groups[p->ngroups] = (struct predict_group){
		.kernel = kernel, .segment = segment, .from = s ? s->from : NAN,
		.to = s ? s->to : NAN };
	return &p->groups[p->ngroups++];
}

void predict_interval_add(struct sibyl_prediction *p, size_t kernel, const struct predict_fits *f,
			  double w, double predicted, double typical)
{
	long i = f ? segment_of(f, w) : -1;
	const struct segment_fit *s = i >= 0 ? &f->seg[i] : NULL;
	struct predict_group *g = group_of(p, kernel, i, s);

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
