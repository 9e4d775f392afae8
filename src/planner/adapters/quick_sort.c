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

static void quick_sort(int *a, size_t n)
{
	if (n > 1)
		quick_sort_range(a, 0, n);
	adapter_insertion_sort_ints(a, n);
}

static double run(void *state, void *sample, uint64_t metric)
{
	(void)metric;
	return adapter_sort_run(state, sample, quick_sort);
}

const struct sibyl_adapter adapter_quick_sort = {
	ADAPTER_SORT_FIELDS,
	.name = "quick-sort",
	.description = "quick sort (median of three, insertion below 16) of random ints",
	.work_metric = "elements to sort",
	.min_metric = 1,
	.max_metric = 10000000,
	.run = run,
};

const struct adapter_internal adapter_quick_sort_internal = {
	.adapter = &adapter_quick_sort,
	.verify = adapter_sort_verify,
	.params_of = adapter_sort_params_of,
};
