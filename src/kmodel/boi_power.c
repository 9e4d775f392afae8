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
