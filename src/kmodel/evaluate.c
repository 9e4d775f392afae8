/* OCLMan against OCLBase on held-out kernels (Table 21.1). */
#include "kmodel/evaluate.h"
#include "kmodel/boi.h"
#include "kmodel/timemodel.h"
#include "core/alloc.h"
#include "core/clock.h"
#include "core/log.h"
#include "model/regress.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The inner cross validation that picks the time model's kind. */
#define INNER_FOLDS 5

/* OCLBase's inputs for one sample: the global size, then the static counts. */
static void base_row(const struct sibyl_kmodel_table *t, size_t k, size_t r, double *x)
{
	x[0] = t->g[r];
	memcpy(x + 1, t->k[k].stat, t->nf * sizeof(*x));
}

/* Least squares on each (kernel, global size)'s mean time: the samples
 * of one size share their inputs, so with as many samples at every size
 * the coefficients are those of all the samples, and the SVD of the
 * polynomial features (about 900 of them) is done on a third of the rows. */
static int fit_base(const struct sibyl_kmodel_table *t, const bool *use,
		    struct sibyl_reg_model *m, char *err, size_t errlen)
{
	static const struct sibyl_reg_spec spec = { SIBYL_REG_OLS, true, true, 0, 0, 0 };
	size_t p = t->nf + 1, n = 0;
	double *X = sibyl_xcalloc(t->ns * p + 1, sizeof(*X)), *y = sibyl_xcalloc(t->ns + 1, sizeof(*y));

	for (size_t k = 0; k < t->nk; k++)
		for (size_t i = 0, same = 0; use[k] && i < t->k[k].n; i++) {
			size_t r = t->k[k].rows[i];

			if (i && t->g[r] == t->g[t->k[k].rows[i - 1]]) {
				y[n - 1] += (t->t[r] - y[n - 1]) / (double)++same;
				continue;
			}
			same = 1;
			base_row(t, k, r, X + n * p);
			y[n++] = t->t[r];
		}
	int r = sibyl_reg_fit(&spec, X, y, n, p, m, err, errlen);

	free(X), free(y);
	return r;
}

/* OCLMan's and OCLBase's predictions of held-out kernel k. */
static int score_kernel(const struct sibyl_kmodel_table *t, size_t k,
			const struct sibyl_kmodel_tm *tm, const struct sibyl_reg_model *base,
			struct sibyl_kmodel_eval_row *row, char *err, size_t errlen)
{
	const struct sibyl_kmodel_kernel *kk = &t->k[k];
	double *g = sibyl_xcalloc(kk->n, sizeof(*g)), *C = sibyl_xcalloc(kk->n * t->nf + 1, sizeof(*C));
	double *man = sibyl_xcalloc(kk->n, sizeof(*man)), *bp = sibyl_xcalloc(kk->n, sizeof(*bp));
	double *x = sibyl_xcalloc(t->nf + 1, sizeof(*x)), *own = sibyl_xcalloc(kk->n, sizeof(*own));
	struct sibyl_kmodel_boi boi;
	uint64_t t0 = sibyl_mono_ns();

	for (size_t i = 0; i < kk->n; i++) {
		g[i] = t->g[kk->rows[i]];
		memcpy(C + i * t->nf, t->C + kk->rows[i] * t->nf, t->nf * sizeof(*C));
	}
	int r = sibyl_kmodel_boi_fit(g, C, kk->n, t->nf, &boi, err, errlen);

	for (size_t i = 0; !r && i < kk->n; i++) {
		sibyl_kmodel_boi_predict(&boi, g[i], x);
		man[i] = sibyl_kmodel_tm_predict(tm, x);
		own[i] = sibyl_kmodel_tm_predict(tm, C + i * t->nf);
		base_row(t, k, kk->rows[i], x);
		bp[i] = sibyl_reg_predict(base, x);
	}
	if (!r) {
		double *measured = sibyl_xcalloc(kk->n, sizeof(*measured));

		for (size_t i = 0; i < kk->n; i++)
			measured[i] = t->t[kk->rows[i]];
		*row = (struct sibyl_kmodel_eval_row){
			kk->name, sibyl_kmodel_r2_of(t, k, man), sibyl_kmodel_r2_of(t, k, bp),
			sibyl_kmodel_rmse_of(t, k, man), sibyl_kmodel_rmse_of(t, k, bp),
			boi.kind, boi.score, sibyl_kmodel_tkind_name(tm->kind),
			(double)(sibyl_mono_ns() - t0) * 1e-9, NAN, NAN, NAN, NAN, NAN, NAN, NAN, kk->n, g,
			measured, man, bp };
		row->r2_counts = sibyl_kmodel_r2_of(t, k, own);
		row->level = sibyl_kmodel_calibration(measured, own, kk->n);
		sibyl_kmodel_boi_free(&boi);
		sibyl_kmodel_eval_extrap(t, k, tm, row);
	} else {
		free(g), free(man), free(bp);
	}
	free(C), free(x), free(own);
	return r;
}

static int one_fold(const struct sibyl_kmodel_table *t, size_t folds, size_t f, bool *use,
		    struct sibyl_kmodel_eval *e, char *err, size_t errlen)
{
	struct sibyl_kmodel_tm_choice c = { 0 };
	struct sibyl_kmodel_tm tm = { 0 };
	struct sibyl_reg_model base = { 0 };
	int r;

	for (size_t k = 0; k < t->nk; k++)
		use[k] = k % folds != f;
	r = sibyl_kmodel_tm_choose(t, use, INNER_FOLDS, &c, err, errlen);
	if (!r)
		r = sibyl_kmodel_tm_fit(c.kind, t, use, &tm, err, errlen);
	if (!r)
		r = fit_base(t, use, &base, err, errlen);
	for (size_t k = f; !r && k < t->nk; k += folds)
		r = score_kernel(t, k, &tm, &base, &e->rows[k], err, errlen);
	sibyl_kmodel_tm_free(&tm);
	sibyl_reg_free(&base);
	return r;
}

int sibyl_kmodel_evaluate(const struct sibyl_kmodel_table *t, size_t folds,
			  struct sibyl_kmodel_eval *e, char *err, size_t errlen)
{
	bool *use = sibyl_xcalloc(t->nk + 1, sizeof(*use));
	int r = 0;

	e->n = t->nk;
	e->rows = sibyl_xcalloc(t->nk + 1, sizeof(*e->rows));
	if (folds < 2 || t->nk < folds)
		r = sibyl_seterr(err, errlen, "kmodel: %zu kernels cannot make %zu folds (at "
				 "least 2 kernels per split)", t->nk, folds);
	for (size_t f = 0; !r && f < folds; f++)
		r = one_fold(t, folds, f, use, e, err, errlen);
	free(use);
	if (r)
		sibyl_kmodel_eval_free(e);
	return r;
}

void sibyl_kmodel_eval_free(struct sibyl_kmodel_eval *e)
{
	for (size_t i = 0; e->rows && i < e->n; i++) {
		free(e->rows[i].gsize);
		free(e->rows[i].measured);
		free(e->rows[i].oclman);
		free(e->rows[i].oclbase);
	}
	free(e->rows);
	memset(e, 0, sizeof(*e));
}
