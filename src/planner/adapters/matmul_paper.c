/* Matrix multiply exactly as the paper's adapter (Table I): work metric
 * = m, the other two dimensions fixed at 16; the inverse mapping is
 * m * n * p / 256, i.e. "equal multiply-accumulate counts take equal
 * time". The implementation is the textbook dot-product triple loop.
 * Kept so the paper's 38% error can be compared with "matmul". */
#include "planner/adapters/adapters.h"
#include "planner/adapters/matmul.h"

#define FIXED 16

static int setup(void *state, uint64_t metric, void **sample)
{
	return matmul_setup_shape(state, metric, FIXED, FIXED, false,
				  (struct matmul_sample **)sample);
}

static void naive_kernel(const struct matmul_sample *s, size_t i0, size_t i1,
			 size_t j0, size_t j1)
{
	for (size_t i = i0; i < i1; i++)
		for (size_t j = j0; j < j1; j++) {
			float sum = 0;
			for (size_t k = 0; k < s->n; k++)
				sum += s->a[i * s->n + k] * s->b[k * s->ld + j];
			s->c[i * s->ld + j] = sum;
		}
}

static double run(void *state, void *sample, uint64_t metric)
{
	(void)metric;
	return matmul_timed(state, sample, naive_kernel);
}

static double macs_over_256(const double d[3])
{
	return d[0] * d[1] * d[2] / (FIXED * FIXED);
}

static size_t draw(uint64_t seed, uint64_t lo, uint64_t hi, double *params)
{
	return matmul_draw(macs_over_256, seed, lo, hi, params);
}

static int setup_params(void *state, const double *params, size_t nparams, void **sample)
{
	return matmul_setup_params(state, params, nparams, false, sample);
}

static double metric_of(const double *params, size_t nparams)
{
	if (!adapter_params_ok(params, nparams, 3, 1))
		return -1;
	return macs_over_256(params);
}

const struct sibyl_adapter adapter_matmul_paper = {
	ADAPTER_THREADED_FIELDS,
	.name = "matmul-paper",
	.description = "naive matrix multiply, the paper's adapter (m varies, n = p = 16), pthreads",
	.work_metric = "rows m of A (n = p = 16); m*n*p/256 for other shapes",
	.min_metric = 1,
	.max_metric = 2500000,
	.setup = setup,
	.run = run,
	.teardown = matmul_teardown,
	.params_doc = "m,n,p",
	.metric_of = metric_of,
};

const struct adapter_internal adapter_matmul_paper_internal = {
	.adapter = &adapter_matmul_paper,
	.verify = matmul_verify,
	.params_of = matmul_params_of,
	.params = { .draw = draw, .setup = setup_params },
};
