/*
 * Checking a profile against fresh measurements (section VI.B): random
 * work metrics, measured vs predicted, and two baselines given the
 * planner's sample budget: uniform sampling with linear interpolation,
 * and a StarPU-style a*n^b + c fit on those same uniform samples.
 *
 * Errors are relative to the measurement: e_i = (pred_i - meas_i) / meas_i;
 * mean error % = 100 * mean |e_i|; RMSE % = 100 * sqrt(mean e_i^2).
 *
 * Every evaluation work metric is measured twice.  The errors use the
 * first measurement; the two together give the noise floor: the mean
 * error a perfect profile would show against one measurement, estimated
 * as mean |m1 - m2| / mean(m1, m2) / sqrt(2) (for independent noise,
 * E|m1 - m2| = sqrt(2) E|m - true|).  No figure below it means anything.
 */
#ifndef SIBYL_PLANNER_EVALUATE_H
#define SIBYL_PLANNER_EVALUATE_H

#include "model/profile.h"
#include "planner/planner.h"

#include <stddef.h>

struct sibyl_error {
	double mean_pct, rmse_pct;
};

struct sibyl_eval {
	size_t n;                  /* evaluation work metrics */
	size_t budget;             /* samples each baseline got */
	struct sibyl_error planner, uniform, power;
	double power_a, power_b, power_c;  /* seconds = a * n^b + c */
	double noise_pct;          /* the noise floor of one measurement, % */
	double seconds;            /* time spent measuring for the evaluation */
};

/* Fit y = a x^b + c (least squares of the relative residuals, started
 * from a log-space fit).  -1 when it cannot be fitted. */
int sibyl_power_fit(const double *x, const double *y, size_t n, double *a, double *b,
		    double *c);

/* The uniform baseline: budget work metrics evenly spaced over [lo, hi]
 * (malloc'd, ascending, without repeats; *n may end below budget). */
uint64_t *sibyl_uniform_metrics(uint64_t lo, uint64_t hi, size_t budget, size_t *n);

/* Evaluate at n random work metrics (seeded from seed) with the given
 * measure function.  -1 with a reason in err when a measurement fails. */
int sibyl_plan_evaluate(const struct sibyl_profile *prof, const struct sibyl_plan_params *p,
			size_t n, size_t budget, sibyl_measure_fn measure, void *ctx,
			struct sibyl_eval *e, char *err, size_t errlen);

#endif
