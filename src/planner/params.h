/*
 * Samples of invocation parameters instead of a work metric, for
 * adapters whose metric folds several parameters into one (matrix
 * multiply: m, n, p).  The paper evaluated its profiles at "random input
 * parameters"; only those show what the folding costs.  Parameters are
 * in the adapter's params_doc order, and their metric is metric_of.
 */
#ifndef SIBYL_PLANNER_PARAMS_H
#define SIBYL_PLANNER_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#define SIBYL_MAX_PARAMS 8

/* Fill params (room for SIBYL_MAX_PARAMS) with random invocation
 * parameters whose metric lies in [lo, hi], from a stream of its own
 * seeded by seed; returns their count. */
typedef size_t (*sibyl_draw_params_fn)(uint64_t seed, uint64_t lo, uint64_t hi,
				       double *params);
/* Build a sample from invocation parameters (like the adapter's setup;
 * run and teardown then take it as usual).  0, or -1. */
typedef int (*sibyl_setup_params_fn)(void *state, const double *params, size_t nparams,
				     void **sample);
/* Measure one sample of invocation parameters whose work metric (the
 * adapter's metric_of, rounded; what run() is given) is metric: returns
 * as sibyl_measure_fn (planner.h) does. */
typedef int (*sibyl_measure_params_fn)(void *ctx, const double *params, size_t nparams,
				       uint64_t metric, double *seconds, char *err,
				       size_t errlen);

#endif
