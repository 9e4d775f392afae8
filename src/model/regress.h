/*
 * Multiple regression for the kernel models (src/kmodel, Niarchos 2020
 * ch. 15, 20, 21): y = b + w.x by least squares, elastic net (coordinate
 * descent) or non-negative least squares, on the inputs or on their
 * degree-2 polynomial features, optionally standardised; k-fold cross
 * validation and grid search by R^2.  The definitions are
 * scikit-learn's, so its results are the reference (test
 * model_regress_sklearn): LinearRegression (minimum-norm solution when
 * columns are collinear), ElasticNet(alpha, l1_ratio), LinearRegression
 * (positive=True), PolynomialFeatures(2, include_bias=False),
 * StandardScaler, KFold(k) without shuffling, r2_score.
 *
 * Matrices are row-major arrays of doubles: X is n x p.
 */
#ifndef SIBYL_MODEL_REGRESS_H
#define SIBYL_MODEL_REGRESS_H

#include <stdbool.h>
#include <stddef.h>

enum sibyl_reg_kind {
	SIBYL_REG_OLS,		/* ordinary least squares */
	SIBYL_REG_ENET,		/* elastic net */
	SIBYL_REG_NNLS,		/* least squares, every coefficient >= 0 */
};

struct sibyl_reg_spec {
	enum sibyl_reg_kind kind;
	bool poly2;		/* degree-2 polynomial features first */
	bool scale;		/* then standardise each feature */
	double alpha, l1_ratio;	/* elastic net: alpha (l1_ratio |w|_1 +
				 * (1 - l1_ratio) |w|^2 / 2) + |r|^2 / 2n */
	double tol;		/* elastic net: duality gap / |y|^2 to stop
				 * at; 0: 1e-10 */
};

struct sibyl_reg_model {
	struct sibyl_reg_spec spec;
	size_t p_in;		/* inputs */
	size_t p;		/* features the coefficients weigh */
	double *mean, *sd;	/* standardisation of the features (scale) */
	double *w;		/* p coefficients */
	double b;		/* intercept */
};

/* Fit spec on n samples of p_in inputs.  0, or -1 with the line in err
 * (too few samples, a non-finite value).  Free with sibyl_reg_free. */
int sibyl_reg_fit(const struct sibyl_reg_spec *spec, const double *X, const double *y,
		  size_t n, size_t p_in, struct sibyl_reg_model *m, char *err, size_t errlen);
double sibyl_reg_predict(const struct sibyl_reg_model *m, const double *x);
void sibyl_reg_free(struct sibyl_reg_model *m);

/* Degree-2 polynomial features of one row: x_i, then x_i x_j for i <=
 * j, as scikit-learn orders them.  out holds sibyl_poly2_count(p). */
size_t sibyl_poly2_count(size_t p);
void sibyl_poly2_row(const double *x, size_t p, double *out);

/* --- solvers on centred data (regress_solve.c) --------------------------- */

/* Minimum-norm least squares of centred X (n x p) and y: singular values
 * below eps * max(n, p) * the largest are dropped, as LAPACK's gelsd. */
int sibyl_lstsq(const double *X, const double *y, size_t n, size_t p, double *w, char *err,
		size_t errlen);
/* Lawson-Hanson non-negative least squares. */
int sibyl_nnls(const double *X, const double *y, size_t n, size_t p, double *w, char *err,
	       size_t errlen);
/* Coordinate descent until the duality gap is below tol * |y|^2 (as
 * scikit-learn stops), at most max_iter sweeps.  Returns the sweeps. */
int sibyl_enet_cd(const double *X, const double *y, size_t n, size_t p, double alpha,
		  double l1_ratio, double tol, int max_iter, double *w);

/* --- validation (regress_cv.c) ------------------------------------------- */

/* 1 - SS_res / SS_tot; for a constant y: 1 when predicted exactly, else 0
 * (scikit-learn's force_finite). */
double sibyl_r2(const double *y, const double *yhat, size_t n);

/* Fold f of k over n samples (KFold(k), no shuffling): the first n % k
 * folds have one sample more.  Test samples [*lo, *hi). */
void sibyl_kfold(size_t n, size_t k, size_t f, size_t *lo, size_t *hi);

/* Mean R^2 of k-fold cross validation of spec on (X, y), each fold
 * fitted on the others.  -1 with the line in err when a fold fails. */
int sibyl_reg_cv(const struct sibyl_reg_spec *spec, const double *X, const double *y, size_t n,
		 size_t p_in, size_t k, double *score, char *err, size_t errlen);

/* The candidate of best mean cross-validated R^2 (the first of equal
 * scores, as GridSearchCV).  Returns its index, -1 on failure. */
long sibyl_reg_grid(const struct sibyl_reg_spec *cand, size_t ncand, const double *X,
		    const double *y, size_t n, size_t p_in, size_t k, double *best_score,
		    char *err, size_t errlen);

#endif
