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
 * calls, floating-point operations 2mnk.  A work metric w runs a nearly
 * square product: n = k = floor(cbrt(w / 2)), m = round(w / (2 n k)), and
 * the time is scaled by w / (2 m n k) (at most 1/(2m) off) so that the
 * profile stays in the metric's units.
 *
 * Programs write a product's inputs just before they call it (numpy, the
 * demo): every timed run first rewrites A, B and C from a pristine copy,
 * untimed, so its caches hold what a program's would, not the previous
 * run's result.  The library is opened the way a redirect wrapper opens
 * it (RTLD_LAZY | RTLD_LOCAL), so init measures the same one-time cost.
 */
#define _GNU_SOURCE
#include <sibyl/adapter.h>

#include <dlfcn.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define OPENBLAS "/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3"
#define REFERENCE "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3"
#define METRIC "floating-point operations (2mnk)"
#define CBLAS_COL_MAJOR 102
#define CBLAS_NO_TRANS 111

typedef void dgemm_fn(int layout, int transa, int transb, int m, int n, int k, double alpha,
		      const double *a, int lda, const double *b, int ldb, double beta, double *c,
		      int ldc);

struct blas_state {
	void *handle;
	dgemm_fn *dgemm;
	double (*now)(void);
	unsigned long long rng;
};

struct product {
	int m, n, k;
	double *a, *b, *c;
	double *pristine;	/* a, b, c as setup made them, back to back */
};

static double monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

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
	s->now = config->now ? config->now : monotonic;
	s->rng = config->seed | 1;
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

static double *random_matrix(struct blas_state *s, size_t count)
{
	double *v = malloc(count * sizeof(*v));

	for (size_t i = 0; v && i < count; i++) {
		s->rng = s->rng * 6364136223846793005ull + 1442695040888963407ull;
		v[i] = (double)(s->rng >> 11) / 9007199254740992.0 - 0.5;
	}
	return v;
}

static void shape_of(uint64_t metric, int *m, int *n, int *k)
{
	int side = (int)floor(cbrt((double)metric / 2));

	if (side < 1)
		side = 1;
	while (2.0 * (side + 1) * (side + 1) * (side + 1) <= (double)metric)
		side++;	/* cbrt rounding */
	*n = *k = side;
	*m = (int)llround((double)metric / (2.0 * side * side));
	if (*m < 1)
		*m = 1;
}

static size_t bytes_of(const struct product *p)
{
	return ((size_t)p->m * p->k + (size_t)p->k * p->n + (size_t)p->m * p->n) * sizeof(double);
}

/* save: pristine <- a, b, c; else a, b, c <- pristine. */
static void copy_inputs(struct product *p, bool save)
{
	double *at = p->pristine;
	double *const parts[] = { p->a, p->b, p->c };
	const size_t counts[] = { (size_t)p->m * p->k, (size_t)p->k * p->n, (size_t)p->m * p->n };

	for (int i = 0; i < 3; i++) {
		if (save)
			memcpy(at, parts[i], counts[i] * sizeof(double));
		else
			memcpy(parts[i], at, counts[i] * sizeof(double));
		at += counts[i];
	}
}

static int setup(void *state, uint64_t metric, void **sample)
{
	struct product *p = calloc(1, sizeof(*p));

	if (!p)
		return -1;
	shape_of(metric, &p->m, &p->n, &p->k);
	p->a = random_matrix(state, (size_t)p->m * p->k);
	p->b = random_matrix(state, (size_t)p->k * p->n);
	p->c = random_matrix(state, (size_t)p->m * p->n);
	p->pristine = malloc(bytes_of(p));
	*sample = p;
	if (!p->a || !p->b || !p->c || !p->pristine)
		return -1;
	copy_inputs(p, true);
	return 0;
}

static void teardown(void *state, void *sample)
{
	struct product *p = sample;

	(void)state;
	free(p->a);
	free(p->b);
	free(p->c);
	free(p->pristine);
	free(p);
}

static double run(void *state, void *sample, uint64_t metric)
{
	struct blas_state *s = state;
	struct product *p = sample;

	copy_inputs(p, false);
	double t0 = s->now();

	s->dgemm(CBLAS_COL_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, p->m, p->n, p->k, 1.0, p->a,
		 p->m, p->b, p->k, 0.0, p->c, p->m);
	double seconds = s->now() - t0;

	return seconds * (double)metric / (2.0 * p->m * p->n * p->k);
}

/* (m, n, k) of a call -> its work metric. */
static double metric_of(const double *params, size_t nparams)
{
	if (nparams != 3 || params[0] < 1 || params[1] < 1 || params[2] < 1)
		return -1;
	return 2 * params[0] * params[1] * params[2];
}

/* The two differ only in which library they load. */
#define BLAS_ADAPTER(adapter_name, what, init_fn, adapter_flags)		\
	{									\
		.abi_version = SIBYL_ADAPTER_ABI_VERSION, .name = adapter_name,	\
		.description = what, .work_metric = METRIC,			\
		.min_metric = 2 * 16 * 16 * 16, .max_metric = 2ull * 512 * 512 * 512, \
		.flags = adapter_flags, .init = init_fn, .fini = fini,		\
		.setup = setup, .run = run, .teardown = teardown,		\
		.params_doc = "m,n,k", .metric_of = metric_of,			\
	}

static const struct sibyl_adapter openblas =
	BLAS_ADAPTER("openblas-dgemm", "cblas_dgemm of OpenBLAS, loaded by path "
		     "(SIBYL_ACCEL_BLAS overrides)", init_openblas, SIBYL_ADAPTER_THREADED);
static const struct sibyl_adapter reference =
	BLAS_ADAPTER("reference-dgemm", "cblas_dgemm of reference BLAS, loaded by path",
		     init_reference, 0);

static const struct sibyl_adapter *const adapters[] = { &openblas, &reference };

__attribute__((visibility("default"))) const struct sibyl_adapter *const *
sibyl_adapters(size_t *count)
{
	*count = sizeof(adapters) / sizeof(adapters[0]);
	return adapters;
}
