/* Sample handling and threading shared by both matrix-multiply adapters. */
#include "planner/adapters/adapters.h"
#include "planner/adapters/matmul.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int matmul_setup_shape(void *state, size_t m, size_t n, size_t p, bool padded,
		       struct matmul_sample **out)
{
	struct matmul_sample *s = calloc(1, sizeof(*s));
	if (!s)
		return -1;
	size_t ld = padded ? (p + 15) / 16 * 16 : p;
	*s = (struct matmul_sample){ .m = m, .n = n, .p = p, .ld = ld };
	s->a = adapter_alloc(m * n, sizeof(float));
	s->b = adapter_alloc_output(n * ld, sizeof(float));
	s->c = adapter_alloc_output(m * ld, sizeof(float));
	if (!s->a || !s->b || !s->c || !m || !n || !p) {
		matmul_teardown(state, s);
		return -1;
	}
	adapter_fill_random_floats(state, s->a, m * n);
	for (size_t k = 0; k < n; k++)
		adapter_fill_random_floats(state, s->b + k * ld, p);
	*out = s;
	return 0;
}

int matmul_setup_params(void *state, const double *params, size_t nparams,
			bool padded, void **sample)
{
	if (!adapter_params_ok(params, nparams, 3, 1))
		return -1;
	return matmul_setup_shape(state, (size_t)params[0], (size_t)params[1],
				  (size_t)params[2], padded, (struct matmul_sample **)sample);
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
				sum += (double)s->a[i * s->n + k] * s->b[k * s->ld + j];
			double got = s->c[i * s->ld + j];
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

/* Random shapes: each matrix at most 2^22 floats (16 MiB), the two
 * free dimensions at most 4096. */
#define MAX_ELEMENTS (1u << 22)
#define MAX_FREE_DIM 4096.0

double matmul_solve_dim(matmul_cost_fn cost, double d[3], int which, double w)
{
	double lo = 1, hi = MAX_ELEMENTS;
	while (hi - lo > 1) {
		double mid = floor((lo + hi) / 2);
		d[which] = mid;
		if (cost(d) < w)
			lo = mid;
		else
			hi = mid;
	}
	d[which] = lo;
	double below = fabs(cost(d) - w);
	d[which] = hi;
	if (below < fabs(cost(d) - w))
		d[which] = lo;
	return fabs(cost(d) - w) / w;
}

/* Keep the candidate whose metric is closest (within 0.5% but at the
 * smallest metrics) and whose matrices fit. */
static void random_shape(void *state, matmul_cost_fn cost, double w, double dims[3])
{
	double best_err = INFINITY;
	double span = log(MAX_FREE_DIM);
	dims[0] = dims[1] = dims[2] = 1;
	for (int attempt = 0; attempt < 256 && best_err > 0.005; attempt++) {
		int solved = (int)(adapter_random(state) % 3);
		double d[3];
		for (int i = 0; i < 3; i++)
			d[i] = floor(exp(span * adapter_random_unit(state)));
		double err = matmul_solve_dim(cost, d, solved, w);
		if (d[0] * d[1] > MAX_ELEMENTS || d[1] * d[2] > MAX_ELEMENTS ||
		    d[0] * d[2] > MAX_ELEMENTS || err >= best_err)
			continue;
		best_err = err;
		memcpy(dims, d, sizeof(d));
	}
}

size_t matmul_draw(matmul_cost_fn cost, uint64_t seed, uint64_t lo, uint64_t hi,
		   double *params)
{
	/* A stream of its own: the draw is the caller's (the evaluation's
	 * seed), not the worker's. */
	struct adapter_common stream = { .rng = seed ? seed : 1 };
	double w = lo + adapter_random_unit(&stream) * (double)(hi - lo);

	random_shape(&stream, cost, w, params);
	return 3;
}

struct matmul_job {
	struct matmul_sample *s;
	matmul_kernel_fn kernel;
	int by_rows;
};

/* Columns are split in groups of 16 so that a kernel running whole
 * 16-lane vectors never writes into another thread's columns. */
#define GROUP 16

static void matmul_range(void *arg, unsigned tid, size_t lo, size_t hi)
{
	const struct matmul_job *job = arg;
	const struct matmul_sample *s = job->s;
	(void)tid;
	if (job->by_rows)
		job->kernel(s, lo, hi, 0, s->p);
	else
		job->kernel(s, 0, s->m, lo * GROUP, hi * GROUP < s->p ? hi * GROUP : s->p);
}

double matmul_timed(void *state, struct matmul_sample *s, matmul_kernel_fn kernel)
{
	struct matmul_job job = { s, kernel, s->m >= s->p };
	size_t units = job.by_rows ? s->m : (s->p + GROUP - 1) / GROUP;
	return adapter_timed_parallel(state, units, matmul_range, &job);
}
