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

/* OCLBase calibrated as OCLMan is, on the profiled samples' estimates
 * (no launch term: its polynomial has its own constant). */
static double base_scale(const struct sibyl_kmodel_eval_row *row, double lim)
{
	double *g = sibyl_xcalloc(3 * row->n + 1, sizeof(*g)), *y = g + row->n, *q = y + row->n, s;
	size_t m = 0;

	for (size_t i = 0; i < row->n; i++)
		if (row->gsize[i] <= lim)
			g[m] = row->gsize[i], y[m] = row->measured[i], q[m++] = row->oclbase[i];
	s = sibyl_kmodel_profile_scale(g, y, q, m, 0);
	free(g);
	return s;
}

/* The median relative error of predictions q of times y, size by size
 * (sibyl_kmodel_by_size). */
static double size_error(const double *g, const double *y, const double *q, size_t n)
{
	double *my = sibyl_xcalloc(2 * n + 1, sizeof(*my)), *mq = my + n;
	size_t m = sibyl_kmodel_by_size(g, y, q, n, my, mq);

	for (size_t i = 0; i < m; i++)
		my[i] = rel(mq[i], my[i]);
	double e = sibyl_kmodel_median(my, m);

	free(my);
	return e;
}

/* The larger sizes predicted by boi, fitted on the small ones s. */
static void larger(const struct sibyl_kmodel_table *t, size_t k, const struct sibyl_kmodel_tm *tm,
		   const struct sibyl_kmodel_boi *boi, const struct small *s, double lim,
		   struct sibyl_kmodel_eval_row *row)
{
	const struct sibyl_kmodel_kernel *kk = &t->k[k];
	double b = fmax(0, tm->b), c = sibyl_kmodel_profile_scale(s->g, s->t, s->p, s->n, b);
	double cb = base_scale(row, lim), *x = sibyl_xcalloc(t->nf + 1, sizeof(*x));
	double *v = sibyl_xcalloc(6 * kk->n, sizeof(*v)), *g = v, *y = g + kk->n, *q = y + kk->n;
	double *qb = q + kk->n, *ce = qb + kk->n, *te = ce + kk->n;
	size_t m = 0;

	for (size_t i = 0; i < kk->n; i++) {
		size_t r = kk->rows[i];

		if (t->g[r] <= lim)
			continue;
		double own = sibyl_kmodel_tm_predict(tm, t->C + r * t->nf), u;

		sibyl_kmodel_boi_predict(boi, t->g[r], x);
		u = sibyl_kmodel_tm_predict(tm, x);
		g[m] = t->g[r];
		y[m] = t->t[r];
		q[m] = sibyl_kmodel_calibrated(u, c, b);
		qb[m] = cb * row->oclbase[i];
		ce[m] = rel(u, own);
		te[m] = sibyl_kmodel_calibrated(own, c, b);
		m++;
	}
	row->extrap_r2 = sibyl_kmodel_r2_sizes(g, y, q, m);
	row->extrap_r2_base = sibyl_kmodel_r2_sizes(g, y, qb, m);
	row->extrap_err = size_error(g, y, q, m);
	row->extrap_count_err = sibyl_kmodel_median(ce, m);
	row->extrap_time_err = size_error(g, y, te, m);
	free(x), free(v);
}

void sibyl_kmodel_eval_extrap(const struct sibyl_kmodel_table *t, size_t k,
			      const struct sibyl_kmodel_tm *tm, struct sibyl_kmodel_eval_row *row)
{
	double lim = sibyl_kmodel_cal_limit(t, k);
	struct small s;
	struct sibyl_kmodel_boi boi;
	char err[256];

	row->extrap_err = row->extrap_r2 = row->extrap_r2_base = NAN;
	row->extrap_count_err = row->extrap_time_err = NAN;
	small_of(t, k, tm, lim, &s);
	if (s.n < t->k[k].n && !sibyl_kmodel_boi_fit(s.g, s.C, s.n, t->nf, &boi, err, sizeof(err))) {
		larger(t, k, tm, &boi, &s, lim, row);
		sibyl_kmodel_boi_free(&boi);
	}
	free(s.g), free(s.C), free(s.t), free(s.p);
}
