/* Insertion sort (Table I): work metric = number of elements, random data. */
#include "planner/adapters/adapters.h"

#include <stdlib.h>

struct sort_sample {
	int *values;
	size_t n;
};

static int setup(void *state, uint64_t metric, void **sample)
{
	struct sort_sample *s = malloc(sizeof(*s));
	if (!s)
		return -1;
	s->n = metric;
	s->values = malloc((metric ? metric : 1) * sizeof(int));
	if (!s->values) {
		free(s);
		return -1;
	}
	adapter_fill_random_ints(state, s->values, s->n);
	*sample = s;
	return 0;
}

static void insertion_sort(int *a, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		int v = a[i];
		size_t j = i;
		for (; j > 0 && a[j - 1] > v; j--)
			a[j] = a[j - 1];
		a[j] = v;
	}
}

static double run(void *state, void *sample, uint64_t metric)
{
	struct sort_sample *s = sample;
	(void)metric;
	double t0 = adapter_now(state);
	insertion_sort(s->values, s->n);
	return adapter_now(state) - t0;
}

static void teardown(void *state, void *sample)
{
	struct sort_sample *s = sample;
	(void)state;
	free(s->values);
	free(s);
}

static double metric_of(const double *params, size_t nparams)
{
	return nparams == 1 && params[0] >= 0 ? params[0] : -1;
}

const struct sibyl_adapter adapter_insertion_sort = {
	.abi_version = SIBYL_ADAPTER_ABI_VERSION,
	.name = "insertion-sort",
	.description = "insertion sort of random ints",
	.work_metric = "elements to sort",
	.min_metric = 1,
	.max_metric = 65000,
	.init = adapter_common_init,
	.fini = adapter_common_fini,
	.setup = setup,
	.run = run,
	.teardown = teardown,
	.params_doc = "n",
	.metric_of = metric_of,
};
