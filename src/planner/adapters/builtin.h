/* The adapters compiled into sibyl (Table I of the planner paper, plus
 * implementations on the OpenCL device). */
#ifndef SIBYL_PLANNER_ADAPTERS_BUILTIN_H
#define SIBYL_PLANNER_ADAPTERS_BUILTIN_H

#include <sibyl/adapter.h>
#include "planner/params.h"

#include <stddef.h>
#include <stdint.h>

/* All built-in adapters, in listing order. */
const struct sibyl_adapter *const *sibyl_builtin_adapters(size_t *count);

/*
 * Outside the adapter ABI, for built-ins whose metric folds several
 * invocation parameters into one (matmul, matmul-paper): drawing random
 * parameters and building samples from them (planner/params.h), for the
 * paper's evaluation at "random input parameters".
 */
struct sibyl_param_hooks {
	sibyl_draw_params_fn draw;
	sibyl_setup_params_fn setup;
};

/* The hooks of a built-in adapter, or NULL (also for adapters from .so). */
const struct sibyl_param_hooks *sibyl_builtin_param_hooks(const struct sibyl_adapter *a);

#endif
