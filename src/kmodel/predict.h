/*
 * `sibyl kmodel predict`: OCLMan for a kernel the suite never saw.  The
 * kernel is profiled at small global sizes (its instruction counts, as
 * `kmodel dataset` measures them), its OCLBoi is trained on the fly, and
 * the device's time model turns the counts OCLBoi predicts at the size
 * asked into seconds; the interval is the spread of measured / predicted
 * time the device model's cross validation saw on held-out kernels.
 */
#ifndef SIBYL_KMODEL_PREDICT_H
#define SIBYL_KMODEL_PREDICT_H

#include "kmodel/devmodel.h"

struct sibyl_kmodel_predict_opts {
	const char *file, *kernel;
	const char *profile;		/* global sizes profiled, FROM:TO:STEP */
	long lsize, samples;
	const char *platform, *device;
	double timeout_s;
	double gsize;			/* the size to predict */
};

struct sibyl_kmodel_prediction {
	double seconds, low, high;
	double gmin, gmax;		/* the sizes profiled */
	const char *oclboi;		/* OCLBoi's kind */
	double oclboi_cv_r2;
	double fit_seconds;		/* OCLBoi's selection and fit, and the prediction */
};

/* 0, or -1 with the line in err (a failed profile, a model of another
 * device).  A size far outside the profiled ones is a warning notice. */
int sibyl_kmodel_predict(const struct sibyl_kmodel_device *m,
			 const struct sibyl_kmodel_predict_opts *o,
			 struct sibyl_kmodel_prediction *p, char *err, size_t errlen);

#endif
