/* Least squares, non-negative least squares and elastic net on centred data. */
#include "model/regress.h"
#include "core/alloc.h"
#include "core/log.h"

#include <float.h>
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Minimum-norm solution through the SVD of whichever of X and X^T has at
 * least as many rows as columns (GSL's SVD needs that). */
int sibyl_lstsq(const double *X, const double *y, size_t n, size_t p, double *w, char *err,
		size_t errlen)
{
	bool tall = n >= p;
	size_t r = tall ? n : p, c = tall ? p : n;

	if (!n || !p) {
		memset(w, 0, p * sizeof(*w));
		return 0;
	}
	gsl_matrix *a = gsl_matrix_alloc(r, c), *v = gsl_matrix_alloc(c, c);
	gsl_vector *s = gsl_vector_alloc(c);

	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < p; j++)
			gsl_matrix_set(a, tall ? i : j, tall ? j : i, X[i * p + j]);
	int st = gsl_linalg_SV_decomp_jacobi(a, v, s);
	/* X = U S V^T (tall) or V S U^T: w = V S+ U^T y, or U S+ V^T y. */
	const gsl_matrix *left = tall ? a : v, *right = tall ? v : a;
	double cut = DBL_EPSILON * (double)r * (st ? 0 : gsl_vector_max(s));

	memset(w, 0, p * sizeof(*w));
	for (size_t k = 0; !st && k < c; k++) {
		double sk = gsl_vector_get(s, k), dot = 0;

		if (!(sk > cut))
			continue;
		for (size_t i = 0; i < n; i++)
			dot += gsl_matrix_get(left, i, k) * y[i];
		for (size_t j = 0; j < p; j++)
			w[j] += gsl_matrix_get(right, j, k) * dot / sk;
	}
	gsl_matrix_free(a);
	gsl_matrix_free(v);
	gsl_vector_free(s);
	return st ? sibyl_seterr(err, errlen, "least squares: the SVD did not converge") : 0;
}

/* Gradient -X^T (y - X w) of half the squared residual, negated. */
static void negative_gradient(const double *X, const double *y, size_t n, size_t p,
			      const double *w, double *g)
{
	memset(g, 0, p * sizeof(*g));
	for (size_t i = 0; i < n; i++) {
		double r = y[i];

		for (size_t j = 0; j < p; j++)
			r -= X[i * p + j] * w[j];
		for (size_t j = 0; j < p; j++)
			g[j] += X[i * p + j] * r;
	}
}

/* Least squares on the passive columns only; the others stay 0. */
static int solve_passive(const double *X, const double *y, size_t n, size_t p,
			 const bool *passive, double *z, double *sub, double *zs, char *err,
			 size_t errlen)
{
	size_t q = 0;
	size_t *cols = sibyl_xcalloc(p, sizeof(*cols));

	for (size_t j = 0; j < p; j++)
		if (passive[j])
			cols[q++] = j;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < q; k++)
			sub[i * q + k] = X[i * p + cols[k]];
	int r = sibyl_lstsq(sub, y, n, q, zs, err, errlen);

	memset(z, 0, p * sizeof(*z));
	for (size_t k = 0; k < q; k++)
		z[cols[k]] = zs[k];
	free(cols);
	return r;
}

/* Step from w towards z until the first passive coefficient reaches 0;
 * those at 0 leave the passive set. */
static void step_back(double *w, const double *z, bool *passive, size_t p, double tol)
{
	double t = 1;

	for (size_t j = 0; j < p; j++)
		if (passive[j] && z[j] <= 0 && w[j] - z[j] > 0)
			t = fmin(t, w[j] / (w[j] - z[j]));
	for (size_t j = 0; j < p; j++) {
		w[j] += t * (z[j] - w[j]);
		if (passive[j] && w[j] <= tol) {
			passive[j] = false;
			w[j] = 0;
		}
	}
}

static bool all_positive(const double *z, const bool *passive, size_t p)
{
	for (size_t j = 0; j < p; j++)
		if (passive[j] && z[j] <= 0)
			return false;
	return true;
}

