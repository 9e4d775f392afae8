/* The adapters compiled into sibyl (Table I of the planner paper, plus
 * implementations on the OpenCL device). */
#ifndef SIBYL_PLANNER_ADAPTERS_BUILTIN_H
#define SIBYL_PLANNER_ADAPTERS_BUILTIN_H

#include <sibyl/adapter.h>

#include <stddef.h>
#include <stdint.h>

/* All built-in adapters, in listing order. */
const struct sibyl_adapter *const *sibyl_builtin_adapters(size_t *count);

/*
 * Outside the adapter ABI, for built-ins whose metric folds several
 * parameters into one (matmul, matmul-paper): build a sample from random
 * invocation parameters whose metric lies in [lo, hi], and return those
 * parameters (params_doc order) so an evaluation can predict the sample
 * through metric_of, as the paper's evaluation did with "random input
 * parameters". run() and teardown() then take the sample as usual.
 */
typedef int (*sibyl_setup_random_fn)(void *state, uint64_t lo, uint64_t hi, void **sample,
				     double *params, size_t *nparams);

/* The hook of a built-in adapter, or NULL (also for adapters from .so). */
sibyl_setup_random_fn sibyl_builtin_setup_random(const struct sibyl_adapter *a);

#endif
