/*
 * `sibyl kmodel evaluate`: the thesis' experiment (Niarchos 2020
 * ch. 21.4, Table 21.1), split by kernel, never by sample.  The kernels
 * of a dataset go to `folds` folds (kernel i to fold i mod folds); for
 * each fold, the time model (its kind chosen by cross validation among
 * the other kernels) and OCLBase are trained on the other kernels, and
 * each held-out kernel's times are predicted two ways:
 *  - OCLMan: the time model applied to the counts its own OCLBoi
 *    predicts at each global size (OCLBoi sees the kernel's counts,
 *    which profiling gives, never its times);
 *  - OCLBase: least squares on degree-2 polynomial features of the
 *    global size and the kernel's static counts.
 */
#ifndef SIBYL_KMODEL_EVALUATE_H
#define SIBYL_KMODEL_EVALUATE_H

#include "kmodel/table.h"
#include "kmodel/timemodel.h"

#include <stdbool.h>

struct sibyl_kmodel_eval_row {
	const char *name;
	double r2_oclman, r2_oclbase;
	double rmse_oclman, rmse_oclbase;	/* seconds */
	const char *boi_kind;			/* OCLBoi's model */
	double boi_score;			/* its cross-validated R^2 */
	const char *time_kind;			/* the time model's kind */
	double fit_seconds;			/* OCLBoi's fit and the predictions */
	/* predict's case: OCLBoi fitted on the kernel's samples in its
	 * profile only (sibyl_kmodel_profile_window: predict's rule), the
	 * time model calibrated on them (sibyl_kmodel_profile_scale), the
	 * larger sizes predicted: median relative error and R^2 there, R^2 size by size
	 * (sibyl_kmodel_r2_sizes); r2_base, OCLBase calibrated the same way
	 * (NaN when too few samples or sizes). */
	double extrap_err, extrap_r2, extrap_r2_base;
	/* Which half of OCLMan errs: r2_counts, the time model's R^2 on the
	 * kernel's measured counts (OCLBoi left out); in extrap's case, the
	 * median relative error at the larger sizes of the time model on
	 * OCLBoi's counts against it on the measured ones (count_err,
	 * OCLBoi's share), and of the calibrated time model on the
	 * measured counts against the times, size by size as extrap_err
	 * (time_err, its own share). */
	double r2_counts, extrap_count_err, extrap_time_err;
	/* The time model's level for this kernel: the median over its
	 * samples of measured time / the time model on its measured counts
	 * (1 when right).  A kernel-agnostic model's largest error: R^2
	 * >= 0.9 needs it within about 15% (docs/kmodel.md). */
	double level;
	size_t n;				/* its samples: */
	double *gsize, *measured, *oclman, *oclbase;	/* seconds */
};

struct sibyl_kmodel_eval {
	size_t n;
	struct sibyl_kmodel_eval_row *rows;	/* one per kernel, in the table's order */
};

int sibyl_kmodel_evaluate(const struct sibyl_kmodel_table *t, size_t folds,
			  struct sibyl_kmodel_eval *e, char *err, size_t errlen);
void sibyl_kmodel_eval_free(struct sibyl_kmodel_eval *e);
/* The row's extrap_err and extrap_r2 for held-out kernel k (extrap.c). */
void sibyl_kmodel_eval_extrap(const struct sibyl_kmodel_table *t, size_t k,
			      const struct sibyl_kmodel_tm *tm, struct sibyl_kmodel_eval_row *row);

/* Measured, OCLMan's and OCLBase's times against the global size, one
 * panel per held-out kernel, as PNG or SVG (model/plot_file.h). */
int sibyl_kmodel_eval_plot(const struct sibyl_kmodel_eval *e, const char *path, bool force,
			   char *err, size_t errlen);

#endif
