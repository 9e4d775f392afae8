/*
 * Checking a profile against fresh measurements (section VI.B): random
 * work metrics, measured vs predicted, and three baselines given the
 * planner's sample budget each: uniform sampling with linear
 * interpolation, a StarPU-style a*n^b + c fit on those same uniform
 * samples, and StarPU's history-based model: the mean time of each
 * exact work metric seen in earlier runs (random work metrics drawn as
 * the evaluation's are, standing for a program's past calls), a*n^b + c
 * fitted to those means for a metric never seen.
 *
 * Errors are relative to the measurement: e_i = (pred_i - meas_i) / meas_i;
 * mean error % = 100 * mean |e_i|; RMSE % = 100 * sqrt(mean e_i^2).
 *
 * Every evaluation point is measured twice, in two passes over all of
 * them (so the two measurements of a point lie minutes apart on a long
 * evaluation, as planning and evaluation do).  The errors use the first
 * pass; the two together give the noise floor: the mean
 * error a perfect profile would show against one measurement, estimated
 * as mean |m1 - m2| / mean(m1, m2) / sqrt(2) (for independent noise,
 * E|m1 - m2| = sqrt(2) E|m - true|).  No figure below it means anything.
 *
 * A measurement the speed guard could not guard (SIBYL_MEASURE_UNGUARDED)
 * is taken again after the rest of its pass, up to three times, as are
 * the baselines' samples (evaluate.c).
 */
#ifndef SIBYL_PLANNER_EVALUATE_H
#define SIBYL_PLANNER_EVALUATE_H

#include "model/profile.h"
#include "planner/params.h"
#include "planner/planner.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

struct sibyl_error {
	double mean_pct, rmse_pct;
};

/* One evaluation point: where, its two measurements, and the three
 * predictions (seconds). */
struct sibyl_eval_point {
	double x;                  /* work metric */
	size_t nparams;            /* 0: drawn as a work metric */
	double params[SIBYL_MAX_PARAMS];
	double measured[2];        /* first pass (the errors' reference), second pass */
	double planner, uniform, power, history;
	bool history_seen;         /* the history model had this exact metric */
	bool outside;              /* beyond the profile's points: extrapolated */
};

/* StarPU's history-based model: per exact work metric, the mean time;
 * for a metric not in the history, a*n^b + c over the means (StarPU's
 * regression), or the nearest metric's mean when that cannot be fitted. */
struct sibyl_history {
	double *x, *mean;          /* distinct metrics seen, ascending, and their means */
	size_t n, samples;         /* distinct metrics, measurements behind them */
	bool have_fit;
	double a, b, c;            /* the fallback fit: seconds = a * n^b + c */
};

struct sibyl_eval {
	size_t n;                  /* evaluation points */
	struct sibyl_eval_point *points;  /* n of them; sibyl_eval_free */
	size_t budget;             /* samples each baseline got */
	/* Over the points the profile covers (all of them for a complete
	 * profile); the points beyond, extrapolated, apart. */
	struct sibyl_error planner, uniform, power, history;
	size_t history_hits;       /* covered points the history had seen exactly */
	size_t outside_n;
	struct sibyl_error outside;
	struct sibyl_profile uniform_profile;  /* the uniform baseline's samples */
	double power_a, power_b, power_c;  /* seconds = a * n^b + c */
	struct sibyl_history history_model;  /* from budget samples of its own */
	double noise_pct;          /* the noise floor of one measurement, % */
	double seconds;            /* time spent measuring for the evaluation */
	size_t remeasured;         /* unguarded measurements taken again */
	size_t unguarded;          /* measurements still unguarded after that */
	bool by_params;            /* random invocation parameters, not metrics */
};

/*
 * Evaluation at random invocation parameters instead of random work
 * metrics, as the paper did ("random input parameters"): for an adapter
 * whose metric folds several parameters into one (matrix multiply), only
 * this shows what the folding costs.  draw as sibyl_param_hooks (with a
 * seed from the evaluation's stream); each draw is predicted at
 * metric_of(params) and measured by measure(ctx, ...).
 */
struct sibyl_param_eval {
	sibyl_draw_params_fn draw;
	double (*metric_of)(const double *params, size_t nparams);
	sibyl_measure_params_fn measure;
};

/* Fit y = a x^b + c (least squares of the relative residuals, started
 * from a log-space fit).  -1 when it cannot be fitted. */
int sibyl_power_fit(const double *x, const double *y, size_t n, double *a, double *b,
		    double *c);

/* The uniform baseline: budget work metrics evenly spaced over [lo, hi]
 * (malloc'd, ascending, without repeats; *n may end below budget). */
uint64_t *sibyl_uniform_metrics(uint64_t lo, uint64_t hi, size_t budget, size_t *n);

/* The history model of n measurements (any order, repeats allowed);
 * free with sibyl_history_free.  Predict at x: the mean of x's
 * measurements when x was seen (*seen true), else the fallback. */
void sibyl_history_build(struct sibyl_history *h, const struct sibyl_point *m, size_t n);
double sibyl_history_predict(const struct sibyl_history *h, double x, bool *seen);
void sibyl_history_free(struct sibyl_history *h);

void sibyl_eval_free(struct sibyl_eval *e);
/* The points as CSV with a header line: work_metric, params (";"
 * separated, empty for a drawn metric), measured_s, measured_again_s,
 * planner_s, uniform_s, power_s, history_s.  0, or -1 with errno. */
int sibyl_eval_write_csv(const struct sibyl_eval *e, FILE *f);

/* Measure each point once into measured[pass]; an unguarded measurement
 * is taken again after the others, up to three times, the fastest kept
 * (e->remeasured and e->unguarded count them).  0, or -1 with a reason
 * when a measurement fails. */
int sibyl_eval_measure_pass(sibyl_measure_fn measure, void *ctx,
			    const struct sibyl_param_eval *pe, struct sibyl_eval_point *pts,
			    size_t n, int pass, struct sibyl_eval *e, char *err, size_t errlen);

#define SIBYL_EVAL_MAX_POINTS 1000000

/* Evaluate at n random work metrics (seeded from seed) with the given
 * measure function, or, with pe, at n random invocation parameters
 * measured by pe->measure on the same ctx (the baselines' samples are
 * always of work metrics).  -1 with a reason in err when the input is
 * refused (n outside 1..SIBYL_EVAL_MAX_POINTS, no budget, a profile
 * without points, parameters sibyl_plan_check refuses) or a measurement
 * fails.  Free e with sibyl_eval_free either way. */
int sibyl_plan_evaluate(const struct sibyl_profile *prof, const struct sibyl_plan_params *p,
			size_t n, size_t budget, sibyl_measure_fn measure, void *ctx,
			const struct sibyl_param_eval *pe, struct sibyl_eval *e, char *err,
			size_t errlen);

#endif
