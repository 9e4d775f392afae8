/* The per-device time model: instruction counts -> device time. */
#include "kmodel/timemodel.h"
#include "kmodel/sizes.h"
#include "core/alloc.h"
#include "core/log.h"
#include "model/regress.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *sibyl_kmodel_tkind_name(enum sibyl_kmodel_tkind k)
{
	static const char *const names[] = { "linear", "nonneg", "nonneg-relative" };

	return k < SIBYL_TM_KINDS ? names[k] : "?";
}

/* The rows of the kernels in use: counts (with a column of ones when
 * `ones`) and times. */
static size_t gather(const struct sibyl_kmodel_table *t, const bool *use, bool ones, double *X,
		     double *y)
{
	size_t n = 0, p = t->nf + ones;

	for (size_t k = 0; k < t->nk; k++)
		for (size_t i = 0; use[k] && i < t->k[k].n; i++, n++) {
			size_t r = t->k[k].rows[i];

			memcpy(X + n * p, t->C + r * t->nf, t->nf * sizeof(*X));
			if (ones)
				X[n * p + t->nf] = 1;
			y[n] = t->t[r];
		}
	return n;
}

/* Non-negative costs and launch time (a column of ones, not centred:
 * no time is negative); on relative residuals, each row divided by its
 * time, when `relative`. */
static int fit_nonneg(const struct sibyl_kmodel_table *t, const bool *use, bool relative,
		      struct sibyl_kmodel_tm *m, char *err, size_t errlen)
{
	size_t p = t->nf + 1;
	double *X = sibyl_xcalloc(t->ns * p + 1, sizeof(*X)), *y = sibyl_xcalloc(t->ns + 1, sizeof(*y));
	double *w = sibyl_xcalloc(p, sizeof(*w));
	size_t n = gather(t, use, true, X, y);

	for (size_t i = 0; relative && i < n; i++) {
		for (size_t j = 0; j < p; j++)
			X[i * p + j] /= y[i];
		y[i] = 1;
	}
	int r = sibyl_nnls(X, y, n, p, w, err, errlen);

	memcpy(m->w, w, t->nf * sizeof(*w));
	m->b = w[t->nf];
	free(X), free(y), free(w);
	return r;
}

int sibyl_kmodel_tm_fit(enum sibyl_kmodel_tkind kind, const struct sibyl_kmodel_table *t,
			const bool *use, struct sibyl_kmodel_tm *m, char *err, size_t errlen)
{
	memset(m, 0, sizeof(*m));
	m->kind = kind;
	m->nf = t->nf;
	m->w = sibyl_xcalloc(t->nf + 1, sizeof(*m->w));
	if (kind != SIBYL_TM_LINEAR)
		return fit_nonneg(t, use, kind == SIBYL_TM_NONNEG_RELATIVE, m, err, errlen);
	double *X = sibyl_xcalloc(t->ns * t->nf + 1, sizeof(*X)), *y = sibyl_xcalloc(t->ns + 1, sizeof(*y));
	size_t n = gather(t, use, false, X, y);
	struct sibyl_reg_spec spec = { SIBYL_REG_OLS, false, false, 0, 0, 0 };
	struct sibyl_reg_model rm;
	int r = sibyl_reg_fit(&spec, X, y, n, t->nf, &rm, err, errlen);

	if (r == 0) {
		memcpy(m->w, rm.w, t->nf * sizeof(*m->w));
		m->b = rm.b;
		sibyl_reg_free(&rm);
	}
	free(X), free(y);
	return r;
}

double sibyl_kmodel_tm_predict(const struct sibyl_kmodel_tm *m, const double *counts)
{
	double v = m->b;

	for (size_t j = 0; j < m->nf; j++)
		v += m->w[j] * counts[j];
	return v;
}

void sibyl_kmodel_tm_free(struct sibyl_kmodel_tm *m)
{
	free(m->w);
	m->w = NULL;
}

