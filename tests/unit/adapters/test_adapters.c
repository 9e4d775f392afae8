/* Every built-in adapter: descriptor, init/setup/run/teardown/fini at
 * small metrics, the output checked against a naive reference, threaded
 * ones at 1, 2 and 3 threads, and metric_of round trips. No timings are
 * asserted beyond "run returned a non-negative time". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "planner/adapters/adapters.h"
#include "planner/adapters/builtin.h"
#include "planner/adapters/opencl.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static void check_descriptor(const struct sibyl_adapter *a)
{
	assert_int_equal(a->abi_version, SIBYL_ADAPTER_ABI_VERSION);
	assert_non_null(a->name);
	assert_true(a->name[0] != '\0');
	assert_non_null(a->description);
	assert_non_null(a->work_metric);
	assert_non_null(a->params_doc);
	assert_non_null(a->run);
	assert_non_null(a->metric_of);
	assert_true(a->min_metric >= 1);
	assert_true(a->min_metric < a->max_metric);
}

static void test_list(void **unused)
{
	(void)unused;
	size_t n, ni;
	const struct sibyl_adapter *const *list = sibyl_builtin_adapters(&n);
	const struct adapter_internal *const *in = adapter_internals(&ni);
	assert_int_equal(n, ni);
	assert_true(n >= 13);
	for (size_t i = 0; i < n; i++) {
		assert_ptr_equal(list[i], in[i]->adapter);
		check_descriptor(list[i]);
		assert_non_null(in[i]->verify);
		assert_non_null(in[i]->params_of);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(list[i]->name, list[j]->name);
	}
}

/* metric_of refuses what is not a parameter list of its adapter. */
static void test_metric_of_rejects(void **unused)
{
	(void)unused;
	size_t n;
	const struct sibyl_adapter *const *list = sibyl_builtin_adapters(&n);
	double bad[4] = { -1, -1, -1, -1 }, nan4[4] = { NAN, NAN, NAN, NAN };
	double ok[4] = { 10, 10, 10, 10 };
	for (size_t i = 0; i < n; i++) {
		const struct sibyl_adapter *a = list[i];
		size_t want = 1;
		for (const char *c = a->params_doc; *c; c++)
			want += *c == ',';
		assert_true(a->metric_of(bad, want) < 0);
		assert_true(a->metric_of(nan4, want) < 0);
		assert_true(a->metric_of(NULL, want) < 0);
		assert_true(a->metric_of(ok, want + 1) < 0);
		assert_true(a->metric_of(ok, want) > 0);
	}
}

static double fixed_clock(void)
{
	static double t;
	return t += 1e-3;
}

/* One sample at `metric`: run, verify the output, round-trip metric_of. */
static void one_sample(const struct adapter_internal *in, void *state, uint64_t metric)
{
	const struct sibyl_adapter *a = in->adapter;
	void *sample = NULL;
	if (a->setup)
		assert_int_equal(a->setup(state, metric, &sample), 0);
	double t = a->run(state, sample, metric);
	if (!(t >= 0))
		fail_msg("%s: run(%llu) returned %g", a->name, (unsigned long long)metric, t);
	if (in->verify(state, sample, metric) != 0)
		fail_msg("%s: wrong result at metric %llu", a->name,
			 (unsigned long long)metric);
	double params[8];
	size_t np = in->params_of(sample, params);
	double back = a->metric_of(params, np);
	/* The first parameter is a whole number: the metric may fall between
	 * those of params[0] and params[0] + 1 (or - 1). */
	double p0 = params[0];
	params[0] = p0 + 1;
	double up = a->metric_of(params, np);
	params[0] = p0 > 1 ? p0 - 1 : p0;
	double down = a->metric_of(params, np);
	bool bracketed = down <= (double)metric && (double)metric <= up;
	if (!bracketed && !(fabs(back - (double)metric) <= 0.01 * (double)metric))
		fail_msg("%s: metric %llu -> params -> %g", a->name,
			 (unsigned long long)metric, back);
	if (a->teardown)
		a->teardown(state, sample);
}

