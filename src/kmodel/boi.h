/*
 * OCLBoi (Niarchos 2020 ch. 20): one kernel's model from the global
 * size to each instruction count.  Four kinds — linear, elastic net,
 * degree-2 polynomial + linear, degree-2 polynomial + elastic net (the
 * elastic nets' alpha and l1_ratio by grid search) — and a fifth, a
 * power law, count = a g^p fitted in log-log: a count that grows as
 * g^1.5 (an N x N matrix product of N^2 work-items) is neither a line
 * nor a parabola, and a parabola fitted on small sizes doubles it 16
 * times further.  A count that is 0 at some size is on no power law:
 * the kind holds a law per count (boi_power.c).
 *
 * The kind chosen has the best 5-fold cross-validated R^2, averaged
 * over the counts that vary (a count that never changes, often 0, would
 * score 1 whatever the model: the thesis' average over them flattered
 * every candidate).  The folds are runs of increasing global size, and
 * each is predicted from the folds of smaller sizes only (forward), as
 * predict extrapolates, once those hold 3 sizes; its R^2 is against
 * the spread of all the count's samples (one size's samples hardly
 * vary).  With 3 sizes, each fold is predicted from the other two, R^2
 * pooled.  The kinds are tried simplest first (linear, elastic net,
 * power law, then the parabolas), and a later one must beat the best so
 * far by more than 1e-6 and leave at most half its error (1 - R^2): a
 * parabola fits the noise of a count that data-dependent loops make
 * (collatz), and its curvature then grows 16 times further.
 */
#ifndef SIBYL_KMODEL_BOI_H
#define SIBYL_KMODEL_BOI_H

#include "model/regress.h"

#include <stdbool.h>
#include <stddef.h>

/* How the power-law kind models one count. */
enum sibyl_kmodel_law {
	SIBYL_LAW_POWER,	/* every count > 0: exp(b + w ln g) */
	SIBYL_LAW_ZERO,		/* every count 0: 0 */
	SIBYL_LAW_LINE,		/* some 0, some not: b + w g, least squares */
	SIBYL_LAW_POWER1P,	/* a version 2 kernel model's: exp(b + w ln g) - 1 */
	SIBYL_LAWS
};

struct sibyl_kmodel_boi {
	size_t nf;
	struct sibyl_reg_spec spec;	/* the kind chosen */
	bool power;			/* the power law (then spec is unused) */
	const char *kind;		/* "linear", "elastic net", "poly2 + linear", ... */
	double score;			/* its mean cross-validated R^2 */
	struct sibyl_reg_model *m;	/* one per count */
	enum sibyl_kmodel_law *law;	/* one per count when power, else NULL */
	double gmin, gmax;		/* the sizes it saw */
};

/* Fit on n samples of global size g and counts C (n x nf). */
int sibyl_kmodel_boi_fit(const double *g, const double *C, size_t n, size_t nf,
			 struct sibyl_kmodel_boi *b, char *err, size_t errlen);
/* The counts at global size g (negative predictions are 0). */
void sibyl_kmodel_boi_predict(const struct sibyl_kmodel_boi *b, double g, double *counts);
/* "linear", "elastic net", "poly2 + linear" or "poly2 + elastic net". */
const char *sibyl_kmodel_boi_kind(const struct sibyl_reg_spec *s);
void sibyl_kmodel_boi_free(struct sibyl_kmodel_boi *b);

#define SIBYL_KMODEL_POWER_KIND "power law"
/* The power law of one count (boi_power.c): its law, and the fit of
 * ln(count) on ln(g) by least squares (a line in g for LAW_LINE, all 0
 * for LAW_ZERO); its prediction. */
int sibyl_kmodel_power_fit(const double *g, const double *y, size_t n,
			   struct sibyl_reg_model *m, enum sibyl_kmodel_law *law, char *err,
			   size_t errlen);
double sibyl_kmodel_power_predict(const struct sibyl_reg_model *m, enum sibyl_kmodel_law law,
				  double g);
/* "power", "zero", "line", "power1p"; and back (-1 when none). */
const char *sibyl_kmodel_law_name(enum sibyl_kmodel_law law);
int sibyl_kmodel_law_of(const char *name, enum sibyl_kmodel_law *law);

/* The sizes a fold's fit needs at least (a parabola's 3 terms). */
#define SIBYL_KMODEL_BOI_FIT_SIZES 3

/* The cross validation (boi_cv.c): each sample's fold, the distinct
 * global sizes split into min(most, their number) runs of increasing
 * size; the number of folds. */
size_t sibyl_kmodel_boi_folds(const double *g, size_t n, size_t most, size_t *fold);
/* R^2 of y against its out-of-fold predictions by spec (the power law
 * when NULL): forward with more than SIBYL_KMODEL_BOI_FIT_SIZES sizes
 * (each fold from the smaller sizes', once they hold that many), else
 * each fold from the others', pooled. */
int sibyl_kmodel_boi_cv(const struct sibyl_reg_spec *spec, const double *g, const double *y,
			size_t n, const size_t *fold, size_t folds, double *score, char *err,
			size_t errlen);

#endif
