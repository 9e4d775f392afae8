/* Shared by the built-in adapters: common per-process state (the
 * planner's clock, a seeded random stream, the worker threads of the
 * multi-threaded implementations) and the adapter list. Nothing here is
 * part of the public ABI (include/sibyl/adapter.h). */
#ifndef SIBYL_PLANNER_ADAPTERS_ADAPTERS_H
#define SIBYL_PLANNER_ADAPTERS_ADAPTERS_H

#include <sibyl/adapter.h>
#include "planner/adapters/builtin.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct adapter_pool;

struct adapter_common {
	struct sibyl_adapter_config config;
	uint64_t rng;              /* xorshift64* state, never 0 */
	struct adapter_pool *pool; /* NULL for single-threaded adapters */
};

/* init for single-threaded adapters, and for threaded ones: the latter
 * also starts config.threads - 1 workers so thread creation is never
 * inside a measured run (the calling thread is worker 0). */
int adapter_common_init(void **state, const struct sibyl_adapter_config *config,
			char *errbuf, size_t errlen);
int adapter_threaded_init(void **state, const struct sibyl_adapter_config *config,
			  char *errbuf, size_t errlen);
void adapter_common_fini(void *state);

double adapter_now(void *state);
uint64_t adapter_random(void *state);
/* Uniform in [0, 1). */
double adapter_random_unit(void *state);
void adapter_fill_random_ints(void *state, int *values, size_t n);
/* Uniform in [-1, 1): keeps float sums well conditioned. */
void adapter_fill_random_floats(void *state, float *values, size_t n);
/* malloc of n * size bytes, never of 0 bytes, NULL on overflow. */
void *adapter_alloc(size_t n, size_t size);
/* The same, written once: an output buffer whose pages are mapped in
 * setup, so first-touch page faults never land in the timed run. */
void *adapter_alloc_output(size_t n, size_t size);

/* --- threads ---------------------------------------------------------- */

/* fn(arg, tid, nthreads) runs on every thread of the pool, the caller
 * being tid 0; returns when all have returned. */
typedef void (*adapter_job_fn)(void *arg, unsigned tid, unsigned nthreads);

struct adapter_pool *adapter_pool_create(unsigned threads);
void adapter_pool_run(struct adapter_pool *pool, adapter_job_fn fn, void *arg);
/* For jobs with phases (Floyd-Warshall): all threads of the job wait. */
void adapter_pool_barrier(struct adapter_pool *pool);
void adapter_pool_destroy(struct adapter_pool *pool);

/* Thread tid's share [*lo, *hi) of n items: sizes differ by at most 1. */
void adapter_split(size_t n, unsigned tid, unsigned nthreads, size_t *lo, size_t *hi);

/* Split n items evenly over the adapter's threads, call fn(arg, lo, hi)
 * on each non-empty share, and return the elapsed seconds. */
typedef void (*adapter_range_fn)(void *arg, unsigned tid, size_t lo, size_t hi);
double adapter_timed_parallel(void *state, size_t n, adapter_range_fn fn, void *arg);
unsigned adapter_threads(void *state);

/* --- parameter checks (metric_of) ------------------------------------- */

/* true when nparams == want and every parameter is finite and >= min. */
bool adapter_params_ok(const double *params, size_t nparams, size_t want, double min);
/* The inverse mapping of adapters whose one parameter is the metric. */
double adapter_count_metric_of(const double *params, size_t nparams);

/* --- sorts: an array of random ints and a copy to check against ------- */

struct sort_sample {
	int *values;
	int *original;
	size_t n;
};

int adapter_sort_setup(void *state, uint64_t metric, void **sample);
void adapter_sort_teardown(void *state, void *sample);
int adapter_sort_verify(void *state, void *sample, uint64_t metric);
/* Time sort(values, n) on the sample. */
double adapter_sort_run(void *state, void *sample, void (*sort)(int *values, size_t n));
size_t adapter_sort_params_of(void *sample, double *params);
/* The insertion-sort adapter's implementation, also quick sort's finish. */
void adapter_insertion_sort_ints(int *a, size_t n);