static int nnls_scaled(const double *X, const double *y, size_t n, size_t p, double *w,
		       char *err, size_t errlen)
{
	double *g = sibyl_xcalloc(p, sizeof(*g)), *z = sibyl_xcalloc(p, sizeof(*z));
	double *sub = sibyl_xcalloc(n * p + 1, sizeof(*sub)), *zs = sibyl_xcalloc(p, sizeof(*zs));
	bool *passive = sibyl_xcalloc(p, sizeof(*passive));
	double norm = 0;
	int r = 0;

	for (size_t i = 0; i < n * p; i++)
		norm = fmax(norm, fabs(X[i]));
	double tol = 10 * DBL_EPSILON * norm * (double)(n > p ? n : p);

	memset(w, 0, p * sizeof(*w));
	for (size_t iter = 0; !r && iter < 3 * p + 30; iter++) {
		long best = -1;

		negative_gradient(X, y, n, p, w, g);
		for (size_t j = 0; j < p; j++)
			if (!passive[j] && g[j] > tol && (best < 0 || g[j] > g[best]))
				best = (long)j;
		if (best < 0)
			break;
		passive[best] = true;
		while (!(r = solve_passive(X, y, n, p, passive, z, sub, zs, err, errlen)) &&
		       !all_positive(z, passive, p))
			step_back(w, z, passive, p, tol);
		if (!r)
			memcpy(w, z, p * sizeof(*w));
	}
	free(g), free(z), free(sub), free(zs), free(passive);
	return r;
}

/* Columns scaled to unit norm first: the solution is the same (a
 * positive scale keeps the sign), but counts from 10^3 to 10^10 next to
 * a column of ones otherwise make the active set cycle and stop at 0. */
int sibyl_nnls(const double *X, const double *y, size_t n, size_t p, double *w, char *err,
	       size_t errlen)
{
	double *S = sibyl_xcalloc(n * p + 1, sizeof(*S)), *norm = sibyl_xcalloc(p + 1, sizeof(*norm));

	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < p; j++)
			norm[j] += X[i * p + j] * X[i * p + j];
	for (size_t j = 0; j < p; j++)
		norm[j] = norm[j] > 0 ? sqrt(norm[j]) : 1;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < p; j++)
			S[i * p + j] = X[i * p + j] / norm[j];
	int r = nnls_scaled(S, y, n, p, w, err, errlen);

	for (size_t j = 0; j < p; j++)
		w[j] /= norm[j];
	free(S);
	free(norm);
	return r;
}

/* scikit-learn's duality gap of the elastic net at w (R: residuals). */
static double enet_gap(const double *X, const double *y, const double *R, const double *w,
		       size_t n, size_t p, double l1, double l2)
{
	double dual = 0, rr = 0, ww = 0, wl1 = 0, ry = 0;

	for (size_t j = 0; j < p; j++) {
		double xr = 0;

		for (size_t i = 0; i < n; i++)
			xr += X[i * p + j] * R[i];
		dual = fmax(dual, fabs(xr - l2 * w[j]));
		ww += w[j] * w[j];
		wl1 += fabs(w[j]);
	}
	for (size_t i = 0; i < n; i++)
		rr += R[i] * R[i], ry += R[i] * y[i];
	double c = dual > l1 ? l1 / dual : 1;
	double gap = dual > l1 ? 0.5 * (rr + rr * c * c) : rr;

	return gap + l1 * wl1 - c * ry + 0.5 * l2 * (1 + c * c) * ww;
}

/* One sweep over the coordinates; returns the largest change. */
static double enet_sweep(const double *X, const double *norms, size_t n, size_t p, double l1,
			 double l2, double *w, double *R, double *wmax)
{
	double dmax = 0;

	*wmax = 0;
	for (size_t j = 0; j < p; j++) {
		double old = w[j], t = 0;

		if (norms[j] == 0)
			continue;
		for (size_t i = 0; i < n; i++)
			t += X[i * p + j] * (R[i] + X[i * p + j] * old);
		w[j] = copysign(fmax(fabs(t) - l1, 0), t) / (norms[j] + l2);
		for (size_t i = 0; w[j] != old && i < n; i++)
			R[i] -= X[i * p + j] * (w[j] - old);
		dmax = fmax(dmax, fabs(w[j] - old));
		*wmax = fmax(*wmax, fabs(w[j]));
	}
	return dmax;
}

int sibyl_enet_cd(const double *X, const double *y, size_t n, size_t p, double alpha,
		  double l1_ratio, double tol, int max_iter, double *w)
{
	double *norms = sibyl_xcalloc(p + 1, sizeof(*norms)), *R = sibyl_xcalloc(n + 1, sizeof(*R));
	double l1 = alpha * l1_ratio * (double)n, l2 = alpha * (1 - l1_ratio) * (double)n, yy = 0;
	int it;

	memset(w, 0, p * sizeof(*w));
	for (size_t i = 0; i < n; i++) {
		R[i] = y[i];
		yy += y[i] * y[i];
		for (size_t j = 0; j < p; j++)
			norms[j] += X[i * p + j] * X[i * p + j];
	}
	for (it = 1; it <= max_iter; it++) {
		double wmax, dmax = enet_sweep(X, norms, n, p, l1, l2, w, R, &wmax);

		if ((wmax == 0 || dmax / wmax < tol || it == max_iter) &&
		    enet_gap(X, y, R, w, n, p, l1, l2) < tol * yy)
			break;
	}
	free(norms);
	free(R);
	return it;
}
