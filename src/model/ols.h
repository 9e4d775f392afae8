/*
 * Least squares y = a + b x from accumulated sums, ordinary or weighted.
 * The sums of two disjoint sample sets add, so a regression over a union
 * of intervals costs one addition (the planner's sample matrix relies on
 * this).  Weighting each sample by 1 / y^2 fits relative residuals: run
 * times vary in proportion to their length, and an ordinary fit lets the
 * few longest samples of a segment set its line.
 */
#ifndef SIBYL_MODEL_OLS_H
#define SIBYL_MODEL_OLS_H

#include <stdbool.h>

/* Weighted sums (sx is the sum of w x, and so on); n counts the samples
 * and w adds their weights (w == n for ordinary least squares). */
struct sibyl_ols_sums {
	double n, w, sx, sy, sxx, sxy, syy;
};

struct sibyl_ols_fit {
	double a, b;       /* intercept, slope */
	double n;          /* samples */
	double w;          /* their weights added */
	double mean_x;     /* weighted */
	double sxx_c;      /* sum of (x - mean_x)^2 */
	/* Residual variance of a sample of weight 1: the weighted sum of
	 * squared residuals / (n - 2).  With weights 1 / y^2 it is the
	 * variance of the relative residual. */
	double s2;
};

static inline void sibyl_ols_add_weighted(struct sibyl_ols_sums *s, double x, double y, double w)
{
	s->n += 1;
	s->w += w;
	s->sx += w * x;
	s->sy += w * y;
	s->sxx += w * x * x;
	s->sxy += w * x * y;
	s->syy += w * y * y;
}

static inline void sibyl_ols_add(struct sibyl_ols_sums *s, double x, double y)
{
	sibyl_ols_add_weighted(s, x, y, 1);
}

static inline struct sibyl_ols_sums sibyl_ols_merge(const struct sibyl_ols_sums *p,
						    const struct sibyl_ols_sums *q)
{
	struct sibyl_ols_sums r = { p->n + q->n, p->w + q->w, p->sx + q->sx, p->sy + q->sy,
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
 * t * sqrt(s2 * (1/w + (x - mean_x)^2 / sxx_c)) (1/w is 1/n unweighted),
 * with t from
 * sibyl_t_quantile(level, n - 2).  Infinite when n < 3. */
double sibyl_ols_ci_half(const struct sibyl_ols_fit *f, double x, double t);

#endif
