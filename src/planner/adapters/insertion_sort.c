/* Insertion sort (Table I): work metric = number of elements, random data. */
#include "planner/adapters/adapters.h"

static double run(void *state, void *sample, uint64_t metric)
{
	(void)metric;
	return adapter_sort_run(state, sample, adapter_insertion_sort_ints);
}

const struct sibyl_adapter adapter_insertion_sort = {
	ADAPTER_SORT_FIELDS,
	.name = "insertion-sort",
	.description = "insertion sort of random ints",
	.work_metric = "elements to sort",
	.min_metric = 1,
	.max_metric = 60000,
	.run = run,
};

const struct adapter_internal adapter_insertion_sort_internal = {
	.adapter = &adapter_insertion_sort,
	.verify = adapter_sort_verify,
	.params_of = adapter_sort_params_of,
};
