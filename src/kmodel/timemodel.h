/*
 * The per-device time model (Niarchos 2020 ch. 21.3): device time as a
 * linear function of the instruction counts, kernel-agnostic, trained
 * on a suite.  Three kinds:
 *  - "linear": least squares, the thesis' model;
 *  - "nonneg": every count's cost >= 0 (an instruction cannot take
 *    negative time), and the launch time too (so is every prediction);
 *  - "nonneg-relative": the same fitted on relative residuals (rows
 *    weighted by 1 / time) with a non-negative launch cost: suite times
 *    span five orders of magnitude, and plain least squares lets the
 *    slowest kernels set every coefficient.
 * The kind is chosen by cross validation across kernels (never across
 * samples of one kernel): the median over held-out kernels of R^2.
 */
#ifndef SIBYL_KMODEL_TIMEMODEL_H
#define SIBYL_KMODEL_TIMEMODEL_H

#include "kmodel/table.h"

#include <stdbool.h>
#include <stddef.h>

enum sibyl_kmodel_tkind {
	SIBYL_TM_LINEAR,
	SIBYL_TM_NONNEG,
	SIBYL_TM_NONNEG_RELATIVE,
	SIBYL_TM_KINDS
};

struct sibyl_kmodel_tm {
	enum sibyl_kmodel_tkind kind;
	size_t nf;
	double *w;	/* seconds per instruction, nf */
	double b;	/* seconds */
};

const char *sibyl_kmodel_tkind_name(enum sibyl_kmodel_tkind k);

/* Fit on the samples of the kernels with use[k] set. */
int sibyl_kmodel_tm_fit(enum sibyl_kmodel_tkind kind, const struct sibyl_kmodel_table *t,
			const bool *use, struct sibyl_kmodel_tm *m, char *err, size_t errlen);
double sibyl_kmodel_tm_predict(const struct sibyl_kmodel_tm *m, const double *counts);
void sibyl_kmodel_tm_free(struct sibyl_kmodel_tm *m);

struct sibyl_kmodel_tm_choice {
	enum sibyl_kmodel_tkind kind;	/* of best median held-out R^2 */
	double median_r2;
	/* The 5% and 95% quantiles of measured / predicted time over the
	 * held-out samples: a prediction interval for a new kernel. */
	double lo, hi;
	/* The same held out, each kernel's estimates calibrated on its
	 * profile (sibyl_kmodel_profile_window, as predict calibrates on
	 * the sizes it profiled), on its larger sizes: the median relative error and the 5% and 95% quantiles of
	 * measured / calibrated time; err: the median relative error of the
	 * same samples uncalibrated. */
	double cal_err, cal_lo, cal_hi, err;
};

/* Kernel k's profile in a dataset: sizes.h's rule, as predict chooses
 * a live profile, timed by the dataset's least time per size, doubling
 * from the kernel's smallest size to the next size the dataset has,
 * up to half its largest (so that sizes are left to predict), with
 * launch cost b: its sizes from *lo to *hi. */
void sibyl_kmodel_profile_window(const struct sibyl_kmodel_table *t, size_t k, double b,
				 double *lo, double *hi);
/* sibyl_kmodel_profile_scale of predictions p (one per sample of kernel
 * k, in its order) from its samples in lo..hi. */
double sibyl_kmodel_window_scale(const struct sibyl_kmodel_table *t, size_t k, const double *p,
				 double lo, double hi, double b);

/* The median of measured t / predicted p over n samples with both > 0:
 * the scale of the time model for one kernel; 1 when there is none. */
double sibyl_kmodel_calibration(const double *t, const double *p, size_t n);

/* A kernel's calibration from its profiled samples (global sizes g,
 * measured times t, the time model's estimates p, launch cost b): the
 * least over the samples at the largest profiled size of (t - b) /
 * (p - b), the part of the time above the launch scaled; the
 * calibrated estimate is sibyl_kmodel_calibrated().  The smaller sizes
 * are left out: their times are more launch and more noise.  The
 * least, not the median: a launch that shares the CPU with other work
 * takes up to twice as long (PoCL's two threads on one core), and the
 * load only ever adds time.  On four sweeps this erred less at the
 * larger sizes than the median ratio over every profiled sample
 * (docs/kmodel.md).  Samples at or under b are skipped: the largest
 * size is the largest with a sample above b; with no sample above b at
 * all, the median ratio over every sample; 1 when there is none. */
double sibyl_kmodel_profile_scale(const double *g, const double *t, const double *p, size_t n,
				  double b);

static inline double sibyl_kmodel_calibrated(double p, double s, double b)
{
	return b + s * (p - b);
}

/* Choose the kind by `folds` folds of the kernels with use[k] set
 * (the i-th of them in fold i mod folds). */
int sibyl_kmodel_tm_choose(const struct sibyl_kmodel_table *t, const bool *use, size_t folds,
			   struct sibyl_kmodel_tm_choice *c, char *err, size_t errlen);

/* Per-kernel scores of predictions p of kernel k's times. */
double sibyl_kmodel_r2_of(const struct sibyl_kmodel_table *t, size_t k, const double *p);
double sibyl_kmodel_rmse_of(const struct sibyl_kmodel_table *t, size_t k, const double *p);
double sibyl_kmodel_median(double *v, size_t n);
/* R^2 of predictions q of times y at global sizes g, size by size: the
 * measured time of a size is the least of its samples (the load of a
 * shared machine only ever adds time: sibyl_kmodel_profile_scale), the
 * predicted one the mean of q there; NaN with fewer than 2 sizes. */
double sibyl_kmodel_r2_sizes(const double *g, const double *y, const double *q, size_t n);
/* The same sizes' measured (least) times into my and mean predictions
 * into mq (n each at most): their number. */
size_t sibyl_kmodel_by_size(const double *g, const double *y, const double *q, size_t n,
			    double *my, double *mq);

#endif
