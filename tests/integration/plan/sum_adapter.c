/*
 * An adapter of libsibyltest's testlib_sum for the trace-guided plan
 * tests (plan_guided.sh): work metric "values summed", as the golden
 * tests' definition file declares it for the traced calls, so a trace of
 * a program summing arrays guides a plan of the same function.
 */
#include <sibyl/adapter.h>

#include "testlib.h"

#include <stdlib.h>

static double (*now)(void);

static int init(void **state, const struct sibyl_adapter_config *c, char *err, size_t len)
{
	(void)err;
	(void)len;
	now = c->now;
	*state = NULL;
	return 0;
}

static int setup(void *state, uint64_t metric, void **sample)
{
	double *v = calloc(metric + 1, sizeof(*v));

	(void)state;
	for (uint64_t i = 0; v && i < metric; i++)
		v[i] = (double)i;
	*sample = v;
	return v ? 0 : -1;
}

static double run(void *state, void *sample, uint64_t metric)
{
	double out, t0 = now();

	(void)state;
	testlib_sum(sample, metric, &out);
	return now() - t0;
}

static void teardown(void *state, void *sample)
{
	(void)state;
	free(sample);
}

static const struct sibyl_adapter sum = {
	.abi_version = SIBYL_ADAPTER_ABI_VERSION, .name = "testlib-sum",
	.description = "libsibyltest's testlib_sum", .work_metric = "values summed",
	.min_metric = 1, .max_metric = 10000000, .init = init, .setup = setup, .run = run,
	.teardown = teardown,
};

const struct sibyl_adapter *const *sibyl_adapters(size_t *count)
{
	static const struct sibyl_adapter *list[] = { &sum };

	*count = 1;
	return list;
}