double sibyl_kmodel_r2_of(const struct sibyl_kmodel_table *t, size_t k, const double *p)
{
	const struct sibyl_kmodel_kernel *kk = &t->k[k];
	double *y = sibyl_xcalloc(kk->n + 1, sizeof(*y));

	for (size_t i = 0; i < kk->n; i++)
		y[i] = t->t[kk->rows[i]];
	double r = sibyl_r2(y, p, kk->n);

	free(y);
	return r;
}

double sibyl_kmodel_rmse_of(const struct sibyl_kmodel_table *t, size_t k, const double *p)
{
	const struct sibyl_kmodel_kernel *kk = &t->k[k];
	double s = 0;

	for (size_t i = 0; i < kk->n; i++)
		s += (t->t[kk->rows[i]] - p[i]) * (t->t[kk->rows[i]] - p[i]);
	return sqrt(s / (double)kk->n);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double sibyl_kmodel_median(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

size_t sibyl_kmodel_by_size(const double *g, const double *y, const double *q, size_t n,
			    double *my, double *mq)
{
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		size_t c = 0, j = 0;

		while (j < i && g[j] != g[i])
			j++;
		if (j < i)
			continue;	/* its size is done */
		my[m] = INFINITY, mq[m] = 0;
		for (j = i; j < n; j++)
			if (g[j] == g[i])
				my[m] = fmin(my[m], y[j]), mq[m] += q[j], c++;
		mq[m++] /= (double)c;
	}
	return m;
}

double sibyl_kmodel_r2_sizes(const double *g, const double *y, const double *q, size_t n)
{
	double *my = sibyl_xcalloc(2 * n + 1, sizeof(*my)), *mq = my + n;
	size_t m = sibyl_kmodel_by_size(g, y, q, n, my, mq);
	double r = m > 1 ? sibyl_r2(my, mq, m) : NAN;

	free(my);
	return r;
}

#define RATIO_MAX 1e6

/* Measured / predicted time of every held-out sample. */
struct ratios {
	double *v;
	size_t n;
};

double sibyl_kmodel_calibration(const double *t, const double *p, size_t n)
{
	double *r = sibyl_xcalloc(n + 1, sizeof(*r)), s;
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (t[i] > 0 && p[i] > 0)
			r[m++] = t[i] / p[i];
	s = m ? sibyl_kmodel_median(r, m) : 1;
	free(r);
	return s;
}

double sibyl_kmodel_profile_scale(const double *g, const double *t, const double *p, size_t n,
				  double b)
{
	double top = -INFINITY, s = INFINITY;

	for (size_t i = 0; i < n; i++)
		if (t[i] > b && p[i] > b)
			top = fmax(top, g[i]);
	for (size_t i = 0; i < n; i++)
		if (g[i] == top && t[i] > b && p[i] > b)
			s = fmin(s, (t[i] - b) / (p[i] - b));
	return isinf(s) ? sibyl_kmodel_calibration(t, p, n) : s;
}

/* sizes.h's timer over a dataset: kernel k's least time at the
 * smallest size it has at or above want. */
struct dataset_timer {
	const struct sibyl_kmodel_table *t;
	size_t k;
};

static double dataset_time(void *ctx, uint64_t want, uint64_t *got, double *cost)
{
	const struct dataset_timer *d = ctx;
	const struct sibyl_kmodel_kernel *kk = &d->t->k[d->k];
	double g = INFINITY, least = INFINITY;

	*cost = 0;
	for (size_t i = 0; i < kk->n; i++) {
		double gi = d->t->g[kk->rows[i]];

		if (gi >= (double)want && gi < g)
			g = gi;
	}
	for (size_t i = 0; i < kk->n; i++)
		if (d->t->g[kk->rows[i]] == g)
			least = fmin(least, d->t->t[kk->rows[i]]);
	*got = isinf(g) ? 0 : (uint64_t)g;
	return least;
}

void sibyl_kmodel_profile_window(const struct sibyl_kmodel_table *t, size_t k, double b,
				 double *lo, double *hi)
{
	struct dataset_timer d = { t, k };
	double gmin = INFINITY, gmax = 0;
	struct sibyl_kmodel_sizes s;

	for (size_t i = 0; i < t->k[k].n; i++)
		gmin = fmin(gmin, t->g[t->k[k].rows[i]]), gmax = fmax(gmax, t->g[t->k[k].rows[i]]);
	*lo = *hi = gmin;
	if (!t->k[k].n)
		return;
	/* Sizes up to half the largest, so that some are left to predict;
	 * a dataset's cost nothing to time, so no budget. */
	struct sibyl_kmodel_size_rule r = { .start = (uint64_t)gmin, .cap = (uint64_t)(gmax / 2),
					    .launch_s = b, .factor = SIBYL_KMODEL_LAUNCH_FACTOR };

	if (!sibyl_kmodel_sizes_choose(&r, dataset_time, &d, &s))
		*lo = (double)s.from, *hi = (double)s.to;
}

double sibyl_kmodel_window_scale(const struct sibyl_kmodel_table *t, size_t k, const double *p,
				 double lo, double hi, double b)
{
	const struct sibyl_kmodel_kernel *kk = &t->k[k];
	double *g = sibyl_xcalloc(3 * kk->n + 1, sizeof(*g)), *y = g + kk->n, *q = y + kk->n;
	size_t m = 0;

	for (size_t i = 0; i < kk->n; i++) {
		size_t r = kk->rows[i];

		if (t->g[r] >= lo && t->g[r] <= hi)
			g[m] = t->g[r], y[m] = t->t[r], q[m++] = p[i];
	}
	double s = sibyl_kmodel_profile_scale(g, y, q, m, b);

	free(g);
	return s;
}

/* Kernel k's held-out predictions p (launch cost b), calibrated on its
 * profile (sibyl_kmodel_profile_window): measured / calibrated time of
 * its larger samples into q, their relative errors into e, and those
 * of p uncalibrated into u. */
static void calibrated(const struct sibyl_kmodel_table *t, size_t k, const double *p, double b,
		       struct ratios *q, struct ratios *e, struct ratios *u)
{
	const struct sibyl_kmodel_kernel *kk = &t->k[k];
	double lo, hi;

	sibyl_kmodel_profile_window(t, k, b, &lo, &hi);
	double s = sibyl_kmodel_window_scale(t, k, p, lo, hi, b);

	for (size_t i = 0; i < kk->n; i++) {
		double y = t->t[kk->rows[i]], c = sibyl_kmodel_calibrated(p[i], s, b);

		if (t->g[kk->rows[i]] <= hi)
			continue;
		q->v[q->n++] = c > 0 ? fmin(y / c, RATIO_MAX) : RATIO_MAX;
		e->v[e->n++] = y > 0 ? fabs(c - y) / y : 0;
		u->v[u->n++] = y > 0 ? fabs(p[i] - y) / y : 0;
	}
}

/* What the held-out samples said: measured / predicted time, and
 * measured / calibrated time with the calibrated relative errors. */
struct held {
	struct ratios raw, cal, err, uerr;
};

/* Held-out R^2 of kind over the folds: each kernel's times predicted
 * from its measured counts by a model that never saw it.  pos[k]: the
 * kernel's place among those in use (its fold is pos mod folds). */
static int cv_kind(enum sibyl_kmodel_tkind kind, const struct sibyl_kmodel_table *t,
		   const bool *use, const size_t *pos, size_t folds, double *med,
		   struct held *h, char *err, size_t errlen)
{
	bool *train = sibyl_xcalloc(t->nk + 1, sizeof(*train));
	double *r2 = sibyl_xcalloc(t->nk + 1, sizeof(*r2)), *p = sibyl_xcalloc(t->ns + 1, sizeof(*p));
	size_t nr = 0;
	int r = 0;

	h->raw.n = h->cal.n = h->err.n = h->uerr.n = 0;
	for (size_t f = 0; !r && f < folds; f++) {
		struct sibyl_kmodel_tm m;

		for (size_t k = 0; k < t->nk; k++)
			train[k] = use[k] && pos[k] % folds != f;
		if ((r = sibyl_kmodel_tm_fit(kind, t, train, &m, err, errlen)) < 0)
			break;
		for (size_t k = 0; k < t->nk; k++) {
			if (!use[k] || pos[k] % folds != f)
				continue;
			for (size_t i = 0; i < t->k[k].n; i++) {
				size_t row = t->k[k].rows[i];

				p[i] = sibyl_kmodel_tm_predict(&m, t->C + row * t->nf);
				/* A prediction of no time at all underestimates
				 * without bound: the largest ratio kept. */
				h->raw.v[h->raw.n++] = p[i] > 0 ? fmin(t->t[row] / p[i], RATIO_MAX)
								: RATIO_MAX;
			}
			r2[nr++] = sibyl_kmodel_r2_of(t, k, p);
			calibrated(t, k, p, fmax(0, m.b), &h->cal, &h->err, &h->uerr);
		}
		sibyl_kmodel_tm_free(&m);
	}
	*med = sibyl_kmodel_median(r2, nr);
	free(train), free(r2), free(p);
	return r;
}

/* The 5% and 95% quantiles of q (sorted here); 1 and 1 when empty. */
static void spread(struct ratios *q, double *lo, double *hi)
{
	*lo = *hi = 1;
	if (!q->n)
		return;
	sibyl_kmodel_median(q->v, q->n);	/* sorts */
	*lo = q->v[(size_t)(0.05 * (double)(q->n - 1))];
	*hi = q->v[(size_t)(0.95 * (double)(q->n - 1))];
}

int sibyl_kmodel_tm_choose(const struct sibyl_kmodel_table *t, const bool *use, size_t folds,
			   struct sibyl_kmodel_tm_choice *c, char *err, size_t errlen)
{
	size_t *pos = sibyl_xcalloc(t->nk + 1, sizeof(*pos)), np = 0;
	struct held h;
	int r = 0;

	h.raw.v = sibyl_xcalloc(t->ns + 1, sizeof(double));
	h.cal.v = sibyl_xcalloc(t->ns + 1, sizeof(double));
	h.err.v = sibyl_xcalloc(t->ns + 1, sizeof(double));
	h.uerr.v = sibyl_xcalloc(t->ns + 1, sizeof(double));
	c->median_r2 = -INFINITY;
	for (size_t k = 0; k < t->nk; k++)
		pos[k] = use[k] ? np++ : 0;
	if (np < 2)
		r = sibyl_seterr(err, errlen, "kmodel: %zu kernel%s: choosing the time model "
				 "needs 2 or more", np, np == 1 ? "" : "s");
	folds = folds < np ? folds : np;
	for (int k = 0; !r && k < SIBYL_TM_KINDS; k++) {
		double s;

		r = cv_kind((enum sibyl_kmodel_tkind)k, t, use, pos, folds, &s, &h, err, errlen);
		if (!r && s > c->median_r2) {
			c->median_r2 = s;
			c->kind = (enum sibyl_kmodel_tkind)k;
			spread(&h.raw, &c->lo, &c->hi);
			spread(&h.cal, &c->cal_lo, &c->cal_hi);
			/* 0 when no kernel had sizes beyond its calibration. */
			c->cal_err = h.err.n ? sibyl_kmodel_median(h.err.v, h.err.n) : 0;
			c->err = h.uerr.n ? sibyl_kmodel_median(h.uerr.v, h.uerr.n) : 0;
		}
	}
	free(pos);
	free(h.raw.v), free(h.cal.v), free(h.err.v), free(h.uerr.v);
	return r;
}
