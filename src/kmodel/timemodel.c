/* The per-device time model: instruction counts -> device time. */
#include "kmodel/timemodel.h"
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

#define RATIO_MAX 1e6

/* Measured / predicted time of every held-out sample. */
struct ratios {
	double *v;
	size_t n;
};

/* Held-out R^2 of kind over the folds: each kernel's times predicted
 * from its measured counts by a model that never saw it.  pos[k]: the
 * kernel's place among those in use (its fold is pos mod folds). */
static int cv_kind(enum sibyl_kmodel_tkind kind, const struct sibyl_kmodel_table *t,
		   const bool *use, const size_t *pos, size_t folds, double *med,
		   struct ratios *q, char *err, size_t errlen)
{
	bool *train = sibyl_xcalloc(t->nk + 1, sizeof(*train));
	double *r2 = sibyl_xcalloc(t->nk + 1, sizeof(*r2)), *p = sibyl_xcalloc(t->ns + 1, sizeof(*p));
	size_t nr = 0;
	int r = 0;

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
				q->v[q->n++] = p[i] > 0 ? fmin(t->t[row] / p[i], RATIO_MAX) : RATIO_MAX;
			}
			r2[nr++] = sibyl_kmodel_r2_of(t, k, p);
		}
		sibyl_kmodel_tm_free(&m);
	}
	*med = sibyl_kmodel_median(r2, nr);
	free(train), free(r2), free(p);
	return r;
}

int sibyl_kmodel_tm_choose(const struct sibyl_kmodel_table *t, const bool *use, size_t folds,
			   struct sibyl_kmodel_tm_choice *c, char *err, size_t errlen)
{
	size_t *pos = sibyl_xcalloc(t->nk + 1, sizeof(*pos)), np = 0;
	struct ratios q = { sibyl_xcalloc(t->ns + 1, sizeof(double)), 0 };
	int r = 0;

	c->median_r2 = -INFINITY;
	for (size_t k = 0; k < t->nk; k++)
		pos[k] = use[k] ? np++ : 0;
	if (np < 2)
		r = sibyl_seterr(err, errlen, "kmodel: %zu kernel%s: choosing the time model "
				 "needs 2 or more", np, np == 1 ? "" : "s");
	folds = folds < np ? folds : np;
	for (int k = 0; !r && k < SIBYL_TM_KINDS; k++) {
		double s;

		q.n = 0;
		r = cv_kind((enum sibyl_kmodel_tkind)k, t, use, pos, folds, &s, &q, err, errlen);
		if (!r && s > c->median_r2) {
			c->median_r2 = s;
			c->kind = (enum sibyl_kmodel_tkind)k;
			sibyl_kmodel_median(q.v, q.n);	/* sorts */
			c->lo = q.v[(size_t)(0.05 * (double)(q.n - 1))];
			c->hi = q.v[(size_t)(0.95 * (double)(q.n - 1))];
		}
	}
	free(pos);
	free(q.v);
	return r;
}