/* --- images: padded input, output of rows x cols ----------------------- */

/* The input is (rows + win - 1) x (cols + win - 1) so every output pixel
 * reads a full window without edge branches: time is then exactly
 * proportional to rows (the paper's Theta(x*y)). */
struct image_sample;
typedef float (*adapter_ref_pixel_fn)(const struct image_sample *s, size_t r, size_t c);

struct image_sample {
	size_t rows, cols, win, in_cols;
	float *in;
	float *out;
	float *window;             /* win x win coefficients or template */
	adapter_range_fn rows_fn;  /* the implementation, on a band of rows */
	adapter_ref_pixel_fn ref_pixel; /* naive reference, one pixel */
};

int adapter_image_setup(void *state, size_t rows, size_t cols, size_t win,
			adapter_range_fn rows_fn, adapter_ref_pixel_fn ref_pixel,
			void **sample);
/* run: rows_fn over equal bands of rows on the adapter's threads. */
double adapter_image_run(void *state, void *sample, uint64_t metric);
void adapter_image_teardown(void *state, void *sample);
/* Compare s->out with a reference image computed pixel by pixel by
 * s->ref_pixel (naive code, in double); 0 when every pixel is within
 * 1e-4 relative. */
int adapter_image_verify(void *state, void *sample, uint64_t rows);
/* Metric = image rows for an image of `fixed_cols` columns. */
double adapter_image_metric_of(const double *params, size_t nparams, double fixed_cols);
/* rows, cols of the sample's image. */
size_t adapter_image_params_of(void *sample, double *params);

/* Descriptor fields the sliding-window, sorting and other threaded
 * adapters share (designated initialisers; never set one twice). */
#define ADAPTER_THREADED_FIELDS \
	.abi_version = SIBYL_ADAPTER_ABI_VERSION, \
	.flags = SIBYL_ADAPTER_THREADED, .init = adapter_threaded_init, \
	.fini = adapter_common_fini
#define ADAPTER_IMAGE_FIELDS \
	ADAPTER_THREADED_FIELDS, .run = adapter_image_run, \
	.teardown = adapter_image_teardown, .params_doc = "rows,cols"
#define ADAPTER_SORT_FIELDS \
	.abi_version = SIBYL_ADAPTER_ABI_VERSION, \
	.init = adapter_common_init, .fini = adapter_common_fini, \
	.setup = adapter_sort_setup, .teardown = adapter_sort_teardown, \
	.params_doc = "n", .metric_of = adapter_count_metric_of

/* --- test-only view of the built-ins ----------------------------------- */

/* Per adapter, outside the ABI: check the last run's output against a
 * naive reference, and report the invocation parameters (params_doc
 * order) a sample stands for, so metric_of round trips can be tested. */
struct adapter_internal {
	const struct sibyl_adapter *adapter;
	int (*verify)(void *state, void *sample, uint64_t metric);
	size_t (*params_of)(void *sample, double *params);
	/* Optional: random invocation parameters and samples built from
	 * them (sibyl_builtin_param_hooks, builtin.h). */
	struct sibyl_param_hooks params;
};

/* Every built-in, listed once: X(name) expands per adapter. Each file
 * defines `adapter_<name>` and `adapter_<name>_internal`. */
#define ADAPTER_LIST(X) \
	X(heap_sort) X(insertion_sort) X(lcs) X(quick_sort) \
	X(conv2d) X(circ_conv) X(floyd_warshall) X(inner_product) \
	X(matmul) X(matmul_paper) X(mean_filter) X(optical_flow) X(prewitt) \
	X(inner_product_ocl)

#define ADAPTER_DECLARE(name) \
	extern const struct sibyl_adapter adapter_##name; \
	extern const struct adapter_internal adapter_##name##_internal;
ADAPTER_LIST(ADAPTER_DECLARE)

/* The internals of every built-in, in listing order. */
const struct adapter_internal *const *adapter_internals(size_t *count);

#endif
