/* OCLBoi's power-law kind: count = a g^p, a straight line in log-log. */
#include "kmodel/boi.h"
#include "core/alloc.h"

#include <math.h>
#include <stdlib.h>

/* log1p: a count of 0 (an instruction a kernel never runs) stays 0. */
static const struct sibyl_reg_spec loglog = { SIBYL_REG_OLS, false, false, 0, 0, 0 };

int sibyl_kmodel_power_fit(const double *g, const double *y, size_t n,
			   struct sibyl_reg_model *m, char *err, size_t errlen)
{
	double *lg = sibyl_xcalloc(n + 1, sizeof(*lg)), *ly = sibyl_xcalloc(n + 1, sizeof(*ly));

	for (size_t i = 0; i < n; i++)
		lg[i] = log(g[i]), ly[i] = log1p(fmax(0, y[i]));
	int r = sibyl_reg_fit(&loglog, lg, ly, n, 1, m, err, errlen);

	free(lg), free(ly);
	return r;
}

double sibyl_kmodel_power_predict(const struct sibyl_reg_model *m, double g)
{
	double lg = log(g);

	return expm1(sibyl_reg_predict(m, &lg));
}

/* As sibyl_reg_cv's folds (contiguous, in sample order), scored on the
 * counts themselves, not their logarithms: R^2 comparable to the other
 * kinds'. */
int sibyl_kmodel_power_cv(const double *g, const double *y, size_t n, size_t folds,
			  double *score, char *err, size_t errlen)
{
	double *tg = sibyl_xcalloc(n + 1, sizeof(*tg)), *ty = sibyl_xcalloc(n + 1, sizeof(*ty));
	double *p = sibyl_xcalloc(n + 1, sizeof(*p)), sum = 0;
	int r = 0;

	for (size_t f = 0; !r && f < folds; f++) {
		size_t lo, hi, nt = 0;
		struct sibyl_reg_model m;

		sibyl_kfold(n, folds, f, &lo, &hi);
		for (size_t i = 0; i < n; i++)
			if (i < lo || i >= hi)
				tg[nt] = g[i], ty[nt++] = y[i];
		if ((r = sibyl_kmodel_power_fit(tg, ty, nt, &m, err, errlen)) < 0)
			break;
		for (size_t i = lo; i < hi; i++)
			p[i - lo] = sibyl_kmodel_power_predict(&m, g[i]);
		sum += sibyl_r2(y + lo, p, hi - lo);
		sibyl_reg_free(&m);
	}
	*score = sum / (double)folds;
	free(tg), free(ty), free(p);
	return r;
}
