/* Quick sort (Table I): work metric = number of elements, random data. */
#include "planner/adapters/adapters.h"

static inline void swap(int *a, int *b)
{
	int t = *a;
	*a = *b;
	*b = t;
}

/* Small ranges are left for one insertion-sort pass at the end. */
#define CUTOFF 16

/* Hoare partition around the median of three; recurse on the smaller
 * side and loop on the larger, so the stack stays O(log n) deep even
 * though the input is random. */
static void quick_sort_range(int *a, size_t lo, size_t hi)
{
	while (hi - lo > CUTOFF) {
		size_t mid = lo + (hi - lo) / 2;
		if (a[mid] < a[lo])
			swap(&a[mid], &a[lo]);
		if (a[hi - 1] < a[lo])
			swap(&a[hi - 1], &a[lo]);
		if (a[hi - 1] < a[mid])
			swap(&a[hi - 1], &a[mid]);
		int pivot = a[mid];
		size_t i = lo, j = hi - 1;
		for (;;) {
			while (a[i] < pivot)
				i++;
			while (a[j] > pivot)
				j--;
			if (i >= j)
				break;
			swap(&a[i++], &a[j--]);
		}
		/* [lo, j] <= pivot <= [j + 1, hi) */
		if (j + 1 - lo < hi - (j + 1)) {
			quick_sort_range(a, lo, j + 1);
			lo = j + 1;
		} else {
			quick_sort_range(a, j + 1, hi);
			hi = j + 1;
		}
	}
}

static double run(void *state, void *sample, uint64_t metric)
{
	struct sort_sample *s = sample;
	(void)metric;
	double t0 = adapter_now(state);
	if (s->n > 1)
		quick_sort_range(s->values, 0, s->n);
	adapter_insertion_sort_ints(s->values, s->n);
	return adapter_now(state) - t0;
}

const struct sibyl_adapter adapter_quick_sort = {
	.abi_version = SIBYL_ADAPTER_ABI_VERSION,
	.name = "quick-sort",
	.description = "quick sort (median of three, insertion below 16) of random ints",
	.work_metric = "elements to sort",
	.min_metric = 1,
	.max_metric = 10000000,
	.init = adapter_common_init,
	.fini = adapter_common_fini,
	.setup = adapter_sort_setup,
	.run = run,
	.teardown = adapter_sort_teardown,
	.params_doc = "n",
	.metric_of = adapter_count_metric_of,
};

const struct adapter_internal adapter_quick_sort_internal = {
	.adapter = &adapter_quick_sort,
	.verify = adapter_sort_verify,
	.params_of = adapter_sort_params_of,
};
