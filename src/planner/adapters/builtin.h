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
 * invocation parameters into one (matmul, matmul-paper): the paper
 * evaluated with "random input parameters", not random metrics, and only
 * random parameters show what folding them costs.  draw fills params
 * (params_doc order) with random invocation parameters whose metric
 * (metric_of) lies in [lo, hi], from its own stream seeded by seed, and
 * returns their count (at most SIBYL_MAX_PARAMS); setup builds a sample
 * from such parameters, which run() and teardown() then take as usual.
 */
#define SIBYL_MAX_PARAMS 8

typedef int (*sibyl_setup_params_fn)(void *state, const double *params, size_t nparams,
				     void **sample);

struct sibyl_param_hooks {
	size_t (*draw)(uint64_t seed, uint64_t lo, uint64_t hi, double *params);
	sibyl_setup_params_fn setup;
};

/* The hooks of a built-in adapter, or NULL (also for adapters from .so). */
const struct sibyl_param_hooks *sibyl_builtin_param_hooks(const struct sibyl_adapter *a);

#endif
