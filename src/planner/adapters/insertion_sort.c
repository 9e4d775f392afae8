/* Insertion sort (Table I): work metric = number of elements, random data. */
#include "planner/adapters/adapters.h"

static double run(void *state, void *sample, uint64_t metric)
{
	struct sort_sample *s = sample;
	(void)metric;
	double t0 = adapter_now(state);
	adapter_insertion_sort_ints(s->values, s->n);
	return adapter_now(state) - t0;
}

const struct sibyl_adapter adapter_insertion_sort = {
	.abi_version = SIBYL_ADAPTER_ABI_VERSION,
	.name = "insertion-sort",
	.description = "insertion sort of random ints",
	.work_metric = "elements to sort",
	.min_metric = 1,
	.max_metric = 60000,
	.init = adapter_common_init,
	.fini = adapter_common_fini,
	.setup = adapter_sort_setup,
	.run = run,
	.teardown = adapter_sort_teardown,
	.params_doc = "n",
	.metric_of = adapter_count_metric_of,
};

const struct adapter_internal adapter_insertion_sort_internal = {
	.adapter = &adapter_insertion_sort,
	.verify = adapter_sort_verify,
	.params_of = adapter_sort_params_of,
};
