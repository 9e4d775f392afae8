/*
 * `sibyl kmodel predict`: OCLMan for a kernel the suite never saw.  The
 * kernel's model (kfit.h: its counts at small global sizes and its
 * OCLBoi, profiled on the spot or read from `kmodel fit`'s file) gives
 * the counts at the size asked, and the device's time model turns them
 * into seconds, scaled by the kernel's own measured / predicted time at
 * the profiled sizes: a kernel-agnostic time model misses a kernel's
 * level by a factor of 2 or more (its cross-validated median R^2 is
 * low), while its shape across sizes holds, and the profile measured
 * the kernel's times anyway.  Cross validation with the same
 * calibration (timemodel.h) chose it and gives its spread.
 *
 * The interval has two parts.  OCLBoi's fit uncertainty, propagated
 * through the time model: the time model is linear in the counts, so
 * the kernel's time-weighted count u = w.c is a regression on OCLBoi's
 * features of the global size (1, g and, for a polynomial kind, g^2),
 * and its 90% prediction interval t * sqrt(s^2 + var(fit at g)) widens
 * with the distance from the profiled sizes (the elastic nets' share of
 * it is that of least squares on the same features); for the power law,
 * ln u on ln g, a ratio exp(+-h) of the estimate.  Then the time
 * model's own error on kernels it never saw: the 5%..95% spread of
 * measured / (calibrated) predicted time of its cross validation, which
 * scales the bounds.
 */
#ifndef SIBYL_KMODEL_PREDICT_H
#define SIBYL_KMODEL_PREDICT_H

#include "kmodel/devmodel.h"
#include "kmodel/kfit.h"

struct sibyl_kmodel_prediction {
	double seconds, low, high;
	double oclboi_half;		/* half the width of OCLBoi's part, seconds */
	double uncalibrated;		/* the time model's estimate, seconds */
	double calibration;		/* seconds / uncalibrated; 0: none */
	double gmin, gmax;		/* the sizes profiled */
	const char *oclboi;		/* OCLBoi's kind */
	double oclboi_cv_r2;
	double fit_seconds;		/* OCLBoi's selection and fit, and the prediction */
	bool far;			/* g far outside gmin..gmax */
};

/* 0, or -1 with the line in err (counts of another -O level than the
 * device model's).  p->far: g is more than 4 times outside the profiled
 * sizes, where the thesis' kernel 2 failed. */
int sibyl_kmodel_predict(const struct sibyl_kmodel_device *m, const struct sibyl_kmodel_kfit *k,
			 double g, struct sibyl_kmodel_prediction *p, char *err, size_t errlen);

#endif
