/* OCLBoi: global size -> instruction counts, the model chosen by cross validation. */
#include "kmodel/boi.h"
#include "core/alloc.h"
#include "core/log.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FOLDS 5
/* Holding one size out of 2 leaves one to fit a line on. */
#define MIN_SIZES SIBYL_KMODEL_BOI_FIT_SIZES
/* The elastic nets stop at a duality gap of 1e-7 |y|^2: ample for R^2
 * (scikit-learn's default is 1e-4), and the correlated g and g^2 of a
 * superlinear kernel otherwise cost seconds of coordinate descent. */
#define ENET_TOL 1e-7
/* A later (more complex) candidate must beat an earlier one by this
 * much: counts are integers, and the rounding alone lets a polynomial
 * out-score the straight line of a linear count by 1e-9, yet extrapolate
 * worse. */
#define BETTER_BY 1e-6
/* ... and leave at most this share of its cross-validated error (1 -
 * R^2): collatz's and spmv_rows's counts, linear with 1..2% of noise
 * between samples, chose a parabola whose R^2 was better by 1e-4 and
 * whose curvature, the noise's, took their counts at 16 times the
 * profile 30% too high or 18% too low (docs/kmodel.md). */
#define ERROR_SHARE 0.5

static const double alphas[] = { 1e-4, 1e-3, 1e-2, 1e-1 };
static const double l1s[] = { 0.1, 0.5, 0.9 };
#define NGRID (sizeof(alphas) / sizeof(*alphas) * sizeof(l1s) / sizeof(*l1s))
#define NCAND (2 * (1 + NGRID))

const char *sibyl_kmodel_boi_kind(const struct sibyl_reg_spec *s)
{
	if (s->kind == SIBYL_REG_ENET)
		return s->poly2 ? "poly2 + elastic net" : "elastic net";
	return s->poly2 ? "poly2 + linear" : "linear";
}

/* Linear, the elastic net grid, then both on polynomial features; every
 * input standardised (the global size and its square differ by orders
 * of magnitude, and the penalty must weigh them alike). */
static size_t candidates(struct sibyl_reg_spec *c)
{
	size_t n = 0;

	for (int poly = 0; poly <= 1; poly++) {
		c[n++] = (struct sibyl_reg_spec){ SIBYL_REG_OLS, poly, true, 0, 0, 0 };
		for (size_t a = 0; a < sizeof(alphas) / sizeof(*alphas); a++)
			for (size_t l = 0; l < sizeof(l1s) / sizeof(*l1s); l++)
				c[n++] = (struct sibyl_reg_spec){ SIBYL_REG_ENET, poly, true,
								  alphas[a], l1s[l], ENET_TOL };
	}
	return n;
}

static void column(const double *C, size_t n, size_t nf, size_t j, double *y)
{
	for (size_t i = 0; i < n; i++)
		y[i] = C[i * nf + j];
}

static bool varies(const double *y, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (y[i] != y[0])
			return true;
	return false;
}

/* The folds of the samples (boi_cv.c). */
struct folds {
	size_t *of, n;
};

/* Mean cross-validated R^2 of spec, or of the power law (spec NULL),
 * over the counts that vary (1 when none does: every candidate then
 * predicts the constants exactly). */
static int score(const struct sibyl_reg_spec *spec, const struct folds *fo, const double *g,
		 const double *C, size_t n, size_t nf, double *y, double *out, char *err,
		 size_t errlen)
{
	double sum = 0;
	size_t used = 0;

	for (size_t j = 0; j < nf; j++) {
		double s;

		column(C, n, nf, j, y);
		if (!varies(y, n))
			continue;
		if (sibyl_kmodel_boi_cv(spec, g, y, n, fo->of, fo->n, &s, err, errlen) < 0)
			return -1;
		sum += s;
		used++;
	}
	*out = used ? sum / (double)used : 1;
	return 0;
}

/* Candidate i of the order tried, simplest first: linear and the
 * elastic nets (half of c), the power law (NULL: two parameters, as a
 * line), then both on polynomials. */
