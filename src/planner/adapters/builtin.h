/* The adapters compiled into sibyl (Table I of the planner paper, plus
 * implementations on the OpenCL device). */
#ifndef SIBYL_PLANNER_ADAPTERS_BUILTIN_H
#define SIBYL_PLANNER_ADAPTERS_BUILTIN_H

#include <sibyl/adapter.h>

/* All built-in adapters, in listing order. */
const struct sibyl_adapter *const *sibyl_builtin_adapters(size_t *count);

#endif