static void run_adapter(const struct adapter_internal *in, unsigned threads)
{
	const struct sibyl_adapter *a = in->adapter;
	struct sibyl_adapter_config config = {
		.threads = threads, .seed = 42, .now = fixed_clock,
	};
	char err[256] = "";
	void *state = NULL;
	if (a->init && a->init(&state, &config, err, sizeof(err)) != 0)
		fail_msg("%s: init: %s", a->name, err);
	const uint64_t metrics[] = { 1, 2, 3, 7, 16, 33, 100, 255, 256, 257, 1000, 4099,
				     12345, 100000, 1000000 };
	for (size_t i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++) {
		uint64_t m = metrics[i];
		if (m < a->min_metric)
			continue;
		/* Keep the naive references cheap on the big-metric kernels. */
		if (m > 100000 && strstr(a->name, "inner-product"))
			continue;
		if (m > 300 && (!strcmp(a->name, "floyd-warshall") ||
				!strcmp(a->name, "insertion-sort")))
			continue;
		if (m > 5000 && strstr(a->name, "matmul-paper"))
			continue;
		if (m > 5000 && (strstr(a->name, "conv") || strstr(a->name, "filter") ||
				 strstr(a->name, "flow") || strstr(a->name, "prewitt") ||
				 strstr(a->name, "lcs")))
			continue;
		one_sample(in, state, m);
	}
	if (a->fini)
		a->fini(state);
}

/* The random-parameter hooks: parameters whose metric lies in [lo, hi],
 * the same for the same seed, and samples built from them whose product
 * is right. */
static void random_samples(const struct adapter_internal *in, unsigned threads)
{
	const struct sibyl_adapter *a = in->adapter;
	struct sibyl_adapter_config config = { .threads = threads, .seed = 5 };
	char err[256];
	void *state;
	assert_int_equal(a->init(&state, &config, err, sizeof(err)), 0);
	uint64_t lo = a->min_metric, hi = a->min_metric * 50;
	double first[SIBYL_MAX_PARAMS];
	int differ = 0;
	for (uint64_t seed = 1; seed <= 20; seed++) {
		void *sample;
		double params[SIBYL_MAX_PARAMS], again[SIBYL_MAX_PARAMS];
		size_t np = in->params.draw(seed, lo, hi, params);
		assert_int_equal(np, 3);
		assert_int_equal(in->params.draw(seed, lo, hi, again), 3);
		assert_memory_equal(params, again, 3 * sizeof(double));
		if (seed == 1)
			memcpy(first, params, sizeof(first));
		differ += memcmp(first, params, 3 * sizeof(double)) != 0;
		double m = a->metric_of(params, np);
		if (!(m >= 0.99 * lo && m <= 1.01 * hi))
			fail_msg("%s: random %gx%gx%g has metric %g outside %llu:%llu", a->name,
				 params[0], params[1], params[2], m, (unsigned long long)lo,
				 (unsigned long long)hi);
		assert_int_equal(in->params.setup(state, params, np, &sample), 0);
		assert_true(a->run(state, sample, (uint64_t)m) >= 0);
		assert_int_equal(in->verify(state, sample, (uint64_t)m), 0);
		a->teardown(state, sample);
	}
	assert_true(differ >= 15);   /* the seed picks the shape */
	/* A shape past every block edge of the blocked kernel (256 rows,
	 * 32 x 128 tiles), none of them whole. */
	const double edges[3] = { 517, 45, 141 };
	void *sample;
	assert_int_equal(in->params.setup(state, edges, 3, &sample), 0);
	assert_true(a->run(state, sample, (uint64_t)a->metric_of(edges, 3)) >= 0);
	assert_int_equal(in->verify(state, sample, 0), 0);
	a->teardown(state, sample);
	a->fini(state);
}

static void test_random_parameters(void **unused)
{
	(void)unused;
	size_t n, hooks = 0;
	const struct adapter_internal *const *in = adapter_internals(&n);
	for (size_t i = 0; i < n; i++) {
		const struct sibyl_param_hooks *h = sibyl_builtin_param_hooks(in[i]->adapter);
		if (!in[i]->params.draw) {
			assert_null(h);
			continue;
		}
		assert_ptr_equal(h, &in[i]->params);
		hooks++;
		random_samples(in[i], 1);
		random_samples(in[i], 2);
	}
	assert_int_equal(hooks, 2);
	struct sibyl_adapter other = { 0 };
	assert_null(sibyl_builtin_param_hooks(&other));
}

