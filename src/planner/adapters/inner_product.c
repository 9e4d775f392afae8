/* Inner product (Table I), multi-threaded: work metric = length of both
 * float vectors. Each thread sums an equal slice in double into its own
 * cache line; the caller adds the partial sums (inside the timed run). */
#include "planner/adapters/adapters.h"

#include <math.h>
#include <stdlib.h>

struct partial {
	double sum;
	char pad[64 - sizeof(double)];
};

struct dot_sample {
	float *x, *y;
	size_t n;
	double result;
	struct partial *partials;  /* one per thread */
};

static int setup(void *state, uint64_t metric, void **sample)
{
	struct dot_sample *s = calloc(1, sizeof(*s));
	if (!s)
		return -1;
	s->n = metric;
	s->x = adapter_alloc(s->n, sizeof(float));
	s->y = adapter_alloc(s->n, sizeof(float));
	s->partials = calloc(adapter_threads(state), sizeof(struct partial));
	if (!s->x || !s->y || !s->partials) {
		free(s->x);
		free(s->y);
		free(s->partials);
		free(s);
		return -1;
	}
	adapter_fill_random_floats(state, s->x, s->n);
	adapter_fill_random_floats(state, s->y, s->n);
	*sample = s;
	return 0;
}

static void dot_range(void *arg, unsigned tid, size_t lo, size_t hi)
{
	struct dot_sample *s = arg;
	double sum = 0;
	for (size_t i = lo; i < hi; i++)
		sum += (double)s->x[i] * s->y[i];
	s->partials[tid].sum = sum;
}

static double run(void *state, void *sample, uint64_t metric)
{
	struct dot_sample *s = sample;
	unsigned threads = adapter_threads(state);
	(void)metric;
	double t0 = adapter_now(state);
	for (unsigned t = 0; t < threads; t++)
		s->partials[t].sum = 0;
	adapter_timed_parallel(state, s->n, dot_range, s);
	double sum = 0;
	for (unsigned t = 0; t < threads; t++)
		sum += s->partials[t].sum;
	s->result = sum;
	return adapter_now(state) - t0;
}

static void teardown(void *state, void *sample)
{
	struct dot_sample *s = sample;
	(void)state;
	free(s->x);
	free(s->y);
	free(s->partials);
	free(s);
}

/* Reference: a Kahan-compensated sequential sum. */
static int verify(void *state, void *sample, uint64_t metric)
{
	struct dot_sample *s = sample;
	double sum = 0, comp = 0;
	(void)state;
	if (s->n != metric)
		return -1;
	for (size_t i = 0; i < s->n; i++) {
		double term = (double)s->x[i] * s->y[i] - comp;
		double next = sum + term;
		comp = (next - sum) - term;
		sum = next;
	}
	return fabs(s->result - sum) <= 1e-9 * (1 + s->n) ? 0 : -1;
}

static size_t params_of(void *sample, double *params)
{
	params[0] = (double)((struct dot_sample *)sample)->n;
	return 1;
}

const struct sibyl_adapter adapter_inner_product = {
	ADAPTER_THREADED_FIELDS,
	.name = "inner-product",
	.description = "inner product of two float vectors (double sums), pthreads",
	.work_metric = "elements of each vector",
	.min_metric = 1,
	.max_metric = 10000000,
	.setup = setup,
	.run = run,
	.teardown = teardown,
	.params_doc = "n",
	.metric_of = adapter_count_metric_of,
};

const struct adapter_internal adapter_inner_product_internal = {
	.adapter = &adapter_inner_product,
	.verify = verify,
	.params_of = params_of,
};
