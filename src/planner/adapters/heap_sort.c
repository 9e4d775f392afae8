/* Heap sort (Table I): work metric = number of elements, random data. */
#include "planner/adapters/adapters.h"

/* Restore the max-heap property below `root` in a[0..n). */
static void sift_down(int *a, size_t root, size_t n)
{
	int v = a[root];
	for (;;) {
		size_t child = 2 * root + 1;
		if (child >= n)
			break;
		if (child + 1 < n && a[child + 1] > a[child])
			child++;
		if (a[child] <= v)
			break;
		a[root] = a[child];
		root = child;
	}
	a[root] = v;
}

static void heap_sort(int *a, size_t n)
{
	if (n < 2)
		return;
	for (size_t i = n / 2; i-- > 0;)
		sift_down(a, i, n);
	for (size_t end = n - 1; end > 0; end--) {
		int top = a[0];
		a[0] = a[end];
		a[end] = top;
		sift_down(a, 0, end);
	}
}

static double run(void *state, void *sample, uint64_t metric)
{
	(void)metric;
	return adapter_sort_run(state, sample, heap_sort);
}

const struct sibyl_adapter adapter_heap_sort = {
	ADAPTER_SORT_FIELDS,
	.name = "heap-sort",
	.description = "heap sort of random ints",
	.work_metric = "elements to sort",
	.min_metric = 1,
	.max_metric = 3000000,
	.run = run,
};

const struct adapter_internal adapter_heap_sort_internal = {
	.adapter = &adapter_heap_sort,
	.verify = adapter_sort_verify,
	.params_of = adapter_sort_params_of,
};
