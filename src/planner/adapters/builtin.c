/* The list of built-in adapters. */
#include "planner/adapters/builtin.h"
#include "planner/adapters/adapters.h"

static const struct sibyl_adapter *const builtin[] = {
	&adapter_insertion_sort,
};

const struct sibyl_adapter *const *sibyl_builtin_adapters(size_t *count)
{
	*count = sizeof(builtin) / sizeof(builtin[0]);
	return builtin;
}
