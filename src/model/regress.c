/* Fitting a regression spec: features, standardisation, intercept, solver. */
#include "model/regress.h"
#include "core/alloc.h"
#include "core/log.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Elastic net to a duality gap of 1e-10 |y|^2: tighter than scikit-
 * learn's default 1e-4, cheap at these sizes, and what lets its results
 * be compared to 1e-6. */
#define ENET_TOL 1e-10
#define ENET_MAX_ITER 100000

size_t sibyl_poly2_count(size_t p)
{
	return p + p * (p + 1) / 2;
}

void sibyl_poly2_row(const double *x, size_t p, double *out)
{
	size_t k = p;

	memcpy(out, x, p * sizeof(*x));
	for (size_t i = 0; i < p; i++)
		for (size_t j = i; j < p; j++)
			out[k++] = x[i] * x[j];
}

/* The features of one input row, standardised when asked. */
static void features(const struct sibyl_reg_model *m, const double *x, double *f, bool scale)
{
	if (m->spec.poly2)
		sibyl_poly2_row(x, m->p_in, f);
	else
		memcpy(f, x, m->p_in * sizeof(*x));
	for (size_t j = 0; scale && j < m->p; j++)
		f[j] = (f[j] - m->mean[j]) / m->sd[j];
}

/* StandardScaler: population standard deviation, 1 for a constant. */
static void standardise(struct sibyl_reg_model *m, const double *F, size_t n)
{
	for (size_t j = 0; j < m->p; j++) {
		double mean = 0, var = 0;

		for (size_t i = 0; i < n; i++)
			mean += F[i * m->p + j];
		mean /= (double)n;
		for (size_t i = 0; i < n; i++)
			var += (F[i * m->p + j] - mean) * (F[i * m->p + j] - mean);
		double sd = sqrt(var / (double)n);

		m->mean[j] = mean;
		m->sd[j] = sd > 0 ? sd : 1;
	}
}

static int check_finite(const double *X, const double *y, size_t n, size_t p, char *err,
			size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		bool ok = isfinite(y[i]);

		for (size_t j = 0; ok && j < p; j++)
			ok = isfinite(X[i * p + j]);
		if (!ok)
			return sibyl_seterr(err, errlen, "regression: sample %zu is not finite", i + 1);
	}
	return 0;
}

/* Centre the features and y (the intercept is fitted that way), solve,
 * and recover the intercept. */
static int solve(struct sibyl_reg_model *m, double *F, const double *y, size_t n, char *err,
		 size_t errlen)
{
	double *yc = sibyl_xcalloc(n, sizeof(*yc)), *fm = sibyl_xcalloc(m->p + 1, sizeof(*fm));
	double ym = 0;
	int r = 0;

	for (size_t i = 0; i < n; i++) {
		ym += y[i] / (double)n;
		for (size_t j = 0; j < m->p; j++)
			fm[j] += F[i * m->p + j] / (double)n;
	}
	for (size_t i = 0; i < n; i++) {
		yc[i] = y[i] - ym;
		for (size_t j = 0; j < m->p; j++)
			F[i * m->p + j] -= fm[j];
	}
	if (m->spec.kind == SIBYL_REG_OLS)
		r = sibyl_lstsq(F, yc, n, m->p, m->w, err, errlen);
	else if (m->spec.kind == SIBYL_REG_NNLS)
		r = sibyl_nnls(F, yc, n, m->p, m->w, err, errlen);
	else
		sibyl_enet_cd(F, yc, n, m->p, m->spec.alpha, m->spec.l1_ratio,
			      m->spec.tol > 0 ? m->spec.tol : ENET_TOL, ENET_MAX_ITER, m->w);
	m->b = ym;
	for (size_t j = 0; j < m->p; j++)
		m->b -= fm[j] * m->w[j];
	free(yc);
	free(fm);
	return r;
}

int sibyl_reg_fit(const struct sibyl_reg_spec *spec, const double *X, const double *y,
		  size_t n, size_t p_in, struct sibyl_reg_model *m, char *err, size_t errlen)
{
	memset(m, 0, sizeof(*m));
	m->spec = *spec;
	m->p_in = p_in;
	m->p = spec->poly2 ? sibyl_poly2_count(p_in) : p_in;
	if (n < 2)
		return sibyl_seterr(err, errlen, "regression: %zu sample%s: at least 2 needed", n,
				    n == 1 ? "" : "s");
	if (check_finite(X, y, n, p_in, err, errlen) < 0)
		return -1;
	m->w = sibyl_xcalloc(m->p + 1, sizeof(*m->w));
	m->mean = sibyl_xcalloc(m->p + 1, sizeof(*m->mean));
	m->sd = sibyl_xcalloc(m->p + 1, sizeof(*m->sd));
	double *F = sibyl_xcalloc(n * m->p + 1, sizeof(*F));
	/* The rows first, then their statistics. */
	for (size_t i = 0; i < n; i++)
		features(m, X + i * p_in, F + i * m->p, false);
	if (spec->scale) {
		standardise(m, F, n);
		for (size_t i = 0; i < n * m->p; i++)
			F[i] = (F[i] - m->mean[i % m->p]) / m->sd[i % m->p];
	}
	int r = solve(m, F, y, n, err, errlen);

	free(F);
	if (r < 0)
		sibyl_reg_free(m);
	return r;
}

double sibyl_reg_predict(const struct sibyl_reg_model *m, const double *x)
{
	double *f = sibyl_xcalloc(m->p + 1, sizeof(*f)), v = m->b;

	features(m, x, f, m->spec.scale);
	for (size_t j = 0; j < m->p; j++)
		v += m->w[j] * f[j];
	free(f);
	return v;
}

void sibyl_reg_free(struct sibyl_reg_model *m)
{
	free(m->w);
	free(m->mean);
	free(m->sd);
	m->w = m->mean = m->sd = NULL;
}
