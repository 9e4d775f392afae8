/* The list of built-in adapters (ADAPTER_LIST in adapters.h). */
#include "planner/adapters/builtin.h"
#include "planner/adapters/adapters.h"

#define PUBLIC(name) &adapter_##name,
#define INTERNAL(name) &adapter_##name##_internal,

static const struct sibyl_adapter *const builtin[] = { ADAPTER_LIST(PUBLIC) };
static const struct adapter_internal *const internals[] = { ADAPTER_LIST(INTERNAL) };

const struct sibyl_adapter *const *sibyl_builtin_adapters(size_t *count)
{
	*count = sizeof(builtin) / sizeof(builtin[0]);
	return builtin;
}

const struct adapter_internal *const *adapter_internals(size_t *count)
{
	*count = sizeof(internals) / sizeof(internals[0]);
	return internals;
}

const struct sibyl_param_hooks *sibyl_builtin_param_hooks(const struct sibyl_adapter *a)
{
	for (size_t i = 0; i < sizeof(internals) / sizeof(internals[0]); i++)
		if (internals[i]->adapter == a)
			return internals[i]->params.draw ? &internals[i]->params : NULL;
	return NULL;
}
