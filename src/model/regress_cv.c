/* R^2, k-fold cross validation and grid search. */
#include "model/regress.h"
#include "core/alloc.h"
#include "core/log.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double sibyl_r2(const double *y, const double *yhat, size_t n)
{
	double mean = 0, ss_res = 0, ss_tot = 0;

	for (size_t i = 0; i < n; i++)
		mean += y[i] / (double)n;
	for (size_t i = 0; i < n; i++) {
		ss_res += (y[i] - yhat[i]) * (y[i] - yhat[i]);
		ss_tot += (y[i] - mean) * (y[i] - mean);
	}
	if (ss_tot == 0)
		return ss_res == 0 ? 1 : 0;
	return 1 - ss_res / ss_tot;
}

void sibyl_kfold(size_t n, size_t k, size_t f, size_t *lo, size_t *hi)
{
	size_t base = n / k, extra = n % k;

	*lo = f * base + (f < extra ? f : extra);
	*hi = *lo + base + (f < extra ? 1 : 0);
}

/* Fit on every sample outside [lo, hi), score on those inside. */
static int one_fold(const struct sibyl_reg_spec *spec, const double *X, const double *y,
		    size_t n, size_t p, size_t lo, size_t hi, double *score, char *err,
		    size_t errlen)
{
	size_t nt = n - (hi - lo), k = 0;
	double *Xt = sibyl_xcalloc(nt * p + 1, sizeof(*Xt)), *yt = sibyl_xcalloc(nt + 1, sizeof(*yt));
	double *pred = sibyl_xcalloc(hi - lo + 1, sizeof(*pred));
	struct sibyl_reg_model m;

	for (size_t i = 0; i < n; i++) {
		if (i >= lo && i < hi)
			continue;
		memcpy(Xt + k * p, X + i * p, p * sizeof(*X));
		yt[k++] = y[i];
	}
	int r = sibyl_reg_fit(spec, Xt, yt, nt, p, &m, err, errlen);

	if (r == 0) {
		for (size_t i = lo; i < hi; i++)
			pred[i - lo] = sibyl_reg_predict(&m, X + i * p);
		*score = sibyl_r2(y + lo, pred, hi - lo);
		sibyl_reg_free(&m);
	}
	free(Xt), free(yt), free(pred);
	return r;
}

int sibyl_reg_cv(const struct sibyl_reg_spec *spec, const double *X, const double *y, size_t n,
		 size_t p_in, size_t k, double *score, char *err, size_t errlen)
{
	double sum = 0;

	if (k < 2 || n < k)
		return sibyl_seterr(err, errlen, "cross validation: %zu samples cannot make %zu "
				    "folds", n, k);
	for (size_t f = 0; f < k; f++) {
		size_t lo, hi;
		double s = 0;

		sibyl_kfold(n, k, f, &lo, &hi);
		if (one_fold(spec, X, y, n, p_in, lo, hi, &s, err, errlen) < 0)
			return -1;
		sum += s;
	}
	*score = sum / (double)k;
	return 0;
}

long sibyl_reg_grid(const struct sibyl_reg_spec *cand, size_t ncand, const double *X,
		    const double *y, size_t n, size_t p_in, size_t k, double *best_score,
		    char *err, size_t errlen)
{
	long best = -1;

	for (size_t c = 0; c < ncand; c++) {
		double s;

		if (sibyl_reg_cv(&cand[c], X, y, n, p_in, k, &s, err, errlen) < 0)
			return -1;
		if (best < 0 || s > *best_score) {
			best = (long)c;
			*best_score = s;
		}
	}
	return best;
}