static void test_all_adapters(void **unused)
{
	(void)unused;
	size_t n;
	const struct adapter_internal *const *in = adapter_internals(&n);
	for (size_t i = 0; i < n; i++) {
		run_adapter(in[i], 1);
		if (in[i]->adapter->flags & SIBYL_ADAPTER_THREADED) {
			run_adapter(in[i], 2);
			run_adapter(in[i], 3);
		}
	}
}

/* Two adapters with the same seed build the same inputs: repeatable. */
static void test_seeded_inputs(void **unused)
{
	(void)unused;
	struct sibyl_adapter_config config = { .threads = 1, .seed = 7 };
	void *s1, *s2;
	char err[64];
	assert_int_equal(adapter_common_init(&s1, &config, err, sizeof(err)), 0);
	assert_int_equal(adapter_common_init(&s2, &config, err, sizeof(err)), 0);
	for (int i = 0; i < 100; i++)
		assert_true(adapter_random(s1) == adapter_random(s2));
	adapter_common_fini(s1);
	adapter_common_fini(s2);
}

static void test_split(void **unused)
{
	(void)unused;
	for (size_t n = 0; n < 50; n++)
		for (unsigned t = 1; t <= 7; t++) {
			size_t next = 0;
			for (unsigned tid = 0; tid < t; tid++) {
				size_t lo, hi;
				adapter_split(n, tid, t, &lo, &hi);
				assert_int_equal(lo, next);
				assert_true(hi - lo == n / t || hi - lo == n / t + 1);
				next = hi;
			}
			assert_int_equal(next, n);
		}
}

struct barrier_job {
	struct adapter_pool *pool;
	int phase[4];
	int ok;
};

/* Every thread advances its phase, waits, and checks all others did. */
static void barrier_job(void *arg, unsigned tid, unsigned nthreads)
{
	struct barrier_job *job = arg;
	for (int round = 1; round <= 20; round++) {
		__atomic_store_n(&job->phase[tid], round, __ATOMIC_SEQ_CST);
		adapter_pool_barrier(job->pool);
		for (unsigned t = 0; t < nthreads; t++)
			if (__atomic_load_n(&job->phase[t], __ATOMIC_SEQ_CST) < round)
				__atomic_store_n(&job->ok, 0, __ATOMIC_SEQ_CST);
		adapter_pool_barrier(job->pool);
	}
}

static void test_pool(void **unused)
{
	(void)unused;
	for (unsigned threads = 1; threads <= 4; threads++) {
		struct barrier_job job = { .ok = 1 };
		job.pool = adapter_pool_create(threads);
		assert_non_null(job.pool);
		for (int rep = 0; rep < 50; rep++)
			adapter_pool_run(job.pool, barrier_job, &job);
		for (unsigned t = 0; t < threads; t++)
			assert_int_equal(job.phase[t], 20);
		assert_int_equal(job.ok, 1);
		adapter_pool_destroy(job.pool);
	}
}

/* Until its device code is enabled (sibyl-plan-worker does it), the
 * OpenCL adapter says where it runs instead of calling OpenCL: sibyl lists
 * it without linking libOpenCL.  Then it runs here like the others. */
static void test_opencl_enable(void **unused)
{
	(void)unused;
	struct sibyl_adapter_config config = { .threads = 1, .seed = 1 };
	char err[256] = "";
	void *state = NULL;
	assert_int_equal(adapter_inner_product_ocl.init(&state, &config, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "sibyl-plan-worker"));
	sibyl_adapters_opencl_enable();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_opencl_enable),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_metric_of_rejects),
		cmocka_unit_test(test_seeded_inputs),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_pool),
		cmocka_unit_test(test_all_adapters),
		cmocka_unit_test(test_random_parameters),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
