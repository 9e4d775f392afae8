/* OCLBoi's cross validation: folds of global sizes, not of samples. */
#include "kmodel/boi.h"
#include "core/alloc.h"

#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

size_t sibyl_kmodel_boi_folds(const double *g, size_t n, size_t most, size_t *fold)
{
	double *s = sibyl_xcalloc(n + 1, sizeof(*s));
	size_t nd = 0, folds;

	memcpy(s, g, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	for (size_t i = 0; i < n; i++)
		if (!nd || s[i] != s[nd - 1])
			s[nd++] = s[i];
	folds = nd < most ? nd : most;
	for (size_t i = 0; i < n; i++) {
		size_t rank = 0, lo, hi;

		/* A NaN is equal to nothing: it takes the last rank, not a
		 * read past the sizes. */
		while (rank + 1 < nd && s[rank] != g[i])
			rank++;
		for (fold[i] = 0; fold[i] + 1 < folds; fold[i]++) {
			sibyl_kfold(nd, folds, fold[i], &lo, &hi);
			if (rank < hi)
				break;
		}
	}
	free(s);
	return folds;
}

/* One fold's fit: the power law when spec is NULL. */
static int fit(const struct sibyl_reg_spec *spec, const double *g, const double *y, size_t n,
	       struct sibyl_reg_model *m, enum sibyl_kmodel_law *law, char *err, size_t errlen)
{
	return spec ? sibyl_reg_fit(spec, g, y, n, 1, m, err, errlen)
		    : sibyl_kmodel_power_fit(g, y, n, m, law, err, errlen);
}

/* The distinct values among v[0..n). */
static size_t distinct(const double *v, size_t n)
{
	size_t d = 0;

	for (size_t i = 0; i < n; i++) {
		size_t j = 0;

		while (j < i && v[j] != v[i])
			j++;
		d += j == i;
	}
	return d;
}

/* Fold f's training samples into tg, ty: the other folds, or with
 * `forward` the folds of smaller sizes only; their number. */
static size_t training(const double *g, const double *y, size_t n, const size_t *fold, size_t f,
		       bool forward, double *tg, double *ty)
{
	size_t nt = 0;

	for (size_t i = 0; i < n; i++)
		if (forward ? fold[i] < f : fold[i] != f)
			tg[nt] = g[i], ty[nt++] = y[i];
	return nt;
}

/* 1 - the mean squared error of the predictions p[i] made (made[i]) over
 * the variance of every y: R^2 of the predicted samples, measured
 * against the spread of the whole count (the samples of one size, all a
 * forward fold may predict, hardly vary). */
static double forward_r2(const double *y, const double *p, const bool *made, size_t n)
{
	double mean = 0, ss_tot = 0, ss_res = 0;
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		mean += y[i] / (double)n;
	for (size_t i = 0; i < n; i++) {
		ss_tot += (y[i] - mean) * (y[i] - mean) / (double)n;
		if (made[i])
			ss_res += (y[i] - p[i]) * (y[i] - p[i]), m++;
	}
	/* No fold predicted (forward_r2 is called with 4 sizes or more, so
	 * the last fold always is): no evidence for the candidate. */
	if (!m)
		return 0;
	return ss_tot > 0 ? 1 - ss_res / (double)m / ss_tot : 1;
}

int sibyl_kmodel_boi_cv(const struct sibyl_reg_spec *spec, const double *g, const double *y,
			size_t n, const size_t *fold, size_t folds, double *score, char *err,
			size_t errlen)
{
	double *tg = sibyl_xcalloc(n + 1, sizeof(*tg)), *ty = sibyl_xcalloc(n + 1, sizeof(*ty));
	double *p = sibyl_xcalloc(n + 1, sizeof(*p));
	bool *made = sibyl_xcalloc(n + 1, sizeof(*made));
	/* Forward when the folds before the last hold enough sizes for a
	 * parabola: what predict does is extrapolate. */
	bool forward = distinct(g, n) > SIBYL_KMODEL_BOI_FIT_SIZES;
	int r = 0;

	for (size_t f = 0; !r && f < folds; f++) {
		size_t nt = training(g, y, n, fold, f, forward, tg, ty);
		struct sibyl_reg_model m;
		enum sibyl_kmodel_law law = SIBYL_LAW_ZERO;	/* set by a power fit */

		if (forward && distinct(tg, nt) < SIBYL_KMODEL_BOI_FIT_SIZES)
			continue;
		if ((r = fit(spec, tg, ty, nt, &m, &law, err, errlen)) < 0)
			break;
		for (size_t i = 0; i < n; i++)
			if (fold[i] == f)
				made[i] = true, p[i] = spec ? sibyl_reg_predict(&m, &g[i])
							    : sibyl_kmodel_power_predict(&m, law, g[i]);
		sibyl_reg_free(&m);
	}
	/* Pooled: a fold of one global size has counts that do not vary,
	 * whose own R^2 is 1 for an exact guess and 0 for any other. */
	if (!r)
		*score = forward ? forward_r2(y, p, made, n) : sibyl_r2(y, p, n);
	free(tg), free(ty), free(p), free(made);
	return r;
}
