/*
 * Ordinary least squares y = a + b x from accumulated sums.  The sums of
 * two disjoint sample sets add, so a regression over a union of intervals
 * costs one addition (the planner's sample matrix relies on this).
 */
#ifndef SIBYL_MODEL_OLS_H
#define SIBYL_MODEL_OLS_H

#include <stdbool.h>

struct sibyl_ols_sums {
	double n, sx, sy, sxx, sxy, syy;
};

struct sibyl_ols_fit {
	double a, b;       /* intercept, slope */
	double n;          /* samples */
	double mean_x;
	double sxx_c;      /* sum of (x - mean_x)^2 */
	double s2;         /* residual variance, sum of squared residuals / (n - 2) */
};

static inline void sibyl_ols_add(struct sibyl_ols_sums *s, double x, double y)
{
	s->n += 1;
	s->sx += x;
	s->sy += y;
	s->sxx += x * x;
	s->sxy += x * y;
	s->syy += y * y;
}

static inline struct sibyl_ols_sums sibyl_ols_merge(const struct sibyl_ols_sums *p,
						    const struct sibyl_ols_sums *q)
{
	struct sibyl_ols_sums r = { p->n + q->n, p->sx + q->sx, p->sy + q->sy,
				    p->sxx + q->sxx, p->sxy + q->sxy, p->syy + q->syy };
	return r;
}

/* Fit; false when the slope is undefined (n < 2 or all x equal).  With
 * n == 2 the residual variance is 0 and has no degrees of freedom. */
bool sibyl_ols_fit(const struct sibyl_ols_sums *s, struct sibyl_ols_fit *f);

static inline double sibyl_ols_predict(const struct sibyl_ols_fit *f, double x)
{
	return f->a + f->b * x;
}

/* Two-sided Student t quantile t_{(1+level)/2, df}, e.g. level 0.95. */
double sibyl_t_quantile(double level, double df);

/* Half-width of the confidence interval of the mean response at x:
 * t * sqrt(s2 * (1/n + (x - mean_x)^2 / sxx_c)), with t from
 * sibyl_t_quantile(level, n - 2).  Infinite when n < 3. */
double sibyl_ols_ci_half(const struct sibyl_ols_fit *f, double x, double t);

#endif
