/*
 * The samples of the matrix-product adapters (blas_dgemm.c for BLAS
 * libraries loaded by path, clblast_adapter.c for the CLBlast shim): a
 * work metric in floating-point operations 2mnk becomes a nearly square
 * column-major product with random inputs.
 *
 * A work metric w runs n = k = floor(cbrt(w / 2)), m = round(w / (2 n k)),
 * and the time is scaled by w / (2 m n k) (at most 1/(2m) off) so that the
 * profile stays in the metric's units.
 *
 * Programs write a product's inputs just before they call it (numpy, the
 * demo): every timed run first rewrites A, B and C from a pristine copy,
 * untimed (blas_product_restore), so its caches hold what a program's
 * would, not the previous run's result.
 */
#ifndef SIBYL_ACCEL_BLAS_PRODUCT_H
#define SIBYL_ACCEL_BLAS_PRODUCT_H

#include <stddef.h>
#include <stdint.h>

#define BLAS_PRODUCT_METRIC "floating-point operations (2mnk)"
#define BLAS_PRODUCT_MIN_METRIC (2 * 16 * 16 * 16)
#define BLAS_PRODUCT_MAX_METRIC (2ull * 512 * 512 * 512)

struct blas_product {
	int m, n, k;
	double *a, *b, *c;	/* column-major, leading dimensions m, k, m */
	double *pristine;	/* a, b, c as setup made them, back to back */
};

/* The state of an adapter using these samples starts with this. */
struct blas_sampler {
	double (*now)(void);	/* the planner's clock, else CLOCK_MONOTONIC */
	unsigned long long rng;
};

void blas_sampler_init(struct blas_sampler *s, double (*now)(void), uint64_t seed);

/* The adapter's setup and teardown (sibyl/adapter.h): the product of a
 * work metric, inputs drawn from the sampler's generator. */
int blas_product_setup(void *state, uint64_t metric, void **sample);
void blas_product_teardown(void *state, void *sample);

/* a, b, c <- their pristine copies, before every timed run. */
void blas_product_restore(struct blas_product *p);

/* A run's seconds in the metric's units: seconds * metric / (2mnk). */
double blas_product_scaled(const struct blas_product *p, uint64_t metric, double seconds);

/* (m, n, k) of a call -> its work metric 2mnk; negative outside. */
double blas_product_metric_of(const double *params, size_t nparams);

/* An adapter (sibyl/adapter.h) of these samples, in this work metric. */
#define BLAS_PRODUCT_ADAPTER(adapter_name, what, adapter_flags, init_fn, fini_fn, setup_fn, \
			     run_fn)							\
	{									\
		.abi_version = SIBYL_ADAPTER_ABI_VERSION, .name = adapter_name,	\
		.description = what, .work_metric = BLAS_PRODUCT_METRIC,	\
		.min_metric = BLAS_PRODUCT_MIN_METRIC,				\
		.max_metric = BLAS_PRODUCT_MAX_METRIC, .flags = adapter_flags,	\
		.init = init_fn, .fini = fini_fn, .setup = setup_fn,		\
		.run = run_fn, .teardown = blas_product_teardown,		\
		.params_doc = "m,n,k", .metric_of = blas_product_metric_of,	\
	}

#endif
