/* Least squares and the confidence interval of the mean response. */
#include "model/ols.h"

#include <gsl/gsl_cdf.h>
#include <math.h>

bool sibyl_ols_fit(const struct sibyl_ols_sums *s, struct sibyl_ols_fit *f)
{
	if (s->n < 2)
		return false;
	double mx = s->sx / s->w, my = s->sy / s->w;
	/* Centred sums; clamp the tiny negatives that rounding can leave. */
	double sxx = s->sxx - s->sx * mx;
	double sxy = s->sxy - s->sx * my;
	double syy = s->syy - s->sy * my;

	if (!(sxx > 1e-12 * (s->sxx > 0 ? s->sxx : 1)))
		return false;
	f->b = sxy / sxx;
	f->a = my - f->b * mx;
	f->n = s->n;
	f->w = s->w;
	f->mean_x = mx;
	f->sxx_c = sxx;
	double sse = syy - f->b * sxy;

	if (sse < 0)
		sse = 0;
	f->s2 = s->n > 2 ? sse / (s->n - 2) : 0;
	return true;
}

double sibyl_t_quantile(double level, double df)
{
	return gsl_cdf_tdist_Pinv(0.5 + level / 2, df);
}

double sibyl_ols_ci_half(const struct sibyl_ols_fit *f, double x, double t)
{
	if (f->n < 3)
		return INFINITY;
	double d = x - f->mean_x;

	return t * sqrt(f->s2 * (1 / f->w + d * d / f->sxx_c));
}