static const struct sibyl_reg_spec *candidate(const struct sibyl_reg_spec *c, size_t nc, size_t i)
{
	return i < nc / 2 ? &c[i] : i == nc / 2 ? NULL : &c[i - 1];
}

static int choose(const double *g, const double *C, size_t n, size_t nf,
		  struct sibyl_kmodel_boi *b, char *err, size_t errlen)
{
	struct sibyl_reg_spec c[NCAND];
	size_t nc = candidates(c);
	double *y = sibyl_xcalloc(n, sizeof(*y)), s;
	struct folds fo = { sibyl_xcalloc(n + 1, sizeof(*fo.of)), 0 };
	int r = 0;

	fo.n = sibyl_kmodel_boi_folds(g, n, FOLDS, fo.of);
	if (fo.n < MIN_SIZES)
		r = sibyl_seterr(err, errlen, "kmodel: %zu global size%s: OCLBoi's cross "
				 "validation needs at least %d", fo.n, fo.n == 1 ? "" : "s",
				 MIN_SIZES);
	b->score = -INFINITY;
	for (size_t i = 0; !r && i <= nc; i++) {
		const struct sibyl_reg_spec *spec = candidate(c, nc, i);

		r = score(spec, &fo, g, C, n, nf, y, &s, err, errlen);
		if (!r && s > b->score + BETTER_BY && 1 - s <= ERROR_SHARE * (1 - b->score)) {
			b->score = s;
			b->power = !spec;
			/* The power law's counts are least squares (boi_power.c). */
			b->spec = spec ? *spec : (struct sibyl_reg_spec){ SIBYL_REG_OLS, false,
									  false, 0, 0, 0 };
		}
	}
	free(y), free(fo.of);
	return r;
}

int sibyl_kmodel_boi_fit(const double *g, const double *C, size_t n, size_t nf,
			 struct sibyl_kmodel_boi *b, char *err, size_t errlen)
{
	memset(b, 0, sizeof(*b));
	if (n < FOLDS)
		return sibyl_seterr(err, errlen, "kmodel: %zu samples: OCLBoi's %d-fold cross "
				    "validation needs at least %d", n, FOLDS, FOLDS);
	if (choose(g, C, n, nf, b, err, errlen) < 0)
		return -1;
	b->nf = nf;
	b->kind = b->power ? SIBYL_KMODEL_POWER_KIND : sibyl_kmodel_boi_kind(&b->spec);
	b->m = sibyl_xcalloc(nf + 1, sizeof(*b->m));
	b->gmin = b->gmax = g[0];
	for (size_t i = 0; i < n; i++)
		b->gmin = fmin(b->gmin, g[i]), b->gmax = fmax(b->gmax, g[i]);
	b->law = b->power ? sibyl_xcalloc(nf + 1, sizeof(*b->law)) : NULL;
	double *y = sibyl_xcalloc(n, sizeof(*y));
	int r = 0;

	for (size_t j = 0; !r && j < nf; j++) {
		column(C, n, nf, j, y);
		r = b->power ? sibyl_kmodel_power_fit(g, y, n, &b->m[j], &b->law[j], err, errlen)
			     : sibyl_reg_fit(&b->spec, g, y, n, 1, &b->m[j], err, errlen);
	}
	free(y);
	if (r < 0)
		sibyl_kmodel_boi_free(b);
	return r;
}

void sibyl_kmodel_boi_predict(const struct sibyl_kmodel_boi *b, double g, double *counts)
{
	for (size_t j = 0; j < b->nf; j++)
		counts[j] = fmax(0, b->power ? sibyl_kmodel_power_predict(&b->m[j], b->law[j], g)
					      : sibyl_reg_predict(&b->m[j], &g));
}

void sibyl_kmodel_boi_free(struct sibyl_kmodel_boi *b)
{
	for (size_t j = 0; b->m && j < b->nf; j++)
		sibyl_reg_free(&b->m[j]);
	free(b->m), free(b->law);
	memset(b, 0, sizeof(*b));
}
