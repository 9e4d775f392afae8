/* Floyd-Warshall all-pairs shortest paths (Table I), multi-threaded:
 * work metric = number of vertices of a complete directed graph with
 * random weights. Each thread owns an equal band of rows for the whole
 * run; the threads meet at a barrier after every intermediate vertex k
 * (row k does not change during step k, so it is read without locks). */
#include "planner/adapters/adapters.h"

#include <stdlib.h>
#include <string.h>

#define MAX_WEIGHT 1000

struct fw_sample {
	int *dist;
	int *original;
	size_t n;
	struct adapter_pool *pool;
};

static int setup(void *state, uint64_t metric, void **sample)
{
	struct fw_sample *s = calloc(1, sizeof(*s));
	size_t n = metric;
	if (!s)
		return -1;
	s->n = n;
	s->pool = ((struct adapter_common *)state)->pool;
	s->dist = adapter_alloc(n * n, sizeof(int));
	s->original = adapter_alloc(n * n, sizeof(int));
	if (!s->dist || !s->original) {
		free(s->dist);
		free(s->original);
		free(s);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			s->dist[i * n + j] = i == j ? 0
				: 1 + (int)(adapter_random(state) % MAX_WEIGHT);
	memcpy(s->original, s->dist, n * n * sizeof(int));
	*sample = s;
	return 0;
}

static void relax_rows(int *d, size_t n, size_t k, size_t lo, size_t hi)
{
	const int *restrict dk = d + k * n;
	for (size_t i = lo; i < hi; i++) {
		int *restrict di = d + i * n;
		const int dik = di[k];
		for (size_t j = 0; j < n; j++) {
			int via = dik + dk[j];
			di[j] = via < di[j] ? via : di[j];
		}
	}
}

static void fw_job(void *arg, unsigned tid, unsigned nthreads)
{
	struct fw_sample *s = arg;
	size_t lo, hi;
	adapter_split(s->n, tid, nthreads, &lo, &hi);
	for (size_t k = 0; k < s->n; k++) {
		relax_rows(s->dist, s->n, k, lo, hi);
		adapter_pool_barrier(s->pool);
	}
}

static double run(void *state, void *sample, uint64_t metric)
{
	struct fw_sample *s = sample;
	(void)metric;
	double t0 = adapter_now(state);
	adapter_pool_run(s->pool, fw_job, s);
	return adapter_now(state) - t0;
}

static void teardown(void *state, void *sample)
{
	struct fw_sample *s = sample;
	(void)state;
	free(s->dist);
	free(s->original);
	free(s);
}

/* Reference: the textbook triple loop, one thread, on the kept copy. */
static int verify(void *state, void *sample, uint64_t metric)
{
	struct fw_sample *s = sample;
	int *d = s->original;
	size_t n = s->n;
	(void)state;
	if (n != metric)
		return -1;
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < n; j++)
				if (d[i * n + k] + d[k * n + j] < d[i * n + j])
					d[i * n + j] = d[i * n + k] + d[k * n + j];
	return memcmp(d, s->dist, n * n * sizeof(int)) ? -1 : 0;
}

static size_t params_of(void *sample, double *params)
{
	params[0] = (double)((struct fw_sample *)sample)->n;
	return 1;
}

const struct sibyl_adapter adapter_floyd_warshall = {
	ADAPTER_THREADED_FIELDS,
	.name = "floyd-warshall",
	.description = "Floyd-Warshall shortest paths, complete graph, random weights, pthreads",
	.work_metric = "vertices",
	.min_metric = 1,
	.max_metric = 600,
	.setup = setup,
	.run = run,
	.teardown = teardown,
	.params_doc = "vertices",
	.metric_of = adapter_count_metric_of,
};

const struct adapter_internal adapter_floyd_warshall_internal = {
	.adapter = &adapter_floyd_warshall,
	.verify = verify,
	.params_of = params_of,
};
