/* What the three sorting adapters share (Table I: "work metric is size of
 * sort; random data populates input array"): the input, a copy of it to
 * check the result against, and the one-parameter inverse mapping. */
#include "planner/adapters/adapters.h"

#include <stdlib.h>
#include <string.h>

int adapter_sort_setup(void *state, uint64_t metric, void **sample)
{
	struct sort_sample *s = calloc(1, sizeof(*s));
	if (!s)
		return -1;
	s->n = metric;
	s->values = adapter_alloc(metric, sizeof(int));
	s->original = adapter_alloc(metric, sizeof(int));
	if (!s->values || !s->original) {
		adapter_sort_teardown(state, s);
		return -1;
	}
	adapter_fill_random_ints(state, s->values, s->n);
	memcpy(s->original, s->values, s->n * sizeof(int));
	*sample = s;
	return 0;
}

void adapter_sort_teardown(void *state, void *sample)
{
	struct sort_sample *s = sample;
	(void)state;
	free(s->values);
	free(s->original);
	free(s);
}

double adapter_sort_run(void *state, void *sample, void (*sort)(int *values, size_t n))
{
	struct sort_sample *s = sample;
	double t0 = adapter_now(state);
	sort(s->values, s->n);
	return adapter_now(state) - t0;
}

void adapter_insertion_sort_ints(int *a, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		int v = a[i];
		size_t j = i;
		for (; j > 0 && a[j - 1] > v; j--)
			a[j] = a[j - 1];
		a[j] = v;
	}
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* The reference is libc's qsort of the untouched copy: equal arrays mean
 * sorted and a permutation of the input. */
int adapter_sort_verify(void *state, void *sample, uint64_t metric)
{
	struct sort_sample *s = sample;
	(void)state;
	if (s->n != metric)
		return -1;
	qsort(s->original, s->n, sizeof(int), cmp_int);
	return memcmp(s->original, s->values, s->n * sizeof(int)) ? -1 : 0;
}

size_t adapter_sort_params_of(void *sample, double *params)
{
	params[0] = (double)((struct sort_sample *)sample)->n;
	return 1;
}
