/*
 * Planner adapters for matrix products in a BLAS library chosen at run
 * time, so that `sibyl plan` measures on this machine the implementation
 * a prediction swaps in (`sibyl wrap --gen redirect:library=...`):
 *
 *   openblas-dgemm    cblas_dgemm of OpenBLAS (libopenblas0-pthread),
 *                     loaded by its own path, never as the system's
 *                     libblas.so.3 (docs/predict.md)
 *   reference-dgemm   cblas_dgemm of reference BLAS, for comparison
 *
 * SIBYL_ACCEL_BLAS=PATH loads another BLAS for openblas-dgemm.
 *
 * The work metric is the one examples/blas.defs declares for the traced
 * calls, floating-point operations 2mnk; the samples are built as
 * blas_product.h says.  The library is opened the way a redirect wrapper
 * opens it (RTLD_LAZY | RTLD_LOCAL), so init measures the same one-time
 * cost.
 */
#define _GNU_SOURCE
#include "blas_product.h"
#include <sibyl/adapter.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#define OPENBLAS "/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3"
#define REFERENCE "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3"
#define CBLAS_COL_MAJOR 102
#define CBLAS_NO_TRANS 111

typedef void dgemm_fn(int layout, int transa, int transb, int m, int n, int k, double alpha,
		      const double *a, int lda, const double *b, int ldb, double beta, double *c,
		      int ldc);

struct blas_state {
	struct blas_sampler sampler;	/* first: blas_product_setup reads it */
	void *handle;
	dgemm_fn *dgemm;
};

static int open_blas(void **state, const struct sibyl_adapter_config *config, const char *path,
		     char *errbuf, size_t errlen)
{
	struct blas_state *s = calloc(1, sizeof(*s));

	if (!s)
		return snprintf(errbuf, errlen, "out of memory"), -1;
	/* RTLD_LOCAL: its symbols must not replace anything in this process. */
	s->handle = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
	s->dgemm = s->handle ? (dgemm_fn *)dlsym(s->handle, "cblas_dgemm") : NULL;
	if (!s->dgemm) {
		snprintf(errbuf, errlen, "%s: %s", path, s->handle ? "no cblas_dgemm" : dlerror());
		if (s->handle)
			dlclose(s->handle);
		free(s);
		return -1;
	}
	void (*set_threads)(int) = (void (*)(int))dlsym(s->handle, "openblas_set_num_threads");

	if (set_threads)
		set_threads((int)config->threads);
	blas_sampler_init(&s->sampler, config->now, config->seed);
	*state = s;
	return 0;
}

static int init_openblas(void **state, const struct sibyl_adapter_config *config, char *errbuf,
			 size_t errlen)
{
	const char *path = getenv("SIBYL_ACCEL_BLAS");

	return open_blas(state, config, path && *path ? path : OPENBLAS, errbuf, errlen);
}

static int init_reference(void **state, const struct sibyl_adapter_config *config, char *errbuf,
			  size_t errlen)
{
	return open_blas(state, config, REFERENCE, errbuf, errlen);
}

static void fini(void *state)
{
	struct blas_state *s = state;

	dlclose(s->handle);
	free(s);
}

static double run(void *state, void *sample, uint64_t metric)
{
	struct blas_state *s = state;
	struct blas_product *p = sample;

	blas_product_restore(p);
	double t0 = s->sampler.now();

	s->dgemm(CBLAS_COL_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, p->m, p->n, p->k, 1.0, p->a,
		 p->m, p->b, p->k, 0.0, p->c, p->m);
	return blas_product_scaled(p, metric, s->sampler.now() - t0);
}

/* The two differ only in which library they load. */
static const struct sibyl_adapter openblas =
	BLAS_PRODUCT_ADAPTER("openblas-dgemm", "cblas_dgemm of OpenBLAS, loaded by path "
			     "(SIBYL_ACCEL_BLAS overrides)", SIBYL_ADAPTER_THREADED, init_openblas,
			     fini, blas_product_setup, run);
static const struct sibyl_adapter reference =
	BLAS_PRODUCT_ADAPTER("reference-dgemm", "cblas_dgemm of reference BLAS, loaded by path",
			     0, init_reference, fini, blas_product_setup, run);

static const struct sibyl_adapter *const adapters[] = { &openblas, &reference };

__attribute__((visibility("default"))) const struct sibyl_adapter *const *
sibyl_adapters(size_t *count)
{
	*count = sizeof(adapters) / sizeof(adapters[0]);
	return adapters;
}
