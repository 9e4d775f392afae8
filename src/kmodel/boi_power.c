/* OCLBoi's power-law kind: count = a g^p, a straight line in log-log. */
#include "kmodel/boi.h"
#include "core/alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct sibyl_reg_spec ols = { SIBYL_REG_OLS, false, false, 0, 0, 0 };

static const char *const law_names[SIBYL_LAWS] = { "power", "zero", "line", "power1p" };

const char *sibyl_kmodel_law_name(enum sibyl_kmodel_law law)
{
	return law < SIBYL_LAWS ? law_names[law] : "?";
}

int sibyl_kmodel_law_of(const char *name, enum sibyl_kmodel_law *law)
{
	for (int i = 0; name && i < SIBYL_LAWS; i++)
		if (!strcmp(name, law_names[i]))
			return *law = (enum sibyl_kmodel_law)i, 0;
	return -1;
}

/* ln(count) on ln(g), not ln(1 + count): the 1 bends small counts (a
 * count of g / 64 fitted 0.78 as its exponent, not 1).  A count of 0
 * has no logarithm and lies on no power law.  Every count 0 (an
 * instruction the kernel never runs) predicts 0.  Some 0 and some not
 * (a branch taken only at some sizes, a data-dependent loop): a line in
 * g by least squares, OCLBoi's simplest kind, which predict clamps at
 * 0; fitting the positive counts alone would forget the zeros, and
 * 1 + count is the bend above. */
int sibyl_kmodel_power_fit(const double *g, const double *y, size_t n,
			   struct sibyl_reg_model *m, enum sibyl_kmodel_law *law, char *err,
			   size_t errlen)
{
	double *lg = sibyl_xcalloc(n + 1, sizeof(*lg)), *ly = sibyl_xcalloc(n + 1, sizeof(*ly));
	size_t zeros = 0;

	for (size_t i = 0; i < n; i++)
		zeros += !(y[i] > 0);
	*law = zeros == 0 ? SIBYL_LAW_POWER : zeros == n ? SIBYL_LAW_ZERO : SIBYL_LAW_LINE;
	for (size_t i = 0; i < n; i++) {
		lg[i] = *law == SIBYL_LAW_POWER ? log(g[i]) : g[i];
		ly[i] = *law == SIBYL_LAW_POWER ? log(y[i]) : *law == SIBYL_LAW_LINE ? y[i] : 0;
	}
	int r = sibyl_reg_fit(&ols, lg, ly, n, 1, m, err, errlen);

	free(lg), free(ly);
	return r;
}

double sibyl_kmodel_power_predict(const struct sibyl_reg_model *m, enum sibyl_kmodel_law law,
				  double g)
{
	double lg = log(g);

	switch (law) {
	case SIBYL_LAW_POWER:
		return exp(sibyl_reg_predict(m, &lg));
	case SIBYL_LAW_POWER1P:
		return expm1(sibyl_reg_predict(m, &lg));
	case SIBYL_LAW_LINE:
		return fmax(0, sibyl_reg_predict(m, &g));
	default:
		return 0;
	}
}
