/*
 * Planner adapters for the CLBlast shim's product (clblast_gemm.c), so
 * `sibyl predict` can use their profiles for dgemm_ and cblas_dgemm
 * traced through examples/blas.defs (same work metric, 2mnk):
 *
 *   clblast-dgemm          what a redirected program pays per call: write
 *                          A and B to the device, CLBlastDgemm, read C
 *                          back (beta = 0, so C is not written)
 *   clblast-dgemm-compute  the product alone, its inputs already on the
 *                          device: with `sibyl predict --transfer`, which
 *                          adds the transfers from a device profile
 *                          (docs/predict.md)
 *
 * init does what a redirected program's first call pays beyond its
 * product: it opens the device and runs a 1x1x1 product, so CLBlast
 * builds its GEMM program (PoCL compiles it, or finds it in its kernel
 * cache) inside init's time, the planner's one-time cost (stats.one_time).
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
#include <time.h>

static int init(void **state, const struct sibyl_adapter_config *config, char *errbuf,
		size_t errlen)
{
	if (config->platform || config->device)
		return snprintf(errbuf, errlen, "runs on the first OpenCL device, as the shim "
				"does: --platform and --device do not apply"), -1;
	struct blas_sampler *s = calloc(1, sizeof(*s));

	if (!s)
		return snprintf(errbuf, errlen, "out of memory"), -1;
	double one = 1, c = 0;
	struct clgemm_args first = { .m = 1, .n = 1, .k = 1, .alpha = 1, .a = &one, .lda = 1,
				     .b = &one, .ldb = 1, .c = &c, .ldc = 1 };

	if (clgemm_open(errbuf, errlen) || clgemm(&first)) {
		if (!errbuf[0])
			snprintf(errbuf, errlen, "CLBlastDgemm failed on the device");
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

static struct clgemm_args product_args(struct blas_product *p, bool resident)
{
	return (struct clgemm_args){
		.m = (size_t)p->m, .n = (size_t)p->n, .k = (size_t)p->k, .alpha = 1.0,
		.beta = 0.0, .a = p->a, .lda = (size_t)p->m, .b = p->b, .ldb = (size_t)p->k,
		.c = p->c, .ldc = (size_t)p->m, .resident = resident,
	};
}

/*
 * Programs call a BLAS product between stretches of their own work, and
 * by then PoCL's worker threads have gone idle: a 16x16 product took
 * 200-320 us after a 2 ms pause here against 49-83 us back to back
 * (matmul's calls in a trace: 170-240 us), 64x64 430-550 against
 * 260-310 us.  So each timed run follows such a pause, untimed, and the
 * profile measures the calls programs make, not a loop's.
 */
#define IDLE_BEFORE_RUN_NS 2000000L

static double timed(void *state, void *sample, uint64_t metric, bool resident)
{
	struct blas_sampler *s = state;
	struct blas_product *p = sample;
	struct clgemm_args g = product_args(p, resident);
	struct timespec idle = { 0, IDLE_BEFORE_RUN_NS };

	blas_product_restore(p);
	nanosleep(&idle, NULL);
	double t0 = s->now();

	/* Never the shim's fallback: a product the device did not run must
	 * not enter the profile as if it had. */
	if (clgemm(&g))
		return -1;
	return blas_product_scaled(p, metric, s->now() - t0);
}

static double run(void *state, void *sample, uint64_t metric)
{
	return timed(state, sample, metric, false);
}

/* The sample's A and B go to the device once, untimed, and stay there. */
static int setup_resident(void *state, uint64_t metric, void **sample)
{
	if (blas_product_setup(state, metric, sample))
		return -1;
	struct clgemm_args g = product_args(*sample, false);

	return clgemm(&g);
}

static double run_resident(void *state, void *sample, uint64_t metric)
{
	return timed(state, sample, metric, true);
}

static const struct sibyl_adapter clblast = BLAS_PRODUCT_ADAPTER(
	"clblast-dgemm", "CLBlastDgemm on the first OpenCL device, transfers included "
	"(what the redirect target runs)", SIBYL_ADAPTER_OPENCL, init, fini, blas_product_setup,
	run);
static const struct sibyl_adapter clblast_compute = BLAS_PRODUCT_ADAPTER(
	"clblast-dgemm-compute", "CLBlastDgemm on the first OpenCL device, inputs and result "
	"left on the device (compute alone)", SIBYL_ADAPTER_OPENCL, init, fini, setup_resident,
	run_resident);

static const struct sibyl_adapter *const adapters[] = { &clblast, &clblast_compute };
__attribute__((visibility("default"))) const struct sibyl_adapter *const *
sibyl_adapters(size_t *count)
{
	*count = sizeof(adapters) / sizeof(adapters[0]);
	return adapters;
}
