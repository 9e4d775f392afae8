/* Sample handling and threading shared by both matrix-multiply adapters. */
#include "planner/adapters/adapters.h"
#include "planner/adapters/matmul.h"

#include <math.h>
#include <stdlib.h>

int matmul_setup_shape(void *state, size_t m, size_t n, size_t p,
		       struct matmul_sample **out)
{
	struct matmul_sample *s = calloc(1, sizeof(*s));
	if (!s)
		return -1;
	*s = (struct matmul_sample){ .m = m, .n = n, .p = p };
	s->a = adapter_alloc(m * n, sizeof(float));
	s->b = adapter_alloc(n * p, sizeof(float));
	s->c = adapter_alloc(m * p, sizeof(float));
	if (!s->a || !s->b || !s->c || !m || !n || !p) {
		matmul_teardown(state, s);
		return -1;
	}
	adapter_fill_random_floats(state, s->a, m * n);
	adapter_fill_random_floats(state, s->b, n * p);
	*out = s;
	return 0;
}

int matmul_setup_params(void *state, const double *params, size_t nparams,
			void **sample)
{
	if (!adapter_params_ok(params, nparams, 3, 1))
		return -1;
	return matmul_setup_shape(state, (size_t)params[0], (size_t)params[1],
				  (size_t)params[2], (struct matmul_sample **)sample);
}

void matmul_teardown(void *state, void *sample)
{
	struct matmul_sample *s = sample;
	(void)state;
	free(s->a);
	free(s->b);
	free(s->c);
	free(s);
}

int matmul_verify(void *state, void *sample, uint64_t metric)
{
	const struct matmul_sample *s = sample;
	(void)state;
	(void)metric;
	for (size_t i = 0; i < s->m; i++)
		for (size_t j = 0; j < s->p; j++) {
			double sum = 0;
			for (size_t k = 0; k < s->n; k++)
				sum += (double)s->a[i * s->n + k] * s->b[k * s->p + j];
			double got = s->c[i * s->p + j];
			if (!(fabs(got - sum) <= 1e-4 * (1 + fabs(sum)) + 1e-6 * s->n))
				return -1;
		}
	return 0;
}

size_t matmul_params_of(void *sample, double *params)
{
	const struct matmul_sample *s = sample;
	params[0] = (double)s->m;
	params[1] = (double)s->n;
	params[2] = (double)s->p;
	return 3;
}

struct matmul_job {
	struct matmul_sample *s;
	matmul_kernel_fn kernel;
	int by_rows;
};

static void matmul_range(void *arg, unsigned tid, size_t lo, size_t hi)
{
	const struct matmul_job *job = arg;
	const struct matmul_sample *s = job->s;
	(void)tid;
	if (job->by_rows)
		job->kernel(s, lo, hi, 0, s->p);
	else
		job->kernel(s, 0, s->m, lo, hi);
}

double matmul_timed(void *state, struct matmul_sample *s, matmul_kernel_fn kernel)
{
	struct matmul_job job = { s, kernel, s->m >= s->p };
	return adapter_timed_parallel(state, job.by_rows ? s->m : s->p, matmul_range, &job);
}
