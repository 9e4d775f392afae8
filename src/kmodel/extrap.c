/* evaluate's extrapolation column: a held-out kernel predicted as
 * `kmodel predict` would, from its smallest global sizes only. */
#include "kmodel/evaluate.h"
#include "kmodel/boi.h"
#include "core/alloc.h"
#include "model/regress.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The kernel's samples at or below its calibration limit: global sizes,
 * counts, measured times and the time model's estimates of their counts. */
struct small {
	size_t n;
	double *g, *C, *t, *p;
};

static void small_of(const struct sibyl_kmodel_table *t, size_t k,
		     const struct sibyl_kmodel_tm *tm, double lim, struct small *s)
{
	const struct sibyl_kmodel_kernel *kk = &t->k[k];

	s->n = 0;
	s->g = sibyl_xcalloc(kk->n + 1, sizeof(*s->g));
	s->C = sibyl_xcalloc(kk->n * t->nf + 1, sizeof(*s->C));
	s->t = sibyl_xcalloc(kk->n + 1, sizeof(*s->t));
	s->p = sibyl_xcalloc(kk->n + 1, sizeof(*s->p));
	for (size_t i = 0; i < kk->n; i++) {
		size_t r = kk->rows[i];

		if (t->g[r] > lim)
			continue;
		s->g[s->n] = t->g[r];
		memcpy(s->C + s->n * t->nf, t->C + r * t->nf, t->nf * sizeof(*s->C));
		s->t[s->n] = t->t[r];
		s->p[s->n++] = sibyl_kmodel_tm_predict(tm, t->C + r * t->nf);
	}
}

/* Relative error of q against y (0 when y is not positive). */
static double rel(double q, double y)
{
	return y > 0 ? fabs(q - y) / y : 0;
}

void sibyl_kmodel_eval_extrap(const struct sibyl_kmodel_table *t, size_t k,
			      const struct sibyl_kmodel_tm *tm, struct sibyl_kmodel_eval_row *row)
{
	const struct sibyl_kmodel_kernel *kk = &t->k[k];
	double lim = sibyl_kmodel_cal_limit(t, k);
	struct small s;
	struct sibyl_kmodel_boi boi;
	char err[256];

	row->extrap_err = row->extrap_r2 = row->extrap_count_err = row->extrap_time_err = NAN;
	small_of(t, k, tm, lim, &s);
	if (s.n < kk->n && !sibyl_kmodel_boi_fit(s.g, s.C, s.n, t->nf, &boi, err, sizeof(err))) {
		double c = sibyl_kmodel_calibration(s.t, s.p, s.n), *x = sibyl_xcalloc(t->nf + 1,
											sizeof(*x));
		double *y = sibyl_xcalloc(kk->n, sizeof(*y)), *q = sibyl_xcalloc(kk->n, sizeof(*q));
		double *e = sibyl_xcalloc(3 * kk->n, sizeof(*e)), *ce = e + kk->n, *te = ce + kk->n;
		size_t m = 0;

		for (size_t i = 0; i < kk->n; i++) {
			size_t r = kk->rows[i];

			if (t->g[r] <= lim)
				continue;
			double own = sibyl_kmodel_tm_predict(tm, t->C + r * t->nf);

			sibyl_kmodel_boi_predict(&boi, t->g[r], x);
			y[m] = t->t[r];
			q[m] = c * sibyl_kmodel_tm_predict(tm, x);
			e[m] = rel(q[m], y[m]);
			ce[m] = rel(q[m] / c, own);
			te[m] = rel(c * own, y[m]);
			m++;
		}
		row->extrap_r2 = sibyl_r2(y, q, m);
		row->extrap_err = sibyl_kmodel_median(e, m);
		row->extrap_count_err = sibyl_kmodel_median(ce, m);
		row->extrap_time_err = sibyl_kmodel_median(te, m);
		sibyl_kmodel_boi_free(&boi);
		free(x), free(y), free(q), free(e);
	}
	free(s.g), free(s.C), free(s.t), free(s.p);
}
