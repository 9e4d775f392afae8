/*
 * The planner adapter `clblast-dgemm`: the CLBlast shim's product
 * (clblast_gemm.c), measured the way a redirected program pays for it,
 * so `sibyl predict` can use its profile for dgemm_ and cblas_dgemm
 * traced through examples/blas.defs (same work metric, 2mnk).
 *
 * A timed run is what the shim does for a call: write A and B to the
 * device, CLBlastDgemm, read C back (beta = 0, so C is not written).
 * init opens the device, as the shim's first call does; CLBlast builds
 * its GEMM program (and PoCL its kernels) on the first product, which the
 * planner's first run of its first sample measures (stats.one_time).
 *
 * The device is the shim's, the first OpenCL device: a --platform or
 * --device selection is refused rather than planning another device
 * than the one the redirected program would use.
 */
#include "blas_product.h"
#include "clblast_gemm.h"
#include <sibyl/adapter.h>

#include <stdio.h>
#include <stdlib.h>

static int init(void **state, const struct sibyl_adapter_config *config, char *errbuf,
		size_t errlen)
{
	if (config->platform || config->device)
		return snprintf(errbuf, errlen, "runs on the first OpenCL device, as the shim "
				"does: --platform and --device do not apply"), -1;
	struct blas_sampler *s = calloc(1, sizeof(*s));

	if (!s)
		return snprintf(errbuf, errlen, "out of memory"), -1;
	if (clgemm_open(errbuf, errlen)) {
		free(s);
		return -1;
	}
	blas_sampler_init(s, config->now, config->seed);
	*state = s;
	return 0;
}

static void fini(void *state)
{
	clgemm_close();
	free(state);
}

static double run(void *state, void *sample, uint64_t metric)
{
	struct blas_sampler *s = state;
	struct blas_product *p = sample;
	struct clgemm_args g = {
		.m = (size_t)p->m, .n = (size_t)p->n, .k = (size_t)p->k, .alpha = 1.0,
		.beta = 0.0, .a = p->a, .lda = (size_t)p->m, .b = p->b, .ldb = (size_t)p->k,
		.c = p->c, .ldc = (size_t)p->m,
	};

	blas_product_restore(p);
	double t0 = s->now();

	/* Never the shim's fallback: a product the device did not run must
	 * not enter the profile as if it had. */
	if (clgemm(&g))
		return -1;
	return blas_product_scaled(p, metric, s->now() - t0);
}

static const struct sibyl_adapter clblast = {
	.abi_version = SIBYL_ADAPTER_ABI_VERSION,
	.name = "clblast-dgemm",
	.description = "CLBlastDgemm on the first OpenCL device, transfers included "
		       "(the redirect target's product)",
	.work_metric = BLAS_PRODUCT_METRIC,
	.min_metric = BLAS_PRODUCT_MIN_METRIC,
	.max_metric = BLAS_PRODUCT_MAX_METRIC,
	.flags = SIBYL_ADAPTER_OPENCL,
	.init = init,
	.fini = fini,
	.setup = blas_product_setup,
	.run = run,
	.teardown = blas_product_teardown,
	.params_doc = "m,n,k",
	.metric_of = blas_product_metric_of,
};

static const struct sibyl_adapter *const adapters[] = { &clblast };

__attribute__((visibility("default"))) const struct sibyl_adapter *const *
sibyl_adapters(size_t *count)
{
	*count = sizeof(adapters) / sizeof(adapters[0]);
	return adapters;
}
