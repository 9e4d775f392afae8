/* evaluate's extrapolation column: a held-out kernel predicted as
 * `kmodel predict` would, from its smallest global sizes only. */
#include "kmodel/evaluate.h"
#include "kmodel/boi.h"
#include "core/alloc.h"
#include "model/regress.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The kernel's samples in its profile lo..hi (global sizes and counts,
 * for its OCLBoi), and the time model's estimates of every sample's
 * measured counts, in the kernel's order. */
struct small {
	size_t n;
	double *g, *C, *p;
};

static void small_of(const struct sibyl_kmodel_table *t, size_t k,
		     const struct sibyl_kmodel_tm *tm, double lo, double hi, struct small *s)
{
	const struct sibyl_kmodel_kernel *kk = &t->k[k];

	s->n = 0;
	s->g = sibyl_xcalloc(kk->n + 1, sizeof(*s->g));
	s->C = sibyl_xcalloc(kk->n * t->nf + 1, sizeof(*s->C));
	s->p = sibyl_xcalloc(kk->n + 1, sizeof(*s->p));
	for (size_t i = 0; i < kk->n; i++) {
		size_t r = kk->rows[i];

		s->p[i] = sibyl_kmodel_tm_predict(tm, t->C + r * t->nf);
		if (t->g[r] < lo || t->g[r] > hi)
			continue;
		s->g[s->n] = t->g[r];
		memcpy(s->C + s->n * t->nf, t->C + r * t->nf, t->nf * sizeof(*s->C));
		s->n++;
	}
}

/* Relative error of q against y (0 when y is not positive). */
static double rel(double q, double y)
{
	return y > 0 ? fabs(q - y) / y : 0;
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

/* The sizes above the profile lo..hi predicted by boi, fitted on the
 * profile's samples s; OCLBase calibrated as OCLMan is (no launch term:
 * its polynomial has its own constant). */
static void larger(const struct sibyl_kmodel_table *t, size_t k, const struct sibyl_kmodel_tm *tm,
		   const struct sibyl_kmodel_boi *boi, const struct small *s, double lo,
		   double hi, struct sibyl_kmodel_eval_row *row)
{
	const struct sibyl_kmodel_kernel *kk = &t->k[k];
	double b = fmax(0, tm->b), c = sibyl_kmodel_window_scale(t, k, s->p, lo, hi, b);
	double cb = sibyl_kmodel_window_scale(t, k, row->oclbase, lo, hi, 0);
	double *x = sibyl_xcalloc(t->nf + 1, sizeof(*x));
	double *v = sibyl_xcalloc(6 * kk->n, sizeof(*v)), *g = v, *y = g + kk->n, *q = y + kk->n;
	double *qb = q + kk->n, *ce = qb + kk->n, *te = ce + kk->n;
	size_t m = 0;

	for (size_t i = 0; i < kk->n; i++) {
		size_t r = kk->rows[i];

		if (t->g[r] <= hi)
			continue;
		double own = s->p[i], u;

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
	double lo, hi;
	struct small s;
	struct sibyl_kmodel_boi boi;
	char err[256];

	row->extrap_err = row->extrap_r2 = row->extrap_r2_base = NAN;
	row->extrap_count_err = row->extrap_time_err = NAN;
	sibyl_kmodel_profile_window(t, k, fmax(0, tm->b), &lo, &hi);
	small_of(t, k, tm, lo, hi, &s);
	if (s.n < t->k[k].n && !sibyl_kmodel_boi_fit(s.g, s.C, s.n, t->nf, &boi, err, sizeof(err))) {
		larger(t, k, tm, &boi, &s, lo, hi, row);
		sibyl_kmodel_boi_free(&boi);
	}
	free(s.g), free(s.C), free(s.p);
}
